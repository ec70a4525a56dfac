//! Behaviour of chains: order, short-circuits, rewrites, recovery, denials,
//! failure policies, timeouts, retries, unknown tools, malformed arguments and
//! the extension map.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookwire::approval::{ApprovalDecision, FnApprover};
use hookwire::hooks::{Retry, Timeout};
use hookwire::{
    CallScope, Decision, FailurePolicy, FnTool, Guarded, Handler, Hook, HookError, Json, Next,
    Outcome, Post, PostHook, Pre, PreHook, Router, Tool, ToolArgs, ToolCall, ToolContext,
    ToolError, ToolHandler, ToolResult, ToolSet, ToolSource, chain, hooks::Attempts,
    hooks::CatchPanics, hooks::catch_panics,
};
use serde_json::json;

mod context;
mod limits;
mod panics;

type Log = Arc<Mutex<Vec<String>>>;

fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct XArgs {
    x: i64,
}

/// A tool that records its calls and the `x` it saw, and returns `x + 1`.
#[derive(Clone)]
struct AddOne {
    log: Log,
    calls: Arc<AtomicUsize>,
}

impl AddOne {
    fn new(log: &Log) -> Self {
        Self {
            log: log.clone(),
            calls: Arc::new(AtomicUsize::new(0)),
        }
    }
}

impl Tool for AddOne {
    type Args = XArgs;

    fn name(&self) -> &str {
        "add_one"
    }

    fn description(&self) -> &str {
        "Adds one."
    }

    async fn call(&self, _cx: &ToolContext, args: XArgs) -> Outcome {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.log
            .lock()
            .unwrap()
            .push(format!("execute x={}", args.x));
        Ok(ToolResult::text((args.x + 1).to_string()))
    }
}

/// An around hook that logs before and after `next`.
struct Around(&'static str, Log);

impl Hook for Around {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        logged(self.0, &self.1, None, cx, args, next).await
    }

    fn name(&self) -> &'static str {
        self.0
    }
}

/// Where a [`Spot`] hook or a [`Leaf`] tool panics.
#[derive(Clone, Copy, PartialEq)]
enum PanicAt {
    Before(&'static str),
    After(&'static str),
    Tool(&'static str),
}

/// Where to panic in this run.
type PanicPlan = Arc<Mutex<Vec<PanicAt>>>;

/// Logs `name:before` and `name:after` around `next`, panicking instead
/// where `plan` says so.
async fn logged<N: Handler>(
    name: &'static str,
    log: &Log,
    plan: Option<&PanicPlan>,
    cx: &mut ToolContext,
    args: ToolArgs,
    next: Next<'_, N>,
) -> Outcome {
    let panics_at = |at: PanicAt| plan.is_some_and(|p| p.lock().unwrap().contains(&at));
    if panics_at(PanicAt::Before(name)) {
        panic!("{name} before");
    }
    log.lock().unwrap().push(format!("{name}:before"));
    let outcome = next.run(cx, args).await;
    if panics_at(PanicAt::After(name)) {
        panic!("{name} after");
    }
    log.lock().unwrap().push(format!("{name}:after"));
    outcome
}

/// A pre hook that logs and returns a fixed decision.
struct Gate(&'static str, Log, Decision);

impl PreHook for Gate {
    async fn before(
        &self,
        _cx: &mut ToolContext,
        _args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        self.1.lock().unwrap().push(self.0.to_owned());
        Ok(self.2.clone())
    }

    fn name(&self) -> &'static str {
        self.0
    }
}

/// A post hook that logs.
struct After(&'static str, Log);

impl PostHook for After {
    async fn after(&self, _cx: &mut ToolContext, _outcome: &mut Outcome) -> Result<(), HookError> {
        self.1.lock().unwrap().push(self.0.to_owned());
        Ok(())
    }

    fn name(&self) -> &'static str {
        self.0
    }
}

fn cx() -> ToolContext {
    ToolContext::new("add_one", ToolSource::Function, "call-1")
}

fn args(x: i64) -> ToolArgs {
    ToolArgs::from_json(format!(r#"{{"x": {x}}}"#))
}

#[tokio::test]
async fn agent_level_hooks_wrap_tool_level_hooks_which_wrap_the_tool() {
    let log = log();
    // Agent-level: an around hook, then the global pre and post hooks.
    // Tool-level: the tool's pre and post hooks, then another around hook.
    let chain = chain!(
        Around("agent_around", log.clone()),
        Pre(Gate("global_pre", log.clone(), Decision::Continue)),
        Post(After("global_post", log.clone())),
        Pre(Gate("tool_pre", log.clone(), Decision::Continue)),
        Post(After("tool_post", log.clone())),
        Around("tool_around", log.clone())
        => ToolHandler(AddOne::new(&log))
    );
    let result = chain.call(&mut cx(), args(1)).await.unwrap();
    assert_eq!(result.text_content(), "2");
    assert_eq!(
        entries(&log),
        [
            "agent_around:before",
            "global_pre",
            "tool_pre",
            "tool_around:before",
            "execute x=1",
            "tool_around:after",
            "tool_post",
            "global_post",
            "agent_around:after",
        ]
    );
}

#[tokio::test]
async fn a_short_circuiting_hook_never_reaches_inner_hooks_or_the_tool() {
    struct Cached;
    impl Hook for Cached {
        async fn around<N: Handler>(
            &self,
            _cx: &mut ToolContext,
            _args: ToolArgs,
            _next: Next<'_, N>,
        ) -> Outcome {
            Ok(ToolResult::text("cached"))
        }
    }
    let log = log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    let chain = chain!(Cached, Around("inner", log.clone()) => ToolHandler(tool));
    for _ in 0..3 {
        let result = chain.call(&mut cx(), args(1)).await.unwrap();
        assert_eq!(result.text_content(), "cached");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert!(entries(&log).is_empty(), "{:?}", entries(&log));
}

/// Rewrites `x` and records what it saw.
struct Rewrite(&'static str, Log, fn(i64) -> i64);

impl PreHook for Rewrite {
    async fn before(
        &self,
        _cx: &mut ToolContext,
        args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        let x = args
            .get("x")
            .and_then(|v| v.as_i64())
            .ok_or_else(|| HookError::msg("no x"))?;
        self.1.lock().unwrap().push(format!("{} saw {x}", self.0));
        args.insert("x", json!((self.2)(x)))?;
        Ok(Decision::Continue)
    }
}

#[tokio::test]
async fn argument_rewrites_are_seen_by_inner_hooks_in_declared_order() {
    let log = log();
    let chain = chain!(
        Pre(Rewrite("clamp", log.clone(), |x| x.min(10))),
        Pre(Rewrite("double", log.clone(), |x| x * 2)),
        Pre(Rewrite("plus3", log.clone(), |x| x + 3))
        => ToolHandler(AddOne::new(&log))
    );
    let result = chain.call(&mut cx(), args(50)).await.unwrap();
    assert_eq!(
        entries(&log),
        [
            "clamp saw 50",
            "double saw 10",
            "plus3 saw 20",
            "execute x=23"
        ]
    );
    assert_eq!(result.text_content(), "24");
}

#[tokio::test]
async fn a_post_hook_recovers_a_tool_error_and_outer_hooks_see_the_recovery() {
    struct Recover;
    impl PostHook for Recover {
        async fn after(
            &self,
            _cx: &mut ToolContext,
            outcome: &mut Outcome,
        ) -> Result<(), HookError> {
            if let Err(e) = outcome {
                *outcome = Ok(ToolResult::text(format!("recovered from: {e}")));
            }
            Ok(())
        }
    }
    let failing = FnTool::new("flaky", "Fails.", |_: XArgs| async {
        Err::<String, _>("disk on fire")
    });
    let log = log();
    let chain = chain!(Around("outer", log.clone()), Post(Recover) => ToolHandler(failing));
    let result = chain.call(&mut cx(), args(1)).await.unwrap();
    assert!(!result.is_error);
    assert_eq!(
        result.text_content(),
        "recovered from: tool `flaky` failed: disk on fire"
    );
    assert_eq!(entries(&log), ["outer:before", "outer:after"]);
}

#[tokio::test]
async fn a_deny_reason_reaches_the_result_the_model_reads_and_the_first_deny_wins() {
    let log = log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    let definition = tool.definition();
    let tools = Router::new().route(
        definition,
        ToolSource::Function,
        chain!(
            Pre(Gate("allow", log.clone(), Decision::Continue)),
            Pre(Gate("policy", log.clone(), Decision::Deny("add_one is disabled today".into()))),
            Pre(Gate("later", log.clone(), Decision::Deny("never seen".into())))
            => ToolHandler(tool)
        ),
    );
    let call = ToolCall::new("c1", "add_one", args(1));
    let result = tools.call(&CallScope::new("agent"), call).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "tool call denied by `policy`: add_one is disabled today"
    );
    assert_eq!(entries(&log), ["allow", "policy"]);
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn stop_ends_with_a_stopped_error_and_the_tool_never_runs() {
    let log = log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    let chain = chain!(Pre(Gate("kill", log.clone(), Decision::Stop("budget spent".into()))) => ToolHandler(tool));
    let err = chain.call(&mut cx(), args(1)).await.unwrap_err();
    assert!(err.stops_run());
    assert_eq!(err.hook(), Some("kill"));
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn ask_goes_to_the_approver_and_without_one_is_denied() {
    let log = log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    let chain = chain!(Pre(Gate("ask", log.clone(), Decision::Ask("big number".into()))) => ToolHandler(tool));

    // No approver: fail closed.
    let err = chain.call(&mut cx(), args(1)).await.unwrap_err();
    assert!(matches!(err, ToolError::Denied { .. }), "{err:?}");
    assert!(err.to_string().contains("no approver"), "{err}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);

    // An approver that approves small x and rejects large x, seeing the args.
    let approver = Arc::new(FnApprover::new(|req| {
        let mut args = req.arguments.clone();
        match args.get("x").and_then(|v| v.as_i64()) {
            Some(x) if x < 100 => ApprovalDecision::Approve,
            _ => ApprovalDecision::Deny(format!("{} needs a smaller x", req.tool)),
        }
    }));
    let mut approved = cx().with_approver(Some(approver.clone()));
    let result = chain.call(&mut approved, args(5)).await.unwrap();
    assert_eq!(result.text_content(), "6");
    let mut rejected = cx().with_approver(Some(approver));
    let err = chain.call(&mut rejected, args(500)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool call denied by `ask`: add_one needs a smaller x"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

struct Slow(Duration);

impl PreHook for Slow {
    async fn before(&self, _: &mut ToolContext, _: &mut ToolArgs) -> Result<Decision, HookError> {
        tokio::time::sleep(self.0).await;
        Ok(Decision::Continue)
    }
    fn name(&self) -> &'static str {
        "slow"
    }
}

#[tokio::test(start_paused = true)]
async fn a_hook_timeout_follows_the_policy() {
    let log = log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    let limit = Some(Duration::from_millis(50));

    let closed = chain!(Guarded::new(Pre(Slow(Duration::from_secs(5))), FailurePolicy::FailClosed, limit) => ToolHandler(tool.clone()));
    let err = closed.call(&mut cx(), args(1)).await.unwrap_err();
    assert_eq!(err.to_string(), "hook `slow` timed out after 50 ms");
    assert!(err.is_retryable());
    assert_eq!(calls.load(Ordering::SeqCst), 0);

    let open = chain!(Guarded::new(Pre(Slow(Duration::from_secs(5))), FailurePolicy::FailOpen, limit) => ToolHandler(tool.clone()));
    assert_eq!(
        open.call(&mut cx(), args(1)).await.unwrap().text_content(),
        "2"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // A fast hook under the same limit is untouched.
    let fast = chain!(Guarded::new(Pre(Slow(Duration::from_millis(1))), FailurePolicy::FailClosed, limit) => ToolHandler(tool));
    assert_eq!(
        fast.call(&mut cx(), args(1)).await.unwrap().text_content(),
        "2"
    );
}

#[tokio::test(start_paused = true)]
async fn the_timeout_hook_cancels_a_slow_tool() {
    let slow = FnTool::new("sleepy", "Sleeps.", |a: XArgs| async move {
        tokio::time::sleep(Duration::from_secs(a.x as u64)).await;
        "woke"
    });
    let chain = chain!(Timeout::from_millis(1500) => ToolHandler(slow));
    assert_eq!(
        chain.call(&mut cx(), args(1)).await.unwrap().text_content(),
        "woke"
    );
    let err = chain.call(&mut cx(), args(2)).await.unwrap_err();
    assert_eq!(err.to_string(), "tool `add_one` timed out after 1500 ms");
}

#[tokio::test(start_paused = true)]
async fn retry_retries_retryable_errors_with_backoff_and_counts_attempts() {
    let attempts = Arc::new(AtomicUsize::new(0));
    let fail_first = |n: usize, retryable: bool| {
        let attempts = attempts.clone();
        attempts.store(0, Ordering::SeqCst);
        FnTool::new("flaky", "Flaky.", move |_: XArgs| {
            let attempt = attempts.fetch_add(1, Ordering::SeqCst) + 1;
            async move {
                if attempt <= n {
                    Err(ToolError::tool_message(
                        "flaky",
                        format!("attempt {attempt}"),
                        retryable,
                    ))
                } else {
                    Ok(format!("ok on attempt {attempt}"))
                }
            }
        })
    };
    struct ReadAttempts(Arc<Mutex<Option<u32>>>);
    impl Hook for ReadAttempts {
        async fn around<N: Handler>(
            &self,
            cx: &mut ToolContext,
            args: ToolArgs,
            next: Next<'_, N>,
        ) -> Outcome {
            let outcome = next.run(cx, args).await;
            *self.0.lock().unwrap() = cx.extensions().get::<Attempts>().map(|a| a.0);
            outcome
        }
    }

    let seen = Arc::new(Mutex::new(None));
    let retry = Retry::new(5, Duration::from_millis(100));
    assert_eq!(retry.backoff(1), Duration::from_millis(100));
    assert_eq!(retry.backoff(3), Duration::from_millis(400));

    let started = tokio::time::Instant::now();
    let chain = chain!(ReadAttempts(seen.clone()), retry => ToolHandler(fail_first(2, true)));
    let result = chain.call(&mut cx(), args(1)).await.unwrap();
    assert_eq!(result.text_content(), "ok on attempt 3");
    assert_eq!(attempts.load(Ordering::SeqCst), 3);
    assert_eq!(*seen.lock().unwrap(), Some(3));
    assert_eq!(
        started.elapsed(),
        Duration::from_millis(300),
        "100 ms then 200 ms"
    );

    // Not retryable: one attempt.
    let chain = chain!(retry => ToolHandler(fail_first(2, false)));
    assert!(chain.call(&mut cx(), args(1)).await.is_err());
    assert_eq!(attempts.load(Ordering::SeqCst), 1);

    // Always failing: exactly max_attempts attempts, and the last error is returned.
    let chain = chain!(retry => ToolHandler(fail_first(100, true)));
    let err = chain.call(&mut cx(), args(1)).await.unwrap_err();
    assert_eq!(attempts.load(Ordering::SeqCst), 5);
    assert_eq!(err.to_string(), "tool `flaky` failed: attempt 5");
}

#[tokio::test]
async fn an_unknown_tool_is_an_error_result_naming_it() {
    let log = log();
    let tools = Router::new().tool(AddOne::new(&log));
    assert!(tools.contains("add_one"));
    assert!(!tools.contains("rm_rf"));
    let result = tools
        .call(
            &CallScope::new("a"),
            ToolCall::new("c9", "rm_rf", ToolArgs::empty()),
        )
        .await;
    assert!(result.is_error);
    assert_eq!(result.text_content(), "unknown tool `rm_rf`");
}

#[tokio::test]
async fn malformed_arguments_never_enter_the_tool() {
    let log = log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    let tools = Router::new().tool(tool);
    let scope = CallScope::new("a");
    let cases = [
        (
            r#"{"x": "ten"}"#,
            "invalid arguments for tool `add_one` at `x`: invalid type: string \"ten\", expected i64",
        ),
        (
            r#"{}"#,
            "invalid arguments for tool `add_one`: missing field `x`",
        ),
        (
            r#"{"x": 1"#,
            "invalid arguments for tool `add_one`: EOF while parsing an object",
        ),
        (
            r#"[1]"#,
            "invalid arguments for tool `add_one`: arguments must be a JSON object, got an array",
        ),
    ];
    for (text, expected) in cases {
        let call = ToolCall::new("c", "add_one", ToolArgs::from_json(text));
        let result = tools.call(&scope, call).await;
        assert!(result.is_error, "{text}");
        let message = result.text_content();
        assert!(message.starts_with(expected), "{text}: {message}");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[test]
fn definitions_carry_the_schema_and_strict_mode() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Search {
        /// What to look for.
        query: String,
        /// At most this many hits.
        limit: Option<u32>,
    }
    let loose = FnTool::new("search", "Searches.", |_: Search| async { "" });
    let def = loose.definition();
    assert_eq!(def.name, "search");
    assert_eq!(def.input_schema["type"], "object");
    assert_eq!(def.input_schema["required"], json!(["query"]));
    assert_eq!(
        def.input_schema["properties"]["query"]["description"],
        "What to look for."
    );
    let strict = FnTool::new("search", "Searches.", |_: Search| async { "" }).strict(true);
    let def = strict.definition();
    assert!(def.strict);
    assert_eq!(def.input_schema["required"], json!(["query", "limit"]));
    assert_eq!(def.input_schema["additionalProperties"], json!(false));
}
