//! Panics in hooks, tools and argument parsing: caught at the root of each
//! call, attributed to the innermost hook or tool they unwound through, and
//! handled by the failure policy.

use super::*;

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
    let result = hookwire::call::into_result(catch_panics(&chain, &mut cx(), args(1)).await);
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
    type Args = hookwire::call::NoArgs;
    fn name(&self) -> &str {
        self.0
    }
    fn description(&self) -> &str {
        "A leaf."
    }
    async fn call(&self, _: &ToolContext, _: hookwire::call::NoArgs) -> Outcome {
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
    type Args = hookwire::call::NoArgs;
    fn name(&self) -> &str {
        "child"
    }
    fn description(&self) -> &str {
        "Runs the child's tool."
    }
    async fn call(&self, _: &ToolContext, _: hookwire::call::NoArgs) -> Outcome {
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
