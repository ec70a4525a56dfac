use hookwire::agent::{Agent, RunOutput};
use hookwire::model::Message;
use hookwire::{CallScope, ToolError, ToolSet};
use serde_json::json;

/// The child: its model (passthrough) answers with the message.
#[hookwire::agent(name = "echo", instruction = "Echo.", model = "passthrough")]
pub struct Echo;

/// A child whose model cannot be set up: every call fails.
#[hookwire::agent(
    name = "broken",
    instruction = "Fail.",
    model = "scripted:/nonexistent/hookwire/script.yaml"
)]
pub struct Broken;

/// The child's answer, shouted, with the length of its history.
pub fn shout(out: &RunOutput, history: &[Message]) -> String {
    format!("{} ({} messages)", out.text.to_uppercase(), history.len())
}

/// What the parent model reads when a child fails.
pub fn go_on(error: ToolError) -> String {
    format!("the child failed ({}), go on without it", error.kind())
}

/// The parent.
#[hookwire::agent(
    name = "desk",
    agents = [
        Echo(name = "echo", output = shout, on_error = go_on),
        Broken(name = "broken", on_error = go_on),
    ]
)]
pub struct Desk;

#[test]
fn the_output_extractor_and_on_error_shape_what_the_parent_reads() {
    let desk = Desk::new();
    let scope = CallScope::new("desk");
    let r = super::block_on(desk.tools().call(
        &scope,
        super::call("k1", "agent__echo", json!({"message": "hi"})),
    ));
    assert_eq!(
        (r.is_error, r.text_content()),
        (false, "HI (2 messages)".into())
    );
    // The child's run fails: `on_error` gives the parent a plain result.
    let r = super::block_on(desk.tools().call(
        &scope,
        super::call("k2", "agent__broken", json!({"message": "hi"})),
    ));
    assert_eq!(
        (r.is_error, r.text_content()),
        (
            false,
            "the child failed (tool_failed), go on without it".into()
        )
    );
    // Bad arguments reach `on_error` too.
    let r = super::block_on(desk.tools().call(
        &scope,
        super::call("k3", "agent__echo", json!({"msg": "hi"})),
    ));
    assert_eq!(
        (r.is_error, r.text_content()),
        (
            false,
            "the child failed (invalid_arguments), go on without it".into()
        )
    );
    let _ = desk.config();
}
