//! The card's hook fields: `tool_hooks`, references in lists, lifecycle
//! hooks, and `agents` entries.

use super::*;

/// A list whose entries reference Rust code (see [`Ctx::ref_entry`]).
#[derive(Clone, Copy)]
pub(super) struct RefList {
    /// The card field.
    pub(super) field: &'static str,
    /// The fields of an entry written as a mapping.
    pub(super) allowed: &'static [&'static str],
    /// What an entry is, for messages.
    pub(super) what: &'static str,
    /// What the reference names.
    pub(super) kind: RefKind,
    /// The help for a malformed reference.
    pub(super) help: &'static str,
}

pub(super) const TOOL_HOOKS: RefList = RefList {
    field: "tool_hooks",
    allowed: &HOOK_FIELDS,
    what: "a tool hook",
    kind: RefKind::Function,
    help: "write `hooks.rs:audit`: a file next to the card and a top-level async function in it",
};

pub(super) const LIFECYCLE_HOOKS: RefList = RefList {
    field: "hooks",
    allowed: &LIFECYCLE_FIELDS,
    what: "a lifecycle hook",
    kind: RefKind::Type,
    help: "write `lifecycle.rs:Audit`: a file next to the card and a public type in it that implements `LifecycleHooks`",
};

/// The options of a hook entry, as given (see [`Ctx::hook_options`]).
#[derive(Default)]
pub(super) struct HookOptions {
    /// `match`.
    pub(super) matcher: Option<Matcher>,
    /// `on_failure`.
    pub(super) policy: Option<FailurePolicy>,
    /// `timeout_ms`.
    pub(super) timeout_ms: Option<u64>,
}

/// An entry that references Rust code: `file.rs:name`, or a mapping with
/// `hook: file.rs:name` and the other fields in `allowed` (checked here,
/// read by the caller from the returned entries). Shared by `tool_hooks`
/// and the lifecycle hooks of `hooks`.
pub(super) struct RefEntry<'y> {
    /// The reference, if it was given and is well formed.
    pub(super) reference: Option<RefSpec>,
    /// The mapping's entries (empty for a string).
    pub(super) entries: &'y [(String, Yaml)],
}

impl Ctx<'_> {
    pub(super) fn ref_entry<'y>(
        &mut self,
        list: &RefList,
        i: usize,
        item: &'y Yaml,
    ) -> RefEntry<'y> {
        let RefList {
            field,
            allowed,
            what,
            kind,
            help,
        } = *list;
        let base = [Seg::Key(field), Seg::Index(i)];
        let (text, in_map, entries): (Option<String>, bool, &'y [(String, Yaml)]) = match item {
            Yaml::Str(s) => (Some(s.clone()), false, &[]),
            Yaml::Map(entries) => {
                self.unknown_keys(&base, entries, allowed, what);
                let text = match entries.iter().find(|(k, _)| k == "hook") {
                    Some((_, val)) => {
                        let p = [Seg::Key(field), Seg::Index(i), Seg::Key("hook")];
                        self.nonempty(&p, "hook", val)
                    }
                    None => {
                        self.err(
                            &base,
                            true,
                            format!(
                                "{what} entry is missing `hook: {}`",
                                kind.shape().trim_matches('`')
                            ),
                            None,
                        );
                        None
                    }
                };
                (text, true, entries.as_slice())
            }
            other => {
                self.wrong_type(
                    &base,
                    &format!("{field}[{i}]"),
                    &format!("{} or a mapping with `hook:`", kind.shape()),
                    other,
                );
                (None, false, &[])
            }
        };
        let reference = text.and_then(|text| match split_ref(&text, kind) {
            Ok((file, function)) => Some(RefSpec {
                text,
                file,
                function,
                field,
                index: Some(i),
                in_map,
                key: "hook",
            }),
            Err(m) => {
                let mut path = base.to_vec();
                if in_map {
                    path.push(Seg::Key("hook"));
                }
                self.err(&path, true, m, Some(help.to_owned()));
                None
            }
        });
        RefEntry { reference, entries }
    }

    /// The options a hook entry of `field[i]` (`tool_hooks`, or a
    /// lifecycle hook of `hooks`) shares: `match`, `on_failure` and
    /// `timeout_ms`, each checked where it is.
    pub(super) fn hook_options(
        &mut self,
        field: &'static str,
        i: usize,
        entries: &[(String, Yaml)],
    ) -> HookOptions {
        let mut options = HookOptions::default();
        for (k, val) in entries {
            let p = [Seg::Key(field), Seg::Index(i), Seg::Key(k.as_str())];
            match k.as_str() {
                "match" => options.matcher = self.matcher(&p, val),
                "on_failure" => {
                    options.policy = self.choice(&p, "on_failure", val, &FailurePolicy::SPELLINGS);
                }
                "timeout_ms" => options.timeout_ms = self.positive(&p, "timeout_ms", val),
                _ => {}
            }
        }
        options
    }

    /// A `match:` pattern.
    pub(super) fn matcher(&mut self, path: &[Seg<'_>], v: &Yaml) -> Option<Matcher> {
        match v {
            Yaml::Str(pattern) => match Matcher::parse(pattern) {
                Ok(m) => Some(m),
                Err(e) => {
                    self.err(path, true, format!("invalid `match`: {e}"), Some("a matcher is a tool name, `a|b`, a `*` glob, `/regex/`, `source:mcp`, `meta:key=value` or `!pattern`".into()));
                    None
                }
            },
            other => {
                self.wrong_type(path, "match", "a string", other);
                None
            }
        }
    }
}

pub(super) fn parse_tool_hooks(
    cx: &mut Ctx<'_>,
    v: &Yaml,
    spec: &mut AgentSpec,
    refs: &mut Vec<RefSpec>,
) {
    let items = match v {
        Yaml::Seq(items) => items,
        Yaml::Null => return,
        other => {
            cx.wrong_type(&[Seg::Key("tool_hooks")], "tool_hooks", "a list", other);
            return;
        }
    };
    for (i, item) in items.iter().enumerate() {
        let entry = cx.ref_entry(&TOOL_HOOKS, i, item);
        let mut hook = HookRef::new("");
        let options = cx.hook_options("tool_hooks", i, entry.entries);
        if let Some(m) = options.matcher {
            hook.matcher = m;
        }
        if let Some(policy) = options.policy {
            hook.policy = policy;
        }
        hook.timeout_ms = options.timeout_ms;
        if let Some(r) = entry.reference {
            hook.label = Some(r.text.clone());
            refs.push(r);
            spec.tool_hooks.push(hook);
        }
    }
}

/// A lifecycle hook under `hooks:`: `file.rs:Type` or `{hook: file.rs:Type,
/// match: "...", on_failure: open, timeout_ms: 50}`.
pub(super) fn parse_lifecycle_hook(
    cx: &mut Ctx<'_>,
    i: usize,
    item: &Yaml,
    spec: &mut AgentSpec,
    refs: &mut Vec<RefSpec>,
) {
    let entry = cx.ref_entry(&LIFECYCLE_HOOKS, i, item);
    let mut hook = LifecycleRef::new("");
    let options = cx.hook_options("hooks", i, entry.entries);
    if let Some(m) = options.matcher {
        hook.matcher = m;
    }
    hook.policy = options.policy;
    hook.timeout_ms = options.timeout_ms;
    if let Some(r) = entry.reference {
        hook.label = Some(r.text.clone());
        refs.push(r);
        spec.lifecycle_hooks.push(hook);
    }
}

/// The fields of an `agents` entry written as a mapping.
pub(super) const AGENT_ENTRY_FIELDS: [&str; 4] = ["name", "output", "on_error", "meta"];

impl Ctx<'_> {
    /// `agents:`: each entry a child's name, or a mapping with `name:` and
    /// the functions `output: file.rs:function` (the output extractor) and
    /// `on_error: file.rs:function`, pushed on `refs` with the entry's index.
    pub(super) fn agents(&mut self, v: &Yaml, refs: &mut Vec<(usize, RefSpec)>) -> Vec<AgentRef> {
        let items = match v {
            Yaml::Seq(items) => items,
            Yaml::Null => return Vec::new(),
            other => {
                self.wrong_type(&[Seg::Key("agents")], "agents", "a list", other);
                return Vec::new();
            }
        };
        let mut agents = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let base = [Seg::Key("agents"), Seg::Index(i)];
            let Yaml::Map(entries) = item else {
                if let Some(name) = self.nonempty(&base, &format!("agents[{i}]"), item) {
                    agents.push(AgentRef::new(name));
                }
                continue;
            };
            self.unknown_keys(&base, entries, &AGENT_ENTRY_FIELDS, "an `agents` entry");
            let name = match entries.iter().find(|(k, _)| k == "name") {
                Some((_, val)) => {
                    let p = [Seg::Key("agents"), Seg::Index(i), Seg::Key("name")];
                    self.nonempty(&p, "name", val)
                }
                None => {
                    self.err(
                        &base,
                        true,
                        "an `agents` entry written as a mapping is missing `name: <agent>`"
                            .to_owned(),
                        None,
                    );
                    None
                }
            };
            let mut meta = crate::spec::ToolMeta::EMPTY;
            if let Some((_, val)) = entries.iter().find(|(k, _)| k == "meta") {
                meta = self.meta_map(&[Seg::Key("agents"), Seg::Index(i), Seg::Key("meta")], val);
            }
            for (k, val) in entries {
                let key = match k.as_str() {
                    "output" => "output",
                    "on_error" => "on_error",
                    _ => continue,
                };
                let p = [Seg::Key("agents"), Seg::Index(i), Seg::Key(key)];
                let Some(text) = self.nonempty(&p, key, val) else {
                    continue;
                };
                match split_ref(&text, RefKind::Function) {
                    Ok((file, function)) => refs.push((
                        agents.len(),
                        RefSpec {
                            text,
                            file,
                            function,
                            field: "agents",
                            index: Some(i),
                            in_map: true,
                            key,
                        },
                    )),
                    Err(m) => {
                        let help = if key == "output" {
                            "write `agents.rs:last_line`: a file next to the card and a public function `fn(&RunOutput, &[Message]) -> R` in it"
                        } else {
                            "write `agents.rs:go_on`: a file next to the card and a public function `fn(ToolError) -> R` in it"
                        };
                        self.err(&p, true, m, Some(help.to_owned()));
                    }
                }
            }
            if let Some(name) = name {
                let mut child = AgentRef::new(name);
                child.meta = meta;
                agents.push(child);
            }
        }
        agents
    }

    /// `meta: {key: value, ..}`: string (or bool) values, keys and values
    /// by the spec's rules, each error at its key or value.
    fn meta_map(&mut self, path: &[Seg<'_>], v: &Yaml) -> crate::spec::ToolMeta {
        let Yaml::Map(entries) = v else {
            self.wrong_type(path, "meta", "a mapping of keys to strings", v);
            return crate::spec::ToolMeta::EMPTY;
        };
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (k, val) in entries {
            let mut at = path.to_vec();
            at.push(Seg::Key(k));
            if let Err(e) = crate::spec::check_meta_key(k) {
                self.err(&at, false, e.to_string(), None);
                continue;
            }
            let value = match val {
                Yaml::Str(s) => s.clone(),
                Yaml::Bool(b) => b.to_string(),
                other => {
                    self.wrong_type(&at, k, "a string", other);
                    continue;
                }
            };
            if let Err(e) = crate::spec::check_meta_value(k, &value) {
                self.err(&at, true, e.to_string(), None);
                continue;
            }
            pairs.push((k.clone(), value));
        }
        crate::spec::ToolMeta::from_pairs(pairs)
    }
}
