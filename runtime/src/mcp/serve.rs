//! Serving the other way: a hookwire tool set as an MCP server.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};

use super::convert::{tool_result_to_mcp, tool_to_mcp};
use crate::error::ToolError;
use crate::scope::CallScope;
use hookwire_chain::call::{ToolArgs, ToolCall};
use hookwire_chain::toolset::ToolSet;

/// A [`ToolSet`] as an MCP server: `tools/list` lists its definitions and
/// `tools/call` runs each call through the tool's own chain of hooks, so a
/// hook that denies or rewrites a call does so for MCP clients too.
///
/// Everything a chain produces, errors included, is answered as a
/// `CallToolResult` (errors with `isError: true`), as the model would read
/// it; so is an unknown tool name.
pub struct McpServer<T> {
    tools: Arc<T>,
    scope: CallScope,
    info: Implementation,
}

impl<T> std::fmt::Debug for McpServer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("scope", &self.scope)
            .field("name", &self.info.name)
            .finish_non_exhaustive()
    }
}

impl<T> Clone for McpServer<T> {
    fn clone(&self) -> Self {
        Self {
            tools: self.tools.clone(),
            scope: self.scope.clone(),
            info: self.info.clone(),
        }
    }
}

impl<T: ToolSet + 'static> McpServer<T> {
    /// Serves `tools`; every call gets a context from `scope` (agent name,
    /// correlation id, approver).
    pub fn new(tools: T, scope: CallScope) -> Self {
        let name = if scope.agent().is_empty() {
            "hookwire".to_owned()
        } else {
            scope.agent().to_string()
        };
        Self {
            tools: Arc::new(tools),
            scope,
            info: Implementation::new(name, env!("CARGO_PKG_VERSION")),
        }
    }

    /// Serves over stdin and stdout until the client closes the connection.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| ServeError(e.to_string()))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| ServeError(e.to_string()))
    }
}

/// Serves `tools` as an MCP server over stdin and stdout until the client
/// closes the connection. Write logs to stderr: stdout carries the protocol.
///
/// ```no_run
/// use hookwire::{CallScope, FnTool, Json, Router};
/// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct A { x: i64 }
///
/// #[tokio::main]
/// async fn main() -> Result<(), hookwire::mcp::ServeError> {
///     let tools = Router::new().tool(FnTool::new("add_one", "Adds one.", |a: A| async move { Json(a.x + 1) }));
///     hookwire::mcp::serve_stdio(tools, CallScope::new("calculator")).await
/// }
/// ```
pub async fn serve_stdio<T: ToolSet + 'static>(
    tools: T,
    scope: CallScope,
) -> Result<(), ServeError> {
    McpServer::new(tools, scope).serve_stdio().await
}

/// Serves an agent's tools (each behind its generated chain) as an MCP
/// server over stdin and stdout, with the agent's name as the server's name
/// and in every call's context.
pub async fn serve_agent_stdio<A: crate::agent::Agent>(agent: A) -> Result<(), ServeError> {
    let scope = CallScope::new(agent.config().name.to_string());
    let tools = super::agent::StaticTools::new(Arc::new(agent));
    McpServer::new(tools, scope).serve_stdio().await
}

/// Serving over MCP failed: the client did not initialize, or the
/// connection broke.
#[derive(Debug, Clone, thiserror::Error)]
#[error("MCP server: {0}")]
pub struct ServeError(String);

impl<T: ToolSet + 'static> ServerHandler for McpServer<T> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.info.clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.tools.definitions().iter().map(tool_to_mcp).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request
            .arguments
            .map(ToolArgs::from_map)
            .unwrap_or_default();
        let call = ToolCall::new(format!("mcp-{}", context.id), request.name, arguments);
        let tools = self.tools.clone();
        let scope = self.scope.clone();
        let result = tokio::select! {
            result = async move { tools.call(&scope, call).await } => result,
            () = context.ct.cancelled() => ToolError::Cancelled.into_result(),
        };
        Ok(CallToolResponse::Complete(tool_result_to_mcp(&result)))
    }
}
