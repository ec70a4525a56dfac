//! Hooks that update the run's state: `step_end`, `post_tool_use` and
//! `stop` edit what the model reads next; the session's metadata, written
//! by one hook, read by a later one, kept across export and import.

use super::*;
use hookwire::BoxFuture;
use hookwire::agent::{RunState, StateSeal};
use hookwire::model::{Model, ModelError, ModelRequest, ModelResponse};

/// The texts of each request's messages.
type Seen = Arc<Mutex<Vec<Vec<String>>>>;

/// A scripted model that notes the messages of each request.
struct Reading(ScriptedModel, Seen);

impl Model for Reading {
    fn name(&self) -> &str {
        "reading"
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        let texts = request.messages.iter().map(Message::text).collect();
        self.1.lock().unwrap().push(texts);
        self.0.complete(request)
    }
}

fn reading(turns: impl IntoIterator<Item = Turn>) -> (Reading, Seen) {
    let seen = Seen::default();
    (
        Reading(ScriptedModel::from_turns(turns), seen.clone()),
        seen,
    )
}

/// Rewrites the step's tool results in the history at `step_end`, and
/// counts the steps in the metadata.
struct Redact;

impl LifecycleHooks for Redact {
    async fn step_end(&self, cx: &mut StepEnd<'_>) {
        for message in cx.history.iter_mut() {
            if let Message::Tool { result, .. } = message
                && result.text_content() == "3"
            {
                *result = ToolResult::text("[redacted]");
            }
        }
        let steps = cx.run_metadata.get::<u32>("steps").unwrap_or(0);
        cx.run_metadata.insert("steps", &(steps + 1)).unwrap();
    }
}

#[tokio::test]
async fn what_a_step_end_hook_edits_is_what_the_model_reads_next() {
    let ran: Log = Arc::default();
    let (model, seen) = reading([
        Turn::call("add", json!({"a": 1, "b": 2})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(calc(ran.clone()), model).with_hooks(Redact);
    runner.run("add").await.unwrap();
    let seen = seen.lock().unwrap();
    // The second request reads the edited result, not `3`.
    assert_eq!(seen[1].last().map(String::as_str), Some("[redacted]"));
    assert!(!seen[1].iter().any(|m| m == "3"), "{seen:?}");
    // Both steps ended through the hook, which counted them.
    assert_eq!(runner.export_state().metadata["steps"], json!(2));
}

/// Adds a note after a call's result, and reads what `step_end` wrote.
struct Note(Log);

impl LifecycleHooks for Note {
    async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
        let steps = cx.run_metadata.get::<u32>("steps");
        self.0
            .lock()
            .unwrap()
            .push(format!("steps so far: {steps:?}"));
        cx.add_messages
            .push(Message::user(format!("note: {} ran", cx.call.name)));
    }
}

#[tokio::test]
async fn a_post_tool_use_hook_adds_what_the_model_reads_next() {
    let ran: Log = Arc::default();
    let read: Log = Arc::default();
    let (model, seen) = reading([
        Turn::call("add", json!({"a": 1, "b": 2})),
        Turn::call("add", json!({"a": 2, "b": 2})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(calc(ran.clone()), model).with_hooks((Redact, Note(read.clone())));
    runner.run("add").await.unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[1][1..],
        ["", "[redacted]", "note: add ran"].map(String::from),
        "{seen:?}"
    );
    // Metadata one hook (`step_end`) wrote, a later one read.
    assert_eq!(
        *read.lock().unwrap(),
        ["steps so far: None", "steps so far: Some(1)"]
    );
}

/// Forces one more step, having replaced the final answer in the history.
struct Rewrite;

impl LifecycleHooks for Rewrite {
    async fn stop(&self, cx: &mut StopEvent<'_>) -> StopDecision {
        if cx.forced_continues > 0 {
            return StopDecision::Allow;
        }
        if let Some(last) = cx.history.last_mut() {
            *last = Message::assistant("(an answer a hook withdrew)");
        }
        StopDecision::Continue("try again".into())
    }
}

#[tokio::test]
async fn what_a_stop_hook_edits_is_what_the_model_reads_next() {
    let (model, seen) = reading([Turn::text("a secret"), Turn::text("fine")]);
    let mut runner = Runner::new(calc(Log::default()), model).with_hooks(Rewrite);
    runner.run("answer").await.unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[1],
        ["answer", "(an answer a hook withdrew)", "try again"].map(String::from)
    );
}

#[tokio::test]
async fn metadata_survives_export_and_import() {
    let ran: Log = Arc::default();
    let (model, _) = reading([
        Turn::call("add", json!({"a": 1, "b": 2})),
        Turn::text("done"),
    ]);
    let mut first = Runner::new(calc(ran.clone()), model)
        .with_hooks(Redact)
        .with_state_seal(StateSeal::unsigned());
    first.run("add").await.unwrap();
    let state = RunState::from_json(&first.export_state().to_json().unwrap()).unwrap();
    assert_eq!(state.metadata["steps"], json!(2));
    let read: Log = Arc::default();
    let (model, _) = reading([
        Turn::call("add", json!({"a": 5, "b": 5})),
        Turn::text("done"),
    ]);
    let mut second = Runner::new(calc(ran), model)
        .with_hooks((Redact, Note(read.clone())))
        .with_state_seal(StateSeal::unsigned());
    second.import_state(state).unwrap();
    second.run("again").await.unwrap();
    // The imported count is read, and counted on.
    assert_eq!(*read.lock().unwrap(), ["steps so far: Some(2)"]);
    assert_eq!(second.export_state().metadata["steps"], json!(4));
}
