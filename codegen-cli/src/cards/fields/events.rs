//! The card's `hooks:` list: lifecycle hook references, and config-driven
//! `kind: tool_call` injections (an event, the tool to call, its exact
//! JSON arguments, how often).

use super::*;

const EVENT_HOOK_FIELDS: [&str; 9] = [
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

const REFRESH_FIELDS: [&str; 2] = ["kind", "ttl_minutes"];

/// Events that `kind: tool_call` entries can fire at (what the runtime
/// implements for config-driven hooks).
const TOOL_CALL_EVENTS: [HookEvent; 2] = HookEvent::TOOL_CALL_EVENTS;

/// `hooks:`: each entry a lifecycle hook (a string, or a mapping with
/// `hook:`) or an injection (a mapping with `event:`).
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
        let entry = EventEntry { i, entries };
        if let Some(hook) = entry.parse(cx) {
            event_hook_index.push(i);
            spec.hooks.push(hook);
        }
    }
}

/// Entry `i` of `hooks:`, a mapping with `event:`.
struct EventEntry<'y> {
    i: usize,
    entries: &'y [(String, Yaml)],
}

impl<'y> EventEntry<'y> {
    /// The value of field `k`.
    fn get(&self, k: &str) -> Option<&'y Yaml> {
        self.entries
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v)
    }

    /// The path of field `k`.
    fn at(&self, k: &'static str) -> [Seg<'static>; 3] {
        [Seg::Key("hooks"), Seg::Index(self.i), Seg::Key(k)]
    }

    /// The injection, `None` when a field was wrong (reported).
    fn parse(&self, cx: &mut Ctx<'_>) -> Option<EventHookSpec> {
        let base = [Seg::Key("hooks"), Seg::Index(self.i)];
        cx.unknown_keys(&base, self.entries, &EVENT_HOOK_FIELDS, "a hook");
        let before = cx.diags.len();
        let event = self.event(cx);
        let name = self
            .get("name")
            .and_then(|v| cx.nonempty(&self.at("name"), "name", v));
        let toolset_name = self
            .get("toolset_name")
            .and_then(|v| cx.nonempty(&self.at("toolset_name"), "toolset_name", v));
        let tool_name = match self.get("tool_name") {
            Some(v) => cx.nonempty(&self.at("tool_name"), "tool_name", v),
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
        let arguments = self.arguments(cx);
        let frequency = self
            .get("frequency")
            .and_then(|v| cx.choice(&self.at("frequency"), "frequency", v, &Frequency::ALL))
            .unwrap_or_default();
        let refresh_condition = self.refresh_condition(cx);
        let timeout_sec = self
            .get("timeout_sec")
            .and_then(|v| cx.positive(&self.at("timeout_sec"), "timeout_sec", v));
        if cx.diags.len() != before {
            return None;
        }
        Some(EventHookSpec {
            event: event?,
            name,
            timeout_sec,
            action: EventHookAction::ToolCall(ToolCallInjection {
                toolset_name,
                tool_name: tool_name?,
                arguments,
                frequency,
                refresh_condition,
            }),
            span: None,
        })
    }

    /// `event:` (required) and `kind:` (`tool_call`, the default): an
    /// event a `tool_call` hook can fire at.
    fn event(&self, cx: &mut Ctx<'_>) -> Option<HookEvent> {
        let event = match self.get("event") {
            Some(e) => cx.choice(&self.at("event"), "event", e, &HookEvent::ALL),
            None => {
                cx.err(
                    &[Seg::Key("hooks"), Seg::Index(self.i)],
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
        let kind = match self.get("kind") {
            Some(k) => cx.choice(&self.at("kind"), "hook kind", k, &[("tool_call", ())]),
            None => Some(()),
        };
        if let (Some(event), Some(())) = (event, kind)
            && !TOOL_CALL_EVENTS.contains(&event)
        {
            {
                let names: Vec<&str> = TOOL_CALL_EVENTS.iter().map(|e| e.as_str()).collect();
                cx.err(
                    &self.at("event"),
                    true,
                    format!(
                        "`kind: tool_call` hooks cannot fire at `{event}` (supported: {})",
                        names.join(", ")
                    ),
                    None,
                );
            }
        }
        event
    }

    /// `arguments:`, a mapping, as JSON text (`{}` without one).
    fn arguments(&self, cx: &mut Ctx<'_>) -> String {
        match self.get("arguments") {
            None | Some(Yaml::Null) => "{}".to_owned(),
            Some(v @ Yaml::Map(_)) => {
                let mut path = self.at("arguments").to_vec();
                match exact_json(v, &mut path, cx) {
                    Some(json) => serde_json::to_string(&json).unwrap_or_else(|_| "{}".into()),
                    None => "{}".to_owned(),
                }
            }
            Some(other) => {
                cx.wrong_type(&self.at("arguments"), "arguments", "a mapping", other);
                "{}".to_owned()
            }
        }
    }

    /// `refresh_condition:`, `{kind: ttl, ttl_minutes: N}`.
    fn refresh_condition(&self, cx: &mut Ctx<'_>) -> Option<RefreshCondition> {
        let i = self.i;
        match self.get("refresh_condition") {
            None | Some(Yaml::Null) => None,
            Some(Yaml::Map(rc)) => {
                let rbase = self.at("refresh_condition");
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
                    &self.at("refresh_condition"),
                    "refresh_condition",
                    "a mapping `{kind: ttl, ttl_minutes: N}`",
                    other,
                );
                None
            }
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
