//! The server configuration file: which MCP servers exist and how to reach
//! them.
//!
//! ```yaml
//! # hookwire.yaml
//! servers:
//!   time:                          # a stdio server: a child process
//!     command: mcp-server-time
//!     args: ["--local-timezone", "UTC"]
//!     env: {LOG_LEVEL: warn}       # added to the inherited environment
//!     cwd: servers/time            # relative to this file's folder
//!     timeout_sec: 30              # per call (default 60)
//!     startup_timeout_sec: 20      # start + initialize + list tools (default 30)
//!     reconnect: true              # restart after it dies (default true)
//!   everything:                    # a streamable HTTP server
//!     url: http://127.0.0.1:3001/mcp
//!   github:                        # ... with headers
//!     url: https://api.githubcopilot.com/mcp/
//!     headers: {Authorization: "Bearer ${GITHUB_TOKEN}"}   # or bearer_token: ${GITHUB_TOKEN}
//! ```
//!
//! A header value's `${NAME}` is looked up in the environment when the
//! servers connect (`$${` is a literal `${`): the secret stays out of the
//! file, and an unset variable is an error before the run.
//!
//! A server has either `command` (stdio) or `url` (streamable HTTP), never
//! both. Server names may hold ASCII letters, digits, `-` and `_`, but not
//! `__` (the separator of exposed tool names, `server__tool`). Unknown keys
//! are errors, and every error names the server entry it is about.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use std::sync::Arc;

use hookwire_spec::McpLock;

use super::yaml;
use crate::secret::Secret;

mod entry;

pub(crate) use entry::check_name;
use entry::{RawFile, check_spec, parse_server};

/// The default limit for one tool call.
pub const DEFAULT_CALL_TIMEOUT: Duration = hookwire_spec::DEFAULT_CALL_TIMEOUT;
/// The default limit for starting a server, initializing it and listing its
/// tools.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = hookwire_spec::DEFAULT_STARTUP_TIMEOUT;

/// A set of named MCP servers, in the order they were declared.
///
/// ```
/// use hookwire::mcp::{McpConfig, Transport};
///
/// let config = McpConfig::from_yaml(
///     "servers:\n  time:\n    command: mcp-server-time\n    timeout_sec: 5\n",
/// )
/// .unwrap();
/// let time = config.get("time").unwrap();
/// assert!(matches!(&time.transport, Transport::Stdio { command, .. } if command == "mcp-server-time"));
/// assert_eq!(time.call_timeout, std::time::Duration::from_secs(5));
///
/// let err = McpConfig::from_yaml("servers:\n  time:\n    comand: x\n").unwrap_err();
/// assert!(err.to_string().starts_with("server `time`: unknown key `comand`"), "{err}");
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpConfig {
    servers: Vec<(String, ServerSpec)>,
    /// The tools the servers are pinned to (see [`McpConfig::with_lock`]).
    lock: Option<Arc<McpLock>>,
}

/// How to reach one MCP server, and how long to wait for it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerSpec {
    /// stdio child process or streamable HTTP.
    pub transport: Transport,
    /// The limit for one tool call (`timeout_sec`).
    pub call_timeout: Duration,
    /// The limit for start, `initialize` and `tools/list` (`startup_timeout_sec`).
    pub startup_timeout: Duration,
    /// Whether a server that died is started again on the next call of one of
    /// its tools (`reconnect`).
    pub reconnect: bool,
}

/// The transport of one MCP server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Transport {
    /// A child process spoken to over its stdin and stdout.
    Stdio {
        /// The program (looked up in `PATH` if it has no slash).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the inherited environment (values never
        /// printed: they often hold tokens).
        env: BTreeMap<String, Secret>,
        /// Its working directory.
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint, `http://` or `https://`.
        url: String,
        /// Headers sent with every request, values as written: `${NAME}`
        /// is looked up when the servers connect. The values are never
        /// printed (they hold tokens).
        headers: BTreeMap<String, Secret>,
    },
}

impl ServerSpec {
    /// A stdio server started as `command`.
    pub fn stdio(command: impl Into<String>) -> Self {
        Self::with_transport(Transport::Stdio {
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        })
    }

    /// A streamable HTTP server at `url`.
    pub fn http(url: impl Into<String>) -> Self {
        Self::with_transport(Transport::Http {
            url: url.into(),
            headers: BTreeMap::new(),
        })
    }

    /// Adds a header sent with every request (HTTP only; ignored for
    /// stdio). `${NAME}` in the value is looked up in the environment when
    /// the servers connect (`$${` is a literal `${`).
    ///
    /// ```
    /// use hookwire::mcp::{McpConfig, ServerSpec};
    /// let github = ServerSpec::http("https://api.githubcopilot.com/mcp/")
    ///     .header("Authorization", "Bearer ${GITHUB_TOKEN}");
    /// McpConfig::new().with_server("github", github).unwrap();
    /// let reserved = ServerSpec::http("http://127.0.0.1:1/mcp").header("Accept", "x");
    /// let e = McpConfig::new().with_server("x", reserved).unwrap_err();
    /// assert!(e.to_string().contains("set by the MCP transport itself"), "{e}");
    /// ```
    pub fn header(mut self, name: impl Into<String>, value: impl Into<Secret>) -> Self {
        if let Transport::Http { headers, .. } = &mut self.transport {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// Sends `Authorization: Bearer <token>` (HTTP only); `${NAME}` in
    /// `token` as in [`header`](Self::header).
    pub fn bearer_token(self, token: impl AsRef<str>) -> Self {
        let value = format!("Bearer {}", token.as_ref());
        self.header("Authorization", value)
    }

    fn with_transport(transport: Transport) -> Self {
        Self {
            transport,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            reconnect: true,
        }
    }

    /// Adds arguments (stdio only; ignored for HTTP).
    pub fn args(mut self, more: impl IntoIterator<Item = impl Into<String>>) -> Self {
        if let Transport::Stdio { args, .. } = &mut self.transport {
            args.extend(more.into_iter().map(Into::into));
        }
        self
    }

    /// Adds an environment variable (stdio only; ignored for HTTP).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<Secret>) -> Self {
        if let Transport::Stdio { env, .. } = &mut self.transport {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Sets the working directory (stdio only; ignored for HTTP).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Transport::Stdio { cwd, .. } = &mut self.transport {
            *cwd = Some(dir.into());
        }
        self
    }

    /// Sets the limit for one tool call.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// Sets the limit for start, `initialize` and `tools/list`.
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Sets whether a dead server is started again.
    pub fn reconnect(mut self, reconnect: bool) -> Self {
        self.reconnect = reconnect;
        self
    }
}

/// Why a server configuration was rejected.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read MCP server configuration {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The text is not valid YAML or JSON, or its top level is wrong.
    #[error("{}{}: {message}", file_prefix(path), position(*line, *column))]
    Syntax {
        /// The file, when loaded from one.
        path: Option<PathBuf>,
        /// 1-based line, when known.
        line: Option<usize>,
        /// 1-based column, when known.
        column: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// One server entry is wrong.
    #[error("{}server `{server}`: {message}", file_prefix(path))]
    Server {
        /// The file, when loaded from one.
        path: Option<PathBuf>,
        /// The entry's name.
        server: String,
        /// What is wrong.
        message: String,
    },
    /// The lock file (`hookwire.lock`) cannot be read or is wrong.
    #[error("MCP lock {}: {message}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl ConfigError {
    /// The server entry this error is about, if it is about one.
    pub fn server(&self) -> Option<&str> {
        match self {
            Self::Server { server, .. } => Some(server),
            _ => None,
        }
    }

    fn in_file(mut self, file: &Path) -> Self {
        if let Self::Syntax { path, .. } | Self::Server { path, .. } = &mut self {
            *path = Some(file.to_owned());
        }
        self
    }
}

fn file_prefix(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map(|p| format!("{}: ", p.display()))
        .unwrap_or_default()
}

fn position(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("line {l}, column {c}"),
        (Some(l), None) => format!("line {l}"),
        _ => "invalid MCP server configuration".to_owned(),
    }
}

impl McpConfig {
    /// An empty configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a server. The name is checked like a name in a
    /// file.
    pub fn with_server(
        mut self,
        name: impl Into<String>,
        spec: ServerSpec,
    ) -> Result<Self, ConfigError> {
        let name = name.into();
        check_name(&name).map_err(|message| server_error(&name, message))?;
        check_spec(&spec).map_err(|message| server_error(&name, message))?;
        match self.servers.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = spec,
            None => self.servers.push((name, spec)),
        }
        Ok(self)
    }

    /// Parses a YAML document (JSON is YAML too).
    pub fn from_yaml(text: &str) -> Result<Self, ConfigError> {
        let raw: RawFile = yaml::from_str(text).map_err(|e| ConfigError::Syntax {
            path: None,
            line: e.line,
            column: e.column,
            message: e.message,
        })?;
        Self::from_raw(raw, None)
    }

    /// Parses a JSON document.
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let raw: RawFile = serde_json::from_str(text).map_err(|e| ConfigError::Syntax {
            path: None,
            line: Some(e.line()),
            column: Some(e.column()),
            message: e.to_string(),
        })?;
        Self::from_raw(raw, None)
    }

    /// Loads a file (`.json` as JSON, anything else as YAML). A relative
    /// `cwd` is resolved against the file's folder. A lock file beside it
    /// (`hookwire.lock`, written by `cardgen mcp lock`) is loaded too: the
    /// servers it lists are pinned to its tools (see
    /// [`with_lock`](Self::with_lock)).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        let parsed = if path.extension().is_some_and(|e| e == "json") {
            Self::from_json(&text)
        } else {
            Self::from_yaml(&text)
        };
        let mut config = parsed.map_err(|e| e.in_file(path))?;
        let base = path.parent().unwrap_or(Path::new(""));
        for (_, spec) in &mut config.servers {
            if let Transport::Stdio { cwd: Some(cwd), .. } = &mut spec.transport
                && cwd.is_relative()
            {
                *cwd = base.join(&*cwd);
            }
        }
        let lock = base.join(hookwire_spec::LOCK_FILE);
        if lock.exists() {
            config = config.with_lock_file(lock)?;
        }
        Ok(config)
    }

    /// Pins the servers `lock` lists to its tools: a tool such a server
    /// lists that differs from the lock (its description, input schema or
    /// annotations), or that the lock does not have, is never offered to
    /// the model, at connect time and after every
    /// `notifications/tools/list_changed`. It is reported instead
    /// ([`McpServers::refused`](super::McpServers::refused), and in a run
    /// as a [`TraceEvent::ToolRefused`](crate::agent::TraceEvent::ToolRefused)),
    /// and the lock's `on_change` says whether a run goes on without it
    /// (`drop`) or stops ([`RunError::ToolsRefused`](crate::agent::RunError::ToolsRefused)).
    /// A server the lock does not list is not pinned.
    ///
    /// ```
    /// use hookwire::mcp::{McpConfig, McpLock};
    ///
    /// let lock = McpLock::parse(r#"{"version": 1, "on_change": "stop", "servers": {"time": {}}}"#)?;
    /// let config = McpConfig::from_yaml("servers:\n  time:\n    command: mcp-server-time\n")?
    ///     .with_lock(lock);
    /// assert!(config.lock().is_some_and(|l| l.server("time").is_some()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_lock(mut self, lock: McpLock) -> Self {
        self.lock = Some(Arc::new(lock));
        self
    }

    /// Reads the lock file `path` and pins the servers to it (see
    /// [`with_lock`](Self::with_lock)).
    pub fn with_lock_file(self, path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let lock_error = |message: String| ConfigError::Lock {
            path: path.to_owned(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| lock_error(e.to_string()))?;
        let lock = McpLock::parse(&text).map_err(lock_error)?;
        Ok(self.with_lock(lock))
    }

    /// The lock the servers are pinned to, if any.
    pub fn lock(&self) -> Option<&McpLock> {
        self.lock.as_deref()
    }

    pub(crate) fn shared_lock(&self) -> Option<Arc<McpLock>> {
        self.lock.clone()
    }

    fn from_raw(raw: RawFile, path: Option<&Path>) -> Result<Self, ConfigError> {
        // Keys besides `servers` are the code generator's (`coverage:`),
        // or mistakes.
        if let Some(message) = raw
            .other
            .keys()
            .find_map(|key| hookwire_spec::check_server_file_key(key).err())
        {
            return Err(ConfigError::Syntax {
                path: path.map(Path::to_owned),
                line: None,
                column: None,
                message,
            });
        }
        let mut servers: Vec<(String, ServerSpec)> = Vec::with_capacity(raw.servers.0.len());
        for (name, value) in raw.servers.0 {
            let spec = parse_server(&name, value).map_err(|message| ConfigError::Server {
                path: path.map(Path::to_owned),
                server: name.clone(),
                message,
            })?;
            if servers.iter().any(|(n, _)| *n == name) {
                return Err(server_error(&name, "declared twice".to_owned()));
            }
            servers.push((name, spec));
        }
        Ok(Self {
            servers,
            lock: None,
        })
    }

    /// The server called `name`.
    pub fn get(&self, name: &str) -> Option<&ServerSpec> {
        self.servers.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    /// Whether a server called `name` is declared (what `cardgen check`
    /// asks about each name in a card's `servers:`).
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The servers, in declared order.
    pub fn servers(&self) -> impl Iterator<Item = (&str, &ServerSpec)> {
        self.servers.iter().map(|(n, s)| (n.as_str(), s))
    }

    /// The names of the servers, in declared order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.servers.iter().map(|(n, _)| n.as_str())
    }

    /// Only the named servers, in the order of `names`; an unknown name is
    /// an error naming it.
    pub fn select<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<McpConfig, ConfigError> {
        let mut out = McpConfig {
            lock: self.lock.clone(),
            ..McpConfig::new()
        };
        for name in names {
            match self.get(name) {
                Some(spec) => {
                    if !out.contains(name) {
                        out.servers.push((name.to_owned(), spec.clone()));
                    }
                }
                None => {
                    let known: Vec<_> = self.names().collect();
                    return Err(server_error(
                        name,
                        format!(
                            "not declared in the server configuration (declared: {})",
                            if known.is_empty() {
                                "none".to_owned()
                            } else {
                                known.join(", ")
                            }
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }
}

fn server_error(name: &str, message: String) -> ConfigError {
    ConfigError::Server {
        path: None,
        server: name.to_owned(),
        message,
    }
}
