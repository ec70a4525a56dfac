//! The MCP server configuration file (`hookwire.yaml`): its keys, one
//! server entry read and checked, server names and header values. The
//! runtime (`hookwire::mcp::McpConfig`) loads a file with these functions
//! and `cardgen check` checks one with them, so a file the check accepts
//! is one the runtime loads.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::did_you_mean;

/// The keys of the file's top level.
pub const SERVER_FILE_KEYS: [&str; 2] = ["servers", "coverage"];

/// The keys of one server entry.
pub const SERVER_ENTRY_KEYS: [&str; 10] = [
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "bearer_token",
    "timeout_sec",
    "startup_timeout_sec",
    "reconnect",
];

/// The default limit for one tool call (`timeout_sec`).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The default limit for starting a server, initializing it and listing
/// its tools (`startup_timeout_sec`).
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// Headers the MCP transport sets itself; a configuration may not set them.
pub const RESERVED_HEADERS: [&str; 5] = [
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// One server entry, read and checked.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerEntry {
    /// How to reach it.
    pub transport: EntryTransport,
    /// `timeout_sec`.
    pub call_timeout: Duration,
    /// `startup_timeout_sec`.
    pub startup_timeout: Duration,
    /// `reconnect` (default true).
    pub reconnect: bool,
}

/// A server entry's transport.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EntryTransport {
    /// `command` (with `args`, `env`, `cwd`).
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to its environment.
        env: BTreeMap<String, String>,
        /// Its working directory, as written.
        cwd: Option<PathBuf>,
    },
    /// `url` (with `headers`; `bearer_token` becomes `Authorization`).
    Http {
        /// The endpoint.
        url: String,
        /// Header values as written (`${NAME}` unresolved).
        headers: BTreeMap<String, String>,
    },
}

/// A server entry as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    command: Option<String>,
    args: Option<Vec<String>>,
    env: Option<BTreeMap<String, String>>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    headers: Option<BTreeMap<String, String>>,
    bearer_token: Option<String>,
    timeout_sec: Option<f64>,
    startup_timeout_sec: Option<f64>,
    reconnect: Option<bool>,
}

/// Checks a key of the file's top level: only `servers`.
///
/// ```
/// assert!(hookwire_spec::check_server_file_key("servers").is_ok());
/// let e = hookwire_spec::check_server_file_key("server").unwrap_err();
/// assert!(e.contains("did you mean `servers`?"), "{e}");
/// ```
pub fn check_server_file_key(key: &str) -> Result<(), String> {
    if SERVER_FILE_KEYS.contains(&key) {
        return Ok(());
    }
    Err(unknown_key(
        key,
        &SERVER_FILE_KEYS,
        "the server configuration",
    ))
}

fn unknown_key(key: &str, known: &[&'static str], place: &str) -> String {
    let hint = did_you_mean(key, known.iter().copied())
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default();
    format!(
        "unknown key `{key}` in {place}{hint}; expected one of: {}",
        known.join(", ")
    )
}

/// Checks a server name: non-empty, `[A-Za-z0-9_-]`, no `__`.
pub fn check_server_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a server name must not be empty".to_owned());
    }
    if let Some(c) = crate::invalid_tool_name_char(name) {
        return Err(format!(
            "invalid character {c:?} in the server name (allowed: ASCII letters, digits, `-`, `_`)"
        ));
    }
    if name.contains(crate::SERVER_SEPARATOR) {
        return Err(
            "a server name must not contain `__` (it separates server and tool in `server__tool`)"
                .to_owned(),
        );
    }
    Ok(())
}

/// One piece of a header value as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderPiece<'a> {
    /// Literal text.
    Text(&'a str),
    /// `${NAME}`: an environment variable, looked up when the servers
    /// connect.
    Var(&'a str),
}

/// The pieces of a header value: text, and `${NAME}` references (`$${` is
/// a literal `${`).
pub fn header_pieces(value: &str) -> Result<Vec<HeaderPiece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        let (before, from) = rest.split_at(at);
        if !before.is_empty() {
            out.push(HeaderPiece::Text(before));
        }
        if let Some(after) = from.strip_prefix("$${") {
            out.push(HeaderPiece::Text("${"));
            rest = after;
        } else if let Some(after) = from.strip_prefix("${") {
            let Some(close) = after.find('}') else {
                return Err(
                    "unclosed `${` in the value: write `${NAME}`, or `$${` for a literal `${`"
                        .to_owned(),
                );
            };
            let name = &after[..close];
            let valid = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(format!(
                    "`${{{name}}}` is not an environment reference: write `${{NAME}}` (letters, digits and `_`, not starting with a digit; no default)"
                ));
            }
            out.push(HeaderPiece::Var(name));
            rest = &after[close + 1..];
        } else {
            out.push(HeaderPiece::Text("$"));
            rest = &from[1..];
        }
    }
    if !rest.is_empty() {
        out.push(HeaderPiece::Text(rest));
    }
    Ok(out)
}

/// Whether `name` is an HTTP header name (a token: letters, digits and
/// ``!#$%&'*+-.^_`|~``).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Whether a header value can carry `text` (no control character but tab).
pub fn is_header_text(text: &str) -> bool {
    !text.chars().any(|c| c.is_control() && c != '\t')
}

/// Checks one header as written: its name (valid, not one the transport
/// sets itself) and the form of its value. The value is never printed.
pub fn check_header(name: &str, value: &str) -> Result<(), String> {
    if !is_header_name(name) {
        return Err(format!("`{name}` is not a valid HTTP header name"));
    }
    if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
        return Err(format!(
            "header `{name}` is set by the MCP transport itself and cannot be configured"
        ));
    }
    for piece in header_pieces(value).map_err(|e| format!("header `{name}`: {e}"))? {
        if let HeaderPiece::Text(text) = piece
            && !is_header_text(text)
        {
            return Err(format!(
                "header `{name}`: the value has a character a header cannot carry (a control character or a line break)"
            ));
        }
    }
    Ok(())
}

fn seconds(field: &str, value: Option<f64>, default: Duration) -> Result<Duration, String> {
    match value {
        None => Ok(default),
        Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Duration::from_secs_f64(s)),
        Some(s) => Err(format!(
            "`{field}` must be a positive number of seconds, got {s}"
        )),
    }
}

impl ServerEntry {
    /// An entry built in code (check it with [`check`](Self::check)).
    pub fn new(
        transport: EntryTransport,
        call_timeout: Duration,
        startup_timeout: Duration,
        reconnect: bool,
    ) -> Self {
        Self {
            transport,
            call_timeout,
            startup_timeout,
            reconnect,
        }
    }

    /// Checks an entry, read or built in code: one transport, and what it
    /// allows.
    pub fn check(&self) -> Result<(), String> {
        match &self.transport {
            EntryTransport::Stdio { command, .. } if command.trim().is_empty() => {
                return Err("`command` must not be empty".to_owned());
            }
            EntryTransport::Http { url, .. }
                if !(url.starts_with("http://") || url.starts_with("https://")) =>
            {
                return Err(format!(
                    "`url` must start with http:// or https://, got `{url}`"
                ));
            }
            EntryTransport::Http { headers, .. } => {
                for (name, value) in headers {
                    check_header(name, value)?;
                }
            }
            EntryTransport::Stdio { .. } => {}
        }
        for (what, d) in [
            ("timeout_sec", self.call_timeout),
            ("startup_timeout_sec", self.startup_timeout),
        ] {
            if d.is_zero() {
                return Err(format!("`{what}` must be greater than 0"));
            }
        }
        Ok(())
    }
}

/// Reads and checks the server entry `name`; the error says what is wrong
/// with it (the first mistake; the caller names the entry).
///
/// ```
/// use serde_json::json;
/// use hookwire_spec::parse_server_entry;
///
/// assert!(parse_server_entry("time", json!({"command": "mcp-server-time"})).is_ok());
/// let e = parse_server_entry("time", json!({"command": "x", "headers": {"A": "b"}})).unwrap_err();
/// assert!(e.contains("only applies to streamable HTTP"), "{e}");
/// let e = parse_server_entry("web", json!({"url": "http://h/mcp", "headers": {"A": "${T"}})).unwrap_err();
/// assert!(e.contains("unclosed `${`"), "{e}");
/// ```
pub fn parse_server_entry(name: &str, value: Value) -> Result<ServerEntry, String> {
    read_entry(name, value).map_err(|mut errors| errors.swap_remove(0))
}

/// Every mistake of the server entry `name` (what `cardgen check`
/// reports), none when [`parse_server_entry`] accepts it.
pub fn server_entry_errors(name: &str, value: Value) -> Vec<String> {
    read_entry(name, value).err().unwrap_or_default()
}

/// The entry, or every mistake in it (at least one).
fn read_entry(name: &str, value: Value) -> Result<ServerEntry, Vec<String>> {
    check_server_name(name).map_err(|e| vec![e])?;
    let Value::Object(mut map) = value else {
        return Err(vec![
            "expected a map with `command` (stdio) or `url` (streamable HTTP)".to_owned(),
        ]);
    };
    // An unknown key is one mistake; the entry's other keys are still read.
    let mut errors: Vec<String> = map
        .keys()
        .filter(|k| !SERVER_ENTRY_KEYS.contains(&k.as_str()))
        .map(|k| unknown_key(k, &SERVER_ENTRY_KEYS, "a server entry"))
        .collect();
    map.retain(|k, _| SERVER_ENTRY_KEYS.contains(&k.as_str()));
    let raw: RawServer = match serde_json::from_value(Value::Object(map)) {
        Ok(raw) => raw,
        Err(e) => {
            errors.push(e.to_string());
            return Err(errors);
        }
    };
    let transport = transport(raw.command.clone(), raw.url.clone(), &raw, &mut errors);
    let call_timeout = seconds("timeout_sec", raw.timeout_sec, DEFAULT_CALL_TIMEOUT)
        .map_err(|e| errors.push(e))
        .unwrap_or(DEFAULT_CALL_TIMEOUT);
    let startup_timeout = seconds(
        "startup_timeout_sec",
        raw.startup_timeout_sec,
        DEFAULT_STARTUP_TIMEOUT,
    )
    .map_err(|e| errors.push(e))
    .unwrap_or(DEFAULT_STARTUP_TIMEOUT);
    let Some(transport) = transport else {
        return Err(errors);
    };
    if let EntryTransport::Http { headers, .. } = &transport {
        errors.extend(
            headers
                .iter()
                .filter_map(|(name, value)| check_header(name, value).err()),
        );
    }
    let entry = ServerEntry::new(
        transport,
        call_timeout,
        startup_timeout,
        raw.reconnect.unwrap_or(true),
    );
    if errors.is_empty()
        && let Err(e) = entry.check()
    {
        errors.push(e);
    }
    if errors.is_empty() {
        Ok(entry)
    } else {
        Err(errors)
    }
}

/// The entry's transport from `command` or `url`, each key the other
/// transport does not allow a mistake in `errors`.
fn transport(
    command: Option<String>,
    url: Option<String>,
    raw: &RawServer,
    errors: &mut Vec<String>,
) -> Option<EntryTransport> {
    let wrong = |keys: &[(bool, &str)], message: &str| {
        let keys: Vec<&str> = keys.iter().filter(|(on, _)| *on).map(|(_, k)| *k).collect();
        (!keys.is_empty()).then(|| format!("`{}` {message}", keys.join("`, `")))
    };
    match (command, url) {
        (Some(_), Some(_)) => {
            errors.push(
                "has both `command` and `url`; a server is either stdio (`command`) or streamable HTTP (`url`)"
                    .to_owned(),
            );
            None
        }
        (None, None) => {
            errors.push("has neither `command` (stdio) nor `url` (streamable HTTP)".to_owned());
            None
        }
        (Some(command), None) => {
            errors.extend(wrong(
                &[
                    (raw.headers.is_some(), "headers"),
                    (raw.bearer_token.is_some(), "bearer_token"),
                ],
                "only applies to streamable HTTP servers (with `url`), not to `command`",
            ));
            Some(EntryTransport::Stdio {
                command,
                args: raw.args.clone().unwrap_or_default(),
                env: raw.env.clone().unwrap_or_default(),
                cwd: raw.cwd.clone(),
            })
        }
        (None, Some(url)) => {
            errors.extend(wrong(
                &[
                    (raw.args.is_some(), "args"),
                    (raw.env.is_some(), "env"),
                    (raw.cwd.is_some(), "cwd"),
                ],
                "only applies to stdio servers (with `command`), not to `url`",
            ));
            let mut headers = raw.headers.clone().unwrap_or_default();
            if let Some(token) = &raw.bearer_token {
                if headers
                    .keys()
                    .any(|k| k.eq_ignore_ascii_case("authorization"))
                {
                    errors.push(
                        "has both `bearer_token` and an `Authorization` header; keep one"
                            .to_owned(),
                    );
                }
                headers.insert("Authorization".to_owned(), format!("Bearer {token}"));
            }
            Some(EntryTransport::Http { url, headers })
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_checked_as_written() {
        assert_eq!(check_header("X-Team", "blue ${T} $${x} $"), Ok(()));
        for (name, value, error) in [
            (
                "Bad Name",
                "x",
                "`Bad Name` is not a valid HTTP header name",
            ),
            ("accept", "x", "header `accept` is set by the MCP transport"),
            ("A", "Bearer ${T", "header `A`: unclosed `${`"),
            ("A", "${T:-x}", "is not an environment reference"),
            ("A", "a\u{7}b", "a character a header cannot carry"),
        ] {
            let e = check_header(name, value).unwrap_err();
            assert!(e.contains(error), "{name}: {value:?}: {e}");
            assert!(
                !value.contains("Bearer") || !e.contains("Bearer ${T"),
                "{e}"
            );
        }
    }
}
