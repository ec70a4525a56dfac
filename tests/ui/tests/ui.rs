//! The compile-fail suite: every mistake in a `#[tool]`, `#[hook]` or
//! `#[agent]` declaration is one error, on the offending token, whose first
//! line says what is wrong and what is expected. Each `.stderr` was read
//! before it was kept.
//!
//! One folder per macro: `ui/tool`, `ui/hook`, `ui/agent`. `ui/tool/in_agent`
//! and `ui/hook/in_agent` hold each bad `#[tool]` and `#[hook]` case once
//! more, listed in an `#[agent]` that `main` builds, as a user meets it: the
//! mistake is still one error (the failed item's stand-in is all an agent
//! asks of it). One test per macro, so `cargo test -p hookwire-tests --test
//! ui hook` checks the hook cases alone.

#[test]
fn tool() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tool/*.rs");
    t.compile_fail("tool/in_agent/*.rs");
}

#[test]
fn hook() {
    let t = trybuild::TestCases::new();
    t.compile_fail("hook/*.rs");
    t.compile_fail("hook/in_agent/*.rs");
}

#[test]
fn agent() {
    let t = trybuild::TestCases::new();
    t.compile_fail("agent/*.rs");
}

/// `#[agent(coverage = [..])]`: a rule the agent's policy breaks is one
/// error on the rule (the compiler checks it on the policy, with each
/// tool's `Tool::META` and own chain), naming the tool and the fix.
#[test]
fn coverage() {
    let t = trybuild::TestCases::new();
    t.compile_fail("agent/coverage/*.rs");
}

/// `meta(..)` on a tool and `meta:` matchers in an agent: a bad key or
/// value, or a `meta:` part that selects none of the agent's tools (decided
/// by the compiler from each tool's `Tool::META`), is one error, on the
/// offending token or the `match` string.
#[test]
fn meta() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tool/meta/*.rs");
    t.compile_fail("agent/meta/*.rs");
}

/// A child agent's `output` and `on_error` in `agents = [..]`: a wrong
/// signature or a missing function is one error, on the path.
#[test]
fn agent_child_options() {
    let t = trybuild::TestCases::new();
    t.compile_fail("agent/child_options/*.rs");
}

/// `#[agent(output = T)]` and `output_schema`: a type that is not
/// `Deserialize + JsonSchema`, or a schema that is not JSON, is one error,
/// on the type or the string. (A schema that is JSON but not a JSON Schema
/// needs hookwire's `output-schema`: macros/src/agent/tests.rs.)
#[test]
fn agent_output() {
    let t = trybuild::TestCases::new();
    t.compile_fail("agent/output/*.rs");
}

#[test]
fn pass() {
    let t = trybuild::TestCases::new();
    t.pass("pass/*.rs");
}
