//! Exported states and sessions: a forged, loosened or replayed state, and
//! two sessions sharing one `Approvals`.

use super::*;

/// A run of `shop` (`pay` gated, `note` free) paused on `pay vendor 1`,
/// and its state.
async fn paused_shop(ledger: &Ledger) -> (RunState, Runner<impl Agent + 'static>) {
    let mut runner = Runner::new(shop(ledger), shop_model())
        .with_approvals(Approvals::new(DeferAll))
        .with_state_seal(hookwire::agent::StateSeal::unsigned())
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
    // The waiting call given `decision` in the state (not through
    // `resolve`, which keeps a sticky one as the tool's).
    let decided = |decision: ApprovalDecision| -> Edit {
        Box::new(move |s| {
            let call = s.approvals.pending.remove(0);
            let given = ResolvedApproval::new(call, decision.clone());
            s.approvals.resolved.push(given);
        })
    };
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
        (
            "its decision `always_approve` is not one for this call",
            decided(ApprovalDecision::AlwaysApprove),
        ),
        (
            "its decision `defer` is not one for this call",
            decided(ApprovalDecision::Defer),
        ),
    ];
    for (expected, edit) in cases {
        let mut state = good.clone();
        edit(&mut state);
        let mut runner = Runner::new(shop(&ledger), shop_model().skip(1))
            .with_approvals(Approvals::new(DeferAll))
            .with_state_seal(hookwire::agent::StateSeal::unsigned());
        assert_refused(&mut runner, state, expected);
    }
    // Edited consistently everywhere, the call is another call: the
    // decision given for what the person saw does not run it.
    let mut forged = good.clone();
    edit_calls(&mut forged, mallory);
    let mut runner = Runner::new(shop(&ledger), shop_model().skip(1))
        .with_approvals(Approvals::new(DeferAll))
        .with_state_seal(hookwire::agent::StateSeal::unsigned())
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
        .with_tool_call_timeout(Duration::from_secs(2))
        .with_state_seal(hookwire::agent::StateSeal::unsigned());
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
    let mut open = Runner::new(shop(&ledger), model)
        .with_state_seal(hookwire::agent::StateSeal::unsigned())
        .with_state(state)
        .unwrap();
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
