//! The walls around a stdio server (a project's, or one with `sandbox = true`), its environment,
//! and results too large to take.
// The walls and the test servers are Unix processes; the Windows build is type-checked only.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use tandem_mcp::{CancellationToken, HubOptions, McpHub, McpServerConfig, Walls};

use crate::support::stdio;

const CALL: Duration = Duration::from_secs(60);

fn tiny_server() -> PathBuf {
    crate::support::servers_dir().join("tiny_server.py")
}

fn tiny(name: &str) -> McpServerConfig {
    stdio(name, "python3", &[&tiny_server().to_string_lossy()])
}

async fn call(hub: &McpHub, tool: &str, arguments: serde_json::Value) -> String {
    match hub
        .call_tool(tool, arguments, CALL, &CancellationToken::new())
        .await
    {
        Ok(result) => result.text,
        Err(e) => format!("error: {e}"),
    }
}

/// A directory outside the workspace (and outside the temp directories, which a walled server
/// may write): beside the test's target directory.
fn outside_dir() -> tempfile::TempDir {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/walls-test");
    std::fs::create_dir_all(&base).unwrap();
    tempfile::tempdir_in(base).unwrap()
}

/// A project's server runs in the walls: it can write the workspace and not beyond, it can't
/// connect out, and its tools still work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_walled_server_writes_only_the_workspace_and_connects_nowhere() {
    if !tandem_sandbox::status().filesystem() || !tandem_sandbox::status().tcp() {
        eprintln!("skipped: this kernel's Landlock can't hold the walls");
        return;
    }
    let ws = outside_dir();
    let outside = outside_dir();
    let cache = outside_dir();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();

    let walled = |network: bool| {
        let mut config = tiny("t");
        if let McpServerConfig::Stdio(s) = &mut config {
            s.walls = Some(Walls {
                workspace: Some(ws.path().to_path_buf()),
                cache: cache.path().join("t"),
                network,
            });
        }
        config
    };
    let hub = McpHub::new(vec![walled(false)], HubOptions::default());
    assert!(
        call(&hub, "t__hello", json!({}))
            .await
            .starts_with("hello from")
    );
    let inside = ws.path().join("in.txt");
    assert_eq!(
        call(&hub, "t__write", json!({"path": inside, "text": "x"})).await,
        format!("wrote {}", inside.display())
    );
    let planted = outside.path().join("planted.txt");
    let answer = call(&hub, "t__write", json!({"path": planted, "text": "x"})).await;
    assert!(answer.starts_with("refused:"), "{answer}");
    assert!(!planted.exists());
    let answer = call(&hub, "t__connect", json!({"port": port})).await;
    assert!(answer.starts_with("refused:"), "{answer}");
    // Its caches are its own.
    assert_eq!(
        call(&hub, "t__env", json!({"name": "npm_config_cache"})).await,
        cache.path().join("t/npm").display().to_string()
    );
    hub.shutdown().await;

    // `network = true`: it connects.
    let hub = McpHub::new(vec![walled(true)], HubOptions::default());
    assert_eq!(
        call(&hub, "t__connect", json!({"port": port})).await,
        "connected"
    );
    hub.shutdown().await;

    // Unwalled (a user's server): as before.
    let hub = McpHub::new(vec![tiny("t")], HubOptions::default());
    let answer = call(&hub, "t__write", json!({"path": planted, "text": "x"})).await;
    assert_eq!(answer, format!("wrote {}", planted.display()));
    hub.shutdown().await;
}

/// No server gets the provider's keys from our environment (the usual names and the configured
/// key variable); one the user put in its config is its.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_do_not_get_the_provider_keys() {
    // SAFETY: this test binary's tests that read these variables are this one alone.
    unsafe {
        std::env::set_var("TANDEM_API_KEY", "sk-secret");
        std::env::set_var("MY_PROVIDER_KEY", "sk-other");
    }
    let mut given = tiny("given");
    if let McpServerConfig::Stdio(s) = &mut given {
        s.env.push(tandem_mcp::EnvVariable {
            name: "OPENAI_API_KEY".into(),
            value: "sk-the-users-own".into(),
        });
    }
    let options = HubOptions {
        key_var: Some("MY_PROVIDER_KEY".into()),
        ..HubOptions::default()
    };
    let hub = McpHub::new(vec![tiny("t"), given], options);
    assert_eq!(
        call(&hub, "t__env", json!({"name": "TANDEM_API_KEY"})).await,
        "(unset)"
    );
    assert_eq!(
        call(&hub, "t__env", json!({"name": "MY_PROVIDER_KEY"})).await,
        "(unset)"
    );
    assert_eq!(
        call(&hub, "given__env", json!({"name": "OPENAI_API_KEY"})).await,
        "sk-the-users-own"
    );
    hub.shutdown().await;
}

/// A result far past what can be taken is a clear error naming the sizes, not a piece of it
/// (before, a 100 MiB result came back cut with a note naming 6 MiB as its size).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_100_mib_result_is_an_error_that_names_the_sizes() {
    let hub = McpHub::new(vec![tiny("t")], HubOptions::default());
    let result = hub
        .call_tool(
            "t__big",
            json!({"mib": 100}),
            CALL,
            &CancellationToken::new(),
        )
        .await
        .expect("an answer");
    assert!(
        result.is_error,
        "{}",
        &result.text[..result.text.len().min(300)]
    );
    assert!(
        result
            .text
            .contains("a string of 104857600 bytes (100 MiB)")
            && result.text.contains("Ask the tool for less"),
        "{}",
        &result.text[..result.text.len().min(600)]
    );
    hub.shutdown().await;
}
