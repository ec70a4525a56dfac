//! The output extractor and `on_error` mapping of Triage-Desk's child.

use hookwire::ToolError;
use hookwire::agent::RunOutput;
use hookwire::model::Message;

/// The child's answer as a receipt, with the length of its history.
pub fn receipt(out: &RunOutput, history: &[Message]) -> String {
    format!("receipt: {} ({} messages)", out.text, history.len())
}

/// What the desk's model reads when the child fails.
pub fn go_on(error: ToolError) -> String {
    format!("not filed ({}), go on", error.kind())
}
