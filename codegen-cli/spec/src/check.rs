//! The rules a declaration must follow, written once for both front ends:
//! the field tables, positive numbers, the input schema, one name per tool,
//! and [`AgentSpec::validate`], which applies them to a whole spec. Each
//! rule gives a message; the `#[agent]` macro puts it on a span, the cards
//! at `file:line:col`, each with a hint in its own syntax.

use std::collections::HashMap;
use std::fmt;

use super::suggest::nearest_names;
use super::{AgentSpec, EventHookAction, Matcher, RefreshCondition, SpanInfo, ToolSource};

/// The fields of an agent declaration: a card's top-level fields and the
/// keys of `#[agent(...)]` (a card also has `type`, the macro `crate`).
pub const AGENT_FIELDS: [&str; 19] = [
    "name",
    "instruction",
    "description",
    "deps",
    "default",
    "servers",
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
];

/// The options of a hook entry (`tool_hooks`, a tool's own `hooks`).
pub const HOOK_OPTIONS: [&str; 3] = ["match", "on_failure", "timeout_ms"];

/// The options of a lifecycle hook entry.
pub const LIFECYCLE_OPTIONS: [&str; 1] = ["match"];

/// `value` as a positive whole number, or the message why not.
///
/// ```
/// use hookwire_spec::check_positive;
///
/// assert_eq!(check_positive("max_parallel", 4), Ok(4));
/// assert_eq!(
///     check_positive("max_parallel", 0).unwrap_err(),
///     "`max_parallel` must be greater than 0, found 0"
/// );
/// ```
pub fn check_positive(key: &str, value: i128) -> Result<u64, String> {
    match u64::try_from(value) {
        Ok(0) | Err(_) if value <= 0 => {
            Err(format!("`{key}` must be greater than 0, found {value}"))
        }
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{key}` is too large: {value}")),
    }
}

/// Checks a `tool_input_schema`: a JSON Schema of an object (a mapping
/// whose `type`, if given, is `object`), since model APIs take a tool's
/// parameters as an object.
///
/// ```
/// use hookwire_spec::check_tool_input_schema;
/// use serde_json::json;
///
/// assert!(check_tool_input_schema(&json!({"type": "object"})).is_ok());
/// assert!(check_tool_input_schema(&json!({"properties": {}})).is_ok());
/// assert!(check_tool_input_schema(&json!({"type": "string"})).is_err());
/// assert!(check_tool_input_schema(&json!([1])).is_err());
/// ```
pub fn check_tool_input_schema(schema: &serde_json::Value) -> Result<(), String> {
    match schema {
        serde_json::Value::Object(map) => match map.get("type") {
            None => Ok(()),
            Some(serde_json::Value::String(t)) if t == "object" => Ok(()),
            Some(_) => {
                Err("`tool_input_schema` must describe an object (`type: object`)".to_owned())
            }
        },
        _ => Err("`tool_input_schema` must be a JSON Schema object".to_owned()),
    }
}

/// The tool names of one agent seen so far: each name may be given once.
#[derive(Debug, Clone, Default)]
pub struct UniqueToolNames {
    seen: HashMap<String, usize>,
}

impl UniqueToolNames {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `name` as the tool at `index`; when the name is taken, the
    /// index of the first tool with it.
    pub fn insert(&mut self, name: &str, index: usize) -> Result<(), usize> {
        match self.seen.get(name) {
            Some(first) => Err(*first),
            None => {
                self.seen.insert(name.to_owned(), index);
                Ok(())
            }
        }
    }

    /// The message for a second tool named `name` in agent `agent`.
    pub fn duplicate_message(name: &str, agent: &str) -> String {
        format!("duplicate tool name `{name}` in agent `{agent}`")
    }
}

/// The part of an [`AgentSpec`] a check found wrong, so that a front end
/// can point at where it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SpecField {
    /// `name`.
    Name,
    /// `max_parallel`.
    MaxParallel,
    /// `child_timeout_sec`.
    ChildTimeoutSec,
    /// `max_display_instances`.
    MaxDisplayInstances,
    /// `tool_input_schema`.
    ToolInputSchema,
    /// `function_tools[i]`.
    FunctionTool(usize),
    /// `agents[i]`.
    Agent(usize),
    /// A hook with a matcher, and its `timeout_ms`.
    Hook(HookPlace),
    /// `hooks[i]` (a `kind: tool_call` entry, its `timeout_sec` or
    /// `ttl_minutes`).
    EventHook(usize),
}

/// A rule a spec breaks: where, and the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct SpecError {
    /// Where.
    pub field: SpecField,
    /// What is wrong (without a hint in a front end's syntax).
    pub message: String,
    /// For a duplicate, where the first one is.
    pub first: Option<SpecField>,
}

impl SpecError {
    fn new(field: SpecField, message: String) -> Self {
        Self {
            field,
            message,
            first: None,
        }
    }
}

impl fmt::Display for SpecField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name => f.write_str("name"),
            Self::MaxParallel => f.write_str("max_parallel"),
            Self::ChildTimeoutSec => f.write_str("child_timeout_sec"),
            Self::MaxDisplayInstances => f.write_str("max_display_instances"),
            Self::ToolInputSchema => f.write_str("tool_input_schema"),
            Self::FunctionTool(i) => write!(f, "function_tools[{i}]"),
            Self::Agent(i) => write!(f, "agents[{i}]"),
            Self::Hook(HookPlace::ToolHook(i)) => write!(f, "tool_hooks[{i}]"),
            Self::Hook(HookPlace::ToolEntry { tool, hook }) => {
                write!(f, "function_tools[{tool}].hooks[{hook}]")
            }
            Self::Hook(HookPlace::Lifecycle(i)) | Self::EventHook(i) => write!(f, "hooks[{i}]"),
        }
    }
}

impl AgentSpec {
    /// Every rule this spec breaks, in declaration order: an empty name,
    /// numbers that must be positive (`max_parallel`, `child_timeout_sec`,
    /// `max_display_instances`, hook `timeout_ms`, `timeout_sec`,
    /// `ttl_minutes`), an input schema that does not describe an object, a
    /// tool name given twice, and a hook whose matcher selects no tool
    /// ([`AgentSpec::hooks_selecting_no_tool`]).
    ///
    /// The front ends check most of these where they read each value, to
    /// point at it; the emitter runs this on every spec it is given, so a
    /// spec built by hand is held to the same rules.
    ///
    /// ```
    /// use hookwire_spec::{AgentSpec, SpecField, ToolRef};
    ///
    /// let mut spec = AgentSpec::new("calc")
    ///     .with_function_tool(ToolRef::new("A", "add"))
    ///     .with_function_tool(ToolRef::new("B", "add"));
    /// spec.max_parallel = Some(0);
    /// let errors = spec.validate();
    /// assert_eq!(errors[0].field, SpecField::MaxParallel);
    /// assert_eq!(
    ///     errors[1].message,
    ///     "duplicate tool name `add` in agent `calc`: `function_tools[0]` has this name too; \
    ///      each tool of an agent needs its own name: give one of them another `name = \"...\"`"
    /// );
    /// ```
    pub fn validate(&self) -> Vec<SpecError> {
        let mut out = Vec::new();
        if self.name.trim().is_empty() {
            out.push(SpecError::new(
                SpecField::Name,
                "the agent `name` cannot be empty".to_owned(),
            ));
        }
        for (field, key, value) in [
            (SpecField::MaxParallel, "max_parallel", self.max_parallel),
            (
                SpecField::ChildTimeoutSec,
                "child_timeout_sec",
                self.child_timeout_sec,
            ),
            (
                SpecField::MaxDisplayInstances,
                "max_display_instances",
                self.max_display_instances,
            ),
        ] {
            if let Some(Err(message)) = value.map(|v| check_positive(key, i128::from(v))) {
                out.push(SpecError::new(field, message));
            }
        }
        if let Some(schema) = &self.tool_input_schema {
            let checked = serde_json::from_str::<serde_json::Value>(schema)
                .map_err(|_| "`tool_input_schema` must be a JSON Schema object".to_owned())
                .and_then(|v| check_tool_input_schema(&v));
            if let Err(message) = checked {
                out.push(SpecError::new(SpecField::ToolInputSchema, message));
            }
        }
        let mut names = UniqueToolNames::new();
        let tools = self.function_tools.iter().map(|t| t.name.clone());
        let agents = self.agents.iter().map(|a| a.tool_name());
        let fields = (0..self.function_tools.len())
            .map(SpecField::FunctionTool)
            .chain((0..self.agents.len()).map(SpecField::Agent));
        let all: Vec<(SpecField, String)> = fields.zip(tools.chain(agents)).collect();
        for (i, (field, name)) in all.iter().enumerate() {
            if let Err(first) = names.insert(name, i) {
                let first = all[first].0;
                out.push(SpecError {
                    field: *field,
                    message: format!(
                        "{}: {}",
                        UniqueToolNames::duplicate_message(name, &self.name),
                        self.duplicate_advice(*field, first)
                    ),
                    first: Some(first),
                });
            }
        }
        let hooks = self
            .tool_hooks
            .iter()
            .enumerate()
            .map(|(i, h)| (HookPlace::ToolHook(i), h))
            .chain(
                self.function_tools
                    .iter()
                    .enumerate()
                    .flat_map(|(t, tool)| {
                        tool.hooks
                            .iter()
                            .enumerate()
                            .map(move |(i, h)| (HookPlace::ToolEntry { tool: t, hook: i }, h))
                    }),
            );
        for (place, hook) in hooks {
            if let Some(Err(message)) = hook
                .timeout_ms
                .map(|t| check_positive("timeout_ms", i128::from(t)))
            {
                out.push(SpecError::new(SpecField::Hook(place), message));
            }
        }
        for (i, hook) in self.hooks.iter().enumerate() {
            let field = SpecField::EventHook(i);
            if let Some(Err(message)) = hook
                .timeout_sec
                .map(|t| check_positive("timeout_sec", i128::from(t)))
            {
                out.push(SpecError::new(field, message));
            }
            if let EventHookAction::ToolCall(call) = &hook.action {
                if let Some(RefreshCondition::Ttl { ttl_minutes }) = call.refresh_condition
                    && let Err(message) = check_positive("ttl_minutes", i128::from(ttl_minutes))
                {
                    out.push(SpecError::new(field, message));
                }
                if !super::HookEvent::TOOL_CALL_EVENTS.contains(&hook.event) {
                    out.push(SpecError::new(
                        field,
                        format!(
                            "`kind: tool_call` hooks cannot fire at `{}` (supported: on_request_start, on_completion)",
                            hook.event
                        ),
                    ));
                }
            }
        }
        for unmatched in self.hooks_selecting_no_tool() {
            out.push(SpecError::new(
                SpecField::Hook(unmatched.place),
                unmatched.message(self),
            ));
        }
        out
    }
}

// Hooks that select no tool: a typo in a matcher must never drop a guard
// silently.

/// A hook whose matcher selects none of its agent's tools: found by
/// [`AgentSpec::hooks_selecting_no_tool`]. Both front ends report it as an
/// error (a typo in a matcher must never drop a guard silently).
#[derive(Debug, Clone)]
pub struct UnmatchedHook<'a> {
    /// Where the hook is declared.
    pub place: HookPlace,
    /// How to show the hook (a card's `file.rs:function`, or the path).
    pub hook: &'a str,
    /// The matcher, in its string form.
    pub pattern: String,
    /// Where the hook's reference is.
    pub span: SpanInfo,
}

impl UnmatchedHook<'_> {
    /// The error both front ends report: the hook, its matcher, the nearest
    /// tool names of `spec`, and the fix.
    pub fn message(&self, spec: &AgentSpec) -> String {
        let names: Vec<String> = match self.place {
            HookPlace::ToolEntry { tool, .. } => spec
                .function_tools
                .get(tool)
                .map(|t| vec![t.name.clone()])
                .unwrap_or_default(),
            _ => spec.static_tools().into_iter().map(|(n, _)| n).collect(),
        };
        let scope = match self.place {
            HookPlace::ToolEntry { tool, .. } => format!(
                "the tool `{}` it is declared on",
                spec.function_tools
                    .get(tool)
                    .map_or("", |t| t.name.as_str())
            ),
            _ if names.is_empty() => format!("any tool of agent `{}`, which has none", spec.name),
            _ => format!("any tool of agent `{}`", spec.name),
        };
        let near = nearest_names(&self.pattern, &names);
        let hint = match near.as_slice() {
            [] => String::new(),
            [one] => format!("; did you mean `{one}`?"),
            more => format!(
                "; did you mean one of {}?",
                more.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!(
            "hook `{}` with match `{}` selects no tool: it does not match {scope}{hint} A hook that selects no tool would never run; fix the pattern, or remove the hook{}",
            self.hook,
            self.pattern,
            if matches!(self.place, HookPlace::ToolEntry { .. }) || !spec.servers.is_empty() {
                "."
            } else {
                " (a hook meant for tools discovered at run time needs the agent's `servers`)."
            }
        )
    }
}

/// Where a hook with a matcher is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookPlace {
    /// `tool_hooks[i]`.
    ToolHook(usize),
    /// `function_tools[tool]`'s own entry hooks, `[hook]`.
    ToolEntry {
        /// The index of the tool in `function_tools`.
        tool: usize,
        /// The index of the hook in that entry's hooks.
        hook: usize,
    },
    /// Lifecycle hook `lifecycle_hooks[i]`.
    Lifecycle(usize),
}

impl AgentSpec {
    /// What to change when the entries `second` and `first` give an agent the
    /// same tool name: the same tool or child listed twice, or two tools that
    /// take one name.
    fn duplicate_advice(&self, second: SpecField, first: SpecField) -> String {
        let place = |field: SpecField| match field {
            SpecField::FunctionTool(i) => format!("`function_tools[{i}]`"),
            SpecField::Agent(i) => format!("`agents[{i}]`"),
            _ => "another entry".to_owned(),
        };
        let same = match (second, first) {
            (SpecField::FunctionTool(a), SpecField::FunctionTool(b)) => {
                let ty = |i: usize| self.function_tools.get(i).map(|t| t.ty.as_str());
                ty(a).is_some() && ty(a) == ty(b)
            }
            (SpecField::Agent(a), SpecField::Agent(b)) => {
                let name = |i: usize| self.agents.get(i).map(|c| c.name.as_str());
                name(a).is_some() && name(a) == name(b)
            }
            _ => false,
        };
        if same {
            format!("it is also {}; list it once", place(first))
        } else {
            format!(
                "{} has this name too; each tool of an agent needs its own name: give one of them another `name = \"...\"`",
                place(first)
            )
        }
    }

    /// The tools known when the agent is declared, with their sources:
    /// the function tools and the child agents (`agent__<name>`).
    pub fn static_tools(&self) -> Vec<(String, ToolSource)> {
        self.function_tools
            .iter()
            .map(|t| (t.name.clone(), t.source))
            .chain(
                self.agents
                    .iter()
                    .map(|a| (a.tool_name(), ToolSource::Agent)),
            )
            .collect()
    }

    /// The hooks whose matcher selects none of the tools they could apply
    /// to: an agent-level or lifecycle hook that selects none of the
    /// agent's statically known tools, or an entry hook that does not
    /// select its own tool.
    ///
    /// An agent with MCP servers also has tools that are only known once
    /// it connects: its agent-level and lifecycle hooks are not reported
    /// here, but checked when it connects (`McpAgent` warns about a hook
    /// that selects no tool at all then). An entry hook always is.
    pub fn hooks_selecting_no_tool(&self) -> Vec<UnmatchedHook<'_>> {
        let tools = self.static_tools();
        let selects_none = |m: &Matcher| {
            !m.is_always()
                && !tools
                    .iter()
                    .any(|(name, source)| m.matches(super::MatchTarget::new(name, *source)))
        };
        let dynamic = !self.servers.is_empty();
        let mut out = Vec::new();
        if !dynamic {
            for (i, h) in self.tool_hooks.iter().enumerate() {
                if selects_none(&h.matcher) {
                    out.push(UnmatchedHook {
                        place: HookPlace::ToolHook(i),
                        hook: h.display_name(),
                        pattern: h.matcher.to_string(),
                        span: h.span,
                    });
                }
            }
            for (i, h) in self.lifecycle_hooks.iter().enumerate() {
                if selects_none(&h.matcher) {
                    out.push(UnmatchedHook {
                        place: HookPlace::Lifecycle(i),
                        hook: h.display_name(),
                        pattern: h.matcher.to_string(),
                        span: h.span,
                    });
                }
            }
        }
        for (t, tool) in self.function_tools.iter().enumerate() {
            let target = super::MatchTarget::new(&tool.name, tool.source);
            for (i, h) in tool.hooks.iter().enumerate() {
                if !h.matcher.is_always() && !h.matcher.matches(target) {
                    out.push(UnmatchedHook {
                        place: HookPlace::ToolEntry { tool: t, hook: i },
                        hook: h.display_name(),
                        pattern: h.matcher.to_string(),
                        span: h.span,
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::{HookRef, ToolRef};

    #[test]
    fn positive_numbers_reject_zero_and_negatives() {
        assert_eq!(check_positive("k", 1), Ok(1));
        assert_eq!(
            check_positive("k", -5).unwrap_err(),
            "`k` must be greater than 0, found -5"
        );
        assert_eq!(
            check_positive("k", i128::from(u64::MAX) + 1).unwrap_err(),
            format!("`k` is too large: {}", i128::from(u64::MAX) + 1)
        );
    }

    #[test]
    fn validate_reports_each_broken_rule_where_it_is() {
        let mut spec = AgentSpec::new("a")
            .with_function_tool(ToolRef::new("A", "x"))
            .with_function_tool(
                ToolRef::new("B", "x").with_hook(HookRef::new("H").with_timeout_ms(0)),
            );
        spec.child_timeout_sec = Some(0);
        spec.tool_input_schema = Some(r#"{"type": "string"}"#.to_owned());
        let errors = spec.validate();
        let fields: Vec<SpecField> = errors.iter().map(|e| e.field).collect();
        assert_eq!(
            fields,
            [
                SpecField::ChildTimeoutSec,
                SpecField::ToolInputSchema,
                SpecField::FunctionTool(1),
                SpecField::Hook(HookPlace::ToolEntry { tool: 1, hook: 0 }),
            ]
        );
        assert_eq!(errors[2].first, Some(SpecField::FunctionTool(0)));
        assert!(AgentSpec::new("ok").validate().is_empty());
    }
}
