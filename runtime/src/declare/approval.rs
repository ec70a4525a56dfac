//! A tool's typed `needs_approval` predicate.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A `needs_approval` predicate on a tool's typed arguments:
/// `fn(&Args) -> bool` (name the type as [`ArgsOf<tool>`](super::ArgsOf)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `needs_approval` predicate: expected `fn(&Args) -> bool` over the tool's arguments",
    label = "expected `fn(&hookwire::ArgsOf<tool>) -> bool`",
    note = "write the predicate as `fn risky(args: &hookwire::ArgsOf<my_tool>) -> bool`, or use the bare flag `needs_approval` to ask for every call"
)]
pub trait ApprovalPredicate<A>: Send + Sync {
    /// Whether a call with these arguments needs approval.
    fn needs_approval(&self, args: &A) -> bool;
}

#[diagnostic::do_not_recommend]
impl<A, F> ApprovalPredicate<A> for F
where
    F: Fn(&A) -> bool + Send + Sync,
{
    fn needs_approval(&self, args: &A) -> bool {
        self(args)
    }
}

/// Whether a call with `args` needs approval by `predicate` on the typed
/// arguments `A`. Arguments that do not deserialize into `A` always need
/// approval (fail closed).
pub fn needs_approval_by<A, P>(predicate: P, args: &Value) -> bool
where
    A: DeserializeOwned + JsonSchema,
    P: ApprovalPredicate<A>,
{
    match A::deserialize(args) {
        Ok(typed) => predicate.needs_approval(&typed),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_predicate_fails_closed_on_arguments_that_do_not_deserialize() {
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        struct A {
            path: String,
        }
        let outside_tmp = |a: &A| !a.path.starts_with("/tmp/");
        assert!(!needs_approval_by::<A, _>(
            outside_tmp,
            &serde_json::json!({"path": "/tmp/x"})
        ));
        assert!(needs_approval_by::<A, _>(
            outside_tmp,
            &serde_json::json!({"path": "/etc"})
        ));
        assert!(needs_approval_by::<A, _>(
            outside_tmp,
            &serde_json::json!({"path": 7})
        ));
    }
}
