//! The MCP server configuration beside the cards (`hookwire.yaml`):
//! checked in full, with the reading the runtime loads it with
//! (`hookwire_spec::parse_server_entry`, `check_server_file_key`), every
//! mistake at its line; and every name in a card's `servers:` declared in
//! it.

use std::path::Path;
use std::sync::Arc;

use super::{Diagnostic, SERVER_CONFIG_FILES, did_you_mean, fields, regular_card};
use crate::spec::{
    CoverageSpec, LOCK_FILE, McpLock, check_server_file_key, parse_coverage_entry,
    server_entry_errors,
};
use crate::yaml::{self, Seg, Yaml};

/// If the cards folder has a server configuration file, checks it as the
/// runtime reads it, and every name in a card's `servers:` must be
/// declared in it.
///
/// Returns its `coverage:` rules, each with where it is.
pub(super) fn check_servers(
    root: &Path,
    dir: &Path,
    parsed: &[fields::Parsed],
    diags: &mut Vec<Diagnostic>,
) -> Vec<FolderRule> {
    let mut rules = Vec::new();
    let Some(file) = SERVER_CONFIG_FILES
        .iter()
        .find(|f| std::fs::symlink_metadata(root.join(f)).is_ok())
    else {
        return rules;
    };
    let shown = dir.join(file);
    let text = match regular_card(root, &root.join(file))
        .map_err(|e| std::io::Error::other(e.why().to_owned()))
        .and_then(std::fs::read_to_string)
    {
        Ok(text) => text,
        Err(e) => {
            diags.push(Diagnostic::new(
                &shown,
                None,
                1,
                1,
                1,
                format!("cannot read the server configuration: {e}"),
            ));
            return rules;
        }
    };
    let at = |path: &[Seg<'_>], message: String| {
        let loc = yaml::locate(&text, path);
        let (col, len) = loc.value_or_key();
        Diagnostic::new(&shown, Some(&text), loc.line, col, len, message)
    };
    let at_key = |path: &[Seg<'_>], message: String| {
        let loc = yaml::locate(&text, path);
        Diagnostic::new(
            &shown,
            Some(&text),
            loc.line,
            loc.key_col,
            loc.key_len.max(1),
            message,
        )
    };
    let top = match yaml::parse(&text) {
        Ok(Yaml::Map(top)) => top,
        Ok(Yaml::Null) => Vec::new(),
        Ok(other) => {
            diags.push(Diagnostic::new(
                &shown,
                Some(&text),
                1,
                1,
                1,
                format!(
                    "the server configuration must be a mapping with `servers:`, found {}",
                    other.kind()
                ),
            ));
            return rules;
        }
        Err(e) => {
            diags.push(Diagnostic::new(
                &shown,
                Some(&text),
                e.line,
                e.col,
                1,
                format!("the server configuration is not valid YAML: {}", e.message),
            ));
            return rules;
        }
    };
    let mut declared: Vec<String> = Vec::new();
    // Without a readable `servers:` no name can be checked against it.
    let mut unreadable = false;
    for (key, value) in top {
        if let Err(message) = check_server_file_key(&key) {
            diags.push(at_key(&[Seg::Key(&key)], message));
            continue;
        }
        if key == "coverage" {
            let entries = match value {
                Yaml::Seq(entries) => entries,
                Yaml::Null => Vec::new(),
                other => {
                    diags.push(at(&[Seg::Key("coverage")], format!(
                        "`coverage` must be a list of rules, found {}", other.kind()
                    )).help("for example `coverage: [{rule: approval_or_guard, match: \"meta:destructive\"}]`"));
                    continue;
                }
            };
            for (i, entry) in entries.iter().enumerate() {
                let path = [Seg::Key("coverage"), Seg::Index(i)];
                match parse_coverage_entry(&entry.to_json()) {
                    Ok((kind, matcher)) => {
                        let mut spec = CoverageSpec::new(kind);
                        spec.matcher = matcher;
                        // An error about the rule is shown at it, naming
                        // the agent and the tool.
                        rules.push(FolderRule {
                            spec,
                            at: at(&path, String::new()),
                        });
                    }
                    Err(message) => diags.push(at(&path, message)),
                }
            }
            continue;
        }
        let servers = match value {
            Yaml::Map(servers) => servers,
            Yaml::Null => Vec::new(),
            other => {
                diags.push(
                    at(&[Seg::Key("servers")], format!(
                        "`servers` must be a mapping from server name to server, found {}",
                        other.kind()
                    ))
                    .help("name each server under `servers:`, for example `time: {command: uvx, args: [mcp-server-time]}`"),
                );
                unreadable = true;
                continue;
            }
        };
        for (name, entry) in servers {
            let keys: Vec<String> = match &entry {
                Yaml::Map(fields) => fields.iter().map(|(k, _)| k.clone()).collect(),
                _ => Vec::new(),
            };
            for message in server_entry_errors(&name, entry.to_json()) {
                let path = offending(&name, &keys, &message);
                let segs: Vec<Seg<'_>> = path.iter().map(|k| Seg::Key(k)).collect();
                diags.push(at_key(&segs, format!("server `{name}`: {message}")));
            }
            declared.push(name);
        }
    }
    if !unreadable {
        check_names(parsed, &declared, file, diags);
    }
    rules
}

/// A `coverage:` rule of the server configuration: it holds for every
/// card of the folder.
pub(super) struct FolderRule {
    spec: CoverageSpec,
    /// The diagnostic at the rule, its message to be given.
    at: Diagnostic,
}

/// Gives every card the folder's coverage rules and checks them on its
/// policy (the agent's tools, chains and approval rules, as the generated
/// agent's `policy()` gives them): each broken rule is an error at the
/// rule, naming the agent, the tool and the fix.
pub(super) fn check_coverage(
    rules: &[FolderRule],
    cards: &mut [super::Card],
    diags: &mut Vec<Diagnostic>,
) {
    if rules.is_empty() {
        return;
    }
    for card in cards {
        card.spec.coverage = rules.iter().map(|r| r.spec.clone()).collect();
        let policy = super::report::card_policy(card);
        for (rule, message) in crate::spec::AgentSpec::coverage_errors(&policy) {
            let mut d = rules[rule].at.clone();
            d.message = format!("agent `{}`: {message}", card.spec.name);
            diags.push(d);
        }
    }
}

/// The MCP lock beside the cards (`hookwire.lock`), if there is one, read
/// as the runtime reads it; a lock that does not read is an error at it.
/// The cards' matchers are checked against its tools.
pub(super) fn read_lock(
    root: &Path,
    dir: &Path,
    diags: &mut Vec<Diagnostic>,
) -> Option<Arc<McpLock>> {
    let path = root.join(LOCK_FILE);
    std::fs::symlink_metadata(&path).ok()?;
    let shown = dir.join(LOCK_FILE);
    let text = regular_card(root, &path)
        .map_err(|e| e.why().to_owned())
        .and_then(|real| std::fs::read_to_string(real).map_err(|e| e.to_string()));
    let parsed = text.and_then(|text| McpLock::parse(&text));
    match parsed {
        Ok(lock) => Some(Arc::new(lock)),
        Err(message) => {
            diags.push(
                Diagnostic::new(
                    &shown,
                    None,
                    1,
                    1,
                    1,
                    format!("the MCP lock does not read: {message}"),
                )
                .help("write it again with `cardgen mcp lock`"),
            );
            None
        }
    }
}

/// The path of the key a server entry's error is about: a header's name
/// under `headers` for a header's error, else the first key of the entry
/// the message names in backticks, else the entry's name.
fn offending(name: &str, keys: &[String], message: &str) -> Vec<String> {
    let mut path = vec!["servers".to_owned(), name.to_owned()];
    let named: Vec<&str> = message.split('`').skip(1).step_by(2).collect();
    let header = message
        .strip_prefix("header `")
        .and_then(|rest| rest.split('`').next())
        .or_else(|| {
            message
                .ends_with("is not a valid HTTP header name")
                .then(|| named.first().copied())
                .flatten()
        });
    match header {
        Some(header) if keys.iter().any(|k| k == "headers") => {
            path.extend(["headers".to_owned(), header.to_owned()]);
        }
        Some(_) if keys.iter().any(|k| k == "bearer_token") => path.push("bearer_token".to_owned()),
        _ => {
            if let Some(key) = named.iter().find(|n| keys.iter().any(|k| k == *n)) {
                path.push((*key).to_owned());
            }
        }
    }
    path
}

/// Every name in a card's `servers:` is declared in `file`.
fn check_names(
    parsed: &[fields::Parsed],
    declared: &[String],
    file: &str,
    diags: &mut Vec<Diagnostic>,
) {
    for p in parsed {
        for (i, server) in p.spec.servers.iter().enumerate() {
            if !declared.iter().any(|d| d == server) {
                diags.push(
                    p.src
                        .at(
                            &[Seg::Key("servers"), Seg::Index(i)],
                            true,
                            format!("unknown server `{server}`: `{file}` does not declare it"),
                        )
                        .maybe_help(
                            did_you_mean(server, declared.iter().map(String::as_str))
                                .map(|s| crate::spec::suggestion_help(server, s)),
                        )
                        .note(format!("servers in {file}: {}", declared.join(", "))),
                );
            }
        }
    }
}
