//! The agent layer's slots: lifecycle hooks and child agents, on the
//! chain's pattern (`hookwire_chain::declare::slot`: one marker type per
//! listed item, whose kind trait is the one check).
//!
//! A child agent (`agents = [..]`) gets a slot ([`AgentSlot`]): the
//! parent's tool is an `AgentTool<Child<Marker>>`, and [`Child`] forwards
//! to the child, so a path that is not an agent is one error as well.

use std::future::Future;

// Every slot kind of the chain (a new hook kind's too), beside this
// layer's own.
pub use hookwire_chain::declare::slot::*;

use crate::agent::lifecycle::{LifecycleHooks, event_cx, for_each_lifecycle_event};
use crate::agent::{Agent, AgentConfig};
use crate::decision::{Decision, Flow, StopDecision};
use crate::declare::GeneratedAgent;
use crate::{Handler, Outcome, ToolArgs, ToolContext};
use hookwire_chain::deps::FromDeps;

/// A slot that holds lifecycle hooks.
pub trait LifecycleSlot: Slot<Hook: LifecycleHooks> {}

/// The kinds of item a slot can hold, for [`Build`].
pub mod kind {
    pub use hookwire_chain::declare::slot::kind::*;
    /// Lifecycle hooks ([`LifecycleHooks`](crate::agent::lifecycle::LifecycleHooks)).
    #[derive(Debug)]
    pub enum Lifecycle {}
    /// A child agent ([`GeneratedAgent`](crate::declare::GeneratedAgent)).
    #[derive(Debug)]
    pub enum Agent {}
}

/// A slotted lifecycle hook forwards every event (the events' table,
/// `for_each_lifecycle_event!`) to the hook it holds.
macro_rules! slotted_events {
    ($(
        $(#[$doc:meta])*
        $m:ident($($cx:tt)+) -> $out:tt, tools: $tools:ident, fails: $fails:ident $(($f:ident))?;
    )*) => {
        #[diagnostic::do_not_recommend]
        impl<M: LifecycleSlot> LifecycleHooks for Slotted<M> {
            $(
                #[inline]
                fn $m(&self, cx: event_cx!($($cx)+)) -> impl Future<Output = $out> + Send {
                    self.hook().$m(cx)
                }
            )*

            fn name(&self) -> &'static str {
                self.hook().name()
            }
        }
    };
}
for_each_lifecycle_event!(slotted_events);

/// The branch of [`Build`] for lifecycle hooks, which are built with
/// `Default`.
pub trait BuildLifecycle<H> {
    /// Builds the hooks.
    fn build(&self, deps: &()) -> H
    where
        H: Default;
}

impl<H: LifecycleHooks> BuildLifecycle<H> for Build<H, (), kind::Lifecycle> {
    #[inline]
    fn build(&self, _: &()) -> H
    where
        H: Default,
    {
        H::default()
    }
}

/// The branch of [`Build`] for a child agent, which is built from the
/// parent's dependencies with [`FromDeps`].
pub trait BuildChild<A, D> {
    /// Builds the child.
    fn build(&self, deps: &D) -> A
    where
        A: FromDeps<D>;
}

impl<A: GeneratedAgent, D> BuildChild<A, D> for Build<A, D, kind::Agent> {
    #[inline]
    fn build(&self, deps: &D) -> A
    where
        A: FromDeps<D>,
    {
        A::from_deps(deps)
    }
}

/// A child agent as a parent holds it: generated code implements it for
/// one marker type per listed child. The bound on [`Agent`](Self::Agent)
/// is the check that the path is an agent.
pub trait AgentSlot: 'static {
    /// What the child is built from: the parent's dependencies.
    type Deps;
    /// The user's agent type, as written.
    type Agent: GeneratedAgent;
    /// The child's declared name, which the parent's compile-time name
    /// check reads (through the slot, so that a path that is not an agent
    /// adds no error there).
    const NAME: &'static str = <Self::Agent as GeneratedAgent>::NAME;

    /// Builds the child.
    fn build(deps: &Self::Deps) -> Self::Agent;
}

/// The child agent of slot `M`, as a parent's `AgentTool` holds it: an
/// agent that forwards every method to the child.
pub struct Child<M: AgentSlot>(M::Agent);

impl<M: AgentSlot> Child<M> {
    /// Builds the child of slot `M`.
    #[inline]
    pub fn new(deps: &M::Deps) -> Self {
        Self(M::build(deps))
    }
}

impl<M: AgentSlot> std::fmt::Debug for Child<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Child").field(&M::NAME).finish()
    }
}

#[diagnostic::do_not_recommend]
impl<M: AgentSlot> Agent for Child<M> {
    type Tools = <M::Agent as Agent>::Tools;
    const DURABLE_NAME: crate::agent::DurableName = <M::Agent as Agent>::DURABLE_NAME;

    fn config(&self) -> &AgentConfig {
        self.0.config()
    }

    fn tools(&self) -> &Self::Tools {
        self.0.tools()
    }

    fn lifecycle_hooks(&self) -> impl LifecycleHooks {
        self.0.lifecycle_hooks()
    }

    fn hooks_selecting_none(
        &self,
        tools: &[hookwire_chain::matcher::MatchTarget<'_>],
    ) -> Vec<(&'static str, String)> {
        self.0.hooks_selecting_none(tools)
    }

    fn hooks_for_call(
        &self,
        target: &hookwire_chain::matcher::MatchTarget<'_>,
    ) -> Vec<&'static str> {
        self.0.hooks_for_call(target)
    }

    fn hooks_for(&self, tool: &str, source: crate::ToolSource) -> Vec<&'static str> {
        self.0.hooks_for(tool, source)
    }

    fn refused_tools(&self) -> Vec<crate::agent::RefusedTool> {
        self.0.refused_tools()
    }

    fn warnings(&self) -> Vec<String> {
        self.0.warnings()
    }

    fn call_dynamic<C: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        inner: &C,
    ) -> impl Future<Output = Outcome> + Send {
        self.0.call_dynamic(cx, args, inner)
    }
}

#[diagnostic::do_not_recommend]
impl<M: AgentSlot> GeneratedAgent for Child<M> {
    const NAME: &'static str = M::NAME;
    const POLICY: crate::Policy = <M::Agent as GeneratedAgent>::POLICY;
}
