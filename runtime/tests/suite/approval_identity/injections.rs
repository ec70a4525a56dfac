//! Injected calls pass the same lifecycle hooks and approval gate, and
//! keep unique ids across an export and import.

use super::*;

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
    let mut gated =
        Runner::new(injecting(&ledger), model()).with_approvals(Approvals::new(DeferAll));
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
    let mut second = Runner::new(agent(), model())
        .with_state_seal(hookwire::agent::StateSeal::unsigned())
        .with_state(state)
        .unwrap();
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
