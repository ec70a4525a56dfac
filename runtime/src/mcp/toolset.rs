//! MCP tools as a [`ToolSet`], each call through a chain of hooks.

use super::client::McpServers;
use crate::context::{ToolContext, ToolSource};
use crate::error::ToolError;
use crate::hook::{Handler, catch_panics};
use crate::scope::CallScope;
use hookwire_chain::call::{Outcome, ToolArgs, ToolCall};
use hookwire_chain::tool::{ToolDefinition, ToolFuture};
use hookwire_chain::toolset::ToolSet;
use std::borrow::Cow;

/// The innermost handler of every MCP tool's chain: sends the call to the
/// server the tool lives on (found by the context's tool name,
/// `server__tool`) and converts the answer.
///
/// Arguments that are not a JSON object give
/// [`ToolError::InvalidArguments`] and nothing is sent.
#[derive(Clone, Debug)]
pub struct McpCall {
    servers: McpServers,
}

impl Handler for McpCall {
    fn call(
        &self,
        cx: &mut ToolContext,
        mut args: ToolArgs,
    ) -> impl std::future::Future<Output = Outcome> + Send {
        let cx: &ToolContext = cx;
        let tool = cx.tool();
        if let Some(log) = cx.scope().call_log() {
            log.received(cx.tool_use_id(), &args);
        }
        let started = match args.object_mut() {
            Ok(map) => Ok(self.servers.inner.call(tool, std::mem::take(map))),
            Err(e) => Err(e.with_tool(tool)),
        };
        // A panic in the call is the tool's, not the innermost hook's.
        ToolFuture::new(tool, started)
    }

    /// An MCP tool's arguments are any JSON object; it declares no
    /// approval metadata.
    fn tool_view(&self) -> Option<crate::ToolView> {
        Some(crate::ToolView::object())
    }
}

/// The tools of a set of MCP servers as a [`ToolSet`]: each call runs
/// through the chain `C` (hooks around an [`McpCall`]) with a context whose
/// source is [`ToolSource::Mcp`] and whose server is the tool's server.
///
/// MCP tools are only known at run time, so one chain serves all of them
/// and hooks that should apply to some of them only are wrapped in
/// [`When`](crate::When), which evaluates its matcher on each call.
///
/// [`contains`](ToolSet::contains) also answers `true` for a `server__*`
/// name of a server that is down, so that such a call reaches the chain and
/// ends in an error result that says why the server is unavailable.
#[derive(Clone, Debug)]
pub struct McpToolSet<C = McpCall> {
    servers: McpServers,
    chain: C,
    /// Rules for all the tools of one server, by the server's name.
    rules: Vec<(Cow<'static, str>, crate::StepRules)>,
}

impl McpServers {
    /// The servers' tools with no hooks.
    pub fn tool_set(&self) -> McpToolSet<McpCall> {
        self.tool_set_with(|call| call)
    }

    /// The servers' tools, every call through the chain that `build` makes
    /// around the innermost [`McpCall`] (for example with
    /// [`chain!`](crate::chain)).
    pub fn tool_set_with<C: Handler>(&self, build: impl FnOnce(McpCall) -> C) -> McpToolSet<C> {
        McpToolSet {
            servers: self.clone(),
            chain: build(McpCall {
                servers: self.clone(),
            }),
            rules: Vec::new(),
        }
    }
}

impl<C> McpToolSet<C> {
    /// The connections behind this tool set.
    pub fn servers(&self) -> &McpServers {
        &self.servers
    }

    /// The hooks every call runs through, around the call of the MCP tool.
    pub fn hooks(&self) -> &C {
        &self.chain
    }

    /// Offers the tools of the server `server` only in the steps `rules`
    /// says yes to, and adds its instruction (once) to the system prompt
    /// of the steps that offer them. A rule that panics hides the server's
    /// tools.
    pub fn with_server_rules(
        mut self,
        server: impl Into<Cow<'static, str>>,
        rules: crate::StepRules,
    ) -> Self {
        self.rules.push((server.into(), rules));
        self
    }
}

impl<C: Handler> ToolSet for McpToolSet<C> {
    fn definitions(&self) -> Vec<ToolDefinition> {
        self.servers.definitions()
    }

    fn source(&self, name: &str) -> Option<ToolSource> {
        self.servers.inner.contains(name).then_some(ToolSource::Mcp)
    }

    fn meta(&self, name: &str) -> crate::ToolMeta {
        self.servers.inner.meta(name)
    }

    fn tool_view(&self, name: &str) -> Option<crate::ToolView> {
        self.servers
            .inner
            .contains(name)
            .then(|| self.chain.tool_view())
            .flatten()
    }

    fn step_offer(
        &self,
        definitions: &[ToolDefinition],
        step: &crate::StepView<'_>,
    ) -> crate::StepOffer {
        let of = |definitions: &[ToolDefinition]| {
            crate::StepOffer::of(definitions, |name| self.tool_view(name), step)
        };
        if self.rules.is_empty() {
            return of(definitions);
        }
        let inner = &self.servers.inner;
        let mut offer = crate::StepOffer::default();
        let mut hidden: Vec<usize> = Vec::new();
        for (server, rules) in &self.rules {
            let Some(index) = inner.servers.iter().position(|s| *s.name == **server) else {
                continue;
            };
            let offered = || {
                definitions
                    .iter()
                    .any(|d| inner.server_of(&d.name) == Some(index))
            };
            let asked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                rules
                    .available(step)
                    .then(|| offered().then(|| rules.instruction(step)).flatten())
            }));
            match asked {
                Ok(Some(instruction)) => offer.instructions.extend(instruction),
                Ok(None) => hidden.push(index),
                Err(payload) => {
                    tracing::warn!(
                        target: "hookwire::audit",
                        server = %server,
                        panic = %crate::error::panic_message(&*payload),
                        "a server's availability or instruction panicked; its tools are not offered"
                    );
                    hidden.push(index);
                }
            }
        }
        if hidden.is_empty() {
            offer.merge(of(definitions));
            return offer;
        }
        let (gone, rest): (Vec<ToolDefinition>, Vec<ToolDefinition>) =
            definitions.iter().cloned().partition(|d| {
                inner
                    .server_of(&d.name)
                    .is_some_and(|i| hidden.contains(&i))
            });
        offer.unavailable.extend(gone.into_iter().map(|d| d.name));
        offer.merge(of(&rest));
        offer
    }

    async fn dispatch(&self, scope: &CallScope, call: ToolCall) -> Outcome {
        let Some(index) = self.servers.inner.server_of(&call.name) else {
            return Err(ToolError::UnknownTool {
                name: call.name.to_string(),
            });
        };
        let server = self.servers.inner.servers[index].name.clone();
        let meta = self.servers.inner.meta(&call.name);
        let mut cx = scope
            .context(call.name.clone(), ToolSource::Mcp, Some(server), call.id)
            .with_meta(meta);
        // The root of the call; a panic attributed to the tool is named
        // after the context's (owned) tool name.
        let outcome = catch_panics(&self.chain, &mut cx, call.arguments).await;
        outcome.map_err(|e| e.with_tool(cx.tool()))
    }
}
