//! Proc macros for [hookwire](https://docs.rs/hookwire): `#[tool]`,
//! `#[hook]` and `#[agent(...)]`.
//!
//! Use them through `hookwire` (`#[hookwire::tool]`), which re-exports them;
//! the generated code names hookwire through its own path, resolved once
//! (a renamed dependency works).
//!
//! This crate is thin: it parses the attribute with darling and calls the
//! lowering shared with `cardgen` (`hookwire_codegen::lower` and
//! `hookwire_codegen::emit`), so the macros and AgentCards generate the same
//! code and accept the same signatures. Every mistake is a compile error on
//! the offending token.

use proc_macro::TokenStream;

/// The settings (the rows of `hookwire_spec::for_each_setting!`) as a
/// list for `#[agent]`'s docs: each key with its example and doc.
macro_rules! setting_docs {
    ($( [$key:ident, $kind:ident $(<$param:ty>)?, $doc:literal, $example:literal,
        $field:ident, ($($default:expr)?), $builder:ident, $builder_doc:literal] )*) => {
        concat!(
            "Settings (the same as a card's; numbers are positive integers):\n\n",
            $("* `", stringify!($key), " = ", stringify!($example), "`: ", $doc, "\n",)*
        )
    };
}

mod agent;
mod args;
mod from_deps;
mod keys;
mod krate;
mod tool_hook;

/// Turns a function (sync or async) into a tool: a zero-sized type of the
/// same name that implements `hookwire::Tool`.
///
/// * The name is the function's name (`name = "..."` overrides it); the
///   description is the doc comment (`description = "..."` overrides it).
/// * Each parameter becomes a field of the argument object, with its doc
///   comment as description; `Option<T>` parameters are optional. Parameter
///   types must be `Deserialize + JsonSchema` (hookwire re-exports both
///   crates, so no extra dependency is needed). A `&ToolContext` parameter
///   receives the call's context instead.
/// * `strict` makes the schema strict, and an `Option` parameter a compile
///   error.
/// * `tool_hooks = [A, B(on_failure = "open", timeout_ms = 500)]`: the tool's
///   own hooks, named as on `#[agent]` and in cards (guardrails: a pre hook that denies is an input guardrail, a
///   post hook that rewrites or blocks the result an output guardrail). They
///   travel with the tool: every agent that lists it runs them innermost,
///   after its own hooks (`agent hooks -> entry hooks -> the tool's own
///   hooks -> the tool`).
/// * `needs_approval` asks the approver before every call;
///   `needs_approval = path` only when `path(&args) -> bool` says so, with
///   the typed arguments (`fn(&hookwire::declare::ArgsOf<tool>) -> bool`). Arguments
///   that do not parse always need approval (fail closed).
/// * `on_error = path`: a `fn(ToolError) -> R` with `R: IntoOutcome` that
///   maps the tool's errors (its own, bad arguments, a panic) to what the
///   model reads. It runs inside the tool's hooks, so an output guardrail
///   sees what it made.
///
/// With `hooks`, `needs_approval` or `on_error`, the generated type
/// implements `hookwire::declare::ToolDecl` (the tool and its own chain) instead of
/// `hookwire::Tool`; use `ToolDecl::into_handler` to put it in a
/// hand-built chain.
/// * The return type implements `IntoOutcome`: `String`, `ToolResult`,
///   `Json<T: Serialize>`, or a `Result` of one of these with a `Display`
///   error (which becomes an error result).
///
/// The original body stays callable as `name::run(..)`. The tool as a
/// value is `name {}` (for example `Router::new().tool(name {})`).
///
/// ```ignore
/// /// Adds two numbers.
/// #[hookwire::tool]
/// async fn add(
///     /// The first number.
///     a: i64,
///     /// The second number.
///     b: Option<i64>,
/// ) -> hookwire::Json<i64> {
///     hookwire::Json(a + b.unwrap_or(0))
/// }
/// ```
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool_hook::tool(attr.into(), item.into()).into()
}

/// Turns an `async fn` into a hook: a zero-sized struct of the same name
/// that implements `hookwire::Hook`, so `tool_hooks = [name]` and
/// `hookwire::chain!(name {}, .. => tool)` accept it.
///
/// The struct has braces (`name {}`, also `name::default()`), so it lives
/// only among the module's types: a `let name = ..` or a parameter called
/// `name` in the same module stays an ordinary binding. (A unit struct would
/// turn every such binding into a pattern that matches the struct.) The
/// same holds for `#[tool]`.
///
/// Its kind comes from its signature:
///
/// * around: `async fn f(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome`
/// * pre: `async fn f(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision`
///   (or `Result<Decision, E>`)
/// * post: `async fn f(cx: &mut ToolContext, outcome: &mut Outcome)` (or
///   `-> Result<(), E>`)
///
/// Options: `match = "pattern"` (the hook skips other tools), `on_failure =
/// "open" | "closed"` (default closed), `timeout_ms = N`, `name = "..."`.
///
/// ```ignore
/// #[hookwire::hook(match = "write_*", on_failure = "closed")]
/// async fn no_rm(_cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
///     Decision::Continue
/// }
/// ```
#[proc_macro_attribute]
pub fn hook(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool_hook::hook(attr.into(), item.into()).into()
}

/// Declares an agent on a unit struct: the same keys as an AgentCard.
/// Generates the agent's statically dispatched tool set (every tool behind
/// its chain of hooks) and its `hookwire::agent::Agent` impl, through the
/// emitter `cardgen` uses, and gives the struct its fields: an agent is a
/// value that owns its tool set. Build it with `Name::new()` (it is
/// `Default` too), or `Name::new(&deps)` with `deps = T`; share it (an
/// `Arc`) between sessions. The struct cannot derive `Copy`, `Clone` or
/// `Default`.
///
/// Keys: `name` (default: the struct's name), `instruction`, `description`,
/// `default`, `servers = ["..."]`, `runtime_tools` (tools registered at run
/// time, see `hookwire::agent::WithTools`), `tools(server = ["glob", ..])` (MCP
/// filters), `function_tools = [..]`, `agents = [..]`, `tool_hooks = [..]`,
/// `hooks = [..]`, the settings below, `tool_input_schema`,
/// `deps = Type` (what the tools, hooks and child agents are built from:
/// a tool's `Dep<T>` parameter needs `T: hookwire::deps::FromRef<Type>`),
/// `crate`, `durable_name = "Pmo"` (the prefix of its Restate service names
/// when served durably, `PmoSession` and `PmoApproval`: an ASCII letter,
/// then letters, digits, `_`, `.`, `-`, at most 64; by default the name in
/// UpperCamelCase). `max_parallel`, `child_timeout_sec`, `history_source` and
/// `history_merge_target` govern this agent's calls of its child agents.
///
#[doc = hookwire_codegen::spec::for_each_setting!(setting_docs)]
///
/// List entries are paths, optionally with options:
/// * `function_tools = [add, greet(name = "hello", tool_hooks = [audit])]`: the
///   tool's name defaults to the last path segment; a tool declared with
///   `#[tool(name = "...")]` must be listed with the same `name`.
/// * `tool_hooks = [audit, guard(match = "write_*", on_failure = "open",
///   timeout_ms = 500)]`: agent-level hooks, outermost first; a `match`
///   here is resolved at compile time (a non-matching hook is not in the
///   chain at all).
/// * `agents = [Child(name = "child")]`: the child's tool is
///   `agent__<name>`; the name defaults to the last path segment and must
///   be the child's declared name (checked at compile time: a mismatch is
///   an error on the child's path that says what to write).
/// * `hooks = [on_request_start(tool_name = "get_time", arguments = "{}",
///   frequency = "append_if_changed", ttl_minutes = 5)]`.
///
/// ```ignore
/// #[hookwire::agent(
///     name = "calc",
///     instruction = "Do sums.",
///     function_tools = [add],
///     tool_hooks = [audit, no_rm(match = "write_*")],
///     max_parallel = 4,
/// )]
/// struct Calc;
/// ```
#[proc_macro_attribute]
pub fn agent(attr: TokenStream, item: TokenStream) -> TokenStream {
    agent::agent(attr.into(), item.into()).into()
}

/// The identifier as text, without a raw `r#` prefix.
pub(crate) fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// Builds a hand-written tool or hook type from an agent's dependencies:
/// implements `hookwire::FromDeps<D>` for every `D` that provides each
/// field (`FieldType: hookwire::deps::FromRef<D>`). A unit struct is built from
/// any dependencies.
///
/// ```ignore
/// #[derive(hookwire::FromDeps)]
/// struct RateLimit {
///     store: std::sync::Arc<Store>, // taken from the agent's deps
/// }
/// ```
#[proc_macro_derive(FromDeps)]
pub fn derive_from_deps(item: TokenStream) -> TokenStream {
    from_deps::derive(item.into()).into()
}

/// Makes a struct or enum a type tools can take as a parameter: derives
/// `Deserialize` and `JsonSchema` through hookwire's own re-exports of serde
/// and schemars, so the crate needs neither as a dependency. Field doc
/// comments become descriptions in the JSON Schema the model reads; serde's
/// and schemars' field attributes work as usual.
///
/// ```ignore
/// /// A point on the map.
/// #[hookwire::args]
/// struct Point {
///     /// Metres east.
///     x: f64,
///     /// Metres north.
///     y: f64,
/// }
///
/// /// Plots a point.
/// #[hookwire::tool]
/// fn plot(point: Point) -> String {
///     format!("{} {}", point.x, point.y)
/// }
/// ```
#[proc_macro_attribute]
pub fn args(attr: TokenStream, item: TokenStream) -> TokenStream {
    args::args(attr.into(), item.into()).into()
}
