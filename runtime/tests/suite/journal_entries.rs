//! What a journaled run records (`Runner::run_journaled` on a journal that
//! keeps its entries in memory and replays them by position and name, as
//! Restate does): a step with calls is its model entry and one entry per
//! call, timeouts or not (a call's start is the answer's recorded time);
//! a replay runs no tool; and a journal recorded before the answer kept
//! its time (a model entry of two fields, a `start tool` entry before each
//! timed call) still replays.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::agent_common::{test_agent, tool_results};

use hookwire::BoxFuture;
use hookwire::ToolResult;
use hookwire::agent::{Journal, JournalError, RunStatus, Runner};
use hookwire::model::ScriptedModel;
use hookwire::{
    Outcome, Router, Tool, ToolContext, ToolHandler, call::NoArgs, toolset::RouterEnd,
    toolset::RouterEntry,
};
use serde_json::Value;

/// A journal in memory: each step's name and value, in order. Given the
/// entries of an earlier run, it replays them first (the name must match,
/// as Restate checks a replayed entry), then records.
#[derive(Default)]
struct MemoryJournal {
    replay: Mutex<VecDeque<(String, Value)>>,
    entries: Mutex<Vec<(String, Value)>>,
}

impl MemoryJournal {
    fn replaying(entries: Vec<(String, Value)>) -> Self {
        Self {
            replay: Mutex::new(entries.into()),
            entries: Mutex::default(),
        }
    }

    fn names(&self) -> Vec<String> {
        let entries = self.entries.lock().unwrap();
        entries.iter().map(|(name, _)| name.clone()).collect()
    }

    fn entries(&self) -> Vec<(String, Value)> {
        self.entries.lock().unwrap().clone()
    }
}

impl Journal for MemoryJournal {
    fn step<'a>(
        &'a self,
        name: &'a str,
        effect: BoxFuture<'a, Value>,
    ) -> BoxFuture<'a, Result<Value, JournalError>> {
        Box::pin(async move {
            let replayed = self.replay.lock().unwrap().pop_front();
            let value = match replayed {
                Some((recorded, value)) if recorded == name => value,
                Some((recorded, _)) => {
                    return Err(JournalError::new(
                        name,
                        format!("the journal has `{recorded}` here"),
                    ));
                }
                None => effect.await,
            };
            self.entries
                .lock()
                .unwrap()
                .push((name.to_owned(), value.clone()));
            Ok(value)
        })
    }
}

/// `count`: answers `counted`, and counts its runs.
struct Count(Arc<AtomicUsize>);

impl Tool for Count {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "count"
    }

    fn description(&self) -> &str {
        "Counts its runs."
    }

    async fn call(&self, _: &ToolContext, _: NoArgs) -> Outcome {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(ToolResult::text("counted"))
    }
}

type Tools = Router<RouterEntry<ToolHandler<Count>, RouterEnd>>;
type Agent = crate::agent_common::TestAgent<Tools>;

/// A step of one call, a step of three, an answer.
const SCRIPT: &str = "turns:
  - tool_calls:
      - {id: c1, name: count, arguments: {}}
  - tool_calls:
      - {id: c2, name: count, arguments: {}}
      - {id: c3, name: count, arguments: {}}
      - {id: c4, name: count, arguments: {}}
  - text: done
";

/// A runner whose every call has a timeout, and the count of its tool's runs.
fn runner(max_parallel: usize) -> (Runner<Agent>, Arc<AtomicUsize>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = test_agent("journaled", Router::new().tool(Count(runs.clone())));
    let runner = Runner::new(agent, ScriptedModel::from_yaml(SCRIPT).unwrap())
        .with_tool_call_timeout(Duration::from_secs(60))
        .with_max_parallel(max_parallel);
    (runner, runs)
}

fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

#[tokio::test]
async fn a_step_records_its_answer_and_one_entry_per_call_and_a_replay_runs_no_tool() {
    let journal = MemoryJournal::default();
    let (mut first, runs) = runner(8);
    let out = first.run_journaled("go", &journal).await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(runs.load(Ordering::SeqCst), 4);
    // Timed calls, and no entry for their starts: the model entry has it.
    assert_eq!(
        journal.names(),
        names(&[
            "model 0",
            "tool count c1",
            "model 1",
            "tool count c2",
            "tool count c3",
            "tool count c4",
            "model 2",
        ])
    );
    // The answer, the time since the step started, when it was recorded.
    let (_, model) = &journal.entries()[0];
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let at = model[2].as_u64().expect("a model entry has its time");
    assert!(at <= now_ms && now_ms - at < 60_000, "{model}");

    // Replayed in a fresh runner: the same history, no tool runs again.
    let replay = MemoryJournal::replaying(journal.entries());
    let (mut second, again) = runner(8);
    let out2 = second.run_journaled("go", &replay).await.unwrap();
    assert_eq!(again.load(Ordering::SeqCst), 0);
    assert_eq!(out2.text, out.text);
    assert_eq!(second.history(), first.history());
    assert_eq!(replay.names(), journal.names());
}

#[tokio::test]
async fn a_later_group_of_timed_calls_records_each_start() {
    let journal = MemoryJournal::default();
    let (mut runner, runs) = runner(2);
    runner.run_journaled("go", &journal).await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 4);
    // The second step's first group (c2, c3) starts with the answer; the
    // second (c4) after it, so its start is an entry of its own.
    assert_eq!(
        journal.names(),
        names(&[
            "model 0",
            "tool count c1",
            "model 1",
            "tool count c2",
            "tool count c3",
            "start tool count c4",
            "tool count c4",
            "model 2",
        ])
    );
}

#[tokio::test]
async fn a_journal_recorded_before_answers_kept_their_time_still_replays() {
    let journal = MemoryJournal::default();
    let (mut first, _) = runner(8);
    first.run_journaled("go", &journal).await.unwrap();
    // The same run as the journal of an earlier hookwire recorded it: each
    // model entry `[answer, elapsed]`, and the starts of a step's timed
    // calls after it, before their results.
    let mut old = Vec::new();
    let mut calls = Vec::new();
    for (name, mut value) in journal.entries() {
        if let Some(call) = name.strip_prefix("tool ") {
            old.push((format!("start tool {call}"), Value::from(1_000_u64)));
            calls.push((name, value));
            continue;
        }
        old.append(&mut calls);
        if name.starts_with("model ") {
            value.as_array_mut().unwrap().truncate(2);
        }
        old.push((name, value));
    }
    let replay = MemoryJournal::replaying(old.clone());
    let (mut second, runs) = runner(8);
    let out = second.run_journaled("go", &replay).await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert_eq!(second.history(), first.history());
    assert_eq!(
        tool_results(second.history()),
        ["counted", "counted", "counted", "counted"]
    );
    let replayed: Vec<String> = old.into_iter().map(|(name, _)| name).collect();
    assert_eq!(replay.names(), replayed);
}
