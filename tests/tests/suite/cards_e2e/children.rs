//! Child agents of the PMO, Triage, Relay and London cards: instruction,
//! request hook, parallelism, timeouts, display limits, output and
//! on_error, and the history options.

use super::*;

/// The PMO card at work: its instruction is the system prompt its model
/// reads; its request hook fires at request start (and is skipped, as the
/// `time` server is not connected here); its `max_parallel: 128` bounds
/// its calls of a child (300 calls in one step: 128 at once, none dropped,
/// results in call order, through its tool hooks); its `history_source:
/// none` starts each child from nothing but its prompt, and its
/// `history_merge_target: none` keeps the children's messages out of the
/// PMO's history.
#[test]
fn the_pmo_cards_instruction_request_hook_max_parallel_and_history_options_act() {
    let _ny = ny_runs();
    let n = 300;
    let desk = Desk::new((0..n).map(|i| format!("m{i}")));
    let mut runner = Runner::new(PmoOrchestrator::new(), desk.clone());
    let out = runtime(false).block_on(runner.run("status?")).unwrap();
    assert_eq!(out.text, "done: status?");

    let pmo = desk.sent_by("PMO-orchestrator");
    assert_eq!(pmo.len(), 2);
    assert_eq!(
        pmo[0].system,
        "Get project updates from the New York and London project managers and include the current time."
    );
    assert_eq!(pmo[0].messages, ["user: status?"]);
    let injections: Vec<String> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Injection { tool, action } => Some(format!("{tool}: {action:?}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        injections,
        ["time__get_time: Skipped(\"unknown tool `time__get_time`\")"]
    );

    let ny = desk.sent_by("NY-Project-Manager");
    assert_eq!(ny.len(), n);
    assert_eq!(
        desk.peak.load(Ordering::SeqCst),
        128,
        "reached, never exceeded"
    );
    assert!(
        ny.iter()
            .all(|s| s.system == "You are the New York project manager.")
    );
    let mut seen: Vec<Vec<String>> = ny.into_iter().map(|s| s.messages).collect();
    seen.sort();
    let mut expected: Vec<Vec<String>> = (0..n).map(|i| vec![format!("user: m{i}")]).collect();
    expected.sort();
    assert_eq!(seen, expected, "each child saw only its prompt");

    let history = runner.history();
    assert_eq!(history.len(), n + 3, "no child message merged");
    let results: Vec<String> = history[2..2 + n].iter().map(line).collect();
    let expected: Vec<String> = (0..n)
        .map(|i| format!("tool: filed: m{i} [tag] [audit]"))
        .collect();
    assert_eq!(results, expected);
}

/// The PMO card's `child_timeout_sec: 120`: a child that takes 121 s gives
/// an error result naming it, one that takes 119 s answers, and the run
/// goes on to its final answer.
#[test]
fn the_pmo_cards_child_timeout_times_out_a_slow_child() {
    let _ny = ny_runs();
    let desk = Desk::new(["sleep 119".to_owned(), "sleep 121".to_owned()]);
    let mut runner = Runner::new(PmoOrchestrator::new(), desk);
    let out = runtime(true).block_on(runner.run("status?")).unwrap();
    assert_eq!(out.text, "done: status?");
    let results: Vec<String> = runner.history()[2..4].iter().map(line).collect();
    assert_eq!(
        results,
        [
            "tool: filed: sleep 119 [tag] [audit]",
            "tool: agent `agent__NY-Project-Manager` timed out after 120000 ms",
        ]
    );
}

/// The card set's `default: true` agent (PMO-orchestrator) is the
/// generated module's `default()`.
#[test]
fn the_default_card_is_the_modules_default() {
    let agent: PmoOrchestrator = agents::default();
    assert_eq!(agent.config().name, "PMO-orchestrator");
    assert_eq!(agents::DEFAULT_AGENT, "PMO-orchestrator");
}

/// The PMO card's `max_display_instances: 20`: a step that calls its child
/// 25 times shows 20 of the calls in the trace text and how many it hides;
/// the trace keeps all 25. With 20 calls nothing is hidden.
#[test]
fn the_pmo_cards_max_display_instances_limits_the_trace_text() {
    let _ny = ny_runs();
    for (n, hidden) in [(25, Some(5)), (20, None)] {
        let desk = Desk::new((0..n).map(|i| format!("m{i}")));
        let mut runner = Runner::new(PmoOrchestrator::new(), desk);
        let out = runtime(false).block_on(runner.run("status?")).unwrap();
        let calls = |text: &str| {
            text.lines()
                .filter(|l| l.starts_with("step 0 tool agent__NY-Project-Manager (agent)"))
                .count()
        };
        let text = out.trace_text();
        assert_eq!(calls(&text), n.min(20), "{text}");
        let recorded = out
            .trace
            .iter()
            .filter(|e| matches!(e, TraceEvent::ToolCall(call) if &*call.tool == "agent__NY-Project-Manager"))
            .count();
        assert_eq!(recorded, n);
        let summary: Vec<&str> = text.lines().filter(|l| l.contains("not shown")).collect();
        match hidden {
            Some(k) => assert_eq!(
                summary,
                [format!(
                    "step 0 tool agent__NY-Project-Manager: {k} more concurrent instances not shown (max_display_instances: 20)"
                )]
            ),
            None => assert!(summary.is_empty(), "{text}"),
        }
    }
}

/// The Triage-Desk card's `agents:` entry with `output` and `on_error`:
/// the child's answer reaches the desk's model through `triage.rs:receipt`,
/// and the child that times out through `triage.rs:go_on`, as a plain
/// result the model reads and goes on from.
#[test]
fn a_card_childs_output_and_on_error_shape_what_the_parent_reads() {
    let _ny = ny_runs();
    let desk = Desk::new(["sleep 119".to_owned(), "sleep 121".to_owned()]);
    let mut runner = Runner::new(TriageDesk::new(), desk);
    let out = runtime(true).block_on(runner.run("notes")).unwrap();
    assert_eq!(out.text, "done: notes");
    let results: Vec<String> = runner.history()[2..4].iter().map(line).collect();
    assert_eq!(
        results,
        [
            "tool: receipt: filed: sleep 119 (2 messages)",
            "tool: not filed (timed_out), go on",
        ]
    );
    let errors: Vec<bool> = runner.history()[2..4]
        .iter()
        .map(|m| m.tool_result().is_some_and(|r| r.is_error))
        .collect();
    assert_eq!(errors, [false, false]);
}

/// The Relay-Desk card's `history_source: orchestrator`: the child starts
/// from the orchestrator's history; its `history_merge_target:
/// orchestrator`: the child's messages join the orchestrator's history
/// after the step's tool results, and its model reads them.
#[test]
fn the_relay_cards_history_source_and_merge_target_act() {
    let _ny = ny_runs();
    let desk = Desk::new(["note 1".to_owned()]);
    let mut runner = Runner::new(RelayDesk::new(), desk.clone());
    let out = runtime(false).block_on(runner.run("relay this")).unwrap();
    assert_eq!(out.text, "done: note 1");
    let call = r#"assistant:  -> agent__NY-Project-Manager({"message":"note 1"})"#;
    let ny = desk.sent_by("NY-Project-Manager");
    assert_eq!(ny.len(), 1);
    // Up to the answer whose calls are running: their results do not
    // exist yet, and APIs refuse a call without its result.
    assert_eq!(ny[0].messages, ["user: relay this", "user: note 1"]);
    let relay = desk.sent_by("Relay-Desk");
    assert_eq!(
        relay[0].system,
        "Relay every note to the New York project manager."
    );
    let merged = [
        "user: relay this",
        call,
        "tool: filed: note 1",
        "user: note 1",
        "assistant: filed: note 1",
    ];
    assert_eq!(relay[1].messages, merged, "what the orchestrator read next");
    let history: Vec<String> = runner.history().iter().map(line).collect();
    assert_eq!(history[..5], merged);
    assert_eq!(history[5..], ["assistant: done: note 1"]);
}

/// The London card's `use_history: false`: each run starts from an empty
/// history (the second request holds only the second prompt), and its
/// instruction is the system prompt.
#[test]
fn the_london_cards_use_history_false_clears_the_history_between_runs() {
    let desk = Desk::new([]);
    let mut runner = Runner::new(LondonProjectManager::new(), desk.clone());
    let rt = runtime(false);
    rt.block_on(runner.run("first")).unwrap();
    rt.block_on(runner.run("second")).unwrap();
    let sent = desk.sent_by("London-Project-Manager");
    let messages: Vec<&[String]> = sent.iter().map(|s| &s.messages[..]).collect();
    assert_eq!(messages, [["user: first"], ["user: second"]]);
    assert_eq!(
        sent[1].system,
        "You are the London project manager; review the economics."
    );
    let history: Vec<String> = runner.history().iter().map(line).collect();
    assert_eq!(history, ["user: second", "assistant: done: second"]);
}
