#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::spec::{AgentRef, HookRef, ToolRef};

fn emit(spec: &AgentSpec) -> String {
    let tokens = agent(spec, &EmitOptions::new(syn::parse_quote!(::hookwire))).unwrap();
    format_file(tokens, "test").unwrap()
}

#[test]
fn type_names() {
    assert_eq!(
        type_name_for("PMO-orchestrator").as_deref(),
        Some("PmoOrchestrator")
    );
    assert_eq!(
        type_name_for("NY-Project-Manager").as_deref(),
        Some("NyProjectManager")
    );
    assert_eq!(type_name_for("myAgent").as_deref(), Some("MyAgent"));
    assert_eq!(type_name_for("9lives").as_deref(), Some("Agent9lives"));
    assert_eq!(type_name_for("self").as_deref(), Some("SelfAgent"));
    assert_eq!(type_name_for("--"), None);
}

#[test]
fn chains_follow_the_ordering_rule_and_drop_non_matching_hooks() {
    let spec = AgentSpec::new("a")
        .with_function_tool(ToolRef::new("ReadFile", "read_file").with_hook(HookRef::new("T")))
        .with_function_tool(ToolRef::new("Shell", "shell"))
        .with_tool_hook(HookRef::new("Outer"))
        .with_tool_hook(HookRef::new("Reads").with_match("read_*").unwrap())
        .with_tool_hook(
            HookRef::new("Slow")
                .with_policy(FailurePolicy::FailOpen)
                .with_timeout_ms(250),
        );
    let code = emit(&spec);
    // Each hook is held through its slot, named after it.
    let slot = |m: &str| format!("::hookwire::__private::slot::Slotted<{m}>");
    let (outer, reads, slow, t) = (
        slot("__HookwireAHook0_Outer"),
        slot("__HookwireAHook1_Reads"),
        slot("__HookwireAHook2_Slow"),
        slot("__HookwireATool0Hook0_T"),
    );
    assert!(code.contains(&format!(
        "tool_0: ::hookwire::Hooked<\n        {outer},\n        ::hookwire::Hooked<\n            {reads},\n            ::hookwire::Hooked<\n                ::hookwire::Guarded<\n                    {slow},\n                >,\n                ::hookwire::Hooked<\n                    {t},\n                    <ReadFile as ::hookwire::declare::ToolDecl>::Handler,\n                >,"
    )), "{code}");
    assert!(code.contains(&format!(
        "tool_1: ::hookwire::Hooked<\n        {outer},\n        ::hookwire::Hooked<\n            ::hookwire::Guarded<\n                {slow},\n            >,\n            <Shell as ::hookwire::declare::ToolDecl>::Handler,\n        >,\n    >,"
    )), "{code}");
    // Each slot names the user's type once, and checks it there.
    for (marker, ty) in [
        ("__HookwireAHook0_Outer", "Outer"),
        ("__HookwireAHook1_Reads", "Reads"),
        ("__HookwireAHook2_Slow", "Slow"),
        ("__HookwireATool0Hook0_T", "T"),
    ] {
        assert!(
            code.contains(&format!(
                "impl ::hookwire::__private::slot::Slot for {marker} {{\n    type Deps = ();\n    type Hook = {ty};"
            )),
            "{code}"
        );
        assert!(
            code.contains(&format!(
                "impl ::hookwire::__private::slot::AroundSlot for {marker} {{}}"
            )),
            "{code}"
        );
    }
    // No bound on the hooks anywhere else: a path that is not a hook is
    // one error, at its slot.
    assert!(!code.contains(": ::hookwire::Hook,"), "{code}");
    assert!(code.contains("::core::time::Duration::from_millis(250u64)"));
    assert!(code.contains("::hookwire::FailurePolicy::FailOpen"));
}

#[test]
fn output_is_deterministic_and_names_dispatch_through_a_perfect_hash() {
    let mut spec = AgentSpec::new("many");
    for i in 0..50 {
        spec = spec.with_function_tool(ToolRef::new(format!("T{i}"), format!("tool_{i}")));
    }
    spec = spec.with_agent(AgentRef::new("child"));
    let a = emit(&spec);
    assert_eq!(a, emit(&spec));
    assert!(a.contains("__private::dispatch::index"));
    // Each arm compares the name with the one tool its slot can hold.
    for i in 0..50 {
        assert!(
            a.contains(&format!(" if &*call.name == \"tool_{i}\" => {{")),
            "{a}"
        );
        // Each tool's source is what the tool says.
        assert!(
            a.contains(&format!(
                " if name == \"tool_{i}\" => {{\n                ::core::option::Option::Some(\n                    ::hookwire::Tool::source(\n                        <T{i} as ::hookwire::declare::ToolDecl>::tool(&self.tool_{i}),"
            )),
            "{a}"
        );
    }
    assert!(a.contains(".with_agent(\"child\")"));
}

/// The tool set of `n` tools named `tool_0`...
fn tools(n: usize) -> String {
    let mut spec = AgentSpec::new("few");
    for i in 0..n {
        spec = spec.with_function_tool(ToolRef::new(format!("T{i}"), format!("tool_{i}")));
    }
    emit(&spec)
}

#[test]
fn a_few_tools_dispatch_through_a_match_on_the_name() {
    let code = tools(3);
    assert!(code.contains("match &*call.name {\n"), "{code}");
    assert!(code.contains("\"tool_2\" => {\n"), "{code}");
    assert!(
        code.contains(
            r#""tool_1" => {
                ::core::option::Option::Some(
                    ::hookwire::Tool::source(
                        <T1 as ::hookwire::declare::ToolDecl>::tool(&self.tool_1),"#
        ),
        "{code}"
    );
    assert!(!code.contains("dispatch::index"), "{code}");
    assert!(!tools(MATCH_MAX).contains("dispatch::index"));
    assert!(tools(MATCH_MAX + 1).contains("__private::dispatch::index"));
}

#[test]
fn duplicate_tools_and_bad_paths_are_errors() {
    let spec = AgentSpec::new("a")
        .with_function_tool(ToolRef::new("A", "x"))
        .with_function_tool(ToolRef::new("B", "x"));
    let opts = EmitOptions::new(syn::parse_quote!(::hookwire));
    let err = agent(&spec, &opts).unwrap_err();
    assert!(err.to_string().contains("duplicate tool name `x`"));
    let spec = AgentSpec::new("a").with_function_tool(ToolRef::new("not a path", "x"));
    assert!(
        agent(&spec, &opts)
            .unwrap_err()
            .to_string()
            .contains("invalid tool type")
    );
}

#[test]
fn a_front_ends_tokens_are_used_as_they_are_not_the_text_parsed_again() {
    // The macro hands over the user's path as tokens; the text form is only
    // for messages, so a text that would not parse does not matter.
    let mut tool = ToolRef::new("not a path!", "add_one");
    tool.tokens = Some(quote!(crate::tools::AddOne));
    let mut hook = HookRef::new("neither!");
    hook.tokens = Some(quote!(crate::hooks::Audit));
    let code = emit(
        &AgentSpec::new("calc")
            .with_function_tool(tool)
            .with_tool_hook(hook),
    );
    assert!(
        code.contains("::hookwire::Hooked<\n        ::hookwire::__private::slot::Slotted<__HookwireCalcHook0_Audit>,\n        <crate::tools::AddOne as ::hookwire::declare::ToolDecl>::Handler,"),
        "{code}"
    );
    assert!(code.contains("type Hook = crate::hooks::Audit;"), "{code}");
}
