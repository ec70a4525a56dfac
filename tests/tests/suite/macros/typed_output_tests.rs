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

/// A schema-only output (feature `output-schema`).
#[hookwire::agent(
    name = "judge",
    instruction = "Judge.",
    output_schema = r#"{"title": "Verdict", "type": "object", "properties": {"verdict": {"enum": ["go", "stop"]}, "notes": {"type": "array", "items": {"type": "string", "maxLength": 5}}}, "required": ["verdict"]}"#
)]
struct Judge;

/// Every run of an agent with `output_schema` is checked against it
/// through `jsonschema`; the error sent back names the wrong value's path.
#[tokio::test]
async fn an_agent_with_an_output_schema_checks_every_answer_against_it() {
    let model = ScriptedModel::from_turns([
        Turn::call(
            "final_result",
            json!({"verdict": "go", "notes": ["ok", "far too long"]}),
        ),
        Turn::call("final_result", json!({"verdict": "go", "notes": ["ok"]})),
    ]);
    let mut runner = Runner::new(Judge::new(), model);
    let out = runner.run("Go?").await.unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"verdict": "go", "notes": ["ok"]}))
    );
    let retries: Vec<String> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            hookwire::agent::TraceEvent::OutputRetry { error, .. } => Some(error.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        retries,
        [r#"at `notes[1]`: "far too long" is longer than 5 characters"#]
    );
    use hookwire::agent::Agent;
    assert_eq!(
        runner
            .agent()
            .config()
            .output
            .as_ref()
            .map(|o| o.name.as_str()),
        Some("Verdict")
    );
}
