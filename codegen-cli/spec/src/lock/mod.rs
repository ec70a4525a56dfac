//! The MCP lock file (`hookwire.lock`, beside `hookwire.yaml`): the tools
//! each server offered when it was locked, pinned against a server that
//! changes them later (a rug pull, a poisoned description).
//!
//! `cardgen mcp lock` writes it, `cardgen mcp lock --check` compares it
//! with the live servers, `cardgen check` and `#[agent(mcp_lock = ..)]`
//! check matchers against its tools, and the runtime (`McpConfig`) refuses
//! a tool that differs from it. All of them read it with [`McpLock::parse`].
//!
//! The file is JSON, every key sorted, so that a diff reads well:
//!
//! ```json
//! {
//!   "on_change": "drop",
//!   "servers": {
//!     "time": {
//!       "get_current_time": {
//!         "annotations": {},
//!         "description": "sha256:5f0c…",
//!         "input_schema": {"properties": {…}, "required": ["timezone"], "type": "object"}
//!       }
//!     }
//!   },
//!   "version": 1
//! }
//! ```
//!
//! A tool is its description (as the model reads it, kept as a digest),
//! its input schema and its annotations (both kept whole: the schema is
//! what argument types can be generated from).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::{MCP_HINT_KEYS, ToolMeta, did_you_mean};

mod digest;
mod drift;

pub use drift::{DriftKind, LockAspect, ToolDrift};

/// The lock's file name, beside the server configuration.
pub const LOCK_FILE: &str = "hookwire.lock";

/// The version of the lock format this crate reads and writes.
pub const LOCK_VERSION: u64 = 1;

/// What a run does with a tool that differs from the lock (the lock's
/// `on_change`). Either way the model never sees the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OnChange {
    /// Leave the tool out and go on (`drop`, the default).
    #[default]
    Drop,
    /// Stop the run with an error naming the tool (`stop`).
    Stop,
}

impl OnChange {
    /// The spelling in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Drop => "drop",
            Self::Stop => "stop",
        }
    }

    fn parse(text: &str) -> Result<Self, String> {
        match text {
            "drop" => Ok(Self::Drop),
            "stop" => Ok(Self::Stop),
            other => Err(format!(
                "`on_change` is `drop` or `stop`, got `{other}`{}",
                did_you_mean(other, ["drop", "stop"])
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default()
            )),
        }
    }
}

/// One locked tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LockedTool {
    /// The digest of its description as the model reads it
    /// (`sha256:<hex>`).
    pub description: String,
    /// Its input schema, whole.
    pub input_schema: Value,
    /// Its annotations (`readOnlyHint`, `destructiveHint`, ...), whole: an
    /// empty object when it has none.
    pub annotations: Value,
}

impl LockedTool {
    /// A tool as a server lists it: the description the model reads (see
    /// [`model_description`]), its input schema and its annotations.
    pub fn new(description: &str, input_schema: Value, annotations: Option<Value>) -> Self {
        Self {
            description: digest::digest(description),
            input_schema: sorted(input_schema),
            annotations: sorted(match annotations {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(a) => a,
            }),
        }
    }

    /// Its annotations as `meta:` matchers see them (`destructiveHint:
    /// true` as `destructive=true`, the keys of [`MCP_HINT_KEYS`]), as the
    /// runtime gives them to an MCP tool.
    pub fn meta(&self) -> ToolMeta {
        ToolMeta::from_pairs(MCP_HINT_KEYS.iter().filter_map(|(key, hint)| {
            match self.annotations.get(*hint)? {
                Value::Bool(true) => Some((*key, "true")),
                Value::Bool(false) => Some((*key, "false")),
                _ => None,
            }
        }))
    }
}

/// The description of an MCP tool as the model reads it: its
/// `description`, else its `title`, else nothing. The runtime offers this
/// text and the lock digests it.
pub fn model_description<'a>(description: Option<&'a str>, title: Option<&'a str>) -> &'a str {
    description.or(title).unwrap_or_default()
}

/// A lock: every locked server's tools, by name, and the policy.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct McpLock {
    /// What a run does with a tool that differs (`on_change`).
    pub on_change: OnChange,
    /// Server name to tool name to tool, sorted.
    pub servers: BTreeMap<String, BTreeMap<String, LockedTool>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLock {
    version: u64,
    on_change: Option<String>,
    servers: BTreeMap<String, BTreeMap<String, RawTool>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    description: String,
    input_schema: Value,
    #[serde(default)]
    annotations: Value,
}

impl McpLock {
    /// Reads a lock file's text; the error says what is wrong (and where,
    /// for a JSON error).
    ///
    /// ```
    /// use hookwire_spec::{McpLock, OnChange};
    ///
    /// let lock = McpLock::parse(r#"{"version": 1, "on_change": "stop", "servers": {}}"#).unwrap();
    /// assert_eq!(lock.on_change, OnChange::Stop);
    /// let e = McpLock::parse(r#"{"version": 1, "on_change": "stpo", "servers": {}}"#).unwrap_err();
    /// assert!(e.contains("did you mean `stop`?"), "{e}");
    /// ```
    pub fn parse(text: &str) -> Result<Self, String> {
        let raw: RawLock = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if raw.version != LOCK_VERSION {
            return Err(format!(
                "lock version {} is not one this version reads ({LOCK_VERSION}): write the lock again with `cardgen mcp lock`",
                raw.version
            ));
        }
        let on_change = raw
            .on_change
            .as_deref()
            .map_or(Ok(OnChange::default()), OnChange::parse)?;
        let mut servers = BTreeMap::new();
        for (server, tools) in raw.servers {
            crate::check_server_name(&server).map_err(|e| format!("server `{server}`: {e}"))?;
            let mut locked = BTreeMap::new();
            for (name, tool) in tools {
                if !digest::is_digest(&tool.description) {
                    return Err(format!(
                        "server `{server}`, tool `{name}`: `description` must be `sha256:` and 64 hex digits"
                    ));
                }
                if !tool.input_schema.is_object() {
                    return Err(format!(
                        "server `{server}`, tool `{name}`: `input_schema` must be an object"
                    ));
                }
                let annotations = match tool.annotations {
                    Value::Null => Value::Object(Map::new()),
                    a @ Value::Object(_) => sorted(a),
                    _ => {
                        return Err(format!(
                            "server `{server}`, tool `{name}`: `annotations` must be an object"
                        ));
                    }
                };
                locked.insert(
                    name,
                    LockedTool {
                        description: tool.description,
                        input_schema: sorted(tool.input_schema),
                        annotations,
                    },
                );
            }
            servers.insert(server, locked);
        }
        Ok(Self { on_change, servers })
    }

    /// The file's text: pretty JSON, every key sorted, a final newline.
    pub fn to_text(&self) -> String {
        let servers: Map<String, Value> = self
            .servers
            .iter()
            .map(|(server, tools)| {
                let tools: Map<String, Value> = tools
                    .iter()
                    .map(|(name, t)| {
                        let mut tool = Map::new();
                        tool.insert("annotations".into(), t.annotations.clone());
                        tool.insert("description".into(), Value::String(t.description.clone()));
                        tool.insert("input_schema".into(), t.input_schema.clone());
                        (name.clone(), Value::Object(tool))
                    })
                    .collect();
                (server.clone(), Value::Object(tools))
            })
            .collect();
        let mut top = Map::new();
        top.insert(
            "on_change".into(),
            Value::String(self.on_change.as_str().into()),
        );
        top.insert("servers".into(), Value::Object(servers));
        top.insert("version".into(), Value::from(LOCK_VERSION));
        let mut text =
            serde_json::to_string_pretty(&sorted(Value::Object(top))).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The locked tools of `server`, if it is locked.
    pub fn server(&self, server: &str) -> Option<&BTreeMap<String, LockedTool>> {
        self.servers.get(server)
    }

    /// How the tool `tool` that `server` lists now (`live`) differs from
    /// the lock: `None` when it is the locked tool, or `server` is not
    /// locked.
    pub fn check_tool(&self, server: &str, tool: &str, live: &LockedTool) -> Option<ToolDrift> {
        let locked = self.server(server)?;
        let kind = match locked.get(tool) {
            None => DriftKind::New,
            Some(pinned) => {
                let aspects = drift::aspects(pinned, live);
                if aspects.is_empty() {
                    return None;
                }
                DriftKind::Changed(aspects)
            }
        };
        Some(ToolDrift::new(server, tool, kind))
    }

    /// Every difference between the lock and the tools `server` lists now
    /// (`live`): changed and new tools, and locked tools it no longer
    /// lists, in name order. A server that is not locked is one
    /// [`DriftKind::Unlocked`].
    pub fn check_server(
        &self,
        server: &str,
        live: &BTreeMap<String, LockedTool>,
    ) -> Vec<ToolDrift> {
        let Some(locked) = self.server(server) else {
            return vec![ToolDrift::new(server, "", DriftKind::Unlocked)];
        };
        let mut out: Vec<ToolDrift> = live
            .iter()
            .filter_map(|(name, tool)| self.check_tool(server, name, tool))
            .collect();
        out.extend(
            locked
                .keys()
                .filter(|name| !live.contains_key(*name))
                .map(|name| ToolDrift::new(server, name, DriftKind::Missing)),
        );
        out.sort_by(|a, b| a.tool.cmp(&b.tool));
        out
    }
}

/// `value` with the keys of every object sorted (the order the file is
/// written and compared in).
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut pairs: Vec<(String, Value)> = map.into_iter().collect();
            pairs.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(pairs.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
