//! Steps: a tool call and its result go back to the model; the step cap; tool errors as results.

use crate::support::*;
use mock_model::{Reply, Scenario};
use serde_json::json;
use tandem_agent::events::{Event, StopReason, ToolStatus};
use tandem_tools::ErrorKind;

#[tokio::test]
async fn a_tool_result_goes_back_to_the_model_and_its_answer_ends_the_turn() {
    let h = Harness::new(Scenario::new([
        Reply::tool("read_file", json!({"path": "notes.txt"})).with_text("Let me look."),
        Reply::text("It says alpha.").expect_tool_result_contains("alpha"),
    ]));
    h.write("notes.txt", "alpha\n");
    let turn = h.turn("What is in notes.txt?", Vec::new()).await;

    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(turn.text(), "Let me look.It says alpha.");
    let results = turn.results();
    assert_eq!(results.len(), 1, "{turn}");
    assert_eq!(results[0].0, ToolStatus::Ok);
    assert!(results[0].1.contains("alpha"), "{:?}", results[0]);
    // The order a face relies on: started, the call, its result, the end.
    let kinds: Vec<&str> = turn
        .events
        .iter()
        .filter_map(|e| match e {
            Event::TurnStarted { .. } => Some("started"),
            Event::ToolCall(_) => Some("call"),
            Event::ToolResult { .. } => Some("result"),
            Event::TurnEnded { .. } => Some("ended"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["started", "call", "result", "ended"]);

    let requests = h.requests();
    assert_eq!(requests.len(), 2);
    let call_id = match turn.events.iter().find(|e| matches!(e, Event::ToolCall(_))) {
        Some(Event::ToolCall(call)) => call.tool_call_id.clone(),
        _ => unreachable!(),
    };
    let tool_message = requests[1]
        .messages_with_role("tool")
        .into_iter()
        .find(|m| m["tool_call_id"] == call_id.as_str())
        .expect("the result goes back under the call's id");
    assert!(tool_message["content"].as_str().unwrap().contains("alpha"));
}

#[tokio::test]
async fn the_step_cap_ends_a_turn_that_keeps_calling_tools() {
    let list = || Reply::tool("list_files", json!({}));
    let h = Harness::with(
        Scenario::new([list(), list(), list()]),
        Setup {
            max_steps: 2,
            ..Setup::default()
        },
    );
    h.write("a.txt", "a\n");
    let turn = h.turn("List forever", Vec::new()).await;

    assert_eq!(turn.stop_reason(), StopReason::MaxSteps, "{turn}");
    assert_eq!(turn.results().len(), 2);
    assert!(turn.results()[0].1.contains("a.txt"));
    assert_eq!(h.requests().len(), 2, "no request past the cap");
}

#[tokio::test]
async fn tool_errors_go_back_to_the_model_and_the_turn_goes_on() {
    let h = Harness::new(Scenario::new([
        Reply::tool("read_file", json!({"path": "missing.txt"}))
            .and_tool("read_file", json!({"path": 42}))
            .and_tool("delete_everything", json!({})),
        Reply::text("Sorry.").expect_tool_result_contains("delete_everything"),
    ]));
    let turn = h.turn("Read missing.txt", Vec::new()).await;

    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let results = turn.results();
    assert_eq!(results.len(), 3, "{turn}");
    for (status, output) in &results {
        assert_eq!(*status, ToolStatus::Error, "{output}");
        assert!(output.starts_with("Error ("), "{output}");
    }
    assert!(results[0].1.contains("missing.txt"), "{}", results[0].1);
    // The kind goes to the face as a kind, not as words to find again.
    assert_eq!(
        turn.error_kinds(),
        [
            Some(ErrorKind::NoSuchFile),
            Some(ErrorKind::InvalidArguments),
            Some(ErrorKind::UnknownTool)
        ]
    );
    assert!(results[1].1.contains("invalid"), "{}", results[1].1);
    assert!(
        results[2].1.contains("delete_everything") && results[2].1.contains("read_file"),
        "the error names the tool and the real ones: {}",
        results[2].1
    );
    // Each error is the model's to read, word for word.
    let requests = h.requests();
    let told: Vec<String> = requests[1]
        .messages_with_role("tool")
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    let outputs: Vec<String> = results.into_iter().map(|(_, o)| o).collect();
    assert_eq!(told, outputs);
}

#[tokio::test]
async fn a_call_without_an_id_gets_one_that_its_result_carries() {
    // Some local servers send no call id.
    let mut call = Reply::tool("list_files", json!(""));
    call.tool_calls[0].id = Some(String::new());
    let h = Harness::new(Scenario::new([call, Reply::text("One file.")]));
    h.write("a.txt", "a\n");
    let turn = h.turn("List", Vec::new()).await;

    let (call_id, result_id) = match (
        turn.events.iter().find(|e| matches!(e, Event::ToolCall(_))),
        turn.events
            .iter()
            .find(|e| matches!(e, Event::ToolResult { .. })),
    ) {
        (Some(Event::ToolCall(call)), Some(Event::ToolResult { tool_call_id, .. })) => {
            (call.tool_call_id.clone(), tool_call_id.clone())
        }
        _ => panic!("no call and result: {turn}"),
    };
    assert!(call_id.as_str().starts_with("call_"), "{call_id}");
    assert_eq!(result_id, call_id);
    // The model sees one id on its call and on the result.
    let requests = h.requests();
    let assistant = &requests[1].messages_with_role("assistant")[0];
    assert_eq!(assistant["tool_calls"][0]["id"], call_id.as_str());
    assert_eq!(
        requests[1].messages_with_role("tool")[0]["tool_call_id"],
        call_id.as_str()
    );
}
