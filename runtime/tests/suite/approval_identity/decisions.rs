//! A decision is for the call it was made on: a late decision, parent and
//! child calls with the same id, sticky decisions across agents, a child's
//! pause.

use super::*;

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
pub(super) fn pmo(ledger: &Ledger, child_model: ScriptedModel) -> impl Agent + 'static {
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

pub(super) fn pmo_model() -> ScriptedModel {
    ScriptedModel::from_turns([
        calls(vec![
            call("", "pay", json!({"to": "vendor", "amount": 1})),
            call("", "agent__ny", json!({"message": "pay in ny"})),
        ]),
        Turn::text("all paid"),
    ])
}

pub(super) fn ny_model(to: &str, amount: u64) -> ScriptedModel {
    ScriptedModel::from_turns([
        calls(vec![call("", "pay", json!({"to": to, "amount": amount}))]),
        Turn::text("ny done"),
    ])
}

#[tokio::test]
async fn parent_and_child_calls_with_the_same_id_are_decided_apart() {
    let ledger: Ledger = Arc::default();
    let mut runner = Runner::new(pmo(&ledger, ny_model("mallory", 1_000_000)), pmo_model())
        .with_approvals(Approvals::new(DeferAll));
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
    let mut runner = Runner::new(pmo(&ledger, ny_model("mallory", 5)), pmo_model())
        .with_approvals(Approvals::new(DeferAll));
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
        .with_approvals(Approvals::new(DeferAll))
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
    let mut runner = Runner::new(build(child_model.clone()), parent_model())
        .with_approvals(Approvals::new(DeferAll));
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
        .with_approvals(Approvals::new(DeferAll))
        .with_state_seal(hookwire::agent::StateSeal::unsigned())
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
