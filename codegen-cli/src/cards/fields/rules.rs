//! `function_tools` and `servers` entries written as mappings, with the
//! agent's `available` / `instruction` for that tool or for all the
//! server's tools.

use super::{Ctx, RefKind, RefSpec, split_ref};
use crate::spec::{InstructionRef, ServerRulesSpec};
use crate::yaml::{Seg, Yaml};

/// The fields of a `function_tools` entry written as a mapping.
pub(super) const TOOL_ENTRY_FIELDS: [&str; 3] = ["tool", "available", "instruction"];
/// The fields of a `servers` entry written as a mapping.
pub(super) const SERVER_ENTRY_FIELDS: [&str; 3] = ["name", "available", "instruction"];

/// What an entry's rule is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RuleOf {
    /// The function tool of `tool_refs[i]`.
    Tool(usize),
    /// `spec.server_rules[i]`.
    Server(usize),
}

/// A function an entry's `available` or `instruction` names (`r.key`).
#[derive(Debug, Clone)]
pub(crate) struct StepFnRef {
    pub of: RuleOf,
    pub r: RefSpec,
}

/// A list entry: a plain string, or a mapping.
pub(super) enum Entry<'a> {
    Text(String),
    Map(&'a [(String, Yaml)]),
}

impl Ctx<'_> {
    /// The entries of a list field whose items are strings or mappings.
    pub(super) fn entries<'v>(
        &mut self,
        field: &'static str,
        v: &'v Yaml,
    ) -> Vec<(usize, Entry<'v>)> {
        let items = match v {
            Yaml::Seq(items) => items,
            Yaml::Null => return Vec::new(),
            other => {
                self.wrong_type(&[Seg::Key(field)], field, "a list", other);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item {
                Yaml::Map(entries) => out.push((i, Entry::Map(entries))),
                other => {
                    let p = [Seg::Key(field), Seg::Index(i)];
                    if let Some(s) = self.nonempty(&p, &format!("{field}[{i}]"), other) {
                        out.push((i, Entry::Text(s)));
                    }
                }
            }
        }
        out
    }

    /// The required `key` of the mapping entry `field[i]`, a non-empty
    /// string; `None` (reported) when missing or not one.
    pub(super) fn entry_key(
        &mut self,
        field: &'static str,
        i: usize,
        entries: &[(String, Yaml)],
        key: &'static str,
        example: &str,
    ) -> Option<String> {
        match entries.iter().find(|(k, _)| k == key) {
            Some((_, v)) => self.nonempty(&[Seg::Key(field), Seg::Index(i), Seg::Key(key)], key, v),
            None => {
                self.err(
                    &[Seg::Key(field), Seg::Index(i)],
                    true,
                    format!("a `{field}` entry written as a mapping is missing `{key}: {example}`"),
                    None,
                );
                None
            }
        }
    }

    /// The `available` and `instruction` of the mapping entry `field[i]`:
    /// functions are pushed on `refs` (resolved with the card's Rust
    /// files); a text instruction is returned.
    pub(super) fn step_rules(
        &mut self,
        field: &'static str,
        i: usize,
        entries: &[(String, Yaml)],
        of: RuleOf,
        refs: &mut Vec<StepFnRef>,
    ) -> Option<String> {
        let mut text = None;
        for (k, v) in entries {
            let key = match k.as_str() {
                "available" => "available",
                "instruction" => "instruction",
                _ => continue,
            };
            let p = [Seg::Key(field), Seg::Index(i), Seg::Key(key)];
            let Some(value) = self.nonempty(&p, key, v) else {
                continue;
            };
            let reference = RefSpec {
                text: value.clone(),
                file: String::new(),
                function: String::new(),
                field,
                index: Some(i),
                in_map: true,
                key,
            };
            match split_ref(&value, RefKind::Function) {
                Ok((file, function)) => refs.push(StepFnRef {
                    of,
                    r: RefSpec {
                        file,
                        function,
                        ..reference
                    },
                }),
                // Anything that is not written as a reference is the text.
                Err(_) if key == "instruction" && !looks_like_ref(&value) => text = Some(value),
                Err(m) => {
                    let help = if key == "available" {
                        "write `gates.rs:is_open`: a file next to the card and a public `fn(&hookwire::view::StepView) -> bool` in it"
                    } else {
                        "write the text itself, or `notes.rs:hint`: a file next to the card and a public `fn(&hookwire::view::StepView) -> String` in it"
                    };
                    self.err(&p, true, m, Some(help.to_owned()));
                }
            }
        }
        text
    }

    /// `servers:`: each entry a server's name, or a mapping with `name:`
    /// and the agent's `available` / `instruction` for all its tools.
    pub(super) fn servers(
        &mut self,
        v: &Yaml,
        rules: &mut Vec<ServerRulesSpec>,
        refs: &mut Vec<StepFnRef>,
    ) -> Vec<String> {
        let mut servers = Vec::new();
        for (i, entry) in self.entries("servers", v) {
            match entry {
                Entry::Text(name) => servers.push(name),
                Entry::Map(entries) => {
                    self.unknown_keys(
                        &[Seg::Key("servers"), Seg::Index(i)],
                        entries,
                        &SERVER_ENTRY_FIELDS,
                        "a `servers` entry",
                    );
                    let name = self.entry_key("servers", i, entries, "name", "<server>");
                    let of = RuleOf::Server(rules.len());
                    let text = self.step_rules("servers", i, entries, of, refs);
                    if let Some(name) = name {
                        rules.push(ServerRulesSpec {
                            server: name.clone(),
                            available: None,
                            instruction: text.map(InstructionRef::Text),
                        });
                        servers.push(name);
                    } else {
                        refs.retain(|r| r.of != of);
                    }
                }
            }
        }
        servers
    }
}

/// Whether `text` is meant as a `file.rs:function` reference: one word
/// with `.rs:` in it.
fn looks_like_ref(text: &str) -> bool {
    !text.trim().contains(char::is_whitespace) && text.contains(".rs:")
}
