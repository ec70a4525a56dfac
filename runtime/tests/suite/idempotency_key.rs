//! `ToolContext::idempotency_key`: the same for a call every time it runs
//! (a run replayed from its saved state gets the same keys), another for
//! every other call, run and session, even when a model repeats a call id.
#![allow(clippy::unwrap_used)]

use crate::agent_common::{test_agent, tool_results};

use hookwire::agent::{RunState, Runner};
use hookwire::model::ScriptedModel;
use hookwire::{
    Outcome, Router, Tool, ToolContext, ToolHandler, ToolResult, call::NoArgs, toolset::RouterEnd,
    toolset::RouterEntry,
};

/// `keyed`: answers with its call's idempotency key.
struct Keyed;

impl Tool for Keyed {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "keyed"
    }

    fn description(&self) -> &str {
        "Answers with its idempotency key."
    }

    async fn call(&self, cx: &ToolContext, _args: NoArgs) -> Outcome {
        Ok(ToolResult::text(cx.idempotency_key()))
    }
}

/// The agent's tools: `keyed`.
type Tools = Router<RouterEntry<ToolHandler<Keyed>, RouterEnd>>;

/// Two calls per run, the ids `c1` and `c2` in every run.
const SCRIPT: &str = "turns:
  - tool_calls:
      - {id: c1, name: keyed, arguments: {}}
      - {id: c2, name: keyed, arguments: {}}
  - text: done
";

fn runner(session: &str, state: Option<RunState>) -> Runner<crate::agent_common::TestAgent<Tools>> {
    let model = ScriptedModel::from_yaml(SCRIPT).unwrap();
    let runner = Runner::new(test_agent("shop", Router::new().tool(Keyed)), model)
        .with_correlation_id(session.to_owned());
    match state {
        Some(state) => runner
            .with_state_seal(hookwire::agent::StateSeal::unsigned())
            .with_state(state)
            .unwrap(),
        None => runner,
    }
}

/// The keys the run's calls saw, in order.
async fn keys(runner: &mut Runner<crate::agent_common::TestAgent<Tools>>) -> Vec<String> {
    let before = runner.history().len();
    runner.run("go").await.unwrap();
    tool_results(&runner.history()[before..])
}

#[tokio::test]
async fn a_call_keeps_its_key_and_no_other_call_has_it() {
    let mut first = runner("s1", None);
    let run1 = keys(&mut first).await;
    assert_eq!(run1.len(), 2);
    assert!(
        run1.iter()
            .all(|k| k.len() == 64 && k.bytes().all(|b| b.is_ascii_hexdigit()))
    );
    assert_ne!(run1[0], run1[1], "two calls of one step");
    let saved = first.export_state();
    assert_eq!(saved.runs, 1);

    // The session's next run, in a fresh process (its state imported): the
    // model uses the ids `c1` and `c2` again, the calls get other keys.
    let mut second = runner("s1", Some(saved.clone()));
    let run2 = keys(&mut second).await;
    assert!(run2.iter().all(|k| !run1.contains(k)), "{run1:?} {run2:?}");
    assert_eq!(second.export_state().runs, 2);

    // That run again from the same saved state (a replay after a crash):
    // the same keys.
    let mut replay = runner("s1", Some(saved));
    assert_eq!(keys(&mut replay).await, run2);

    // Another session: other keys.
    let mut other = runner("s2", None);
    let run_other = keys(&mut other).await;
    assert!(
        run_other
            .iter()
            .all(|k| !run1.contains(k) && !run2.contains(k)),
        "{run_other:?}"
    );
}
