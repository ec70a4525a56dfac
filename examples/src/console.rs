//! The console example's shop: an agent on the scripted model that asks to
//! pay `vendor` 1 and `mallory` 1000000 (every `pay` needs approval, given
//! in the console) and posts a note whose text is HTML, which the console
//! must show as text.

use hookwire::agent::{AgentConfig, BasicAgent, Runner};
use hookwire::approval::Approvals;
use hookwire::model::{ScriptedModel, ScriptedToolCall, Turn};
use hookwire::{
    Outcome, Router, Tool, ToolContext, ToolHandler, ToolResult, toolset::RouterEnd,
    toolset::RouterEntry,
};
use serde::Deserialize;
use serde_json::{Value, json};

/// The note the model posts: HTML that would run script if a page parsed it.
pub const NOTE: &str = r#"<img src=x onerror="document.title='pwned'">"#;

/// `pay`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Payment {
    /// Who is paid.
    pub to: String,
    /// How much.
    pub amount: u64,
}

/// `pay`: prints `PAID <to> <amount>` when it runs.
pub struct Pay;

impl Tool for Pay {
    type Args = Payment;

    fn name(&self) -> &str {
        "pay"
    }

    fn description(&self) -> &str {
        "Pays someone."
    }

    fn approval_metadata(args: &Payment) -> Option<Value> {
        let risk = if args.amount > 1000 { "high" } else { "low" };
        Some(json!({"risk": risk, "payee": args.to}))
    }

    async fn call(&self, _cx: &ToolContext, payment: Payment) -> Outcome {
        println!("PAID {} {}", payment.to, payment.amount);
        Ok(ToolResult::text(format!(
            "paid {} to {}",
            payment.amount, payment.to
        )))
    }
}

/// `post_note`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Note {
    /// The note.
    pub text: String,
}

/// `post_note`: posts a note (it says so).
pub struct PostNote;

impl Tool for PostNote {
    type Args = Note;

    fn name(&self) -> &str {
        "post_note"
    }

    fn description(&self) -> &str {
        "Posts a note."
    }

    async fn call(&self, _cx: &ToolContext, note: Note) -> Outcome {
        Ok(ToolResult::text(format!("posted: {}", note.text)))
    }
}

/// The shop agent: `pay` and `post_note`.
pub type Shop = BasicAgent<
    Router<RouterEntry<ToolHandler<PostNote>, RouterEntry<ToolHandler<Pay>, RouterEnd>>>,
>;

/// The shop agent.
pub fn shop() -> Shop {
    BasicAgent::new(
        AgentConfig::new("shop").with_instruction("Pay the vendors; ask before paying."),
        Router::new().tool(Pay).tool(PostNote),
    )
}

/// The scripted model: one step with the two payments and the note, then
/// the answer.
pub fn scripted_model() -> ScriptedModel {
    let call = |id: &str, name: &str, arguments: Value| ScriptedToolCall {
        id: Some(id.to_owned()),
        name: name.into(),
        arguments,
    };
    ScriptedModel::from_turns([
        Turn {
            text: "Paying the vendor and mallory, and posting a note.".into(),
            tool_calls: vec![
                call("c1", "pay", json!({"to": "vendor", "amount": 1})),
                call("c2", "pay", json!({"to": "mallory", "amount": 1_000_000})),
                call("c3", "post_note", json!({"text": NOTE})),
            ],
            ..Turn::default()
        },
        Turn::text("Done: paid what was approved."),
    ])
}

/// A runner of [`shop`] whose every `pay` waits in `console` for a person.
pub fn runner(console: &hookwire_console::Console) -> Runner<Shop> {
    let approvals = Approvals::new(console.approver());
    approvals.require("pay");
    Runner::new(shop(), scripted_model()).with_approvals(approvals)
}
