//! The model's plan (`update_plan`) and plan mode (read-only), through `tandem/*`.

use crate::support::*;

fn plan_call(steps: Value) -> Reply {
    Reply::tool(
        "update_plan",
        json!({"explanation": "first look", "plan": steps}),
    )
}

/// The names of the tools a request offered.
fn offered(request: &RecordedRequest) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn the_plan_is_shown_updated_kept_and_bad_plans_are_refused() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        plan_call(json!([
            {"step": "Read the parser", "status": "in_progress"},
            {"step": "Fix it", "status": "pending"}
        ])),
        // Two steps under way at once: refused, and the shown plan stays as it was.
        Reply::tool(
            "update_plan",
            json!({"plan": [
                {"step": "a", "status": "in_progress"},
                {"step": "b", "status": "in_progress"}
            ]}),
        ),
        Reply::tool(
            "update_plan",
            json!({"plan": [
                {"step": "Read the parser", "status": "completed"},
                {"step": "Fix it", "status": "in_progress"}
            ]}),
        ),
        Reply::text("Planned."),
    ]));
    let mut tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Fix the parser").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let plans = turn.of_kind("plan");
    assert_eq!(plans.len(), 2, "{turn}");
    assert_eq!(plans[0]["explanation"], "first look");
    assert_eq!(
        plans[0]["entries"],
        json!([
            {"step": "Read the parser", "status": "inProgress"},
            {"step": "Fix it", "status": "pending"}
        ])
    );
    assert_eq!(plans[1]["entries"][0]["status"], "completed");
    // A valid plan is a plan, not a tool call; the bad one is a failed call the user sees.
    let calls = turn.of_kind("toolCall");
    assert_eq!(calls.len(), 1, "{turn}");
    let failed = turn.tool_result();
    assert_eq!(failed["status"], "error", "{failed}");
    let requests = model_requests(&mock);
    assert!(offered(&requests[0]).contains(&"update_plan".to_string()));
    let told = requests[2].last_tool_result().unwrap();
    assert!(told.contains("at most one step is in_progress"), "{told}");
    let told = requests[1].last_tool_result().unwrap();
    assert_eq!(
        told,
        "Plan updated: 2 steps (0 completed, 1 in progress, 1 pending)."
    );

    // Kept in the transcript: a restarted sidecar replays both plans.
    assert!(tandem.shutdown().await.success());
    let again = Sidecar::start(&env, &mock, Options::default()).await;
    let loaded = again
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .unwrap();
    let history = Turn::new(loaded["entries"].as_array().unwrap().clone());
    assert_eq!(history.of_kind("plan").len(), 2, "{loaded:#}");
    assert_eq!(history.of_kind("plan")[1]["entries"], plans[1]["entries"]);
}

#[tokio::test]
async fn plan_mode_offers_no_writes_and_refuses_them_without_asking() {
    let env = Env::new();
    env.write("notes.txt", "alpha\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "notes.txt", "content": "gone\n"}),
        )
        .and_tool("execute_command", json!({"command": "rm notes.txt"}))
        .and_tool("read_file", json!({"path": "notes.txt"})),
        Reply::text("I can only read."),
        Reply::tool(
            "write_to_file",
            json!({"path": "notes.txt", "content": "beta\n"}),
        ),
        Reply::text("Written."),
    ]));
    let mut tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let unknown = tandem
        .request(
            "tandem/setMode",
            json!({"sessionId": session, "mode": "yolo"}),
        )
        .await
        .unwrap_err();
    assert!(unknown.message.contains("yolo"), "{unknown:?}");
    tandem
        .request(
            "tandem/setMode",
            json!({"sessionId": session, "mode": "plan"}),
        )
        .await
        .unwrap();

    let turn = tandem.run_turn(&session, "Clean up the notes").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert!(tandem.approvals().is_empty(), "{:#?}", tandem.approvals());
    let results = turn.of_kind("toolResult");
    assert_eq!(results.len(), 3, "{turn}");
    assert_eq!(results[0]["status"], "rejected");
    assert_eq!(results[1]["status"], "rejected");
    assert_eq!(results[2]["status"], "ok");
    assert_eq!(env.read("notes.txt"), "alpha\n");

    let requests = model_requests(&mock);
    let tools = offered(&requests[0]);
    for absent in ["write_to_file", "replace_in_file", "execute_command"] {
        assert!(!tools.contains(&absent.to_string()), "{tools:?}");
    }
    for present in ["read_file", "list_files", "search_files", "update_plan"] {
        assert!(tools.contains(&present.to_string()), "{tools:?}");
    }
    let user = requests[0].messages_with_role("user");
    assert!(
        user.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .contains("Plan mode (read-only)")
    );
    let refused = tool_message(&requests[1], "call_1_0");
    assert!(refused.contains("read-only"), "{refused}");

    // The mode outlives the sidecar (it is in the transcript); switching back offers writes.
    assert!(tandem.shutdown().await.success());
    let again = Sidecar::start(&env, &mock, Options::default()).await;
    again
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .unwrap();
    again
        .request(
            "tandem/setMode",
            json!({"sessionId": session, "mode": "default"}),
        )
        .await
        .unwrap();
    again.reply_approvals([reply::accept()]).await;
    let turn = again.run_turn(&session, "Now write it").await;
    assert_eq!(turn.tool_result()["status"], "ok", "{turn}");
    assert_eq!(env.read("notes.txt"), "beta\n");
    let requests = model_requests(&mock);
    assert!(offered(&requests[2]).contains(&"write_to_file".to_string()));
}

#[tokio::test]
async fn plan_mode_survives_a_restart() {
    let env = Env::new();
    env.write("notes.txt", "alpha\n");
    let mock = MockServer::start(Scenario::new([
        Reply::text("Looked."),
        Reply::tool(
            "write_to_file",
            json!({"path": "notes.txt", "content": "gone\n"}),
        ),
        Reply::text("Refused, fine."),
    ]));
    let mut tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    tandem
        .request(
            "tandem/setMode",
            json!({"sessionId": session, "mode": "plan"}),
        )
        .await
        .unwrap();
    tandem.run_turn(&session, "Look around").await;
    assert!(tandem.shutdown().await.success());

    let again = Sidecar::start(&env, &mock, Options::default()).await;
    let turn = again.run_turn(&session, "Now change it").await;
    assert_eq!(turn.tool_result()["status"], "rejected", "{turn}");
    assert!(again.approvals().is_empty());
    assert_eq!(env.read("notes.txt"), "alpha\n");
    model_requests(&mock);
}
