//! Pre hooks (decisions before the call) and post hooks (after it), both
//! lowered onto around-hooks.

use std::future::Future;

use crate::approve::gate_call;
use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
pub use crate::decision::Decision;
use crate::error::{HookError, ToolError};
use crate::hook::{Handler, Hook, Next};

/// A hook that runs before the call and decides: continue (optionally after
/// rewriting `args`), deny, ask or stop.
///
/// It becomes an around-hook through [`Pre`]. In a chain, the first deny or
/// stop wins, and each pre hook sees the rewrites of the hooks outside it,
/// in declared order.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a pre hook",
    note = "a pre hook is an `async fn(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision` (or `Result<Decision, E>`) marked `#[hookwire::hook]`"
)]
pub trait PreHook: Send + Sync {
    /// Decides about the call.
    fn before(
        &self,
        cx: &mut ToolContext,
        args: &mut ToolArgs,
    ) -> impl Future<Output = Result<Decision, HookError>> + Send;

    /// Whether it may rewrite the arguments (see [`Hook::REWRITES`]): it
    /// gets them `&mut`, so the default is `true`. `#[hookwire::hook]`
    /// says `false` for a typed pre hook taking `&ArgsOf<tool>`.
    const REWRITES: bool = true;

    /// The hook's name, used in traces and error messages.
    fn name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}

/// A hook that runs after the call and may rewrite or replace the outcome.
/// It sees tool errors too, and may recover from them by replacing the
/// outcome with `Ok(..)`, or pass them on.
///
/// It becomes an around-hook through [`Post`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a post hook",
    note = "a post hook is an `async fn(cx: &mut ToolContext, outcome: &mut Outcome)` (or `-> Result<(), E>`) marked `#[hookwire::hook]`"
)]
pub trait PostHook: Send + Sync {
    /// Inspects or rewrites the outcome.
    fn after(
        &self,
        cx: &mut ToolContext,
        outcome: &mut Outcome,
    ) -> impl Future<Output = Result<(), HookError>> + Send;

    /// The hook's name, used in traces and error messages.
    fn name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}

/// A [`PreHook`] as an around-hook.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pre<P>(pub P);

/// A [`PostHook`] as an around-hook.
#[derive(Debug, Clone, Copy, Default)]
pub struct Post<P>(pub P);

impl<P: PreHook> Hook for Pre<P> {
    const REWRITES: bool = P::REWRITES;
    const PHASE: hookwire_spec::HookKind = hookwire_spec::HookKind::Pre;

    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        mut args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let hook = self.0.name();
        let decision = match self.0.before(cx, &mut args).await {
            Ok(decision) => decision,
            Err(error) => {
                return Err(error.into_invalid_arguments().unwrap_or_else(|error| {
                    ToolError::HookFailed {
                        hook: hook.into(),
                        message: error.to_string(),
                    }
                }));
            }
        };
        crate::hooks::audit::record_decision(cx, hook, &decision);
        match decision {
            Decision::Continue => next.run(cx, args).await,
            Decision::Deny(reason) => Err(ToolError::Denied {
                reason,
                hook: Some(hook.into()),
            }),
            Decision::Stop(reason) => Err(ToolError::Stopped {
                reason,
                hook: Some(hook.into()),
            }),
            Decision::Ask(reason) => {
                gate_call(cx, &mut args, &reason, hook, next.tool_view()).await?;
                next.run(cx, args).await
            }
        }
    }

    fn name(&self) -> &'static str {
        self.0.name()
    }
}

impl<P: PostHook> Hook for Post<P> {
    /// A post hook sees the outcome, not the arguments.
    const REWRITES: bool = false;
    const PHASE: hookwire_spec::HookKind = hookwire_spec::HookKind::Post;

    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let mut outcome = next.run(cx, args).await;
        match self.0.after(cx, &mut outcome).await {
            Ok(()) => outcome,
            Err(error) => Err(ToolError::HookFailed {
                hook: self.0.name().into(),
                message: error.to_string(),
            }),
        }
    }

    fn name(&self) -> &'static str {
        self.0.name()
    }
}
