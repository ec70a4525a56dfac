//! How a live tool differs from its lock: what `cardgen mcp lock --check`
//! prints and what the runtime refuses a tool with.

use std::fmt;

use serde_json::Value;

use super::LockedTool;

/// What of a tool differs from the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LockAspect {
    /// Its description (the text the model reads).
    Description,
    /// Its input schema.
    InputSchema,
    /// Its annotations: the keys that differ, sorted.
    Annotations(Vec<String>),
}

impl fmt::Display for LockAspect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Description => f.write_str("description"),
            Self::InputSchema => f.write_str("input schema"),
            Self::Annotations(keys) if keys.is_empty() => f.write_str("annotations"),
            Self::Annotations(keys) => write!(f, "annotations ({})", keys.join(", ")),
        }
    }
}

/// How one tool of a server differs from the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DriftKind {
    /// The lock has it, and these differ.
    Changed(Vec<LockAspect>),
    /// The lock does not have it.
    New,
    /// The lock has it, the server no longer lists it.
    Missing,
    /// The whole server is not in the lock (the tool's name is empty).
    Unlocked,
}

/// A tool of a server that differs from the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolDrift {
    /// The server.
    pub server: String,
    /// The tool, as the server names it.
    pub tool: String,
    /// How it differs.
    pub kind: DriftKind,
}

impl ToolDrift {
    /// A difference of `tool` on `server`.
    pub fn new(server: &str, tool: &str, kind: DriftKind) -> Self {
        Self {
            server: server.to_owned(),
            tool: tool.to_owned(),
            kind,
        }
    }
}

impl fmt::Display for ToolDrift {
    /// ```
    /// use hookwire_spec::{DriftKind, LockAspect, ToolDrift};
    /// let d = ToolDrift::new("bank", "transfer", DriftKind::Changed(vec![LockAspect::Description]));
    /// assert_eq!(d.to_string(), "server `bank`: tool `transfer` changed since it was locked: its description differs");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (server, tool) = (&self.server, &self.tool);
        match &self.kind {
            DriftKind::Changed(aspects) => {
                let what: Vec<String> = aspects.iter().map(ToString::to_string).collect();
                let plural = aspects.len() > 1
                    || matches!(aspects.first(), Some(LockAspect::Annotations(_)));
                let verb = if plural { "differ" } else { "differs" };
                write!(
                    f,
                    "server `{server}`: tool `{tool}` changed since it was locked: its {} {verb}",
                    what.join(", ")
                )
            }
            DriftKind::New => write!(
                f,
                "server `{server}`: tool `{tool}` is new: the lock does not have it"
            ),
            DriftKind::Missing => write!(
                f,
                "server `{server}`: tool `{tool}` is missing: the lock has it, the server no longer lists it"
            ),
            DriftKind::Unlocked => write!(f, "server `{server}` is not in the lock"),
        }
    }
}

/// What differs between the locked tool and the live one, in the order
/// description, input schema, annotations.
pub(super) fn aspects(locked: &LockedTool, live: &LockedTool) -> Vec<LockAspect> {
    let mut out = Vec::new();
    if locked.description != live.description {
        out.push(LockAspect::Description);
    }
    if locked.input_schema != live.input_schema {
        out.push(LockAspect::InputSchema);
    }
    if locked.annotations != live.annotations {
        out.push(LockAspect::Annotations(changed_keys(
            &locked.annotations,
            &live.annotations,
        )));
    }
    out
}

/// The keys whose values differ between two objects, sorted.
fn changed_keys(a: &Value, b: &Value) -> Vec<String> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return Vec::new();
    };
    let mut keys: Vec<String> = a
        .keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect();
    keys.sort();
    keys.dedup();
    keys
}
