//! A name given to a run selects a tool, or the run is refused before
//! anything runs: `Approvals::require`, sticky decisions (paths into child
//! agents included), request hooks.

use super::*;
use hookwire::agent::inject::RequestHook;
use hookwire::agent::{HookEvent, SetupError};
use hookwire::call::NoArgs;
use hookwire::model::PassthroughModel;

/// `boss` with its own `note` and the child `ny`, whose `pay` needs no
/// approval of its own; the boss's model asks `ny` to pay.
fn boss(ledger: &Ledger) -> impl Agent + 'static {
    let ny = test_agent("ny", Router::new().tool(pay_tool(ledger.clone(), "ny")));
    let ny_model = ScriptedModel::from_turns([
        calls(vec![call("", "pay", json!({"to": "mallory", "amount": 9}))]),
        Turn::text("ny paid"),
    ]);
    let note = hookwire::FnTool::new("note", "Notes.", |_: NoArgs| async { "noted" });
    test_agent(
        "boss",
        Router::new()
            .tool(note)
            .tool(AgentTool::new(ny, Arc::new(ny_model))),
    )
}

fn boss_model() -> ScriptedModel {
    ScriptedModel::from_turns([
        calls(vec![call("b1", "agent__ny", json!({"message": "pay"}))]),
        Turn::text("done"),
    ])
}

/// Runs `boss` with approvals that `give` names to, and returns the
/// run's result.
async fn run_with(
    ledger: &Ledger,
    give: impl Fn(&Approvals),
) -> Result<hookwire::agent::RunOutput, RunError> {
    let approvals = Approvals::new(DeferAll);
    give(&approvals);
    let mut runner = Runner::new(boss(ledger), boss_model()).with_approvals(approvals);
    runner.run("go").await
}

fn unknown(result: Result<hookwire::agent::RunOutput, RunError>) -> (String, SetupError) {
    match result {
        Err(RunError::Setup(error)) => (error.to_string(), *error),
        other => panic!("expected a refused run, got {other:?}"),
    }
}

#[tokio::test]
async fn a_required_name_that_selects_no_tool_refuses_the_run_and_nothing_runs() {
    let ledger: Ledger = Arc::default();
    // `pay` is the child's tool (`ny/pay`), not the boss's.
    let (text, error) = unknown(run_with(&ledger, |a| a.require("pay")).await);
    assert!(
        text.contains("`Approvals::require` names `pay`, which selects no tool of agent `boss`"),
        "{text}"
    );
    assert!(matches!(error, SetupError::UnknownTool { ref name, .. } if name == "pay"));
    assert!(paid(&ledger).is_empty(), "{:?}", paid(&ledger));
    // Spelled as its path, it guards the child's tool: the call waits.
    let out = run_with(&ledger, |a| a.require("ny/pay")).await.unwrap();
    assert_eq!(pending_of(&out).len(), 1);
    assert!(paid(&ledger).is_empty());
}

#[tokio::test]
async fn a_sticky_decision_for_a_typo_is_refused_with_the_nearest_name() {
    let ledger: Ledger = Arc::default();
    let (text, _) = unknown(run_with(&ledger, |a| a.set_sticky("nte", Sticky::AlwaysDeny)).await);
    assert!(text.contains("a sticky decision names `nte`"), "{text}");
    assert!(text.contains("did you mean `note`?"), "{text}");
    assert!(paid(&ledger).is_empty());
}

#[tokio::test]
async fn a_typo_in_a_child_path_is_refused_at_the_root() {
    let ledger: Ledger = Arc::default();
    let (text, _) = unknown(run_with(&ledger, |a| a.require("nx/pay")).await);
    assert!(text.contains("names `nx/pay`"), "{text}");
    assert!(text.contains("did you mean `ny/pay`?"), "{text}");
    assert!(paid(&ledger).is_empty());
}

#[tokio::test]
async fn a_name_matching_nothing_in_a_nested_child_stops_the_child_before_its_tools() {
    let ledger: Ledger = Arc::default();
    let out = run_with(&ledger, |a| a.require("ny/pya")).await.unwrap();
    // The child's run is refused when it starts: its `pay` never ran, and
    // the boss's model reads why.
    assert!(paid(&ledger).is_empty(), "{:?}", paid(&ledger));
    let told = out
        .trace
        .iter()
        .find_map(|e| match e {
            TraceEvent::ToolCall(c) if &*c.tool == "agent__ny" => Some(c.result.text_content()),
            _ => None,
        })
        .unwrap();
    assert!(told.contains("names `ny/pya`"), "{told}");
    assert!(told.contains("did you mean `ny/pay`?"), "{told}");
}

#[tokio::test]
async fn a_request_hook_that_cannot_fire_or_names_no_tool_refuses_the_run() {
    let cases = [
        (
            RequestHook::on_request_start("note").at(HookEvent::Stop),
            "cannot fire at `stop`",
        ),
        (
            RequestHook::on_request_start("note").with_ttl_minutes(0),
            "ttl_minutes must be > 0",
        ),
        (
            RequestHook::on_request_start("nots"),
            "a request hook names `nots`, which selects no tool of agent `hooked` (did you mean `note`?)",
        ),
    ];
    for (hook, expected) in cases {
        let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = ran.clone();
        let note = hookwire::FnTool::new("note", "Notes.", move |_: NoArgs| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async { "noted" }
        });
        let mut agent = test_agent("hooked", Router::new().tool(note));
        *agent.config_mut() = agent.config_mut().clone().with_request_hook(hook);
        let mut runner = Runner::new(agent, PassthroughModel);
        let (text, _) = unknown(runner.run("hi").await);
        assert!(text.contains(expected), "{expected}: {text}");
        assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 0);
        assert!(runner.history().is_empty(), "{:?}", runner.history());
    }
}
