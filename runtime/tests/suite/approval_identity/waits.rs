//! Waiting for a person is not part of a call's time limit.

use super::*;

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
/// 1 s call limit and an approver that takes 5 s; the results the model read.
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
        .with_approvals(Approvals::new(Slow(Duration::from_secs(5))))
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
