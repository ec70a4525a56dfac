//! One server entry of the configuration file, as written and as checked:
//! the raw document (servers in their order), a raw entry, and the checks
//! that make it a [`ServerSpec`].

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::Value;

use crate::secret::Secret;

use super::{DEFAULT_CALL_TIMEOUT, DEFAULT_STARTUP_TIMEOUT, ServerSpec, Transport};

/// The document as written: `servers:` as an ordered list of raw entries.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    #[serde(default)]
    pub(super) servers: Ordered,
}

/// A map that keeps its entries' order.
#[derive(Default)]
pub(super) struct Ordered(pub(super) Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from server names to server entries")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Ordered, E> {
                Ok(Ordered::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    out.push((k, v));
                }
                Ok(Ordered(out))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// A server entry as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    command: Option<String>,
    #[serde(default)]
    args: Option<Vec<String>>,
    #[serde(default)]
    env: Option<BTreeMap<String, String>>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    headers: Option<BTreeMap<String, String>>,
    bearer_token: Option<String>,
    timeout_sec: Option<f64>,
    startup_timeout_sec: Option<f64>,
    reconnect: Option<bool>,
}

/// A map's values as secrets.
fn secrets(map: BTreeMap<String, String>) -> BTreeMap<String, Secret> {
    map.into_iter().map(|(k, v)| (k, Secret::from(v))).collect()
}

/// Checks a server name: non-empty, `[A-Za-z0-9_-]`, no `__`.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a server name must not be empty".to_owned());
    }
    if let Some(c) = hookwire_spec::invalid_tool_name_char(name) {
        return Err(format!(
            "invalid character {c:?} in the server name (allowed: ASCII letters, digits, `-`, `_`)"
        ));
    }
    if name.contains(hookwire_spec::SERVER_SEPARATOR) {
        return Err(
            "a server name must not contain `__` (it separates server and tool in `server__tool`)"
                .to_owned(),
        );
    }
    Ok(())
}

/// Checks a server entry: one transport, and what it allows.
pub(super) fn check_spec(spec: &ServerSpec) -> Result<(), String> {
    match &spec.transport {
        Transport::Stdio { command, .. } if command.trim().is_empty() => {
            return Err("`command` must not be empty".to_owned());
        }
        Transport::Http { url, .. }
            if !(url.starts_with("http://") || url.starts_with("https://")) =>
        {
            return Err(format!(
                "`url` must start with http:// or https://, got `{url}`"
            ));
        }
        Transport::Http { headers, .. } => {
            for (name, value) in headers {
                super::super::headers::check(name, value.expose())?;
            }
        }
        _ => {}
    }
    for (what, d) in [
        ("timeout_sec", spec.call_timeout),
        ("startup_timeout_sec", spec.startup_timeout),
    ] {
        if d.is_zero() {
            return Err(format!("`{what}` must be greater than 0"));
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

/// A server entry as a checked [`ServerSpec`]; the error says what is
/// wrong with it (the caller names the entry).
pub(super) fn parse_server(name: &str, value: Value) -> Result<ServerSpec, String> {
    check_name(name)?;
    if !value.is_object() {
        return Err("expected a map with `command` (stdio) or `url` (streamable HTTP)".to_owned());
    }
    let raw: RawServer = serde_json::from_value(value).map_err(|e| e.to_string())?;
    let transport = match (raw.command, raw.url) {
        (Some(_), Some(_)) => {
            return Err(
                "has both `command` and `url`; a server is either stdio (`command`) or streamable HTTP (`url`)"
                    .to_owned(),
            );
        }
        (None, None) => {
            return Err("has neither `command` (stdio) nor `url` (streamable HTTP)".to_owned());
        }
        (Some(command), None) => {
            if let Some(key) = [
                raw.headers.is_some().then_some("headers"),
                raw.bearer_token.is_some().then_some("bearer_token"),
            ]
            .into_iter()
            .flatten()
            .next()
            {
                return Err(format!(
                    "`{key}` only applies to streamable HTTP servers (with `url`), not to `command`"
                ));
            }
            Transport::Stdio {
                command,
                args: raw.args.unwrap_or_default(),
                env: secrets(raw.env.unwrap_or_default()),
                cwd: raw.cwd,
            }
        }
        (None, Some(url)) => {
            let stdio_only: Vec<Cow<'_, str>> = [
                raw.args.is_some().then_some("args".into()),
                raw.env.is_some().then_some("env".into()),
                raw.cwd.is_some().then_some("cwd".into()),
            ]
            .into_iter()
            .flatten()
            .collect();
            if !stdio_only.is_empty() {
                return Err(format!(
                    "`{}` only applies to stdio servers (with `command`), not to `url`",
                    stdio_only.join("`, `")
                ));
            }
            let mut headers = raw.headers.unwrap_or_default();
            if let Some(token) = raw.bearer_token {
                if headers
                    .keys()
                    .any(|k| k.eq_ignore_ascii_case("authorization"))
                {
                    return Err(
                        "has both `bearer_token` and an `Authorization` header; keep one"
                            .to_owned(),
                    );
                }
                headers.insert("Authorization".to_owned(), format!("Bearer {token}"));
            }
            Transport::Http {
                url,
                headers: secrets(headers),
            }
        }
    };
    let spec = ServerSpec {
        transport,
        call_timeout: seconds("timeout_sec", raw.timeout_sec, DEFAULT_CALL_TIMEOUT)?,
        startup_timeout: seconds(
            "startup_timeout_sec",
            raw.startup_timeout_sec,
            DEFAULT_STARTUP_TIMEOUT,
        )?,
        reconnect: raw.reconnect.unwrap_or(true),
    };
    check_spec(&spec)?;
    Ok(spec)
}
