//! Time limits and a person's wait: every limit is the chain's one
//! `wait::limit`, which stops while an approval gate inside waits.

use std::sync::Arc;
use std::time::Duration;

use hookwire::approval::ApprovalDecision;
use hookwire::hooks::Timeout;
use hookwire::{
    Decision, FailurePolicy, FnTool, Guarded, Handler, Pre, ToolError, ToolHandler, chain,
};

use super::{AddOne, Gate, Slow, XArgs, args, cx, log};

/// Every time limit (the `Timeout` hook, a guarded hook's timeout) is the
/// one limit that stops while an approval gate inside waits for a person.
#[tokio::test(start_paused = true)]
async fn no_time_limit_counts_the_wait_for_a_person() {
    let log = log();
    let tool = AddOne::new(&log);
    // A person who takes 10 s to approve.
    let approver = Arc::new(FnApproverAsync(Duration::from_secs(10)));
    let gate = || Pre(Gate("ask", log.clone(), Decision::Ask("look".into())));

    let limited = chain!(Timeout::from_millis(500), gate() => ToolHandler(tool.clone()));
    let mut approved = cx().with_approver(Some(approver.clone()));
    let result = limited.call(&mut approved, args(1)).await;
    assert_eq!(result.unwrap().text_content(), "2");

    let guarded = chain!(
        Guarded::new(Pre(Slow(Duration::from_millis(1))), FailurePolicy::FailClosed, Some(Duration::from_millis(500))),
        gate() => ToolHandler(tool.clone())
    );
    let mut approved = cx().with_approver(Some(approver));
    let result = guarded.call(&mut approved, args(1)).await;
    assert_eq!(result.unwrap().text_content(), "2");

    // The tool's own time still counts.
    let slow = FnTool::new("sleepy", "Sleeps.", |a: XArgs| async move {
        tokio::time::sleep(Duration::from_secs(a.x as u64)).await;
        "woke"
    });
    let limited = chain!(Timeout::from_millis(500) => ToolHandler(slow));
    let err = limited.call(&mut cx(), args(1)).await.unwrap_err();
    assert!(matches!(err, ToolError::TimedOut { .. }), "{err:?}");
}

/// An approver that takes its time, then approves.
struct FnApproverAsync(Duration);

impl hookwire::approval::Approver for FnApproverAsync {
    fn decide<'a>(
        &'a self,
        _: hookwire::approval::ApprovalRequest<'a>,
    ) -> hookwire::BoxFuture<'a, ApprovalDecision> {
        Box::pin(async move {
            tokio::time::sleep(self.0).await;
            ApprovalDecision::Approve
        })
    }
}
