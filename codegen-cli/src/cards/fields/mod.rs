//! The card's fields: types, ranges, unknown keys (with did-you-mean).

mod hooks;
mod rules;

use std::path::PathBuf;

use super::names::{check_agent_name, check_tool_name};
use super::{Diagnostic, Source, did_you_mean};
use crate::spec::{AGENT_FIELDS, HOOK_OPTIONS, LIFECYCLE_OPTIONS, check_positive};
use crate::spec::{
    AgentRef, AgentSpec, EventHookAction, EventHookSpec, FailurePolicy, Frequency,
    HistoryMergeTarget, HistorySource, HookEvent, HookRef, LifecycleRef, Matcher, McpToolsSpec,
    RefreshCondition, ToolCallInjection,
};
use crate::yaml::{Seg, Yaml};
use hooks::*;
use rules::{Entry, TOOL_ENTRY_FIELDS};
pub(crate) use rules::{RuleOf, StepFnRef};

/// Every top-level field a card may have: `type`, then the fields of every
/// agent declaration (shared with `#[agent]`).
pub const FIELDS: [&str; 24] = prepend("type", AGENT_FIELDS);

/// The fields of a hook written as a mapping: `hook`, then the options of a
/// hook entry (shared with `#[agent]`).
const HOOK_FIELDS: [&str; 4] = prepend("hook", HOOK_OPTIONS);
/// The fields of a lifecycle hook written as a mapping under `hooks:`.
const LIFECYCLE_FIELDS: [&str; 4] = prepend("hook", LIFECYCLE_OPTIONS);

/// `first`, then `rest` (`M` must be one more than `N`: checked when the
/// constant is evaluated).
const fn prepend<const N: usize, const M: usize>(
    first: &'static str,
    rest: [&'static str; N],
) -> [&'static str; M] {
    let mut out = [""; M];
    out[0] = first;
    let mut i = 0;
    while i < N {
        out[i + 1] = rest[i];
        i += 1;
    }
    out
}

/// A `file.rs:function` (or, for lifecycle hooks and `deps:`,
/// `file.rs:Type`) reference.
#[derive(Debug, Clone)]
pub(crate) struct RefSpec {
    /// As written.
    pub text: String,
    /// The file part.
    pub file: String,
    /// The function (or type) part.
    pub function: String,
    /// `function_tools`, `tool_hooks`, `hooks` or `deps`.
    pub field: &'static str,
    /// The index in that list (`None` for `deps`, a single value).
    pub index: Option<usize>,
    /// Whether the entry is a map (`{hook: ...}`).
    pub in_map: bool,
    /// The key of the reference in such a map (`hook`; `output` or
    /// `on_error` in an `agents` entry).
    pub key: &'static str,
}

impl RefSpec {
    pub fn path(&self) -> Vec<Seg<'_>> {
        let mut p = vec![Seg::Key(self.field)];
        if let Some(i) = self.index {
            p.push(Seg::Index(i));
        }
        if self.in_map {
            p.push(Seg::Key(self.key));
        }
        p
    }
}

/// A card after its own fields were checked, before cross-card checks and
/// Rust references.
pub(crate) struct Parsed {
    pub display: PathBuf,
    pub src: Source,
    /// Everything but function tools (added once the references resolve).
    pub spec: AgentSpec,
    pub tool_refs: Vec<RefSpec>,
    /// One per `spec.tool_hooks` entry, in order.
    pub hook_refs: Vec<RefSpec>,
    /// One per `spec.lifecycle_hooks` entry, in order.
    pub lifecycle_refs: Vec<RefSpec>,
    /// `deps: file.rs:Type`, the agent's dependency type.
    pub deps_ref: Option<RefSpec>,
    /// The functions of `agents` entries (`output`, `on_error`), each with
    /// the index of its entry in `spec.agents`.
    pub agent_fn_refs: Vec<(usize, RefSpec)>,
    /// One per `spec.hooks` entry: its index under `hooks:`.
    pub event_hook_index: Vec<usize>,
    pub name_given: bool,
    /// The functions of `function_tools` and `servers` entries'
    /// `available` / `instruction`.
    pub step_fn_refs: Vec<StepFnRef>,
    /// The text `instruction` of `function_tools` entries, by the index of
    /// the entry's tool in `tool_refs`.
    pub tool_texts: Vec<(usize, String)>,
}

impl Parsed {
    pub fn name_diag(&self, message: String) -> Diagnostic {
        if self.name_given {
            self.src.at(&[Seg::Key("name")], true, message)
        } else {
            self.src.line(1, 1, 1, message)
        }
    }
}

struct Ctx<'s> {
    src: &'s Source,
    diags: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn err(&mut self, path: &[Seg<'_>], value: bool, message: String, help: Option<String>) {
        let d = self.src.at(path, value, message).maybe_help(help);
        self.diags.push(d);
    }

    fn wrong_type(&mut self, path: &[Seg<'_>], what: &str, expected: &str, found: &Yaml) {
        self.err(
            path,
            true,
            format!("`{what}` must be {expected}, found {}", found.kind()),
            None,
        );
    }

    fn string(&mut self, path: &[Seg<'_>], what: &str, v: &Yaml) -> Option<String> {
        match v {
            Yaml::Str(s) => Some(s.clone()),
            other => {
                self.wrong_type(path, what, "a string", other);
                None
            }
        }
    }

    fn nonempty(&mut self, path: &[Seg<'_>], what: &str, v: &Yaml) -> Option<String> {
        let s = self.string(path, what, v)?;
        if s.trim().is_empty() {
            self.err(path, true, format!("`{what}` must not be empty"), None);
            return None;
        }
        Some(s)
    }

    fn boolean(&mut self, path: &[Seg<'_>], what: &str, v: &Yaml) -> Option<bool> {
        match v {
            Yaml::Bool(b) => Some(*b),
            other => {
                self.wrong_type(path, what, "`true` or `false`", other);
                None
            }
        }
    }

    fn positive(&mut self, path: &[Seg<'_>], what: &str, v: &Yaml) -> Option<u64> {
        match v {
            Yaml::Int(i) => match check_positive(what, *i) {
                Ok(n) => Some(n),
                Err(message) => {
                    let help = (*i <= 0)
                        .then(|| format!("use a positive integer, for example `{what}: 1`"));
                    self.err(path, true, message, help);
                    None
                }
            },
            other => {
                self.wrong_type(path, what, "a positive integer", other);
                None
            }
        }
    }

    fn choice<T: Copy>(
        &mut self,
        path: &[Seg<'_>],
        what: &str,
        v: &Yaml,
        table: &[(&'static str, T)],
    ) -> Option<T> {
        let s = self.string(path, what, v)?;
        if let Some((_, t)) = table.iter().find(|(n, _)| *n == s) {
            return Some(*t);
        }
        let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
        let help = did_you_mean(&s, names.iter().copied()).map(|n| format!("did you mean `{n}`?"));
        self.err(
            path,
            true,
            format!(
                "unknown {what} `{s}` (expected one of: {})",
                names.join(", ")
            ),
            help,
        );
        None
    }

    fn string_list(&mut self, path: &[Seg<'_>], what: &str, v: &Yaml) -> Vec<(usize, String)> {
        let Yaml::Seq(items) = v else {
            if let Yaml::Null = v {
                return Vec::new();
            }
            self.wrong_type(path, what, "a list of strings", v);
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let mut p = path.to_vec();
            p.push(Seg::Index(i));
            if let Some(s) = self.nonempty(&p, &format!("{what}[{i}]"), item) {
                out.push((i, s));
            }
        }
        out
    }

    fn unknown_keys(
        &mut self,
        path: &[Seg<'_>],
        entries: &[(String, Yaml)],
        allowed: &[&str],
        what: &str,
    ) {
        for (k, _) in entries {
            if !allowed.contains(&k.as_str()) {
                let mut p = path.to_vec();
                p.push(Seg::Key(k));
                let help = did_you_mean(k, allowed.iter().copied())
                    .map(|s| format!("did you mean `{s}`?"))
                    .or_else(|| Some(format!("the fields of {what} are: {}", allowed.join(", "))));
                self.err(&p, false, format!("unknown field `{k}` in {what}"), help);
            }
        }
    }
}

/// What a reference names: a function (tools, tool hooks) or a type
/// (lifecycle hooks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RefKind {
    /// `file.rs:function`.
    Function,
    /// `file.rs:Type`.
    Type,
}

impl RefKind {
    /// How the reference is written.
    fn shape(self) -> &'static str {
        match self {
            RefKind::Function => "`file.rs:function`",
            RefKind::Type => "`file.rs:Type`",
        }
    }
}

/// Splits `file.rs:function` (or `file.rs:Type`).
pub(crate) fn split_ref(text: &str, kind: RefKind) -> Result<(String, String), String> {
    let shape = kind.shape();
    let Some((file, name)) = text.trim().rsplit_once(':') else {
        return Err(format!("malformed reference `{text}`: expected {shape}"));
    };
    if !file.ends_with(".rs") || file.len() <= 3 {
        return Err(format!(
            "malformed reference `{text}`: the file part `{file}` must be a `.rs` file ({shape})"
        ));
    }
    if syn::parse_str::<syn::Ident>(name).is_err() || name.starts_with("r#") {
        let what = match kind {
            RefKind::Function => "a Rust function name",
            RefKind::Type => "a Rust type name",
        };
        return Err(format!(
            "malformed reference `{text}`: `{name}` is not {what} ({shape})"
        ));
    }
    Ok((file.to_owned(), name.to_owned()))
}

pub(crate) fn parse_fields(src: Source, value: Yaml) -> Result<Parsed, Vec<Diagnostic>> {
    let entries = match value {
        Yaml::Map(entries) => entries,
        Yaml::Null => Vec::new(),
        other => {
            let d = src
                .line(
                    src.offset + 1,
                    1,
                    1,
                    format!(
                        "the card's YAML must be a mapping of fields, found {}",
                        other.kind()
                    ),
                )
                .help("write one `field: value` per line");
            return Err(vec![d]);
        }
    };
    let stem = src
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut cx = Ctx {
        src: &src,
        diags: Vec::new(),
    };
    let mut spec = AgentSpec::new(stem);
    let mut name_given = false;
    let mut instruction_field = false;
    let mut tool_refs = Vec::new();
    let mut hook_refs = Vec::new();
    let mut lifecycle_refs = Vec::new();
    let mut deps_ref = None;
    let mut agent_fn_refs = Vec::new();
    let mut event_hook_index = Vec::new();
    let mut step_fn_refs = Vec::new();
    let mut tool_texts = Vec::new();
    cx.unknown_keys(&[], &entries, &FIELDS, "a card");
    for (key, v) in &entries {
        let path = [Seg::Key(key.as_str())];
        let p = &path[..];
        match key.as_str() {
            "type" => {
                if let Some(t) = cx.string(p, "type", v)
                    && t != "agent"
                {
                    {
                        cx.err(
                            p,
                            true,
                            format!("unsupported card type `{t}` (supported: agent)"),
                            Some("cardgen compiles cards of `type: agent`".into()),
                        );
                    }
                }
            }
            "name" => {
                if let Some(n) = cx.nonempty(p, "name", v) {
                    if let Err((message, help)) = check_agent_name(&n) {
                        cx.err(p, true, message, Some(help));
                    }
                    spec.name = n;
                    name_given = true;
                }
            }
            "instruction" => {
                if let Some(s) = cx.string(p, "instruction", v) {
                    spec.instruction = s;
                    instruction_field = true;
                }
            }
            "durable_name" => {
                if let Some(n) = cx.nonempty(p, "durable_name", v) {
                    if let Err(e) = crate::spec::check_durable_name(&n) {
                        cx.err(p, true, e.message, Some(e.help));
                    }
                    spec.durable_name = Some(n);
                }
            }
            "description" => spec.description = cx.string(p, "description", v),
            "default" => spec.default = cx.boolean(p, "default", v).unwrap_or(false),
            "runtime_tools" => {
                spec.runtime_tools = cx.boolean(p, "runtime_tools", v).unwrap_or(false);
            }
            "deps" => {
                if let Some(text) = cx.nonempty(p, "deps", v) {
                    match split_ref(&text, RefKind::Type) {
                        Ok((file, function)) => {
                            deps_ref = Some(RefSpec {
                                text,
                                file,
                                function,
                                field: "deps",
                                index: None,
                                in_map: false,
                                key: "hook",
                            });
                        }
                        Err(m) => cx.err(p, true, m, Some("write `deps.rs:AppDeps`: a file next to the card and a public type in it, which the agent is built from".into())),
                    }
                }
            }
            "servers" => {
                spec.servers = cx.servers(v, &mut spec.server_rules, &mut step_fn_refs);
            }
            "tools" => match v {
                Yaml::Map(servers) => {
                    for (server, globs) in servers {
                        let sp = [Seg::Key("tools"), Seg::Key(server.as_str())];
                        let list = cx.string_list(&sp, &format!("tools.{server}"), globs);
                        for (i, g) in &list {
                            if let Err(e) = Matcher::glob(g) {
                                let gp =
                                    [Seg::Key("tools"), Seg::Key(server.as_str()), Seg::Index(*i)];
                                cx.err(&gp, true, format!("invalid tool filter: {e}"), None);
                            }
                        }
                        spec.mcp_tools.push(McpToolsSpec {
                            server: server.clone(),
                            globs: list.into_iter().map(|(_, g)| g).collect(),
                        });
                    }
                }
                Yaml::Null => {}
                other => cx.wrong_type(
                    p,
                    "tools",
                    "a mapping of server to a list of tool globs",
                    other,
                ),
            },
            "function_tools" => {
                for (i, entry) in cx.entries("function_tools", v) {
                    let at = [Seg::Key("function_tools"), Seg::Index(i)];
                    let (s, in_map, path) = match entry {
                        Entry::Text(s) => (s, false, at.to_vec()),
                        Entry::Map(entries) => {
                            cx.unknown_keys(
                                &at,
                                entries,
                                &TOOL_ENTRY_FIELDS,
                                "a `function_tools` entry",
                            );
                            let of = RuleOf::Tool(tool_refs.len());
                            let mut refs = Vec::new();
                            let text = cx.step_rules("function_tools", i, entries, of, &mut refs);
                            let Some(s) = cx.entry_key(
                                "function_tools",
                                i,
                                entries,
                                "tool",
                                "tools.rs:add_one",
                            ) else {
                                continue;
                            };
                            step_fn_refs.extend(refs);
                            tool_texts.extend(text.map(|t| (tool_refs.len(), t)));
                            (s, true, [&at[..], &[Seg::Key("tool")]].concat())
                        }
                    };
                    match split_ref(&s, RefKind::Function) {
                        Ok((file, function)) => match check_tool_name(&function, "tool name") {
                            Ok(()) => tool_refs.push(RefSpec {
                                text: s,
                                file,
                                function,
                                field: "function_tools",
                                index: Some(i),
                                in_map,
                                key: if in_map { "tool" } else { "hook" },
                            }),
                            Err((m, help)) => cx.err(&path, true, m, Some(help)),
                        },
                        Err(m) => cx.err(&path, true, m, Some("write `tools.rs:add_one`: a file next to the card and a top-level function in it".into())),
                    }
                }
            }
            "agents" => spec.agents = cx.agents(v, &mut agent_fn_refs),
            "tool_hooks" => parse_tool_hooks(&mut cx, v, &mut spec, &mut hook_refs),
            "hooks" => parse_event_hooks(
                &mut cx,
                v,
                &mut spec,
                &mut lifecycle_refs,
                &mut event_hook_index,
            ),
            "history_source" => {
                spec.history_source = cx
                    .choice(p, "history_source", v, &HistorySource::ALL)
                    .unwrap_or_default();
            }
            "history_merge_target" => {
                spec.history_merge_target = cx
                    .choice(p, "history_merge_target", v, &HistoryMergeTarget::ALL)
                    .unwrap_or_default();
            }
            "max_parallel" => spec.max_parallel = cx.positive(p, "max_parallel", v),
            "child_timeout_sec" => spec.child_timeout_sec = cx.positive(p, "child_timeout_sec", v),
            "max_display_instances" => {
                spec.max_display_instances = cx.positive(p, "max_display_instances", v);
            }
            "model" => spec.model = cx.nonempty(p, "model", v),
            "use_history" => spec.use_history = cx.boolean(p, "use_history", v),
            "tool_input_schema" => match v {
                Yaml::Map(_) => {
                    // The shared rule (`AgentSpec::validate`) checks that it
                    // describes an object; `cross` reports it here.
                    spec.tool_input_schema = serde_json::to_string(&v.to_json()).ok();
                }
                other => cx.wrong_type(p, "tool_input_schema", "a JSON Schema mapping", other),
            },
            "output_type" => {
                if let Some(text) = cx.nonempty(p, "output_type", v) {
                    match syn::parse_str::<syn::Path>(&text) {
                        Ok(_) => spec.output_type = Some(crate::spec::FnRef::new(text)),
                        Err(e) => cx.err(
                            p,
                            true,
                            format!("`output_type` must be a Rust type path: `{text}` does not parse as one ({e})"),
                            Some("write the path of a `Deserialize + JsonSchema` type as the generated module names it, for example `crate::plan::Plan`".into()),
                        ),
                    }
                }
            }
            "output_schema" => match v {
                Yaml::Map(_) | Yaml::Bool(_) => {
                    #[cfg(feature = "output-schema")]
                    let schema = v.to_json();
                    #[cfg(not(feature = "output-schema"))]
                    cx.err(
                        p,
                        true,
                        "`output_schema:` is checked by the `output-schema` feature of hookwire-codegen, which is off".into(),
                        Some(r#"in Cargo.toml, `hookwire-codegen = { version = "0.1", features = ["emit", "output-schema"] }` (and `features = ["output-schema"]` on `hookwire`)"#.into()),
                    );
                    #[cfg(feature = "output-schema")]
                    match crate::spec::check_output_schema(&schema) {
                        Ok(()) => spec.output_schema = serde_json::to_string(&schema).ok(),
                        Err(e) => {
                            let owned: Vec<String> = e
                                .path
                                .iter()
                                .map(|s| match s {
                                    crate::spec::SchemaStep::Key(k) => k.clone(),
                                    crate::spec::SchemaStep::Index(i) => i.to_string(),
                                })
                                .collect();
                            let mut at = vec![Seg::Key("output_schema")];
                            for (step, text) in e.path.iter().zip(&owned) {
                                at.push(match step {
                                    crate::spec::SchemaStep::Key(_) => Seg::Key(text),
                                    crate::spec::SchemaStep::Index(i) => Seg::Index(*i),
                                });
                            }
                            cx.err(
                                &at,
                                true,
                                format!("invalid `output_schema`: {}", e.message),
                                None,
                            );
                        }
                    }
                }
                other => cx.wrong_type(p, "output_schema", "a JSON Schema mapping", other),
            },
            _ => {}
        }
    }
    if spec.output_type.is_some() && entries.iter().any(|(k, _)| k == "output_schema") {
        cx.err(
            &[Seg::Key("output_schema")],
            false,
            "the card has both `output_type:` and `output_schema:`".into(),
            Some("keep one: the type's schema is the one asked for, so remove `output_schema:` (or `output_type:` to check answers by the schema alone)".into()),
        );
    }
    if !name_given && let Err((message, help)) = check_agent_name(&spec.name) {
        let d = src
            .line(
                1,
                1,
                1,
                format!("{message} (the agent is named after its file)"),
            )
            .help(format!("{help}; or give the card a `name:`"));
        cx.diags.push(d);
    }
    match (&src.body, instruction_field) {
        (Some(_), true) => {
            let d = src
                .at(
                    &[Seg::Key("instruction")],
                    false,
                    "the card has both an `instruction:` field and a body",
                )
                .help("keep one: the body after the frontmatter is the instruction")
                .note(format!("the body starts at line {}", src.body_line));
            cx.diags.push(d);
        }
        (Some(body), false) => spec.instruction = body.clone(),
        _ => {}
    }
    let diags = cx.diags;
    if diags.is_empty() {
        Ok(Parsed {
            display: src.path.clone(),
            src,
            spec,
            tool_refs,
            hook_refs,
            lifecycle_refs,
            deps_ref,
            agent_fn_refs,
            event_hook_index,
            name_given,
            step_fn_refs,
            tool_texts,
        })
    } else {
        Err(diags)
    }
}
