//! What a parent run shares with the agents it calls as tools.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::RunState;
use super::SessionLink;
use crate::approval::Approvals;
use crate::lock;
use crate::model::{Message, Model, Usage};

/// What a parent run shares with agents called as tools during a step.
pub(crate) struct ParentRun {
    /// The parent's history (shared, not copied: the step does not change
    /// it until its calls are done).
    pub(crate) history: Arc<Vec<Message>>,
    /// The parent's model: what a child with no model of its own asks.
    pub(crate) model: Arc<dyn Model>,
    /// Messages of children to append to the parent's history after the step.
    pub(super) merged: Mutex<Vec<Message>>,
    /// The session's shared block: its child histories
    /// (`history_merge_target: child`) and the runs of children paused for
    /// approval, by the parent's call id.
    pub(super) session: Arc<SessionLink>,
    /// The parent's approvals, which its children's runs share.
    pub(crate) approvals: Approvals,
    /// The child histories kept during the step (by tool name), in order.
    pub(super) kept: Mutex<Vec<String>>,
    /// The tokens the step's children used, by agent path.
    pub(super) usage: Mutex<BTreeMap<String, Usage>>,
}

/// A run's usage limit, shared by the run and every child agent it calls:
/// each adds its model calls' tokens as they come.
#[derive(Debug)]
pub(crate) struct Budget {
    /// The tokens the run tree may use.
    pub(crate) limit: u64,
    /// The tokens it used so far.
    spent: AtomicU64,
}

impl Budget {
    /// A budget of `limit` tokens, none used.
    pub(crate) fn new(limit: u64) -> Arc<Self> {
        Arc::new(Self {
            limit,
            spent: AtomicU64::new(0),
        })
    }

    /// Adds the tokens of one model call.
    pub(crate) fn spend(&self, tokens: u64) {
        let _ = self
            .spent
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_add(tokens))
            });
    }

    /// The tokens used so far.
    pub(crate) fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }
}

/// A child agent's run paused for approval: its state, and where its own
/// conversation began in its history (for `history_merge_target:
/// orchestrator`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PausedChild {
    /// The child's state (its approvals are the parent's, not in here).
    pub state: RunState,
    /// The length of the history the child started from.
    pub start: usize,
}

/// The paused runs of a step's child agents, by the parent's call id.
pub(crate) type PausedChildren = BTreeMap<String, PausedChild>;

/// The histories a session keeps for its child agents, by tool name.
pub(crate) type ChildHistories = BTreeMap<String, Vec<Message>>;

impl ParentRun {
    /// The child's history kept by this session.
    pub(crate) fn child_history(&self, tool: &str) -> Vec<Message> {
        lock(&self.session.children)
            .get(tool)
            .cloned()
            .unwrap_or_default()
    }

    /// Keeps the child's history for its next call in this session.
    pub(crate) fn keep_child_history(&self, tool: &str, history: Vec<Message>) {
        lock(&self.session.children).insert(tool.to_owned(), history);
        lock(&self.kept).push(tool.to_owned());
    }

    /// The parent as one call of the step sees it: the same history,
    /// model, approvals and session maps, its own merged messages and kept
    /// child histories (so that a journaled call records only its own).
    pub(super) fn for_call(&self) -> Self {
        Self {
            history: self.history.clone(),
            model: self.model.clone(),
            merged: Mutex::new(Vec::new()),
            session: self.session.clone(),
            approvals: self.approvals.clone(),
            kept: Mutex::new(Vec::new()),
            usage: Mutex::default(),
        }
    }

    /// A copy of the paused run of the child that call `id` runs, if it
    /// paused. It stays in the session until the call ends
    /// ([`forget_paused`](Self::forget_paused)): a call dropped while it
    /// resumes the child (its run cancelled) leaves it to resume again.
    pub(crate) fn paused(&self, id: &str) -> Option<PausedChild> {
        lock(&self.session.paused).get(id).cloned()
    }

    /// Forgets the paused run of the child that call `id` ran: the call
    /// has ended (it is kept again if the child paused again).
    pub(crate) fn forget_paused(&self, id: &str) {
        lock(&self.session.paused).remove(id);
    }

    /// Keeps the paused run of the child that call `id` runs, to resume it
    /// when the call runs again.
    pub(crate) fn keep_paused(&self, id: &str, child: PausedChild) {
        lock(&self.session.paused).insert(id.to_owned(), child);
    }

    /// Adds a child's tokens, by agent path (its own and its children's),
    /// for the parent's total after the step.
    pub(crate) fn add_usage(&self, usage: BTreeMap<String, Usage>) {
        let mut total = lock(&self.usage);
        for (path, used) in usage {
            *total.entry(path).or_default() += used;
        }
    }

    /// Appends a child's messages to the parent's history after the step.
    pub(crate) fn merge(&self, messages: Vec<Message>) {
        lock(&self.merged).extend(messages);
    }
}

tokio::task_local! {
    pub(crate) static PARENT: Arc<ParentRun>;
}
