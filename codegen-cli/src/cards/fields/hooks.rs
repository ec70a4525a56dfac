//! The card's hook fields: `tool_hooks`, references in lists, and
//! `hooks:` entries (lifecycle hooks and `kind: tool_call` injections).

use super::*;

pub(super) const EVENT_HOOK_FIELDS: [&str; 9] = [
    "event",
    "kind",
    "name",
    "toolset_name",
    "tool_name",
    "arguments",
    "frequency",
    "refresh_condition",
    "timeout_sec",
];

pub(super) const REFRESH_FIELDS: [&str; 2] = ["kind", "ttl_minutes"];

/// Events that `kind: tool_call` entries can fire at (what the runtime
/// implements for config-driven hooks).
pub(super) const TOOL_CALL_EVENTS: [HookEvent; 2] = HookEvent::TOOL_CALL_EVENTS;

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

pub(super) fn parse_event_hooks(
    cx: &mut Ctx<'_>,
    v: &Yaml,
    spec: &mut AgentSpec,
    lifecycle_refs: &mut Vec<RefSpec>,
    event_hook_index: &mut Vec<usize>,
) {
    let items = match v {
        Yaml::Seq(items) => items,
        Yaml::Null => return,
        other => {
            cx.wrong_type(&[Seg::Key("hooks")], "hooks", "a list", other);
            return;
        }
    };
    for (i, item) in items.iter().enumerate() {
        let base = [Seg::Key("hooks"), Seg::Index(i)];
        // A string, or a mapping with `hook:`, names a lifecycle hook type;
        // a mapping with `event:` is a config-driven (DIAL) hook.
        let entries = match item {
            Yaml::Str(_) => {
                parse_lifecycle_hook(cx, i, item, spec, lifecycle_refs);
                continue;
            }
            Yaml::Map(entries) if entries.iter().any(|(k, _)| k == "hook") => {
                parse_lifecycle_hook(cx, i, item, spec, lifecycle_refs);
                continue;
            }
            Yaml::Map(entries) => entries,
            _ => {
                cx.wrong_type(
                    &base,
                    &format!("hooks[{i}]"),
                    "`file.rs:Type` (a lifecycle hook), a mapping with `hook:`, or a mapping with `event:`",
                    item,
                );
                continue;
            }
        };
        cx.unknown_keys(&base, entries, &EVENT_HOOK_FIELDS, "a hook");
        let get = |k: &str| entries.iter().find(|(key, _)| key == k).map(|(_, v)| v);
        let at = |k: &'static str| [Seg::Key("hooks"), Seg::Index(i), Seg::Key(k)];
        let before = cx.diags.len();
        let event = match get("event") {
            Some(e) => cx.choice(&at("event"), "event", e, &HookEvent::ALL),
            None => {
                cx.err(
                    &base,
                    true,
                    format!(
                        "hook entry is missing `event` (one of: {})",
                        HookEvent::names().join(", ")
                    ),
                    Some("for a lifecycle hook type, write `file.rs:Type` or `{hook: file.rs:Type, match: ...}`".into()),
                );
                None
            }
        };
        let kind = match get("kind") {
            Some(k) => cx.choice(&at("kind"), "hook kind", k, &[("tool_call", ())]),
            None => Some(()),
        };
        if let (Some(event), Some(())) = (event, kind)
            && !TOOL_CALL_EVENTS.contains(&event)
        {
            {
                let names: Vec<&str> = TOOL_CALL_EVENTS.iter().map(|e| e.as_str()).collect();
                cx.err(
                    &at("event"),
                    true,
                    format!(
                        "`kind: tool_call` hooks cannot fire at `{event}` (supported: {})",
                        names.join(", ")
                    ),
                    None,
                );
            }
        }
        let name = get("name").and_then(|v| cx.nonempty(&at("name"), "name", v));
        let toolset_name =
            get("toolset_name").and_then(|v| cx.nonempty(&at("toolset_name"), "toolset_name", v));
        let tool_name = match get("tool_name") {
            Some(v) => cx.nonempty(&at("tool_name"), "tool_name", v),
            None => {
                cx.err(
                    &base,
                    true,
                    "`kind: tool_call` hook is missing `tool_name`".into(),
                    None,
                );
                None
            }
        };
        let arguments = match get("arguments") {
            None | Some(Yaml::Null) => "{}".to_owned(),
            Some(v @ Yaml::Map(_)) => {
                let mut path = at("arguments").to_vec();
                match exact_json(v, &mut path, cx) {
                    Some(json) => serde_json::to_string(&json).unwrap_or_else(|_| "{}".into()),
                    None => "{}".to_owned(),
                }
            }
            Some(other) => {
                cx.wrong_type(&at("arguments"), "arguments", "a mapping", other);
                "{}".to_owned()
            }
        };
        let frequency = get("frequency")
            .and_then(|v| cx.choice(&at("frequency"), "frequency", v, &Frequency::ALL))
            .unwrap_or_default();
        let refresh_condition = match get("refresh_condition") {
            None | Some(Yaml::Null) => None,
            Some(Yaml::Map(rc)) => {
                let rbase = at("refresh_condition");
                cx.unknown_keys(&rbase, rc, &REFRESH_FIELDS, "a refresh condition");
                let rget = |k: &str| rc.iter().find(|(key, _)| key == k).map(|(_, v)| v);
                let rat = |k: &'static str| {
                    [
                        Seg::Key("hooks"),
                        Seg::Index(i),
                        Seg::Key("refresh_condition"),
                        Seg::Key(k),
                    ]
                };
                match rget("kind") {
                    Some(k) => {
                        cx.choice(&rat("kind"), "refresh condition kind", k, &[("ttl", ())]);
                    }
                    None => cx.err(
                        &rbase,
                        false,
                        "refresh condition is missing `kind: ttl`".into(),
                        None,
                    ),
                }
                match rget("ttl_minutes") {
                    Some(v) => cx
                        .positive(&rat("ttl_minutes"), "ttl_minutes", v)
                        .map(|ttl_minutes| RefreshCondition::Ttl { ttl_minutes }),
                    None => {
                        cx.err(
                            &rbase,
                            false,
                            "refresh condition is missing `ttl_minutes`".into(),
                            None,
                        );
                        None
                    }
                }
            }
            Some(other) => {
                cx.wrong_type(
                    &at("refresh_condition"),
                    "refresh_condition",
                    "a mapping `{kind: ttl, ttl_minutes: N}`",
                    other,
                );
                None
            }
        };
        let timeout_sec =
            get("timeout_sec").and_then(|v| cx.positive(&at("timeout_sec"), "timeout_sec", v));
        if cx.diags.len() != before {
            continue;
        }
        if let (Some(event), Some(tool_name)) = (event, tool_name) {
            event_hook_index.push(i);
            spec.hooks.push(EventHookSpec {
                event,
                name,
                timeout_sec,
                action: EventHookAction::ToolCall(ToolCallInjection {
                    toolset_name,
                    tool_name,
                    arguments,
                    frequency,
                    refresh_condition,
                }),
                span: None,
            });
        }
    }
}

/// `value` as JSON, exactly: what would change on the way is an error at
/// its place (`path`): a tag (`!secret x`, which JSON cannot carry), a
/// number JSON cannot hold (`.nan`, `.inf`), and keys that are one key once
/// written as JSON text (`1` and `"1"`). `None`: reported.
fn exact_json<'y>(
    value: &'y Yaml,
    path: &mut Vec<Seg<'y>>,
    cx: &mut Ctx<'_>,
) -> Option<serde_json::Value> {
    use serde_json::Value;
    match value {
        Yaml::Tagged(tag) => {
            cx.err(
                path,
                true,
                format!("injection arguments cannot carry the YAML tag `{tag}`: JSON has no tags"),
                Some("write the value without the tag (quote it, `\"!text\"`, if the `!` is part of a string)".into()),
            );
            None
        }
        Yaml::Float(f) if !f.is_finite() => {
            cx.err(
                path,
                true,
                format!("injection arguments cannot hold `{f}`: JSON has no such number"),
                Some("write a finite number, or quote it (`\".nan\"`) to pass a string".into()),
            );
            None
        }
        Yaml::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            let mut ok = true;
            for (i, item) in items.iter().enumerate() {
                path.push(Seg::Index(i));
                match exact_json(item, path, cx) {
                    Some(v) => out.push(v),
                    None => ok = false,
                }
                path.pop();
            }
            ok.then_some(Value::Array(out))
        }
        Yaml::Map(entries) => {
            let mut out = serde_json::Map::new();
            let mut ok = true;
            for (key, item) in entries {
                path.push(Seg::Key(key.as_str()));
                if out.contains_key(key) {
                    cx.err(
                        path,
                        false,
                        format!("key `{key}` is given twice once written as JSON (a number key and a string key, or the same text)"),
                        Some(format!("keep one `{key}`")),
                    );
                    ok = false;
                } else {
                    match exact_json(item, path, cx) {
                        Some(v) => {
                            out.insert(key.clone(), v);
                        }
                        None => ok = false,
                    }
                }
                path.pop();
            }
            ok.then_some(Value::Object(out))
        }
        other => Some(other.to_json()),
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
