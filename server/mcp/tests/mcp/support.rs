//! Real MCP servers for the tests: the npm packages pinned in tests/mcp-servers (installed with
//! `npm ci --prefix tests/mcp-servers`), and looking at processes through /proc.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

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

/// An HTTP server's settings (and the crypto provider its client takes).
pub fn http(name: &str, url: &str) -> McpServerConfig {
    tandem_test_support::install_crypto_provider();
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

pub use tandem_test_support::process::{alive, group_members, kill, listening_ports};

/// Polls `done` until it holds, `timeout` being the safety net.
pub use tandem_test_support::wait::wait_until;
