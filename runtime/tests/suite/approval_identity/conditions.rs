//! Remembered conditions ("always approve `pay` when `amount <= 50`"): a
//! call that meets one runs without asking, one over it is asked about; the
//! condition travels with a sealed state, lapses with a note when the
//! tool's schema changes, and is scoped by agent path.

use super::decisions::{ny_model, pmo, pmo_model};
use super::*;
use hookwire::agent::{StateKey, StateSeal};
use hookwire::approval::{ApprovalCondition, ApproveWhen, DecidedBy, FnApprover};

/// `at_most`: the payment's amount is at most the parameter.
fn at_most() -> ApprovalCondition {
    ApprovalCondition::new("pay", "at_most", |args: &Pay, limit: &u64| {
        args.amount <= *limit
    })
}

fn seal() -> StateSeal {
    StateSeal::new(StateKey::new([7; 32]).unwrap())
}

/// `shop` with a gated `pay`.
fn shop<T: Tool + Clone + 'static>(pay: T) -> impl Agent + 'static {
    test_agent(
        "shop",
        Router::new().route(
            pay.definition(),
            hookwire::ToolSource::Function,
            chain!(NeedsApproval::new(true) => ToolHandler(pay.clone())),
        ),
    )
}

fn pays(amounts: &[u64]) -> ScriptedModel {
    let mut turns: Vec<Turn> = amounts
        .iter()
        .map(|a| calls(vec![call("", "pay", json!({"to": "vendor", "amount": a}))]))
        .collect();
    turns.push(Turn::text("paid"));
    ScriptedModel::from_turns(turns)
}

type Seen = Arc<Mutex<Vec<(u64, Option<String>)>>>;

/// An approver that records the amount and note it is shown, answers the
/// first question with "always approve when at most 50" and the others
/// with a denial.
fn approver(seen: Seen) -> FnApprover<impl Fn(&ApprovalRequest<'_>) -> ApprovalDecision> {
    FnApprover::new(move |req| {
        let amount = req.get("amount").and_then(Value::as_u64).unwrap_or(0);
        let mut seen = seen.lock().unwrap();
        seen.push((amount, req.note().map(str::to_owned)));
        if seen.len() == 1 {
            ApprovalDecision::AlwaysApproveWhen(ApproveWhen::new("at_most", 50))
        } else {
            ApprovalDecision::Deny("too much".into())
        }
    })
}

fn decided_by(trace: &[TraceEvent]) -> Vec<(String, DecidedBy)> {
    trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some(
                call.approvals
                    .iter()
                    .map(|n| {
                        (
                            call.arguments.to_value().unwrap()["amount"].to_string(),
                            n.by,
                        )
                    })
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .flatten()
        .collect()
}

#[tokio::test]
async fn a_call_under_the_condition_runs_without_asking_and_one_over_it_is_asked() {
    let ledger: Ledger = Arc::default();
    let seen: Seen = Arc::default();
    let mut runner = Runner::new(shop(pay_tool(ledger.clone(), "shop")), pays(&[30, 40, 80]))
        .with_approvals(Approvals::new(approver(seen.clone())).with_condition(at_most()));
    let out = runner.run("pay").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    // Asked about 30 (answered "always when at most 50") and 80, not 40.
    assert_eq!(*seen.lock().unwrap(), [(30, None), (80, None)]);
    assert_eq!(
        paid(&ledger),
        ["shop paid vendor 30", "shop paid vendor 40"]
    );
    assert_eq!(
        decided_by(&out.trace),
        [
            ("30".to_owned(), DecidedBy::AskerAlways),
            ("40".to_owned(), DecidedBy::Condition),
            ("80".to_owned(), DecidedBy::Asker),
        ]
    );
    let state = runner.approvals().state();
    assert_eq!(state.conditions["pay"].len(), 1);
    assert_eq!(state.conditions["pay"][0].params, json!(50));
    assert!(state.conditions["pay"][0].schema.is_some());
}

#[tokio::test]
async fn a_remembered_condition_survives_a_sealed_export_and_resume() {
    let ledger: Ledger = Arc::default();
    let mut first = Runner::new(shop(pay_tool(ledger.clone(), "shop")), pays(&[]))
        .with_approvals(Approvals::new(DeferAll).with_condition(at_most()))
        .with_state_seal(seal());
    first
        .approvals()
        .approve_when("pay", "at_most", 50)
        .unwrap();
    first.run("nothing yet").await.unwrap();
    let json = first.export_state().to_json().unwrap();
    assert!(json.contains("\"at_most\""), "{json}");
    let state = RunState::from_json(&json).unwrap();
    let mut second = Runner::new(shop(pay_tool(ledger.clone(), "shop")), pays(&[20, 70]))
        .with_approvals(Approvals::new(DeferAll).with_condition(at_most()))
        .with_state_seal(seal());
    second.import_state(state).unwrap();
    let out = second.run("pay").await.unwrap();
    // 20 ran without asking; 70 waits for a person.
    assert_eq!(paid(&ledger), ["shop paid vendor 20"]);
    let pending = pending_of(&out);
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].arguments["amount"], json!(70));
    assert_eq!(pending[0].note, None);
}

/// `pay` as a later version declares it: a memo besides the amount.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PayV2 {
    to: String,
    amount: u64,
    #[serde(default)]
    memo: Option<String>,
}

#[derive(Clone)]
struct PayToolV2(Ledger);

impl Tool for PayToolV2 {
    type Args = PayV2;

    fn name(&self) -> &str {
        "pay"
    }

    fn description(&self) -> &str {
        "Pays."
    }

    async fn call(&self, _cx: &ToolContext, p: PayV2) -> Outcome {
        let memo = p.memo.unwrap_or_default();
        let entry = format!("v2 paid {} {}{memo}", p.to, p.amount);
        self.0.lock().unwrap().push(entry);
        Ok(hookwire::ToolResult::text("paid"))
    }
}

#[tokio::test]
async fn a_schema_change_makes_the_condition_lapse_with_a_note() {
    let ledger: Ledger = Arc::default();
    let seen: Seen = Arc::default();
    let mut first = Runner::new(shop(pay_tool(ledger.clone(), "shop")), pays(&[30]))
        .with_approvals(Approvals::new(approver(seen.clone())).with_condition(at_most()))
        .with_state_seal(seal());
    first.run("pay").await.unwrap();
    assert_eq!(first.approvals().state().conditions["pay"].len(), 1);
    let state = RunState::from_json(&first.export_state().to_json().unwrap()).unwrap();
    // The same condition, over the new version's arguments.
    let at_most_v2 = ApprovalCondition::new("pay", "at_most", |a: &PayV2, limit: &u64| {
        a.amount <= *limit
    });
    let seen2: Seen = Arc::default();
    let mut second = Runner::new(shop(PayToolV2(ledger.clone())), pays(&[20]))
        .with_approvals(Approvals::new(approver(seen2.clone())).with_condition(at_most_v2))
        .with_state_seal(seal());
    second.import_state(state).unwrap();
    let out = second.run("pay").await.unwrap();
    // 20 is under the old condition, but it lapsed: the person is asked,
    // and told why.
    let seen2 = seen2.lock().unwrap().clone();
    assert_eq!(seen2.len(), 1, "{seen2:?}");
    assert_eq!(seen2[0].0, 20);
    let note = seen2[0].1.clone().expect("the approver is told");
    assert!(note.contains("lapsed") && note.contains("schema"), "{note}");
    assert!(note.contains("at_most(50)"), "{note}");
    // The trace says so, before the call.
    let lapsed: Vec<&str> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ApprovalLapsed {
                tool, condition, ..
            } => Some((tool.as_str(), condition.as_str())),
            _ => None,
        })
        .map(|(t, c)| if t == "pay" { c } else { "other tool" })
        .collect();
    assert_eq!(lapsed, ["at_most"]);
    // The condition the person gave again is bound to the new schema; the
    // note was shown, so it is not kept.
    let after = second.approvals().state();
    assert!(after.lapsed.is_empty());
    assert_eq!(after.conditions["pay"].len(), 1);
    let old = first.approvals().state().conditions["pay"][0]
        .schema
        .clone();
    assert_ne!(after.conditions["pay"][0].schema, old);
}

#[tokio::test]
async fn a_lapsed_condition_is_noted_for_the_caller_on_a_deferred_call() {
    let ledger: Ledger = Arc::default();
    let mut first = Runner::new(shop(pay_tool(ledger.clone(), "shop")), pays(&[]))
        .with_approvals(Approvals::new(DeferAll).with_condition(at_most()))
        .with_state_seal(seal());
    first
        .approvals()
        .approve_when("pay", "at_most", 50)
        .unwrap();
    first.run("bind").await.unwrap();
    let state = first.export_state();
    let mut second = Runner::new(shop(PayToolV2(ledger.clone())), pays(&[20]))
        .with_approvals(Approvals::new(DeferAll))
        .with_state_seal(seal());
    second.import_state(state).unwrap();
    let out = second.run("pay").await.unwrap();
    assert!(paid(&ledger).is_empty());
    let pending = pending_of(&out);
    let note = pending[0]
        .note
        .clone()
        .expect("the pending call has the note");
    assert!(note.contains("lapsed"), "{note}");
    assert!(second.approvals().state().conditions.is_empty());
}

#[tokio::test]
async fn a_condition_is_for_one_agents_tool() {
    // The parent's `pay` (1) runs under the parent's condition; the child
    // `ny`'s `pay` (5) does not inherit it and waits.
    let ledger: Ledger = Arc::default();
    let mut runner = Runner::new(pmo(&ledger, ny_model("bob", 5)), pmo_model())
        .with_approvals(Approvals::new(DeferAll).with_condition(at_most()));
    runner
        .approvals()
        .approve_when("pay", "at_most", 50)
        .unwrap();
    let out = runner.run("pay everyone").await.unwrap();
    assert_eq!(paid(&ledger), ["pmo paid vendor 1"]);
    let pending = pending_of(&out);
    assert_eq!(
        pending
            .iter()
            .map(PendingApproval::path)
            .collect::<Vec<_>>(),
        ["pmo / ny / pay"]
    );
    // Named by path, the child's tool has it: only the child's call runs.
    let ledger2: Ledger = Arc::default();
    let mut again = Runner::new(pmo(&ledger2, ny_model("bob", 5)), pmo_model())
        .with_approvals(Approvals::new(DeferAll).with_condition(at_most()));
    again
        .approvals()
        .approve_when("ny/pay", "at_most", 50)
        .unwrap();
    let out = again.run("pay everyone").await.unwrap();
    assert_eq!(paid(&ledger2), ["ny paid bob 5"]);
    assert_eq!(
        pending_of(&out)
            .iter()
            .map(PendingApproval::path)
            .collect::<Vec<_>>(),
        ["pmo / pay"]
    );
}

#[tokio::test]
async fn an_unknown_condition_or_bad_parameters_are_refused() {
    let approvals = Approvals::new(DeferAll).with_condition(at_most());
    let unknown = approvals.approve_when("pay", "at_least", 5).unwrap_err();
    assert!(
        unknown.to_string().contains("registered: at_most"),
        "{unknown}"
    );
    let bad = approvals
        .approve_when("pay", "at_most", "fifty")
        .unwrap_err();
    assert!(bad.to_string().contains("do not fit"), "{bad}");
    assert!(approvals.state().conditions.is_empty());
}
