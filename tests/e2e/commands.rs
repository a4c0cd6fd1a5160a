//! Commands put to the user and run.

use crate::support::*;

#[tokio::test]
async fn an_approved_command_streams_its_output_and_exit_code() {
    let env = Env::new();
    // `touch` is on no rule, so it asks (the echoes alone would run unasked inside the walls).
    let command = "touch made.txt && echo hello && echo err >&2";
    let mock = MockServer::start(Scenario::new([
        Reply::tool("execute_command", json!({"command": command})),
        Reply::text("It printed hello.").expect_tool_result_contains("hello"),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem.reply_approvals([reply::accept()]).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Say hello").await;

    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 1, "{approvals:#?}");
    assert_eq!(approvals[0]["kind"], "command");
    assert_eq!(approvals[0]["command"], command);
    assert_eq!(approvals[0]["cwd"], env.workspace.display().to_string());
    assert!(
        matches!(
            typed_approval(&approvals[0]),
            ApprovalAction::Command { .. }
        ),
        "{:?}",
        approvals[0]
    );

    // The command's write (made.txt) is told by the face as it renders a FilesChanged event
    // (issue 31's faces), left out here.
    let kinds: Vec<String> = turn
        .kinds()
        .into_iter()
        .filter(|k| k != "modelNotice" && k != "filesChanged")
        .collect();
    assert_eq!(
        kinds,
        [
            "turnStarted",
            "usage",
            "toolCall",
            "toolOutput",
            "toolResult",
            "text",
            "usage",
            "turnEnded"
        ],
        "{turn}"
    );
    let call = turn.tool_calls()[0]["toolCallId"].as_str().unwrap();
    let streamed = turn.tool_output(call);
    assert!(
        streamed.contains("hello") && streamed.contains("err"),
        "{streamed:?}"
    );
    let result = turn.tool_result();
    assert_eq!(result["status"], "ok", "{result}");
    let output = result["output"].as_str().unwrap();
    assert!(
        output.contains("hello") && output.contains("err") && output.contains("exit code 0"),
        "{output}"
    );
    assert!(env.workspace.join("made.txt").exists());

    let requests = model_requests(&mock);
    assert_eq!(tool_message(&requests[1], call), output);
}

#[tokio::test]
async fn a_failing_command_reports_its_exit_code() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "execute_command",
            json!({"command": "echo broken >&2; exit 3"}),
        ),
        Reply::text("It failed.").expect_tool_result_contains("exit code 3"),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem.reply_approvals([reply::accept()]).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Run it").await;
    let result = turn.tool_result();
    assert_eq!(result["status"], "error", "{result}");
    let output = result["output"].as_str().unwrap();
    assert!(
        output.contains("broken") && output.contains("exit code 3"),
        "{output}"
    );
    assert_eq!(turn.stop_reason(), "endTurn");
    model_requests(&mock);
}
