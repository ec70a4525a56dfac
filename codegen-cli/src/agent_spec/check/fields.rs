//! The field tables: the keys of an agent declaration and of its hook
//! entries, which the front ends read and suggest from.
//!
//! Each key of an agent declaration is spelled once: a setting (a key
//! that holds one plain value) in its row of the settings table
//! ([`SETTINGS`], `for_each_setting!`), every other key in [`key`].
//! [`AGENT_FIELDS`], the names of the parts a check points at
//! ([`SpecField`](super::SpecField)) and the checks' messages read them
//! there.

use crate::spec::{SETTINGS, Setting};

/// The keys of an agent declaration that are not settings, in
/// [`AGENT_FIELDS`]' order.
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
    pub(crate) const TOOL_INPUT_SCHEMA: &str = "tool_input_schema";
    pub(crate) const OUTPUT_TYPE: &str = "output_type";
    pub(crate) const OUTPUT_SCHEMA: &str = "output_schema";
}

/// The keys before the settings.
const BEFORE_SETTINGS: [&str; 13] = [
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
];

/// The keys after the settings.
const AFTER_SETTINGS: [&str; 3] = [key::TOOL_INPUT_SCHEMA, key::OUTPUT_TYPE, key::OUTPUT_SCHEMA];

/// The fields of an agent declaration: a card's top-level fields and the
/// keys of `#[agent(...)]` (a card also has `type`, the macro `crate`),
/// the settings in the table's order between `hooks` and
/// `tool_input_schema`.
pub const AGENT_FIELDS: [&str; BEFORE_SETTINGS.len() + SETTINGS.len() + AFTER_SETTINGS.len()] =
    join(&BEFORE_SETTINGS, SETTINGS, &AFTER_SETTINGS);

/// `before`, the keys of `settings`, then `after` (`N` is their number:
/// checked when the constant is evaluated).
const fn join<const N: usize>(
    before: &[&'static str],
    settings: &[Setting],
    after: &[&'static str],
) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < before.len() {
        out[i] = before[i];
        i += 1;
    }
    let mut j = 0;
    while j < settings.len() {
        out[i + j] = settings[j].key;
        j += 1;
    }
    let mut k = 0;
    while k < after.len() {
        out[i + j + k] = after[k];
        k += 1;
    }
    out
}

/// The options of a hook entry (`tool_hooks`, of an agent or of a tool).
pub const HOOK_OPTIONS: [&str; 3] = ["match", "on_failure", "timeout_ms"];

/// The options of a lifecycle hook entry (the same as a hook entry's).
pub const LIFECYCLE_OPTIONS: [&str; 3] = HOOK_OPTIONS;
