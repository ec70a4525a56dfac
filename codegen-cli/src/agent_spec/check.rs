//! The rules a declaration must follow, written once for both front ends:
//! the field tables, positive numbers, the input schema, one name per tool,
//! and [`AgentSpec::validate`], which applies them to a whole spec. Each
//! rule gives a message; the `#[agent]` macro puts it on a span, the cards
//! at `file:line:col`, each with a hint in its own syntax.

use std::collections::HashMap;
use std::fmt;

use crate::spec::nearest_names;
use crate::spec::{AgentSpec, EventHookAction, Matcher, RefreshCondition, SpanInfo, ToolSource};

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

/// `value` as a positive whole number, or the message why not.
///
/// ```
/// use hookwire_codegen::spec::check_positive;
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
/// use hookwire_codegen::spec::check_tool_input_schema;
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

/// Checks that the key `server` of an MCP tool filter (`tools:` in a card,
/// `tools(..)` in `#[agent]`) names one of the agent's `servers`: a filter
/// for a server the agent does not have would leave every tool of the
/// server it meant unfiltered.
///
/// ```
/// use hookwire_codegen::spec::check_mcp_filter_server;
///
/// let servers = ["time".to_owned()];
/// assert!(check_mcp_filter_server("time", &servers).is_ok());
/// assert_eq!(
///     check_mcp_filter_server("tiem", &servers).unwrap_err(),
///     "tool filter for unknown server `tiem`: the agent's `servers` are `time`, so this filter would filter nothing and leave every tool of the server it meant exposed; did you mean `time`?"
/// );
/// ```
pub fn check_mcp_filter_server(server: &str, servers: &[String]) -> Result<(), String> {
    if servers.iter().any(|s| s == server) {
        return Ok(());
    }
    let declared = if servers.is_empty() {
        "the agent has no `servers`".to_owned()
    } else {
        format!(
            "the agent's `servers` are {}",
            servers
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let hint = match crate::spec::did_you_mean(server, servers.iter().map(String::as_str)) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => "; add the server to `servers`, or remove the filter".to_owned(),
    };
    Err(format!(
        "tool filter for unknown server `{server}`: {declared}, so this filter would filter nothing and leave every tool of the server it meant exposed{hint}"
    ))
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
    /// `tools.<server>`, the `i`th MCP tool filter.
    McpTools(usize),
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
            Self::McpTools(i) => write!(f, "tools[{i}]"),
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
    /// use hookwire_codegen::spec::{AgentSpec, SpecField, ToolRef};
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
        for (i, filter) in self.mcp_tools.iter().enumerate() {
            if let Err(message) = check_mcp_filter_server(&filter.server, &self.servers) {
                out.push(SpecError::new(SpecField::McpTools(i), message));
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
                if !crate::spec::HookEvent::TOOL_CALL_EVENTS.contains(&hook.event) {
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
    /// The part of the matcher that selects no tool (an alternative of
    /// `a|b`, the inner pattern of `!p`), when the matcher as a whole does;
    /// `None` when the whole matcher selects none.
    pub part: Option<String>,
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
        let word = self.part.as_deref().unwrap_or(&self.pattern);
        let mut names = names;
        // `tiem__now`: the same tool of each declared server.
        if let (false, Some((_, tool))) = (
            matches!(self.place, HookPlace::ToolEntry { .. }),
            word.split_once(crate::spec::SERVER_SEPARATOR),
        ) {
            names.extend(
                spec.servers
                    .iter()
                    .map(|s| format!("{s}{}{tool}", crate::spec::SERVER_SEPARATOR)),
            );
        }
        let meta = word.contains("meta:");
        let declared = self.declared_meta(spec);
        let near = if meta {
            declared.clone().unwrap_or_default()
        } else {
            nearest_names(word, &names)
                .into_iter()
                .map(str::to_owned)
                .collect()
        };
        let hint = match near.as_slice() {
            [] if meta && declared.is_none() => {
                " by the metadata each declares (its `Tool::META`, `#[tool(meta(..))]`).".to_owned()
            }
            [] if meta => "; no tool declares metadata.".to_owned(),
            more if meta => format!(
                "; the tools declare {}.",
                more.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            [] => ".".to_owned(),
            [one] => format!("; did you mean `{one}`?"),
            more => format!(
                "; did you mean one of {}?",
                more.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let entry = matches!(self.place, HookPlace::ToolEntry { .. });
        let run_time = if meta {
            " (a `meta:key` or `meta:key=value` part selects the tools that declare that metadata: `#[tool(meta(key = \"value\"))]` on a function tool, `meta(..)` on an `agents` entry)."
        } else if word == "step:final" {
            " (`step:final` is the final answer, which only a lifecycle hook sees; a tool hook runs on tool calls, `step:tool`)."
        } else if entry {
            "."
        } else if word.contains("source:runtime") && !spec.runtime_tools {
            " (`source:runtime` selects tools registered at run time, which need the agent's `runtime_tools`)."
        } else if spec.servers.is_empty() {
            " (a hook meant for tools discovered at run time needs the agent's `servers`)."
        } else {
            " (a part meant for MCP tools names a declared server, as in `server__tool`, or is `source:mcp`)."
        };
        match &self.part {
            None => format!(
                "hook `{}` with match `{}` selects no tool: it does not match {scope}{hint} A hook that selects no tool would never run; fix the pattern, or remove the hook{run_time}",
                self.hook, self.pattern,
            ),
            Some(part) => format!(
                "hook `{}` with match `{}`: its part `{part}` selects no tool: it does not match {scope}{hint} Every alternative of `a|b` and the pattern under `!` must select a tool, or a typo would drop or widen the guard; fix the part, or remove it{run_time}",
                self.hook, self.pattern,
            ),
        }
    }
}

impl UnmatchedHook<'_> {
    /// The metadata the tools this hook could apply to declare, as
    /// `meta:key=value`, in order, each once; `None` when the spec does not
    /// know the metadata of one of them (a tool listed in `#[agent]`).
    fn declared_meta(&self, spec: &AgentSpec) -> Option<Vec<String>> {
        let metas: Vec<crate::spec::ToolMeta> = match self.place {
            HookPlace::ToolEntry { tool, .. } => {
                vec![spec.function_tools.get(tool)?.meta.clone()?]
            }
            _ => spec
                .function_tools
                .iter()
                .map(|t| t.meta.clone())
                .chain(spec.agents.iter().map(|a| Some(a.meta.clone())))
                .collect::<Option<_>>()?,
        };
        let mut out: Vec<String> = Vec::new();
        for (k, v) in metas.iter().flat_map(|m| m.iter()) {
            let pair = format!("meta:{k}={v}");
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
        Some(out)
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

    /// The hooks whose matcher, or a part of it, selects none of the tools
    /// it could apply to: an agent-level or lifecycle hook checked against
    /// the agent's statically known tools, an entry hook against its own
    /// tool. Every part counts: each alternative of `a|b` (`any`, `all`)
    /// and the pattern under `!p`, so that a typo in one of them cannot
    /// drop the guard from a tool (`shel|add_one`) or widen it (`!shel`).
    ///
    /// An agent with MCP servers also has tools that are only known once it
    /// connects: a part that selects none of the static tools is accepted
    /// when it names a declared server (`server__tool`, `server__*`, a
    /// regex that holds `server__`), is `source:mcp`, or is a negation
    /// (`McpAgent` warns at connect time about a hook that selects no tool).
    pub fn hooks_selecting_no_tool(&self) -> Vec<UnmatchedHook<'_>> {
        let mut out = Vec::new();
        self.each_matcher(|place, m, hook, span, tools, servers, runtime| {
            // Only a lifecycle hook sees the final answer (`step:final`).
            let steps = matches!(place, HookPlace::Lifecycle(_));
            if let Some((part, _)) = part_verdicts(m, tools, servers, runtime, steps)
                .into_iter()
                .find(|(_, v)| matches!(v, Verdict::None))
            {
                out.push(UnmatchedHook {
                    place,
                    hook,
                    pattern: m.to_string(),
                    part: (!std::ptr::eq(part, m)).then(|| part.to_string()),
                    span,
                });
            }
        });
        out
    }

    /// The hooks with a `meta:` part that selects a tool only if a tool
    /// whose metadata the spec does not know declares it (a tool listed in
    /// `#[agent]`): the emitter checks these parts at compile time, against
    /// each such tool's `Tool::META`. A hook with a part that selects no
    /// tool whatever the metadata is in
    /// [`AgentSpec::hooks_selecting_no_tool`] instead.
    pub fn hooks_with_undecided_meta(&self) -> Vec<UndecidedHook<'_>> {
        let mut out = Vec::new();
        self.each_matcher(|place, m, hook, span, tools, servers, runtime| {
            let steps = matches!(place, HookPlace::Lifecycle(_));
            let verdicts = part_verdicts(m, tools, servers, runtime, steps);
            if verdicts.iter().any(|(_, v)| matches!(v, Verdict::None)) {
                return;
            }
            let parts: Vec<(UnmatchedHook<'_>, Vec<(usize, crate::spec::MetaFormula)>)> = verdicts
                .into_iter()
                .filter_map(|(part, v)| match v {
                    Verdict::Undecided(formulas) => Some((
                        UnmatchedHook {
                            place,
                            hook,
                            pattern: m.to_string(),
                            part: (!std::ptr::eq(part, m)).then(|| part.to_string()),
                            span,
                        },
                        formulas,
                    )),
                    _ => None,
                })
                .collect();
            if !parts.is_empty() {
                out.push(UndecidedHook { parts });
            }
        });
        out
    }

    /// Calls `f` with every matcher of the spec: agent-level and lifecycle
    /// hooks against the static tools (with their metadata, when known),
    /// the servers and `runtime_tools`; an entry hook against its tool.
    fn each_matcher<'s>(
        &'s self,
        mut f: impl FnMut(HookPlace, &'s Matcher, &'s str, SpanInfo, &[StaticTool], &[String], bool),
    ) {
        let tools: Vec<StaticTool> = self
            .function_tools
            .iter()
            .map(|t| (t.name.clone(), t.source, t.meta.clone()))
            .chain(
                self.agents
                    .iter()
                    .map(|a| (a.tool_name(), ToolSource::Agent, Some(a.meta.clone()))),
            )
            .collect();
        let (servers, runtime) = (self.servers.as_slice(), self.runtime_tools);
        let agent_level = self.tool_hooks.iter().enumerate().map(|(i, h)| {
            let place = HookPlace::ToolHook(i);
            (place, &h.matcher, h.display_name(), h.span)
        });
        let lifecycle = self.lifecycle_hooks.iter().enumerate().map(|(i, h)| {
            let place = HookPlace::Lifecycle(i);
            (place, &h.matcher, h.display_name(), h.span)
        });
        for (place, m, hook, span) in agent_level.chain(lifecycle) {
            f(place, m, hook, span, &tools, servers, runtime);
        }
        for (t, tool) in self.function_tools.iter().enumerate() {
            let own = [tools[t].clone()];
            for (i, h) in tool.hooks.iter().enumerate() {
                let place = HookPlace::ToolEntry { tool: t, hook: i };
                f(
                    place,
                    &h.matcher,
                    h.display_name(),
                    h.span,
                    &own,
                    &[],
                    false,
                );
            }
        }
    }
}

/// A static tool as the checks see it: its name, its source, and its
/// metadata when known.
type StaticTool = (String, ToolSource, Option<crate::spec::ToolMeta>);

/// Whether a part of a matcher selects a tool.
enum Verdict {
    /// It does, or may at run time.
    Selects,
    /// It selects none.
    None,
    /// Only if one of these tools (by position among the static tools)
    /// has metadata that satisfies its formula.
    Undecided(Vec<(usize, crate::spec::MetaFormula)>),
}

/// A hook with `meta:` parts that only the compiler can decide (see
/// [`AgentSpec::hooks_with_undecided_meta`]): each part, as the error to
/// report if it selects no tool, with the formula each tool of unknown
/// metadata (by position among the function tools) must satisfy for the
/// part to select it.
#[derive(Debug, Clone)]
pub struct UndecidedHook<'a> {
    /// The parts, outermost first.
    pub parts: Vec<(UnmatchedHook<'a>, Vec<(usize, crate::spec::MetaFormula)>)>,
}

/// Every part of `m`, outermost first, with whether it selects one of
/// `tools`, may select a tool of `servers` discovered at run time or (with
/// `runtime`) a tool registered at run time, or (with `steps`) the final
/// answer.
fn part_verdicts<'m>(
    m: &'m Matcher,
    tools: &[StaticTool],
    servers: &[String],
    runtime: bool,
    steps: bool,
) -> Vec<(&'m Matcher, Verdict)> {
    if m.depth() > crate::spec::MAX_MATCHER_DEPTH {
        // Only a matcher built by hand gets here (parsing refuses it); it
        // is not walked.
        return Vec::new();
    }
    let final_answer = crate::spec::MatchTarget::step(crate::spec::StepKind::Final);
    let verdict = |part: &Matcher| {
        if part.is_always()
            || (steps && part.matches(final_answer))
            || may_select_at_run_time(part, servers)
            || (runtime && may_select_runtime_tool(part))
        {
            return Verdict::Selects;
        }
        let mut undecided = Vec::new();
        for (i, (name, source, meta)) in tools.iter().enumerate() {
            let target = crate::spec::MatchTarget::new(name, *source);
            match meta {
                Some(meta) if part.matches(target.with_meta(meta)) => return Verdict::Selects,
                Some(_) => {}
                None => match part.meta_formula(target) {
                    crate::spec::MetaFormula::Const(true) => return Verdict::Selects,
                    crate::spec::MetaFormula::Const(false) => {}
                    formula => undecided.push((i, formula)),
                },
            }
        }
        if undecided.is_empty() {
            Verdict::None
        } else {
            Verdict::Undecided(undecided)
        }
    };
    m.parts().into_iter().map(|p| (p, verdict(p))).collect()
}

/// The metadata keys an MCP tool may carry: its annotations
/// (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`),
/// each `"true"` or `"false"`.
pub const MCP_META_KEYS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];

/// Whether `m` may select an MCP tool of one of `servers` (known only at
/// run time): it must name a declared server or source.
fn may_select_at_run_time(m: &Matcher, servers: &[String]) -> bool {
    if servers.is_empty() {
        return false;
    }
    let qualified = |text: &str| {
        servers
            .iter()
            .any(|s| text.starts_with(&format!("{s}{}", crate::spec::SERVER_SEPARATOR)))
    };
    match m {
        Matcher::Always
        | Matcher::Not(_)
        | Matcher::Source(ToolSource::Mcp)
        | Matcher::Step(crate::spec::StepKind::Tool) => true,
        Matcher::Exact(_) | Matcher::Glob(_) => qualified(&m.to_string()),
        Matcher::Regex(re) => servers.iter().any(|s| {
            re.as_str()
                .contains(&format!("{s}{}", crate::spec::SERVER_SEPARATOR))
        }),
        // An MCP tool's annotations are its metadata.
        Matcher::Meta { key, .. } => MCP_META_KEYS.contains(&key.as_str()),
        Matcher::Any(ms) => ms.iter().any(|m| may_select_at_run_time(m, servers)),
        Matcher::All(ms) => ms.iter().all(|m| may_select_at_run_time(m, servers)),
        _ => false,
    }
}

/// Whether `m` may select a tool registered at run time (source
/// `runtime`, any name): every part but another source (or a step kind
/// other than a tool call) may.
fn may_select_runtime_tool(m: &Matcher) -> bool {
    match m {
        Matcher::Source(source) => *source == ToolSource::Runtime,
        Matcher::Step(step) => *step == crate::spec::StepKind::Tool,
        Matcher::Any(ms) => ms.iter().any(may_select_runtime_tool),
        Matcher::All(ms) => ms.iter().all(may_select_runtime_tool),
        _ => true,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::spec::{HookRef, ToolRef};

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

    fn agent(servers: &[&str], pattern: &str) -> AgentSpec {
        let mut spec = AgentSpec::new("ops")
            .with_function_tool(ToolRef::new("E", "echo"))
            .with_function_tool(ToolRef::new("S", "shell"))
            .with_tool_hook(HookRef::new("Guard").with_match(pattern).unwrap());
        spec.servers = servers.iter().map(|s| (*s).to_owned()).collect();
        spec
    }

    /// The part reported for `pattern` on an agent with `servers`: `None`
    /// for no error, `Some(None)` for the whole matcher.
    fn dead(servers: &[&str], pattern: &str) -> Option<Option<String>> {
        let spec = agent(servers, pattern);
        let found = spec.hooks_selecting_no_tool();
        assert!(found.len() <= 1);
        found.into_iter().next().map(|u| u.part)
    }

    #[test]
    fn meta_parts_are_checked_against_known_metadata_and_left_to_the_compiler_otherwise() {
        let known = |pattern: &str| {
            AgentSpec::new("ops")
                .with_function_tool(
                    ToolRef::new("S", "shell")
                        .with_meta(crate::spec::ToolMeta::from_pairs([("risk", "high")])),
                )
                .with_function_tool(
                    ToolRef::new("E", "echo").with_meta(crate::spec::ToolMeta::EMPTY),
                )
                .with_tool_hook(HookRef::new("Guard").with_match(pattern).unwrap())
        };
        for ok in [
            "meta:risk",
            "meta:risk=high",
            "!meta:risk",
            "echo|meta:risk",
        ] {
            assert!(known(ok).hooks_selecting_no_tool().is_empty(), "{ok}");
        }
        let spec = known("echo|meta:risk=hgih");
        let found = spec.hooks_selecting_no_tool();
        assert_eq!(found[0].part.as_deref(), Some("meta:risk=hgih"));
        assert_eq!(
            found[0].message(&spec),
            "hook `Guard` with match `echo|meta:risk=hgih`: its part `meta:risk=hgih` selects no tool: it does not match any tool of agent `ops`; the tools declare `meta:risk=high`. Every alternative of `a|b` and the pattern under `!` must select a tool, or a typo would drop or widen the guard; fix the part, or remove it (a `meta:key` or `meta:key=value` part selects the tools that declare that metadata: `#[tool(meta(key = \"value\"))]` on a function tool, `meta(..)` on an `agents` entry)."
        );
        assert!(spec.hooks_with_undecided_meta().is_empty());
        // `#[agent]` does not know a function tool's metadata: the compiler
        // decides, against the formula of each such tool.
        let mut spec = known("echo|meta:risk=high");
        spec.function_tools[0].meta = None;
        assert!(spec.hooks_selecting_no_tool().is_empty());
        let undecided = spec.hooks_with_undecided_meta();
        let parts = &undecided[0].parts;
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].0.part.as_deref(), Some("meta:risk=high"));
        assert_eq!(
            parts[0].1,
            [(
                0,
                crate::spec::MetaFormula::Is("risk".into(), "high".into())
            )]
        );
    }

    #[test]
    fn an_mcp_tools_annotations_are_the_only_metadata_a_server_may_add() {
        let dead = |servers: &[&str], pattern: &str| {
            let mut spec = agent(servers, pattern);
            for t in &mut spec.function_tools {
                t.meta = Some(crate::spec::ToolMeta::EMPTY);
            }
            !spec.hooks_selecting_no_tool().is_empty()
        };
        assert!(!dead(&["time"], "meta:read_only=true"));
        assert!(!dead(&["time"], "meta:destructive"));
        assert!(dead(&["time"], "meta:risk"));
        assert!(dead(&[], "meta:read_only"));
    }

    #[test]
    fn every_part_of_a_matcher_must_select_a_tool() {
        let part = |p: &str| Some(Some(p.to_owned()));
        assert_eq!(dead(&[], "shel|echo"), part("shel"));
        assert_eq!(dead(&[], "echo|shel"), part("shel"));
        assert_eq!(dead(&[], "!shel"), part("shel"));
        assert_eq!(dead(&[], "!!shel"), Some(None));
        assert_eq!(dead(&[], "!ecoh*|shell"), part("ecoh*"));
        assert_eq!(dead(&[], "shel"), Some(None));
        assert_eq!(dead(&[], "!*"), Some(None));
        for ok in [
            "echo|shell",
            "!shell",
            "*",
            "sh*",
            "!/^e/",
            "source:function",
        ] {
            assert_eq!(dead(&[], ok), None, "{ok}");
        }
        // Composites from the YAML form: each branch counts.
        let mut spec = agent(&[], "*");
        spec.tool_hooks[0].matcher =
            serde_json::from_str(r#"{"all": ["echo", {"not": "shel"}]}"#).unwrap();
        let found = spec.hooks_selecting_no_tool();
        assert_eq!(found[0].part.as_deref(), Some("shel"));
    }

    #[test]
    fn step_parts_select_the_final_answer_only_for_lifecycle_hooks() {
        let part = |p: &str| Some(Some(p.to_owned()));
        // A tool hook runs on tool calls: `step:tool` is every one of them,
        // `step:final` none.
        assert_eq!(dead(&[], "step:tool"), None);
        assert_eq!(dead(&[], "step:final"), Some(None));
        assert_eq!(dead(&[], "shell|step:final"), part("step:final"));
        assert_eq!(dead(&[], "!step:final"), part("step:final"));
        let spec = agent(&[], "step:final");
        let message = spec.hooks_selecting_no_tool()[0].message(&spec);
        assert!(
            message.ends_with("(`step:final` is the final answer, which only a lifecycle hook sees; a tool hook runs on tool calls, `step:tool`)."),
            "{message}"
        );
        // A lifecycle hook sees the final answer too.
        let lifecycle = |pattern: &str| {
            let mut spec = agent(&[], "*");
            let mut hook = crate::spec::LifecycleRef::new("Audit");
            hook.matcher = Matcher::parse(pattern).unwrap();
            spec.lifecycle_hooks.push(hook);
            let found = spec.hooks_selecting_no_tool();
            found.into_iter().next().map(|u| u.part)
        };
        for ok in ["step:final", "step:tool", "shell|step:final", "!step:final"] {
            assert_eq!(lifecycle(ok), None, "{ok}");
        }
        assert_eq!(lifecycle("shel|step:final"), part("shel"));
        // An agent without tools has no tool step.
        let mut spec = AgentSpec::new("quiet");
        let mut hook = crate::spec::LifecycleRef::new("Audit");
        hook.matcher = Matcher::parse("step:tool").unwrap();
        spec.lifecycle_hooks.push(hook);
        assert_eq!(spec.hooks_selecting_no_tool().len(), 1);
    }

    #[test]
    fn run_time_parts_name_a_declared_server_or_source() {
        let part = |p: &str| Some(Some(p.to_owned()));
        for ok in [
            "time__now",
            "time__*",
            "source:mcp",
            "/^time__/",
            "!shell",
            "echo|time__get_*",
        ] {
            assert_eq!(dead(&["time"], ok), None, "{ok}");
        }
        assert_eq!(dead(&["time"], "shel|echo"), part("shel"));
        assert_eq!(dead(&["time"], "!shel"), part("shel"));
        assert_eq!(dead(&["time"], "tiem__now"), Some(None));
        assert_eq!(dead(&["time"], "source:mcp|tiem__*"), part("tiem__*"));
        assert_eq!(dead(&["time"], "/^tiem__/"), Some(None));
        let spec = agent(&["time"], "source:mcp|tiem__now");
        let message = spec.hooks_selecting_no_tool()[0].message(&spec);
        assert!(message.contains("did you mean `time__now`?"), "{message}");
    }

    #[test]
    fn source_runtime_selects_only_where_tools_may_be_registered_at_run_time() {
        let runtime = |pattern: &str| {
            let mut spec = agent(&[], pattern);
            spec.runtime_tools = true;
            let found = spec.hooks_selecting_no_tool();
            found.into_iter().next().map(|u| u.part)
        };
        // Without `runtime_tools` (nor servers) nothing is registered.
        assert_eq!(dead(&[], "source:runtime"), Some(None));
        assert_eq!(dead(&["time"], "source:runtime"), Some(None));
        let spec = agent(&[], "source:runtime");
        let message = spec.hooks_selecting_no_tool()[0].message(&spec);
        assert!(
            message.ends_with("(`source:runtime` selects tools registered at run time, which need the agent's `runtime_tools`)."),
            "{message}"
        );
        // With it, a part may select a registered tool of any name.
        for ok in [
            "source:runtime",
            "echo|source:runtime",
            "step:tool",
            "fetch*",
        ] {
            assert_eq!(runtime(ok), None, "{ok}");
        }
        // Another source or the final answer still selects nothing.
        assert_eq!(runtime("source:mcp"), Some(None));
        assert_eq!(
            runtime("source:runtime|source:agent"),
            Some(Some("source:agent".to_owned()))
        );
        assert_eq!(runtime("step:final"), Some(None));
    }

    #[test]
    fn mcp_filter_keys_name_a_declared_server() {
        let mut spec = agent(&["time"], "*");
        spec.mcp_tools = vec![
            crate::spec::McpToolsSpec {
                server: "time".into(),
                globs: vec!["get_*".into()],
            },
            crate::spec::McpToolsSpec {
                server: "tiem".into(),
                globs: vec!["get_*".into()],
            },
        ];
        let errors = spec.validate();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, SpecField::McpTools(1));
        assert!(
            errors[0].message.ends_with("did you mean `time`?"),
            "{}",
            errors[0].message
        );
        spec.servers.clear();
        spec.mcp_tools.truncate(1);
        let errors = spec.validate();
        assert!(
            errors[0].message.contains("the agent has no `servers`"),
            "{}",
            errors[0].message
        );
    }
}
