//! One server entry of the configuration file, as written and as checked:
//! the raw document (servers in their order), and a raw entry made a
//! [`ServerSpec`] by the spec's reading (`hookwire_spec::parse_server_entry`,
//! which `cardgen check` runs on the same file).

use std::collections::BTreeMap;
use std::fmt;

use hookwire_spec::{EntryTransport, ServerEntry};
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::Value;

use super::{ServerSpec, Transport};
use crate::secret::Secret;

/// A map's values as secrets.
fn secrets(map: BTreeMap<String, String>) -> BTreeMap<String, Secret> {
    map.into_iter().map(|(k, v)| (k, Secret::from(v))).collect()
}

/// A map of secrets as the spec's checks read it (the values stay in this
/// process: the checks' errors name keys, never values).
fn exposed(map: &BTreeMap<String, Secret>) -> BTreeMap<String, String> {
    map.iter()
        .map(|(k, v)| (k.clone(), v.expose().to_owned()))
        .collect()
}

/// The document as written: `servers:` as an ordered list of raw entries,
/// and any other top-level key (each an error,
/// `hookwire_spec::check_server_file_key`).
#[derive(Deserialize)]
pub(super) struct RawFile {
    #[serde(default)]
    pub(super) servers: Ordered,
    #[serde(flatten)]
    pub(super) other: BTreeMap<String, Value>,
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

/// Checks a server name: non-empty, `[A-Za-z0-9_-]`, no `__` (the
/// spec's rule, which `cardgen check` applies too).
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    hookwire_spec::check_server_name(name)
}

/// Checks a server entry built in code as a read one is checked.
pub(super) fn check_spec(spec: &ServerSpec) -> Result<(), String> {
    to_entry(spec).check()
}

/// A server as the spec's entry (what its checks read).
fn to_entry(spec: &ServerSpec) -> ServerEntry {
    let transport = match &spec.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => EntryTransport::Stdio {
            command: command.clone(),
            args: args.clone(),
            env: exposed(env),
            cwd: cwd.clone(),
        },
        Transport::Http { url, headers } => EntryTransport::Http {
            url: url.clone(),
            headers: exposed(headers),
        },
    };
    ServerEntry::new(
        transport,
        spec.call_timeout,
        spec.startup_timeout,
        spec.reconnect,
    )
}

/// A server entry as a checked [`ServerSpec`]: read and checked by the
/// spec (`hookwire_spec::parse_server_entry`, what `cardgen check` runs on
/// the same file); the error says what is wrong with it (the caller names
/// the entry).
pub(super) fn parse_server(name: &str, value: Value) -> Result<ServerSpec, String> {
    let entry = hookwire_spec::parse_server_entry(name, value)?;
    let transport = match entry.transport {
        EntryTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => Transport::Stdio {
            command,
            args,
            env: secrets(env),
            cwd,
        },
        EntryTransport::Http { url, headers } => Transport::Http {
            url,
            headers: secrets(headers),
        },
        _ => return Err("a transport this version does not know".to_owned()),
    };
    Ok(ServerSpec {
        transport,
        call_timeout: entry.call_timeout,
        startup_timeout: entry.startup_timeout,
        reconnect: entry.reconnect,
    })
}
