//! A user crate with strict lints: the generated code adds no warning and
//! needs no dependency besides `hookwire`.
#![deny(missing_docs, unsafe_code, warnings, rust_2018_idioms, unreachable_pub)]

use hookwire::agent::Agent;
use hookwire::{Decision, Json, Next, Outcome, ToolArgs, ToolContext, ToolSet};

/// Adds two numbers.
#[hookwire::tool]
pub async fn add(
    /// The first number.
    a: i64,
    /// The second number.
    b: Option<i64>,
) -> Json<i64> {
    Json(a + b.unwrap_or(0))
}

/// Says hello.
#[hookwire::tool(strict, name = "hello", description = "Greets someone by name.")]
pub fn greet(name: String) -> String {
    format!("hello {name}")
}

/// Passes every call on.
#[hookwire::hook]
pub async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    next.run(cx, args).await
}

/// Lets every call through.
#[hookwire::hook(match = "add|hello", on_failure = "open", timeout_ms = 500)]
pub async fn gate(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Decision {
    Decision::Continue
}

/// Leaves the outcome alone.
#[hookwire::hook]
pub async fn keep(_cx: &mut ToolContext, _outcome: &mut Outcome) {}

/// Deletes a file, behind its own hooks, an approval rule and an error
/// mapping.
#[hookwire::tool(tool_hooks = [gate, keep(on_failure = "open", timeout_ms = 50)], needs_approval = risky, on_error = explain)]
pub fn delete(path: String) -> Result<String, String> {
    Ok(path)
}

/// Whether a deletion needs approval.
pub fn risky(args: &hookwire::declare::ArgsOf<delete>) -> bool {
    args.path.starts_with('/')
}

/// What the model reads when a deletion fails.
pub fn explain(error: hookwire::ToolError) -> String {
    error.to_string()
}

/// Formats everything; always asks first.
#[hookwire::tool(needs_approval)]
pub fn format_all() -> String {
    String::new()
}

/// A child agent.
#[hookwire::agent(name = "helper")]
pub struct Helper;

/// Watches the run, and nothing more.
#[derive(Default)]
pub struct Watch;

impl hookwire::agent::lifecycle::LifecycleHooks for Watch {}

/// The calculator.
#[hookwire::agent(
    name = "calc",
    instruction = "Add numbers.",
    function_tools = [add(tool_hooks = [keep]), greet(name = "hello"), delete, format_all],
    agents = [Helper(name = "helper")],
    tool_hooks = [audit, gate(match = "add", on_failure = "closed", timeout_ms = 100)],
    hooks = [Watch(match = "add")],
    max_parallel = 2,
)]
pub struct Calc;

/// What the shop's tools need.
#[derive(Clone)]
pub struct ShopDeps {
    /// The currency prices are in.
    pub currency: String,
}

/// Prices an item.
#[hookwire::tool]
pub fn price(currency: hookwire::Dep<ShopDeps>, item: String) -> String {
    format!("{item}: 3 {}", currency.currency)
}

/// A shop built from its dependencies, with a child that takes none.
#[hookwire::agent(name = "shop", deps = ShopDeps, function_tools = [price], agents = [Helper(name = "helper")])]
pub struct Shop;

fn main() {
    let names: Vec<String> = Calc::new().tools().definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["add", "hello", "delete", "format_all", "agent__helper"]);
    let shop = Shop::new(&ShopDeps { currency: "EUR".into() });
    assert_eq!(shop.tools().definitions().len(), 2);
    let _clock = Clock::new();
}

/// Asks for UTC: a typed hook over a locked MCP tool's generated arguments.
#[hookwire::hook]
pub async fn in_utc(
    _cx: &mut ToolContext,
    args: &mut clock_mcp::TimeGetCurrentTime,
) -> Decision {
    args.timezone = "UTC".to_owned();
    Decision::Continue
}

/// Tells the time: its MCP tools pinned by a lock, their argument types
/// generated beside it (`clock_mcp`).
#[hookwire::agent(
    name = "clock",
    servers = ["time"],
    mcp_lock = "../../../../codegen-cli/tests/cards/locked/hookwire.lock",
    tool_hooks = [in_utc(match = "time__get_current_time")],
)]
pub struct Clock;
