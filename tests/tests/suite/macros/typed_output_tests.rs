//! `#[agent(output = T)]`: every run asks for `T`'s schema, and
//! `Runner::run_output` returns the answer as a `T`.

use hookwire::agent::Runner;
use hookwire::model::{ScriptedModel, Turn};
use serde_json::json;

/// A trip plan.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Plan {
    /// The city.
    city: String,
    /// How many days.
    days: u32,
}

#[hookwire::agent(name = "planner", instruction = "Plan trips.", output = Plan)]
struct Planner;

#[tokio::test]
async fn an_agent_with_an_output_type_answers_run_output_with_it() {
    let model = ScriptedModel::from_turns([
        Turn::call("final_result", json!({"city": "Oslo", "days": "3"})),
        Turn::call("final_result", json!({"city": "Oslo", "days": 3})),
    ]);
    let mut runner = Runner::new(Planner::new(), model);
    let out = runner.run_output("Plan Oslo").await.unwrap();
    assert_eq!(
        out.value,
        Plan {
            city: "Oslo".into(),
            days: 3
        }
    );
    assert_eq!(out.output.steps, 2);
    // A plain run of the agent is held to the same schema.
    let model = ScriptedModel::from_turns([Turn::text(r#"{"city": "Rome", "days": 1}"#)]);
    let mut runner = Runner::new(Planner::new(), model);
    let out = runner.run("Plan Rome").await.unwrap();
    assert_eq!(out.structured, Some(json!({"city": "Rome", "days": 1})));
}
