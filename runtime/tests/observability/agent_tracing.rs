//! Observability: `tracing` spans for each run, step and tool call, with
//! the agent, tool, source, decision and the hook that made it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use agent_common::test_agent;
use hookwire::agent::Runner;
use hookwire::agent::lifecycle::{LifecycleHooks, PreToolUse};
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{Decision, FnTool, Json, Router};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

#[derive(Debug, Clone, Default)]
struct SpanRec {
    name: String,
    parent: Option<String>,
    fields: BTreeMap<String, String>,
}

#[derive(Default)]
struct Seen {
    spans: BTreeMap<u64, SpanRec>,
    events: Vec<(String, BTreeMap<String, String>)>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(
            field.name().to_owned(),
            format!("{value:?}").trim_matches('"').to_owned(),
        );
    }
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Seen>>);

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut rec = SpanRec {
            name: attrs.metadata().name().to_owned(),
            ..Default::default()
        };
        rec.parent = ctx
            .span(id)
            .and_then(|s| s.parent())
            .map(|p| p.name().to_owned());
        attrs.record(&mut Fields(&mut rec.fields));
        self.0.lock().unwrap().spans.insert(id.into_u64(), rec);
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        if let Some(rec) = self.0.lock().unwrap().spans.get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut rec.fields));
        }
    }
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() == "hookwire::audit" {
            let mut fields = BTreeMap::new();
            event.record(&mut Fields(&mut fields));
            self.0
                .lock()
                .unwrap()
                .events
                .push((event.metadata().target().to_owned(), fields));
        }
    }
}

/// Denies `a` = 13 (shared with the OpenTelemetry test).
pub(crate) struct Guard;

impl LifecycleHooks for Guard {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        if cx.args.get("a").and_then(|v| v.as_i64()) == Some(13) {
            Decision::Deny("unlucky".into())
        } else {
            Decision::Continue
        }
    }
    fn name(&self) -> &'static str {
        "guard"
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(crate) struct Add {
    pub(crate) a: i64,
}

#[tokio::test]
async fn runs_steps_and_tool_calls_are_spans_carrying_the_decision_and_the_hook() {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    let tools = Router::new().tool(FnTool::new("inc", "Adds one.", |x: Add| async move {
        Json(x.a + 1)
    }));
    let model = ScriptedModel::from_turns([
        Turn::call("inc", json!({"a": 1})).and_call("inc", json!({"a": 13})),
        Turn::text("ok"),
    ]);
    let mut runner = Runner::new(test_agent("tracer", tools).with_hooks(Guard), model)
        .with_correlation_id("corr-1");
    runner.run("go").await.unwrap();

    let seen = capture.0.lock().unwrap();
    let spans: Vec<&SpanRec> = seen.spans.values().collect();
    let run = spans.iter().find(|s| s.name == "hookwire.run").unwrap();
    assert_eq!(run.fields["agent"], "tracer");
    assert_eq!(run.fields["correlation_id"], "corr-1");
    let steps: Vec<_> = spans.iter().filter(|s| s.name == "hookwire.step").collect();
    assert_eq!(steps.len(), 2);
    assert!(
        steps
            .iter()
            .all(|s| s.parent.as_deref() == Some("hookwire.run"))
    );
    let calls: Vec<_> = spans
        .iter()
        .filter(|s| s.name == "hookwire.tool_call")
        .collect();
    assert_eq!(calls.len(), 2);
    for call in &calls {
        assert_eq!(call.parent.as_deref(), Some("hookwire.step"));
        assert_eq!(call.fields["agent"], "tracer");
        assert_eq!(call.fields["tool"], "inc");
        assert_eq!(call.fields["source"], "function");
    }
    let decisions: Vec<(String, Option<String>)> = calls
        .iter()
        .map(|c| (c.fields["decision"].clone(), c.fields.get("hook").cloned()))
        .collect();
    assert!(
        decisions.contains(&("allowed".into(), None)),
        "{decisions:?}"
    );
    assert!(
        decisions.contains(&("denied".into(), Some("guard".into()))),
        "{decisions:?}"
    );
    // The audit trail has one event per call, naming the deciding hook.
    let denied = seen
        .events
        .iter()
        .find(|(_, f)| f.get("decision").map(String::as_str) == Some("denied"))
        .unwrap();
    assert_eq!(denied.1["hook"], "guard");
    assert_eq!(denied.1["correlation_id"], "corr-1");
    assert_eq!(denied.1["tool_use_id"], "call_0_1");
}

#[tokio::test]
async fn the_loops_approval_gate_and_the_chains_go_through_one_gate() {
    use hookwire::approval::{ApprovalDecision, Approvals, FnApprover, NeedsApproval};
    use hookwire::{Tool, ToolHandler, ToolSource, chain};

    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    // `plain` needs approval by the run's settings (the loop's gate),
    // `gated` by its own chain (`NeedsApproval`).
    let plain = FnTool::new("plain", "Adds one.", |x: Add| async move { Json(x.a + 1) });
    let gated = FnTool::new("gated", "Adds two.", |x: Add| async move { Json(x.a + 2) });
    let tools = Router::new().tool(plain).route(
        gated.definition(),
        ToolSource::Function,
        chain!(NeedsApproval::new(true) => ToolHandler(gated)),
    );
    let approvals = Approvals::new(FnApprover::new(|req| {
        if req.tool == "plain" {
            ApprovalDecision::Approve
        } else {
            ApprovalDecision::Deny("not this one".into())
        }
    }));
    approvals.require("plain");
    let model = ScriptedModel::from_turns([
        Turn::call("plain", json!({"a": 1})).and_call("gated", json!({"a": 1})),
        Turn::text("ok"),
    ]);
    let mut runner = Runner::new(test_agent("approver", tools), model).with_approvals(approvals);
    runner.run("go").await.unwrap();
    let results: Vec<String> = runner
        .history()
        .iter()
        .filter_map(hookwire::model::Message::tool_result)
        .map(hookwire::ToolResult::text_content)
        .collect();
    assert_eq!(
        results,
        ["2", "tool call denied by `needs_approval`: not this one"]
    );

    // Both gates asked through the one approval path, which logs each
    // decision once.
    let seen = capture.0.lock().unwrap();
    let mut decisions: Vec<(String, String)> = seen
        .events
        .iter()
        .filter(|(_, f)| f.get("message").map(String::as_str) == Some("approval decision"))
        .map(|(_, f)| (f["tool"].clone(), f["decision"].clone()))
        .collect();
    decisions.sort();
    assert_eq!(
        decisions,
        [
            ("gated".to_owned(), "rejected".to_owned()),
            ("plain".to_owned(), "approved".to_owned())
        ]
    );
}
