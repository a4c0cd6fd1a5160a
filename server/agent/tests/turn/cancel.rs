//! Cancel: mid-stream (what was said is kept), while asking (the question withdrawn, nothing
//! written, the calls after it not run), mid-command (the command stopped).

use crate::support::*;
use mock_model::{Reply, Scenario};
use serde_json::json;
use tandem_agent::events::{Event, StopReason, ToolStatus};

#[tokio::test]
async fn cancel_mid_stream_ends_the_turn_and_keeps_what_was_said() {
    let h = Harness::new(Scenario::new([
        // A role chunk and two pieces of text, then nothing until the client hangs up.
        Reply::text("Half an answer").chunk_size(5).stall_after(3),
        Reply::text("Again.").expect_messages_contain("[interrupted]"),
    ]));
    let mut running = h.start("Tell me", Vec::new());
    running
        .until("the first text", |e| matches!(e, Event::Text { .. }))
        .await;
    h.agent.cancel(&h.session).unwrap();
    let turn = running.end().await;
    assert_eq!(turn.stop_reason(), StopReason::Cancelled, "{turn}");
    assert!(!turn.text().is_empty());

    // The next prompt has the interrupted answer in its conversation.
    let next = h.turn("Go on", Vec::new()).await;
    assert_eq!(next.stop_reason(), StopReason::EndTurn, "{next}");
    let requests = h.requests();
    assert_eq!(requests.len(), 2);
    let said = requests[1].messages_with_role("assistant")[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(said.starts_with(&turn.text()), "{said:?}");
    assert!(said.ends_with("[interrupted]"), "{said:?}");
}

#[tokio::test]
async fn cancel_while_asking_writes_nothing_and_runs_no_later_call() {
    let h = Harness::new(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "new.txt", "content": "hello\n"}),
        )
        .and_tool("list_files", json!({})),
        Reply::text("OK.").expect_messages_contain("Not run: the user cancelled the turn."),
    ]));
    let mut running = h.start("Write new.txt", vec![Answer::Never]);
    running.asked().await;
    h.agent.cancel(&h.session).unwrap();
    let turn = running.end().await;

    assert_eq!(turn.stop_reason(), StopReason::Cancelled, "{turn}");
    assert!(!h.root().join("new.txt").exists());
    let results = turn.results();
    assert_eq!(results.len(), 1, "the second call is not run: {turn}");
    assert_eq!(results[0].0, ToolStatus::Rejected);

    // Every call of the answer has its result in the conversation, so the next request is valid.
    let next = h.turn("Never mind", Vec::new()).await;
    assert_eq!(next.stop_reason(), StopReason::EndTurn, "{next}");
    let requests = h.requests();
    assert_eq!(requests[1].messages_with_role("tool").len(), 2);
}

// `sleep` is a Unix command; the cancel itself is the same code everywhere.
#[cfg(unix)]
#[tokio::test]
async fn cancel_mid_command_stops_it() {
    let h = Harness::new(Scenario::new([Reply::tool(
        "execute_command",
        json!({"command": "echo started && sleep 600"}),
    )]));
    let mut running = h.start("Wait", vec![Answer::accept()]);
    running
        .until(
            "the command's output",
            |e| matches!(e, Event::ToolOutput { delta, .. } if delta.contains("started")),
        )
        .await;
    h.agent.cancel(&h.session).unwrap();
    // Ends only once the command is stopped: a 600 s sleep would outlast the safety net.
    let turn = running.end().await;
    assert_eq!(turn.stop_reason(), StopReason::Cancelled, "{turn}");
    assert_eq!(turn.results()[0].0, ToolStatus::Error, "{turn}");
    assert_eq!(h.requests().len(), 1);
}

#[tokio::test]
async fn a_prompt_while_a_turn_runs_is_refused_and_a_cancel_with_nothing_running_is_fine() {
    let h = Harness::new(Scenario::new([Reply::text("slow").stall_after(2)]));
    h.agent.cancel(&h.session).unwrap();
    let running = h.start("First", Vec::new());
    let refused = h
        .agent
        .prompt(&h.session, "Second".into(), Vec::new(), h.idle_face())
        .unwrap_err();
    assert!(refused.to_string().contains("already running"), "{refused}");
    h.agent.cancel(&h.session).unwrap();
    assert_eq!(running.end().await.stop_reason(), StopReason::Cancelled);
}

#[tokio::test]
async fn shutdown_returns_once_the_turn_it_cancels_has_ended() {
    let h = Harness::new(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "new.txt", "content": "hello\n"}),
        ),
        Reply::text("Again."),
    ]));
    let mut running = h.start("Write new.txt", vec![Answer::Never]);
    running.asked().await;
    h.agent.shutdown().await;
    // Shutdown waited for the turn's end, not for a while: the session takes a prompt at once.
    let next = h.start("Hello", Vec::new());
    let turn = running.end().await;
    assert_eq!(turn.stop_reason(), StopReason::Cancelled, "{turn}");
    assert!(!h.root().join("new.txt").exists());
    assert_eq!(next.end().await.stop_reason(), StopReason::EndTurn);
}
