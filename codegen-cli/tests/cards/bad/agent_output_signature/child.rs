//! Takes the run by value: an extractor borrows it.

use hookwire::agent::RunOutput;
use hookwire::model::Message;

/// Shouts.
pub fn shout(out: RunOutput, history: &[Message]) -> String {
    let _ = history;
    out.text.to_uppercase()
}
