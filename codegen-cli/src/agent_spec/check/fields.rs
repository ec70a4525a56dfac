//! The field tables: the keys of an agent declaration and of its hook
//! entries, which the front ends read and suggest from.
//!
//! Each key of an agent declaration is spelled once, in [`key`]:
//! [`AGENT_FIELDS`], the names of the parts a check points at
//! ([`SpecField`](super::SpecField)) and the checks' messages read it
//! there.

/// The keys of an agent declaration, in [`AGENT_FIELDS`]' order.
pub(crate) mod key {
    pub(crate) const NAME: &str = "name";
    pub(crate) const DURABLE_NAME: &str = "durable_name";
    pub(crate) const INSTRUCTION: &str = "instruction";
    pub(crate) const DESCRIPTION: &str = "description";
    pub(crate) const DEPS: &str = "deps";
    pub(crate) const DEFAULT: &str = "default";
    pub(crate) const SERVERS: &str = "servers";
    pub(crate) const RUNTIME_TOOLS: &str = "runtime_tools";
    pub(crate) const TOOLS: &str = "tools";
    pub(crate) const FUNCTION_TOOLS: &str = "function_tools";
    pub(crate) const AGENTS: &str = "agents";
    pub(crate) const TOOL_HOOKS: &str = "tool_hooks";
    pub(crate) const HOOKS: &str = "hooks";
    pub(crate) const HISTORY_SOURCE: &str = "history_source";
    pub(crate) const HISTORY_MERGE_TARGET: &str = "history_merge_target";
    pub(crate) const MAX_PARALLEL: &str = "max_parallel";
    pub(crate) const CHILD_TIMEOUT_SEC: &str = "child_timeout_sec";
    pub(crate) const MAX_DISPLAY_INSTANCES: &str = "max_display_instances";
    pub(crate) const MODEL: &str = "model";
    pub(crate) const USE_HISTORY: &str = "use_history";
    pub(crate) const TOOL_INPUT_SCHEMA: &str = "tool_input_schema";
    pub(crate) const OUTPUT_TYPE: &str = "output_type";
    pub(crate) const OUTPUT_SCHEMA: &str = "output_schema";
}

/// The fields of an agent declaration: a card's top-level fields and the
/// keys of `#[agent(...)]` (a card also has `type`, the macro `crate`).
pub const AGENT_FIELDS: [&str; 23] = [
    key::NAME,
    key::DURABLE_NAME,
    key::INSTRUCTION,
    key::DESCRIPTION,
    key::DEPS,
    key::DEFAULT,
    key::SERVERS,
    key::RUNTIME_TOOLS,
    key::TOOLS,
    key::FUNCTION_TOOLS,
    key::AGENTS,
    key::TOOL_HOOKS,
    key::HOOKS,
    key::HISTORY_SOURCE,
    key::HISTORY_MERGE_TARGET,
    key::MAX_PARALLEL,
    key::CHILD_TIMEOUT_SEC,
    key::MAX_DISPLAY_INSTANCES,
    key::MODEL,
    key::USE_HISTORY,
    key::TOOL_INPUT_SCHEMA,
    key::OUTPUT_TYPE,
    key::OUTPUT_SCHEMA,
];

/// The options of a hook entry (`tool_hooks`, of an agent or of a tool).
pub const HOOK_OPTIONS: [&str; 3] = ["match", "on_failure", "timeout_ms"];

/// The options of a lifecycle hook entry (the same as a hook entry's).
pub const LIFECYCLE_OPTIONS: [&str; 3] = HOOK_OPTIONS;
