//! What travels through a chain: the call ([`ToolCall`]), its arguments
//! ([`ToolArgs`], `args.rs`) and its result ([`ToolResult`], `result.rs`).

use serde::{Deserialize, Serialize};

use crate::error::ToolError;

mod args;
mod result;
mod text;
mod typed;

/// The arguments of a tool without parameters, and the schema of a tool's
/// arguments, with the rest of what a call carries.
pub use crate::tool::{NoArgs, schema_for};
pub use args::ToolArgs;
#[doc(hidden)]
pub use args::kind as json_kind;
pub use result::{Content, Contents, EmbeddedResource, ImageContent, ToolResult};
pub use text::CallStr;

/// A tool call as a model makes it: an id, a tool name and JSON-object
/// arguments.
///
/// The id and the name are [`CallStr`]s: a provider's `String`s are moved
/// in, not copied. The agent loop, which keeps a call in the history, the
/// trace, the tool's context and the result's message, shares the id once
/// and resolves the name to the one its tool set declares (a `&'static
/// str` for generated tool sets), so that each place holds a reference
/// count or nothing at all. They serialize as plain strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool-use id the model gave the call; the result answers it.
    pub id: CallStr,
    /// The name of the tool to call.
    pub name: CallStr,
    /// The arguments, a JSON object.
    pub arguments: ToolArgs,
}

impl ToolCall {
    /// A call of `name` with the id `id` and the given arguments (`String`
    /// moves in; `&str` is copied; `Arc<str>` is shared).
    #[inline]
    pub fn new(id: impl Into<CallStr>, name: impl Into<CallStr>, arguments: ToolArgs) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
}

/// What a chain produces: a result, or an error that becomes an error
/// result ([`ToolError::into_result`]) when the model reads it.
pub type Outcome = Result<ToolResult, ToolError>;

/// Turns an [`Outcome`] into what the model reads.
#[inline]
pub fn into_result(outcome: Outcome) -> ToolResult {
    outcome.unwrap_or_else(ToolError::into_result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_travels_through_a_chain_stays_small() {
        // Every layer moves the arguments in and the outcome out: see
        // benches/chain.rs. Printed with `--nocapture` for the record.
        let sizes = [
            ("ToolArgs", std::mem::size_of::<ToolArgs>()),
            ("Content", std::mem::size_of::<Content>()),
            ("ToolResult", std::mem::size_of::<ToolResult>()),
            ("ToolError", std::mem::size_of::<ToolError>()),
            ("Outcome", std::mem::size_of::<Outcome>()),
        ];
        println!("{sizes:?}");
        assert!(sizes[0].1 <= 24, "{sizes:?}");
        // Boxed image blocks and invalid-arguments errors keep these at
        // 24 / 56 / 56 bytes on 64-bit targets (they were 48 / 72 / 80).
        assert!(sizes[1].1 <= 24, "{sizes:?}");
        assert!(sizes[3].1 <= 56, "{sizes:?}");
        assert!(sizes[4].1 <= 56, "{sizes:?}");
    }
}
