//! A tool's typed `needs_approval` predicate, its `approval_metadata`,
//! and its `available` rule and `instruction` for a step.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::predicate::Predicate;

/// Whether a call with `args` needs approval by `predicate` on the typed
/// arguments `A` (a `fn(&Args) -> bool`; name the type as
/// [`ArgsOf<tool>`](super::ArgsOf)). Arguments that do not deserialize into `A` always need
/// approval (fail closed).
pub fn needs_approval_by<A, P>(predicate: P, args: &Value) -> bool
where
    A: DeserializeOwned + JsonSchema,
    P: Predicate<A>,
{
    match A::deserialize(args) {
        Ok(typed) => predicate.test(&typed),
        Err(_) => true,
    }
}

/// [`needs_approval_by`] on the arguments of the tool `T`
/// (`<T as Tool>::Args`), which is what `#[tool(needs_approval = ..)]`
/// generates: through `T`, so that a tool whose arguments are not
/// `Deserialize + JsonSchema` is reported once, at its `Tool` impl, and not
/// again here.
pub fn needs_approval_for<T, P>(predicate: P, args: &Value) -> bool
where
    T: crate::Tool,
    P: Predicate<T::Args>,
{
    needs_approval_by::<T::Args, P>(predicate, args)
}

/// What a tool gives the person asked to approve a call besides its
/// arguments: a `fn(&Args) -> serde_json::Value` over the tool's typed
/// arguments (`#[tool(approval_metadata = path)]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an approval metadata function over `{A}`",
    label = "expected `fn(&{A}) -> serde_json::Value`",
    note = "`approval_metadata` names a function `fn(&hookwire::declare::ArgsOf<tool>) -> serde_json::Value`"
)]
pub trait ApprovalMetadata<A>: Send + Sync {
    /// The metadata shown for a call with `args`.
    fn metadata(&self, args: &A) -> Value;
}

#[diagnostic::do_not_recommend]
impl<A, F: Fn(&A) -> Value + Send + Sync> ApprovalMetadata<A> for F {
    fn metadata(&self, args: &A) -> Value {
        self(args)
    }
}

/// [`Tool::approval_metadata`](crate::Tool::approval_metadata) from
/// `metadata` over the arguments of the tool `T`: what
/// `#[tool(approval_metadata = ..)]` generates.
pub fn approval_metadata_for<T, M>(metadata: M, args: &T::Args) -> Option<Value>
where
    T: crate::Tool,
    M: ApprovalMetadata<T::Args>,
{
    Some(metadata.metadata(args))
}

/// [`Tool::available`](crate::Tool::available) from `available`, a
/// `fn(&StepView) -> bool`: what `#[tool(available = ..)]` generates.
pub fn available_by<F>(available: F, step: &crate::StepView<'_>) -> bool
where
    F: Fn(&crate::StepView<'_>) -> bool,
{
    available(step)
}

/// [`Tool::instruction`](crate::Tool::instruction) from `instruction`, a
/// `fn(&StepView) -> String` (an empty text adds nothing): what
/// `#[tool(instruction = path)]` generates.
pub fn instruction_by<F>(
    instruction: F,
    step: &crate::StepView<'_>,
) -> Option<std::borrow::Cow<'static, str>>
where
    F: Fn(&crate::StepView<'_>) -> String,
{
    let text = instruction(step);
    (!text.is_empty()).then_some(std::borrow::Cow::Owned(text))
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
