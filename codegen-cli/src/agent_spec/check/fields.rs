//! The field tables: the keys of an agent declaration and of its hook
//! entries, which the front ends read and suggest from.

/// The fields of an agent declaration: a card's top-level fields and the
/// keys of `#[agent(...)]` (a card also has `type`, the macro `crate`).
pub const AGENT_FIELDS: [&str; 23] = [
    "name",
    "durable_name",
    "instruction",
    "description",
    "deps",
    "default",
    "servers",
    "runtime_tools",
    "tools",
    "function_tools",
    "agents",
    "tool_hooks",
    "hooks",
    "history_source",
    "history_merge_target",
    "max_parallel",
    "child_timeout_sec",
    "max_display_instances",
    "model",
    "use_history",
    "tool_input_schema",
    "output_type",
    "output_schema",
];

/// The options of a hook entry (`tool_hooks`, a tool's own `hooks`).
pub const HOOK_OPTIONS: [&str; 3] = ["match", "on_failure", "timeout_ms"];

/// The options of a lifecycle hook entry (the same as a hook entry's).
pub const LIFECYCLE_OPTIONS: [&str; 3] = HOOK_OPTIONS;
