//! execute_command on Windows, through the real API and the real `cmd.exe` (run under Wine on
//! Linux CI, whose `powershell.exe` is a stub that the Wine stage removes): output, exit codes and
//! the working directory; a timeout and a cancellation end the command's whole Job Object.

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

fn walls(p: &CommandProposal, mode: tandem_sandbox::SandboxMode) -> tandem_tools::Walls {
    tandem_tools::Walls {
        root: p.cwd.clone(),
        extra_roots: Vec::new(),
        protected: Vec::new(),
        mode,
        network: false,
        key_var: None,
        capture: None,
    }
}

async fn run(p: &CommandProposal, cancel: CancellationToken) -> (CommandOutcome, String) {
    let mut relayed = String::new();
    let walls = walls(p, tandem_sandbox::SandboxMode::Off);
    let outcome = tandem_tools::run_command(
        p,
        &walls,
        &mut |chunk: &str| {
            relayed.push_str(chunk);
            // The cancel test's command says when it is running.
            if relayed.contains("started") {
                cancel_on_start().cancel();
            }
        },
        cancel,
    )
    .await
    .unwrap();
    (outcome, relayed)
}

fn cancel_on_start() -> &'static CancellationToken {
    static TOKEN: std::sync::OnceLock<CancellationToken> = std::sync::OnceLock::new();
    TOKEN.get_or_init(CancellationToken::new)
}

/// Deletes a file that a process of the command held open, waiting up to 10 s for the holder to
/// be gone: Windows refuses to delete a file while a process has it open.
fn deletable(path: &std::path::Path) -> bool {
    for _ in 0..200 {
        if std::fs::remove_file(path).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[tokio::test]
async fn cmd_runs_in_the_cwd_with_output_in_order_and_the_exit_code() {
    let env = Env::new();
    std::fs::create_dir(env.path("sub")).unwrap();
    let p = proposal(
        &env,
        json!({"command": "echo out1& echo err1 1>&2& echo \"a  b\"& cd& exit /b 3", "cwd": "sub"}),
    )
    .await;
    let (outcome, relayed) = run(&p, CancellationToken::new()).await;
    assert_eq!(outcome.exit_code, Some(3), "{}", outcome.output);
    let lines: Vec<&str> = outcome.output.lines().map(str::trim_end).collect();
    assert_eq!(
        lines[..3],
        ["out1", "err1", "\"a  b\""],
        "{}",
        outcome.output
    );
    let cwd = lines[3].to_ascii_lowercase();
    assert!(cwd.ends_with("\\sub"), "{}", outcome.output);
    assert_eq!(relayed, outcome.output);
    assert!(outcome.report().ends_with("[exit code 3]"));
}

#[tokio::test]
async fn with_the_sandbox_on_nothing_runs_and_the_error_says_why() {
    let env = Env::new();
    let p = proposal(&env, json!({"command": "echo x> ran.txt"})).await;
    let walls = walls(&p, tandem_sandbox::SandboxMode::WorkspaceWrite);
    let err = tandem_tools::run_command(&p, &walls, &mut |_| {}, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        err.message.contains("sandbox could not be set up"),
        "{}",
        err.message
    );
    assert!(!env.path("ran.txt").exists());
}

#[tokio::test]
async fn a_timeout_and_a_cancel_end_the_whole_tree() {
    let env = Env::new();
    // A background ping holds hold.txt open: while it lives the file can't be deleted.
    let p = proposal(
        &env,
        json!({"command": "start /b ping -n 1000 127.0.0.1 >> hold.txt& ping -n 1000 127.0.0.1 >nul", "timeoutSeconds": 2}),
    )
    .await;
    let (outcome, _) = run(&p, CancellationToken::new()).await;
    assert!(outcome.timed_out, "{outcome:?}");
    assert!(
        outcome.report().contains("[timed out"),
        "{}",
        outcome.report()
    );
    assert!(
        deletable(&env.path("hold.txt")),
        "the background ping outlived the timeout"
    );

    let p = proposal(
        &env,
        json!({"command": "start /b ping -n 1000 127.0.0.1 >> hold2.txt& echo started& ping -n 1000 127.0.0.1 >nul", "timeoutSeconds": 600}),
    )
    .await;
    let (outcome, _) = run(&p, cancel_on_start().clone()).await;
    assert!(outcome.cancelled && !outcome.timed_out, "{outcome:?}");
    assert!(
        deletable(&env.path("hold2.txt")),
        "the background ping outlived the cancel"
    );
}
