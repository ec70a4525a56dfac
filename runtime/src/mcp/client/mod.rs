//! Connections to MCP servers: start, list tools, call, restart.
//!
//! This file holds the public handle ([`McpServers`]) and the table of
//! exposed tools; `server.rs` holds one server's connection and its start.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock, Weak};

use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use serde_json::{Map, Value};

use super::config::{ConfigError, McpConfig};
use super::convert::{tool_from_mcp, tool_result_from_mcp};
use super::names::{NameAllocator, SEPARATOR};
use super::{listing, stdio};
use crate::agent::McpFilter;
use crate::error::ToolError;
use hookwire_chain::call::Outcome;
use hookwire_chain::matcher::{MatchTarget, Matcher};
use hookwire_chain::tool::ToolDefinition;

mod locked;
mod server;
mod stderr;

use server::{Connection, Server};

/// What to connect with: tool filters and names to keep free.
#[derive(Debug, Clone, Default)]
pub struct McpOptions {
    filters: Vec<McpFilter>,
    reserved: Vec<String>,
    secrets: super::headers::Secrets,
}

impl McpOptions {
    /// No filters (every tool of every server), no reserved names.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tools: {server: [globs]}` filters. A server with a filter
    /// exposes only the tools whose (original) names match one of its globs;
    /// a server without one exposes every tool. Several filters for one
    /// server add up.
    pub fn filters(mut self, filters: impl IntoIterator<Item = McpFilter>) -> Self {
        self.filters.extend(filters);
        self
    }

    /// Names MCP tools must not take, for example the agent's static tools'
    /// names (see the collision rule in [`names`](super::names)).
    pub fn reserve(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.reserved.extend(names.into_iter().map(Into::into));
        self
    }

    /// Where `${NAME}` in the servers' header values is looked up instead
    /// of the process environment (a secret store, a test's values).
    pub fn secrets(
        mut self,
        lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.secrets = super::headers::Secrets::with(lookup);
        self
    }
}

/// The state of one server, as [`McpServers::status`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStatus {
    /// Connected; its tools are listed.
    Connected {
        /// The child process's id (stdio servers).
        pid: Option<u32>,
        /// How many of its tools are exposed (after filters).
        tools: usize,
    },
    /// Not connected: it failed to start or died. The message says why.
    Unavailable(String),
}

/// One exposed tool.
pub(crate) struct Entry {
    pub(crate) server: usize,
    pub(crate) tool: String,
    pub(crate) definition: ToolDefinition,
    /// Its annotations as metadata (see `meta_from_mcp`).
    pub(crate) meta: crate::ToolMeta,
}

#[derive(Default)]
struct Table {
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
    names: NameAllocator,
}

pub(crate) struct Inner {
    me: Weak<Inner>,
    pub(crate) servers: Vec<Server>,
    table: RwLock<Table>,
    /// The tools the servers are pinned to (`McpConfig::with_lock`).
    lock: Option<Arc<hookwire_spec::McpLock>>,
}

/// Connections to a set of MCP servers and the tools they expose.
///
/// [`connect`](Self::connect) starts every server in parallel, lists each
/// one's tools (following pagination) and applies the filters. A server that
/// fails to start does **not** make `connect` fail: it is reported by
/// [`status`](Self::status), and a call of any `server__*` tool gives an
/// error result saying why (after trying to start it again, see below).
///
/// # Failure and reconnects
///
/// * Every call has a timeout (`timeout_sec`, default 60 s); when it fires
///   the request is cancelled on the server (`notifications/cancelled`) and
///   the call ends with [`ToolError::TimedOut`].
/// * A server that dies (its process exits, or its connection closes) is
///   noticed by the call that was running on it, or by the next call. The
///   call that was running gets an error result saying the server stopped
///   during the call; it is **not** retried, because the tool may have had
///   effects.
/// * With `reconnect: true` (the default) the **next** call of one of its
///   tools starts the server again (a new process, `initialize`, a fresh
///   `tools/list`), then makes the call. Concurrent calls share one restart.
///   If the restart fails, that call gets an error result naming the cause,
///   and the call after it tries again: there is one attempt per call, never
///   a retry loop.
/// * With `reconnect: false` the server's tools stay unavailable and every
///   call of them gives an error result.
/// * Tools keep their exposed names across a restart; a tool that appears
///   only after a restart gets a name by the usual rule.
/// * A tool in `tools/list` that does not read as an MCP tool (a number
///   for a name, no input schema, ...) is left out with a warning; the
///   server's other tools are served.
/// * One message from a stdio server is at most 16 MiB (rmcp's cap, which
///   its HTTP transport applies too). An answer over it fails its call at
///   once with an error result giving its size; the connection stays up.
///
/// # Changing tool lists
///
/// When a server sends `notifications/tools/list_changed`, its tools are
/// listed again in the background and the exposed set follows: new tools
/// appear (named by the usual rule), removed ones disappear, the others
/// keep their names. `definitions()` always returns the current set.
///
/// Dropping the last handle kills the servers' processes.
#[derive(Clone)]
pub struct McpServers {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServers")
            .field(
                "servers",
                &self
                    .inner
                    .servers
                    .iter()
                    .map(|s| &*s.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl McpServers {
    /// Connects to every server of `config`, in parallel.
    ///
    /// Fails only on a bad option: a filter naming a server that is not in
    /// `config`, or a glob that does not compile. Servers that fail to start
    /// are reported by [`status`](Self::status) instead.
    pub async fn connect(config: &McpConfig, options: McpOptions) -> Result<Self, ConfigError> {
        let mut globs: HashMap<&str, Vec<Matcher>> = HashMap::new();
        for filter in &options.filters {
            if !config.contains(&filter.server) {
                return Err(ConfigError::Server {
                    path: None,
                    server: filter.server.to_string(),
                    message: "a `tools` filter names this server, but it is not among the servers to connect to".to_owned(),
                });
            }
            let list = globs.entry(&filter.server).or_default();
            for glob in &filter.globs {
                let matcher = Matcher::glob(glob).map_err(|e| ConfigError::Server {
                    path: None,
                    server: filter.server.to_string(),
                    message: format!("bad tool filter: {e}"),
                })?;
                list.push(matcher);
            }
        }
        // Every `${NAME}` of every header is looked up now: an unset one is
        // an error before anything starts.
        let mut headers = Vec::new();
        for (name, spec) in config.servers() {
            let resolved = match &spec.transport {
                super::config::Transport::Http { headers, .. } => {
                    super::headers::resolve(headers, &options.secrets).map_err(|message| {
                        ConfigError::Server {
                            path: None,
                            server: name.to_owned(),
                            message,
                        }
                    })?
                }
                _ => super::headers::Resolved::default(),
            };
            headers.push(resolved);
        }
        let servers = config
            .servers()
            .zip(headers)
            .map(|((name, spec), headers)| Server {
                name: Arc::from(name),
                spec: spec.clone(),
                headers,
                globs: globs.remove(name).filter(|g| !g.is_empty()),
                conn: RwLock::new(None),
                last_error: RwLock::new(None),
                connecting: tokio::sync::Mutex::new(()),
                stderr: Arc::default(),
                listed: AtomicBool::new(false),
                changed: AtomicBool::new(false),
                refused: RwLock::default(),
            })
            .collect();
        let lock = locked::lock_of(config);
        let inner = Arc::new_cyclic(|me| Inner {
            me: me.clone(),
            servers,
            table: RwLock::new(Table {
                names: NameAllocator::new(options.reserved),
                ..Table::default()
            }),
            lock,
        });
        // Start every server at once; collect their tool lists, then name
        // the tools in declared order so the names do not depend on timing.
        let lists = futures_util::future::join_all(
            inner
                .servers
                .iter()
                .enumerate()
                .map(|(index, server)| server.start(inner.me.clone(), index)),
        )
        .await;
        for (index, list) in lists.into_iter().enumerate() {
            if let Some(tools) = list {
                inner.refresh(index, &tools);
            }
            inner.servers[index].listed.store(true, Ordering::Release);
        }
        for (index, server) in inner.servers.iter().enumerate() {
            if server.changed.swap(false, Ordering::AcqRel)
                && let Some(conn) = server.live()
                && let Ok(Ok(tools)) = crate::wait::limit(
                    server.spec.startup_timeout,
                    listing::list_tools(conn.service.peer(), &server.name),
                )
                .await
            {
                inner.refresh(index, &tools);
            }
        }
        Ok(Self { inner })
    }

    /// Every exposed tool's definition: servers in declared order, each
    /// server's tools in its listed order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        read(&self.inner.table)
            .entries
            .iter()
            .map(|e| e.definition.clone())
            .collect()
    }

    /// The state of the server called `name`.
    pub fn status(&self, name: &str) -> Option<ServerStatus> {
        let (index, server) = self.inner.server(name)?;
        Some(match read(&server.conn).as_ref() {
            Some(conn) if !conn.is_closed() => ServerStatus::Connected {
                pid: conn.pid,
                tools: read(&self.inner.table)
                    .entries
                    .iter()
                    .filter(|e| e.server == index)
                    .count(),
            },
            _ => ServerStatus::Unavailable(
                read(&server.last_error)
                    .clone()
                    .unwrap_or_else(|| "the connection is closed".to_owned()),
            ),
        })
    }

    /// The process id of a connected stdio server (for diagnostics).
    pub fn pid(&self, name: &str) -> Option<u32> {
        match self.status(name)? {
            ServerStatus::Connected { pid, .. } => pid,
            ServerStatus::Unavailable(_) => None,
        }
    }

    /// Closes every connection and ends the servers' processes.
    pub async fn shutdown(&self) {
        let conns: Vec<_> = self
            .inner
            .servers
            .iter()
            .filter_map(|s| write(&s.conn).take())
            .collect();
        for conn in conns {
            let token = conn.service.cancellation_token();
            token.cancel();
            drop(conn);
        }
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

impl Inner {
    fn server(&self, name: &str) -> Option<(usize, &Server)> {
        self.servers
            .iter()
            .enumerate()
            .find(|(_, s)| &*s.name == name)
    }

    /// The server an exposed name belongs to, by its `server__` prefix.
    pub(crate) fn server_of(&self, exposed: &str) -> Option<usize> {
        {
            let table = read(&self.table);
            if let Some(&i) = table.by_name.get(exposed) {
                return Some(table.entries[i].server);
            }
        }
        let (prefix, _) = exposed.split_once(SEPARATOR)?;
        self.server(prefix).map(|(i, _)| i)
    }

    /// The metadata of the tool exposed as `exposed` (its annotations).
    pub(crate) fn meta(&self, exposed: &str) -> crate::ToolMeta {
        let table = read(&self.table);
        table
            .by_name
            .get(exposed)
            .map(|&i| table.entries[i].meta.clone())
            .unwrap_or_default()
    }

    pub(crate) fn contains(&self, exposed: &str) -> bool {
        self.server_of(exposed).is_some()
    }

    fn lookup(&self, exposed: &str) -> Option<(usize, String)> {
        let table = read(&self.table);
        let &i = table.by_name.get(exposed)?;
        let entry = &table.entries[i];
        Some((entry.server, entry.tool.clone()))
    }

    /// Replaces server `index`'s entries with `tools` (after its filter),
    /// keeping the exposed names of tools it had before.
    fn refresh(&self, index: usize, tools: &[rmcp::model::Tool]) {
        let server = &self.servers[index];
        let mut table = write(&self.table);
        let mut previous: HashMap<String, String> = HashMap::new();
        let mut kept = Vec::with_capacity(table.entries.len());
        for entry in std::mem::take(&mut table.entries) {
            if entry.server == index {
                previous.insert(entry.tool, entry.definition.name);
            } else {
                kept.push(entry);
            }
        }
        // Keep other servers' entries in place, then this server's, so the
        // order stays "servers in declared order".
        let mut mine = Vec::new();
        let mut refused = Vec::new();
        for tool in tools {
            let name = tool.name.as_ref();
            if let Some(globs) = &server.globs {
                let target = MatchTarget::new(name, crate::ToolSource::Mcp);
                if !globs.iter().any(|g| g.matches(target)) {
                    continue;
                }
            }
            if let Some(drift) = self.differs_from_lock(server, tool) {
                refused.push(drift);
                continue;
            }
            let exposed = match previous.remove(name) {
                Some(exposed) => exposed,
                None => table.names.allocate(&server.name, name),
            };
            mine.push(Entry {
                server: index,
                tool: name.to_owned(),
                definition: tool_from_mcp(tool, exposed),
                meta: crate::mcp::convert::meta_from_mcp(tool),
            });
        }
        let insert_at = kept
            .iter()
            .position(|e| e.server > index)
            .unwrap_or(kept.len());
        kept.splice(insert_at..insert_at, mine);
        table.by_name = kept
            .iter()
            .enumerate()
            .map(|(i, e)| (e.definition.name.clone(), i))
            .collect();
        table.entries = kept;
        *write(&server.refused) = refused;
    }

    /// Calls the tool exposed as `exposed` with `arguments`.
    pub(crate) async fn call(&self, exposed: &str, arguments: Map<String, Value>) -> Outcome {
        let Some(index) = self.server_of(exposed) else {
            return Err(ToolError::UnknownTool {
                name: exposed.to_owned(),
            });
        };
        let server = &self.servers[index];
        let conn = match self.connection(index).await {
            Ok(conn) => conn,
            Err(message) => {
                return Err(ToolError::tool_message(
                    exposed,
                    format!("MCP server `{}` is unavailable: {message}", server.name),
                    false,
                ));
            }
        };
        let Some((_, tool)) = self.lookup(exposed) else {
            return Err(ToolError::UnknownTool {
                name: exposed.to_owned(),
            });
        };
        let params = CallToolRequestParams::new(tool.clone()).with_arguments(arguments);
        let limit = server.spec.call_timeout;
        let dropped_before = conn.dropped_unanswered();
        let call = conn.service.peer().call_tool(params);
        match crate::wait::limit(limit, call).await {
            Err(_) => Err(ToolError::TimedOut {
                what: format!(
                    "MCP tool `{tool}` on server `{}`{}",
                    server.name,
                    if conn.dropped_unanswered() > dropped_before {
                        " (meanwhile it sent a message over the size limit whose id could \
                         not be read, and it was dropped: probably this call's answer)"
                    } else {
                        ""
                    }
                ),
                after: limit,
            }),
            Ok(Ok(result)) => Ok(tool_result_from_mcp(&result)),
            Ok(Err(ServiceError::McpError(e))) if stdio::is_stand_in(&e) => {
                Err(ToolError::tool_message(
                    exposed,
                    format!(
                        "MCP server `{}`: {}",
                        server.name,
                        server.outside(&e.message)
                    ),
                    false,
                ))
            }
            Ok(Err(ServiceError::McpError(e))) => Err(ToolError::tool_message(
                exposed,
                format!(
                    "MCP server `{}` answered with an error: {} (code {})",
                    server.name,
                    server.outside(&e.message),
                    e.code.0
                ),
                false,
            )),
            Ok(Err(ServiceError::Timeout { timeout })) => Err(ToolError::TimedOut {
                what: format!("MCP tool `{tool}` on server `{}`", server.name),
                after: timeout,
            }),
            Ok(Err(e)) => {
                let dead = conn.is_closed()
                    || matches!(
                        e,
                        ServiceError::TransportClosed | ServiceError::TransportSend(_)
                    );
                if dead {
                    let message = format!(
                        "it stopped during a call of `{tool}` ({})",
                        server.outside(&e.to_string())
                    );
                    server.forget(&conn, message.clone());
                    let next = if server.spec.reconnect {
                        "it will be started again on the next call"
                    } else {
                        "reconnect is off, so its tools stay unavailable"
                    };
                    Err(ToolError::tool_message(
                        exposed,
                        format!("MCP server `{}`: {message}; {next}", server.name),
                        true,
                    ))
                } else {
                    Err(ToolError::tool_message(
                        exposed,
                        format!(
                            "MCP server `{}`: {}",
                            server.name,
                            server.outside(&e.to_string())
                        ),
                        false,
                    ))
                }
            }
        }
    }

    /// The live connection to server `index`, starting it again if it is
    /// closed and reconnects are on.
    async fn connection(&self, index: usize) -> Result<Arc<Connection>, String> {
        let server = &self.servers[index];
        if let Some(conn) = server.live() {
            return Ok(conn);
        }
        let _guard = server.connecting.lock().await;
        // Another call may have reconnected while we waited.
        if let Some(conn) = server.live() {
            return Ok(conn);
        }
        if let Some(dead) = write(&server.conn).take() {
            server.note_closed(&dead);
        }
        if !server.spec.reconnect {
            return Err(read(&server.last_error)
                .clone()
                .unwrap_or_else(|| "it is not connected and reconnect is off".to_owned()));
        }
        tracing::info!(target: "hookwire::mcp", server = &*server.name, "starting MCP server again");
        match server.start(self.me.clone(), index).await {
            Some(tools) => {
                self.refresh(index, &tools);
                server
                    .live()
                    .ok_or_else(|| "it closed right after starting".to_owned())
            }
            None => Err(read(&server.last_error)
                .clone()
                .unwrap_or_else(|| "it failed to start".to_owned())),
        }
    }
}
