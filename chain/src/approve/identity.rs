//! [`CallKey`]: the identity of one tool call, the one key every approval
//! names. The loop's gate, the chain's gates, the exported state and the
//! durable session all identify a call by it, and nothing else: a
//! decision binds to the call exactly as the person saw it.
//!
//! This is the one module that hashes (`sha2`).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::call::ToolArgs;

/// One call of an ancestor agent on the way to a call: the agent that made
/// it, its step and its call id. A child agent's calls carry the call of
/// the parent that runs the child (and the grandparent's before it).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CallSite {
    /// The agent that made the call.
    pub agent: String,
    /// The step of that agent's run.
    pub step: usize,
    /// The call id in that step.
    pub id: String,
}

/// The identity of one tool call: the session, the path of agents that made
/// it (parent, child, grandchild), its step and call id, and a digest of
/// the tool name and the canonical arguments exactly as the approver saw
/// them.
///
/// A decision is given for a key (`hookwire::approval::Approvals::resolve`
/// takes its [`id`](Self::id)) and applies to the call with that key only: the same
/// call id in another step, session or child agent, or the same call with
/// other arguments, is another key.
///
/// ```
/// use hookwire::approval::CallKey;
/// let a = CallKey::root("s1", "shop", 0, "c1", "pay", &serde_json::json!({"to": "v1", "n": 1}));
/// let b = CallKey::root("s1", "shop", 0, "c1", "pay", &serde_json::json!({"n": 1, "to": "v1"}));
/// let c = CallKey::root("s1", "shop", 0, "c1", "pay", &serde_json::json!({"to": "mallory", "n": 1}));
/// assert_eq!(a.id(), b.id()); // key order is not part of the arguments
/// assert_ne!(a.id(), c.id());
/// assert_eq!(a.path_display(), "shop / pay");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CallKey {
    /// The session (the root run's correlation id).
    pub session: String,
    /// The ancestors' calls, outermost first; empty for the root agent's
    /// own calls.
    pub path: Vec<CallSite>,
    /// The agent making the call.
    pub agent: String,
    /// The step of that agent's run.
    pub step: usize,
    /// The call id (as the loop made it unique).
    pub id: String,
    /// The tool.
    pub tool: String,
    /// SHA-256 (hex) of the tool name and the canonical arguments.
    pub digest: String,
}

impl CallKey {
    /// The key of a call of the root agent (no ancestors).
    #[inline]
    pub fn root(
        session: &str,
        agent: &str,
        step: usize,
        id: &str,
        tool: &str,
        arguments: &Value,
    ) -> Self {
        Self {
            session: session.to_owned(),
            path: Vec::new(),
            agent: agent.to_owned(),
            step,
            id: id.to_owned(),
            tool: tool.to_owned(),
            digest: digest_value(tool, arguments),
        }
    }

    /// The key of a call made at `place` with `arguments` as they are now.
    #[inline]
    pub fn at(place: &CallPlace<'_>, id: &str, tool: &str, arguments: &ToolArgs) -> Self {
        Self {
            session: place.session.to_owned(),
            path: place.path.to_vec(),
            agent: place.agent.to_owned(),
            step: place.step,
            id: id.to_owned(),
            tool: tool.to_owned(),
            digest: digest_args(tool, arguments),
        }
    }

    /// The decision id of this call: SHA-256 (hex) of the whole key. It is
    /// what `hookwire::approval::Approvals::resolve` and the
    /// durable session's `approve` take, and contains no `/`.
    #[inline]
    pub fn id(&self) -> String {
        let mut text = String::new();
        canonical(
            &serde_json::to_value(self).unwrap_or(Value::Null),
            &mut text,
        );
        hex(&Sha256::digest(text.as_bytes()))
    }

    /// The agents from the root to the one making the call, then the tool:
    /// `pmo / ny / pay`.
    #[inline]
    pub fn path_display(&self) -> String {
        let mut out = String::new();
        for site in &self.path {
            out.push_str(&site.agent);
            out.push_str(" / ");
        }
        out.push_str(&self.agent);
        out.push_str(" / ");
        out.push_str(&self.tool);
        out
    }

    /// The name sticky decisions and approval requirements use for this
    /// call's tool, relative to the root agent: `pay` for the root agent's
    /// own tool, `ny/pay` for its child `ny`'s, `ny/audit/pay` below that.
    #[inline]
    pub fn scoped_tool(&self) -> String {
        scoped_name(
            self.path.iter().map(|s| s.agent.as_str()),
            &self.agent,
            &self.tool,
        )
    }

    /// Whether this key is the call at `site` below `path` of `session`, or
    /// a call of an agent that call runs (a child, a grandchild).
    #[inline]
    pub fn is_at_or_below(&self, session: &str, path: &[CallSite], site: &CallSite) -> bool {
        if self.session != session {
            return false;
        }
        if self.path == path {
            return self.agent == site.agent && self.step == site.step && self.id == site.id;
        }
        self.path.len() > path.len()
            && self.path.starts_with(path)
            && self.path[path.len()] == *site
    }

    /// Whether this key is a call of the run at `path` of `session`, or of
    /// an agent below it.
    #[inline]
    pub fn is_within(&self, session: &str, path: &[CallSite]) -> bool {
        self.session == session && self.path.starts_with(path)
    }

    /// Whether `arguments` are the ones this key was made for.
    #[inline]
    pub fn matches(&self, tool: &str, arguments: &Value) -> bool {
        self.tool == tool && self.digest == digest_value(tool, arguments)
    }
}

/// The name of `tool` of the agent at the end of `agents` (the root first)
/// relative to the root: `tool`, `child/tool`, `child/grandchild/tool`.
pub fn scoped_name<'a>(
    path_agents: impl Iterator<Item = &'a str>,
    agent: &'a str,
    tool: &str,
) -> String {
    // The root agent itself is not named.
    let mut names: Vec<&str> = path_agents.chain(std::iter::once(agent)).skip(1).collect();
    names.push(tool);
    names.join("/")
}

/// Where a call is made: the session, the path of ancestor calls, the
/// agent and the step. Read from the call's [`CallScope`](crate::CallScope).
#[derive(Debug, Clone, Copy)]
pub struct CallPlace<'a> {
    /// The session (its correlation id).
    pub session: &'a str,
    /// The ancestor calls (a child agent's run).
    pub path: &'a [CallSite],
    /// The agent making the call.
    pub agent: &'a str,
    /// The step of the run.
    pub step: usize,
}

/// The idempotency key of call `id` of `tool` made at `place` in the
/// session's root run number `run`: SHA-256 (hex) of all of them, as
/// canonical JSON (see [`ToolContext::idempotency_key`](crate::ToolContext::idempotency_key)).
pub fn idempotency_key(place: &CallPlace<'_>, run: u64, tool: &str, id: &str) -> String {
    let identity = serde_json::json!({
        "key": "hookwire idempotency 1",
        "session": place.session,
        "run": run,
        "path": place.path,
        "agent": place.agent,
        "step": place.step,
        "tool": tool,
        "id": id,
    });
    let mut text = String::new();
    canonical(&identity, &mut text);
    hex(&Sha256::digest(text.as_bytes()))
}

/// SHA-256 (hex) of `tool` and the arguments' canonical JSON; arguments
/// that are not a JSON object are digested as their text.
#[inline]
pub fn digest_args(tool: &str, arguments: &ToolArgs) -> String {
    match arguments.to_value() {
        Ok(value) => digest_value(tool, &value),
        Err(_) => {
            let mut hasher = Sha256::new();
            hasher.update(b"raw\0");
            hasher.update(tool.as_bytes());
            hasher.update(b"\0");
            hasher.update(arguments.raw_text().unwrap_or_default().as_bytes());
            hex(&hasher.finalize())
        }
    }
}

/// SHA-256 (hex) of `tool` and `arguments` as canonical JSON.
#[inline]
pub fn digest_value(tool: &str, arguments: &Value) -> String {
    let mut text = String::new();
    canonical(arguments, &mut text);
    let mut hasher = Sha256::new();
    hasher.update(b"json\0");
    hasher.update(tool.as_bytes());
    hasher.update(b"\0");
    hasher.update(text.as_bytes());
    hex(&hasher.finalize())
}

/// SHA-256 (hex) of a tool's input JSON Schema (the one the model sees),
/// as canonical JSON: what a remembered approval condition is bound to, so
/// that it lapses when the schema changes.
#[inline]
pub fn digest_schema(schema: &Value) -> String {
    let mut text = String::new();
    canonical(schema, &mut text);
    let mut hasher = Sha256::new();
    hasher.update(b"schema\0");
    hasher.update(text.as_bytes());
    hex(&hasher.finalize())
}

/// Canonical JSON: object keys sorted, no whitespace, strings and numbers
/// as `serde_json` writes them.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[inline]
fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let mut a = String::new();
        canonical(
            &json!({"b": {"y": 1, "x": [2, {"d": 1, "c": 0}]}, "a": "s"}),
            &mut a,
        );
        assert_eq!(a, r#"{"a":"s","b":{"x":[2,{"c":0,"d":1}],"y":1}}"#);
    }

    #[test]
    fn the_digest_binds_the_tool_and_every_argument() {
        let args = json!({"to": "v1", "amount": 1});
        let d = digest_value("pay", &args);
        assert_ne!(d, digest_value("refund", &args));
        assert_ne!(d, digest_value("pay", &json!({"to": "v1", "amount": 2})));
        assert_eq!(
            d,
            digest_args("pay", &ToolArgs::from_json(r#"{"amount":1,"to":"v1"}"#))
        );
        // A text that is not an object is digested as text: two of them differ.
        assert_ne!(
            digest_args("pay", &ToolArgs::from_json("[1]")),
            digest_args("pay", &ToolArgs::from_json("[2]"))
        );
    }

    #[test]
    fn a_key_names_its_place_and_scope() {
        let mut key = CallKey::root("s", "pmo", 2, "c1", "pay", &json!({}));
        assert_eq!(
            (key.scoped_tool(), key.path_display()),
            ("pay".into(), "pmo / pay".into())
        );
        let parent = CallSite {
            agent: "pmo".into(),
            step: 0,
            id: "c9".into(),
        };
        key.path = vec![parent.clone()];
        key.agent = "ny".into();
        assert_eq!(key.scoped_tool(), "ny/pay");
        assert_eq!(key.path_display(), "pmo / ny / pay");
        assert!(key.is_at_or_below("s", &[], &parent));
        assert!(!key.is_at_or_below("other", &[], &parent));
        let sibling = CallSite {
            id: "c8".into(),
            ..parent
        };
        assert!(!key.is_at_or_below("s", &[], &sibling));
        assert!(key.is_within("s", &[]));
        assert!(!key.id().contains('/'));
    }
}
