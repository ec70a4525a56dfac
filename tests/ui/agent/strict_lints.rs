//! A crate with strict lints: the stand-ins of a failed tool and a failed
//! hook (undocumented, public, their imports used only by the signature)
//! add no warning, so two mistakes are two errors.
#![deny(missing_docs, unsafe_code, warnings, rust_2018_idioms, unreachable_pub)]

use hookwire::{Next, Outcome, ToolArgs, ToolContext};

#[hookwire::tool]
pub fn greet(name: String) -> String {
    name
}

#[hookwire::hook]
pub async fn audit(cx: &ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let _ = (cx, args, next);
    todo!()
}

#[hookwire::agent(name = "calc", function_tools = [greet], tool_hooks = [audit])]
pub struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
