//! The record of the decisions that ran a call ([`SpentDecisions`]), kept
//! where a session's states are kept, and its in-memory form
//! ([`MemorySpent`]).

use std::collections::BTreeSet;
use std::sync::Mutex;

/// The record of the decisions that ran a call, by decision id
/// ([`PendingApproval::id`](crate::approval::PendingApproval::id)): a state
/// holding one is refused on import, and a decision is used once even by
/// two runners that imported the same state at once.
///
/// Keep it where the states are kept, shared by every runner that may
/// import them: [`MemorySpent`] serves the runners of one process; runners
/// of several processes need a shared store (a database row per id, set
/// once), behind this trait.
pub trait SpentDecisions: Send + Sync {
    /// Records `id` as spent; `false` if it was spent already. Checking and
    /// recording are one step: of two runners spending one id, one gets
    /// `true`.
    fn spend(&self, id: &str) -> bool;

    /// Whether `id` was spent.
    fn is_spent(&self, id: &str) -> bool;
}

/// [`SpentDecisions`] in memory: for the runners of one process.
#[derive(Debug, Default)]
pub struct MemorySpent(Mutex<BTreeSet<String>>);

impl MemorySpent {
    /// An empty record.
    pub fn new() -> Self {
        Self::default()
    }

    /// A record of these ids (read back from where they were kept).
    pub fn from_ids(ids: impl IntoIterator<Item = String>) -> Self {
        Self(Mutex::new(ids.into_iter().collect()))
    }

    /// The ids spent, in order (to keep them).
    pub fn ids(&self) -> Vec<String> {
        crate::lock(&self.0).iter().cloned().collect()
    }
}

impl SpentDecisions for MemorySpent {
    fn spend(&self, id: &str) -> bool {
        crate::lock(&self.0).insert(id.to_owned())
    }

    fn is_spent(&self, id: &str) -> bool {
        crate::lock(&self.0).contains(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_spent_once() {
        let spent = MemorySpent::new();
        assert!(spent.spend("a"));
        assert!(!spent.spend("a"));
        assert!(spent.is_spent("a"));
        assert!(!spent.is_spent("b"));
    }
}
