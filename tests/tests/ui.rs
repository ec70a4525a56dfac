//! The compile-fail suite: every mistake in a `#[tool]`, `#[hook]` or
//! `#[agent]` declaration is one error, on the offending token, whose first
//! line says what is wrong and what is expected. Each `.stderr` was read
//! before it was kept.
//!
//! `ui/fail/in_agent` holds each bad `#[tool]` and `#[hook]` case once more,
//! listed in an `#[agent]` that `main` builds, as a user meets it: the
//! mistake is still one error (the failed item's stand-in is all an agent
//! asks of it).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.compile_fail("ui/fail/in_agent/*.rs");
    t.pass("ui/pass/*.rs");
}
