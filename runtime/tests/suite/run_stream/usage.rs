//! Usage: child agents' tokens roll up per agent path, and a usage limit
//! ends the run before the model call that would pass it.

use super::*;

/// Child agents' tokens roll up to the parent, per agent path: two calls of
/// one child under one path, a grandchild under its own.
#[tokio::test]
async fn child_usage_rolls_up_to_the_parent_per_agent_path() {
    let outputs = Arc::new(Mutex::new(Vec::new()));
    // The grandchild answers twice (once per call of its parent).
    let leaf_model = ScriptedModel::from_turns([
        costing(Turn::text("leaf a"), 2),
        costing(Turn::text("leaf b"), 2),
    ]);
    let leaf = AgentTool::new(
        BasicAgent::new(
            AgentConfig::new("Leaf").with_description("Leaf."),
            Router::new(),
        ),
        Arc::new(leaf_model) as Arc<dyn Model>,
    );
    let mid_model = ScriptedModel::from_turns([
        costing(Turn::call("agent__Leaf", json!({"message": "x"})), 30),
        costing(Turn::text("mid a"), 40),
        costing(Turn::call("agent__Leaf", json!({"message": "y"})), 30),
        costing(Turn::text("mid b"), 40),
    ]);
    let mid = AgentTool::new(
        BasicAgent::new(
            AgentConfig::new("Mid").with_description("Mid."),
            Router::new().tool(leaf),
        ),
        Arc::new(mid_model) as Arc<dyn Model>,
    )
    .with_output({
        let outputs = outputs.clone();
        move |out, _| {
            outputs.lock().unwrap().push(out.clone());
            ToolResult::text(out.text.clone())
        }
    });
    let model = ScriptedModel::from_turns([
        costing(Turn::call("agent__Mid", json!({"message": "one"})), 100),
        costing(Turn::call("agent__Mid", json!({"message": "two"})), 200),
        costing(Turn::text("done"), 300),
    ]);
    let mut runner = Runner::new(test_agent("boss", Router::new().tool(mid)), model);
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.text, "done");
    let by_path = out.usage_by_path();
    let by_path: Vec<(&str, u64, u64)> = by_path
        .iter()
        .map(|(path, u)| (path.as_str(), u.input_tokens, u.output_tokens))
        .collect();
    assert_eq!(
        by_path,
        [
            ("boss", 600, 3),
            ("boss/Mid", 140, 4),
            ("boss/Mid/Leaf", 4, 2)
        ]
    );
    assert_eq!(out.usage, used(744, 9));
    assert_eq!(out.own_usage, used(600, 3));
    assert_eq!(&*out.agent_path, "boss");
    // A child's own output has its own tokens and its child's.
    let mid_outputs = outputs.lock().unwrap();
    assert_eq!(mid_outputs[0].usage, used(72, 3));
    assert_eq!(&*mid_outputs[0].agent_path, "boss/Mid");
    assert_eq!(
        mid_outputs[0].usage_by_path().keys().collect::<Vec<_>>(),
        ["boss/Mid", "boss/Mid/Leaf"]
    );
}

/// A usage limit ends the run cleanly before the model call that would
/// pass it: the model is not asked again, and the error says why.
#[tokio::test]
async fn a_usage_limit_ends_the_run_before_the_next_model_call() {
    let model = Arc::new(ScriptedModel::from_turns([
        costing(Turn::call("sync", json!({})), 99),
        costing(Turn::call("sync", json!({})), 99),
        costing(Turn::text("never"), 1),
    ]));
    let mut runner = Runner::new(
        test_agent("ops", Router::new().tool(Sync)),
        model.clone() as Arc<dyn Model>,
    )
    .with_usage_limit(150);
    let err = runner.run("sync twice").await.unwrap_err();
    assert!(
        matches!(
            err,
            RunError::UsageLimit {
                limit: 150,
                used: 200
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the usage limit of 150 tokens is reached (200 used): the run ended before its next model call"
    );
    assert_eq!(model.remaining(), 1, "the third model call was not made");
    // Both calls ran: the limit ends the run between steps, not inside one.
    assert_eq!(crate::agent_common::tool_results(runner.history()).len(), 2);

    // Under the limit, the same run completes.
    let model = ScriptedModel::from_turns([
        costing(Turn::call("sync", json!({})), 99),
        costing(Turn::call("sync", json!({})), 99),
        costing(Turn::text("done"), 1),
    ]);
    let mut runner =
        Runner::new(test_agent("ops", Router::new().tool(Sync)), model).with_usage_limit(202);
    assert_eq!(runner.run("sync twice").await.unwrap().text, "done");
}

/// The limit counts the tokens of child agents, which share it: a child
/// whose tokens reach it is not asked again, and neither is its parent.
#[tokio::test]
async fn a_usage_limit_counts_and_binds_child_agents() {
    let child_model = Arc::new(ScriptedModel::from_turns([
        costing(Turn::call("agent__Inner", json!({"message": "deeper"})), 59),
        costing(Turn::text("never"), 1),
    ]));
    let inner_model = Arc::new(ScriptedModel::from_turns([Turn::text("unused")]));
    let inner = AgentTool::new(
        BasicAgent::new(
            AgentConfig::new("Inner").with_description("Inner."),
            Router::new(),
        ),
        inner_model.clone() as Arc<dyn Model>,
    );
    let child_agent = BasicAgent::new(
        AgentConfig::new("Worker").with_description("Works."),
        Router::new().tool(inner),
    );
    let child = AgentTool::new(child_agent, child_model.clone() as Arc<dyn Model>);
    let model = Arc::new(ScriptedModel::from_turns([
        costing(Turn::call("agent__Worker", json!({"message": "go"})), 99),
        costing(Turn::text("never"), 1),
    ]));
    let mut runner = Runner::new(
        test_agent("boss", Router::new().tool(child)),
        model.clone() as Arc<dyn Model>,
    )
    .with_usage_limit(150);
    let err = runner.run("go").await.unwrap_err();
    assert!(
        matches!(
            err,
            RunError::UsageLimit {
                limit: 150,
                used: 160
            }
        ),
        "{err:?}"
    );
    assert_eq!(model.remaining(), 1, "the parent was not asked again");
    assert_eq!(child_model.remaining(), 1, "the child was not asked again");
    assert_eq!(inner_model.remaining(), 1, "the grandchild was not asked");
    // The child's failed run is what its parent's model read.
    let results = crate::agent_common::tool_results(runner.history());
    assert_eq!(results.len(), 1);
    assert!(
        results[0].contains("the usage limit of 150 tokens is reached (160 used)"),
        "{results:?}"
    );
}
