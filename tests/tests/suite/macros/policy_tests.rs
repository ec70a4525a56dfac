//! A `#[hook]`'s policy: `on_failure` (open or closed), `timeout_ms`, and a
//! post hook that sees tool errors and may recover.

use super::*;

/// Always fails before the call; skipped under `on_failure = "open"`.
#[hookwire::hook(on_failure = "open")]
async fn flaky_open(
    cx: &mut ToolContext,
    _args: &mut ToolArgs,
) -> Result<Decision, std::fmt::Error> {
    log(format!("{}:flaky_open", cx.tool_use_id()));
    Err(std::fmt::Error)
}

/// Always fails before the call; fails the call (the default policy).
#[hookwire::hook]
async fn flaky_closed(
    cx: &mut ToolContext,
    _args: &mut ToolArgs,
) -> Result<Decision, std::fmt::Error> {
    log(format!("{}:flaky_closed", cx.tool_use_id()));
    Err(std::fmt::Error)
}

/// Takes longer than its limit, then calls the tool.
#[hookwire::hook(timeout_ms = 10)]
async fn slow(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    log(format!("{}:slow:before", cx.tool_use_id()));
    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    log(format!("{}:slow:after sleep", cx.tool_use_id()));
    next.run(cx, args).await
}

/// Echoes a message and records that it ran.
#[hookwire::tool]
fn logged_echo(cx: &ToolContext, message: String) -> String {
    log(format!("{}:logged_echo", cx.tool_use_id()));
    message
}

/// Recovers from any tool error.
#[hookwire::hook]
async fn recover(_cx: &mut ToolContext, outcome: &mut Outcome) {
    if let Err(e) = outcome {
        *outcome = Ok(hookwire::ToolResult::text(format!("recovered: {e}")));
    }
}

fn paused<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"))
        .block_on(f)
}

fn route<C: hookwire::Handler>(chain: C) -> impl ToolSet {
    Router::new().route(echo {}.definition(), hookwire::ToolSource::Function, chain)
}

#[test]
fn a_fail_open_hook_is_skipped_and_a_fail_closed_one_fails_the_call() {
    let scope = CallScope::new("t");
    let tools = route(chain!(flaky_open {} => ToolHandler(echo {})));
    let result = block_on(tools.call(&scope, call("p1", "say", json!({"message": "hi"}))));
    assert_eq!(result.text_content(), "hi");
    assert_eq!(take_log("p1:"), ["p1:flaky_open"]);

    let tools = route(chain!(flaky_closed {} => ToolHandler(echo {})));
    let result = block_on(tools.call(&scope, call("p2", "say", json!({"message": "hi"}))));
    assert!(result.is_error);
    assert!(
        result.text_content().contains("flaky_closed"),
        "{}",
        result.text_content()
    );
}

/// A hook past its `timeout_ms` ends the call as timed out, naming the
/// hook and the limit; the tool inside it never runs.
#[test]
fn a_hook_over_its_timeout_times_out_naming_the_hook_and_the_tool_does_not_run() {
    let scope = CallScope::new("t");
    let tools = Router::new().route(
        logged_echo {}.definition(),
        hookwire::ToolSource::Function,
        chain!(slow {} => ToolHandler(logged_echo {})),
    );
    let outcome =
        paused(tools.dispatch(&scope, call("p3", "logged_echo", json!({"message": "hi"}))));
    match &outcome {
        Err(e @ hookwire::ToolError::TimedOut { what, after }) => {
            assert_eq!(e.kind(), "timed_out");
            assert_eq!(what, "hook `slow`");
            assert_eq!(*after, std::time::Duration::from_millis(10));
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    let result = hookwire::call::into_result(outcome);
    assert!(result.is_error);
    assert_eq!(result.text_content(), "hook `slow` timed out after 10 ms");
    assert_eq!(
        take_log("p3:"),
        ["p3:slow:before"],
        "the hook was cut off in its sleep; the tool never ran"
    );
}

#[test]
fn a_post_hook_sees_tool_errors_and_may_recover() {
    let scope = CallScope::new("t");
    let tools = Router::new().route(
        fail {}.definition(),
        hookwire::ToolSource::Function,
        chain!(recover {} => ToolHandler(fail {})),
    );
    let result = block_on(tools.call(&scope, call("p4", "fail", json!({"why": "x"}))));
    assert!(!result.is_error);
    assert_eq!(
        result.text_content(),
        "recovered: tool `fail` failed: fail failed: x"
    );
}
