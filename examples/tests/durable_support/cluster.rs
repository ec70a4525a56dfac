//! A three-node Restate cluster on loopback, started from the repository's
//! own deployment files (`deploy/restate-{1,2,3}.toml`): each node reads
//! its file, and `RESTATE_*` variables move what one machine cannot share
//! (ports, addresses, the metadata servers' list) and nothing else, as
//! docs/durable.md's "A cluster" documents. Data folders are
//! temporary; every node is killed on drop.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hookwire::durable::DurableClient;

use super::{Proc, free_port, server_binary, wait_listening, workspace_root};

/// One node: its process (if running), ports and data folder.
pub struct Node {
    proc: Proc,
    /// Its number, 1 to 3 (`deploy/restate-<n>.toml`).
    pub n: usize,
    /// Its ingress, `http://127.0.0.1:<port>`.
    pub ingress: String,
    /// Its admin API.
    pub admin: String,
    /// Its node-to-node port (and `/metrics`).
    pub fabric: u16,
    ingress_port: u16,
    admin_port: u16,
    data: PathBuf,
}

/// Three nodes, replicated metadata, logs and partitions on two nodes
/// each (the deploy files' settings).
pub struct Cluster {
    pub nodes: Vec<Node>,
    metadata: String,
    /// Extra `RESTATE_*` settings for every node.
    env: Vec<(String, String)>,
    _data: tempfile::TempDir,
}

/// The deploy file of node `n`.
pub fn config_file(n: usize) -> PathBuf {
    workspace_root().join(format!("deploy/restate-{n}.toml"))
}

impl Cluster {
    /// Starts the three nodes and waits until each serves and a partition
    /// has a leader. One partition (`RESTATE_DEFAULT_NUM_PARTITIONS=1`,
    /// the deploy files have 24), so that "the sessions' partition" is one
    /// and its leader is known.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// [`start`](Self::start) with more `RESTATE_*` settings.
    pub fn start_with(env: &[(&str, &str)]) -> Self {
        let data = tempfile::tempdir().unwrap();
        let nodes: Vec<Node> = (1..=3)
            .map(|n| Node {
                proc: Proc(None),
                n,
                ingress: String::new(),
                admin: String::new(),
                fabric: free_port(),
                ingress_port: free_port(),
                admin_port: free_port(),
                data: data.path().join(format!("restate-{n}")),
            })
            .map(|mut node| {
                node.ingress = format!("http://127.0.0.1:{}", node.ingress_port);
                node.admin = format!("http://127.0.0.1:{}", node.admin_port);
                node
            })
            .collect();
        let metadata = format!(
            "[{}]",
            nodes
                .iter()
                .map(|n| format!("http://127.0.0.1:{}/", n.fabric))
                .collect::<Vec<_>>()
                .join(",")
        );
        let mut cluster = Self {
            nodes,
            metadata,
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            _data: data,
        };
        for i in 0..3 {
            cluster.spawn(i);
        }
        for i in 0..3 {
            cluster.wait_serving(i);
        }
        cluster.wait_leader();
        cluster
    }

    /// Starts node `i` (0-based) from its deploy file.
    fn spawn(&mut self, i: usize) {
        let node = &self.nodes[i];
        let mut child = Command::new(server_binary())
            .arg("--no-logo")
            .arg("--config-file")
            .arg(config_file(node.n))
            .arg("--base-dir")
            .arg(&node.data)
            .env("RESTATE_LISTEN_MODE", "tcp")
            .env("RESTATE_BIND_ADDRESS", format!("127.0.0.1:{}", node.fabric))
            .env(
                "RESTATE_ADVERTISED_ADDRESS",
                format!("http://127.0.0.1:{}/", node.fabric),
            )
            .env("RESTATE_METADATA_CLIENT__ADDRESSES", &self.metadata)
            .env(
                "RESTATE_INGRESS__BIND_ADDRESS",
                format!("127.0.0.1:{}", node.ingress_port),
            )
            .env(
                "RESTATE_INGRESS__ADVERTISED_INGRESS_ENDPOINT",
                format!("{}/", node.ingress),
            )
            .env(
                "RESTATE_ADMIN__BIND_ADDRESS",
                format!("127.0.0.1:{}", node.admin_port),
            )
            .env(
                "RESTATE_ADMIN__ADVERTISED_ADMIN_ENDPOINT",
                format!("{}/", node.admin),
            )
            .env("RESTATE_DEFAULT_NUM_PARTITIONS", "1")
            .env("RESTATE_LOG_FILTER", "warn")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_listening(
            ([127, 0, 0, 1], node.fabric).into(),
            "restate-server",
            &mut child,
        );
        self.nodes[i].proc = Proc(Some(child));
    }

    /// Waits until node `i`'s ingress and admin API answer their health
    /// checks.
    fn wait_serving(&self, i: usize) {
        let node = &self.nodes[i];
        let deadline = Instant::now() + Duration::from_secs(60);
        for url in [
            format!("{}/restate/health", node.ingress),
            format!("{}/health", node.admin),
        ] {
            while !http_ok(&url) {
                assert!(
                    Instant::now() < deadline,
                    "node {} is not healthy: {url}",
                    node.n
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    /// SIGKILLs node `i` (0-based).
    pub fn kill(&mut self, i: usize) {
        self.nodes[i].proc.kill();
    }

    /// Starts node `i` again on its ports and data, and waits until it
    /// serves.
    pub fn restart(&mut self, i: usize) {
        self.spawn(i);
        self.wait_serving(i);
    }

    /// The node (0-based) that leads the partition, as its `/metrics`
    /// say (`restate_num_active_partition_leaders`); `None` while none
    /// does (a failover).
    pub fn leader(&self) -> Option<usize> {
        self.nodes.iter().position(|node| {
            node.proc.pid() != 0
                && metrics(node.fabric).lines().any(|l| {
                    l.starts_with("restate_num_active_partition_leaders{") && l.ends_with(" 1")
                })
        })
    }

    /// Waits until a node leads the partition; which one.
    pub fn wait_leader(&self) -> usize {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(i) = self.leader() {
                return i;
            }
            assert!(Instant::now() < deadline, "no partition leader");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A client of every node's ingress, node 1's first.
    pub fn client(&self) -> DurableClient {
        DurableClient::with_ingresses(self.nodes.iter().map(|n| n.ingress.clone())).unwrap()
    }

    /// A client of the ingresses of `nodes` (0-based), in that order.
    pub fn client_of(&self, nodes: &[usize]) -> DurableClient {
        DurableClient::with_ingresses(nodes.iter().map(|&i| self.nodes[i].ingress.clone())).unwrap()
    }
}

/// `curl -sf url` succeeded.
fn http_ok(url: &str) -> bool {
    Command::new("curl")
        .args(["-sf", "-m", "2", "-o", "/dev/null", url])
        .status()
        .is_ok_and(|s| s.success())
}

/// The Prometheus text a node serves on its node-to-node port.
fn metrics(port: u16) -> String {
    Command::new("curl")
        .args([
            "-sf",
            "-m",
            "2",
            &format!("http://127.0.0.1:{port}/metrics"),
        ])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}
