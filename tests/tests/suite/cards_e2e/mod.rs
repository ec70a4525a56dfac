//! The agents generated from `codegen-cli/tests/cards/good` by
//! `hookwire_codegen::Builder` (see `build.rs`), compiled against the
//! runtime with `missing_docs` and `unsafe_code` denied, and run: the
//! corpus behind "a card set that `cardgen check` accepts compiles". It
//! holds every accepted shape: plain tools and hooks (`tools.rs`,
//! `hooks.rs`), ones marked `#[hookwire::tool]` / `#[hookwire::hook]`
//! (`shop.rs:greet`, `shop_hooks.rs`), a `#[hookwire::args]` struct
//! parameter declared in the tool's file (`shop.rs:order`), dependencies
//! (`shop.md`), child agents (`PMO-orchestrator.md`, `Relay-Desk.md`),
//! lifecycle hooks (`NY-Project-Manager.md`), MCP servers and request hooks
//! (`PMO-orchestrator.md`), request hooks of function tools (`Dial-Desk.md`).

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![deny(missing_docs, unsafe_code)]

mod agents {
    hookwire::include_agents!();
}

/// The lifecycle hooks of the NY card, included once more for its
/// `#[agent]` twin (the card's generated module includes its own copy).
#[path = "../../../../codegen-cli/tests/cards/good/lifecycle.rs"]
mod lifecycle;

/// What the lifecycle hooks of `good/lifecycle.rs` saw, in order (both
/// copies of the file write here).
static LIFECYCLE_LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Called by the hooks of `good/lifecycle.rs`.
pub(crate) fn lifecycle_log(entry: String) {
    LIFECYCLE_LOG.lock().unwrap().push(entry);
}

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use agents::{LondonProjectManager, NyProjectManager, PmoOrchestrator, RelayDesk, TriageDesk};
use hookwire::BoxFuture;
use hookwire::agent::{Agent, Runner, TraceEvent};
use hookwire::model::{Message, Model, ModelError, ModelRequest, ModelResponse};
use hookwire::{CallScope, ToolArgs, ToolCall, ToolSet};
use tokio::time::sleep;

mod approvals;
mod children;
mod deps;
mod hook_failures;
mod injections;
mod macro_twin;
mod output;
mod policy;
mod tool_rules;
mod tools_hooks;

/// The Verdict-Desk card's `output_type:` names it here.
pub use output::Verdict;

fn run(tools: &impl ToolSet, name: &str, args: &str) -> hookwire::ToolResult {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(tools.call(
        &CallScope::new("test"),
        ToolCall::new("c1", name, ToolArgs::from_json(args)),
    ))
}

/// Serialises the tests that run the NY project manager: its lifecycle
/// hooks write to the one `LIFECYCLE_LOG`, which `run_lifecycle` reads.
static NY_RUNS: Mutex<()> = Mutex::new(());

fn ny_runs() -> MutexGuard<'static, ()> {
    NY_RUNS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A message as the model reads it, on one line.
fn line(m: &Message) -> String {
    match m {
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let calls: String = tool_calls
                .iter()
                .map(|c| format!(" -> {}({})", c.name, c.arguments.to_value().unwrap()))
                .collect();
            format!("assistant: {content}{calls}")
        }
        other => format!("{}: {}", other.role(), other.text()),
    }
}

/// One model request, as sent.
#[derive(Debug, Clone)]
struct Sent {
    agent: String,
    system: String,
    messages: Vec<String>,
}

/// The model of the orchestrator tests; its children ask it too (a child
/// card that names no model asks its parent's). An orchestrator's first
/// request is answered with one call of `agent__NY-Project-Manager` per
/// note, a later one (or any request when there are no notes) with
/// `done: <last user text>`. The NY project manager answers
/// `filed: <prompt>`, after sleeping `N` seconds for a prompt `sleep N`.
/// It records every request and how many of NY's ran at once.
struct Desk {
    notes: Vec<String>,
    sent: Mutex<Vec<Sent>>,
    running: AtomicUsize,
    peak: AtomicUsize,
}

impl Desk {
    fn new(notes: impl IntoIterator<Item = String>) -> Arc<Self> {
        Arc::new(Self {
            notes: notes.into_iter().collect(),
            sent: Mutex::default(),
            running: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        })
    }

    fn sent_by(&self, agent: &str) -> Vec<Sent> {
        let sent = self.sent.lock().unwrap();
        sent.iter().filter(|s| s.agent == agent).cloned().collect()
    }
}

impl Model for Desk {
    fn name(&self) -> &str {
        "desk"
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        self.sent.lock().unwrap().push(Sent {
            agent: request.agent.to_owned(),
            system: request.system.to_owned(),
            messages: request.messages.iter().map(line).collect(),
        });
        let prompt = request.last_user_text().unwrap_or("").to_owned();
        if request.agent == "NY-Project-Manager" {
            return Box::pin(async move {
                let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
                self.peak.fetch_max(now, Ordering::SeqCst);
                match prompt.strip_prefix("sleep ") {
                    Some(secs) => sleep(Duration::from_secs(secs.parse().unwrap())).await,
                    None => {
                        for _ in 0..3 {
                            tokio::task::yield_now().await;
                        }
                    }
                }
                self.running.fetch_sub(1, Ordering::SeqCst);
                Ok(ModelResponse::text(format!("filed: {prompt}")))
            });
        }
        let answered = request
            .messages
            .iter()
            .any(|m| matches!(m, Message::Tool { .. }));
        let response = if answered || self.notes.is_empty() {
            ModelResponse::text(format!("done: {prompt}"))
        } else {
            let calls = self
                .notes
                .iter()
                .enumerate()
                .map(|(i, note)| {
                    ToolCall::new(
                        format!("call{i}"),
                        "agent__NY-Project-Manager",
                        ToolArgs::from_value(serde_json::json!({ "message": note })).unwrap(),
                    )
                })
                .collect();
            ModelResponse::tool_calls("", calls)
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

fn runtime(paused: bool) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(paused)
        .build()
        .unwrap()
}

/// The dependencies of the shop card, built as a user builds them: through
/// the card's module, which re-exports its `deps:` file as `deps`.
fn shop_deps(name: &str, stock: &[(&str, u32)]) -> agents::shop::deps::ShopDeps {
    use agents::shop::deps::{Inventory, ShopDeps};
    let items = stock.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect();
    ShopDeps {
        name: name.to_owned(),
        inventory: Inventory(std::sync::Arc::new(items)),
    }
}
