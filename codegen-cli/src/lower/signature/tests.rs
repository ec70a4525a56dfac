use super::*;

fn sig(src: &str) -> Signature {
    let f: syn::ItemFn = syn::parse_str(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    f.sig
}

fn err(src: &str) -> String {
    match check_hook(&sig(src)) {
        Ok(s) => panic!("accepted as {:?}: {src}", s.kind),
        Err(e) => e.to_string(),
    }
}

#[test]
fn accepts_the_three_kinds() {
    let around = "async fn a(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {}";
    assert_eq!(classify_hook(&sig(around)).ok(), Some(HookKind::Around));
    let around = "async fn a<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> hookwire::Outcome {}";
    let checked = check_hook(&sig(around)).ok();
    assert_eq!(
        checked.and_then(|c| c.handler_param).map(|i| i.to_string()),
        Some("N".to_owned())
    );
    let pre =
        "async fn p(_cx: &mut ToolContext, args: &mut ToolArgs) -> Result<Decision, HookError> {}";
    let checked = check_hook(&sig(pre)).ok();
    assert_eq!(checked.as_ref().map(|c| c.kind), Some(HookKind::Pre));
    assert_eq!(checked.map(|c| c.fallible), Some(Fallible::Yes));
    let post = "async fn p(cx: &mut ToolContext, outcome: &mut Outcome) {}";
    assert_eq!(classify_hook(&sig(post)).ok(), Some(HookKind::Post));
    let post = "async fn p(cx: &mut ToolContext, outcome: &mut Result<ToolResult, ToolError>) -> Result<(), std::io::Error> {}";
    assert_eq!(classify_hook(&sig(post)).ok(), Some(HookKind::Post));
}

#[test]
fn first_line_says_what_is_wrong_and_what_is_expected() {
    let e = err("fn a(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {}");
    assert_eq!(
        e,
        "hook `a` must be an `async fn`: expected `async fn a(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome`"
    );
    let e = err("async fn a(cx: &ToolContext, args: ToolArgs, next: Next) -> Outcome {}");
    assert!(
        e.starts_with(
            "the first parameter of hook `a` must be `&mut ToolContext`, found `&ToolContext`"
        ),
        "{e}"
    );
    let e = err("async fn a(cx: &mut ToolContext, args: &mut ToolArgs, next: Next) -> Outcome {}");
    assert!(
        e.starts_with("around hook `a` must take `args: ToolArgs` by value"),
        "{e}"
    );
    let e = err("async fn a(cx: &mut ToolContext, args: ToolArgs) -> Outcome {}");
    assert!(
        e.starts_with("around hook `a` is missing its `next` parameter"),
        "{e}"
    );
    let e = err("async fn a(cx: &mut ToolContext, args: ToolArgs, next: u32) -> Outcome {}");
    assert!(e.contains("must be `next: Next`"), "{e}");
    let e = err("async fn a(cx: &mut ToolContext, args: ToolArgs, next: Next) -> String {}");
    assert!(
        e.starts_with("around hook `a` must return `Outcome`, found `String`"),
        "{e}"
    );
    let e = err("async fn a(cx: &mut ToolContext) {}");
    assert!(
        e.starts_with("hook `a` takes 1 parameter, but a hook takes 3"),
        "{e}"
    );
    let e = err("async fn a(cx: &mut ToolContext, args: &mut ToolArgs) -> bool {}");
    assert!(e.starts_with("pre hook `a` must return `Decision`"), "{e}");
    let e = err("async fn a(cx: &mut ToolContext, args: &mut ToolArgs) {}");
    assert!(
        e.starts_with("pre hook `a` must return a `Decision`"),
        "{e}"
    );
    let e = err("async fn a(cx: &mut ToolContext, o: &mut Outcome) -> Outcome {}");
    assert!(e.starts_with("post hook `a` must return `()`"), "{e}");
    let e = err("async fn a(cx: &mut ToolContext, o: &mut String) {}");
    assert!(
        e.starts_with("the second parameter of hook `a` must be"),
        "{e}"
    );
}

#[test]
fn a_referenced_around_hook_must_declare_its_handler() {
    let f: syn::ItemFn = syn::parse_quote! {
        pub async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
            next.run(cx, args).await
        }
    };
    let mut opts = super::super::HookOptions::new(syn::parse_quote!(::hookwire));
    opts.fn_path = Some(syn::parse_quote!(hooks::audit));
    let err = super::super::hook(&f, &opts)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.starts_with("around hook `audit` must be generic"),
        "{err}"
    );
    let f: syn::ItemFn = syn::parse_quote! {
        pub async fn audit<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
            next.run(cx, args).await
        }
    };
    assert!(super::super::hook(&f, &opts).is_ok());
    // As a macro (the body moves into the generated type), `Next` alone is fine.
    let f: syn::ItemFn = syn::parse_quote! {
        pub async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
            next.run(cx, args).await
        }
    };
    assert!(
        super::super::hook(
            &f,
            &super::super::HookOptions::new(syn::parse_quote!(::hookwire))
        )
        .is_ok()
    );
}

#[test]
fn tool_rules() {
    let ok = tool_params(
        &sig("async fn t(cx: &ToolContext, a: i64, b: Option<String>) -> String {}"),
        false,
    );
    assert_eq!(ok.map(|p| p.len()).ok(), Some(3));
    let e = tool_params(&sig("fn t(a: Option<String>) -> String {}"), true)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.starts_with("strict tool `t` cannot take the optional parameter `a: Option<String>`"),
        "{e}"
    );
    let e = tool_params(&sig("fn t<T>(a: T) -> String {}"), false)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.starts_with("tool `t` cannot be generic"), "{e}");
    let e = tool_params(&sig("fn t((a, b): (i64, i64)) -> String {}"), false)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.starts_with("a parameter of tool `t` must be a plain name"),
        "{e}"
    );
}

#[test]
fn the_handler_may_be_bound_in_where_or_be_impl_handler_but_only_by_handler() {
    let around = "async fn a<N>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome where N: Handler {}";
    assert_eq!(
        check_hook(&sig(around))
            .ok()
            .and_then(|c| c.handler_param)
            .map(|i| i.to_string()),
        Some("N".to_owned())
    );
    let around = "async fn a(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, impl Handler>) -> Outcome {}";
    assert!(check_hook(&sig(around)).is_ok_and(|c| c.handler_param.is_none()));
    let e = err(
        "async fn a<N: Handler + Clone>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {}",
    );
    assert!(
        e.starts_with("the handler of around hook `a` can only be bound by `Handler`"),
        "{e}"
    );
    let e =
        err("async fn a<N>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {}");
    assert!(
        e.starts_with("the handler of around hook `a` must be bound by `Handler`"),
        "{e}"
    );
    let e = err(
        "async fn a<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'static, N>) -> Outcome {}",
    );
    assert!(
        e.contains("its lifetime cannot be `'static`: write `Next<'_, N>`"),
        "{e}"
    );
    let e = err(
        "async fn a<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<N>) -> Outcome {}",
    );
    assert!(e.ends_with("write `Next<'_, N>`"), "{e}");
    let e =
        err("async fn p(cx: &mut ToolContext, args: &mut ToolArgs) -> Result<Decision, String> {}");
    assert!(
        e.starts_with("the error of hook `p` becomes a `HookError`"),
        "{e}"
    );
}

#[test]
fn tools_may_be_const_but_not_return_impl_trait_nor_hide_or_reserve_parameters() {
    assert!(check_tool(&sig("const fn t(x: i64) -> i64 {}"), false).is_ok());
    let e = |src: &str| {
        check_tool(&sig(src), false)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(e("fn t() -> impl Display {}").starts_with("tool `t` cannot return `impl Trait`"));
    assert!(
        e("fn t(#[cfg(x)] a: i64) -> i64 {}")
            .starts_with("a parameter of tool `t` cannot be behind `#[cfg(..)]`")
    );
    assert!(
        e("fn t(__hookwire_cx: i64) -> i64 {}")
            .starts_with("parameter `__hookwire_cx` of tool `t` starts with `__hookwire`")
    );
    let f: syn::ItemFn = syn::parse_quote!(
        #[tokio::test]
        async fn t() -> i64 {
            1
        }
    );
    let e = check_fn_attrs(&f.attrs, "t", "tool")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.starts_with("tool `t` cannot be `#[tokio::test]`"), "{e}");
}

/// `#[default(..)]`: on an argument only, once, with one value, never in a
/// strict tool; each mistake is one error saying so.
#[test]
fn default_rules() {
    let err = |text: &str, strict: bool| {
        tool_params(&sig(text), strict)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let ok = tool_params(&sig("fn t(#[default(1 + 2)] a: i64) -> String {}"), false);
    assert!(
        matches!(
            ok.as_deref(),
            Ok([ToolParam::Arg {
                default: Some(_),
                ..
            }])
        ),
        "{ok:?}"
    );
    let cases = [
        (
            "fn t(#[default(Deps::new())] d: Dep<Deps>) -> String {}",
            false,
            "parameter `d` of tool `t` is a dependency, not an argument the model sends, so it cannot have a default",
        ),
        (
            "fn t(#[default(x)] cx: &ToolContext) -> String {}",
            false,
            "the context parameter of tool `t` is not an argument the model sends",
        ),
        (
            "fn t(#[default(1)] #[default(2)] a: i64) -> String {}",
            false,
            "parameter `a` of tool `t` has two defaults",
        ),
        (
            "fn t(#[default(1)] a: i64) -> String {}",
            true,
            "strict tool `t` cannot give parameter `a` a default",
        ),
        (
            "fn t(#[default = 1] a: i64) -> String {}",
            false,
            "the default of parameter `a` of tool `t` is written `#[default(value)]`",
        ),
        (
            "fn t(#[default()] a: i64) -> String {}",
            false,
            "the default of parameter `a` of tool `t` is missing its value",
        ),
        (
            "fn t(#[default(1, 2)] a: i64) -> String {}",
            false,
            "the default of parameter `a` of tool `t` must be one Rust expression",
        ),
    ];
    for (text, strict, expected) in cases {
        let e = err(text, strict);
        assert!(e.starts_with(expected), "{text}: {e}");
    }
}
