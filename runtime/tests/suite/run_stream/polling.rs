//! How the stream is driven: dropping it cancels the run and drops the
//! tool, and an event sent from another task wakes the waiting stream.

use super::*;

/// Sleeps for a minute; notes that it started and that its future was
/// dropped.
struct Sleepy {
    started: Arc<AtomicBool>,
    dropped: Arc<AtomicBool>,
}

/// Sets its flag when dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl Tool for Sleepy {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "sleepy"
    }

    fn description(&self) -> &str {
        "Sleeps."
    }

    async fn call(&self, _cx: &ToolContext, _args: NoArgs) -> Outcome {
        let _flag = DropFlag(self.dropped.clone());
        self.started.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_secs(60)).await;
        Ok(ToolResult::text("slept"))
    }
}

/// Dropping the stream while a tool sleeps cancels the run there: the
/// tool's future is dropped at once (nothing was spawned), and the session
/// runs again afterwards.
#[tokio::test]
async fn dropping_the_stream_cancels_the_run_and_drops_the_tool() {
    let started = Arc::new(AtomicBool::new(false));
    let dropped = Arc::new(AtomicBool::new(false));
    let tool = Sleepy {
        started: started.clone(),
        dropped: dropped.clone(),
    };
    let model = ScriptedModel::from_turns([
        Turn::call("sleepy", json!({})),
        Turn::text("never"),
        Turn::text("again"),
    ]);
    let mut runner = Runner::new(test_agent("nap", Router::new().tool(tool)), model);
    {
        let mut stream = runner.stream("nap");
        loop {
            let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
                .await
                .expect("an event within 10 s")
                .expect("the stream goes on");
            if let EventKind::ToolStarted { .. } = event.kind {
                break;
            }
        }
        // The tool runs when the stream is polled next.
        let next = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
        assert!(next.is_err(), "the tool sleeps: {next:?}");
        assert!(started.load(Ordering::SeqCst));
        assert!(!dropped.load(Ordering::SeqCst));
    }
    assert!(
        dropped.load(Ordering::SeqCst),
        "dropping the stream dropped the tool's future"
    );
    // The session is usable again, and a plain run streams to no one.
    let out = runner.run("again").await.unwrap();
    assert_eq!(out.text, "never");
}

/// Reports progress from a task it spawns (with a context of its own, on
/// the run's scope), then waits until the test has read that progress.
struct FromAfar {
    seen: Arc<tokio::sync::Notify>,
}

impl Tool for FromAfar {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "afar"
    }

    fn description(&self) -> &str {
        "Reports progress from another task."
    }

    async fn call(&self, cx: &ToolContext, _args: NoArgs) -> Outcome {
        let scope = cx.scope().clone();
        let id = cx.tool_use_id().to_owned();
        tokio::spawn(async move {
            // After the run's poll has returned `Pending`.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let cx = scope.context(
                "afar".into(),
                hookwire::ToolSource::Function,
                None,
                id.into(),
            );
            cx.progress("from afar");
        });
        self.seen.notified().await;
        Ok(ToolResult::text("seen"))
    }
}

/// Counts its wakes.
struct CountWakes(std::sync::atomic::AtomicUsize);

impl std::task::Wake for CountWakes {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// An event sent from another task while the run waits wakes the stream's
/// task. The stream is polled by hand: after it returns `Pending` (the tool
/// waits), only the progress sent from the spawned task can wake it; the
/// tool goes on once the test has read that progress.
#[test]
fn an_event_sent_from_another_task_wakes_the_waiting_stream() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let _in_rt = rt.enter();
    let seen = Arc::new(tokio::sync::Notify::new());
    let tool = FromAfar { seen: seen.clone() };
    let model = ScriptedModel::from_turns([Turn::call("afar", json!({})), Turn::text("done")]);
    let mut runner = Runner::new(test_agent("afar", Router::new().tool(tool)), model);
    let mut stream = runner.stream("go");
    let wakes = Arc::new(CountWakes(std::sync::atomic::AtomicUsize::new(0)));
    let waker = std::task::Waker::from(wakes.clone());
    let mut cx = std::task::Context::from_waker(&waker);
    let mut events = Vec::new();
    let mut waited = false;
    loop {
        match stream.poll_next_unpin(&mut cx) {
            std::task::Poll::Ready(Some(event)) => {
                if let EventKind::Progress { .. } = &event.kind {
                    seen.notify_one();
                }
                events.push(event);
            }
            std::task::Poll::Ready(None) => break,
            std::task::Poll::Pending => {
                // Nothing polls the stream until it is woken.
                let before = wakes.0.load(Ordering::SeqCst);
                let deadline = std::time::Instant::now() + Duration::from_secs(10);
                while wakes.0.load(Ordering::SeqCst) == before {
                    assert!(
                        std::time::Instant::now() < deadline,
                        "not woken within 10 s; events so far: {:#?}",
                        kinds(&events)
                    );
                    std::thread::sleep(Duration::from_millis(2));
                }
                waited = true;
            }
        }
    }
    assert!(waited, "the stream waited for the tool");
    let kinds = kinds(&events);
    let at = |what: &str| kinds.iter().position(|k| k.ends_with(what)).unwrap();
    assert!(
        at("progress afar: from afar") > at("start afar {}"),
        "{kinds:#?}"
    );
    assert!(
        at("progress afar: from afar") < at("trace call afar"),
        "{kinds:#?}"
    );
    assert_eq!(kinds.last().unwrap(), "afar: done done");
}
