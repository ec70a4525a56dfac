//! Hooks of the `shapes` card: the handler bound in a `where` clause,
//! `impl Handler`, aliases and renamed imports of hookwire's types.
use hookwire::{Decision, Handler, Next, ToolArgs, ToolContext};
use hookwire::Outcome as Out;

/// hookwire's context, under a name of this file.
pub type Cx = ToolContext;
/// The rest of the chain, under a name of this file.
pub type Rest<'a, N> = Next<'a, N>;
/// hookwire's outcome, under a name of this file.
pub type Answer = hookwire::Outcome;
/// A fallible result of this file.
pub type Fallible<T> = Result<T, std::io::Error>;

/// Passes the call on (the handler bound in a `where` clause).
pub async fn bounded_in_where<N>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Out
where
    N: Handler,
{
    next.run(cx, args).await
}

/// Passes the call on (`impl Handler`).
pub async fn impl_handler(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, impl Handler>) -> Out {
    next.run(cx, args).await
}

/// Passes the call on (aliases of hookwire's types).
pub async fn aliased<N: Handler>(cx: &mut Cx, args: ToolArgs, next: Rest<'_, N>) -> Answer {
    next.run(cx, args).await
}

/// Passes the call on (hookwire's `Outcome` imported under another name).
pub async fn renamed<N: hookwire::Handler>(cx: &mut Cx, args: ToolArgs, next: Next<'_, N>) -> Out {
    next.run(cx, args).await
}

/// Lets every call through (a `Result` alias of this file).
pub async fn aliased_pre(_cx: &mut Cx, _args: &mut ToolArgs) -> Fallible<Decision> {
    Ok(Decision::Continue)
}

/// Leaves the outcome as it is (an alias of `Outcome`).
pub async fn aliased_post(_cx: &mut Cx, _outcome: &mut Answer) {}
