//! `cardgen mcp lock [--check] [DIR]`: pin the MCP tools of the servers in
//! the configuration beside the cards (`hookwire.yaml`) in `hookwire.lock`,
//! or compare the lock with the live servers.
//!
//! Every server of the configuration is started (in parallel) and its
//! tools listed; the lock keeps each tool's description (as a digest), input
//! schema and annotations ([`McpLock`]). Writing again keeps the lock's
//! `on_change`.
//!
//! ```no_run
//! use std::path::Path;
//!
//! let written = hookwire_codegen::mcp_lock::write(Path::new("cards"))?;
//! println!("{}", written.display());
//! let drift = hookwire_codegen::mcp_lock::check(Path::new("cards"))?;
//! assert!(drift.is_empty(), "the servers changed: {drift:?}");
//! # Ok::<(), String>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cards::SERVER_CONFIG_FILES;
use crate::spec::{
    DriftKind, LOCK_FILE, LockedTool, McpLock, ServerEntry, ToolDrift, check_server_file_key,
    parse_server_entry,
};
use crate::yaml::{self, Yaml};

mod client;

/// Lists every server's tools and writes the lock beside the
/// configuration of `dir`; returns the lock's path.
pub fn write(dir: &Path) -> Result<PathBuf, String> {
    let (config, servers) = read_config(dir)?;
    let path = config.with_file_name(LOCK_FILE);
    let mut lock = match std::fs::read_to_string(&path) {
        Ok(text) => McpLock::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?,
        Err(_) => McpLock::default(),
    };
    lock.servers = live(&config, servers)?;
    std::fs::write(&path, lock.to_text())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// Every difference between the lock beside the configuration of `dir` and
/// the live servers: changed, new and missing tools, and servers the lock
/// does not have (or has and the configuration no longer declares).
pub fn check(dir: &Path) -> Result<Vec<ToolDrift>, String> {
    let (config, servers) = read_config(dir)?;
    let path = config.with_file_name(LOCK_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "cannot read {}: {e} (write it with `cardgen mcp lock`)",
            path.display()
        )
    })?;
    let lock = McpLock::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let live = live(&config, servers)?;
    let mut out = Vec::new();
    for (server, tools) in &live {
        out.extend(lock.check_server(server, tools));
    }
    for (server, tools) in lock.servers.iter().filter(|(s, _)| !live.contains_key(*s)) {
        out.extend(
            tools
                .keys()
                .map(|tool| ToolDrift::new(server, tool, DriftKind::Missing)),
        );
    }
    Ok(out)
}

/// The configuration file of `dir` and its servers, read as the runtime
/// reads them.
fn read_config(dir: &Path) -> Result<(PathBuf, Vec<(String, ServerEntry)>), String> {
    let Some(config) = SERVER_CONFIG_FILES
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
    else {
        return Err(format!(
            "{} has no server configuration ({})",
            dir.display(),
            SERVER_CONFIG_FILES.join(", ")
        ));
    };
    let shown = config.display();
    let text = std::fs::read_to_string(&config).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let top = match yaml::parse(&text) {
        Ok(Yaml::Map(top)) => top,
        Ok(Yaml::Null) => Vec::new(),
        Ok(other) => {
            return Err(format!(
                "{shown}: expected `servers:`, found {}",
                other.kind()
            ));
        }
        Err(e) => return Err(format!("{shown}:{}:{}: {}", e.line, e.col, e.message)),
    };
    let mut servers = Vec::new();
    for (key, value) in top {
        check_server_file_key(&key).map_err(|e| format!("{shown}: {e}"))?;
        let Yaml::Map(entries) = value else {
            continue;
        };
        for (name, entry) in entries {
            let entry = parse_server_entry(&name, entry.to_json())
                .map_err(|e| format!("{shown}: server `{name}`: {e} (see `cardgen check`)"))?;
            servers.push((name, entry));
        }
    }
    Ok((config, servers))
}

/// Every server's tools now, by server name.
fn live(
    config: &Path,
    servers: Vec<(String, ServerEntry)>,
) -> Result<BTreeMap<String, BTreeMap<String, LockedTool>>, String> {
    let base = config.parent().map(Path::to_owned).unwrap_or_default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async move {
        let env = |name: &str| std::env::var(name).ok();
        let listed = servers.iter().map(|(name, entry)| {
            let base = &base;
            async move {
                let tools = client::list(entry, base, &env)
                    .await
                    .map_err(|e| format!("server `{name}`: {e}"))?;
                Ok::<_, String>((name.clone(), tools))
            }
        });
        let mut out = BTreeMap::new();
        for done in futures_util::future::join_all(listed).await {
            let (name, tools) = done?;
            out.insert(name, tools);
        }
        Ok(out)
    })
}
