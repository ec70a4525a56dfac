//! Property: whatever hooks decide, in whatever order, a call that any hook
//! denies (or stops) never executes, a call that asks runs only when the
//! approver approves, and rewrites apply in declared order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_common::test_agent;
use hookwire::agent::Runner;
use hookwire::agent::lifecycle::{LifecycleHooks, PreToolUse};
use hookwire::approval::{Answer, FnAsker};
use hookwire::model::{Message, ScriptedModel, Turn};
use hookwire::{Decision, FnTool, Router, ToolResult};
use proptest::prelude::*;
use serde_json::json;

#[derive(Debug, Clone, Copy)]
enum D {
    Continue,
    Ask,
    Deny,
    Stop,
}

/// A hook deciding `D` and appending its index to `trail`.
struct H(usize, D);

impl LifecycleHooks for H {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        let mut trail = cx
            .args
            .get("trail")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_owned();
        trail.push_str(&self.0.to_string());
        let _ = cx.args.insert("trail", json!(trail));
        match self.1 {
            D::Continue => Decision::Continue,
            D::Ask => Decision::Ask("ask".into()),
            D::Deny => Decision::Deny("deny".into()),
            D::Stop => Decision::Stop("stop".into()),
        }
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Trail {
    #[serde(default)]
    trail: String,
}

fn d() -> impl Strategy<Value = D> {
    prop_oneof![
        Just(D::Continue),
        Just(D::Ask),
        Just(D::Deny),
        Just(D::Stop)
    ]
}

async fn run(ds: [D; 4], approve: bool) -> (usize, String) {
    let executed = Arc::new(AtomicUsize::new(0));
    let e = executed.clone();
    let tools = Router::new().tool(FnTool::new("t", "T.", move |t: Trail| {
        let e = e.clone();
        async move {
            e.fetch_add(1, Ordering::SeqCst);
            t.trail
        }
    }));
    let hooks = (H(0, ds[0]), H(1, ds[1]), H(2, ds[2]), H(3, ds[3]));
    let model = ScriptedModel::from_turns([Turn::call("t", json!({})), Turn::text("end")]);
    let mut runner = Runner::new(test_agent("p", tools).with_hooks(hooks), model).with_asker(
        FnAsker::new(move |_| {
            if approve {
                Answer::Approve
            } else {
                Answer::Deny("no".into())
            }
        }),
    );
    let _ = runner.run("x").await;
    let text = runner
        .history()
        .iter()
        .find_map(Message::tool_result)
        .map(ToolResult::text_content)
        .unwrap_or_default();
    (executed.load(Ordering::SeqCst), text)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_denied_call_never_executes(ds in proptest::array::uniform4(d()), approve in any::<bool>()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (executed, text) = rt.block_on(run(ds, approve));
        let first_block = ds.iter().position(|d| matches!(d, D::Deny | D::Stop));
        let asks = ds.iter().any(|d| matches!(d, D::Ask));
        let should_run = first_block.is_none() && (!asks || approve);
        prop_assert_eq!(executed, usize::from(should_run), "decisions {:?} approve {}", ds, approve);
        if should_run {
            // Every hook ran, in declared order, each seeing the earlier rewrites.
            prop_assert_eq!(text, "0123");
        } else if let Some(i) = first_block {
            let expected = if matches!(ds[i], D::Deny) { "deny" } else { "stop" };
            prop_assert!(text.ends_with(expected), "{}", text);
            let by = std::any::type_name::<H>();
            prop_assert!(text.contains(by), "{}", text);
        } else {
            prop_assert_eq!(text, "tool call denied by `approver`: no");
        }
    }
}
