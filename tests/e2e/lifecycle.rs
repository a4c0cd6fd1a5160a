//! The sidecar's life: several sessions at once, and going away with work in flight.

use crate::cancel::{SLEEPER, assert_gone, wait_for_pid};
use crate::support::*;

/// A sidecar running an approved `SLEEPER` command; returns it with the command's pid.
async fn running_command(env: &Env, mock: &MockServer) -> (Sidecar, TurnRef, u32) {
    let tandem = Sidecar::start(env, mock, Options::default()).await;
    tandem.reply_approvals([reply::accept()]).await;
    let session = tandem.new_session().await;
    let turn = tandem.prompt(&session, "Sleep").await;
    let pid = wait_for_pid(&tandem, &turn).await;
    (tandem, turn, pid)
}

fn sleeper() -> Scenario {
    Scenario::new([Reply::tool("execute_command", json!({"command": SLEEPER}))])
}

#[tokio::test]
async fn shutdown_ends_a_running_turn_kills_its_command_and_exits() {
    let env = Env::new();
    let mock = MockServer::start(sleeper());
    let (mut tandem, turn, pid) = running_command(&env, &mock).await;
    let status = tandem.shutdown().await;
    assert!(status.success(), "tandem exited with {status}");
    // The turn ended (and the client heard it) before shutdown answered.
    let updates = tandem.inbox(|i| turn.updates_in(&i.updates));
    let ended = Turn::new(updates);
    assert_eq!(ended.stop_reason(), "cancelled", "{ended}");
    assert_gone(pid).await;
}

#[tokio::test]
async fn closing_stdin_ends_the_sidecar_and_its_command() {
    let env = Env::new();
    let mock = MockServer::start(sleeper());
    let (mut tandem, _turn, pid) = running_command(&env, &mock).await;
    tandem.close_stdin().await;
    assert_gone(pid).await;
}

#[tokio::test]
async fn two_sessions_run_at_once_and_keep_their_updates_apart() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("A is slow").chunk_size(2).stall_after(3),
        Reply::text("B is done."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let a = tandem.new_session().await;
    let b = tandem.new_session().await;
    assert_ne!(a, b);
    let slow = tandem.prompt(&a, "Go slowly").await;
    tandem.wait_for_update(&slow, |u| u["kind"] == "text").await;

    let fast = tandem.run_turn(&b, "Go fast").await;
    assert_eq!(fast.stop_reason(), "endTurn", "{fast}");
    assert_eq!(fast.text(), "B is done.");

    tandem.cancel(&a).await;
    let slow = tandem.wait_for_turn_end(&slow).await;
    assert_eq!(slow.stop_reason(), "cancelled", "{slow}");
    assert!("A is slow".starts_with(&slow.text()), "{slow}");
    // Every update names its own session: nothing of one turn shows up in the other.
    let all = tandem.inbox(|i| i.updates.clone());
    let of = |session: &str| {
        all.iter()
            .filter(|u| u["sessionId"] == session)
            .filter_map(|u| u["delta"].as_str())
            .collect::<String>()
    };
    assert!(!of(&a).contains("B is"), "{all:#?}");
    assert!(!of(&b).contains("A is"), "{all:#?}");
}
