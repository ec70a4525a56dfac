//! Which tools and steps a hook's matcher (`ForTools`) lets through.

use super::*;

#[tokio::test]
async fn for_tools_limits_tool_events_to_matching_tools() {
    let log: Log = Arc::default();
    let ran: Log = Arc::default();
    let hook = ForTools::new(
        "sub|mul".parse::<hookwire::matcher::Matcher>().unwrap(),
        Fixed(
            "only-sub-mul",
            Decision::Deny("blocked".into()),
            log.clone(),
        ),
    );
    let model =
        ScriptedModel::from_turns([Turn::call("add", json!({"a": 1, "b": 1})), Turn::text("2")]);
    let out = Runner::new(calc(ran.clone()).with_hooks(hook), model)
        .run("x")
        .await
        .unwrap();
    assert_eq!(out.text, "2");
    assert!(log.lock().unwrap().is_empty(), "the hook never saw `add`");
    assert_eq!(*ran.lock().unwrap(), ["add(1,1)"]);
}

#[tokio::test]
async fn for_tools_selects_with_a_function() {
    use hookwire::ToolSource;
    use hookwire::matcher::MatchTarget;
    let log: Log = Arc::default();
    let ran: Log = Arc::default();
    let hook = ForTools::new(
        |t: &MatchTarget<'_>| t.tool == "add" && t.source == ToolSource::Function,
        Fixed("add-only", Decision::Deny("no adding".into()), log.clone()),
    );
    let model =
        ScriptedModel::from_turns([Turn::call("add", json!({"a": 1, "b": 1})), Turn::text("ok")]);
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(hook), model);
    runner.run("x").await.unwrap();
    assert_eq!(*log.lock().unwrap(), ["add-only"]);
    assert!(ran.lock().unwrap().is_empty());
    assert_eq!(
        runner.history()[2].text(),
        "tool call denied by `add-only`: no adding"
    );
}

/// The events a `ForTools` with step events lets through, for `pattern`.
async fn events_for(pattern: &str) -> Vec<String> {
    let log: Log = Arc::default();
    let hook = ForTools::new(
        pattern.parse::<hookwire::matcher::Matcher>().unwrap(),
        Recorder(log.clone()),
    )
    .with_step_events();
    let model =
        ScriptedModel::from_turns([Turn::call("add", json!({"a": 1, "b": 2})), Turn::text("3")]);
    Runner::new(calc(Log::default()).with_hooks(hook), model)
        .run("go")
        .await
        .unwrap();
    let log = log.lock().unwrap();
    // The events of the whole run fire as before.
    log.iter()
        .filter(|e| {
            !e.starts_with("execution_")
                && !e.starts_with("user_prompt")
                && !e.starts_with("step_start")
        })
        .cloned()
        .collect()
}

#[tokio::test]
async fn step_matchers_select_the_final_answer_or_the_tool_steps() {
    assert_eq!(events_for("step:final").await, ["stop(3)", "step_end(1,0)"]);
    assert_eq!(
        events_for("step:tool").await,
        ["pre_tool_use(add)", "post_tool_use(add)", "step_end(0,1)"]
    );
    // A name selects that tool's calls, never a step as a whole.
    assert_eq!(
        events_for("add|step:final").await,
        [
            "pre_tool_use(add)",
            "post_tool_use(add)",
            "stop(3)",
            "step_end(1,0)"
        ]
    );
    assert_eq!(
        events_for("!step:final").await,
        ["pre_tool_use(add)", "post_tool_use(add)", "step_end(0,1)"]
    );
}

#[tokio::test]
async fn without_step_events_a_matcher_limits_only_the_tool_events() {
    let log: Log = Arc::default();
    let hook = ForTools::new(
        "sub".parse::<hookwire::matcher::Matcher>().unwrap(),
        Recorder(log.clone()),
    );
    let model = ScriptedModel::from_turns([Turn::text("3")]);
    Runner::new(calc(Log::default()).with_hooks(hook), model)
        .run("go")
        .await
        .unwrap();
    assert!(log.lock().unwrap().contains(&"stop(3)".to_owned()));
}
