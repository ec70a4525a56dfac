//! A crate that depends on `hookwire-chain` and `hookwire-macros` only, not
//! on `hookwire`: `#[tool]`, `#[hook]` and `#[args]` find everything they
//! name under `::hookwire_chain`, and a chain built from them with
//! `chain!` runs a call with its own hooks, its approval gate and an outer
//! hook, without the agent loop, models or the approval store.

#![deny(missing_docs, unsafe_code)]

use hookwire_chain::{Decision, Json, Next, Outcome, ToolArgs, ToolContext};
use hookwire_macros::{args, hook, tool};

/// Adds two numbers; asks before adding anything over 100.
#[tool(tool_hooks = [clamp], needs_approval = large)]
pub fn add(
    /// The first number.
    a: i64,
    /// The second number.
    b: Option<i64>,
) -> Json<i64> {
    Json(a + b.unwrap_or(0))
}

/// Whether an addition needs a person's approval.
fn large(args: &hookwire_chain::ArgsOf<add>) -> bool {
    args.b.unwrap_or(0) > 100
}

/// Clamps `a` to at most 10 (the tool's own pre hook).
#[hook]
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

/// Tags the result (an around hook outside the tool's own).
#[hook]
pub async fn tag(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(result) = &mut outcome {
        result.append_text(" (tagged)");
    }
    outcome
}

/// A point: a struct parameter, its derives reached through the chain.
#[args]
pub struct Point {
    /// Metres east.
    pub x: i64,
    /// Metres north.
    pub y: i64,
}

/// Says how far a point is from the origin, in steps.
#[tool]
pub fn steps(point: Point) -> String {
    (point.x.abs() + point.y.abs()).to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use hookwire_chain::declare::ToolDecl;
    use hookwire_chain::{Handler, ToolArgs, ToolContext, ToolError, ToolSource, chain};

    use super::*;

    fn cx(tool: &'static str) -> ToolContext {
        ToolContext::new(tool, ToolSource::Function, "call-1")
    }

    #[tokio::test]
    async fn a_tool_with_its_own_hooks_runs_in_a_chain_without_hookwire() {
        let chain = chain!(tag {} => add {}.into_handler());
        let args = ToolArgs::from_json(r#"{"a": 41, "b": 1}"#);
        let result = chain.call(&mut cx("add"), args).await.unwrap();
        // `clamp` (the tool's own) made `a` 10; `tag` (outside) tagged it.
        assert_eq!(result.text_content(), "11 (tagged)");

        // The tool's own gate asks; with no approver the call is denied.
        let args = ToolArgs::from_json(r#"{"a": 1, "b": 500}"#);
        let err = chain.call(&mut cx("add"), args).await.unwrap_err();
        assert!(matches!(err, ToolError::Denied { .. }), "{err:?}");
    }

    #[tokio::test]
    async fn a_struct_argument_is_read_through_the_chain() {
        let chain = chain!(=> steps {}.into_handler());
        let args = ToolArgs::from_json(r#"{"point": {"x": 3, "y": -4}}"#);
        let result = chain.call(&mut cx("steps"), args).await.unwrap();
        assert_eq!(result.text_content(), "7");
        let definition = <steps as hookwire_chain::Tool>::definition(&steps {});
        assert_eq!(definition.name, "steps");
    }
}
