//! A chain of agents of any depth compiles at rustc's default recursion
//! limit and runs: 33 agents, each the only child of the next.
//!
//! A parent's type used to contain its child's (`Arc<Child>` in its
//! `AgentTool`), and rustc proves `Send`/`Sync` through that nesting: a
//! chain of about twenty agents failed with E0275. `AgentTool` now holds its
//! child behind a trait object. If it held the child by type again, this
//! file would stop compiling.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hookwire::agent::{Runner, TraceEvent};
use hookwire::model::{ScriptedModel, Turn};
use serde_json::json;

/// The leaf: asks its model and answers.
#[hookwire::agent(name = "l0", instruction = "Answer.")]
pub struct L0;

/// Level 1: delegates to level 0.
#[hookwire::agent(name = "l1", instruction = "Delegate.", agents = [L0(name = "l0")])]
pub struct L1;

/// Level 2: delegates to level 1.
#[hookwire::agent(name = "l2", instruction = "Delegate.", agents = [L1(name = "l1")])]
pub struct L2;

/// Level 3: delegates to level 2.
#[hookwire::agent(name = "l3", instruction = "Delegate.", agents = [L2(name = "l2")])]
pub struct L3;

/// Level 4: delegates to level 3.
#[hookwire::agent(name = "l4", instruction = "Delegate.", agents = [L3(name = "l3")])]
pub struct L4;

/// Level 5: delegates to level 4.
#[hookwire::agent(name = "l5", instruction = "Delegate.", agents = [L4(name = "l4")])]
pub struct L5;

/// Level 6: delegates to level 5.
#[hookwire::agent(name = "l6", instruction = "Delegate.", agents = [L5(name = "l5")])]
pub struct L6;

/// Level 7: delegates to level 6.
#[hookwire::agent(name = "l7", instruction = "Delegate.", agents = [L6(name = "l6")])]
pub struct L7;

/// Level 8: delegates to level 7.
#[hookwire::agent(name = "l8", instruction = "Delegate.", agents = [L7(name = "l7")])]
pub struct L8;

/// Level 9: delegates to level 8.
#[hookwire::agent(name = "l9", instruction = "Delegate.", agents = [L8(name = "l8")])]
pub struct L9;

/// Level 10: delegates to level 9.
#[hookwire::agent(name = "l10", instruction = "Delegate.", agents = [L9(name = "l9")])]
pub struct L10;

/// Level 11: delegates to level 10.
#[hookwire::agent(name = "l11", instruction = "Delegate.", agents = [L10(name = "l10")])]
pub struct L11;

/// Level 12: delegates to level 11.
#[hookwire::agent(name = "l12", instruction = "Delegate.", agents = [L11(name = "l11")])]
pub struct L12;

/// Level 13: delegates to level 12.
#[hookwire::agent(name = "l13", instruction = "Delegate.", agents = [L12(name = "l12")])]
pub struct L13;

/// Level 14: delegates to level 13.
#[hookwire::agent(name = "l14", instruction = "Delegate.", agents = [L13(name = "l13")])]
pub struct L14;

/// Level 15: delegates to level 14.
#[hookwire::agent(name = "l15", instruction = "Delegate.", agents = [L14(name = "l14")])]
pub struct L15;

/// Level 16: delegates to level 15.
#[hookwire::agent(name = "l16", instruction = "Delegate.", agents = [L15(name = "l15")])]
pub struct L16;

/// Level 17: delegates to level 16.
#[hookwire::agent(name = "l17", instruction = "Delegate.", agents = [L16(name = "l16")])]
pub struct L17;

/// Level 18: delegates to level 17.
#[hookwire::agent(name = "l18", instruction = "Delegate.", agents = [L17(name = "l17")])]
pub struct L18;

/// Level 19: delegates to level 18.
#[hookwire::agent(name = "l19", instruction = "Delegate.", agents = [L18(name = "l18")])]
pub struct L19;

/// Level 20: delegates to level 19.
#[hookwire::agent(name = "l20", instruction = "Delegate.", agents = [L19(name = "l19")])]
pub struct L20;

/// Level 21: delegates to level 20.
#[hookwire::agent(name = "l21", instruction = "Delegate.", agents = [L20(name = "l20")])]
pub struct L21;

/// Level 22: delegates to level 21.
#[hookwire::agent(name = "l22", instruction = "Delegate.", agents = [L21(name = "l21")])]
pub struct L22;

/// Level 23: delegates to level 22.
#[hookwire::agent(name = "l23", instruction = "Delegate.", agents = [L22(name = "l22")])]
pub struct L23;

/// Level 24: delegates to level 23.
#[hookwire::agent(name = "l24", instruction = "Delegate.", agents = [L23(name = "l23")])]
pub struct L24;

/// Level 25: delegates to level 24.
#[hookwire::agent(name = "l25", instruction = "Delegate.", agents = [L24(name = "l24")])]
pub struct L25;

/// Level 26: delegates to level 25.
#[hookwire::agent(name = "l26", instruction = "Delegate.", agents = [L25(name = "l25")])]
pub struct L26;

/// Level 27: delegates to level 26.
#[hookwire::agent(name = "l27", instruction = "Delegate.", agents = [L26(name = "l26")])]
pub struct L27;

/// Level 28: delegates to level 27.
#[hookwire::agent(name = "l28", instruction = "Delegate.", agents = [L27(name = "l27")])]
pub struct L28;

/// Level 29: delegates to level 28.
#[hookwire::agent(name = "l29", instruction = "Delegate.", agents = [L28(name = "l28")])]
pub struct L29;

/// Level 30: delegates to level 29.
#[hookwire::agent(name = "l30", instruction = "Delegate.", agents = [L29(name = "l29")])]
pub struct L30;

/// Level 31: delegates to level 30.
#[hookwire::agent(name = "l31", instruction = "Delegate.", agents = [L30(name = "l30")])]
pub struct L31;

/// Level 32: delegates to level 31.
#[hookwire::agent(name = "l32", instruction = "Delegate.", agents = [L31(name = "l31")])]
pub struct L32;

#[tokio::test]
async fn a_chain_of_33_agents_compiles_and_every_level_hands_its_answer_up() {
    // Every level asks the shared model: first each calls its child, top
    // down; then each answers, bottom up.
    let calls = (0..32)
        .rev()
        .map(|i| Turn::call(format!("agent__l{i}"), json!({"message": "go"})));
    let answers = (0..=32).map(|i| Turn::text(format!("from l{i}")));
    let model = ScriptedModel::from_turns(calls.chain(answers));
    let out = Runner::new(L32::new(), model).run("go").await.unwrap();
    assert_eq!(out.text, "from l32");
    // The top's one call got its child's answer, which got its own
    // child's, and so on: had any level not called its child, the turns
    // would have run out of step.
    let results: Vec<_> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent { tool, result, .. } = &**call;
                Some((tool.clone(), result.text_content()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(&*results[0].0, "agent__l31");
    assert!(results[0].1.contains("from l31"), "{results:?}");
}
