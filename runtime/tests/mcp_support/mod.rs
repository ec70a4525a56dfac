//! Finding the real MCP servers that `.ci/run` installs.
//!
//! `.ci/run` installs them into `target/mcp/` (a Python venv with
//! `mcp-server-time` and `mcp`, and an npm prefix with
//! `@modelcontextprotocol/server-everything` and `server-filesystem`) and
//! exports `HOOKWIRE_MCP_VENV` and `HOOKWIRE_MCP_NODE`. A test that needs a
//! server that is not there fails with a message saying how to install it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_owned)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The venv holding `mcp-server-time` and the Python `mcp` client.
pub fn venv() -> PathBuf {
    std::env::var_os("HOOKWIRE_MCP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/mcp/venv"))
}

/// The npm prefix holding the Node MCP servers.
pub fn node_prefix() -> PathBuf {
    std::env::var_os("HOOKWIRE_MCP_NODE")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/mcp/node"))
}

const INSTALL: &str = "run `.ci/run` (it installs every MCP test server), or by hand from the repository root:\n  \
    python3 -m venv target/mcp/venv && target/mcp/venv/bin/pip install mcp-server-time mcp\n  \
    npm install --prefix target/mcp/node @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem\n\
    (or point HOOKWIRE_MCP_VENV / HOOKWIRE_MCP_NODE at existing installs)";

fn require(path: PathBuf, what: &str) -> String {
    if !path.exists() {
        panic!(
            "the real MCP server `{what}` is not installed (looked for {}); {INSTALL}",
            path.display()
        );
    }
    path.to_string_lossy().into_owned()
}

/// `mcp-server-time` (PyPI).
pub fn time_server() -> String {
    require(venv().join("bin/mcp-server-time"), "mcp-server-time")
}

/// The venv's Python, which has the `mcp` client.
pub fn python() -> String {
    require(venv().join("bin/python"), "mcp (Python client)")
}

/// `mcp-server-everything` (npm).
pub fn everything_server() -> String {
    require(
        node_prefix().join("node_modules/.bin/mcp-server-everything"),
        "@modelcontextprotocol/server-everything",
    )
}

/// A fixture file under `runtime/tests/fixtures/mcp/`.
pub fn fixture(name: &str) -> PathBuf {
    workspace_root()
        .join("runtime/tests/fixtures/mcp")
        .join(name)
}

/// `mcp-server-filesystem` (npm).
pub fn filesystem_server() -> String {
    require(
        node_prefix().join("node_modules/.bin/mcp-server-filesystem"),
        "@modelcontextprotocol/server-filesystem",
    )
}
