//! Sessions outliving the sidecar: listed, replayed and continued after a restart or a crash.

use crate::support::*;

/// The kinds of a history, usage left out (it is bookkeeping, not conversation).
fn history_kinds(entries: &[Value]) -> Vec<String> {
    Turn::new(entries.to_vec())
        .kinds()
        .into_iter()
        .filter(|k| k != "usage")
        .collect()
}

#[tokio::test]
async fn a_session_resumes_after_a_clean_restart() {
    let env = Env::new();
    env.write("notes.txt", "alpha\nbeta\n");
    let mock = MockServer::start(scenario("resume"));

    let mut first = Sidecar::start(&env, &mock, Options::default()).await;
    let session = first.new_session().await;
    let turn = first.run_turn(&session, "Summarize notes.txt").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let status = first.shutdown().await;
    assert!(status.success(), "tandem exited with {status}");

    let second = Sidecar::start(&env, &mock, Options::default()).await;
    let listed = second
        .request("tandem/listSessions", Value::Null)
        .await
        .unwrap();
    let listed = listed["sessions"].as_array().unwrap();
    let entry = listed
        .iter()
        .find(|s| s["sessionId"] == session.as_str())
        .unwrap_or_else(|| panic!("{session} not listed: {listed:#?}"));
    assert_eq!(entry["title"], "Summarize notes.txt");
    assert_eq!(entry["root"], env.workspace.display().to_string());

    let loaded = second
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(loaded["sessionId"], session.as_str());
    let entries = loaded["entries"].as_array().unwrap();
    assert_eq!(
        history_kinds(entries),
        [
            "turnStarted",
            "text",
            "toolCall",
            "toolResult",
            "text",
            "turnEnded"
        ],
        "{entries:#?}"
    );
    let history = Turn::new(entries.clone());
    assert_eq!(history.updates[0]["prompt"], "Summarize notes.txt");
    assert_eq!(history.text(), "Reading it.It lists alpha and beta.");
    assert_eq!(history.tool_calls()[0]["toolCallId"], "call_resume_read");
    let result = history.tool_result();
    assert_eq!(result["status"], "ok");
    assert!(result["output"].as_str().unwrap().contains("alpha"));
    assert_eq!(history.stop_reason(), "endTurn");
    // The history is what the client saw live.
    for live in turn.updates.iter().filter(|u| u["kind"] != "text") {
        assert!(entries.contains(live), "{live} missing from the history");
    }

    // A new prompt continues the conversation with all of it.
    let next = second.run_turn(&session, "And now?").await;
    assert_eq!(next.stop_reason(), "endTurn", "{next}");
    assert_eq!(next.text(), "Still remembered.");
    let turn_ids: Vec<&Value> = entries.iter().map(|e| &e["turnId"]).collect();
    assert!(
        !turn_ids.contains(&&next.updates[0]["turnId"]),
        "the new turn reuses an old turn id: {}",
        next.updates[0]["turnId"]
    );
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 3);
    let resumed = &requests[2];
    assert_eq!(
        roles(resumed),
        ["system", "user", "assistant", "tool", "assistant", "user"]
    );
    assert!(tool_message(resumed, "call_resume_read").contains("alpha"));
    let texts = resumed.message_texts();
    assert!(texts[1].contains("Summarize notes.txt"));
    assert_eq!(texts[4], "It lists alpha and beta.");
    assert!(texts[5].contains("And now?"));
    assert_eq!(
        resumed.messages()[2]["tool_calls"][0]["id"],
        "call_resume_read"
    );
}

#[tokio::test]
async fn a_session_resumes_after_a_crash_mid_turn() {
    let env = Env::new();
    env.write("src/answer.rs", crate::approvals::ORIGINAL);
    let mock = MockServer::start(crate::approvals::edit_then(
        Reply::text("Let me try again.").expect_messages_contain("Make the answer 42"),
    ));

    let first = Sidecar::start(&env, &mock, Options::default()).await;
    let session = first.new_session().await;
    first.prompt(&session, "Make the answer 42").await;
    // The sidecar dies while the user is being asked.
    first.wait_for_approvals(1).await;
    first.kill().await;

    let second = Sidecar::start(&env, &mock, Options::default()).await;
    let listed = second
        .request("tandem/listSessions", Value::Null)
        .await
        .unwrap();
    let entry = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == session.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("{session} not listed: {listed:#}"));
    assert_eq!(entry["title"], "Make the answer 42");
    let loaded = second
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .unwrap();
    let entries = loaded["entries"].as_array().unwrap();
    let kinds = history_kinds(entries);
    assert_eq!(
        kinds[..3],
        ["turnStarted", "text", "toolCall"],
        "{entries:#?}"
    );

    let next = second.run_turn(&session, "Are you there?").await;
    assert_eq!(next.stop_reason(), "endTurn", "{next}");
    assert_eq!(env.read("src/answer.rs"), crate::approvals::ORIGINAL);
    // The model gets a valid conversation: the interrupted call has a result.
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 2);
    let resumed = &requests[1];
    let call = resumed.messages()[2]["tool_calls"][0]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{:#?}", resumed.messages()))
        .to_string();
    assert!(!tool_message(resumed, &call).is_empty());
    assert_eq!(
        roles(resumed),
        ["system", "user", "assistant", "tool", "user"]
    );
    assert!(resumed.message_texts()[4].contains("Are you there?"));
}

#[tokio::test]
async fn unknown_sessions_are_refused_with_their_code() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::default());
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    for (method, params) in [
        (
            "tandem/prompt",
            json!({"sessionId": "nosuchsession", "text": "hi"}),
        ),
        ("tandem/loadSession", json!({"sessionId": "nosuchsession"})),
        ("tandem/cancel", json!({"sessionId": "nosuchsession"})),
        // Not an id we could have made: must not be taken as a path.
        (
            "tandem/loadSession",
            json!({"sessionId": "../../etc/passwd"}),
        ),
    ] {
        let error = tandem
            .request(method, params)
            .await
            .expect_err("an unknown session must be refused");
        assert_eq!(error.code, 1001, "{method}: {error:?}");
        assert!(!error.message.is_empty());
    }
    assert!(mock.chat_requests().is_empty());
}

#[tokio::test]
async fn undo_puts_files_back_after_a_restart() {
    let env = Env::new();
    env.write("src/answer.rs", crate::approvals::ORIGINAL);
    let mock = MockServer::start(crate::approvals::edit_then(Reply::text("Done.")));
    let mut first = Sidecar::start(&env, &mock, Options::default()).await;
    first.reply_approvals([reply::accept()]).await;
    let session = first.new_session().await;
    first.run_turn(&session, "Make the answer 42").await;
    assert_eq!(env.read("src/answer.rs"), crate::approvals::PROPOSED);
    first.shutdown().await;

    let second = Sidecar::start(&env, &mock, Options::default()).await;
    let undone = second
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(
        undone,
        json!({"restored": ["src/answer.rs"], "conflicts": [], "needsConfirmation": false})
    );
    assert_eq!(env.read("src/answer.rs"), crate::approvals::ORIGINAL);
    let again = second
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(
        again["restored"],
        json!([]),
        "nothing left to undo: {again}"
    );
}

/// The session file of `session` in the data dir.
fn transcript_of(env: &Env, session: &str) -> std::path::PathBuf {
    env.data_dir
        .join("sessions")
        .join(format!("{session}.jsonl"))
}

#[tokio::test]
async fn a_session_whose_workspace_is_gone_says_so() {
    let env = Env::new();
    let mock = MockServer::start(scenario("resume"));
    let mut sidecar = Sidecar::start(&env, &mock, Options::default()).await;
    let elsewhere = env.workspace.join("moved");
    std::fs::create_dir(&elsewhere).unwrap();
    let session = sidecar
        .request("tandem/newSession", json!({"root": elsewhere}))
        .await
        .unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    sidecar.shutdown().await;
    std::fs::remove_dir(&elsewhere).unwrap();

    let again = Sidecar::start(&env, &mock, Options::default()).await;
    let error = again
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .expect_err("the workspace is gone");
    assert_eq!(error.code, 1004, "{error:?}");
    assert!(
        error.message.contains(&elsewhere.display().to_string())
            && error.message.contains("restore the folder"),
        "{error:?}"
    );
    let unknown = again
        .request("tandem/loadSession", json!({"sessionId": "0123abcd"}))
        .await
        .expect_err("no such session");
    assert_eq!(unknown.code, 1001, "{unknown:?}");
}

#[tokio::test]
async fn unreadable_transcript_lines_are_counted_not_silently_dropped() {
    let env = Env::new();
    env.write("notes.txt", "alpha\nbeta\n");
    let mock = MockServer::start(scenario("resume"));
    let mut first = Sidecar::start(&env, &mock, Options::default()).await;
    let session = first.new_session().await;
    let turn = first.run_turn(&session, "Summarize notes.txt").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    first.shutdown().await;

    // A record from a future Tandem, and a line torn by a crash.
    let path = transcript_of(&env, &session);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"type\":\"hologram\",\"turnId\":\"t1\"}\n{\"type\":\"update\",\"tu\n");
    std::fs::write(&path, text).unwrap();

    let second = Sidecar::start(&env, &mock, Options::default()).await;
    let loaded = second
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(loaded["unreadableLines"], 2, "{loaded}");
    assert_eq!(
        Turn::new(loaded["entries"].as_array().unwrap().clone()).stop_reason(),
        "endTurn"
    );
    let stderr = second.stderr();
    assert!(
        stderr.contains("line") && stderr.contains("skipped"),
        "{stderr}"
    );
}

/// A transcript Tandem wrote before transcripts carried a format version loads, replays and
/// continues.
#[tokio::test]
async fn a_transcript_of_format_1_loads_and_continues() {
    let env = Env::new();
    env.write("notes.txt", "alpha\nbeta\ngamma\n");
    let fixture = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/transcripts/format-1.jsonl"
    ))
    .unwrap();
    let session = "20bf33622d9343959c06cd2000e1cbac";
    // Its workspace, in the place of the one it was written in.
    let text = fixture.replace("\"/tmp/fx/ws\"", &json!(env.workspace).to_string());
    std::fs::create_dir_all(env.data_dir.join("sessions")).unwrap();
    std::fs::write(transcript_of(&env, session), text).unwrap();

    let mock = MockServer::start(Scenario::new([Reply::text("Still three lines.")]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let listed = tandem
        .request("tandem/listSessions", Value::Null)
        .await
        .unwrap();
    assert_eq!(
        listed["sessions"][0]["title"], "Add gamma to the notes",
        "{listed}"
    );
    let loaded = tandem
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(loaded["unreadableLines"], 0, "{loaded}");
    let entries = loaded["entries"].as_array().unwrap();
    assert_eq!(
        history_kinds(entries),
        [
            "turnStarted",
            "reasoning",
            "text",
            "toolCall",
            "toolResult",
            "toolCall",
            "toolResult",
            "toolCall",
            "toolResult",
            "text",
            "turnEnded"
        ],
        "{entries:#?}"
    );
    let history = Turn::new(entries.clone());
    let write = &history
        .updates
        .iter()
        .filter(|u| u["kind"] == "toolResult")
        .nth(1)
        .unwrap();
    assert!(
        write["diff"].as_str().unwrap().contains("+gamma"),
        "{write}"
    );

    // The conversation goes on with all of it.
    let next = tandem.run_turn(session, "How many lines now?").await;
    assert_eq!(next.text(), "Still three lines.", "{next}");
    let sent = &mock.chat_requests()[0];
    let roles = roles(sent);
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "user"
        ],
    );
}

/// The `window/showMessage` texts a plain client got so far.
fn shown_messages(tandem: &Sidecar) -> Vec<String> {
    tandem.inbox(|inbox| {
        inbox
            .other
            .iter()
            .filter(|m| m["method"] == "window/showMessage")
            .filter_map(|m| m["params"]["message"].as_str().map(String::from))
            .collect()
    })
}

#[tokio::test]
async fn a_plain_client_is_told_that_a_new_session_started() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("First answer."),
        Reply::text("Second answer."),
    ]));
    let tandem = Sidecar::spawn(&env);
    let mut params = initialize_params(&env, &mock, Options::default());
    params["capabilities"] = json!({});
    tandem.request("initialize", params).await.unwrap();
    tandem.rpc.notify("initialized", json!({})).await;
    let ask = |text: &str| json!({"command": "tandem.ask", "arguments": [text]});
    let first = tandem
        .request("workspace/executeCommand", ask("First"))
        .await
        .unwrap();
    wait_until("the first answer", || {
        shown_messages(&tandem).iter().any(|m| m == "First answer.")
    })
    .await;

    let new = tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.new", "arguments": []}),
        )
        .await
        .unwrap();
    assert_ne!(new["sessionId"], first["sessionId"]);
    let told = "Tandem: new session started; earlier ones can be resumed.";
    wait_until("the note that a new session started", || {
        shown_messages(&tandem).iter().any(|m| m == told)
    })
    .await;

    // The next question goes to the new session, without the first one's history.
    let second = tandem
        .request("workspace/executeCommand", ask("Second"))
        .await
        .unwrap();
    assert_eq!(second["sessionId"], new["sessionId"]);
    wait_until("the second answer", || {
        shown_messages(&tandem)
            .iter()
            .any(|m| m == "Second answer.")
    })
    .await;
    let second_prompt = model_requests(&mock)[1].message_texts().join("\n");
    assert!(!second_prompt.contains("First"), "{second_prompt}");
    let failures = mock.failures();
    assert!(failures.is_empty(), "{failures:#?}");
}
