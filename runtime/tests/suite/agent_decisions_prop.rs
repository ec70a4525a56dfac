//! Property: whatever hooks decide, in whatever order, a call that any hook
//! denies (or stops) never executes, a call that asks runs only when the
//! approver approves, rewrites apply in declared order, and a stop ends the
//! run as stopped before the model is asked again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_common::test_agent;
use hookwire::agent::lifecycle::{LifecycleHooks, PreToolUse};
use hookwire::agent::{RunStatus, Runner};
use hookwire::approval::{ApprovalDecision, Approvals, FnApprover};
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

/// What one run did: how often the tool executed, what the model read as
/// the tool's result, how the run ended, and how many model requests it made.
struct Ran {
    executed: usize,
    text: String,
    status: RunStatus,
    steps: usize,
}

async fn run(ds: [D; 4], approve: bool) -> Ran {
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
    let mut runner = Runner::new(test_agent("p", tools).with_hooks(hooks), model).with_approvals(
        Approvals::new(FnApprover::new(move |_| {
            if approve {
                ApprovalDecision::Approve
            } else {
                ApprovalDecision::Deny("no".into())
            }
        })),
    );
    let out = runner.run("x").await.unwrap();
    let text = runner
        .history()
        .iter()
        .find_map(Message::tool_result)
        .map(ToolResult::text_content)
        .unwrap_or_default();
    Ran {
        executed: executed.load(Ordering::SeqCst),
        text,
        status: out.status,
        steps: out.steps,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_denied_or_stopped_call_never_executes_and_a_stop_ends_the_run_as_stopped(ds in proptest::array::uniform4(d()), approve in any::<bool>()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let Ran { executed, text, status, steps } = rt.block_on(run(ds, approve));
        let first_block = ds.iter().position(|d| matches!(d, D::Deny | D::Stop));
        let asks = ds.iter().any(|d| matches!(d, D::Ask));
        let should_run = first_block.is_none() && (!asks || approve);
        prop_assert_eq!(executed, usize::from(should_run), "decisions {:?} approve {}", ds, approve);
        let by = std::any::type_name::<H>();
        let stopped_at = first_block.filter(|&i| matches!(ds[i], D::Stop));
        if let Some(i) = stopped_at {
            // The run ended as stopped, by that hook, before the model was
            // asked again: one model request, the tool never ran.
            prop_assert_eq!(
                &status,
                &RunStatus::Stopped { reason: "stop".into(), hook: Some(by.into()) },
                "decisions {:?}", ds
            );
            prop_assert_eq!(steps, 1);
            prop_assert_eq!(text, format!("run stopped by `{by}`: stop"), "hook {}", i);
        } else {
            // Nothing stopped: the model read the result and answered.
            prop_assert_eq!(&status, &RunStatus::Completed, "decisions {:?}", ds);
            prop_assert_eq!(steps, 2);
            if should_run {
                // Every hook ran, in declared order, each seeing the earlier rewrites.
                prop_assert_eq!(text, "0123");
            } else if first_block.is_some() {
                prop_assert_eq!(text, format!("tool call denied by `{by}`: deny"));
            } else {
                prop_assert_eq!(text, "tool call denied by `approver`: no");
            }
        }
    }
}
