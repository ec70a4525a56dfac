//! An approval is for exactly the call the approver saw, on every path a
//! tool runs: late decisions, parent and child ids, sticky decisions across
//! agents, a child's pause, waits and timeouts, forged and replayed states,
//! injections. Each test is one case that broke before `CallKey`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;
use crate::state_resume::{assert_refused, edit_calls};

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_common::test_agent;
use hookwire::agent::lifecycle::{LifecycleHooks, PreToolUse};
use hookwire::agent::{Agent, AgentTool, RunError, RunState, RunStatus, Runner, TraceEvent};
use hookwire::model::BoxFuture;
use hookwire::approval::{
    Answer, ApprovalDecision, ApprovalRequest, Approvals, Asker, DeferAll,
    NeedsApproval, PendingApproval, Sticky,
};
use hookwire::model::{Message, ScriptedModel, ScriptedToolCall, Turn};
use hookwire::{
    Decision, Handler, Hook, Next, Outcome, Router, Tool, ToolArgs, ToolContext, ToolHandler, chain,
};
use serde_json::{Value, json};

pub(super) type Ledger = Arc<Mutex<Vec<String>>>;

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(super) struct Pay {
    to: String,
    amount: u64,
}

/// `pay` (or `slow_pay`, which works 1.5 s first): writes
/// `<who> paid <to> <amount>` to the ledger.
#[derive(Clone)]
pub(super) struct PayTool {
    ledger: Ledger,
    who: &'static str,
    slow: bool,
}

impl Tool for PayTool {
    type Args = Pay;

    fn name(&self) -> &str {
        if self.slow { "slow_pay" } else { "pay" }
    }

    fn description(&self) -> &str {
        "Pays."
    }

    async fn call(&self, _cx: &ToolContext, p: Pay) -> Outcome {
        if self.slow {
            tokio::time::sleep(Duration::from_millis(1500)).await;
        }
        self.ledger
            .lock()
            .unwrap()
            .push(format!("{} paid {} {}", self.who, p.to, p.amount));
        Ok(hookwire::ToolResult::text(format!("paid {}", p.to)))
    }
}

pub(super) fn pay_tool(ledger: Ledger, who: &'static str) -> PayTool {
    PayTool {
        ledger,
        who,
        slow: false,
    }
}

/// A scripted call with the model's id `id` (empty: the loop names it).
fn call(id: &str, tool: &str, arguments: Value) -> ScriptedToolCall {
    ScriptedToolCall {
        id: Some(id.to_owned()),
        name: tool.to_owned(),
        arguments,
    }
}

fn calls(list: Vec<ScriptedToolCall>) -> Turn {
    Turn {
        tool_calls: list,
        ..Turn::default()
    }
}

fn paid(ledger: &Ledger) -> Vec<String> {
    ledger.lock().unwrap().clone()
}

fn pending_of(out: &hookwire::agent::RunOutput) -> Vec<PendingApproval> {
    match &out.status {
        RunStatus::Paused { pending } => pending.clone(),
        other => panic!("expected a pause, got {other:?}"),
    }
}

/// An outer hook that, when the call it wraps comes back waiting for a
/// decision, lets a person decide it at that moment (before the hook
/// returns): the decision arrives while the call is still finishing.
struct DecideLate(Approvals);

impl Hook for DecideLate {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let outcome = next.run(cx, args).await;
        for p in self.0.pending() {
            let _ = self.0.resolve(&p.id(), ApprovalDecision::Approve);
        }
        outcome
    }
}

#[tokio::test]
async fn a_late_decision_pauses_the_run_and_approves_only_its_own_call() {
    let ledger: Ledger = Arc::default();
    let approvals = Approvals::new(DeferAll);
    let tools = Router::new().route(
        pay_tool(ledger.clone(), "root").definition(),
        hookwire::ToolSource::Function,
        chain!(DecideLate(approvals.clone()), NeedsApproval::new(true) => ToolHandler(pay_tool(ledger.clone(), "root"))),
    );
    let model = ScriptedModel::from_turns([
        calls(vec![call(
            "c1",
            "pay",
            json!({"to": "vendor", "amount": 1}),
        )]),
        // The same id, other arguments: a later call.
        calls(vec![call(
            "c1",
            "pay",
            json!({"to": "attacker", "amount": 999}),
        )]),
        Turn::text("done"),
    ]);
    let mut runner =
        Runner::new(test_agent("shop", tools), model).with_approvals(approvals.clone());
    let out = runner.run("pay").await.unwrap();
    // The decision came while the hook was finishing: the run pauses all
    // the same (nothing waits any more: it is decided), and nothing ran.
    assert!(pending_of(&out).is_empty(), "{out:?}");
    assert!(paid(&ledger).is_empty());
    // Resuming runs the call the person saw; the next call with the same id
    // is asked about (it waits, and the hook decides it for the test).
    let out = runner.resume().await.unwrap();
    assert_eq!(paid(&ledger), ["root paid vendor 1"]);
    assert!(matches!(out.status, RunStatus::Paused { .. }), "{out:?}");
    let out = runner.resume().await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(
        paid(&ledger),
        ["root paid vendor 1", "root paid attacker 999"],
        "each call ran once, with its own decision"
    );
}

/// `pmo` with `pay` and the child `ny` (with its own `pay`), both gated;
/// every call id empty, so the loop names them `call_<step>_<n>` in both.
fn pmo(ledger: &Ledger, child_model: ScriptedModel) -> impl Agent + 'static {
    let ny_tools = Router::new().route(
        pay_tool(ledger.clone(), "ny").definition(),
        hookwire::ToolSource::Function,
        chain!(NeedsApproval::new(true) => ToolHandler(pay_tool(ledger.clone(), "ny"))),
    );
    let ny = test_agent("ny", ny_tools);
    let child = AgentTool::new(ny, Arc::new(child_model));
    let tools = Router::new()
        .route(
            pay_tool(ledger.clone(), "pmo").definition(),
            hookwire::ToolSource::Function,
            chain!(NeedsApproval::new(true) => ToolHandler(pay_tool(ledger.clone(), "pmo"))),
        )
        .tool(child);
    test_agent("pmo", tools)
}

fn pmo_model() -> ScriptedModel {
    ScriptedModel::from_turns([
        calls(vec![
            call("", "pay", json!({"to": "vendor", "amount": 1})),
            call("", "agent__ny", json!({"message": "pay in ny"})),
        ]),
        Turn::text("all paid"),
    ])
}

fn ny_model(to: &str, amount: u64) -> ScriptedModel {
    ScriptedModel::from_turns([
        calls(vec![call("", "pay", json!({"to": to, "amount": amount}))]),
        Turn::text("ny done"),
    ])
}

#[tokio::test]
async fn parent_and_child_calls_with_the_same_id_are_decided_apart() {
    let ledger: Ledger = Arc::default();
    let mut runner =
        Runner::new(pmo(&ledger, ny_model("mallory", 1_000_000)), pmo_model()).with_asker(DeferAll);
    let out = runner.run("pay everyone").await.unwrap();
    // The child's call pauses the whole run; both are listed, by path, and
    // the person sees the child's own arguments.
    let pending = pending_of(&out);
    let shown: Vec<(String, String, Value)> = pending
        .iter()
        .map(|p| (p.path(), p.tool_use_id().to_owned(), p.arguments.clone()))
        .collect();
    assert_eq!(
        shown,
        [
            (
                "pmo / pay".into(),
                "call_0_0".into(),
                json!({"to": "vendor", "amount": 1})
            ),
            (
                "pmo / ny / pay".into(),
                "call_0_0".into(),
                json!({"to": "mallory", "amount": 1_000_000})
            ),
        ]
    );
    assert_ne!(pending[0].id(), pending[1].id());
    // Approve what was shown as "pay vendor 1" only.
    runner
        .approvals()
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    runner
        .approvals()
        .resolve(&pending[1].id(), ApprovalDecision::Deny("not ours".into()))
        .unwrap();
    let out = runner.resume().await.unwrap();
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert_eq!(paid(&ledger), ["pmo paid vendor 1"]);
}

#[tokio::test]
async fn a_sticky_decision_is_for_one_agents_tool() {
    let ledger: Ledger = Arc::default();
    let mut runner =
        Runner::new(pmo(&ledger, ny_model("mallory", 5)), pmo_model()).with_asker(DeferAll);
    runner.approvals().set_sticky("pay", Sticky::AlwaysApprove);
    let out = runner.run("pay everyone").await.unwrap();
    let pending = pending_of(&out);
    // The parent's `pay` ran without asking; the child's `pay` waits.
    assert_eq!(paid(&ledger), ["pmo paid vendor 1"]);
    assert_eq!(
        pending
            .iter()
            .map(PendingApproval::path)
            .collect::<Vec<_>>(),
        ["pmo / ny / pay"]
    );
    // A sticky decision for the child's tool names it by path.
    runner.approvals().set_sticky("ny/pay", Sticky::AlwaysDeny);
    let ledger2: Ledger = Arc::default();
    let mut again = Runner::new(pmo(&ledger2, ny_model("mallory", 5)), pmo_model())
        .with_asker(DeferAll)
        .with_approvals(runner.approvals().clone());
    let out = again.run("pay everyone").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert_eq!(paid(&ledger2), ["pmo paid vendor 1"]);
}

/// The child's deferred approval pauses the parent, survives export and
/// import, and the child resumes where it paused: its model reads its own
/// tool's result, not a denial.
#[tokio::test]
async fn a_childs_pause_is_the_parents_and_resumes_across_export_and_import() {
    let ledger: Ledger = Arc::default();
    // The child's own `pay` has no gate: `require("ny/pay")` on the parent
    // reaches it.
    let ny = test_agent("ny", Router::new().tool(pay_tool(ledger.clone(), "ny")));
    let child_model = Arc::new(ny_model("bob", 3));
    let build = |model: Arc<ScriptedModel>| {
        test_agent(
            "pmo",
            Router::new().tool(AgentTool::new(
                ny.clone(),
                model as Arc<dyn hookwire::model::Model>,
            )),
        )
    };
    let parent_model = || {
        ScriptedModel::from_turns([
            calls(vec![call("", "agent__ny", json!({"message": "pay bob"}))]),
            Turn::text("bob paid"),
        ])
    };
    let mut runner = Runner::new(build(child_model.clone()), parent_model()).with_asker(DeferAll);
    runner.approvals().require("ny/pay");
    let out = runner.run("pay bob").await.unwrap();
    let pending = pending_of(&out);
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].path(), "pmo / ny / pay");
    assert_eq!(pending[0].arguments, json!({"to": "bob", "amount": 3}));
    assert!(paid(&ledger).is_empty());
    let state = RunState::from_json(&runner.export_state().to_json().unwrap()).unwrap();
    assert!(state.paused_children.contains_key("call_0_0"));

    // Another runner (another process, say) imports it, decides, resumes.
    let mut later = Runner::new(build(child_model), parent_model().skip(1))
        .with_asker(DeferAll)
        .with_state(state)
        .unwrap();
    assert!(matches!(
        later.resume().await,
        Err(RunError::StillPending(1))
    ));
    later
        .approvals()
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    let out = later.resume().await.unwrap();
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert_eq!(out.text, "bob paid");
    assert_eq!(paid(&ledger), ["ny paid bob 3"]);
    // The parent's model read the child's answer.
    let child_answer = later.history().iter().find_map(|m| match m {
        Message::Tool { name, result, .. } if &**name == "agent__ny" => Some(result.text_content()),
        _ => None,
    });
    assert_eq!(child_answer.as_deref(), Some("ny done"));
}

/// An asker that takes `after` to answer "approve".
pub(crate) struct Slow(pub(crate) Duration);

impl Asker for Slow {
    fn ask<'a>(&'a self, _request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            tokio::time::sleep(self.0).await;
            Answer::Approve
        })
    }
}

/// Asks about every call from a pre hook in the chain.
struct AskPre;

impl hookwire::PreHook for AskPre {
    async fn before(
        &self,
        _cx: &mut ToolContext,
        _args: &mut ToolArgs,
    ) -> Result<Decision, hookwire::HookError> {
        Ok(Decision::Ask("look first".into()))
    }

    fn name(&self) -> &'static str {
        "ask_pre"
    }
}

fn slow_pay(ledger: &Ledger) -> PayTool {
    PayTool {
        ledger: ledger.clone(),
        who: "root",
        slow: true,
    }
}

/// Runs `pay` then `slow_pay`, both asked about by `agent`'s gates, with a
/// 1 s call limit and an asker that takes 5 s; the results the model read.
async fn under_a_limit(agent: impl Agent + 'static) -> Vec<String> {
    let model = ScriptedModel::from_turns([
        calls(vec![call("c1", "pay", json!({"to": "v", "amount": 1}))]),
        calls(vec![call(
            "c2",
            "slow_pay",
            json!({"to": "w", "amount": 2}),
        )]),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(agent, model)
        .with_asker(Slow(Duration::from_secs(5)))
        .with_tool_call_timeout(Duration::from_secs(1));
    let out = runner.run("pay").await.unwrap();
    out.trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some(call.result.text_content()),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn waiting_for_a_person_is_not_part_of_a_calls_time() {
    let f = hookwire::ToolSource::Function;
    let ledger: Ledger = Arc::default();
    let (pay, slow) = (pay_tool(ledger.clone(), "root"), slow_pay(&ledger));
    let gated = Router::new()
        .route(
            pay.definition(),
            f,
            chain!(NeedsApproval::new(true) => ToolHandler(pay.clone())),
        )
        .route(
            slow.definition(),
            f,
            chain!(NeedsApproval::new(true) => ToolHandler(slow.clone())),
        );
    let asked = Router::new()
        .route(
            pay.definition(),
            f,
            chain!(hookwire::Pre(AskPre) => ToolHandler(pay.clone())),
        )
        .route(
            slow.definition(),
            f,
            chain!(hookwire::Pre(AskPre) => ToolHandler(slow.clone())),
        );
    // The loop's own gate: a lifecycle hook asks.
    let lifecycle =
        test_agent("shop", Router::new().tool(pay.clone()).tool(slow.clone())).with_hooks(AskAll);
    for (gate, results) in [
        (
            "needs_approval",
            under_a_limit(test_agent("shop", gated)).await,
        ),
        (
            "a pre hook's Ask",
            under_a_limit(test_agent("shop", asked)).await,
        ),
        ("a lifecycle Ask", under_a_limit(lifecycle).await),
    ] {
        // A 5 s wait inside a 1 s limit: the call ran. The work after the
        // wait (1.5 s) is still limited.
        assert_eq!(results[0], "paid v", "{gate}");
        assert!(
            results[1].contains("timed out after 1000 ms"),
            "{gate}: {}",
            results[1]
        );
    }
    assert_eq!(
        paid(&ledger),
        ["root paid v 1", "root paid v 1", "root paid v 1"]
    );
}

/// Asks about every call from a lifecycle `pre_tool_use` hook.
struct AskAll;

impl LifecycleHooks for AskAll {
    async fn pre_tool_use(&self, _cx: &mut PreToolUse<'_>) -> Decision {
        Decision::Ask("a person looks at every call".into())
    }
}

/// A run of `shop` (`pay` gated, `note` free) paused on `pay vendor 1`,
/// and its state.
async fn paused_shop(ledger: &Ledger) -> (RunState, Runner<impl Agent + 'static>) {
    let mut runner = Runner::new(shop(ledger), shop_model())
        .with_asker(DeferAll)
        .with_correlation_id("alice");
    let out = runner.run("pay").await.unwrap();
    assert_eq!(pending_of(&out).len(), 1);
    (runner.export_state(), runner)
}

fn shop(ledger: &Ledger) -> impl Agent + 'static {
    let pay = pay_tool(ledger.clone(), "shop");
    test_agent(
        "shop",
        Router::new().route(
            pay.definition(),
            hookwire::ToolSource::Function,
            chain!(NeedsApproval::new(true) => ToolHandler(pay.clone())),
        ),
    )
}

fn shop_model() -> ScriptedModel {
    ScriptedModel::from_turns([
        calls(vec![call(
            "c1",
            "pay",
            json!({"to": "vendor", "amount": 1}),
        )]),
        Turn::text("paid"),
    ])
}

fn mallory(calls: &mut [hookwire::ToolCall]) {
    calls[0].arguments = ToolArgs::from_value(json!({"to": "mallory", "amount": 1})).unwrap();
}

#[tokio::test]
async fn a_state_edited_in_one_place_is_refused() {
    let ledger: Ledger = Arc::default();
    let (good, _) = paused_shop(&ledger).await;
    type Edit = Box<dyn Fn(&mut RunState)>;
    let cases: Vec<(&str, Edit)> = vec![
        (
            "not the ones of the model's recorded answer",
            Box::new(|s| mallory(&mut s.pending_step.as_mut().unwrap().calls)),
        ),
        (
            "does not end with the model's answer",
            Box::new(|s| {
                let step = s.pending_step.as_mut().unwrap();
                mallory(&mut step.calls);
                mallory(&mut step.response.tool_calls);
            }),
        ),
        (
            "the arguments shown are not the ones its key names",
            Box::new(|s| s.approvals.pending[0].arguments = json!({"to": "mallory", "amount": 1})),
        ),
        (
            "is waiting or decided twice",
            Box::new(|s| {
                let again = s.approvals.pending[0].clone();
                s.approvals.pending.push(again);
            }),
        ),
        (
            "is of `pay`, not `note`",
            Box::new(|s| s.approvals.pending[0].key.tool = "note".into()),
        ),
        (
            "it is for session `bob`",
            Box::new(|s| s.approvals.pending[0].key.session = "bob".into()),
        ),
        (
            "approval settings names tool `wipe`",
            Box::new(|s| {
                s.approvals.settings.needs_approval.insert("wipe".into());
            }),
        ),
        (
            "approval settings names tool `ghost/pay`",
            Box::new(|s| {
                s.approvals
                    .sticky
                    .insert("ghost/pay".into(), Sticky::AlwaysApprove);
            }),
        ),
        (
            "is not paused at step 3",
            Box::new(|s| s.approvals.pending[0].key.step = 3),
        ),
    ];
    for (expected, edit) in cases {
        let mut state = good.clone();
        edit(&mut state);
        let mut runner = Runner::new(shop(&ledger), shop_model().skip(1)).with_asker(DeferAll);
        assert_refused(&mut runner, state, expected);
    }
    // Edited consistently everywhere, the call is another call: the
    // decision given for what the person saw does not run it.
    let mut forged = good.clone();
    edit_calls(&mut forged, mallory);
    let mut runner = Runner::new(shop(&ledger), shop_model().skip(1))
        .with_asker(DeferAll)
        .with_state(forged)
        .unwrap();
    let id = runner.approvals().pending()[0].id();
    runner
        .approvals()
        .resolve(&id, ApprovalDecision::Approve)
        .unwrap();
    let out = runner.resume().await.unwrap();
    let pending = pending_of(&out);
    assert_eq!(pending[0].arguments, json!({"to": "mallory", "amount": 1}));
    assert!(
        paid(&ledger).is_empty(),
        "the approval for vendor paid mallory"
    );
}

#[tokio::test]
async fn an_import_never_loosens_the_runner() {
    let ledger: Ledger = Arc::default();
    let (mut state, _) = paused_shop(&ledger).await;
    state.settings.max_steps = 1_000;
    state.settings.tool_call_timeout = None;
    state.approvals.settings.needs_approval.clear();
    let mut runner = Runner::new(shop(&ledger), shop_model().skip(1))
        .with_max_steps(5)
        .with_tool_call_timeout(Duration::from_secs(2));
    runner.approvals().require("pay");
    runner.import_state(state.clone()).unwrap();
    let kept = runner.export_state();
    assert_eq!(kept.settings.max_steps, 5);
    assert_eq!(
        kept.settings.tool_call_timeout,
        Some(Duration::from_secs(2))
    );
    assert!(kept.approvals.settings.needs_approval.contains("pay"));
    // Asked explicitly, the state's limits are taken as they are.
    runner.adopt_state(state).unwrap();
    assert_eq!(runner.export_state().settings.max_steps, 1_000);

    // An "always approve" in a state does not reach a runner with nobody
    // to ask: the gated call is denied, not run.
    let model = ScriptedModel::from_turns([
        calls(vec![call(
            "c9",
            "pay",
            json!({"to": "vendor", "amount": 2}),
        )]),
        Turn::text("done"),
    ]);
    let mut state = Runner::new(shop(&ledger), ScriptedModel::from_turns([])).export_state();
    state
        .approvals
        .sticky
        .insert("pay".into(), Sticky::AlwaysApprove);
    let mut open = Runner::new(shop(&ledger), model).with_state(state).unwrap();
    let out = open.run("pay").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert!(paid(&ledger).is_empty(), "{:?}", paid(&ledger));
}

#[tokio::test]
async fn a_state_imported_twice_never_runs_an_approved_call_twice() {
    let ledger: Ledger = Arc::default();
    let (_, mut runner) = paused_shop(&ledger).await;
    let id = runner.approvals().pending()[0].id();
    runner
        .approvals()
        .resolve(&id, ApprovalDecision::Approve)
        .unwrap();
    let decided = runner.export_state();
    let out = runner.resume().await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(paid(&ledger), ["shop paid vendor 1"]);
    let error = runner.import_state(decided).unwrap_err();
    assert!(
        error.to_string().contains("already used in this session"),
        "{error}"
    );
    assert_eq!(paid(&ledger), ["shop paid vendor 1"]);
}

#[tokio::test]
async fn one_approvals_value_shared_by_two_sessions_keeps_their_decisions_apart() {
    let ledger: Ledger = Arc::default();
    let shared = Approvals::new(DeferAll);
    let mut alice = Runner::new(shop(&ledger), shop_model())
        .with_approvals(shared.clone())
        .with_correlation_id("alice");
    let mut bob = Runner::new(shop(&ledger), shop_model())
        .with_approvals(shared.clone())
        .with_correlation_id("bob");
    // The same call (id, tool, arguments) in both sessions.
    let a = pending_of(&alice.run("pay").await.unwrap());
    let b = pending_of(&bob.run("pay").await.unwrap());
    assert_ne!(a[0].id(), b[0].id());
    shared
        .resolve(&b[0].id(), ApprovalDecision::Approve)
        .unwrap();
    assert!(matches!(
        alice.resume().await,
        Err(RunError::StillPending(1))
    ));
    assert!(paid(&ledger).is_empty());
    assert_eq!(bob.resume().await.unwrap().status, RunStatus::Completed);
    assert_eq!(paid(&ledger), ["shop paid vendor 1"]);
    assert_eq!(shared.pending().len(), 1, "alice's call still waits");
}

/// Denies every `pay` from a lifecycle hook.
struct NoPay;

impl LifecycleHooks for NoPay {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        if cx.tool == "pay" {
            Decision::Deny("no payments".into())
        } else {
            Decision::Continue
        }
    }
}

fn injecting(ledger: &Ledger) -> hookwire::agent::BasicAgent<impl hookwire::ToolSet + 'static> {
    let mut agent = test_agent(
        "shop",
        Router::new().tool(pay_tool(ledger.clone(), "inject")),
    );
    let hook = hookwire::agent::RequestHook::on_request_start("pay")
        .with_arguments(
            json!({"to": "payroll", "amount": 10})
                .as_object()
                .cloned()
                .unwrap(),
        )
        .with_frequency(hookwire::agent::Frequency::Always);
    *agent.config_mut() = agent.config_mut().clone().with_request_hook(hook);
    agent
}

#[tokio::test]
async fn an_injection_passes_the_same_lifecycle_hooks_and_approval_gate() {
    let ledger: Ledger = Arc::default();
    let model = || ScriptedModel::from_turns([Turn::text("ok")]);
    // A lifecycle hook denies it: it does not run.
    let mut denied = Runner::new(injecting(&ledger).with_hooks(NoPay), model());
    assert_eq!(denied.run("go").await.unwrap().text, "ok");
    assert!(paid(&ledger).is_empty());
    // The approval settings name it: it waits for nobody (an injection
    // cannot pause the run), so it is skipped, and nothing stays waiting.
    let mut gated = Runner::new(injecting(&ledger), model()).with_asker(DeferAll);
    gated.approvals().require("pay");
    assert_eq!(gated.run("go").await.unwrap().text, "ok");
    assert!(paid(&ledger).is_empty());
    assert!(gated.approvals().pending().is_empty());
    // Without either, it runs.
    let mut free = Runner::new(injecting(&ledger), model());
    free.run("go").await.unwrap();
    assert_eq!(paid(&ledger), ["inject paid payroll 10"]);
}

#[tokio::test]
async fn injection_ids_stay_unique_across_export_and_import() {
    let ledger: Ledger = Arc::default();
    let model = || ScriptedModel::from_turns([Turn::text("ok")]);
    let agent = || {
        let mut agent = injecting(&ledger);
        *agent.config_mut() = agent.config_mut().clone().with_use_history(true);
        agent
    };
    let mut first = Runner::new(agent(), model());
    first.run("one").await.unwrap();
    let state = first.export_state();
    assert_eq!(state.injections, 1);
    // A durable session imports its state at every request, as here.
    let mut second = Runner::new(agent(), model()).with_state(state).unwrap();
    second.run("two").await.unwrap();
    // Every call id once, each result right after its call.
    let history = second.history();
    let mut ids = Vec::new();
    for (i, m) in history.iter().enumerate() {
        if let Message::Assistant { tool_calls, .. } = m {
            for c in tool_calls {
                ids.push(c.id.clone());
                assert!(
                    matches!(history.get(i + 1), Some(Message::Tool { tool_call_id, .. }) if *tool_call_id == c.id),
                    "call {} is not answered by the next message",
                    c.id
                );
            }
        }
    }
    let unique: std::collections::BTreeSet<_> = ids.iter().collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(unique.len(), 2, "{ids:?}");
}
