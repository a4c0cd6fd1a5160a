//! execute_command through the real API: the shell in its own process group, output relayed as it
//! comes, head and tail kept, timeouts and cancellation killing everything the command started.
// POSIX shell commands and process groups; Windows has its own: command_windows.rs.

use std::time::Duration;

use crate::support::Env;
use serde_json::json;
use tandem_tools::{CommandOutcome, CommandProposal, Prepared};
use tokio_util::sync::CancellationToken;

async fn proposal(env: &Env, args: serde_json::Value) -> CommandProposal {
    match tandem_tools::prepare(&env.ctx(), "execute_command", &args.to_string()).await {
        Ok(Prepared::Command(p)) => p,
        other => panic!("expected a command proposal, got {other:?}"),
    }
}

/// The walls a session's commands get: the sandbox on, as by default.
fn walls(p: &CommandProposal) -> tandem_tools::Walls {
    tandem_tools::Walls {
        root: p.cwd.clone(),
        extra_roots: Vec::new(),
        protected: Vec::new(),
        mode: tandem_sandbox::SandboxMode::WorkspaceWrite,
        network: false,
        key_var: None,
        capture: None,
    }
}

/// Runs the command; returns the outcome and everything relayed through on_output.
async fn run(p: &CommandProposal, cancel: CancellationToken) -> (CommandOutcome, String) {
    let mut relayed = String::new();
    let walls = walls(p);
    let outcome = tandem_tools::run_command(
        p,
        &walls,
        &mut |chunk: &str| relayed.push_str(chunk),
        cancel,
    )
    .await
    .unwrap();
    (outcome, relayed)
}

/// The pid the command printed as its first line, `bg=PID`.
fn background_pid(outcome: &CommandOutcome) -> u32 {
    let line = outcome.output.lines().next().unwrap_or("");
    line.trim_start_matches("bg=")
        .parse()
        .unwrap_or_else(|_| panic!("no bg=PID line in {:?}", outcome.output))
}

/// Whether the process is gone (or a zombie nobody reaped yet), waiting for it up to 10 s.
fn dies(pid: u32) -> bool {
    for _ in 0..200 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat) => {
                let state = stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .chars()
                    .next();
                if state == Some('Z') {
                    return true;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[tokio::test]
async fn proposals_resolve_cwd_and_timeout() {
    let env = Env::new();
    env.write("sub/x", "");
    let p = proposal(
        &env,
        json!({"command": "ls", "cwd": "sub", "timeoutSeconds": 5}),
    )
    .await;
    assert_eq!(p.display_cwd, "sub");
    assert_eq!(p.cwd, env.path("sub"));
    assert_eq!(p.timeout, Duration::from_secs(5));
    let p = proposal(&env, json!({"command": "ls"})).await;
    assert_eq!(
        (p.display_cwd.as_str(), p.timeout),
        (".", Duration::from_secs(120))
    );
    for bad in [
        json!({"command": " "}),
        json!({"command": "ls", "timeoutSeconds": 0}),
        json!({"command": "ls", "cwd": "sub/x"}),
    ] {
        let result = tandem_tools::prepare(&env.ctx(), "execute_command", &bad.to_string()).await;
        assert!(result.is_err(), "{bad}");
    }
}

#[tokio::test]
async fn output_is_interleaved_in_order_and_relayed_with_the_exit_code() {
    let env = Env::new();
    env.write("sub/marker", "");
    let p = proposal(&env, json!({"command": "echo out1; echo err1 >&2; echo out2; echo err2 >&2; pwd; ls; exit 3", "cwd": "sub"})).await;
    let (outcome, relayed) = run(&p, CancellationToken::new()).await;
    let want = format!(
        "out1\nerr1\nout2\nerr2\n{}\nmarker\n",
        env.path("sub").display()
    );
    assert_eq!(outcome.output, want);
    assert_eq!(relayed, want);
    assert_eq!(outcome.exit_code, Some(3));
    assert!(!outcome.timed_out && !outcome.cancelled);
    assert!(
        outcome.report().ends_with("marker\n[exit code 3]"),
        "{}",
        outcome.report()
    );
}

#[tokio::test]
async fn long_output_keeps_head_and_tail() {
    let env = Env::new();
    let p = proposal(
        &env,
        json!({"command": "i=1; while [ $i -le 12345 ]; do echo line $i; i=$((i+1)); done"}),
    )
    .await;
    let (outcome, relayed) = run(&p, CancellationToken::new()).await;
    assert_eq!(relayed.lines().count(), 12345, "everything is relayed live");
    let lines: Vec<&str> = outcome.output.lines().collect();
    assert_eq!(lines.len(), 201);
    assert_eq!(lines[0], "line 1");
    assert_eq!(lines[99], "line 100");
    assert_eq!(lines[100], "[... 12145 lines elided ...]");
    assert_eq!(lines[101], "line 12246");
    assert_eq!(lines[200], "line 12345");
    assert_eq!(outcome.exit_code, Some(0));
}

#[tokio::test]
async fn runs_in_its_own_process_group_with_stdin_closed() {
    let env = Env::new();
    // `cat` would wait forever on an open stdin; it must see end-of-file at once.
    let p = proposal(&env, json!({"command": "cat; echo pid=$$ pgrp=$(cut -d' ' -f5 /proc/$$/stat)", "timeoutSeconds": 60})).await;
    let (outcome, _) = run(&p, CancellationToken::new()).await;
    assert!(!outcome.timed_out);
    assert_eq!(outcome.exit_code, Some(0));
    let line = outcome.output.trim();
    let pid = line
        .split_whitespace()
        .next()
        .unwrap()
        .trim_start_matches("pid=");
    assert_eq!(
        line,
        format!("pid={pid} pgrp={pid}"),
        "the shell leads its own group"
    );
}

#[tokio::test]
async fn a_timeout_kills_the_whole_group() {
    let env = Env::new();
    let p = proposal(
        &env,
        json!({"command": "sleep 1000 & echo bg=$!; sleep 1000", "timeoutSeconds": 1}),
    )
    .await;
    let (outcome, _) = run(&p, CancellationToken::new()).await;
    assert!(outcome.timed_out);
    assert!(!outcome.cancelled);
    assert_eq!(outcome.exit_code, None, "killed by a signal");
    let pid = background_pid(&outcome);
    assert!(dies(pid), "the background sleep {pid} survived the timeout");
    assert!(
        outcome.report().contains("timed out"),
        "{}",
        outcome.report()
    );
}

#[tokio::test]
async fn a_group_that_ignores_sigterm_is_killed_anyway() {
    let env = Env::new();
    let p = proposal(
        &env,
        json!({"command": "trap '' TERM; sleep 1000 & echo bg=$!; wait", "timeoutSeconds": 1}),
    )
    .await;
    let (outcome, _) = run(&p, CancellationToken::new()).await;
    assert!(outcome.timed_out);
    let pid = background_pid(&outcome);
    assert!(dies(pid), "{pid} survived");
}

#[tokio::test]
async fn cancelling_kills_the_group_and_returns() {
    let env = Env::new();
    let p = proposal(
        &env,
        json!({"command": "sleep 1000 & echo bg=$!; sleep 1000", "timeoutSeconds": 600}),
    )
    .await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let mut relayed = String::new();
    // Cancel as soon as the command has shown it is running.
    let walls = walls(&p);
    let outcome = tandem_tools::run_command(
        &p,
        &walls,
        &mut |chunk: &str| {
            relayed.push_str(chunk);
            if relayed.contains('\n') {
                trigger.cancel();
            }
        },
        cancel,
    )
    .await
    .unwrap();
    assert!(outcome.cancelled);
    assert!(!outcome.timed_out);
    let pid = background_pid(&outcome);
    assert!(dies(pid), "{pid} survived the cancellation");
    assert!(
        outcome.report().contains("cancelled"),
        "{}",
        outcome.report()
    );
}

#[tokio::test]
async fn a_background_child_holding_the_pipe_does_not_block_the_result() {
    let env = Env::new();
    // The shell exits at once; its child keeps the output pipe open for much longer.
    let p = proposal(
        &env,
        json!({"command": "sleep 1000 & echo bg=$!; echo done", "timeoutSeconds": 600}),
    )
    .await;
    let (outcome, _) = run(&p, CancellationToken::new()).await;
    assert_eq!(outcome.exit_code, Some(0));
    assert!(!outcome.timed_out);
    assert!(outcome.output.ends_with("done\n"), "{}", outcome.output);
    let pid = background_pid(&outcome);
    // Left running by design (a server the model started); clean up.
    // SAFETY: a plain syscall on a process this test started.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
}
