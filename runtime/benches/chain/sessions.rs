//! Group `loop`: whole sessions of the agent loop over the generated `e2e`
//! agent, on a model that answers at once.

use std::hint::black_box;
use std::sync::Arc;

use hookwire::{ToolArgs, ToolCall};

use super::e2e::generated;
use super::{Mode, ready};

/// A model that answers at once: a call of `add_one` while the last message
/// is the user's (if `call`), else the final answer `done`.
struct Answers {
    call: bool,
}

impl hookwire::model::Model for Answers {
    fn name(&self) -> &str {
        "answers"
    }

    fn complete<'a>(
        &'a self,
        request: hookwire::model::ModelRequest<'a>,
    ) -> hookwire::BoxFuture<'a, Result<hookwire::model::ModelResponse, hookwire::model::ModelError>>
    {
        let last_is_user = matches!(
            request.messages.last(),
            Some(hookwire::model::Message::User { .. })
        );
        let response = if self.call && last_is_user {
            hookwire::model::ModelResponse::tool_calls(
                "",
                vec![ToolCall::new(
                    "call_0001",
                    "add_one",
                    ToolArgs::from_json(r#"{"x":41}"#),
                )],
            )
        } else {
            hookwire::model::ModelResponse::text("done")
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

/// One session of the loop: a new `Runner` over the shared agent, one
/// prompt, run to its answer.
fn session(agent: &Arc<generated::Plain>, model: &Arc<Answers>) -> String {
    let model: Arc<dyn hookwire::model::Model> = model.clone();
    let mut runner = hookwire::agent::Runner::new(agent.clone(), model);
    match ready(runner.run("add one to 41")) {
        Ok(out) => out.text,
        Err(e) => panic!("{e}"),
    }
}

/// [`session`], streamed (issue #25: a stream consumer attached): each
/// event is read as it comes, looked at and dropped, as a consumer that
/// forwards events (to a terminal, a server's response) does; the text of
/// the last one, `Done`, is the answer.
fn streamed_session(agent: &Arc<generated::Plain>, model: &Arc<Answers>) -> String {
    use futures_util::StreamExt;
    let model: Arc<dyn hookwire::model::Model> = model.clone();
    let mut runner = hookwire::agent::Runner::new(agent.clone(), model);
    let mut stream = runner.stream("add one to 41");
    let mut answer = None;
    while let Some(event) = ready(stream.next()) {
        match black_box(event).kind {
            hookwire::agent::EventKind::Done(Ok(out)) => answer = Some(out.text),
            hookwire::agent::EventKind::Done(Err(e)) => panic!("{e}"),
            _ => {}
        }
    }
    answer.unwrap_or_else(|| panic!("a stream ends with `Done`"))
}

pub(super) fn loop_cases(mode: &mut Mode<'_>) {
    let agent = Arc::new(generated::Plain::new());
    let answer = Arc::new(Answers { call: false });
    let call = Arc::new(Answers { call: true });
    assert_eq!(session(&agent, &answer), "done");
    assert_eq!(session(&agent, &call), "done");
    assert_eq!(streamed_session(&agent, &answer), "done");
    assert_eq!(streamed_session(&agent, &call), "done");
    mode.case("loop/answer_only", || session(&agent, &answer));
    mode.case("loop/one_call", || session(&agent, &call));
    mode.case("loop/answer_only_streamed", || {
        streamed_session(&agent, &answer)
    });
    mode.case("loop/one_call_streamed", || streamed_session(&agent, &call));
}
