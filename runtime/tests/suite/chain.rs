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
    Attempts, CallScope, CatchPanics, Decision, FailurePolicy, FnTool, Guarded, Handler, Hook,
    HookError, Json, Next, Outcome, Post, PostHook, Pre, PreHook, Router, Tool, ToolArgs, ToolCall,
    ToolContext, ToolError, ToolHandler, ToolResult, ToolSet, ToolSource, catch_panics, chain,
};
use serde_json::json;

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

struct Panics {
    before_next: bool,
}

impl Hook for Panics {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        if self.before_next {
            panic!("hook bug before next");
        }
        let outcome = next.run(cx, args).await;
        if !self.before_next {
            panic!("hook bug after next");
        }
        outcome
    }

    fn name(&self) -> &'static str {
        "panics"
    }
}

#[tokio::test]
async fn a_panicking_hook_fails_closed_by_default() {
    let log = log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    // Plain layer: fail closed. The root of the call catches the panic and
    // names the hook; the hook outside it does not see an `Err` from `next`
    // (its "after" never runs), the call just ends.
    let chain = chain!(
        Around("outer", log.clone()),
        Panics { before_next: true }
        => ToolHandler(tool.clone())
    );
    let err = catch_panics(&chain, &mut cx(), args(1)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "hook `panics` failed: panicked: hook bug before next"
    );
    assert_eq!(err.hook(), Some("panics"));
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert_eq!(entries(&log), ["outer:before"]);

    // A plain layer that panics after `next`: the tool ran, the model reads
    // an error, and the outer hook's "after" does not run either.
    let log = self::log();
    let tool = AddOne::new(&log);
    let chain = chain!(
        Around("outer", log.clone()),
        Panics { before_next: false }
        => ToolHandler(tool.clone())
    );
    let result = hookwire::into_result(catch_panics(&chain, &mut cx(), args(1)).await);
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "hook `panics` failed: panicked: hook bug after next"
    );
    assert_eq!(entries(&log), ["outer:before", "execute x=1"]);

    // Explicit fail_closed (`Guarded`): the hook catches its own panic, so
    // the outer hook sees it as an `Err` from `next` and goes on.
    let log = self::log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    let chain = chain!(
        Around("outer", log.clone()),
        Guarded::new(Panics { before_next: false }, FailurePolicy::FailClosed, None)
        => ToolHandler(tool)
    );
    let err = catch_panics(&chain, &mut cx(), args(1)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "hook `panics` failed: panicked: hook bug after next"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(
        entries(&log),
        ["outer:before", "execute x=1", "outer:after"]
    );
}

#[tokio::test]
async fn every_tool_set_is_the_root_of_its_calls() {
    // A panicking hook inside a `Router`: the process goes on and the model
    // reads an error result naming the hook.
    let log = log();
    let tools = Router::new().route(
        AddOne::new(&log).definition(),
        ToolSource::Function,
        chain!(Panics { before_next: true } => ToolHandler(AddOne::new(&log))),
    );
    let result = tools
        .call(
            &CallScope::new("a"),
            ToolCall::new("c1", "add_one", args(1)),
        )
        .await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "hook `panics` failed: panicked: hook bug before next"
    );
    // `CatchPanics` is the same root as a handler.
    let root = CatchPanics(chain!(Panics { before_next: true } => ToolHandler(AddOne::new(&log))));
    let err = root.call(&mut cx(), args(1)).await.unwrap_err();
    assert_eq!(err.hook(), Some("panics"));
}

#[tokio::test]
async fn a_panicking_hook_under_fail_open_is_skipped_and_the_tool_runs_once() {
    for before_next in [true, false] {
        let log = log();
        let tool = AddOne::new(&log);
        let calls = tool.calls.clone();
        let chain = chain!(
            Guarded::new(Panics { before_next }, FailurePolicy::FailOpen, None)
            => ToolHandler(tool)
        );
        let result = chain.call(&mut cx(), args(41)).await.unwrap();
        assert_eq!(result.text_content(), "42", "before_next={before_next}");
        assert_eq!(calls.load(Ordering::SeqCst), 1, "before_next={before_next}");
    }
}

#[tokio::test]
async fn a_fail_open_hook_does_not_swallow_a_panic_further_in() {
    // The panic is the inner hook's, not the fail-open hook's: the call ends
    // with an error naming the inner hook, and the tool runs once at most.
    let log = log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    let chain = chain!(
        Guarded::new(Around("guarded", log.clone()), FailurePolicy::FailOpen, None),
        Panics { before_next: false }
        => ToolHandler(tool)
    );
    let err = catch_panics(&chain, &mut cx(), args(1)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "hook `panics` failed: panicked: hook bug after next"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(entries(&log), ["guarded:before", "execute x=1"]);
}

#[tokio::test]
async fn a_failing_pre_hook_follows_its_policy() {
    struct Broken;
    impl PreHook for Broken {
        async fn before(
            &self,
            _: &mut ToolContext,
            _: &mut ToolArgs,
        ) -> Result<Decision, HookError> {
            Err(HookError::msg("policy service unreachable"))
        }
        fn name(&self) -> &'static str {
            "broken"
        }
    }
    let log = log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    let closed = chain!(Pre(Broken) => ToolHandler(tool.clone()));
    let err = closed.call(&mut cx(), args(1)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "hook `broken` failed: policy service unreachable"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);

    let open =
        chain!(Guarded::new(Pre(Broken), FailurePolicy::FailOpen, None) => ToolHandler(tool));
    assert_eq!(
        open.call(&mut cx(), args(1)).await.unwrap().text_content(),
        "2"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_panicking_tool_becomes_a_tool_failed_result() {
    let log = log();
    let tool = FnTool::new("boom", "Panics.", |_: XArgs| async {
        if true {
            panic!("index out of bounds");
        }
        "unreachable"
    });
    // Hooks around the tool are not blamed, and do not see an `Err`.
    let chain = chain!(Around("outer", log.clone()) => ToolHandler(tool));
    let err = catch_panics(&chain, &mut cx(), args(1)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `boom` failed: panicked: index out of bounds"
    );
    assert_eq!(err.hook(), None);
    assert_eq!(entries(&log), ["outer:before"]);
}

/// Arguments whose `Deserialize` panics.
struct PanickyArgs;

impl<'de> serde::Deserialize<'de> for PanickyArgs {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        panic!("bad Deserialize impl")
    }
}

impl schemars::JsonSchema for PanickyArgs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PanickyArgs".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object"})
    }
}

#[tokio::test]
async fn a_panic_while_parsing_arguments_is_the_tools() {
    let log = log();
    let tool = FnTool::new("picky", "Parses badly.", |_: PanickyArgs| async {
        "unreachable"
    });
    let chain = chain!(Around("outer", log.clone()) => ToolHandler(tool));
    let err = catch_panics(&chain, &mut cx(), args(1)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `picky` failed: panicked: bad Deserialize impl"
    );
}

#[tokio::test]
async fn a_panic_while_parsing_arguments_of_a_tool_without_hooks_is_caught() {
    // No hook around the tool: its arguments are parsed as the call starts,
    // and that too is inside the root's catch.
    let tool = || {
        FnTool::new("picky", "Parses badly.", |_: PanickyArgs| async {
            "unreachable"
        })
    };
    let err = catch_panics(&ToolHandler(tool()), &mut cx(), args(1))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `picky` failed: panicked: bad Deserialize impl"
    );

    // The same through a tool set, as the model's call arrives.
    let tools = Router::new().tool(tool());
    let call = ToolCall::new("c1", "picky", ToolArgs::from_json(r#"{"x":1}"#));
    let result = tools.call(&CallScope::new("a"), call).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "tool `picky` failed: panicked: bad Deserialize impl"
    );
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

/// An around hook that logs, and panics before or after `next` where the
/// shared plan says so.
struct Spot(&'static str, Log, PanicPlan);

impl Hook for Spot {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        logged(self.0, &self.1, Some(&self.2), cx, args, next).await
    }

    fn name(&self) -> &'static str {
        self.0
    }
}

/// A tool that logs and panics if the setting names it.
struct Leaf(&'static str, Log, PanicPlan);

impl Tool for Leaf {
    type Args = hookwire::NoArgs;
    fn name(&self) -> &str {
        self.0
    }
    fn description(&self) -> &str {
        "A leaf."
    }
    async fn call(&self, _: &ToolContext, _: hookwire::NoArgs) -> Outcome {
        if self.2.lock().unwrap().contains(&PanicAt::Tool(self.0)) {
            panic!("{} broke", self.0);
        }
        self.1.lock().unwrap().push(self.0.to_owned());
        Ok(ToolResult::text(self.0))
    }
}

/// A tool that runs a whole child tool set (as an agent used as a tool
/// runs its own tool calls): a root inside the parent's chain.
struct Child<T>(T);

impl<T: ToolSet> Tool for Child<T> {
    type Args = hookwire::NoArgs;
    fn name(&self) -> &str {
        "child"
    }
    fn description(&self) -> &str {
        "Runs the child's tool."
    }
    async fn call(&self, _: &ToolContext, _: hookwire::NoArgs) -> Outcome {
        let call = ToolCall::new("inner-1", "leaf", ToolArgs::empty());
        self.0.dispatch(&CallScope::new("child"), call).await
    }
}

#[tokio::test]
async fn a_panic_is_attributed_to_the_innermost_hook_or_tool_it_unwound_through() {
    let log = log();
    let at: PanicPlan = Arc::default();
    let spot = |name| Spot(name, log.clone(), at.clone());
    // The child agent: three hooks around its tool, behind its own root.
    let child = Router::new().route(
        Leaf("leaf", log.clone(), at.clone()).definition(),
        ToolSource::Function,
        chain!(spot("c_outer"), spot("c_middle"), spot("c_inner") => ToolHandler(Leaf("leaf", log.clone(), at.clone()))),
    );
    // The parent: three hooks around the child, behind the parent's root.
    let parent = Router::new().route(
        hookwire::ToolDefinition {
            name: "child".into(),
            description: "Runs the child's tool.".into(),
            input_schema: json!({"type": "object"}),
            strict: false,
        },
        ToolSource::Agent,
        chain!(spot("p_outer"), spot("p_middle"), spot("p_inner") => ToolHandler(Child(child))),
    );
    let run = |setting: &[PanicAt]| {
        *at.lock().unwrap() = setting.to_vec();
        log.lock().unwrap().clear();
        let parent = &parent;
        async move {
            let call = ToolCall::new("outer-1", "child", ToolArgs::empty());
            parent.call(&CallScope::new("parent"), call).await
        }
    };

    let result = run(&[]).await;
    assert_eq!(result.text_content(), "leaf");
    assert!(!result.is_error);

    // A panic in the parent's own hooks, at each position.
    for (hook, at_after) in [("p_outer", false), ("p_middle", true), ("p_inner", false)] {
        let setting = if at_after {
            PanicAt::After(hook)
        } else {
            PanicAt::Before(hook)
        };
        let result = run(&[setting]).await;
        assert!(result.is_error, "{hook}");
        let when = if at_after { "after" } else { "before" };
        assert_eq!(
            result.text_content(),
            format!("hook `{hook}` failed: panicked: {hook} {when}")
        );
    }
    // p_middle panicked after the whole child ran, so no outer "after".
    let result = run(&[PanicAt::After("p_middle")]).await;
    assert!(result.is_error);
    assert_eq!(
        entries(&log),
        [
            "p_outer:before",
            "p_middle:before",
            "p_inner:before",
            "c_outer:before",
            "c_middle:before",
            "c_inner:before",
            "leaf",
            "c_inner:after",
            "c_middle:after",
            "c_outer:after",
            "p_inner:after",
        ]
    );

    // A panic in the child's hooks or tool ends the *child's* call at the
    // child's root; the parent's hooks see an ordinary error result from
    // their tool and run to the end.
    for (setting, text) in [
        (
            PanicAt::Before("c_outer"),
            "hook `c_outer` failed: panicked: c_outer before",
        ),
        (
            PanicAt::After("c_middle"),
            "hook `c_middle` failed: panicked: c_middle after",
        ),
        (
            PanicAt::Before("c_inner"),
            "hook `c_inner` failed: panicked: c_inner before",
        ),
        (
            PanicAt::Tool("leaf"),
            "tool `leaf` failed: panicked: leaf broke",
        ),
    ] {
        let result = run(&[setting]).await;
        assert!(result.is_error, "{text}");
        assert_eq!(result.text_content(), text);
        let log = entries(&log);
        assert_eq!(
            log.last().map(String::as_str),
            Some("p_outer:after"),
            "{log:?}"
        );
    }

    // A panic the child's root caught leaves nothing behind: a later panic
    // in the parent's hook is still attributed to that hook.
    let result = run(&[PanicAt::Tool("leaf"), PanicAt::After("p_inner")]).await;
    assert_eq!(
        result.text_content(),
        "hook `p_inner` failed: panicked: p_inner after"
    );
    let result = run(&[PanicAt::Before("c_inner"), PanicAt::After("p_outer")]).await;
    assert_eq!(
        result.text_content(),
        "hook `p_outer` failed: panicked: p_outer after"
    );
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

#[tokio::test]
async fn the_extension_map_travels_from_outer_hooks_to_the_tool_and_back() {
    #[derive(Debug, PartialEq)]
    struct Trail(Vec<&'static str>);

    struct Outer(Arc<Mutex<Option<Vec<&'static str>>>>);
    impl Hook for Outer {
        async fn around<N: Handler>(
            &self,
            cx: &mut ToolContext,
            args: ToolArgs,
            next: Next<'_, N>,
        ) -> Outcome {
            cx.extensions_mut().insert(Trail(vec!["outer"]));
            let outcome = next.run(cx, args).await;
            let trail = cx.extensions_mut().remove::<Trail>().map(|t| t.0);
            *self.0.lock().unwrap() = trail;
            outcome
        }
    }
    struct Inner;
    impl Hook for Inner {
        async fn around<N: Handler>(
            &self,
            cx: &mut ToolContext,
            args: ToolArgs,
            next: Next<'_, N>,
        ) -> Outcome {
            if let Some(trail) = cx.extensions_mut().get_mut::<Trail>() {
                trail.0.push("inner:before");
            }
            let outcome = next.run(cx, args).await;
            if let Some(trail) = cx.extensions_mut().get_mut::<Trail>() {
                trail.0.push("inner:after");
            }
            outcome
        }
    }
    struct Reader;
    impl Tool for Reader {
        type Args = hookwire::NoArgs;
        fn name(&self) -> &str {
            "reader"
        }
        fn description(&self) -> &str {
            "Reads the trail."
        }
        async fn call(&self, cx: &ToolContext, _: hookwire::NoArgs) -> Outcome {
            Json(cx.extensions().get::<Trail>().map(|t| t.0.clone())).into_outcome_for("reader")
        }
    }
    trait Shim {
        fn into_outcome_for(self, tool: &str) -> Outcome;
    }
    impl<T: hookwire::IntoOutcome> Shim for T {
        fn into_outcome_for(self, tool: &str) -> Outcome {
            self.into_outcome(tool)
        }
    }

    let seen = Arc::new(Mutex::new(None));
    let chain = chain!(Outer(seen.clone()), Inner => ToolHandler(Reader));
    let result = chain.call(&mut cx(), ToolArgs::empty()).await.unwrap();
    assert_eq!(result.text_content(), r#"["outer","inner:before"]"#);
    assert_eq!(
        *seen.lock().unwrap(),
        Some(vec!["outer", "inner:before", "inner:after"])
    );
}

#[tokio::test]
async fn the_context_carries_the_call_identity() {
    struct Identity(Arc<Mutex<String>>);
    impl Hook for Identity {
        async fn around<N: Handler>(
            &self,
            cx: &mut ToolContext,
            args: ToolArgs,
            next: Next<'_, N>,
        ) -> Outcome {
            *self.0.lock().unwrap() = format!(
                "{}|{:?}|{}|{}|{}|{}",
                cx.agent(),
                cx.server(),
                cx.tool(),
                cx.source(),
                cx.tool_use_id(),
                cx.correlation_id()
            );
            next.run(cx, args).await
        }
    }
    let seen = Arc::new(Mutex::new(String::new()));
    let log = log();
    let tool = AddOne::new(&log);
    let tools = Router::new().route(
        tool.definition(),
        ToolSource::Function,
        chain!(Identity(seen.clone()) => ToolHandler(tool)),
    );
    let scope = CallScope::new("PMO").with_correlation_id("run-7");
    tools
        .call(&scope, ToolCall::new("toolu_1", "add_one", args(1)))
        .await;
    assert_eq!(
        *seen.lock().unwrap(),
        "PMO|None|add_one|function|toolu_1|run-7"
    );
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
