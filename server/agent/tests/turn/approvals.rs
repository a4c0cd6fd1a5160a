//! Approvals: an edit accepted, rejected with feedback, allowed by the policy, allowed for the
//! session; a question nobody answers; a command put to the user.

use std::time::Duration;

use crate::support::*;
use mock_model::{Reply, Scenario};
use serde_json::json;
use tandem_agent::approval::{
    ApprovalAction, ApprovalPolicy, ApprovalReply, AutoApprove, Decision,
};
use tandem_agent::events::{Event, StopReason, ToolStatus};
use tandem_tools::ErrorKind;

const ORIGINAL: &str = "pub fn answer() -> u32 {\n    41\n}\n";
const PROPOSED: &str = "pub fn answer() -> u32 {\n    42\n}\n";
/// `replace_in_file`'s SEARCH/REPLACE block turning ORIGINAL into PROPOSED.
const EDIT: &str = "------- SEARCH\n    41\n=======\n    42\n+++++++ REPLACE";

fn edit() -> Reply {
    Reply::tool(
        "replace_in_file",
        json!({"path": "src/answer.rs", "diff": EDIT}),
    )
}

/// The model edits `src/answer.rs`, then says `then`.
fn edit_then(then: Reply) -> Harness {
    let h = Harness::new(Scenario::new([edit(), then]));
    h.write("src/answer.rs", ORIGINAL);
    h
}

#[tokio::test]
async fn an_accepted_edit_is_written_and_its_diff_shown() {
    let h = edit_then(Reply::text("Now 42.").expect_tool_result_contains("Applied the edit"));
    let mut running = h.start("Make it 42", vec![Answer::accept()]);
    let question = running.asked().await;
    let turn = running.end().await;

    let ApprovalAction::Edit(edit) = &question.action else {
        panic!("not an edit: {question:?}");
    };
    assert_eq!(edit.path, h.root().join("src/answer.rs"));
    assert_eq!(edit.original.as_deref(), Some(ORIGINAL));
    assert_eq!(edit.proposed, PROPOSED);
    assert_eq!(question.session_id, h.session);
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(h.read("src/answer.rs"), PROPOSED);
    let diff = turn.events.iter().find_map(|e| match e {
        Event::ToolResult {
            tool_call_id,
            status: ToolStatus::Ok,
            diff: Some(diff),
            ..
        } => Some((tool_call_id, diff)),
        _ => None,
    });
    let (call_id, diff) = diff.expect("an ok result with its diff");
    assert_eq!(*call_id, question.tool_call_id);
    assert_eq!((diff.added, diff.removed), (1, 1));
    h.requests();
}

#[tokio::test]
async fn a_rejection_leaves_the_file_and_tells_the_model_why() {
    let h = edit_then(Reply::text("OK.").expect_tool_result_contains("use a constant"));
    let turn = h
        .turn("Make it 42", vec![Answer::reject("use a constant")])
        .await;

    assert_eq!(h.read("src/answer.rs"), ORIGINAL);
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let results = turn.results();
    assert_eq!(results[0].0, ToolStatus::Rejected);
    assert!(
        results[0].1.contains("rejected") && results[0].1.contains("use a constant"),
        "{}",
        results[0].1
    );
    assert_eq!(h.requests().len(), 2);
}

#[tokio::test]
async fn an_edit_the_policy_allows_is_written_without_asking() {
    let h = Harness::with(
        Scenario::new([edit(), Reply::text("Done.")]),
        Setup {
            policy: ApprovalPolicy {
                auto_approve: AutoApprove {
                    edit: true,
                    command: false,
                },
                ..ApprovalPolicy::default()
            },
            ..Setup::default()
        },
    );
    h.write("src/answer.rs", ORIGINAL);
    // Any question would wait forever: the turn ends only if none is asked.
    let turn = h.turn("Make it 42", vec![Answer::Never]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(h.read("src/answer.rs"), PROPOSED);
}

#[tokio::test]
async fn accept_always_holds_for_the_rest_of_the_session() {
    let second = Reply::tool(
        "replace_in_file",
        json!({"path": "src/answer.rs", "diff": "------- SEARCH\n    42\n=======\n    43\n+++++++ REPLACE"}),
    );
    let h = Harness::new(Scenario::new([edit(), second, Reply::text("43.")]));
    h.write("src/answer.rs", ORIGINAL);
    let always = ApprovalReply {
        decision: Decision::AcceptAlways,
        ..ApprovalReply::accept()
    };
    // One answer for two edits: the second must not be asked.
    let turn = h
        .turn("Make it 43", vec![Answer::Reply(always), Answer::Never])
        .await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert!(h.read("src/answer.rs").contains("43"));
    assert_eq!(turn.results().len(), 2);
}

#[tokio::test]
async fn a_question_nobody_answers_times_out_after_the_default_600_s_as_a_rejection() {
    let h = Harness::new(Scenario::new([
        edit(),
        Reply::text("Nobody answered.").expect_tool_result_contains("Nobody answered within 600 s"),
    ]));
    h.write("src/answer.rs", ORIGINAL);
    let mut running = h.start("Make it 42", vec![Answer::Never]);
    running.asked().await;
    // Ten minutes in no time: the clock is paused only while nothing but the question waits
    // (the model's HTTP exchanges before and after run on the real clock), and one second short
    // of the limit the question is still open.
    tokio::time::pause();
    tokio::time::advance(Duration::from_secs(599)).await;
    let answered = |e: &Event| matches!(e, Event::ToolResult { .. });
    assert!(
        !running.seen_now(answered).await,
        "answered before its time"
    );
    tokio::time::advance(Duration::from_secs(1)).await;
    tokio::time::resume();
    let turn = running.end().await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(turn.results()[0].0, ToolStatus::Rejected);
    assert_eq!(h.read("src/answer.rs"), ORIGINAL);
    h.requests();
}

#[tokio::test]
async fn a_rejected_command_does_not_run() {
    let h = Harness::new(Scenario::new([
        Reply::tool("execute_command", json!({"command": "touch made.txt"})),
        Reply::text("Not run.").expect_tool_result_contains("rejected"),
    ]));
    let mut running = h.start("Make a file", vec![Answer::reject("no")]);
    let question = running.asked().await;
    let turn = running.end().await;
    let ApprovalAction::Command(command) = &question.action else {
        panic!("not a command: {question:?}");
    };
    assert_eq!(command.command, "touch made.txt");
    assert_eq!(turn.results()[0].0, ToolStatus::Rejected, "{turn}");
    assert!(!h.root().join("made.txt").exists());
    h.requests();
}

#[tokio::test]
async fn an_accepted_command_runs_and_its_output_streams() {
    let h = Harness::new(Scenario::new([
        Reply::tool(
            "execute_command",
            json!({"command": "echo hello-from-the-command"}),
        ),
        Reply::text("Ran.").expect_tool_result_contains("hello-from-the-command"),
    ]));
    let turn = h.turn("Say hello", vec![Answer::accept()]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let streamed: String = turn
        .events
        .iter()
        .filter_map(|e| match e {
            Event::ToolOutput { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert!(streamed.contains("hello-from-the-command"), "{turn}");
    assert_eq!(turn.results()[0].0, ToolStatus::Ok, "{turn}");
    h.requests();
}

#[tokio::test]
async fn an_edit_whose_file_changed_while_asking_is_not_written_and_is_stale() {
    let h = Harness::new(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "notes.txt", "content": "the model's\n"}),
        ),
        Reply::text("I will read it again.").expect_tool_result_contains("stale"),
    ]));
    h.write("notes.txt", "before\n");
    let (answer, later) = tokio::sync::oneshot::channel();
    let mut running = h.start("Rewrite notes.txt", vec![Answer::Later(later)]);
    running.asked().await;
    h.write("notes.txt", "the user's\n");
    answer.send(ApprovalReply::accept()).unwrap();
    let turn = running.end().await;

    assert_eq!(h.read("notes.txt"), "the user's\n");
    assert_eq!(turn.results()[0].0, ToolStatus::Error, "{turn}");
    assert_eq!(turn.error_kinds(), [Some(ErrorKind::Stale)]);
    h.requests();
}
