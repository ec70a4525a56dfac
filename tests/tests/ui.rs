//! The compile-fail suite: every mistake in a `#[tool]`, `#[hook]` or
//! `#[agent]` declaration is one error, on the offending token, whose first
//! line says what is wrong and what is expected. Each `.stderr` was read
//! before it was kept.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.pass("ui/pass/*.rs");
}
