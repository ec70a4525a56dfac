//! A crate that depends on hookwire only, renamed to `hw`: the code that
//! `#[hw::tool]`, `#[hw::hook]` and `#[hw::agent]` generate names the crate
//! through the path `proc-macro-crate` resolves (`::hw`), and reaches serde,
//! schemars and serde_json through hookwire's re-exports.

#![deny(missing_docs, unsafe_code)]

use hw::{Decision, Json, Next, Outcome, ToolArgs, ToolContext};

/// Adds two numbers.
#[hw::tool(tool_hooks = [clamp])]
pub fn add(
    /// The first number.
    a: i64,
    /// The second number.
    b: Option<i64>,
) -> Json<i64> {
    Json(a + b.unwrap_or(0))
}

/// Clamps `a` to at most 10 (the tool's own pre hook).
#[hw::hook]
pub async fn clamp(_cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    if args
        .get("a")
        .and_then(|a| a.as_i64())
        .is_some_and(|a| a > 10)
        && args.insert("a", 10.into()).is_err()
    {
        return Decision::Deny("arguments are not an object".into());
    }
    Decision::Continue
}

/// Tags the result (an agent-level around hook).
#[hw::hook(match = "add")]
pub async fn tag(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(result) = &mut outcome {
        result.append_text(" (tagged)");
    }
    outcome
}

/// A point: a struct parameter, its derives reached through `hw` alone.
#[hw::args]
pub struct Point {
    /// Metres east.
    pub x: i64,
    /// Metres north.
    pub y: i64,
}

/// Says how far a point is from the origin, in steps.
#[hw::tool]
pub fn steps(point: Point) -> String {
    (point.x.abs() + point.y.abs()).to_string()
}

/// The child agent.
#[hw::agent(name = "helper", instruction = "Help.")]
pub struct Helper;

/// A calculator with a child agent.
#[hw::agent(
    name = "calc",
    instruction = "Do sums.",
    function_tools = [add, steps],
    agents = [Helper(name = "helper")],
    tool_hooks = [tag],
)]
pub struct Calc;

#[cfg(test)]
mod tests {
    use super::*;
    use hw::agent::Agent;
    use hw::{CallScope, ToolCall, ToolSet};

    /// Polls a future that never waits to completion (no runtime needed:
    /// nothing here sleeps or does I/O).
    fn ready<F: std::future::Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        loop {
            if let std::task::Poll::Ready(out) = f.as_mut().poll(&mut cx) {
                return out;
            }
        }
    }

    #[test]
    fn a_renamed_dependency_compiles_and_runs_one_call() {
        let calc = Calc::new();
        let names: Vec<String> = calc
            .tools()
            .definitions()
            .into_iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(names, ["add", "steps", "agent__helper"]);
        let call = ToolCall::new("c1", "add", ToolArgs::from_json(r#"{"a": 50, "b": 1}"#));
        let result = ready(calc.tools().call(&CallScope::new("calc"), call));
        assert!(!result.is_error);
        assert_eq!(result.text_content(), "11 (tagged)");
        let call = ToolCall::new(
            "c2",
            "steps",
            ToolArgs::from_json(r#"{"point": {"x": 3, "y": -4}}"#),
        );
        let result = ready(calc.tools().call(&CallScope::new("calc"), call));
        assert_eq!(result.text_content(), "7");
        let schema = calc.tools().definitions()[1].input_schema.to_string();
        assert!(schema.contains("Metres east."), "{schema}");
    }
}

/// Caps transfers: typed over the argument type a lock gives a locked MCP
/// tool whose schema has a checked string, an enum, formats, optional,
/// array and object fields (`lock/hookwire.lock`): the generated type
/// reaches serde through `::hw` too.
#[hw::hook]
pub async fn cap(_cx: &mut ToolContext, args: &mut teller_mcp::BankTransfer) -> Decision {
    if args.amount.get() > 100 {
        return Decision::Deny("over 100".into());
    }
    args.memo = Some(format!("to {} in {}", *args.to, args.currency));
    let _ = (&args.at, &args.id, &args.tags, &args.meta);
    Decision::Continue
}

/// Moves money: its MCP server pinned by a lock.
#[hw::agent(
    name = "teller",
    servers = ["bank"],
    mcp_lock = "lock/hookwire.lock",
    tool_hooks = [cap(match = "bank__transfer")],
)]
pub struct Teller;
