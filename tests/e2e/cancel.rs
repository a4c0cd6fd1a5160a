//! Stopping a turn: mid-stream, mid-command, mid-question; and prompts while a turn runs.

use std::time::Duration;

use crate::support::*;

/// An answer that starts, then hangs: the only way out is a cancel.
fn hanging_answer() -> Reply {
    Reply::text("This answer never finishes")
        .chunk_size(3)
        .stall_after(4)
}

#[tokio::test]
async fn cancel_mid_stream_ends_the_turn_and_keeps_what_was_said() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        hanging_answer(),
        Reply::text("Still here."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let first = tandem.prompt(&session, "Write a long essay").await;
    tandem
        .wait_for_update(&first, |u| u["kind"] == "text")
        .await;
    tandem.cancel(&session).await;
    let turn = tandem.wait_for_turn_end(&first).await;
    assert_eq!(turn.stop_reason(), "cancelled", "{turn}");
    assert_eq!(turn.end_error(), None, "{turn}");
    let shown = turn.text();
    assert!(
        !shown.is_empty() && "This answer never finishes".starts_with(&shown),
        "{shown:?}"
    );

    // The session goes on, and the model sees what it had said before the cancel.
    let next = tandem.run_turn(&session, "Never mind").await;
    assert_eq!(next.stop_reason(), "endTurn", "{next}");
    assert_eq!(next.text(), "Still here.");
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 2);
    let said = requests[1].messages_with_role("assistant");
    assert!(
        said.iter()
            .any(|m| m["content"].as_str().unwrap_or("").contains(&shown)),
        "the partial answer {shown:?} is not in {said:#?}"
    );
}

/// The command this scenario runs: it prints its pid, then sleeps in that same process.
pub const SLEEPER: &str = "echo pid=$$; exec sleep 30";

/// The running command's pid as this test sees it (see [`SLEEPER`]): what it printed is its
/// pid in the sandbox's PID namespace (1 there), so the process is found among the sidecar's
/// descendants by that namespace pid.
pub async fn wait_for_pid(tandem: &Sidecar, turn: &TurnRef) -> u32 {
    tandem
        .rpc
        .wait("the command's pid", |inbox| {
            let output: String = turn
                .updates_in(&inbox.updates)
                .iter()
                .filter(|u| u["kind"] == "toolOutput")
                .filter_map(|u| u["delta"].as_str())
                .collect();
            let line = output.split("pid=").nth(1)?.split_once('\n')?.0;
            let printed = line.trim().parse::<u32>().ok()?;
            host_pid(tandem.pid(), printed)
        })
        .await
}

/// The descendant of `ancestor` whose innermost namespace pid is `inner`.
fn host_pid(ancestor: u32, inner: u32) -> Option<u32> {
    let status = |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/status")).ok();
    let field = |text: &str, name: &str| -> Option<String> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        Some(line[name.len()..].trim().to_string())
    };
    let descends = |mut pid: u32| {
        while pid > 1 {
            pid = status(pid)
                .and_then(|s| field(&s, "PPid:"))
                .and_then(|p| p.parse().ok())
                .unwrap_or(0);
            if pid == ancestor {
                return true;
            }
        }
        false
    };
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let text = status(pid)?;
            let innermost = field(&text, "NSpid:")?
                .split_whitespace()
                .last()?
                .parse::<u32>()
                .ok()?;
            (innermost == inner && descends(pid)).then_some(pid)
        })
}

/// Waits (within the safety net) for a process to be gone.
pub async fn assert_gone(pid: u32) {
    let deadline = std::time::Instant::now() + SAFETY;
    while !process_is_gone(pid) {
        assert!(
            std::time::Instant::now() < deadline,
            "process {pid} still runs"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub fn process_is_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // A zombie is dead, just not yet reaped by its parent.
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[tokio::test]
async fn cancel_mid_command_kills_the_process() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::tool(
        "execute_command",
        json!({"command": SLEEPER}),
    )]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem.reply_approvals([reply::accept()]).await;
    let session = tandem.new_session().await;
    let turn_ref = tandem.prompt(&session, "Sleep").await;

    let pid = wait_for_pid(&tandem, &turn_ref).await;
    assert!(!process_is_gone(pid), "the command is not running");
    tandem.cancel(&session).await;
    let turn = tandem.wait_for_turn_end(&turn_ref).await;
    assert_eq!(turn.stop_reason(), "cancelled", "{turn}");
    let result = turn.tool_result();
    assert_ne!(result["status"], "ok", "{result}");

    assert_gone(pid).await;
    // Nothing more was asked of the model after the cancel.
    assert_eq!(model_requests(&mock).len(), 1);
}

#[tokio::test]
async fn cancel_while_asking_withdraws_the_question() {
    let env = Env::new();
    env.write("src/answer.rs", crate::approvals::ORIGINAL);
    let mock = MockServer::start(crate::approvals::edit_then(Reply::text("unused")));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn_ref = tandem.prompt(&session, "Make the answer 42").await;
    tandem.wait_for_approvals(1).await;
    tandem.cancel(&session).await;
    let turn = tandem.wait_for_turn_end(&turn_ref).await;
    assert_eq!(turn.stop_reason(), "cancelled", "{turn}");
    assert_eq!(turn.tool_result()["status"], "rejected");
    assert_eq!(env.read("src/answer.rs"), crate::approvals::ORIGINAL);
    // A late "accept" for the withdrawn question must not write anything.
    tandem.reply_approvals([reply::accept()]).await;
    let _ = tandem.request("tandem/listSessions", Value::Null).await;
    assert_eq!(env.read("src/answer.rs"), crate::approvals::ORIGINAL);
}

#[tokio::test]
async fn a_prompt_while_a_turn_runs_is_refused() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([hanging_answer()]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let first = tandem.prompt(&session, "Write a long essay").await;
    tandem
        .wait_for_update(&first, |u| u["kind"] == "text")
        .await;

    let refused = tandem
        .try_prompt(&session, "And another thing")
        .await
        .expect_err("a second prompt during a turn must be refused");
    assert_eq!(refused.code, 1002, "{refused:?}");
    assert!(refused.message.contains("running"), "{refused:?}");

    tandem.cancel(&session).await;
    let turn = tandem.wait_for_turn_end(&first).await;
    assert_eq!(turn.stop_reason(), "cancelled");
    // The refused prompt started nothing.
    let started = tandem.inbox(|i| {
        i.updates
            .iter()
            .filter(|u| u["kind"] == "turnStarted")
            .count()
    });
    assert_eq!(started, 1);
}

#[tokio::test]
async fn cancel_before_the_first_token_and_with_nothing_running() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::text("late").stall_after(0)]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    // Nothing running: nothing to do, and no error.
    tandem.cancel(&session).await;
    let turn_ref = tandem.prompt(&session, "Hello").await;
    tandem.cancel(&session).await;
    let turn = tandem.wait_for_turn_end(&turn_ref).await;
    assert_eq!(turn.stop_reason(), "cancelled", "{turn}");
    assert_eq!(
        turn.of_kind("turnEnded").len(),
        1,
        "exactly one turnEnded: {turn}"
    );
    tandem.cancel(&session).await;
}
