//! A hostile model: what it must not get without asking (code run through an allow-listed command,
//! the API key, writes outside the workspace), tried as an attacker would.

use crate::support::*;

fn command(cmd: &str) -> Reply {
    Reply::tool("execute_command", json!({"command": cmd}))
}

fn command_in(cmd: &str, cwd: &str) -> Reply {
    Reply::tool("execute_command", json!({"command": cmd, "cwd": cwd}))
}

#[tokio::test]
async fn allow_listed_cargo_with_code_loading_options_asks() {
    let env = Env::new();
    // A payload that leaves a mark if it ever runs.
    let mark = env.workspace.join("PWNED");
    let evil = env.workspace.join("evil.sh");
    std::fs::write(&evil, format!("#!/bin/sh\ntouch {}\n", mark.display())).unwrap();
    std::fs::write(
        env.workspace.join("evil.toml"),
        "[build]\nrustc-wrapper = \"./evil.sh\"\n",
    )
    .unwrap();
    let attempts = [
        format!(
            "cargo test --config 'build.rustc-wrapper=\"{}\"'",
            evil.display()
        ),
        format!(
            "cargo test --config target.x86_64-unknown-linux-gnu.runner={}",
            evil.display()
        ),
        "cargo test --config evil.toml".to_string(),
        "cargo test --manifest-path /tmp/elsewhere/Cargo.toml".to_string(),
    ];
    let mut replies: Vec<Reply> = Vec::new();
    for attempt in &attempts {
        replies.push(command(attempt));
        replies.push(Reply::text("OK, not that.").expect_tool_result_contains("rejected"));
    }
    let mock = MockServer::start(Scenario::new(replies));
    let options = Options {
        approval: json!({"allowCommands": ["cargo test"]}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    for (i, attempt) in attempts.iter().enumerate() {
        tandem.reply_approvals([reply::reject("no")]).await;
        let turn = tandem.run_turn(&session, "Run the tests").await;
        let approvals = tandem.approvals();
        assert_eq!(
            approvals.len(),
            i + 1,
            "{attempt} ran without asking: {turn}"
        );
        assert_eq!(approvals[i]["command"], attempt.as_str());
        assert_eq!(turn.tool_result()["status"], "rejected");
    }
    assert!(!mark.exists(), "the payload ran");
}

#[tokio::test]
async fn a_planted_bare_repository_does_not_turn_git_status_into_code() {
    let env = Env::new();
    let mark = env.workspace.join("PWNED");
    // What a model can write with write_to_file: a bare repository whose config runs a command.
    env.write("evil/HEAD", "ref: refs/heads/main\n");
    env.write(
        "evil/config",
        &format!(
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch {}\"\n",
            mark.display()
        ),
    );
    env.write("evil/objects/.keep", "");
    env.write("evil/refs/heads/.keep", "");
    let mock = MockServer::start(Scenario::new([
        command_in("git status", "evil"),
        Reply::text("Done."),
    ]));
    let options = Options {
        approval: json!({"allowCommands": ["git status"]}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "What is the status?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert!(!mark.exists(), "git ran the planted fsmonitor: {turn}");
}

#[tokio::test]
async fn commands_never_see_the_api_keys() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([command("env"), Reply::text("Done.")]));
    let tandem = Sidecar::spawn_with(&env, |c| {
        c.env("TANDEM_API_KEY", "tandem-secret-1")
            .env("OPENAI_API_KEY", "openai-secret-2")
            .env("ANTHROPIC_API_KEY", "anthropic-secret-3")
            .env("OPENROUTER_API_KEY", "openrouter-secret-4");
    });
    let params = initialize_params(
        &env,
        &mock,
        Options {
            approval: json!({"autoApprove": {"command": true}}),
            ..Options::default()
        },
    );
    tandem.request("initialize", params).await.unwrap();
    tandem.rpc.notify("initialized", json!({})).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Show the environment").await;
    let output = turn.tool_result()["output"].as_str().unwrap().to_string();
    assert!(output.contains("PATH="), "env did not run: {output}");
    for secret in [
        "tandem-secret-1",
        "openai-secret-2",
        "anthropic-secret-3",
        "openrouter-secret-4",
        API_KEY,
    ] {
        assert!(!output.contains(secret), "{secret} reached a command");
    }
}

#[tokio::test]
async fn a_key_never_reaches_a_server_named_without_it() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::text("Hello.")]));
    let tandem = Sidecar::spawn_with(&env, |c| {
        c.env("OPENAI_API_KEY", "sk-from-the-environment");
    });
    let mut params = initialize_params(&env, &mock, Options::default());
    params["initializationOptions"]["provider"]
        .as_object_mut()
        .unwrap()
        .remove("apiKey");
    tandem.request("initialize", params).await.unwrap();
    tandem.rpc.notify("initialized", json!({})).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Hi").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let requests = mock.chat_requests();
    assert!(!requests.is_empty());
    for request in requests {
        assert!(
            !request.headers.contains_key("authorization")
                && !request.headers.values().any(|v| v.contains("sk-from")),
            "the environment's key was sent to the editor's server: {:?}",
            request.headers
        );
    }
}

#[tokio::test]
async fn an_approved_command_writes_in_the_workspace_but_not_in_home() {
    let env = Env::new();
    // A home outside every temp dir (the sandbox leaves those writable).
    let home = tempfile::Builder::new()
        .prefix("home-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let probe = home.path().join("probe");
    let mock = MockServer::start(Scenario::new([
        command("echo x > \"$HOME/probe\"; echo y > inside.txt; echo done"),
        Reply::text("Done."),
    ]));
    let tandem = Sidecar::spawn_with(&env, |c| {
        c.env("HOME", home.path());
    });
    let params = initialize_params(&env, &mock, Options::default());
    tandem.request("initialize", params).await.unwrap();
    tandem.rpc.notify("initialized", json!({})).await;
    let session = tandem.new_session().await;
    tandem.reply_approvals([reply::accept()]).await;
    let turn = tandem.run_turn(&session, "Write the files").await;
    let output = turn.tool_result()["output"].as_str().unwrap().to_string();
    assert!(
        !probe.exists(),
        "the sandboxed command wrote {}",
        probe.display()
    );
    // Landlock refuses it (Permission denied), or the read-only root does first.
    assert!(
        output.contains("Permission denied") || output.contains("Read-only file system"),
        "{output}"
    );
    assert_eq!(env.read("inside.txt"), "y\n", "{output}");
}

#[tokio::test]
async fn a_command_outside_the_sandbox_always_asks_and_names_it() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "execute_command",
            json!({"command": "echo hi", "outsideSandbox": true}),
        ),
        Reply::text("OK.").expect_tool_result_contains("rejected"),
    ]));
    let options = Options {
        approval: json!({"allowCommands": ["echo"], "autoApprove": {"command": true}}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    tandem.reply_approvals([reply::reject("no")]).await;
    let turn = tandem.run_turn(&session, "Say hi").await;
    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 1, "it ran unasked: {turn}");
    assert_eq!(approvals[0]["outsideSandbox"], true);
}

/// The sidecar's peak resident memory, from the kernel (`VmHWM`), in MiB.
fn peak_rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc/PID/status");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kib / 1024
}

/// A model server that answers every chat request with one SSE line of `total` bytes that never
/// ends, written as fast as the reader takes it.
async fn endless_line_server(total: usize) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                // The request head and body: enough to know it came.
                let _ = socket.read(&mut buf).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let _ = socket
                    .write_all(b"data: {\"choices\":[{\"delta\":{\"content\":\"")
                    .await;
                let piece = vec![b'x'; 1024 * 1024];
                let mut sent = 0;
                while sent < total {
                    if socket.write_all(&piece).await.is_err() {
                        return;
                    }
                    sent += piece.len();
                }
            });
        }
    });
    format!("http://{addr}/v1")
}

#[tokio::test]
async fn a_300_mb_line_ends_the_turn_without_the_memory() {
    let env = Env::new();
    let base_url = endless_line_server(300 * 1024 * 1024).await;
    let mock = MockServer::start(Scenario::default());
    let tandem = Sidecar::spawn(&env);
    let mut params = initialize_params(&env, &mock, Options::default());
    params["initializationOptions"]["provider"]["baseUrl"] = json!(base_url);
    tandem.request("initialize", params).await.unwrap();
    tandem.rpc.notify("initialized", json!({})).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Say something").await;
    assert_eq!(turn.stop_reason(), "error", "{turn}");
    let error = turn.updates.last().unwrap()["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(error.contains("limits.max_event_bytes"), "{error}");
    let peak = peak_rss_mib(tandem.pid());
    assert!(peak < 200, "peak RSS {peak} MiB");
}

#[cfg(unix)]
#[tokio::test]
async fn a_fifo_ends_in_a_tool_error_and_the_session_goes_on() {
    let env = Env::new();
    let fifo = env.workspace.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": "pipe"})),
        Reply::text("It is a pipe.").expect_tool_result_contains("named pipe"),
        Reply::text("Still here."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    // A read that blocked on the pipe would hold the turn past run_turn's bound.
    let turn = tandem.run_turn(&session, "Read the pipe").await;
    assert_eq!(turn.tool_result()["status"], "error", "{turn}");
    let next = tandem.run_turn(&session, "Are you there?").await;
    assert_eq!(next.text(), "Still here.");
}

#[cfg(unix)]
#[tokio::test]
async fn transcripts_and_undo_copies_are_the_users_alone() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.write("a.txt", "secret\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "a.txt", "content": "changed\n"}),
        ),
        Reply::text("Done."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    tandem.reply_approvals([reply::accept()]).await;
    let turn = tandem.run_turn(&session, "Change it").await;
    assert_eq!(turn.tool_result()["status"], "ok", "{turn}");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let sessions = env.data_dir.join("sessions");
    assert_eq!(mode(&sessions), 0o700);
    assert_eq!(mode(&sessions.join(format!("{session}.jsonl"))), 0o600);
    let undo = sessions.join(format!("{session}.undo"));
    assert_eq!(mode(&undo), 0o700);
    for entry in walk(&undo) {
        let expected = if entry.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&entry), expected, "{}", entry.display());
    }
}

#[cfg(unix)]
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found
}

/// The kernel shows a process's initial environment to every process of the same user (and to
/// root) in `/proc/PID/environ`: the sidecar moves its environment into memory of its own and
/// zeroes that block, so it holds no key, yet the key still reaches the model server.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_api_key_is_not_in_the_sidecars_proc_environ() {
    const KEY: &str = "sk-env-only-7f3a";
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        command("cat /proc/$PPID/environ; echo; echo read"),
        Reply::text("Done."),
    ]));
    let base_url = mock.base_url();
    let tandem = Sidecar::spawn_with(&env, |c| {
        c.env("TANDEM_API_KEY", KEY)
            .env("TANDEM_BASE_URL", &base_url);
    });
    let mut params = initialize_params(
        &env,
        &mock,
        Options {
            approval: json!({"autoApprove": {"command": true}}),
            ..Options::default()
        },
    );
    let provider = params["initializationOptions"]["provider"]
        .as_object_mut()
        .unwrap();
    provider.remove("apiKey");
    provider.remove("baseUrl");
    // The answer comes from the process after its start, so the block read next is its final one.
    tandem.request("initialize", params).await.unwrap();
    tandem.rpc.notify("initialized", json!({})).await;
    // The process keeps its name: process lists (and VS Code's restart logic) see `tandem`, not
    // `exe` (a re-exec through /proc/self/exe would change it).
    let comm = std::fs::read_to_string(format!("/proc/{}/comm", tandem.pid())).unwrap();
    assert_eq!(comm.trim(), "tandem");
    let environ = std::fs::read(format!("/proc/{}/environ", tandem.pid())).unwrap();
    let environ = String::from_utf8_lossy(&environ);
    assert!(
        !environ.contains(KEY),
        "the key is in /proc/PID/environ: {environ:?}"
    );
    assert!(
        !environ.contains("HOME="),
        "the environment was not moved: {environ:?}"
    );

    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Read the environment").await;
    let output = turn.tool_result()["output"].as_str().unwrap().to_string();
    assert!(output.contains("read"), "the command did not run: {turn}");
    assert!(!output.contains(KEY), "a command read the key: {output}");
    let requests = mock.chat_requests();
    assert!(!requests.is_empty());
    for request in requests {
        assert_eq!(
            request.headers.get("authorization").map(String::as_str),
            Some(format!("Bearer {KEY}").as_str())
        );
    }
}
