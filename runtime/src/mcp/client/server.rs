//! One MCP server: its connection, how it is started (stdio or HTTP) and
//! listed, and the listener that follows its tool-list changes.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::Duration;

use futures_util::FutureExt;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};

use super::{Inner, read, write};
use crate::mcp::config::{ServerSpec, Transport};
use crate::mcp::{listing, stdio};
use hookwire_chain::matcher::Matcher;

/// The client side of one connection: answers the server's notifications.
/// On `notifications/tools/list_changed` it lists the tools again and
/// updates the exposed set (names of tools that stay are kept).
pub(super) struct Listener {
    inner: Weak<Inner>,
    index: usize,
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("hookwire", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        let index = self.index;
        // Until `connect` has named the first list, note the change; it
        // lists the tools again itself.
        if !inner.servers[index].listed.load(Ordering::Acquire) {
            inner.servers[index].changed.store(true, Ordering::Release);
            return;
        }
        let peer = context.peer.clone();
        // Not inline: the answer to `tools/list` arrives on the connection
        // this notification is being handled on.
        tokio::spawn(async move {
            let server = &inner.servers[index];
            // A server that never answers: its startup limit.
            let listed = crate::wait::limit(
                server.spec.startup_timeout,
                listing::list_tools(&peer, &server.name),
            )
            .await
            .map_err(|_| {
                format!(
                    "no answer within {} ms",
                    server.spec.startup_timeout.as_millis()
                )
            })
            .and_then(|listed| listed.map_err(|e| server.outside(&e.to_string())));
            match listed {
                Ok(tools) => {
                    tracing::debug!(
                        target: "hookwire::mcp",
                        server = &*inner.servers[index].name,
                        tools = tools.len(),
                        "tool list changed"
                    );
                    inner.refresh(index, &tools);
                }
                Err(e) => tracing::warn!(
                    target: "hookwire::mcp",
                    server = &*inner.servers[index].name,
                    error = %e,
                    "tools/list after list_changed failed"
                ),
            }
        });
    }
}

pub(super) struct Connection {
    pub(super) service: RunningService<RoleClient, Listener>,
    pub(super) pid: Option<u32>,
    /// Oversized messages from a stdio server dropped unanswered (see
    /// [`stdio`]).
    dropped: Option<Arc<AtomicU64>>,
}

impl Connection {
    pub(super) fn dropped_unanswered(&self) -> u64 {
        self.dropped
            .as_ref()
            .map_or(0, |dropped| dropped.load(Ordering::Relaxed))
    }

    pub(super) fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }
}

pub(crate) struct Server {
    pub(crate) name: Arc<str>,
    pub(super) spec: ServerSpec,
    /// The HTTP headers with their variables looked up (never printed).
    pub(super) headers: super::super::headers::Resolved,
    pub(super) globs: Option<Vec<Matcher>>,
    pub(super) conn: RwLock<Option<Arc<Connection>>>,
    pub(super) last_error: RwLock<Option<String>>,
    /// Serializes (re)connects so concurrent calls share one.
    pub(super) connecting: tokio::sync::Mutex<()>,
    pub(super) stderr: Arc<Mutex<super::stderr::StderrTail>>,
    /// Whether the first tool list has been named (see [`Listener`]).
    pub(super) listed: AtomicBool,
    /// Whether the list changed before it was first named.
    pub(super) changed: AtomicBool,
    /// The tools of its last listing that differ from the lock.
    pub(super) refused: RwLock<Vec<hookwire_spec::ToolDrift>>,
}

impl Server {
    pub(super) fn live(&self) -> Option<Arc<Connection>> {
        read(&self.conn)
            .as_ref()
            .filter(|c| !c.is_closed())
            .cloned()
    }

    pub(super) fn note_closed(&self, _dead: &Connection) {
        let mut last = write(&self.last_error);
        if last.is_none() {
            *last = Some(format!("its connection closed{}", self.stderr_tail()));
        }
    }

    /// Drops `conn` if it is still the current connection.
    pub(super) fn forget(&self, conn: &Arc<Connection>, message: String) {
        let mut slot = write(&self.conn);
        if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, conn)) {
            *slot = None;
        }
        *write(&self.last_error) = Some(message);
    }

    fn stderr_tail(&self) -> String {
        let text = self
            .stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .text();
        if text.is_empty() {
            String::new()
        } else {
            format!("; its last stderr lines: {text}")
        }
    }

    /// Starts the server, initializes it and lists its tools. On success
    /// the connection is stored and the tools returned; on failure the
    /// reason is stored in `last_error`.
    pub(super) async fn start(
        &self,
        inner: Weak<Inner>,
        index: usize,
    ) -> Option<Vec<rmcp::model::Tool>> {
        let limit = self.spec.startup_timeout;
        let attempt = AssertUnwindSafe(crate::wait::limit(
            limit,
            self.open(Listener { inner, index }),
        ))
        .catch_unwind()
        .await;
        let outcome = match attempt {
            Ok(Ok(Ok(done))) => Ok(done),
            Ok(Ok(Err(message))) => Err(message),
            Ok(Err(_)) => Err(format!(
                "it did not finish starting (initialize and tools/list) within {} ms",
                limit.as_millis()
            )),
            Err(_) => Err("starting it panicked".to_owned()),
        };
        match outcome {
            Ok((conn, tools)) => {
                tracing::info!(
                    target: "hookwire::mcp",
                    server = &*self.name,
                    tools = tools.len(),
                    "MCP server connected"
                );
                *write(&self.conn) = Some(Arc::new(conn));
                *write(&self.last_error) = None;
                Some(tools)
            }
            Err(message) => {
                // Give the stderr reader a moment to collect the last words
                // of a process that exited at once.
                tokio::time::sleep(Duration::from_millis(50)).await;
                let message = format!("failed to start: {message}{}", self.stderr_tail());
                tracing::warn!(
                    target: "hookwire::mcp",
                    server = &*self.name,
                    error = %message,
                    "MCP server unavailable"
                );
                *write(&self.last_error) = Some(message);
                None
            }
        }
    }

    async fn open(
        &self,
        listener: Listener,
    ) -> Result<(Connection, Vec<rmcp::model::Tool>), String> {
        let (service, pid, dropped) = match &self.spec.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args)
                    .envs(env.iter().map(|(k, v)| (k, v.expose())));
                if let Some(cwd) = cwd {
                    cmd.current_dir(cwd);
                }
                let spawned = stdio::spawn(cmd, self.name.clone())
                    .map_err(|e| format!("cannot run `{command}`: {e}"))?;
                if let Some(stderr) = spawned.stderr {
                    self.forward_stderr(stderr);
                }
                let service = listener
                    .serve(spawned.transport)
                    .await
                    .map_err(|e| self.outside(&e.to_string()))?;
                (service, spawned.pid, Some(spawned.dropped))
            }
            Transport::Http { url, .. } => {
                install_crypto_provider();
                let config = rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(self.headers.0.clone());
                let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
                let service = listener.serve(transport).await.map_err(|e| {
                    let e = e.to_string();
                    // A refusal for want of credentials says how to give them.
                    let hint = if ["HTTP 401", "HTTP 403"].iter().any(|s| e.contains(s)) {
                        " (the server refused the credentials it got: give the server \
                             `headers:` or `bearer_token:` in the configuration, with the \
                             secret as `${VAR}` from the environment)"
                    } else {
                        ""
                    };
                    format!("cannot connect to `{url}`: {}{hint}", self.outside(&e))
                })?;
                (service, None, None)
            }
        };
        let tools = listing::list_tools(service.peer(), &self.name)
            .await
            .map_err(|e| format!("tools/list failed: {}", self.outside(&e.to_string())))?;
        let connection = Connection {
            service,
            pid,
            dropped,
        };
        Ok((connection, tools))
    }

    /// A text from the server (an error, its message), with the values of
    /// its headers taken out, bounded and escaped.
    pub(super) fn outside(&self, text: &str) -> String {
        crate::outside::clean(
            &crate::secret::redact(text, &self.headers.values()),
            crate::outside::ERROR_BODY_LIMIT,
        )
    }

    fn forward_stderr(&self, stderr: tokio::process::ChildStderr) {
        self.stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        super::stderr::forward(stderr, self.name.clone(), self.stderr.clone());
    }
}

/// reqwest is built without a default TLS crypto provider; install ring's
/// once (a provider installed by the application wins).
fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
