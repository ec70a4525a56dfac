//! The audit trail: every decision is a structured `tracing` event on target
//! `hookwire::audit` that names the hook that made it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use hookwire::hooks::Audit;
use hookwire::{
    CallScope, Decision, FnTool, HookError, Pre, PreHook, Router, Tool, ToolArgs, ToolCall,
    ToolContext, ToolSet, ToolSource, chain,
};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};

type Events = Arc<Mutex<Vec<BTreeMap<String, String>>>>;

/// Captures every event's fields.
struct Capture(Events);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        fields.insert("target".to_owned(), event.metadata().target().to_owned());
        event.record(&mut Fields(&mut fields));
        self.0.lock().unwrap().push(fields);
    }
}

struct NoShell;

impl PreHook for NoShell {
    async fn before(&self, cx: &mut ToolContext, _: &mut ToolArgs) -> Result<Decision, HookError> {
        Ok(if cx.tool() == "shell" {
            Decision::Deny("shell is not allowed".into())
        } else {
            Decision::Continue
        })
    }

    fn name(&self) -> &'static str {
        "no_shell"
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Cmd {
    cmd: String,
}

#[tokio::test]
async fn each_decision_is_an_audit_event_naming_the_hook() {
    let events: Events = Arc::default();
    let subscriber = tracing_subscriber::registry()
        .with(Capture(events.clone()))
        .with(tracing_subscriber::filter::LevelFilter::DEBUG);
    let _guard = tracing::subscriber::set_default(subscriber);

    let shell = FnTool::new("shell", "Runs a command.", |c: Cmd| async move { c.cmd })
        .source(ToolSource::Runtime);
    let echo = FnTool::new("echo", "Echoes.", |c: Cmd| async move { c.cmd });
    let tools = Router::new()
        .route(
            shell.definition(),
            ToolSource::Runtime,
            chain!(Audit, Pre(NoShell) => hookwire::ToolHandler(shell)),
        )
        .route(
            echo.definition(),
            ToolSource::Function,
            chain!(Audit, Pre(NoShell) => hookwire::ToolHandler(echo)),
        );
    let scope = CallScope::new("ops").with_correlation_id("run-1");
    let args = || ToolArgs::from_json(r#"{"cmd": "ls"}"#);
    let denied = tools
        .call(&scope, ToolCall::new("t1", "shell", args()))
        .await;
    let allowed = tools
        .call(&scope, ToolCall::new("t2", "echo", args()))
        .await;
    assert!(denied.is_error);
    assert_eq!(allowed.text_content(), "ls");

    let events = events.lock().unwrap().clone();
    let audit: Vec<_> = events
        .iter()
        .filter(|e| e["target"] == "hookwire::audit")
        .collect();
    let summary: Vec<String> = audit
        .iter()
        .map(|e| {
            format!(
                "{} {} {} {}",
                e.get("tool").map_or("-", String::as_str),
                e.get("hook").map_or("-", String::as_str),
                e.get("decision").map_or("-", String::as_str),
                e.get("message").map_or("-", String::as_str),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            "shell no_shell deny hook decision",
            "shell no_shell denied tool call",
            "echo no_shell continue hook decision",
            "echo - allowed tool call",
        ]
    );
    // The final event for the denied call carries the identity of the call.
    let final_denied = audit[1];
    assert_eq!(final_denied["agent"], "ops");
    assert_eq!(final_denied["source"], "runtime");
    assert_eq!(final_denied["tool_use_id"], "t1");
    assert_eq!(final_denied["correlation_id"], "run-1");
}

/// `copy`: reports its progress.
struct Copy;

impl Tool for Copy {
    type Args = hookwire::call::NoArgs;

    fn name(&self) -> &str {
        "copy"
    }

    fn description(&self) -> &str {
        "Copies."
    }

    async fn call(&self, cx: &ToolContext, _: hookwire::call::NoArgs) -> hookwire::Outcome {
        cx.progress("copied 1 of 2");
        Ok(hookwire::ToolResult::text("copied"))
    }
}

#[tokio::test]
async fn a_tools_progress_is_an_event_as_it_is_sent() {
    let events: Events = Arc::default();
    let subscriber = tracing_subscriber::registry()
        .with(Capture(events.clone()))
        .with(tracing_subscriber::filter::LevelFilter::DEBUG);
    let _guard = tracing::subscriber::set_default(subscriber);
    let tools = Router::new().tool(Copy);
    let scope = CallScope::new("ops");
    let done = tools
        .call(&scope, ToolCall::new("t1", "copy", ToolArgs::empty()))
        .await;
    assert_eq!(done.text_content(), "copied");
    let progress: Vec<String> = events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e["target"] == "hookwire::progress")
        .map(|e| {
            format!(
                "{} {} {} {}",
                e["agent"], e["tool"], e["tool_use_id"], e["progress"]
            )
        })
        .collect();
    assert_eq!(progress, ["ops copy t1 copied 1 of 2"]);
}
