//! Timeouts and retries on tokio's paused clock.

use super::*;

struct Slow(Duration);

impl PreHook for Slow {
    async fn before(&self, _: &mut ToolContext, _: &mut ToolArgs) -> Result<Decision, HookError> {
        tokio::time::sleep(self.0).await;
        Ok(Decision::Continue)
    }
    fn name(&self) -> &'static str {
        "slow"
    }
}

#[tokio::test(start_paused = true)]
async fn a_hook_timeout_follows_the_policy() {
    let log = log();
    let tool = AddOne::new(&log);
    let calls = tool.calls.clone();
    let limit = Some(Duration::from_millis(50));

    let closed = chain!(Guarded::new(Pre(Slow(Duration::from_secs(5))), FailurePolicy::FailClosed, limit) => ToolHandler(tool.clone()));
    let err = closed.call(&mut cx(), args(1)).await.unwrap_err();
    assert_eq!(err.to_string(), "hook `slow` timed out after 50 ms");
    assert!(err.is_retryable());
    assert_eq!(calls.load(Ordering::SeqCst), 0);

    let open = chain!(Guarded::new(Pre(Slow(Duration::from_secs(5))), FailurePolicy::FailOpen, limit) => ToolHandler(tool.clone()));
    assert_eq!(
        open.call(&mut cx(), args(1)).await.unwrap().text_content(),
        "2"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // A fast hook under the same limit is untouched.
    let fast = chain!(Guarded::new(Pre(Slow(Duration::from_millis(1))), FailurePolicy::FailClosed, limit) => ToolHandler(tool));
    assert_eq!(
        fast.call(&mut cx(), args(1)).await.unwrap().text_content(),
        "2"
    );
}

#[tokio::test(start_paused = true)]
async fn the_timeout_hook_cancels_a_slow_tool() {
    let slow = FnTool::new("sleepy", "Sleeps.", |a: XArgs| async move {
        tokio::time::sleep(Duration::from_secs(a.x as u64)).await;
        "woke"
    });
    let chain = chain!(Timeout::from_millis(1500) => ToolHandler(slow));
    assert_eq!(
        chain.call(&mut cx(), args(1)).await.unwrap().text_content(),
        "woke"
    );
    let err = chain.call(&mut cx(), args(2)).await.unwrap_err();
    assert_eq!(err.to_string(), "tool `add_one` timed out after 1500 ms");
}

#[tokio::test(start_paused = true)]
async fn retry_retries_retryable_errors_with_backoff_and_counts_attempts() {
    let attempts = Arc::new(AtomicUsize::new(0));
    let fail_first = |n: usize, retryable: bool| {
        let attempts = attempts.clone();
        attempts.store(0, Ordering::SeqCst);
        FnTool::new("flaky", "Flaky.", move |_: XArgs| {
            let attempt = attempts.fetch_add(1, Ordering::SeqCst) + 1;
            async move {
                if attempt <= n {
                    Err(ToolError::tool_message(
                        "flaky",
                        format!("attempt {attempt}"),
                        retryable,
                    ))
                } else {
                    Ok(format!("ok on attempt {attempt}"))
                }
            }
        })
    };
    struct ReadAttempts(Arc<Mutex<Option<u32>>>);
    impl Hook for ReadAttempts {
        async fn around<N: Handler>(
            &self,
            cx: &mut ToolContext,
            args: ToolArgs,
            next: Next<'_, N>,
        ) -> Outcome {
            let outcome = next.run(cx, args).await;
            *self.0.lock().unwrap() = cx.extensions().get::<Attempts>().map(|a| a.0);
            outcome
        }
    }

    let seen = Arc::new(Mutex::new(None));
    let retry = Retry::new(5, Duration::from_millis(100));
    assert_eq!(retry.backoff(1), Duration::from_millis(100));
    assert_eq!(retry.backoff(3), Duration::from_millis(400));

    let started = tokio::time::Instant::now();
    let chain = chain!(ReadAttempts(seen.clone()), retry => ToolHandler(fail_first(2, true)));
    let result = chain.call(&mut cx(), args(1)).await.unwrap();
    assert_eq!(result.text_content(), "ok on attempt 3");
    assert_eq!(attempts.load(Ordering::SeqCst), 3);
    assert_eq!(*seen.lock().unwrap(), Some(3));
    assert_eq!(
        started.elapsed(),
        Duration::from_millis(300),
        "100 ms then 200 ms"
    );

    // Not retryable: one attempt.
    let chain = chain!(retry => ToolHandler(fail_first(2, false)));
    assert!(chain.call(&mut cx(), args(1)).await.is_err());
    assert_eq!(attempts.load(Ordering::SeqCst), 1);

    // Always failing: exactly max_attempts attempts, and the last error is returned.
    let chain = chain!(retry => ToolHandler(fail_first(100, true)));
    let err = chain.call(&mut cx(), args(1)).await.unwrap_err();
    assert_eq!(attempts.load(Ordering::SeqCst), 5);
    assert_eq!(err.to_string(), "tool `flaky` failed: attempt 5");
}
