//! Real MCP servers for the tests: the npm packages pinned in tests/mcp-servers (installed with
//! `npm ci --prefix tests/mcp-servers`), and looking at processes through /proc.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tandem_mcp::{
    CancellationToken, EnvVariable, HttpServerConfig, McpHub, McpServerConfig, ServerState,
    Startup, StdioServerConfig,
};

pub fn servers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp-servers")
}

/// An installed server binary; fails the test, saying what to run, when it is missing.
pub fn bin(name: &str) -> String {
    let path = servers_dir().join("node_modules/.bin").join(name);
    assert!(
        path.exists(),
        "{} is missing: the MCP test servers are not installed. Run `npm ci --prefix tests/mcp-servers` \
         from the repository root (needs Node 20 or later).",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

pub fn stdio(name: &str, command: &str, args: &[&str]) -> McpServerConfig {
    McpServerConfig::Stdio(StdioServerConfig {
        name: name.into(),
        command: command.into(),
        args: args.iter().map(|a| a.to_string()).collect(),
        env: vec![EnvVariable {
            name: "NODE_NO_WARNINGS".into(),
            value: "1".into(),
        }],
        startup: Startup::Lazy,
        cwd: None,
        sandbox: None,
        network: None,
        walls: None,
    })
}

pub fn everything(name: &str) -> McpServerConfig {
    stdio(name, &bin("mcp-server-everything"), &["stdio"])
}

/// tests/mcp-servers/test-server.mjs: `add-tool`, `flood`, `pid`, `spawn-child`.
pub fn test_server(name: &str) -> McpServerConfig {
    bin("mcp-server-everything"); // the same install provides the SDK it imports
    let script = servers_dir().join("test-server.mjs");
    stdio(name, "node", &[&script.to_string_lossy()])
}

/// The test server that ignores the end of its stdin: only a signal stops it.
pub fn lingering_test_server(name: &str) -> McpServerConfig {
    let mut config = test_server(name);
    if let McpServerConfig::Stdio(stdio) = &mut config {
        stdio.env.push(EnvVariable {
            name: "TANDEM_TEST_LINGER".into(),
            value: "1".into(),
        });
    }
    config
}

/// The process-wide TLS crypto provider, which `tandem`'s main installs at start-up and the
/// libraries assume (once; later calls are no-ops).
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// An HTTP server's settings (and the crypto provider its client takes).
pub fn http(name: &str, url: &str) -> McpServerConfig {
    install_crypto_provider();
    McpServerConfig::Http(HttpServerConfig {
        name: name.into(),
        url: url.into(),
        headers: vec![],
        startup: Startup::Lazy,
    })
}

pub const CALL: Duration = Duration::from_secs(30);

/// The bound on a wait for something that must happen (a process gone, a notification): only
/// turns a hang into a failure, so it is long enough for a loaded machine.
pub const SAFETY: Duration = Duration::from_secs(60);

pub async fn call(hub: &McpHub, name: &str, args: serde_json::Value) -> tandem_mcp::McpCallResult {
    hub.call_tool(name, args, CALL, &CancellationToken::new())
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub async fn pid_of(hub: &McpHub, server: &str) -> u32 {
    for status in hub.status().await {
        if status.name == server
            && let ServerState::Running { pid: Some(pid), .. } = status.state
        {
            return pid;
        }
    }
    panic!("{server} is not running: {:?}", hub.status().await)
}

/// Whether a process exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat_field(&stat, 0).is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// Live processes whose process group is `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let state = stat_field(&stat, 0);
        let pgrp = stat_field(&stat, 2).and_then(|s| s.parse::<u32>().ok());
        if pgrp == Some(pgid) && state.is_some_and(|s| s != "Z" && s != "X") {
            out.push(pid);
        }
    }
    out
}

/// Fields of /proc/PID/stat after the command name (which may hold spaces): 0 is the state,
/// 1 the parent, 2 the process group.
fn stat_field(stat: &str, index: usize) -> Option<&str> {
    stat.rsplit_once(')')?.1.split_whitespace().nth(index)
}

pub async fn wait_until(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < timeout,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub fn kill(pid: u32) {
    // SAFETY: a plain syscall.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
}

/// The TCP ports process `pid` listens on (IPv4 and IPv6), from /proc.
pub fn listening_ports(pid: u32) -> Vec<u16> {
    let sockets: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .filter_map(|target| {
                    let target = target.to_string_lossy().into_owned();
                    let inode = target.strip_prefix("socket:[")?.strip_suffix(']')?;
                    Some(inode.to_owned())
                })
                .collect()
        })
        .unwrap_or_default();
    let mut ports = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
        for fields in text
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
        {
            let (Some(local), Some(state), Some(inode)) =
                (fields.get(1), fields.get(3), fields.get(9))
            else {
                continue;
            };
            const LISTEN: &str = "0A";
            if *state == LISTEN && sockets.iter().any(|s| s == inode) {
                let port = local
                    .rsplit_once(':')
                    .and_then(|(_, p)| u16::from_str_radix(p, 16).ok());
                ports.extend(port);
            }
        }
    }
    ports
}
