//! One agent value, many users at once: 1,000 concurrent sessions over one
//! `Arc` of a generated agent, on a multi-thread runtime, with one shared
//! model. Each user's secret enters only through that session's typed value;
//! it flows into a tool result (read by a tool that also takes a dependency)
//! and into the history a child agent keeps for the session. No session's
//! output or exported state may hold another user's secret, and every tool
//! runs exactly as often as its session asked.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hookwire::BoxFuture;
use hookwire::agent::{RunStatus, Runner};
use hookwire::model::{Message, Model, ModelError, ModelRequest, ModelResponse};
use hookwire::{Dep, ToolArgs, ToolCall, ToolContext};

/// The user of a session: set per session, read by tools.
struct User(String);

/// How often `whoami` ran for each user: the dependency the tool takes.
#[derive(Clone, Default)]
struct Deps {
    runs: Arc<Mutex<HashMap<String, usize>>>,
}

/// Tells the caller who they are.
#[hookwire::tool]
fn whoami(runs: Dep<Deps>, cx: &ToolContext) -> String {
    let user = cx
        .session::<User>()
        .map_or_else(|| "nobody".to_owned(), |u| u.0.clone());
    *runs.runs.lock().unwrap().entry(user.clone()).or_default() += 1;
    user
}

/// Keeps notes for the user.
#[hookwire::agent(name = "notes", instruction = "Take notes.")]
pub struct Notes;

/// The front desk: asks who the user is, then has the notes agent remember
/// it. The notes agent keeps its history per session.
#[hookwire::agent(
    name = "desk",
    instruction = "Help the user.",
    deps = Deps,
    function_tools = [whoami],
    agents = [Notes(name = "notes")],
    history_source = "child",
    history_merge_target = "child",
    max_parallel = 4,
)]
pub struct Desk;

/// One model for every session, with no state: it decides from the request
/// alone. The desk calls `whoami`, then hands its result to the notes
/// agent, then answers with what the notes agent said. The notes agent
/// answers with every user message it has seen, joined with `+`.
struct Shared;

impl Model for Shared {
    fn name(&self) -> &str {
        "shared"
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        let response = if request.agent == "notes" {
            let seen: Vec<String> = request
                .messages
                .iter()
                .filter_map(|m| match m {
                    Message::User { content } => Some(content.clone()),
                    _ => None,
                })
                .collect();
            ModelResponse::text(seen.join("+"))
        } else {
            match request.messages.last() {
                Some(Message::User { .. }) => ModelResponse::tool_calls(
                    "",
                    vec![ToolCall::new("w", "whoami", ToolArgs::empty())],
                ),
                Some(m @ Message::Tool { tool_call_id, .. }) if &**tool_call_id == "w" => {
                    let args = serde_json::json!({"message": m.text()});
                    ModelResponse::tool_calls(
                        "",
                        vec![ToolCall::new(
                            "n",
                            "agent__notes",
                            ToolArgs::from_value(args).unwrap(),
                        )],
                    )
                }
                Some(m) => ModelResponse::text(format!("noted: {}", m.text())),
                None => ModelResponse::text("nothing to do"),
            }
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

/// Every `secret-<n>` in `text`.
fn secrets(text: &str) -> Vec<&str> {
    text.match_indices("secret-")
        .map(|(at, _)| {
            let end = text[at + 7..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(text.len(), |n| at + 7 + n);
            &text[at..end]
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_concurrent_sessions_over_one_agent_never_see_each_other() {
    let deps = Deps::default();
    let desk = Arc::new(Desk::new(&deps));
    let model: Arc<dyn Model> = Arc::new(Shared);
    let sessions = (0..1000).map(|i| {
        let (desk, model) = (desk.clone(), model.clone());
        tokio::spawn(async move {
            let secret = format!("secret-{i}");
            let mut session = Runner::new(desk, model).with_session_value(User(secret.clone()));
            let first = session.run("hello").await.unwrap();
            let second = session.run("again").await.unwrap();
            (secret, first, second, session.export_state())
        })
    });
    let results = futures_util::future::join_all(sessions).await;
    for result in results {
        let (secret, first, second, state) = result.unwrap();
        assert_eq!(first.status, RunStatus::Completed);
        // The notes agent remembered this session's first call, and only it.
        assert_eq!(first.text, format!("noted: {secret}"));
        assert_eq!(second.text, format!("noted: {secret}+{secret}"));
        let exported = serde_json::to_string(&state).unwrap();
        let outputs = format!("{first:?}{second:?}");
        for text in [&exported, &outputs] {
            let found = secrets(text);
            assert!(!found.is_empty());
            assert!(
                found.iter().all(|s| *s == secret),
                "{secret}'s session holds {found:?}"
            );
        }
        assert_eq!(state.children["agent__notes"].len(), 4);
    }
    // `whoami` ran exactly twice per user (once per run), and never without
    // a user.
    let runs = deps.runs.lock().unwrap();
    assert_eq!(runs.len(), 1000);
    assert!(
        runs.iter()
            .all(|(user, n)| user.starts_with("secret-") && *n == 2)
    );
}

/// Notes where the tool definitions it is offered live, then waits until
/// three requests are in (so three runs hold their definitions at once).
struct SeesDefinitions {
    seen: Mutex<Vec<(usize, usize)>>,
    all_in: tokio::sync::Barrier,
}

impl Model for SeesDefinitions {
    fn name(&self) -> &str {
        "sees-definitions"
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        self.seen
            .lock()
            .unwrap()
            .push((request.tools.as_ptr() as usize, request.tools.len()));
        Box::pin(async move {
            self.all_in.wait().await;
            Ok(ModelResponse::text("ok"))
        })
    }
}

#[tokio::test]
async fn every_session_is_offered_the_one_copy_of_the_tool_definitions() {
    let agent = Arc::new(Desk::new(&Deps::default()));
    let model = Arc::new(SeesDefinitions {
        seen: Mutex::default(),
        all_in: tokio::sync::Barrier::new(3),
    });
    let session = |user: &str| {
        let mut runner =
            Runner::new(agent.clone(), model.clone()).with_session_value(User(user.into()));
        async move { runner.run("hi").await.map(|out| out.text) }
    };
    // Three runs at once, each inside its model request at the same time.
    let (a, b, c) = tokio::join!(session("alice"), session("bob"), session("carol"));
    assert_eq!(
        (a.unwrap(), b.unwrap(), c.unwrap()),
        ("ok".into(), "ok".into(), "ok".into())
    );
    let seen = model.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3);
    assert!(seen[0].1 >= 2, "{seen:?}");
    // The same slice each time: built with the agent, not per run.
    assert!(seen.iter().all(|s| *s == seen[0]), "{seen:?}");
}
