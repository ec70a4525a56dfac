//! `cardgen explain`, `cardgen graph` and `cardgen schema`.

use std::fmt::Write as _;

use super::Cards;
use crate::spec::{EventHookAction, HookRef, ToolSource};

fn hook_line(h: &HookRef) -> String {
    let mut attrs = vec![format!("match {}", h.matcher), h.policy.as_str().to_owned()];
    if let Some(ms) = h.timeout_ms {
        attrs.push(format!("timeout {ms} ms"));
    }
    format!("{} [{}]", h.display_name(), attrs.join(", "))
}

/// The adapter of the card's function tool `tool`.
fn tool_adapter<'a>(card: &'a super::Card, tool: &str) -> Option<&'a super::Adapter> {
    card.adapters
        .iter()
        .find(|a| a.is_tool && a.reference.ends_with(&format!(":{tool}")))
}

/// Every tool of the agent `name` with its resolved chain, in the order it
/// runs (outermost hook first); `None` if there is no such agent.
pub fn explain(cards: &Cards, name: &str) -> Option<String> {
    let card = cards.get(name)?;
    let spec = &card.spec;
    let file = card
        .path
        .file_name()
        .map(|n| super::escape(&n.to_string_lossy()).into_owned())
        .unwrap_or_default();
    let mut out = format!("agent {} ({file})\n", spec.name);
    type Arguments<'a> = Option<(&'a [(String, String)], &'a [(String, String)])>;
    let mut tools: Vec<(String, ToolSource, String, &[String], Arguments<'_>)> = spec
        .function_tools
        .iter()
        .map(|t| {
            let adapter = tool_adapter(card, &t.name);
            let from = adapter.map(|a| a.reference.clone()).unwrap_or_default();
            let own = adapter.map(|a| a.own_chain.as_slice()).unwrap_or_default();
            let arguments =
                adapter.map(|a| (a.arguments.as_slice(), a.argument_defaults.as_slice()));
            (t.name.clone(), t.source, from, own, arguments)
        })
        .collect();
    for child in &spec.agents {
        tools.push((
            child.tool_name(),
            ToolSource::Agent,
            format!("agent {}", child.name),
            &[],
            None,
        ));
    }
    if tools.is_empty() {
        out.push_str("  (no statically known tools)\n");
    }
    for (name, source, from, own, arguments) in &tools {
        let from = if from.is_empty() {
            String::new()
        } else {
            format!(", {from}")
        };
        let _ = writeln!(out, "\ntool {name} ({source}{from})");
        if let Some((arguments, defaults)) = arguments {
            let _ = writeln!(out, "  arguments: {}", arguments_shape(arguments, defaults));
        }
        let chain = spec.resolved_chain(name, *source, &[]);
        for (i, h) in chain.iter().enumerate() {
            let _ = writeln!(out, "  {}. {}", i + 1, hook_line(h));
        }
        for (i, step) in own.iter().enumerate() {
            let _ = writeln!(out, "  {}. {step} [the tool's own]", chain.len() + i + 1);
        }
        let skipped: Vec<&HookRef> = spec
            .tool_hooks
            .iter()
            .filter(|h| !chain.iter().any(|c| std::ptr::eq(*c, *h)))
            .collect();
        let _ = writeln!(out, "  -> {name}");
        for h in skipped {
            let _ = writeln!(out, "  (not applied: {} does not match)", hook_line(h));
        }
        let target = crate::spec::MatchTarget::new(name, *source);
        let lifecycle: Vec<String> = spec
            .lifecycle_hooks
            .iter()
            .enumerate()
            .filter(|(_, h)| h.matcher.matches(target))
            .map(|(i, h)| format!("{}. {}", i + 1, h.display_name()))
            .collect();
        if !lifecycle.is_empty() {
            let _ = writeln!(
                out,
                "  lifecycle hooks on its calls (pre/post tool use): {}",
                lifecycle.join(", ")
            );
        }
    }
    if !spec.servers.is_empty() {
        let _ = writeln!(
            out,
            "\nMCP tools of {} (discovered at run time; matchers evaluated at run time):",
            spec.servers.join(", ")
        );
        for f in &spec.mcp_tools {
            let _ = writeln!(out, "  filter {}: {}", f.server, f.globs.join(", "));
        }
        for (i, h) in spec.tool_hooks.iter().enumerate() {
            let _ = writeln!(out, "  {}. {}", i + 1, hook_line(h));
        }
    }
    if !spec.lifecycle_hooks.is_empty() {
        out.push_str("\nlifecycle hooks (agent loop, in declared order):\n");
        for (i, h) in spec.lifecycle_hooks.iter().enumerate() {
            let mut attrs = vec![format!("match {}", h.matcher)];
            attrs.extend(h.policy.map(|p| p.as_str().to_owned()));
            if let Some(ms) = h.timeout_ms {
                attrs.push(format!("timeout {ms} ms"));
            }
            let _ = writeln!(
                out,
                "  {}. {} [{}]",
                i + 1,
                h.display_name(),
                attrs.join(", ")
            );
        }
    }
    if !spec.hooks.is_empty() {
        out.push_str("\nrequest hooks:\n");
        for h in &spec.hooks {
            let what = match &h.action {
                EventHookAction::ToolCall(c) => {
                    let mut s = format!(
                        "tool_call {} ({})",
                        c.final_tool_name(),
                        c.frequency.as_str()
                    );
                    if let Some(crate::spec::RefreshCondition::Ttl { ttl_minutes }) =
                        c.refresh_condition
                    {
                        let _ = write!(s, ", ttl {ttl_minutes} min");
                    }
                    s
                }
                EventHookAction::Rust { ty, .. } => ty.clone(),
            };
            let _ = writeln!(out, "  {}: {what}", h.event);
        }
    }
    Some(out)
}

/// The agent `name`'s policy as its JSON document (CARDS.md, "The policy
/// document"): what the generated agent's `policy().to_json()` gives;
/// `None` if there is no such agent.
pub fn explain_json(cards: &Cards, name: &str) -> Option<String> {
    Some(card_policy(cards.get(name)?).to_json())
}

/// The card's policy: its spec's, with each function tool's own hooks
/// and approval rule read from the tool's `#[tool(..)]`.
pub(super) fn card_policy(card: &super::Card) -> crate::spec::Policy {
    card.spec.policy(|t| {
        tool_adapter(card, &t.name)
            .map(|a| a.own_policy.clone())
            .unwrap_or((Vec::new(), crate::spec::Approval::None))
    })
}

/// The output format of [`graph`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphFormat {
    /// Mermaid `flowchart`.
    Mermaid,
    /// Graphviz DOT.
    Dot,
}

/// Node ids for the graph: readable (`agent_PMO_orchestrator`), valid in
/// both Mermaid and DOT without quoting (ASCII letters, digits and `_`), and
/// one per node: names that clean up to the same id (`a-b`, `a_b`) get a
/// numbered suffix, in the order they are first met.
#[derive(Default)]
struct NodeIds {
    by_key: std::collections::HashMap<String, String>,
    taken: std::collections::HashSet<String>,
}

impl NodeIds {
    /// The id of the node of kind `prefix` named by `parts`.
    fn get(&mut self, prefix: &str, parts: &[&str]) -> String {
        let key = std::iter::once(prefix)
            .chain(parts.iter().copied())
            .collect::<Vec<_>>()
            .join("\u{0}");
        if let Some(id) = self.by_key.get(&key) {
            return id.clone();
        }
        let mut base = prefix.to_owned();
        for part in parts {
            base.push('_');
            base.extend(
                part.chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }),
            );
        }
        let mut id = base.clone();
        let mut n = 2;
        while self.taken.contains(&id) {
            id = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(id.clone());
        self.by_key.insert(key, id.clone());
        id
    }
}

/// `text` as a DOT quoted string: `"` and `\` escaped, line breaks as
/// DOT's `\n`, every other character as it is (DOT reads UTF-8).
fn dot_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` inside a quoted Mermaid label: Mermaid has no escape for `"`
/// there, so it becomes `'`, and a line break (which would end the
/// statement) becomes a space.
fn mermaid_text(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' => '\'',
            '\n' | '\r' => ' ',
            c => c,
        })
        .collect()
}

/// Agents, tools, hooks and agent-as-tool edges as a picture.
pub fn graph(cards: &Cards, format: GraphFormat) -> String {
    let mut ids = NodeIds::default();
    let mut nodes: Vec<(String, String, &str)> = Vec::new(); // id, label, kind
    let mut edges: Vec<(String, String, String)> = Vec::new();
    let add_node = |nodes: &mut Vec<(String, String, &str)>, n: (String, String, &'static str)| {
        if !nodes.iter().any(|x| x.0 == n.0) {
            nodes.push(n);
        }
    };
    for card in &cards.cards {
        let spec = &card.spec;
        let a = ids.get("agent", &[&spec.name]);
        add_node(&mut nodes, (a.clone(), spec.name.clone(), "agent"));
        for t in &spec.function_tools {
            let tid = ids.get("tool", &[&spec.name, &t.name]);
            add_node(&mut nodes, (tid.clone(), t.name.clone(), "tool"));
            edges.push((a.clone(), tid.clone(), "tool".into()));
            for (i, h) in spec
                .resolved_chain(&t.name, t.source, &[])
                .iter()
                .enumerate()
            {
                let hid = ids.get("hook", &[h.display_name()]);
                add_node(
                    &mut nodes,
                    (hid.clone(), h.display_name().to_owned(), "hook"),
                );
                edges.push((hid, tid.clone(), format!("hook {}", i + 1)));
            }
        }
        for s in &spec.servers {
            let sid = ids.get("server", &[s]);
            add_node(&mut nodes, (sid.clone(), format!("mcp: {s}"), "server"));
            edges.push((a.clone(), sid, "mcp".into()));
        }
        for child in &spec.agents {
            edges.push((
                a.clone(),
                ids.get("agent", &[&child.name]),
                child.tool_name(),
            ));
        }
        for (i, h) in spec.lifecycle_hooks.iter().enumerate() {
            let hid = ids.get("lifecycle", &[h.display_name()]);
            add_node(
                &mut nodes,
                (hid.clone(), h.display_name().to_owned(), "lifecycle"),
            );
            let label = if h.matcher.is_always() {
                format!("lifecycle {}", i + 1)
            } else {
                format!("lifecycle {}, match {}", i + 1, h.matcher)
            };
            edges.push((a.clone(), hid, label));
        }
        for (i, h) in spec.hooks.iter().enumerate() {
            let hid = ids.get("event", &[&spec.name, &i.to_string()]);
            let label = match &h.action {
                EventHookAction::ToolCall(c) => format!("{}: {}", h.event, c.final_tool_name()),
                EventHookAction::Rust { ty, .. } => format!("{}: {ty}", h.event),
            };
            add_node(&mut nodes, (hid.clone(), label, "event"));
            edges.push((a.clone(), hid, "on".into()));
        }
    }
    let mut out = String::new();
    match format {
        GraphFormat::Mermaid => {
            out.push_str("flowchart LR\n");
            for (nid, label, kind) in &nodes {
                let label = mermaid_text(label);
                let shape = match *kind {
                    "agent" => format!("{nid}[\"{label}\"]"),
                    "tool" => format!("{nid}([\"{label}\"])"),
                    "hook" => format!("{nid}{{{{\"{label}\"}}}}"),
                    "server" => format!("{nid}[(\"{label}\")]"),
                    "lifecycle" => format!("{nid}[[\"{label}\"]]"),
                    _ => format!("{nid}>\"{label}\"]"),
                };
                let _ = writeln!(out, "  {shape}");
            }
            for (from, to, label) in &edges {
                let _ = writeln!(out, "  {from} -->|\"{}\"| {to}", mermaid_text(label));
            }
        }
        GraphFormat::Dot => {
            out.push_str("digraph agents {\n  rankdir=LR;\n");
            for (nid, label, kind) in &nodes {
                let shape = match *kind {
                    "agent" => "box",
                    "tool" => "ellipse",
                    "hook" => "hexagon",
                    "server" => "cylinder",
                    "lifecycle" => "component",
                    _ => "note",
                };
                let _ = writeln!(out, "  {nid} [label={}, shape={shape}];", dot_string(label));
            }
            for (from, to, label) in &edges {
                let _ = writeln!(out, "  {from} -> {to} [label={}];", dot_string(label));
            }
            out.push_str("}\n");
        }
    }
    out
}

/// The JSON Schema of a card's frontmatter, for editors.
pub fn schema() -> serde_json::Value {
    use crate::spec::{FailurePolicy, Frequency, HookEvent, SETTINGS};
    use serde_json::json;
    let names = |t: &[&str]| json!(t);
    let policies: Vec<&str> = FailurePolicy::SPELLINGS.iter().map(|(s, _)| *s).collect();
    let freq: Vec<&str> = Frequency::ALL.iter().map(|(s, _)| *s).collect();
    let rust_ref = |description: &str| json!({"type": "string", "pattern": "^[^:]+\\.rs:[A-Za-z_][A-Za-z0-9_]*$", "description": description});
    let reference = rust_ref("`file.rs:function`, relative to the card's folder");
    let lifecycle = rust_ref(
        "`file.rs:Type`: a public type implementing `hookwire::agent::lifecycle::LifecycleHooks` and `Default`, relative to the card's folder",
    );
    let matcher = json!({"type": "string", "description": "name, a|b, glob, /regex/, source:mcp, step:tool, step:final, !pattern"});
    let positive = json!({"type": "integer", "minimum": 1});
    // A `hooks:` entry: a lifecycle hook (`file.rs:Type` or `{hook, match}`)
    // or a config-driven request hook.
    let hook_entry = json!({"oneOf": [lifecycle, {
        "type": "object", "additionalProperties": false, "required": ["hook"],
        "description": "a lifecycle hook type, for the tools `match` selects",
        "properties": {
            "hook": lifecycle,
            "match": matcher,
            "on_failure": {"enum": names(&policies)},
            "timeout_ms": positive
        }
    }, {
        "type": "object", "additionalProperties": false, "required": ["event", "tool_name"],
        "description": "a config-driven request hook",
        "properties": {
            "event": {"enum": names(&HookEvent::names())},
            "kind": {"const": "tool_call"},
            "name": {"type": "string"},
            "toolset_name": {"type": "string"},
            "tool_name": {"type": "string"},
            "arguments": {"type": "object"},
            "frequency": {"enum": names(&freq)},
            "refresh_condition": {"type": "object", "additionalProperties": false, "required": ["kind", "ttl_minutes"],
                "properties": {"kind": {"const": "ttl"}, "ttl_minutes": positive}},
            "timeout_sec": positive
        }
    }]});
    // The fields in `FIELDS`' order: the settings (the table's rows) between
    // `hooks` and `tool_input_schema`.
    let mut properties = serde_json::Map::new();
    let mut add = |part: serde_json::Value| {
        if let serde_json::Value::Object(fields) = part {
            properties.extend(fields);
        }
    };
    add(json!({
        "type": {"const": "agent"},
        "name": {"type": "string", "minLength": 1, "description": "defaults to the file stem"},
        "durable_name": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_.-]{0,63}$", "description": "the prefix of its Restate service names (`<durable_name>Session`, `<durable_name>Approval`); defaults to the name in UpperCamelCase"},
        "instruction": {"type": "string", "description": "the system instruction (or the body of a .md card, not both)"},
        "description": {"type": "string"},
        "default": {"type": "boolean"},
        "deps": rust_ref("`file.rs:Type`: the public, non-generic type the agent is built from (`Agent::new(&deps)`), relative to the card's folder"),
        "servers": {"type": "array", "items": {"anyOf": [
            {"type": "string", "minLength": 1},
            {
                "type": "object", "additionalProperties": false, "required": ["name"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "available": rust_ref("file.rs:function, fn(&StepView) -> bool: whether the server's tools are offered in a step"),
                    "instruction": {"type": "string", "minLength": 1, "description": "added to the system prompt while the server's tools are offered: a text, or file.rs:function, fn(&StepView) -> String"}
                }
            }
        ]}},
        "runtime_tools": {"type": "boolean", "description": "tools may be registered at run time (source `runtime`); agent-level hooks run around them"},
        "tools": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}, "description": "MCP filters: server -> tool globs"},
        "function_tools": {"type": "array", "items": {"anyOf": [reference, {
            "type": "object", "additionalProperties": false, "required": ["tool"],
            "properties": {
                "tool": reference,
                "available": rust_ref("file.rs:function, fn(&StepView) -> bool: whether the tool is offered in a step"),
                "instruction": {"type": "string", "minLength": 1, "description": "added to the system prompt while the tool is offered: a text, or file.rs:function, fn(&StepView) -> String"}
            }
        }]}},
        "agents": {"type": "array", "items": {"anyOf": [
            {"type": "string", "minLength": 1},
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "output": rust_ref("file.rs:function, fn(&RunOutput, &[Message]) -> R: the tool result"),
                    "on_error": rust_ref("file.rs:function, fn(ToolError) -> R: what the parent model reads when a call fails"),
                    "meta": {"type": "object", "additionalProperties": {"type": ["string", "boolean"]}, "description": "metadata of the child's tool, for `meta:key` / `meta:key=value` matchers"}
                },
                "required": ["name"],
                "additionalProperties": false
            }
        ]}},
        "tool_hooks": {"type": "array", "items": {"oneOf": [reference, {
            "type": "object", "additionalProperties": false, "required": ["hook"],
            "properties": {
                "hook": reference,
                "match": matcher,
                "on_failure": {"enum": names(&policies)},
                "timeout_ms": positive
            }
        }]}},
        "hooks": {"type": "array", "items": hook_entry}
    }));
    for setting in SETTINGS {
        add(json!({ setting.key: (setting.schema)() }));
    }
    add(json!({
        "tool_input_schema": {"type": "object"},
        "output_type": {"type": "string", "minLength": 1, "description": "the Rust type of the final answer (`crate::plan::Plan`, `Deserialize + JsonSchema`): every run asks the model for its schema, and `Runner::run_output` returns it"},
        "output_schema": {"type": ["object", "boolean"], "description": "the JSON Schema of the final answer (not with `output_type`): every run asks the model for it and checks the answer"}
    }));
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hookwire AgentCard frontmatter",
        "type": "object",
        "additionalProperties": false,
        "properties": properties
    })
}

/// A tool's arguments as the model sends them: one JSON object, a field per
/// parameter, each with the parameter's Rust type (a struct parameter's
/// field holds that struct as an object), and the default of a parameter
/// that has one: `{"item": String, "count": u32 = 1}`.
fn arguments_shape(arguments: &[(String, String)], defaults: &[(String, String)]) -> String {
    let fields: Vec<String> = arguments
        .iter()
        .map(|(name, ty)| {
            // The type's tokens, spaced as code is written.
            let ty = ty.replace(' ', "").replace(',', ", ");
            let default = defaults
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, d)| format!(" = {}", super::escape(d)))
                .unwrap_or_default();
            format!(
                "\"{}\": {}{default}",
                super::escape(name),
                super::escape(&ty)
            )
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}
