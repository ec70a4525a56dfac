//! Request-start and completion tool-call injection (config-driven hooks).
//!
//! An entry says: at this event, run this tool (through its own chain) with
//! these arguments, and put the (assistant tool call, tool result) pair into
//! the history, so the model sees the result as if it had asked for it.
//!
//! ```
//! # use hookwire::agent::RequestHook;
//! let hook: RequestHook = serde_json::from_str(r#"{
//!     "event": "on_request_start", "kind": "tool_call",
//!     "toolset_name": "memory", "tool_name": "get_memories",
//!     "arguments": {"user_id": "current"}, "frequency": "always"
//! }"#).unwrap();
//! assert_eq!(hook.tool_name, "get_memories");
//! ```

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::Message;
use hookwire_chain::call::{ToolArgs, ToolCall, ToolResult};
use hookwire_chain::toolset::ToolSet;

pub use hookwire_spec::{Frequency, HookEvent, RefreshCondition, sanitize_tool_name};

/// Reads an entry's `event`: one of [`HookEvent::TOOL_CALL_EVENTS`], the
/// seams the runtime injects at; any other event is rejected when the
/// configuration is read.
fn tool_call_event<'de, D: serde::Deserializer<'de>>(de: D) -> Result<HookEvent, D::Error> {
    let event = HookEvent::deserialize(de)?;
    if HookEvent::TOOL_CALL_EVENTS.contains(&event) {
        Ok(event)
    } else {
        Err(serde::de::Error::custom(format!(
            "a `tool_call` hook cannot fire at `{event}` (supported: on_request_start, on_completion)"
        )))
    }
}

/// What a config-driven hook does. One kind today; the enum leaves room.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RequestHookKind {
    /// Run a tool and inject the (call, result) pair.
    #[default]
    ToolCall,
}

/// One config-driven hook (seed 004's `ToolCallHookConfig`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestHook {
    /// Where it fires: one of [`HookEvent::TOOL_CALL_EVENTS`].
    #[serde(deserialize_with = "tool_call_event")]
    pub event: HookEvent,
    /// What it does (`tool_call`, the default).
    #[serde(default)]
    pub kind: RequestHookKind,
    /// A label for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The tool's toolset (an MCP server, say); the call name becomes
    /// `toolset__tool` (or `toolset_tool`, whichever the agent has).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolset_name: Option<String>,
    /// The tool's name, or the final function name without a toolset.
    pub tool_name: String,
    /// The arguments.
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// How often to inject.
    #[serde(default)]
    pub frequency: Frequency,
    /// When to fetch again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_condition: Option<RefreshCondition>,
    /// How long the tool may take before the injection is skipped, in
    /// seconds (default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_sec: Option<f64>,
}

impl RequestHook {
    /// An `on_request_start` entry for `tool_name`.
    pub fn on_request_start(tool_name: impl Into<String>) -> Self {
        Self {
            event: HookEvent::OnRequestStart,
            kind: RequestHookKind::ToolCall,
            name: None,
            toolset_name: None,
            tool_name: tool_name.into(),
            arguments: Map::new(),
            frequency: Frequency::default(),
            refresh_condition: None,
            timeout_sec: None,
        }
    }

    /// Sets the event.
    pub fn at(mut self, event: HookEvent) -> Self {
        self.event = event;
        self
    }

    /// Sets the toolset.
    pub fn in_toolset(mut self, toolset: impl Into<String>) -> Self {
        self.toolset_name = Some(toolset.into());
        self
    }

    /// Sets the arguments.
    pub fn with_arguments(mut self, arguments: Map<String, Value>) -> Self {
        self.arguments = arguments;
        self
    }

    /// Sets the frequency.
    pub fn with_frequency(mut self, frequency: Frequency) -> Self {
        self.frequency = frequency;
        self
    }

    /// Sets a TTL refresh condition.
    pub fn with_ttl_minutes(mut self, ttl_minutes: u64) -> Self {
        self.refresh_condition = Some(RefreshCondition::Ttl { ttl_minutes });
        self
    }

    /// Checks the entry: it fires at one of
    /// [`HookEvent::TOOL_CALL_EVENTS`], and a TTL must be > 0.
    pub fn validate(&self) -> Result<(), String> {
        if !HookEvent::TOOL_CALL_EVENTS.contains(&self.event) {
            return Err(format!(
                "hook on `{}`: a `tool_call` hook cannot fire at `{}` (supported: on_request_start, on_completion)",
                self.tool_name, self.event
            ));
        }
        if let Some(RefreshCondition::Ttl { ttl_minutes: 0 }) = self.refresh_condition {
            return Err(format!(
                "hook on `{}`: refresh_condition.ttl_minutes must be > 0",
                self.tool_name
            ));
        }
        Ok(())
    }

    /// The call name, resolved against the tools the agent has.
    pub fn resolve_name<T: ToolSet + ?Sized>(&self, tools: &T) -> String {
        let mut candidates =
            hookwire_spec::injection_tool_names(self.toolset_name.as_deref(), &self.tool_name);
        let found = candidates.iter().position(|c| tools.contains(c));
        candidates.swap_remove(found.unwrap_or(0))
    }

    /// The stable prefix of the ids of this entry's injected calls: the
    /// tool and a hash of the arguments.
    pub fn call_id_prefix(&self, name: &str) -> String {
        let mut hasher = DefaultHasher::new();
        Value::Object(self.arguments.clone())
            .to_string()
            .hash(&mut hasher);
        format!(
            "inject_{}_{:016x}",
            sanitize_tool_name(name),
            hasher.finish()
        )
    }
}

/// A source of the current time, in seconds since the Unix epoch.
pub trait Clock: Send + Sync {
    /// Now.
    fn now_unix(&self) -> u64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_unix(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }
}

/// A clock set by hand, for tests.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicU64);

impl ManualClock {
    /// A clock at `now` seconds.
    pub fn new(now: u64) -> Self {
        Self(AtomicU64::new(now))
    }

    /// Moves the clock forward.
    pub fn advance(&self, seconds: u64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_unix(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now_unix(&self) -> u64 {
        (**self).now_unix()
    }
}

/// What an injection did, for the trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum InjectionAction {
    /// A new pair was appended.
    Appended,
    /// The newest earlier pair, identical, was replaced in place.
    Replaced,
    /// A fresh earlier result was reused (TTL): nothing ran.
    Fresh,
    /// The tool failed or timed out: nothing was injected.
    Skipped(String),
}

const YEAR: Duration = Duration::from_secs(365 * 24 * 3600);

fn expiry_of(id: &str, prefix: &str) -> Option<u64> {
    id.strip_prefix(prefix)?
        .strip_prefix("_exp")?
        .split('_')
        .next()?
        .parse()
        .ok()
}

/// Runs one entry's call against `history`, through `run` (the loop's
/// one path for a tool call: lifecycle hooks, approval gate, chain): the
/// result to put into the history ([`Injected::apply`]), or what happened
/// instead (a fresh result kept, a failing or refused tool logged and
/// skipped). The history is only read: a call dropped midway (its run
/// cancelled) leaves it as it was.
pub(crate) async fn run_injection<T, F, Fut>(
    hook: &RequestHook,
    tools: &T,
    history: &[Message],
    clock: &dyn Clock,
    counter: u64,
    run: F,
) -> Result<Injected, InjectionAction>
where
    T: ToolSet + ?Sized,
    F: FnOnce(ToolCall) -> Fut,
    Fut: Future<Output = ToolResult>,
{
    let name = hook.resolve_name(tools);
    let prefix = hook.call_id_prefix(&name);
    let now = clock.now_unix();
    let ttl = hook
        .refresh_condition
        .map(|RefreshCondition::Ttl { ttl_minutes }| ttl_minutes.max(1).saturating_mul(60));
    if ttl.is_some() {
        let last = history.iter().rev().find_map(|m| match m {
            Message::Tool { tool_call_id, .. } if tool_call_id.starts_with(&prefix) => {
                Some(expiry_of(tool_call_id, &prefix))
            }
            _ => None,
        });
        if let Some(Some(expiry)) = last
            && now < expiry
        {
            return Err(InjectionAction::Fresh);
        }
    }
    let id: std::sync::Arc<str> = match ttl {
        Some(ttl) => format!("{prefix}_exp{}_{counter}", now.saturating_add(ttl)),
        None => format!("{prefix}_{counter}"),
    }
    .into();
    let call = ToolCall::new(
        id.clone(),
        name.clone(),
        ToolArgs::from_map(hook.arguments.clone()),
    );
    // Any number from a configuration is accepted: NaN and negatives mean
    // zero, anything past a year means a year.
    let limit = Duration::try_from_secs_f64(hook.timeout_sec.unwrap_or(30.0).max(0.0))
        .unwrap_or(YEAR)
        .min(YEAR);
    // Waiting for a person is not part of the limit.
    let result: ToolResult = match crate::wait::limit(limit, run(call.clone())).await {
        Ok(result) if !result.is_error => result,
        Ok(result) => return Err(skipped(hook, &name, result.text_content())),
        Err(_) => return Err(skipped(hook, &name, format!("timed out after {limit:?}"))),
    };
    Ok(Injected {
        call,
        prefix,
        result,
        append_if_changed: hook.frequency == Frequency::AppendIfChanged,
    })
}

/// An injection's call that ran, to put into the history.
pub(crate) struct Injected {
    call: ToolCall,
    /// The entry's call-id prefix.
    prefix: String,
    result: ToolResult,
    /// The entry's frequency is `append_if_changed`.
    append_if_changed: bool,
}

impl Injected {
    /// Puts the call and its result into `history`: appended as a pair, or,
    /// for `append_if_changed` with the same result as the entry's newest,
    /// in the newest's place (under the new id).
    pub(crate) fn apply(self, history: &mut Vec<Message>) -> InjectionAction {
        let Self {
            call,
            prefix,
            result,
            append_if_changed,
        } = self;
        let (id, name) = (call.id.clone(), call.name.clone());
        if append_if_changed {
            // Compare with the newest pair of this entry only: after A, B, a
            // new A differs from the newest (B) and is appended.
            let newest = history.iter().rposition(|m| match m {
                Message::Tool { tool_call_id, .. } => tool_call_id.starts_with(&prefix),
                _ => false,
            });
            let unchanged = newest.filter(|&at| {
                matches!(history.get(at), Some(Message::Tool { result: r, .. }) if r.content == result.content)
            });
            if let Some(at) = unchanged {
                let old_id = match &history[at] {
                    Message::Tool { tool_call_id, .. } => tool_call_id.clone(),
                    _ => hookwire_chain::call::CallStr::default(),
                };
                history[at] = Message::tool(id.clone(), name, result);
                for message in history.iter_mut() {
                    if let Message::Assistant { tool_calls, .. } = message {
                        for c in tool_calls.iter_mut().filter(|c| c.id == old_id) {
                            c.id = id.clone();
                        }
                    }
                }
                return InjectionAction::Replaced;
            }
        }
        history.push(Message::assistant_calls("", vec![call]));
        history.push(Message::tool(id, name, result));
        InjectionAction::Appended
    }
}

fn skipped(hook: &RequestHook, name: &str, why: String) -> InjectionAction {
    tracing::warn!(
        target: "hookwire::audit",
        hook = hook.name.as_deref().unwrap_or("tool_call"),
        tool = name,
        reason = %why,
        decision = "skipped",
        "injection skipped"
    );
    InjectionAction::Skipped(why)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_fires_only_where_the_runtime_injects() {
        let read = |event: &str| {
            serde_json::from_value::<RequestHook>(serde_json::json!({
                "event": event, "tool_name": "get", "refresh_condition": {"kind": "ttl", "ttl_minutes": 5}
            }))
        };
        assert_eq!(
            read("on_completion").unwrap().event,
            HookEvent::OnCompletion
        );
        let error = read("pre_tool_use").unwrap_err().to_string();
        assert!(error.contains("cannot fire at `pre_tool_use`"), "{error}");
        let built = RequestHook::on_request_start("get").at(HookEvent::Stop);
        assert!(
            built
                .validate()
                .unwrap_err()
                .contains("cannot fire at `stop`")
        );
    }
}
