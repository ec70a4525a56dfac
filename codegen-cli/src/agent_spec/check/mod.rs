//! The rules a declaration must follow, written once for both front ends:
//! the field tables, positive numbers, the input schema, one name per tool,
//! and [`AgentSpec::validate`], which applies them to a whole spec. Each
//! rule gives a message; the `#[agent]` macro puts it on a span, the cards
//! at `file:line:col`, each with a hint in its own syntax.

mod error;
mod events;
mod fields;
mod hooks;
mod locked;
mod message;
mod numbers;
mod schema;
mod tools;
mod verdict;

pub use error::{SpecError, SpecField};
pub use fields::{AGENT_FIELDS, HOOK_OPTIONS, LIFECYCLE_OPTIONS};
pub use hooks::{HookPlace, UndecidedHook, UnmatchedHook};
pub use schema::check_tool_input_schema;
pub use tools::{UniqueToolNames, check_mcp_filter_server};
pub use verdict::{MCP_META_KEYS, StaticTool};
pub(crate) use verdict::{may_select_at_run_time, may_select_runtime_tool};

use crate::spec::AgentSpec;

impl AgentSpec {
    /// Every rule this spec breaks, in declaration order: an empty name,
    /// the settings' rules (`max_parallel` and the other numbers that must
    /// be positive), hook `timeout_ms`, `timeout_sec` and `ttl_minutes`
    /// (positive too), an input schema that does not describe an object, a
    /// tool name given twice, and a hook whose matcher selects no tool
    /// ([`AgentSpec::hooks_selecting_no_tool`]).
    ///
    /// The front ends check most of these where they read each value, to
    /// point at it; the emitter runs this on every spec it is given, so a
    /// spec built by hand is held to the same rules.
    ///
    /// ```
    /// use hookwire_codegen::spec::{AgentSpec, SpecField, ToolRef};
    ///
    /// let mut spec = AgentSpec::new("calc")
    ///     .with_function_tool(ToolRef::new("A", "add"))
    ///     .with_function_tool(ToolRef::new("B", "add"));
    /// spec.settings.max_parallel = Some(0);
    /// let errors = spec.validate();
    /// assert_eq!(errors[0].field, SpecField::Setting("max_parallel"));
    /// assert_eq!(
    ///     errors[1].message,
    ///     "duplicate tool name `add` in agent `calc`: `function_tools[0]` has this name too; \
    ///      each tool of an agent needs its own name: give one of them another `name = \"...\"`"
    /// );
    /// ```
    pub fn validate(&self) -> Vec<SpecError> {
        let mut out = Vec::new();
        self.check_name(&mut out);
        self.settings.check(&mut out);
        self.check_input_schema(&mut out);
        self.check_mcp_filters(&mut out);
        self.check_tool_names(&mut out);
        self.check_hook_timeouts(&mut out);
        self.check_event_hooks(&mut out);
        self.check_matchers(&mut out);
        out
    }

    /// An empty name.
    fn check_name(&self, out: &mut Vec<SpecError>) {
        if self.name.trim().is_empty() {
            out.push(SpecError::new(
                SpecField::Name,
                "the agent `name` cannot be empty".to_owned(),
            ));
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
