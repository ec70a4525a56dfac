//! The one module of `cardgen` that speaks MCP (`rmcp`): start a server
//! of the configuration (stdio or streamable HTTP), list its tools, close
//! it.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};

use crate::spec::{EntryTransport, HeaderPiece, LockedTool, ServerEntry, header_pieces};

/// The tools `entry` lists now, by name, as a lock pins them. `base` is
/// the configuration's folder (a relative `cwd` is under it); `env` looks
/// up a header's `${NAME}`.
pub(super) async fn list(
    entry: &ServerEntry,
    base: &Path,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<BTreeMap<String, LockedTool>, String> {
    let listed = tokio::time::timeout(entry.startup_timeout, tools(entry, base, env))
        .await
        .map_err(|_| {
            format!(
                "it did not start and list its tools within {} ms",
                entry.startup_timeout.as_millis()
            )
        })??;
    Ok(listed
        .iter()
        .map(|tool| {
            let description =
                crate::spec::model_description(tool.description.as_deref(), tool.title.as_deref());
            let locked = LockedTool::new(
                description,
                serde_json::Value::Object((*tool.input_schema).clone()),
                tool.annotations
                    .as_ref()
                    .and_then(|a| serde_json::to_value(a).ok()),
            );
            (tool.name.to_string(), locked)
        })
        .collect())
}

async fn tools(
    entry: &ServerEntry,
    base: &Path,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<Vec<rmcp::model::Tool>, String> {
    let service = match &entry.transport {
        EntryTransport::Stdio {
            command,
            args,
            env: vars,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args).envs(vars);
            if let Some(cwd) = cwd {
                cmd.current_dir(base.join(cwd));
            }
            let (transport, _) = TokioChildProcess::builder(cmd)
                .stderr(std::process::Stdio::null())
                .spawn()
                .map_err(|e| format!("cannot run `{command}`: {e}"))?;
            ().serve(transport).await.map_err(|e| e.to_string())?
        }
        EntryTransport::Http { url, headers } => {
            if rustls::crypto::CryptoProvider::get_default().is_none() {
                let _ = rustls::crypto::ring::default_provider().install_default();
            }
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(resolved(headers, env)?);
            let transport = StreamableHttpClientTransport::from_config(config);
            ().serve(transport)
                .await
                .map_err(|e| format!("cannot connect to `{url}`: {e}"))?
        }
        _ => return Err("this transport is not supported by `cardgen mcp lock`".to_owned()),
    };
    let listed = service
        .peer()
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"));
    let _ = service.cancel().await;
    listed
}

/// The headers with every `${NAME}` looked up; an unset one is an error
/// naming the header and the variable (never a value).
fn resolved(
    headers: &BTreeMap<String, String>,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<HashMap<http::HeaderName, http::HeaderValue>, String> {
    let mut out = HashMap::new();
    for (name, value) in headers {
        let mut text = String::new();
        for piece in header_pieces(value).map_err(|e| format!("header `{name}`: {e}"))? {
            match piece {
                HeaderPiece::Text(t) => text.push_str(t),
                HeaderPiece::Var(var) => text.push_str(&env(var).ok_or_else(|| {
                    format!("header `{name}`: the environment variable `{var}` is not set")
                })?),
            }
        }
        let header = http::HeaderName::try_from(name.as_str())
            .map_err(|e| format!("header `{name}`: {e}"))?;
        let value = http::HeaderValue::try_from(text)
            .map_err(|_| format!("header `{name}`: its value cannot be sent"))?;
        out.insert(header, value);
    }
    Ok(out)
}
