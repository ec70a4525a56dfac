//! Function tools of the shop card, each given a part of the shop's
//! dependencies (`deps.rs`, which this file reaches as `super::deps_rs`).

use super::deps_rs::Inventory;
use hookwire::Dep;

/// How many of `item` are in stock.
pub fn stock(inventory: Dep<Inventory>, item: String) -> String {
    let Dep(Inventory(stock)) = inventory;
    match stock.get(&item) {
        Some(n) => format!("{n} {item} in stock"),
        None => format!("no {item} in stock"),
    }
}

/// The shop's name and how many kinds of items it sells.
pub fn about(deps: Dep<super::deps_rs::ShopDeps>) -> String {
    format!("{}: {} kinds", deps.name, deps.inventory.0.len())
}

/// One line of an order: a struct parameter this file declares (the
/// generated adapter names it from its own module).
#[hookwire::args]
pub struct Line {
    /// The item.
    pub item: String,
    /// How many.
    pub count: u32,
}

/// Orders the lines; says what is missing.
pub fn order(inventory: Dep<Inventory>, lines: Vec<Line>) -> String {
    let Dep(Inventory(stock)) = inventory;
    lines
        .iter()
        .map(|l| match stock.get(&l.item) {
            Some(n) if *n >= l.count => format!("{} {}: ok", l.count, l.item),
            _ => format!("{} {}: short", l.count, l.item),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Greets a customer: a tool marked `#[hookwire::tool]` where it is
/// defined (the card uses the type the attribute makes), with its
/// instruction, offered until the conversation says the shop is closed.
/// Its `greeting` has a default: the model may leave it out.
#[hookwire::tool(instruction = "Greet customers by name.", available = open)]
pub fn greet(name: String, #[default(String::from("hello"))] greeting: String) -> String {
    format!("{greeting} {name}")
}

/// Whether the shop is open: nobody said "closed" yet.
pub fn open(step: &hookwire::view::StepView<'_>) -> bool {
    !step.history.iter().any(|m| m.text().contains("closed"))
}

/// What the card adds about orders (its `instruction: shop.rs:order_note`):
/// nothing in the first step, a reminder in the later ones.
pub fn order_note(step: &hookwire::view::StepView<'_>) -> String {
    if step.step == 0 {
        String::new()
    } else {
        format!("Step {}: confirm every order line.", step.step)
    }
}

/// Refunds `amount` to `customer`: every call waits for a person's
/// approval (the tool's own gate, kept when a card lists it), who sees
/// whether it is a large refund.
#[hookwire::tool(needs_approval, approval_metadata = refund_note, meta(risk = "high"))]
pub fn refund(customer: String, amount: u64) -> String {
    format!("refunded {amount} to {customer}")
}

/// What the approver of a refund sees besides the arguments.
pub fn refund_note(args: &hookwire::declare::ArgsOf<refund>) -> hookwire::serde_json::Value {
    hookwire::serde_json::json!({"large": args.amount > 50})
}
