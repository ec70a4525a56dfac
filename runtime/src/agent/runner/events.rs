//! A run as a stream of events ([`Runner::stream`]): what the run records
//! in its trace, as it records it, and what happens live in between (the
//! model's text as it arrives, a call starting, a tool's progress, an
//! approval asked for, the tokens of each model call).
//!
//! One place records a trace event ([`Runner::record`]): it appends it to
//! the trace and, when someone streams the run, sends it. A model call's
//! retry is the one event sent before it is kept: when the retry starts
//! ([`retry_started`]), kept with the step's answer. A run nobody
//! streams has no queue, and building an event to send is skipped: the
//! cost is one branch per event.

use super::LinkExt;
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use futures_util::task::AtomicWaker;
use serde::Serialize;

use super::{RunError, RunOutput, Runner, TraceEvent};
use crate::agent::decl::Agent;
use crate::agent::lifecycle::LifecycleHooks;
use crate::approval::CallSite;
use crate::context::ToolSource;
use crate::model::Usage;
use crate::scope::CallScope;
use hookwire_chain::call::{CallStr, ToolArgs};

/// Where a streamed run's events go (set on the run's scope, inherited by
/// the child agents it calls, and usable from any task a tool spawns).
///
/// A queue the [`RunStream`] drains, not a channel: the stream polls the
/// run itself, so most events are sent and read on one thread within one
/// poll. A mutex around a `VecDeque` costs two uncontended atomic
/// operations per event; tokio's unbounded channel allocated a block of 32
/// events per stream and cost more per event (BENCHMARKS.md, "A streamed
/// run, round two").
#[derive(Clone)]
pub(crate) struct EventTx(Arc<EventQueue>);

/// The events a streamed run sent and its stream has not read yet.
struct EventQueue {
    events: Mutex<VecDeque<RunEvent>>,
    /// The stream's task, woken by an event sent while the run waits (a
    /// tool's progress from a task it spawned, say).
    waker: AtomicWaker,
    /// Set when the stream is dropped: later events are refused.
    closed: AtomicBool,
}

impl EventQueue {
    /// The queue, locked. A panic cannot happen while it is held (only
    /// `push_back` and `pop_front` run under it), so a poisoned lock is
    /// taken as it is.
    #[inline]
    fn lock(&self) -> MutexGuard<'_, VecDeque<RunEvent>> {
        self.events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl EventTx {
    /// Queues `event` for the stream and wakes its task; `false` (and the
    /// event dropped) if the stream is gone.
    #[inline]
    pub(crate) fn send(&self, event: RunEvent) -> bool {
        if self.0.closed.load(Ordering::Acquire) {
            return false;
        }
        self.0.lock().push_back(event);
        self.0.waker.wake();
        true
    }
}

/// One event of a streamed run, from the run itself or from a child agent
/// it called (then `path` names the calls that lead to the child).
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct RunEvent {
    /// The agent whose run it is.
    pub agent: Arc<str>,
    /// The calls that lead to that run: empty for the streamed run itself;
    /// for a child agent's run, the parent's call (after its own parent's,
    /// and so on), each with its agent, step and call id.
    pub path: Arc<[CallSite]>,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

impl RunEvent {
    /// The agents from the streamed run's down to this event's, joined by
    /// `/` (`pmo`, `pmo/ny`): the key of [`RunOutput::usage_by_path`].
    #[inline]
    pub fn agent_path(&self) -> String {
        agent_path(&self.path, &self.agent)
    }

    /// Whether the event is the streamed run's own (not a child agent's).
    #[inline]
    pub fn is_root(&self) -> bool {
        self.path.is_empty()
    }

    /// The trace event, if this is one.
    #[inline]
    pub fn trace(&self) -> Option<&TraceEvent> {
        match &self.kind {
            EventKind::Trace(event) => Some(event),
            _ => None,
        }
    }
}

/// The agents of a path and the agent at its end, joined by `/`.
#[inline]
pub(crate) fn agent_path(path: &[CallSite], agent: &str) -> String {
    let mut out = String::new();
    for site in path {
        out.push_str(&site.agent);
        out.push('/');
    }
    out.push_str(agent);
    out
}

/// What a [`RunEvent`] reports.
///
/// [`Trace`](Self::Trace) events are the run's trace, each sent when it is
/// recorded: the `Trace` events of a stream's own run (`path` empty), in
/// order, are exactly the trace its [`RunOutput`] holds. The other kinds
/// are live: they report what happens before the trace records it (a
/// call's `ToolCall` event comes when the call ends, with its arguments as
/// received after the hooks, each gate's decision and the result).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)] // sent only when someone streams
pub enum EventKind {
    /// A chunk of the model's answer, as it arrives (from a model that
    /// streams: the scripted model sends a word at a time). The whole text
    /// is in the step's `Model` trace event.
    TextDelta {
        /// The step.
        step: usize,
        /// The chunk.
        text: String,
    },
    /// The model call of `step` failed and is asked again (a connection
    /// cut mid-answer, a 429, a 5xx; see
    /// [`RunSettings::model_retry`](super::RunSettings::model_retry)), sent
    /// when the retry starts, before its wait and before any text of the
    /// new attempt. The step's [`TextDelta`](Self::TextDelta)s received
    /// before it are void: discard them, the new attempt sends its answer
    /// from its start. The text shown after the step's last `Retry` is the
    /// answer. (Events of a child agent's run reset that run's step: the
    /// one with the same `path`.) The trace's
    /// [`ModelRetry`](TraceEvent::ModelRetry), with the error and the
    /// wait, follows at once.
    Retry {
        /// The step.
        step: usize,
        /// The retry's number: 1 for the second attempt.
        attempt: u32,
    },
    /// The tokens one model call used, and the run's total so far (its own
    /// calls).
    Usage {
        /// The step.
        step: usize,
        /// This call's tokens.
        usage: Usage,
        /// The run's own tokens so far.
        total: Usage,
    },
    /// A tool call starts, with its arguments as the model sent them (the
    /// `ToolCall` trace event at its end has them as the tool received
    /// them, after the hooks).
    ToolStarted {
        /// The step.
        step: usize,
        /// The tool-use id.
        id: CallStr,
        /// The tool.
        tool: CallStr,
        /// Where it comes from.
        source: ToolSource,
        /// The arguments as sent (shared with the history, not copied).
        arguments: ToolArgs,
    },
    /// A call asks for an approval decision: the run's approvals are asked
    /// (a sticky decision answers at once; the approver they ask may take
    /// a while, or defer: then the run pauses). The decision is in the
    /// call's `ToolCall` trace event.
    ApprovalWait {
        /// The step.
        step: usize,
        /// The tool-use id.
        id: String,
        /// The tool.
        tool: String,
        /// The gate that asks (`approver`, `needs_approval`, a hook).
        gate: String,
        /// Why it asks.
        reason: String,
    },
    /// A tool reported progress, as it did
    /// ([`ToolContext::progress`](crate::ToolContext::progress)); the trace
    /// records it as a `Progress` event when the call ends.
    Progress {
        /// The step.
        step: usize,
        /// The tool-use id.
        id: String,
        /// The tool.
        tool: String,
        /// The message.
        message: String,
    },
    /// An event of the run's trace, as it is recorded.
    Trace(TraceEvent),
    /// The streamed run ended: its output, or why it failed. The last
    /// event of a stream; never a child's (a child's end is its trace's
    /// `Finished` event and the parent's `ToolCall`).
    ///
    /// The output is boxed, so that every other event, which moves through
    /// the stream as one value, is not as large as a whole output (the
    /// pattern `EventKind::Done(Ok(out))` reads it as before; see
    /// BENCHMARKS.md, "A streamed run, round two").
    Done(#[serde(serialize_with = "done_json")] Result<Box<RunOutput>, RunError>),
}

impl EventKind {
    /// The kind's name, as its JSON `event` field has it: `text_delta`,
    /// `retry`, `usage`, `tool_started`, `approval_wait`, `progress`,
    /// `trace`, `done`.
    #[inline]
    pub fn name(&self) -> &'static str {
        match self {
            Self::TextDelta { .. } => "text_delta",
            Self::Retry { .. } => "retry",
            Self::Usage { .. } => "usage",
            Self::ToolStarted { .. } => "tool_started",
            Self::ApprovalWait { .. } => "approval_wait",
            Self::Progress { .. } => "progress",
            Self::Trace(_) => "trace",
            Self::Done(_) => "done",
        }
    }
}

/// The trace's record of one retry of the model call of `step`.
fn retry_event(step: usize, note: crate::model::RetryNote) -> TraceEvent {
    TraceEvent::ModelRetry {
        step,
        attempt: note.attempt,
        delay_ms: note.delay_ms,
        reason: note.reason,
    }
}

/// Sends a retry of the model call of `step` to the stream as it starts,
/// when someone streams the run: [`EventKind::Retry`] (discard the step's
/// text so far), then the trace's `ModelRetry`, which the trace keeps
/// once the answer came ([`Runner::keep_retries`]).
pub(super) fn retry_started(scope: &CallScope, step: usize, note: &crate::model::RetryNote) {
    scope.emit(|| EventKind::Retry {
        step,
        attempt: note.attempt,
    });
    scope.emit(|| EventKind::Trace(retry_event(step, note.clone())));
}

/// `Done` as JSON: `{"output": {..}}` or `{"error": "..."}`.
fn done_json<S: serde::Serializer>(
    done: &Result<Box<RunOutput>, RunError>,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(1))?;
    match done {
        Ok(output) => map.serialize_entry("output", output)?,
        Err(error) => map.serialize_entry("error", &error.to_string())?,
    }
    map.end()
}

/// A run as a [`futures_util::Stream`] of [`RunEvent`]s, ending with
/// [`EventKind::Done`]: from [`Runner::stream`] (borrowing the session) or
/// [`Runner::into_stream`] (owning it).
///
/// The run makes progress only while the stream is polled, on the task
/// that polls it: it spawns nothing. Dropping the stream drops the run
/// where it is (a tool call in flight is cancelled, as by a timeout); the
/// session keeps the steps the run ended, and its unfinished step is
/// rolled back: its answer joins the history only with its results, so no
/// tool call is left unanswered and the next run goes on (a resumed step
/// leaves the run paused). A model call asked again after part of its
/// text was sent is announced by [`EventKind::Retry`]: the text after a
/// step's last `Retry` is its answer.
#[must_use = "a stream does nothing unless polled"]
pub struct RunStream<'a> {
    run: Option<crate::BoxFuture<'a, Result<RunOutput, RunError>>>,
    events: Arc<EventQueue>,
    done: Option<Result<RunOutput, RunError>>,
    agent: Arc<str>,
}

impl Drop for RunStream<'_> {
    #[inline]
    fn drop(&mut self) {
        // Whoever still holds the sender (a task a tool spawned) sends into
        // nothing from now on, and what nobody read is freed now.
        self.events.closed.store(true, Ordering::Release);
        self.events.lock().clear();
    }
}

impl std::fmt::Debug for RunStream<'_> {
    #[inline]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStream")
            .field("agent", &self.agent)
            .field("running", &self.run.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a> RunStream<'a> {
    /// The stream of the run `run` makes, given where to send its events.
    fn new(
        agent: Arc<str>,
        run: impl FnOnce(EventTx) -> crate::BoxFuture<'a, Result<RunOutput, RunError>>,
    ) -> Self {
        let events = Arc::new(EventQueue {
            events: Mutex::new(VecDeque::new()),
            waker: AtomicWaker::new(),
            closed: AtomicBool::new(false),
        });
        Self {
            run: Some(run(EventTx(events.clone()))),
            events,
            done: None,
            agent,
        }
    }
}

impl futures_util::Stream for RunStream<'_> {
    type Item = RunEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RunEvent>> {
        let this = &mut *self;
        loop {
            if let Some(event) = this.events.lock().pop_front() {
                return Poll::Ready(Some(event));
            }
            let Some(run) = this.run.as_mut() else {
                // The run is over and what it sent is read: its end.
                return Poll::Ready(this.done.take().map(|done| RunEvent {
                    agent: this.agent.clone(),
                    path: Arc::from([]),
                    kind: EventKind::Done(done.map(Box::new)),
                }));
            };
            match run.as_mut().poll(cx) {
                Poll::Ready(done) => {
                    this.run = None;
                    this.done = Some(done);
                }
                Poll::Pending => {
                    // An event sent from elsewhere while the run waits
                    // wakes this task; one sent before the waker was
                    // registered is in the queue, read on the next turn.
                    this.events.waker.register(cx.waker());
                    if this.events.lock().is_empty() {
                        return Poll::Pending;
                    }
                }
            }
        }
    }
}

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Records one event of the trace: appends it and, when someone streams
    /// the run, sends it. Every trace event goes through here.
    pub(super) fn record(&mut self, event: TraceEvent) {
        self.scope.emit(|| EventKind::Trace(event.clone()));
        Arc::make_mut(&mut self.conv.trace).push(event);
    }

    /// [`record`](Self::record) for each event, in order.
    pub(super) fn record_all(&mut self, events: impl IntoIterator<Item = TraceEvent>) {
        for event in events {
            self.record(event);
        }
    }

    /// Keeps the model's retries of a step in the trace, after its answer
    /// came: the stream had each as it started ([`retry_started`]).
    pub(super) fn keep_retries(&mut self, step: usize, retries: Vec<crate::model::RetryNote>) {
        if !retries.is_empty() {
            self.keep_all(retries.into_iter().map(|note| retry_event(step, note)));
        }
    }

    /// Appends `events` to the trace, without sending them. (Not through
    /// `Arc::make_mut`: a second call of it for the trace would keep it
    /// from being inlined into [`record`](Self::record), on every event.)
    #[cold]
    fn keep_all(&mut self, events: impl Iterator<Item = TraceEvent>) {
        match Arc::get_mut(&mut self.conv.trace) {
            Some(trace) => trace.extend(events),
            None => {
                let mut trace = self.conv.trace.to_vec();
                trace.extend(events);
                self.conv.trace = Arc::new(trace);
            }
        }
    }

    /// Records the model's answer of a step: its tokens (with the run's
    /// so far) to the stream, the answer to the trace.
    pub(super) fn record_answer(
        &mut self,
        step: usize,
        response: &crate::model::ModelResponse,
        elapsed_us: u64,
    ) {
        self.scope.emit(|| EventKind::Usage {
            step,
            usage: response.usage,
            total: self.conv.usage,
        });
        self.record(TraceEvent::Model {
            step,
            text: response.text.clone(),
            // An answer without calls (every session's last) maps nothing:
            // mapping an empty list still costs a call and a loop.
            tool_calls: match response.tool_calls.is_empty() {
                true => Vec::new(),
                false => response.tool_calls.iter().map(|c| c.name.clone()).collect(),
            },
            elapsed_us,
        });
    }

    /// Runs one user message, as [`run`](Self::run) does, as a stream of
    /// its events: model text as it arrives, each call as it starts, its
    /// progress, approval waits, usage, the trace's events as they are
    /// recorded (with those of the child agents it calls, under their
    /// path), and last [`EventKind::Done`] with the run's output or error.
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// use hookwire::agent::{AgentConfig, BasicAgent, EventKind, Runner, TraceEvent};
    /// use hookwire::model::{ScriptedModel, Turn};
    /// use hookwire::Router;
    ///
    /// let agent = BasicAgent::new(AgentConfig::new("echo"), Router::new());
    /// let model = ScriptedModel::from_turns([Turn::text("hello there")]);
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut runner = Runner::new(agent, model);
    /// let events: Vec<_> = runner.stream("hi").collect().await;
    /// let deltas: String = events.iter().filter_map(|e| match &e.kind {
    ///     EventKind::TextDelta { text, .. } => Some(text.as_str()),
    ///     _ => None,
    /// }).collect();
    /// assert_eq!(deltas, "hello there");
    /// let Some(EventKind::Done(Ok(out))) = events.last().map(|e| &e.kind) else { panic!() };
    /// // The stream's trace events are the run's trace.
    /// let traced: Vec<&TraceEvent> = events.iter().filter_map(|e| e.trace()).collect();
    /// assert_eq!(traced, out.trace.iter().collect::<Vec<_>>());
    /// # });
    /// ```
    pub fn stream(&mut self, prompt: impl Into<String>) -> RunStream<'_>
    where
        H: 'static,
    {
        let prompt = prompt.into();
        RunStream::new(self.scope.agent_arc(), |tx| {
            Box::pin(self.run_inner(prompt, None, Some(tx)))
        })
    }

    /// [`resume`](Self::resume) as a stream of events, as
    /// [`stream`](Self::stream) runs a prompt: for a run that paused for
    /// approval and whose waiting calls are decided.
    pub fn stream_resume(&mut self) -> RunStream<'_>
    where
        H: 'static,
    {
        RunStream::new(self.scope.agent_arc(), |tx| {
            Box::pin(self.resume_inner(None, Some(tx)))
        })
    }

    /// [`stream`](Self::stream) owning the session, for a stream that must
    /// outlive the caller (a server's response, say).
    pub fn into_stream(mut self, prompt: impl Into<String>) -> RunStream<'static>
    where
        H: 'static,
    {
        let prompt = prompt.into();
        RunStream::new(self.scope.agent_arc(), |tx| {
            Box::pin(async move { self.run_inner(prompt, None, Some(tx)).await })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_event_stays_small() {
        // Every event moves through the queue, the stream and its consumer
        // by value: with `Done`'s output boxed, the largest event is a
        // live one (BENCHMARKS.md, "A streamed run, round two").
        let size = std::mem::size_of::<RunEvent>();
        println!("RunEvent: {size} bytes");
        assert!(size <= 136, "a RunEvent is {size} bytes");
    }
}
