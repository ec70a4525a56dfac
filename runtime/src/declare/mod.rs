//! What generated code needs: the chain's declarations
//! (`hookwire_chain::declare`: [`ToolDecl`], matcher checks, approval and
//! error mapping helpers) and the agent layer's own: [`GeneratedAgent`],
//! and the slots of lifecycle hooks and child agents.

mod agent;
pub mod check;
pub mod slot;

pub use agent::GeneratedAgent;
pub use hookwire_chain::declare::{
    ApprovalMetadata, ArgsOf, MapError, OnError, ToolDecl, approval_metadata_for, available_by,
    child_agent_name, error_text, function_tool_name, instruction_by, map_error, meta_part_selects,
    needs_approval_by, needs_approval_for, selects, selects_any,
};
