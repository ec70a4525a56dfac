//! The one way up from a call to the run it belongs to.
//!
//! A call knows nothing of the agent loop, its events or its budget. What
//! it must tell the run (a progress message, that it waits for a person)
//! and what it notes for the run's trace (the call log) go through
//! [`RunChannel`], which the chain defines and the loop implements; the
//! call's [`CallScope`] carries it. Outside a run there is none, and a call
//! reports to `tracing` only.

use crate::call_log::CallLog;
use crate::scope::CallScope;

/// What a call reports to its run while it runs.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum CallReport<'a> {
    /// The tool sent a progress message
    /// ([`ToolContext::progress`](crate::ToolContext::progress)).
    Progress {
        /// The tool.
        tool: &'a str,
        /// The message.
        message: &'a str,
    },
    /// An approval gate asks the approver and waits for its decision.
    ApprovalWait {
        /// The tool.
        tool: &'a str,
        /// The gate that asks (`needs_approval`, the asking pre hook, or
        /// `approver` for the loop's own gate).
        gate: &'a str,
        /// Why approval is needed.
        reason: &'a str,
    },
}

/// The run's side of its calls: the interface the chain defines and the
/// agent loop implements.
///
/// Every method has a default that does nothing, so a host that only wants
/// the call log (or only the reports) implements one method. What the run
/// needs back from a call's scope (to start a run inside the call, a child
/// agent) it keeps as the scope's host value
/// ([`CallScope::set_host`]), not in the channel.
pub trait RunChannel: Send + Sync {
    /// Where the run's calls note what their tool received, the approval
    /// gates they passed and their progress, for the run's trace.
    #[inline]
    fn call_log(&self) -> Option<&CallLog> {
        None
    }

    /// Receives what call `call_id`, made in `scope`, reports.
    #[inline]
    fn report(&self, scope: &CallScope, call_id: &str, report: CallReport<'_>) {
        let _ = (scope, call_id, report);
    }
}
