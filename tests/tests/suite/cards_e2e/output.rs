//! Typed output (`output_type:`) and checked output (`output_schema:`).

use super::*;

/// The typed answer of the Verdict-Desk card (`output_type:`).
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
pub struct Verdict {
    /// Whether the change may ship.
    pub ship: bool,
    /// Why.
    pub reason: String,
}

/// A card with `output_type:`: `Runner::run_output` asks the model for the
/// type's schema (the scripted model through the final-answer tool) and
/// returns the answer as the type.
#[test]
fn a_card_with_an_output_type_answers_run_output_with_the_type() {
    use hookwire::model::{ScriptedModel, Turn};
    let model = ScriptedModel::from_turns([Turn::call(
        "final_result",
        serde_json::json!({"ship": true, "reason": "tests pass"}),
    )]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut runner = Runner::new(agents::VerdictDesk::new(), model);
    let out = rt.block_on(runner.run_output("May #12 ship?")).unwrap();
    assert_eq!(
        out.value,
        Verdict {
            ship: true,
            reason: "tests pass".into()
        }
    );
    let spec = runner.agent().config().output.clone().unwrap();
    assert_eq!(spec.name, "Verdict");
}

/// A card with `output_schema:`: every run asks for it and checks the
/// answer against it; a mismatch (a score above the `maximum`) is sent back
/// once, then the answer is taken.
#[test]
fn a_card_with_an_output_schema_checks_every_run() {
    use hookwire::model::{ScriptedModel, Turn};
    let model = ScriptedModel::from_turns([
        Turn::call(
            "final_result",
            serde_json::json!({"score": 11, "why": "great"}),
        ),
        Turn::call(
            "final_result",
            serde_json::json!({"score": 9, "why": "great"}),
        ),
    ]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut runner = Runner::new(agents::ScoreDesk::new(), model);
    let out = rt.block_on(runner.run("Score #12")).unwrap();
    assert_eq!(
        out.structured,
        Some(serde_json::json!({"score": 9, "why": "great"}))
    );
    let retries: Vec<String> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::OutputRetry { error, .. } => Some(error.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        retries,
        ["at `score`: 11 is greater than the maximum of 10"]
    );
}
