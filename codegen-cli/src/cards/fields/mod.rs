//! The card's fields: types, ranges, unknown keys (with did-you-mean).

mod card;
mod events;
mod hooks;
mod rules;
mod settings;

use std::path::PathBuf;

use super::names::{check_agent_name, check_tool_name};
use super::{Diagnostic, Source, did_you_mean};
use crate::spec::{AGENT_FIELDS, HOOK_OPTIONS, LIFECYCLE_OPTIONS, check_positive};
use crate::spec::{
    AgentRef, AgentSpec, EventHookAction, EventHookSpec, FailurePolicy, Frequency, HookEvent,
    HookRef, LifecycleRef, Matcher, McpToolsSpec, RefreshCondition, ToolCallInjection,
};
use crate::yaml::{Seg, Yaml};
pub(crate) use card::parse_fields;
use events::parse_event_hooks;
use hooks::*;
use rules::{Entry, TOOL_ENTRY_FIELDS};
pub(crate) use rules::{RuleOf, StepFnRef};
use settings::read_setting;

/// Every top-level field a card may have: `type`, then the fields of every
/// agent declaration (shared with `#[agent]`).
pub const FIELDS: [&str; AGENT_FIELDS.len() + 1] = prepend("type", AGENT_FIELDS);

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
    /// The card's unknown keys, each an error; the rest of the card was
    /// read without them.
    pub unknown_keys: Vec<Diagnostic>,
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
    /// Unknown keys: each ignored, so the card is still read (and its
    /// functions checked) with the rest, and every error is reported at
    /// once.
    unknown: Vec<Diagnostic>,
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
        let help =
            did_you_mean(&s, names.iter().copied()).map(|n| crate::spec::suggestion_help(&s, n));
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
                    .map(|s| crate::spec::suggestion_help(k, s))
                    .or_else(|| Some(format!("the fields of {what} are: {}", allowed.join(", "))));
                let d = self
                    .src
                    .at(&p, false, format!("unknown field `{k}` in {what}"))
                    .maybe_help(help);
                self.unknown.push(d);
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
    if let Some(c) = crate::spec::non_ascii(name) {
        return Err(format!(
            "malformed reference `{text}`: `{name}` has U+{:04X}, which is not ASCII: a referenced name is ASCII letters, digits and `_`, so that it is the function or type a reader sees (a look-alike or invisible character would name another one)",
            u32::from(c)
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
