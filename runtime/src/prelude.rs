//! What an agent author imports: `use hookwire::prelude::*;`.
//!
//! The attribute macros, the agent loop and its models, approvals, and the
//! types a tool or hook signature names. Everything here lives at one path
//! elsewhere in the crate; the prelude only gathers it.
//!
//! ```
//! use hookwire::prelude::*;
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! /// Adds.
//! #[agent(name = "calc", function_tools = [add])]
//! struct Calc;
//!
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
//! # rt.block_on(async {
//! let model = ScriptedModel::from_turns([
//!     Turn::call("add", hookwire::serde_json::json!({ "a": 2, "b": 3 })),
//!     Turn::text("5"),
//! ]);
//! let mut runner = Runner::new(Calc::new(), model);
//! assert_eq!(runner.run("2 + 3?").await.unwrap().text, "5");
//! assert_eq!(runner.history()[2].text(), "5"); // the tool result the model read
//! # });
//! ```

pub use crate::agent::lifecycle::LifecycleHooks;
pub use crate::agent::{Agent, RunError, RunOutput, Runner};
pub use crate::approval::{ApprovalDecision, Approvals, Approver, FnApprover};
pub use crate::model::{Message, Model, ScriptedModel, Turn};
pub use crate::{
    BoxFuture, Decision, Dep, FromDeps, Hook, HookError, Outcome, PostHook, PreHook, ToolArgs,
    ToolContext, ToolError, ToolResult, agent, args, hook, tool,
};
