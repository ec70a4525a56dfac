//! A JSON object with a duplicate key is ambiguous (which `x` did the
//! model mean?), and two readers may pick different ones: a guard hook
//! that reads the arguments must never see another `x` than the tool. So
//! a duplicate key is an error result naming the key, whichever path the
//! arguments take: parsed straight into the tool's type, or read and
//! rewritten as an object by a hook first.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hookwire::{
    Decision, FnTool, HookError, Pre, PreHook, ToolArgs, ToolContext, ToolHandler, ToolSource,
    chain, hooks::catch_panics,
};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    x: i64,
}

fn tool() -> ToolHandler<impl hookwire::Tool> {
    ToolHandler(FnTool::new("inc", "Adds one.", |a: Args| async move {
        hookwire::Json(a.x + 1)
    }))
}

/// A guard that reads `x` (so the arguments are parsed as an object).
struct Guard;

impl PreHook for Guard {
    async fn before(
        &self,
        _: &mut ToolContext,
        args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        match args.get("x").and_then(|v| v.as_i64()) {
            Some(x) if x > 10 => Ok(Decision::Deny("too large".into())),
            _ => Ok(Decision::Continue),
        }
    }
}

/// A hook that rewrites the arguments as an object.
struct Rewrite;

impl PreHook for Rewrite {
    async fn before(
        &self,
        _: &mut ToolContext,
        args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        args.insert("seen", true.into())?;
        Ok(Decision::Continue)
    }
}

async fn call(handler: &impl hookwire::Handler, text: &str) -> String {
    let mut cx = ToolContext::new("inc", ToolSource::Function, "c1");
    match catch_panics(handler, &mut cx, ToolArgs::from_json(text)).await {
        Ok(r) => format!("ok: {}", r.text_content()),
        Err(e) => format!("error: {e}"),
    }
}

const DUPLICATE: &str = r#"{"x": 50, "x": 1}"#;

#[tokio::test]
async fn a_duplicate_key_is_an_error_naming_it_when_no_hook_reads_the_arguments() {
    let out = call(&tool(), DUPLICATE).await;
    assert!(out.starts_with("error: "), "{out}");
    assert!(out.contains("duplicate field `x`"), "{out}");
}

#[tokio::test]
async fn a_duplicate_key_is_an_error_naming_it_when_a_hook_reads_the_arguments() {
    // Last-wins would let `x: 1` past the guard while it checked `x: 1`
    // and the tool ran; first-wins would make the two disagree. Neither:
    // the tool is not run.
    let out = call(&chain!(Pre(Guard) => tool()), DUPLICATE).await;
    assert!(out.starts_with("error: "), "{out}");
    assert!(out.contains("duplicate field `x`"), "{out}");
}

#[tokio::test]
async fn a_duplicate_key_is_an_error_naming_it_when_a_hook_rewrites_the_arguments() {
    let out = call(&chain!(Pre(Rewrite) => tool()), DUPLICATE).await;
    assert!(out.starts_with("error: "), "{out}");
    assert!(out.contains("duplicate key `x`"), "{out}");
    // Nested ones too, with where they are.
    let mut args = ToolArgs::from_json(r#"{"x": 1, "o": {"k": [{"a": 1, "a": 2}]}}"#);
    let e = args.object().unwrap_err().to_string();
    assert!(e.contains("duplicate key `o.k[0].a`"), "{e}");
    assert!(args.to_value().is_err());
}

#[tokio::test]
async fn distinct_keys_still_pass_every_path() {
    assert_eq!(call(&tool(), r#"{"x": 1}"#).await, "ok: 2");
    assert_eq!(
        call(&chain!(Pre(Guard) => tool()), r#"{"x": 1}"#).await,
        "ok: 2"
    );
    assert_eq!(
        call(&chain!(Pre(Rewrite) => tool()), r#"{"x": 1}"#).await,
        "ok: 2"
    );
}
