//! `#[hookwire::tool(available = path, instruction = ..)]` in an
//! `#[agent]`: the rule and the instruction (a text, or a function asked
//! each step) reach the model's request, step by step.
#![allow(clippy::unwrap_used)]

use crate::seeing::{Offered as Seen, Seeing};
use hookwire::agent::Runner;
use hookwire::model::{Message, ScriptedModel, Turn};
use hookwire::serde_json::json;
use hookwire::view::StepView;

/// Marks a session as a manager's.
pub struct Manager;

/// Closes the till.
#[hookwire::tool(available = managers_only, instruction = "Close the till only at night.")]
fn close_till() -> String {
    "closed".to_owned()
}

fn managers_only(step: &StepView<'_>) -> bool {
    step.session::<Manager>().is_some()
}

/// Counts the till.
#[hookwire::tool(instruction = counting_note)]
fn count_till() -> u32 {
    7
}

fn counting_note(step: &StepView<'_>) -> String {
    if step.step == 0 {
        String::new()
    } else {
        format!("You counted {} times.", step.step)
    }
}

/// Runs the till.
#[hookwire::agent(name = "till", instruction = "You run the till.", function_tools = [close_till, count_till])]
pub struct Till;

#[tokio::test]
async fn a_macro_tools_availability_and_instructions_reach_each_step() {
    for manager in [false, true] {
        let seen = Seen::default();
        let model = Seeing(
            ScriptedModel::from_turns([
                Turn::call("count_till", json!({})),
                Turn::call("close_till", json!({})),
                Turn::text("done"),
            ]),
            seen.clone(),
        );
        let runner = Runner::new(Till::new(), model);
        let mut runner = if manager {
            runner.with_session_value(Manager)
        } else {
            runner
        };
        runner.run("close up").await.unwrap();
        let results = result_texts(runner.history());
        let seen = seen.lock().unwrap().clone();
        if manager {
            let both = vec!["close_till".to_owned(), "count_till".to_owned()];
            assert_eq!(
                seen,
                [
                    (
                        "You run the till.\n\nClose the till only at night.".to_owned(),
                        both.clone()
                    ),
                    (
                        "You run the till.\n\nClose the till only at night.\n\nYou counted 1 \
                         times."
                            .to_owned(),
                        both.clone()
                    ),
                    (
                        "You run the till.\n\nClose the till only at night.\n\nYou counted 2 \
                         times."
                            .to_owned(),
                        both
                    ),
                ]
            );
            assert_eq!(results, ["7", "closed"]);
        } else {
            assert_eq!(
                seen[0],
                (
                    "You run the till.".to_owned(),
                    vec!["count_till".to_owned()]
                )
            );
            assert_eq!(seen[1].0, "You run the till.\n\nYou counted 1 times.");
            assert_eq!(results[0], "7");
            assert!(
                results[1].contains("tool `close_till` is not available"),
                "{results:?}"
            );
        }
    }
}

/// Opens the drawer.
#[hookwire::tool]
fn open_drawer() -> String {
    "open".to_owned()
}

fn after_the_first_step(step: &StepView<'_>) -> bool {
    step.step > 0
}

fn drawer_note(step: &StepView<'_>) -> String {
    format!("Drawer, step {}.", step.step)
}

/// Keeps the drawer: the agent's own rules for tools it lists, besides the
/// tools' (`close_till` keeps its rule and instruction, and gets one more).
#[hookwire::agent(
    name = "drawer",
    instruction = "You keep the drawer.",
    function_tools = [
        open_drawer(available = after_the_first_step, instruction = drawer_note),
        close_till(instruction = "Say goodnight."),
    ]
)]
pub struct Drawer;

#[tokio::test]
async fn an_agents_entry_gives_a_tool_its_own_availability_and_instruction() {
    let seen = Seen::default();
    let model = Seeing(
        ScriptedModel::from_turns([
            Turn::call("open_drawer", json!({})),
            Turn::call("open_drawer", json!({})),
            Turn::text("done"),
        ]),
        seen.clone(),
    );
    let mut runner = Runner::new(Drawer::new(), model).with_session_value(Manager);
    runner.run("open up").await.unwrap();
    let results = result_texts(runner.history());
    assert_eq!(
        results,
        [
            "tool call denied by `available`: tool `open_drawer` is not available in this step, \
             so it was not offered and cannot be called",
            "open"
        ]
    );
    let till = "Close the till only at night.\n\nSay goodnight.";
    let both = vec!["open_drawer".to_owned(), "close_till".to_owned()];
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (
                format!("You keep the drawer.\n\n{till}"),
                vec!["close_till".to_owned()]
            ),
            (
                format!("You keep the drawer.\n\nDrawer, step 1.\n\n{till}"),
                both.clone()
            ),
            (
                format!("You keep the drawer.\n\nDrawer, step 2.\n\n{till}"),
                both
            ),
        ]
    );
}

/// The text of every tool result in `history`, in order.
pub(crate) fn result_texts(history: &[Message]) -> Vec<String> {
    history
        .iter()
        .filter_map(Message::tool_result)
        .map(|r| r.text_content())
        .collect()
}

/// Lists `open_drawer` with no rule of the agent's.
#[hookwire::agent(name = "plain_drawer", function_tools = [open_drawer, count_till])]
pub struct PlainDrawer;

#[test]
fn only_tools_with_a_rule_or_an_instruction_are_asked_at_each_step() {
    use hookwire::ToolSet;
    use hookwire::agent::Agent;
    let plain = PlainDrawer::new();
    let view = |agent: &dyn Fn(&str) -> Option<hookwire::view::ToolView>, name: &str| {
        agent(name).unwrap().has_step_rules()
    };
    let plain_views = |name: &str| plain.tools().tool_view(name);
    assert!(!view(&plain_views, "open_drawer"));
    assert!(view(&plain_views, "count_till"));
    let drawer = Drawer::new();
    let drawer_views = |name: &str| drawer.tools().tool_view(name);
    // The agent's rule makes the plain tool asked; the tool's own rule
    // keeps `close_till` asked.
    assert!(view(&drawer_views, "open_drawer"));
    assert!(view(&drawer_views, "close_till"));
}
