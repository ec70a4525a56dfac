//! A real Restate server and the `durable_pmo` service as child processes,
//! on loopback only, with temporary data folders; both killed on drop.
//!
//! `.ci/run` installs the server into `target/restate/` (`.ci/install-restate`)
//! and exports `HOOKWIRE_RESTATE_SERVER`. A test that cannot find it fails
//! with a message saying how to install it.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod cluster;

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hookwire::durable::DurableClient;

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_owned)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The `restate-server` binary: `$HOOKWIRE_RESTATE_SERVER`, or the
/// platform package's binary under `target/restate/` (not the `.bin` node
/// wrapper, which would leave the server running when killed).
pub fn server_binary() -> PathBuf {
    let installed = || {
        let packages = workspace_root().join("target/restate/node_modules/@restatedev");
        std::fs::read_dir(&packages)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path().join("bin/restate-server"))
            .find(|path| {
                path.is_file()
                    && path
                        .to_string_lossy()
                        .contains("@restatedev/restate-server-")
            })
            .unwrap_or(packages)
    };
    let path = std::env::var_os("HOOKWIRE_RESTATE_SERVER")
        .map(PathBuf::from)
        .unwrap_or_else(installed);
    assert!(
        path.exists(),
        "the real Restate server is not installed (looked for {}); run `.ci/install-restate` \
         (or `.ci/run`), or point HOOKWIRE_RESTATE_SERVER at a restate-server 1.7.12",
        path.display()
    );
    path
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until `addr` accepts connections.
fn wait_listening(addr: SocketAddr, what: &str, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited before listening on {addr}: {status}");
        }
        assert!(Instant::now() < deadline, "{what} did not listen on {addr}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A child process killed (SIGKILL) and reaped on drop.
pub struct Proc(Option<Child>);

impl Proc {
    /// SIGKILL now.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.0.as_ref().map_or(0, Child::id)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A Restate server on loopback ports with a temporary data folder.
pub struct Server {
    proc: Proc,
    pub ingress: String,
    pub admin: String,
    _data: tempfile::TempDir,
}

impl Server {
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// [`start`](Self::start) with more environment variables (a request
    /// identity key: `RESTATE_REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE`).
    pub fn start_with(env: &[(&str, &str)]) -> Self {
        let data = tempfile::tempdir().unwrap();
        let (ingress, admin, node) = (free_port(), free_port(), free_port());
        let mut child = Command::new(server_binary())
            .args(["--no-logo", "--node-name", "hookwire-test"])
            .arg("--base-dir")
            .arg(data.path())
            // Loopback only: listen and advertise 127.0.0.1, TCP only.
            .env("RESTATE_LISTEN_MODE", "tcp")
            .env("RESTATE_BIND_IP", "127.0.0.1")
            .env("RESTATE_ADVERTISED_HOST", "127.0.0.1")
            .env("RESTATE_BIND_ADDRESS", format!("127.0.0.1:{node}"))
            .env(
                "RESTATE_ADVERTISED_ADDRESS",
                format!("http://127.0.0.1:{node}/"),
            )
            .env(
                "RESTATE_INGRESS__BIND_ADDRESS",
                format!("127.0.0.1:{ingress}"),
            )
            .env(
                "RESTATE_INGRESS__ADVERTISED_INGRESS_ENDPOINT",
                format!("http://127.0.0.1:{ingress}/"),
            )
            .env("RESTATE_ADMIN__BIND_ADDRESS", format!("127.0.0.1:{admin}"))
            .env(
                "RESTATE_ADMIN__ADVERTISED_ADMIN_ENDPOINT",
                format!("http://127.0.0.1:{admin}/"),
            )
            .env("RESTATE_DEFAULT_NUM_PARTITIONS", "1")
            .env("RESTATE_LOG_FILTER", "warn")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_listening(
            ([127, 0, 0, 1], ingress).into(),
            "restate-server",
            &mut child,
        );
        wait_listening(([127, 0, 0, 1], admin).into(), "restate-server", &mut child);
        let server = Self {
            proc: Proc(Some(child)),
            ingress: format!("http://127.0.0.1:{ingress}"),
            admin: format!("http://127.0.0.1:{admin}"),
            _data: data,
        };
        server.wait_healthy();
        server
    }

    fn wait_healthy(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let url = format!("{}/restate/health", self.ingress);
        loop {
            let ok = Command::new("curl")
                .args(["-sf", "-o", "/dev/null", &url])
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return;
            }
            assert!(Instant::now() < deadline, "restate-server is not healthy");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn client(&self) -> DurableClient {
        DurableClient::new(&self.ingress).unwrap()
    }

    /// A client, once the service listening on `port` is registered.
    pub async fn registered_client(&self, port: u16) -> DurableClient {
        let client = self.client();
        client
            .register(&self.admin, &format!("http://127.0.0.1:{port}"))
            .await
            .unwrap();
        client
    }
}

/// The `durable_pmo` service (the example binary) on `port`, writing its
/// side effects to `ledger`.
pub struct Service {
    pub proc: Proc,
}

pub struct ServiceSpec<'a> {
    pub port: u16,
    pub ledger: &'a Path,
    pub script: Option<&'a Path>,
    pub delay_ms: u64,
    pub reuse_port: bool,
    pub timeout_ms: Option<u64>,
}

impl Service {
    pub fn start(spec: &ServiceSpec<'_>) -> Self {
        Self::start_with(spec, &[])
    }

    /// [`start`](Self::start) with more environment variables.
    pub fn start_with(spec: &ServiceSpec<'_>, env: &[(&str, &str)]) -> Self {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_durable_pmo"));
        cmd.args(["--listen", &format!("127.0.0.1:{}", spec.port)])
            .env("DURABLE_PMO_LEDGER", spec.ledger)
            .env("DURABLE_PMO_TOOL_DELAY_MS", spec.delay_ms.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(script) = spec.script {
            cmd.arg("--script").arg(script);
        }
        if spec.reuse_port {
            cmd.arg("--reuse-port");
        }
        if let Some(ms) = spec.timeout_ms {
            cmd.env("DURABLE_PMO_TOOL_TIMEOUT_MS", ms.to_string());
        }
        cmd.envs(env.iter().copied());
        let mut child = cmd.spawn().unwrap();
        wait_listening(
            ([127, 0, 0, 1], spec.port).into(),
            "durable_pmo",
            &mut child,
        );
        Self {
            proc: Proc(Some(child)),
        }
    }
}

/// The ledger's lines without their `pid=` suffix, counted.
pub fn ledger_counts(ledger: &Path) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for line in ledger_lines(ledger) {
        *counts.entry(line.0).or_insert(0) += 1;
    }
    counts
}

/// The ledger's lines as (line without pid, pid).
pub fn ledger_lines(ledger: &Path) -> Vec<(String, u32)> {
    std::fs::read_to_string(ledger)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (line, pid) = l.rsplit_once(" pid=")?;
            Some((line.to_owned(), pid.parse().ok()?))
        })
        .collect()
}

/// Waits until the ledger has `line`; returns the pid that wrote it.
pub fn wait_ledger(ledger: &Path, line: &str) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some((_, pid)) = ledger_lines(ledger).into_iter().find(|(l, _)| l == line) {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "the ledger never had {line:?}: {:?}",
            ledger_lines(ledger)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A script of `n` steps, each one `project_status` call of `P1`..`Pn`,
/// then a final answer.
pub fn five_step_script(dir: &Path, n: usize) -> PathBuf {
    let mut yaml = String::from("name: steps\nturns:\n");
    for i in 1..=n {
        yaml.push_str(&format!(
            "  - text: \"step {i}\"\n    tool_calls:\n      - {{id: c{i}, name: project_status, arguments: {{project: P{i}}}}}\n"
        ));
    }
    yaml.push_str("  - text: \"all done\"\n");
    let path = dir.join("script.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}
