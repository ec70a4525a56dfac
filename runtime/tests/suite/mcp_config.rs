//! The MCP server configuration file: what it accepts and how it rejects
//! bad entries.
#![cfg(feature = "mcp")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use hookwire::mcp::{
    ConfigError, DEFAULT_CALL_TIMEOUT, DEFAULT_STARTUP_TIMEOUT, McpConfig, ServerSpec, Transport,
};

const FULL: &str = r#"
servers:
  time:
    command: mcp-server-time
    args: ["--local-timezone", "UTC"]
    env: {LOG_LEVEL: warn}
    cwd: servers/time
    timeout_sec: 2.5
    startup_timeout_sec: 10
    reconnect: false
  everything:
    url: http://127.0.0.1:3001/mcp
"#;

#[test]
fn a_full_file_parses_in_declared_order() {
    let config = McpConfig::from_yaml(FULL).unwrap();
    assert_eq!(config.names().collect::<Vec<_>>(), ["time", "everything"]);
    let time = config.get("time").unwrap();
    assert_eq!(
        time.transport,
        Transport::Stdio {
            command: "mcp-server-time".into(),
            args: vec!["--local-timezone".into(), "UTC".into()],
            env: BTreeMap::from([("LOG_LEVEL".into(), "warn".into())]),
            cwd: Some(PathBuf::from("servers/time")),
        }
    );
    assert_eq!(time.call_timeout, Duration::from_millis(2500));
    assert_eq!(time.startup_timeout, Duration::from_secs(10));
    assert!(!time.reconnect);
    let everything = config.get("everything").unwrap();
    assert_eq!(
        everything.transport,
        Transport::Http {
            url: "http://127.0.0.1:3001/mcp".into(),
            headers: Default::default(),
        }
    );
    assert_eq!(everything.call_timeout, DEFAULT_CALL_TIMEOUT);
    assert_eq!(everything.startup_timeout, DEFAULT_STARTUP_TIMEOUT);
    assert!(everything.reconnect);
}

#[test]
fn json_gives_the_same_configuration() {
    let json = r#"{"servers": {
        "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"],
                 "env": {"LOG_LEVEL": "warn"}, "cwd": "servers/time",
                 "timeout_sec": 2.5, "startup_timeout_sec": 10, "reconnect": false},
        "everything": {"url": "http://127.0.0.1:3001/mcp"}}}"#;
    // JSON keeps the declared order too.
    assert_eq!(
        McpConfig::from_json(json).unwrap(),
        McpConfig::from_yaml(FULL).unwrap()
    );
}

#[test]
fn the_builder_matches_the_file() {
    let built = McpConfig::new()
        .with_server(
            "time",
            ServerSpec::stdio("mcp-server-time")
                .args(["--local-timezone", "UTC"])
                .env("LOG_LEVEL", "warn")
                .cwd("servers/time")
                .call_timeout(Duration::from_millis(2500))
                .startup_timeout(Duration::from_secs(10))
                .reconnect(false),
        )
        .unwrap()
        .with_server("everything", ServerSpec::http("http://127.0.0.1:3001/mcp"))
        .unwrap();
    assert_eq!(built, McpConfig::from_yaml(FULL).unwrap());
}

fn err(yaml: &str) -> ConfigError {
    McpConfig::from_yaml(yaml).unwrap_err()
}

#[test]
fn every_bad_entry_is_named() {
    let cases = [
        (
            "servers:\n  time:\n    comand: x\n",
            "time",
            "server `time`: unknown key `comand` in a server entry (did you mean `command`?); expected one of: command, args, env, cwd, url, headers, bearer_token, timeout_sec, startup_timeout_sec, reconnect",
        ),
        (
            "servers:\n  both:\n    command: x\n    url: http://h/mcp\n",
            "both",
            "server `both`: has both `command` and `url`; a server is either stdio (`command`) or streamable HTTP (`url`)",
        ),
        (
            "servers:\n  none:\n    args: [a]\n",
            "none",
            "server `none`: has neither `command` (stdio) nor `url` (streamable HTTP)",
        ),
        (
            "servers:\n  web:\n    url: http://h/mcp\n    env: {A: b}\n",
            "web",
            "server `web`: `env` only applies to stdio servers (with `command`), not to `url`",
        ),
        (
            "servers:\n  web:\n    url: ftp://h/mcp\n",
            "web",
            "server `web`: `url` must start with http:// or https://, got `ftp://h/mcp`",
        ),
        (
            "servers:\n  slow:\n    command: x\n    timeout_sec: 0\n",
            "slow",
            "server `slow`: `timeout_sec` must be a positive number of seconds, got 0",
        ),
        (
            "servers:\n  slow:\n    command: x\n    timeout_sec: soon\n",
            "slow",
            "server `slow`: invalid type: string \"soon\", expected f64",
        ),
        (
            "servers:\n  a__b:\n    command: x\n",
            "a__b",
            "server `a__b`: a server name must not contain `__` (it separates server and tool in `server__tool`)",
        ),
        (
            "servers:\n  my.server:\n    command: x\n",
            "my.server",
            "server `my.server`: invalid character '.' in the server name (allowed: ASCII letters, digits, `-`, `_`)",
        ),
        (
            "servers:\n  time: mcp-server-time\n",
            "time",
            "server `time`: expected a map with `command` (stdio) or `url` (streamable HTTP)",
        ),
        (
            "servers:\n  time:\n    command: ''\n",
            "time",
            "server `time`: `command` must not be empty",
        ),
    ];
    for (yaml, server, message) in cases {
        let e = err(yaml);
        assert_eq!(e.server(), Some(server), "{yaml}");
        assert_eq!(e.to_string(), message, "{yaml}");
    }
}

#[test]
fn syntax_errors_have_a_position() {
    let e = err("servers:\n  time: [unclosed\n");
    assert!(
        matches!(e, ConfigError::Syntax { line: Some(_), .. }),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("line "), "{e}");
    let e = err("services:\n  time:\n    command: x\n");
    assert_eq!(
        e.to_string(),
        "invalid MCP server configuration: unknown key `services` in the server configuration; \
         expected one of: servers, coverage"
    );
    let e = McpConfig::from_json("{\"servers\": ").unwrap_err();
    assert!(
        matches!(e, ConfigError::Syntax { line: Some(1), .. }),
        "{e:?}"
    );
}

#[test]
fn an_empty_file_has_no_servers() {
    assert_eq!(
        McpConfig::from_yaml("servers:\n").unwrap(),
        McpConfig::new()
    );
    assert_eq!(McpConfig::from_yaml("{}").unwrap(), McpConfig::new());
}

#[test]
fn select_keeps_the_agents_servers_and_names_unknown_ones() {
    let config = McpConfig::from_yaml(FULL).unwrap();
    let picked = config.select(["everything"]).unwrap();
    assert_eq!(picked.names().collect::<Vec<_>>(), ["everything"]);
    assert!(config.contains("time") && !config.contains("tiem"));
    let e = config.select(["everything", "tiem"]).unwrap_err();
    assert_eq!(e.server(), Some("tiem"));
    assert_eq!(
        e.to_string(),
        "server `tiem`: not declared in the server configuration (declared: time, everything)"
    );
}

#[test]
fn files_resolve_relative_cwd_and_name_themselves_in_errors() {
    let dir = std::env::temp_dir().join(format!("hookwire-mcp-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("hookwire.yaml");
    std::fs::write(&good, FULL).unwrap();
    let config = McpConfig::load(&good).unwrap();
    match &config.get("time").unwrap().transport {
        Transport::Stdio { cwd, .. } => {
            assert_eq!(cwd.as_deref(), Some(&*dir.join("servers/time")))
        }
        other => panic!("{other:?}"),
    }
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"servers": {"x": {"url": "nope"}}}"#).unwrap();
    let e = McpConfig::load(&bad).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: server `x`: `url` must start with http:// or https://, got `nope`",
            bad.display()
        )
    );
    let missing = McpConfig::load(dir.join("missing.yaml")).unwrap_err();
    assert!(matches!(missing, ConfigError::Io { .. }), "{missing:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn headers_are_read_as_written_and_checked() {
    let config = McpConfig::from_yaml(
        "servers:\n  github:\n    url: https://example.test/mcp\n    bearer_token: ${GH_TOKEN}\n    headers: {X-Team: blue}\n",
    )
    .unwrap();
    assert_eq!(
        config.get("github").unwrap().transport,
        Transport::Http {
            url: "https://example.test/mcp".into(),
            headers: BTreeMap::from([
                ("Authorization".to_owned(), "Bearer ${GH_TOKEN}".into()),
                ("X-Team".to_owned(), "blue".into()),
            ]),
        }
    );
    let bad = [
        (
            "servers:\n  t:\n    command: x\n    headers: {A: b}\n",
            "server `t`: `headers` only applies to streamable HTTP servers (with `url`), not to `command`",
        ),
        (
            "servers:\n  t:\n    url: http://h/mcp\n    bearer_token: x\n    headers: {authorization: y}\n",
            "server `t`: has both `bearer_token` and an `Authorization` header; keep one",
        ),
        (
            "servers:\n  t:\n    url: http://h/mcp\n    headers: {Mcp-Session-Id: y}\n",
            "server `t`: header `Mcp-Session-Id` is set by the MCP transport itself and cannot be configured",
        ),
        (
            "servers:\n  t:\n    url: http://h/mcp\n    headers: {A: \"Bearer ${TOKEN\"}\n",
            "server `t`: header `A`: unclosed `${` in the value: write `${NAME}`, or `$${` for a literal `${`",
        ),
    ];
    for (yaml, expected) in bad {
        assert_eq!(err(yaml).to_string(), expected, "{yaml}");
    }
}
