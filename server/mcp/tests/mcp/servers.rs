//! The hub against real MCP servers from npm (server-everything, server-filesystem) and a small
//! SDK server of ours (tests/mcp-servers/test-server.mjs). Needs `npm ci --prefix tests/mcp-servers`.
// The servers are Node.js scripts driven with Unix signals; Linux CI runs them.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;
use serde_json::json;
use tandem_mcp::{CancellationToken, HubOptions, McpError, McpHub, ServerState};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_stdio_lists_and_calls_tools() {
    let hub = McpHub::new(vec![everything("everything")], HubOptions::default());
    assert_eq!(
        hub.status().await[0].state,
        ServerState::NotStarted,
        "lazy: nothing before the first listing"
    );

    let list = hub.tools().await;
    assert!(list.problems.is_empty(), "{:?}", list.problems);
    let names: Vec<&str> = list
        .tools
        .iter()
        .map(|t| t.qualified_name.as_str())
        .collect();
    for expected in [
        "everything__echo",
        "everything__get-sum",
        "everything__get-tiny-image",
    ] {
        assert!(names.contains(&expected), "{expected} not in {names:?}");
    }
    let sum = list.tools.iter().find(|t| t.tool == "get-sum").unwrap();
    assert_eq!(sum.server, "everything");
    assert!(!sum.description.is_empty());
    assert_eq!(sum.input_schema["type"], "object");
    assert!(
        sum.input_schema["properties"]["a"].is_object(),
        "{}",
        sum.input_schema
    );

    let echo = call(
        &hub,
        "everything__echo",
        json!({"message": "hello from tandem"}),
    )
    .await;
    assert!(echo.text.contains("hello from tandem"), "{echo:?}");
    assert!(!echo.is_error && !echo.truncated);

    let sum = call(&hub, "everything__get-sum", json!({"a": 2, "b": 40})).await;
    assert!(sum.text.contains("42"), "{sum:?}");

    let image = call(&hub, "everything__get-tiny-image", json!({})).await;
    assert!(image.text.contains("[image: image/png, "), "{}", image.text);
    assert!(image.text.contains("bytes, not shown]"), "{}", image.text);
    assert!(image.text.len() < 2000, "the image data is not in the text");

    // A tool that fails: the server says so with isError, and the flag comes through.
    let failed = call(&hub, "everything__get-sum", json!({"a": "two", "b": 1})).await;
    assert!(failed.is_error, "{failed:?}");

    let unknown = hub
        .call_tool(
            "everything__nope",
            json!({}),
            CALL,
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, McpError::UnknownTool(ref n) if n == "everything__nope"),
        "{unknown}"
    );
    let bad = hub
        .call_tool(
            "everything__echo",
            json!(["x"]),
            CALL,
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(
        bad.to_string()
            .contains("must be a JSON object, not an array"),
        "{bad}"
    );
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_streamable_http() {
    // Port 0: the system picks a free one, read back once the server says it listens (a port
    // found free beforehand may be taken by the time the server binds it).
    let mut server = Command::new(bin("mcp-server-everything"))
        .arg("streamableHttp")
        .env("PORT", "0")
        .env("NODE_NO_WARNINGS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(server.stderr.take().unwrap());
    let pid = server.id();
    let _guard = KillOnDrop(server);
    // What it says before it listens, then its stderr drained until it exits.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut said = Vec::new();
        let mut tx = Some(tx);
        for line in stderr.lines().map_while(Result::ok) {
            if line.contains("listening on port") {
                tx.take().map(|tx| tx.send(std::mem::take(&mut said)));
            } else if tx.is_some() {
                said.push(line);
            }
        }
        tx.map(|tx| tx.send(said));
    });
    let said = rx.recv().unwrap();
    let port = listening_ports(pid)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("server-everything does not listen; it said {said:?}"));

    let url = format!("http://127.0.0.1:{port}/mcp");
    let hub = McpHub::new(vec![http("web", &url)], HubOptions::default());
    let list = hub.tools().await;
    assert!(list.problems.is_empty(), "{:?}", list.problems);
    assert!(list.tools.iter().any(|t| t.qualified_name == "web__echo"));
    let echo = call(&hub, "web__echo", json!({"message": "over http"})).await;
    assert!(echo.text.contains("over http"), "{echo:?}");
    let sum = call(&hub, "web__get-sum", json!({"a": 1, "b": 2})).await;
    assert!(sum.text.contains('3'), "{sum:?}");
    assert_eq!(
        hub.status().await[0].state,
        ServerState::Running {
            pid: None,
            tools: list.tools.len()
        }
    );
    hub.shutdown().await;
}

struct KillOnDrop(std::process::Child);
impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_server_reads_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let dir_path = dir.path().canonicalize().unwrap();
    let file = dir_path.join("notes.txt");
    std::fs::write(&file, "the quick brown fox\n").unwrap();
    let hub = McpHub::new(
        vec![stdio(
            "fs",
            &bin("mcp-server-filesystem"),
            &[&dir_path.to_string_lossy()],
        )],
        HubOptions::default(),
    );
    let list = hub.tools().await;
    assert!(list.problems.is_empty(), "{:?}", list.problems);
    assert!(
        list.tools
            .iter()
            .any(|t| t.qualified_name == "fs__read_text_file")
    );
    let read = call(
        &hub,
        "fs__read_text_file",
        json!({"path": file.to_string_lossy()}),
    )
    .await;
    assert!(!read.is_error, "{read:?}");
    assert!(read.text.contains("the quick brown fox"), "{read:?}");
    // Outside its directory: the server refuses, flagged as an error.
    let outside = call(&hub, "fs__read_text_file", json!({"path": "/etc/hostname"})).await;
    assert!(outside.is_error, "{outside:?}");
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_do_not_start_are_reported_and_the_others_work() {
    let hub = McpHub::new(
        vec![
            stdio("missing", "/nonexistent/mcp-server", &["--flag"]),
            stdio(
                "dies",
                "sh",
                &["-c", "echo 'fatal: no config found' >&2; exit 3"],
            ),
            everything("everything"),
            // Port 0: nothing can listen there (a port found free may be taken by then).
            http("nohttp", "http://127.0.0.1:0/mcp"),
        ],
        // Start-up never times out here: the failures must be seen as they happen (a missing
        // program, an exit, a refused connection), not waited out.
        HubOptions {
            start_timeout: Duration::from_secs(3600),
            ..HubOptions::default()
        },
    );
    let list = tokio::time::timeout(SAFETY, hub.tools())
        .await
        .expect("the listing waited for servers that had already failed");
    assert!(
        list.tools
            .iter()
            .any(|t| t.qualified_name == "everything__echo")
    );
    assert!(list.tools.iter().all(|t| t.server == "everything"));
    assert_eq!(list.problems.len(), 3, "{:?}", list.problems);

    let missing = list.problems[0].to_string();
    assert!(matches!(list.problems[0], McpError::StartFailed { .. }));
    for expected in [
        "`missing`",
        "/nonexistent/mcp-server --flag",
        "could not run",
        "No such file",
    ] {
        assert!(missing.contains(expected), "{expected:?} not in: {missing}");
    }
    let dies = list.problems[1].to_string();
    for expected in [
        "`dies`",
        "sh -c",
        "handshake failed",
        "fatal: no config found",
    ] {
        assert!(dies.contains(expected), "{expected:?} not in: {dies}");
    }

    let nohttp = list.problems[2].to_string();
    assert!(
        nohttp.contains("`nohttp`") && nohttp.contains("http://127.0.0.1:"),
        "{nohttp}"
    );

    let echo = call(&hub, "everything__echo", json!({"message": "still here"})).await;
    assert!(echo.text.contains("still here"));
    let status = hub.status().await;
    assert!(matches!(
        status[0].state,
        ServerState::Down(McpError::StartFailed { .. })
    ));
    assert!(matches!(status[2].state, ServerState::Running { .. }));
    // Reported again on the next listing, and not retried.
    assert_eq!(hub.tools().await.problems.len(), 3);
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eager_servers_start_at_start_eager_and_lazy_ones_at_the_first_listing() {
    let mut eager = everything("eager");
    if let tandem_mcp::McpServerConfig::Stdio(s) = &mut eager {
        s.startup = tandem_mcp::Startup::Eager;
    }
    let broken = tandem_mcp::McpServerConfig::Stdio(tandem_mcp::StdioServerConfig {
        startup: tandem_mcp::Startup::Eager,
        ..match stdio("broken", "/nonexistent/x", &[]) {
            tandem_mcp::McpServerConfig::Stdio(s) => s,
            _ => unreachable!(),
        }
    });
    let hub = McpHub::new(
        vec![eager, everything("lazy"), broken],
        HubOptions::default(),
    );
    let failures = hub.start_eager().await;
    assert!(
        matches!(&failures[..], [McpError::StartFailed { server, .. }] if server == "broken"),
        "{failures:?}"
    );
    let status = hub.status().await;
    assert!(
        matches!(status[0].state, ServerState::Running { .. }),
        "{status:?}"
    );
    assert_eq!(status[1].state, ServerState::NotStarted);
    hub.tools().await;
    assert!(matches!(
        hub.status().await[1].state,
        ServerState::Running { .. }
    ));
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_mid_call_is_restarted_once_then_down() {
    let hub = McpHub::new(vec![test_server("t")], HubOptions::default());
    hub.tools().await;
    let first = pid_of(&hub, "t").await;

    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("arrived");
    let long = {
        let hub = hub.clone();
        let marker = marker.clone();
        tokio::spawn(async move {
            hub.call_tool(
                "t__hang",
                json!({"marker": marker}),
                CALL,
                &CancellationToken::new(),
            )
            .await
        })
    };
    // The server has the call in hand: it wrote the marker.
    wait_until("the call to reach the server", CALL, || marker.exists()).await;
    assert!(!long.is_finished());
    kill(first);
    let err = tokio::time::timeout(CALL, long)
        .await
        .expect("the call ends when its server dies")
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(&err, McpError::Crashed { server, tool, will_restart: true, .. }
            if server == "t" && tool == "hang"),
        "{err}"
    );
    assert!(err.to_string().contains("will be restarted"), "{err}");

    // The next call starts it again.
    let pid = call(&hub, "t__pid", json!({})).await;
    let second = pid_of(&hub, "t").await;
    assert_eq!(pid.text, second.to_string());
    assert_ne!(first, second);
    wait_until("the first server to be gone", SAFETY, || !alive(first)).await;

    // Dies again (idle this time): no second restart. The next call finds it down, or (when
    // the hub has not yet seen the pipe close) fails as a crash that will not be restarted.
    kill(second);
    wait_until("the second server to die", SAFETY, || !alive(second)).await;
    let err = hub
        .call_tool("t__pid", json!({}), CALL, &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, McpError::Down { server, .. } if server == "t")
            || matches!(&err, McpError::Crashed { server, will_restart: false, .. } if server == "t"),
        "{err}"
    );
    // From then on it is down.
    let err = hub
        .call_tool("t__pid", json!({}), CALL, &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, McpError::Down { server, .. } if server == "t"),
        "{err}"
    );
    assert!(err.to_string().contains("restarted 1 time"), "{err}");
    let list = hub.tools().await;
    assert!(list.tools.is_empty());
    assert!(matches!(list.problems[..], [McpError::Down { .. }]));
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_list_changed_notification_refreshes_the_tools() {
    let hub = McpHub::new(vec![test_server("t")], HubOptions::default());
    let before = hub.tools().await;
    assert!(before.problems.is_empty(), "{:?}", before.problems);
    assert!(!before.tools.iter().any(|t| t.qualified_name == "t__added"));
    let mut changes = hub.changes();
    changes.borrow_and_update();

    let added = call(&hub, "t__add-tool", json!({})).await;
    assert!(added.text.contains("added"), "{added:?}");
    tokio::time::timeout(SAFETY, changes.changed())
        .await
        .expect("notifications/tools/list_changed reaches the hub")
        .unwrap();

    let after = hub.tools().await;
    assert!(
        after.tools.iter().any(|t| t.qualified_name == "t__added"),
        "{:?}",
        after.tools
    );
    let result = call(&hub, "t__added", json!({})).await;
    assert_eq!(result.text, "the added tool works");
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_are_bounded_and_calls_time_out_or_are_cancelled() {
    let options = HubOptions {
        max_result_bytes: 100 * 1024,
        ..HubOptions::default()
    };
    let hub = McpHub::new(vec![test_server("t"), everything("ev")], options);
    hub.tools().await;

    let flood = call(&hub, "t__flood", json!({"bytes": 5_000_000})).await;
    assert!(flood.truncated);
    assert!(flood.text.len() < 100 * 1024 + 200, "{}", flood.text.len());
    assert!(
        flood
            .text
            .ends_with("[… cut: 102400 of 5000000 bytes shown]"),
        "{}",
        &flood.text[flood.text.len() - 80..]
    );

    // A call that never answers ends by its timeout...
    let dir = tempfile::tempdir().unwrap();
    let err = hub
        .call_tool(
            "t__hang",
            json!({"marker": dir.path().join("timed")}),
            Duration::from_millis(700),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, McpError::Timeout { tool, .. } if tool == "hang"),
        "{err}"
    );

    // ...or by a cancel, here once the server has it in hand.
    let cancel = CancellationToken::new();
    let marker = dir.path().join("cancelled");
    let trigger = {
        let (cancel, marker) = (cancel.clone(), marker.clone());
        tokio::spawn(async move {
            wait_until("the call to reach the server", CALL, || marker.exists()).await;
            cancel.cancel();
        })
    };
    let err = hub
        .call_tool("t__hang", json!({"marker": marker}), CALL, &cancel)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, McpError::Cancelled { tool, .. } if tool == "hang"),
        "{err}"
    );
    trigger.await.unwrap();

    // The server is fine after both.
    let echo = call(&hub, "ev__echo", json!({"message": "ok"})).await;
    assert!(echo.text.contains("ok"));
    assert!(!call(&hub, "t__pid", json!({})).await.text.is_empty());
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_and_drop_leave_no_processes() {
    for how in ["shutdown", "drop"] {
        let hub = McpHub::new(
            vec![everything("ev"), lingering_test_server("t")],
            HubOptions::default(),
        );
        assert!(hub.tools().await.problems.is_empty());
        let ev = pid_of(&hub, "ev").await;
        let t = pid_of(&hub, "t").await;
        // A process the server started, in its group: it goes too.
        let child: u32 = call(&hub, "t__spawn-child", json!({}))
            .await
            .text
            .parse()
            .unwrap();
        assert!(alive(ev) && alive(t) && alive(child));
        assert!(
            group_members(t).contains(&child),
            "the child is in the server's group"
        );

        match how {
            "shutdown" => {
                hub.shutdown().await;
                let err = hub
                    .call_tool(
                        "ev__echo",
                        json!({"message": "x"}),
                        CALL,
                        &CancellationToken::new(),
                    )
                    .await
                    .unwrap_err();
                assert_eq!(err, McpError::ShutDown);
            }
            _ => drop(hub),
        }
        wait_until(&format!("{how}: no server processes"), SAFETY, || {
            !alive(ev)
                && !alive(t)
                && !alive(child)
                && group_members(ev).is_empty()
                && group_members(t).is_empty()
        })
        .await;
    }
}

/// Run by `orphan_servers_die_with_a_killed_sidecar` in a process of its own, which is then
/// SIGKILLed; does nothing otherwise.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orphan_helper() {
    if std::env::var_os("TANDEM_MCP_ORPHAN_HELPER").is_none() {
        return;
    }
    // The lingering server ignores the end of its stdin: only the kernel's death signal
    // (PR_SET_PDEATHSIG) can stop it once we are gone.
    let hub = McpHub::new(
        vec![everything("ev"), lingering_test_server("t")],
        HubOptions::default(),
    );
    assert!(hub.tools().await.problems.is_empty());
    let ev = pid_of(&hub, "ev").await;
    let t = pid_of(&hub, "t").await;
    println!("PIDS {ev} {t}");
    // Until the test kills this process.
    std::future::pending::<()>().await;
}

#[test]
fn orphan_servers_die_with_a_killed_sidecar() {
    bin("mcp-server-everything");
    let mut helper = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "servers::orphan_helper",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TANDEM_MCP_ORPHAN_HELPER", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let guard_pid = helper.id();
    let stdout = std::io::BufReader::new(helper.stdout.take().unwrap());
    let mut pids = Vec::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        // libtest prints `test orphan_helper ... ` on the same line first.
        if let Some((_, rest)) = line.split_once("PIDS ") {
            pids = rest
                .split_whitespace()
                .map(|p| p.parse::<u32>().unwrap())
                .collect();
            break;
        }
    }
    assert_eq!(pids.len(), 2, "the helper did not report its servers' pids");
    assert!(pids.iter().all(|p| alive(*p)));

    kill(guard_pid);
    helper.wait().unwrap();
    let start = Instant::now();
    while pids.iter().any(|p| alive(*p)) {
        assert!(
            start.elapsed() < SAFETY,
            "servers {:?} outlived the SIGKILLed sidecar",
            pids.iter().filter(|p| alive(**p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
