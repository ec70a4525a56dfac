//! The call log: what each call of a run noted for its trace record (the
//! arguments its tool received, the approval gates it passed, its progress
//! messages), kept by the run and written by the chain.

use crate::approve::ApprovalNote;
use crate::call::{CallStr, ToolArgs};

/// Where the calls of a run note what their tool received and the approval
/// gates they passed, for the run's trace: set by the agent loop on its scope; `None` elsewhere, so that a
/// call outside a run notes nothing (one branch per call, in the tool's
/// handler).
#[derive(Default)]
pub struct CallLog {
    /// By call id: the calls of a session in flight, few at a time (each
    /// call's entry is taken when it ends), so a list searched in order,
    /// with room for one inline (no hashing, no allocation for a step with
    /// one call).
    calls: std::sync::Mutex<OpenCalls>,
}

/// The calls of a [`CallLog`] in flight, by id.
type OpenCalls = smallvec::SmallVec<[(CallStr, CallNotes); 1]>;

/// What one call of a run noted for its trace record.
#[derive(Default)]
pub struct CallNotes {
    /// The arguments its tool received (after every hook's rewrites), if
    /// the tool ran and they are not the ones the model sent.
    pub received: Option<ToolArgs>,
    /// Who the arguments the model sent are
    /// ([`ToolArgs::shared_identity`](ToolArgs)): a tool that
    /// receives them unchanged notes nothing.
    sent: Option<usize>,
    /// The approval gates it passed, outermost first.
    pub approvals: Vec<ApprovalNote>,
    /// The progress messages its tool sent
    /// ([`ToolContext::progress`](crate::ToolContext::progress)), in
    /// order.
    pub progress: Vec<String>,
}

impl CallLog {
    /// Opens the entry of call `id`, whose model sent `sent` (the loop
    /// does, before the call runs, so that its notes share the call's id
    /// instead of copying it, and arguments its tool receives unchanged
    /// are not kept twice).
    #[inline]
    pub fn open(&self, id: &CallStr, sent: &ToolArgs) {
        let mut calls = crate::lock(&self.calls);
        let sent = sent.shared_identity();
        match calls.iter_mut().find(|(open, _)| same_id(open, id)) {
            Some((_, notes)) => notes.sent = sent,
            None => calls.push((
                id.clone(),
                CallNotes {
                    sent,
                    ..CallNotes::default()
                },
            )),
        }
    }

    /// The notes of call `id`, opened if needed.
    fn with<R>(&self, id: &str, note: impl FnOnce(&mut CallNotes) -> R) -> R {
        let mut calls = crate::lock(&self.calls);
        let at = match calls.iter().position(|(open, _)| same_id(open, id)) {
            Some(at) => at,
            None => {
                calls.push((CallStr::from(id), CallNotes::default()));
                calls.len() - 1
            }
        };
        note(&mut calls[at].1)
    }

    /// Notes the arguments the tool of call `id` received (after every
    /// hook's rewrites): a clone, which shares them.
    #[inline]
    pub fn received(&self, id: &str, args: &ToolArgs) {
        self.with(id, |notes| {
            notes.received = match args.shared_identity() {
                Some(same) if notes.sent == Some(same) => None,
                _ => Some(args.clone()),
            }
        });
    }

    /// Notes an approval gate call `id` passed.
    #[inline]
    pub fn approval(&self, id: &str, note: ApprovalNote) {
        self.with(id, |notes| notes.approvals.push(note));
    }

    /// Notes a progress message of call `id`.
    #[inline]
    pub fn progress(&self, id: &str, message: String) {
        self.with(id, |notes| notes.progress.push(message));
    }

    /// Takes what call `id` noted, and closes its entry.
    #[inline]
    pub fn take(&self, id: &str) -> CallNotes {
        let mut calls = crate::lock(&self.calls);
        match calls.iter().position(|(open, _)| same_id(open, id)) {
            Some(at) => calls.swap_remove(at).1,
            None => CallNotes::default(),
        }
    }
}

/// Whether `open` is the id `id`: the same shared text (a context's id is
/// the call's), or an equal one.
#[inline]
fn same_id(open: &str, id: &str) -> bool {
    std::ptr::eq(open, id) || open == id
}
