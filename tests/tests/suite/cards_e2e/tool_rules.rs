//! Tool rules of cards (`instruction`, `available`, approval metadata),
//! across an export and import, and the PMO card's MCP server entry.

use super::*;

/// A card lists tools marked `#[hookwire::tool(instruction = .., available
/// = .., approval_metadata = ..)]` where they are defined, and gives tools
/// rules of its own (`function_tools` entries with `available` /
/// `instruction`): the instructions join the system prompt in the tools'
/// order, a tool is offered only while it is available, a call of one that
/// is not is refused, and the approver sees the metadata.
#[test]
fn a_card_tools_instruction_availability_and_approval_metadata_act() {
    use crate::seeing::{Offered, Seeing};
    use hookwire::approval::{ApprovalDecision, Approvals, FnApprover};
    use hookwire::model::{ScriptedModel, Turn};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let noted = Arc::new(Mutex::new(Vec::new()));
    let seen = Offered::default();
    let base = "Answer questions about the shop's stock.";
    let about = "Say where the shop is: 1 Main St.";
    let greet = "Greet customers by name.";
    let order = "Step 1: confirm every order line.";
    let all = ["stock", "about", "order", "greet", "refund"];
    let names = |tools: &[&str]| tools.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
    for prompt in ["hi, a refund please", "we are closed, a refund please"] {
        seen.lock().unwrap().clear();
        let model = Seeing(
            ScriptedModel::from_turns([
                Turn::call("greet", serde_json::json!({"name": "ann"}))
                    .and_call(
                        "refund",
                        serde_json::json!({"customer": "ann", "amount": 90}),
                    )
                    .and_call("about", serde_json::json!({})),
                Turn::text("done"),
            ]),
            seen.clone(),
        );
        let metadata = noted.clone();
        let approver = FnApprover::new(move |req| {
            metadata.lock().unwrap().push(req.metadata().cloned());
            ApprovalDecision::Approve
        });
        let agent = agents::Shop::new(&shop_deps("Corner", &[]));
        let mut runner = Runner::new(agent, model).with_approvals(Approvals::new(approver));
        rt.block_on(runner.run(prompt)).unwrap();
        let results = crate::availability::result_texts(runner.history());
        let seen_now = seen.lock().unwrap().clone();
        let refused = |tool: &str| {
            format!(
                "tool call denied by `available`: tool `{tool}` is not available in this step, \
                 so it was not offered and cannot be called"
            )
        };
        let closed = prompt.contains("closed");
        if closed {
            let open = names(&["stock", "order", "refund"]);
            assert_eq!(
                seen_now,
                [
                    (base.to_owned(), open.clone()),
                    (format!("{base}\n\n{order}"), open)
                ]
            );
            assert_eq!(results[0], refused("greet"));
            assert_eq!(results[2], refused("about"));
        } else {
            assert_eq!(
                seen_now,
                [
                    (format!("{base}\n\n{about}\n\n{greet}"), names(&all)),
                    (
                        format!("{base}\n\n{about}\n\n{order}\n\n{greet}"),
                        names(&all)
                    )
                ]
            );
            assert_eq!(results[0], "hello ann [stamped]");
            assert_eq!(results[2], "Corner: 0 kinds [stamped]");
        }
        assert_eq!(results[1], "refunded 90 to ann [risky] [stamped]");
    }
    assert_eq!(
        *noted.lock().unwrap(),
        [
            Some(serde_json::json!({"large": true})),
            Some(serde_json::json!({"large": true}))
        ]
    );
}

/// A run of the shop card paused on the refund's approval, exported and
/// imported into a new runner: its next step offers the tools and the
/// prompt the card's rules give for that step (step 1: the order note),
/// asked again from the imported history (still "closed" or not).
#[test]
fn a_card_tools_rules_give_the_same_offer_after_an_export_and_an_import() {
    use crate::seeing::{Offered, Seeing};
    use hookwire::agent::RunStatus;
    use hookwire::approval::{ApprovalDecision, Approvals, DeferAll};
    use hookwire::model::{ScriptedModel, Turn};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let base = "Answer questions about the shop's stock.";
    let names = |tools: &[&str]| tools.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
    for prompt in ["hi, a refund please", "we are closed, a refund please"] {
        let seen = Offered::default();
        let model = Seeing(
            ScriptedModel::from_turns([Turn::call(
                "refund",
                serde_json::json!({"customer": "ann", "amount": 90}),
            )]),
            seen.clone(),
        );
        let agent = agents::Shop::new(&shop_deps("Corner", &[]));
        let mut first = Runner::new(agent, model).with_approvals(Approvals::new(DeferAll));
        let out = rt.block_on(first.run(prompt)).unwrap();
        let RunStatus::Paused { pending } = out.status else {
            panic!("{:?}", out.status)
        };
        let state = serde_json::to_string(&first.export_state()).unwrap();
        drop(first);

        let seen = Offered::default();
        let model = Seeing(
            ScriptedModel::from_turns([Turn::text("done")]),
            seen.clone(),
        );
        let agent = agents::Shop::new(&shop_deps("Corner", &[]));
        let mut resumed = Runner::new(agent, model)
            .with_approvals(Approvals::new(DeferAll))
            .with_state_seal(hookwire::agent::StateSeal::unsigned());
        resumed
            .import_state(serde_json::from_str(&state).unwrap())
            .unwrap();
        resumed
            .approvals()
            .resolve(&pending[0].id(), ApprovalDecision::Approve)
            .unwrap();
        assert_eq!(rt.block_on(resumed.resume()).unwrap().text, "done");
        let order = "Step 1: confirm every order line.";
        let expected = if prompt.contains("closed") {
            (
                format!("{base}\n\n{order}"),
                names(&["stock", "order", "refund"]),
            )
        } else {
            (
                format!(
                    "{base}\n\nSay where the shop is: 1 Main St.\n\n{order}\n\nGreet customers by name."
                ),
                names(&["stock", "about", "order", "greet", "refund"]),
            )
        };
        assert_eq!(*seen.lock().unwrap(), [expected], "{prompt}");
    }
}

/// The PMO card's `servers` entry (`{name: time, available:
/// tools.rs:clock_on, instruction: ..}`), connected to the real
/// `mcp-server-time`: while the rule says yes, the server's tools are
/// offered and its instruction follows the card's; once someone said "no
/// clock", neither, and a call of the tool is refused.
#[test]
fn the_pmo_cards_server_entry_offers_the_time_tools_with_their_instruction() {
    use crate::seeing::{Offered, Seeing};
    use hookwire::mcp::{McpAgent, McpConfig, ServerSpec};
    use hookwire::model::{ScriptedModel, Turn};
    let config = McpConfig::new()
        .with_server(
            "time",
            ServerSpec::stdio(crate::dynamic_hooks::mcp_support::time_server())
                .args(["--local-timezone", "UTC"]),
        )
        .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let base = "Get project updates from the New York and London project managers and include the current time.";
    for prompt in ["status?", "status? no clock today"] {
        let agent = rt
            .block_on(McpAgent::connect(PmoOrchestrator::new(), &config))
            .unwrap();
        let seen = Offered::default();
        let model = Seeing(
            ScriptedModel::from_turns([
                Turn::call(
                    "time__get_current_time",
                    serde_json::json!({"timezone": "UTC"}),
                ),
                Turn::text("done"),
            ]),
            seen.clone(),
        );
        let mut runner = Runner::new(agent, model);
        rt.block_on(runner.run(prompt)).unwrap();
        let requests = seen.lock().unwrap().clone();
        let result = crate::availability::result_texts(runner.history())
            .pop()
            .unwrap();
        for (system, tools) in &requests {
            let offered = tools.iter().any(|t| t == "time__get_current_time");
            if prompt.contains("no clock") {
                assert_eq!(system, base);
                assert!(!offered, "{tools:?}");
            } else {
                assert_eq!(*system, format!("{base}\n\nGive every time in UTC."));
                assert!(offered, "{tools:?}");
            }
        }
        if prompt.contains("no clock") {
            assert_eq!(
                result,
                "tool call denied by `available`: tool `time__get_current_time` is not available in \
                 this step, so it was not offered and cannot be called"
            );
        } else {
            assert!(result.contains("\"timezone\": \"UTC\""), "{result}");
        }
        rt.block_on(runner.agent().servers().shutdown());
    }
}
