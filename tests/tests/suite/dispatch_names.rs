//! Generated tool sets find a tool by name, and only by its exact name: any
//! other name (any characters, any length, names that land on a tool's slot
//! of the perfect hash included) is an unknown tool. Both dispatch shapes the
//! emitter writes are covered: a `match` on the name (up to eight tools) and
//! the perfect hash (more).

use hookwire::{CallScope, ToolArgs, ToolCall, ToolError, ToolSet};
use proptest::prelude::*;

/// Declares one tool per name, each returning its own name.
macro_rules! tools {
    ($($name:ident),*) => {$(
        #[doc = "Returns its own name."]
        #[hookwire::tool]
        fn $name() -> String {
            stringify!($name).to_owned()
        }
    )*};
}

tools!(t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11);

const MANY: [&str; 12] = [
    "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11",
];

/// Three tools: dispatched by a `match` on the name.
#[hookwire::agent(name = "few", function_tools = [t0, t1, t10])]
pub struct Few;

/// Twelve tools: dispatched through the perfect hash.
#[hookwire::agent(
    name = "many",
    function_tools = [t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11],
)]
pub struct Many;

/// What the model reads back for a call of `name`: the tool's output, or
/// the name an unknown-tool error reports.
fn call<T: ToolSet>(tools: &T, name: &str) -> Result<String, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| e.to_string())?;
    let call = ToolCall::new("call-1", name, ToolArgs::empty());
    match runtime.block_on(tools.dispatch(&CallScope::new("test"), call)) {
        Ok(result) => Ok(result.text_content()),
        Err(ToolError::UnknownTool { name }) => Err(name),
        Err(other) => Ok(format!("unexpected error: {other}")),
    }
}

/// Checks `probe` against a tool set offering `known`.
fn check<T: ToolSet>(tools: &T, known: &[&str], probe: &str) -> Result<(), TestCaseError> {
    let is_known = known.contains(&probe);
    prop_assert_eq!(tools.contains(probe), is_known, "contains({:?})", probe);
    let expected = if is_known {
        Ok(probe.to_owned())
    } else {
        Err(probe.to_owned())
    };
    prop_assert_eq!(call(tools, probe), expected, "dispatch({:?})", probe);
    Ok(())
}

fn few() -> &'static FewTools {
    static FEW: std::sync::LazyLock<Few> = std::sync::LazyLock::new(Few::new);
    hookwire::agent::Agent::tools(&*FEW)
}

fn many() -> &'static ManyTools {
    static MANY: std::sync::LazyLock<Many> = std::sync::LazyLock::new(Many::new);
    hookwire::agent::Agent::tools(&*MANY)
}

#[test]
fn every_tool_and_near_misses() -> Result<(), TestCaseError> {
    let near = [
        "", "t", "T1", "t1 ", " t1", "t01", "t12", "t100", "t1\0", "t10t", "tt", "t2",
    ];
    for probe in MANY.iter().chain(&near) {
        check(few(), &["t0", "t1", "t10"], probe)?;
        check(many(), &MANY, probe)?;
    }
    Ok(())
}

#[test]
fn names_on_a_tool_slot_of_the_hash_are_unknown() -> Result<(), TestCaseError> {
    // Every name lands on some slot of the 12; these 500 cover every slot
    // many times, and none is a tool.
    for i in 0..500 {
        check(many(), &MANY, &format!("x{i}"))?;
    }
    Ok(())
}

proptest! {
    #[test]
    fn any_name_is_a_tool_exactly_when_it_is_a_tool_name(
        probe in prop_oneof![
            any::<String>(),
            "t[0-9]{1,3}",
            prop::sample::select(MANY.to_vec()).prop_map(str::to_owned),
        ],
    ) {
        check(few(), &["t0", "t1", "t10"], &probe)?;
        check(many(), &MANY, &probe)?;
    }
}

/// Echoes under the model-facing name `say`.
#[hookwire::tool(name = "say")]
fn echo(text: String) -> String {
    text
}

/// `echo` listed under the name it is declared with (listing it as plain
/// `echo` is a compile error that says to write this: see
/// `ui/agent/agent_tool_listed_under_another_name.rs`).
#[hookwire::agent(name = "sayer", function_tools = [echo(name = "say")])]
pub struct Sayer;

#[test]
fn a_renamed_tool_is_offered_and_dispatched_under_its_declared_name() {
    let agent = Sayer::new();
    let tools = hookwire::agent::Agent::tools(&agent);
    let offered: Vec<String> = tools.definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(offered, ["say"]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let say = ToolCall::new("call-1", "say", ToolArgs::from_json(r#"{"text": "hi"}"#));
    let result = runtime
        .block_on(tools.dispatch(&CallScope::new("test"), say))
        .unwrap();
    assert_eq!(result.text_content(), "hi");
    assert_eq!(call(tools, "echo"), Err("echo".to_owned()));
}
