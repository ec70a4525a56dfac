//! Two tool sets as one.

use crate::scope::CallScope;
use hookwire_chain::call::{Outcome, ToolCall};
use hookwire_chain::tool::ToolDefinition;
use hookwire_chain::toolset::ToolSet;

/// Two tool sets offered as one: typically an agent's static tools and its
/// MCP tools. Built with [`ToolSetExt::join`].
///
/// A call goes to the first set if it has a tool of that name, else to the
/// second. If both have a tool of the same name, the first set's tool wins
/// and the second's is hidden from [`definitions`](ToolSet::definitions)
/// too; give the first set's names to
/// [`McpOptions::reserve`](super::McpOptions::reserve) so MCP tools never
/// collide with them.
#[derive(Debug, Clone, Default)]
pub struct Joined<A, B> {
    first: A,
    second: B,
}

impl<A, B> Joined<A, B> {
    /// `first`, then `second`.
    pub const fn new(first: A, second: B) -> Self {
        Self { first, second }
    }

    /// The first set.
    pub fn first(&self) -> &A {
        &self.first
    }

    /// The second set.
    pub fn second(&self) -> &B {
        &self.second
    }
}

impl<A: ToolSet, B: ToolSet> ToolSet for Joined<A, B> {
    fn definitions(&self) -> Vec<ToolDefinition> {
        let mut out = self.first.definitions();
        let second = self.second.definitions();
        out.reserve(second.len());
        for definition in second {
            if !self.first.contains(&definition.name) {
                out.push(definition);
            }
        }
        out
    }

    fn source(&self, name: &str) -> Option<crate::context::ToolSource> {
        self.first.source(name).or_else(|| self.second.source(name))
    }

    fn meta(&self, name: &str) -> crate::ToolMeta {
        if self.first.contains(name) {
            self.first.meta(name)
        } else {
            self.second.meta(name)
        }
    }

    fn step_offer(
        &self,
        definitions: &[ToolDefinition],
        step: &crate::StepView<'_>,
    ) -> crate::StepOffer {
        let mut offer = self.first.step_offer(definitions, step);
        offer.merge(self.second.step_offer(definitions, step));
        offer
    }

    fn tool_view(&self, name: &str) -> Option<crate::ToolView> {
        if self.first.contains(name) {
            self.first.tool_view(name)
        } else {
            self.second.tool_view(name)
        }
    }

    async fn dispatch(&self, scope: &CallScope, call: ToolCall) -> Outcome {
        if self.first.contains(&call.name) {
            self.first.dispatch(scope, call).await
        } else {
            self.second.dispatch(scope, call).await
        }
    }
}

/// Combinators on tool sets.
pub trait ToolSetExt: ToolSet + Sized {
    /// This set, then `other`, as one set (see [`Joined`]).
    ///
    /// ```
    /// use hookwire::mcp::ToolSetExt;
    /// use hookwire::{FnTool, Json, Router, ToolSet, call::NoArgs};
    ///
    /// let a = Router::new().tool(FnTool::new("a", "A.", |_: NoArgs| async { Json(1) }));
    /// let b = Router::new().tool(FnTool::new("b", "B.", |_: NoArgs| async { Json(2) }));
    /// let both = a.join(b);
    /// let names: Vec<_> = both.definitions().into_iter().map(|d| d.name).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// ```
    fn join<B: ToolSet>(self, other: B) -> Joined<Self, B> {
        Joined::new(self, other)
    }
}

impl<T: ToolSet> ToolSetExt for T {}
