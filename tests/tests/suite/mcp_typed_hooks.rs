//! Typed hooks on locked MCP tools: `#[agent(mcp_lock = ..)]` generates
//! each locked tool's argument type from its input schema (in the module
//! `clock_mcp` beside `Clock`), a typed hook takes it, and the rewrite
//! reaches the real `mcp-server-time`; the card `Clock-Desk`
//! (`codegen-cli/tests/cards/locked/`, whose lock both use) does the same.

use hookwire::agent::{Agent, RunOutput, Runner, TraceEvent};
use hookwire::mcp::{McpAgent, McpConfig, McpLock, ServerSpec};
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{Decision, ToolContext};

use crate::dynamic_hooks::mcp_support;

/// Asks every clock for UTC: a typed pre hook over the locked tool's
/// generated argument type, whose field it rewrites.
#[hookwire::hook]
async fn in_utc(_cx: &mut ToolContext, args: &mut clock_mcp::TimeGetCurrentTime) -> Decision {
    args.timezone = "UTC".to_owned();
    Decision::Continue
}

/// Reads a conversion's fields, typed (it rewrites nothing).
#[hookwire::hook]
async fn from_noon(_cx: &mut ToolContext, args: &clock_mcp::TimeConvertTime) -> Decision {
    if args.time == "12:00" {
        Decision::Continue
    } else {
        Decision::Deny(format!("only noon converts, not {}", args.time))
    }
}

/// Tells the time.
#[hookwire::agent(
    name = "clock",
    servers = ["time"],
    mcp_lock = "../codegen-cli/tests/cards/locked/hookwire.lock",
    tool_hooks = [
        in_utc(match = "time__get_current_time"),
        from_noon(match = "time__convert_time"),
    ],
)]
pub struct Clock;

/// The time server, in UTC, pinned by the lock beside the card.
fn locked_time() -> McpConfig {
    let lock = McpLock::parse(include_str!(
        "../../../codegen-cli/tests/cards/locked/hookwire.lock"
    ))
    .unwrap();
    McpConfig::new()
        .with_server(
            "time",
            ServerSpec::stdio(mcp_support::time_server()).args(["--local-timezone", "UTC"]),
        )
        .unwrap()
        .with_lock(lock)
}

/// The model asks for Paris's time, then converts 09:30.
fn asks() -> ScriptedModel {
    ScriptedModel::from_turns([
        Turn::call(
            "time__get_current_time",
            hookwire::serde_json::json!({"timezone": "Europe/Paris"}),
        ),
        Turn::call(
            "time__convert_time",
            hookwire::serde_json::json!({
                "source_timezone": "UTC", "time": "09:30", "target_timezone": "Asia/Tokyo"
            }),
        ),
        Turn::text("done"),
    ])
}

/// `agent`, connected to the locked time server, run on [`asks`].
async fn asked_for_the_time<A: Agent>(agent: A) -> RunOutput {
    let agent = McpAgent::connect(agent, &locked_time()).await.unwrap();
    Runner::new(agent, asks())
        .run("what time is it?")
        .await
        .unwrap()
}

#[tokio::test]
async fn a_typed_hook_rewrites_a_locked_mcp_tools_arguments_as_its_generated_type() {
    let out = asked_for_the_time(Clock::new()).await;
    assert_rewritten_to_utc_and_09_30_denied(&out);
}

mod locked_agents {
    hookwire::include_agents!("locked_agents");
}

#[tokio::test]
async fn a_cards_typed_hooks_take_the_locked_tools_generated_types_too() {
    let out = asked_for_the_time(locked_agents::ClockDesk::new()).await;
    assert_rewritten_to_utc_and_09_30_denied(&out);
}

/// The model asked for Paris; the server was asked for UTC; the conversion
/// of 09:30 was denied by the typed reader.
fn assert_rewritten_to_utc_and_09_30_denied(out: &RunOutput) {
    let calls: Vec<_> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some(call),
            _ => None,
        })
        .collect();
    // The model asked for Paris; the server was asked for UTC: the typed
    // rewrite went out as JSON.
    let now = calls[0];
    assert_eq!(
        now.arguments.to_value().unwrap()["timezone"],
        "Europe/Paris"
    );
    let received = now.received.as_ref().map(|r| r.to_value().unwrap());
    assert_eq!(received.unwrap()["timezone"], "UTC", "{now:?}");
    let text = now.result.text_content();
    assert!(text.contains(r#""timezone": "UTC""#), "{text}");
    // The typed reader denied the conversion, naming the field it read.
    let convert = calls[1];
    assert_eq!(convert.decision, "denied", "{convert:?}");
    assert!(
        convert
            .result
            .text_content()
            .contains("only noon converts, not 09:30"),
        "{convert:?}"
    );
}
