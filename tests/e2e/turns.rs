//! Turns without approvals: a read, and tool calls the model got wrong.

use crate::support::*;

const TOOLS: [&str; 6] = [
    "read_file",
    "list_files",
    "search_files",
    "write_to_file",
    "replace_in_file",
    "execute_command",
];

#[tokio::test]
async fn a_turn_with_a_read_streams_the_answer_and_feeds_the_file_back() {
    let env = Env::new();
    env.write("notes.txt", "alpha\nbeta\n");
    let mock = MockServer::start(scenario("read-turn"));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "What is in notes.txt?").await;

    assert_eq!(turn.kinds(), ONE_TOOL_TURN, "{turn}");
    assert_eq!(turn.updates[0]["prompt"], "What is in notes.txt?");
    let call_at = turn
        .updates
        .iter()
        .position(|u| u["kind"] == "toolCall")
        .unwrap();
    let before = Turn::new(turn.updates[..call_at].to_vec());
    let after = Turn::new(turn.updates[call_at..].to_vec());
    assert_eq!(before.text(), "Let me look.");
    assert_eq!(after.text(), "The notes list alpha and beta.");

    let call = turn.tool_calls()[0];
    assert_eq!(call["toolCallId"], "call_read_1");
    assert_eq!(call["name"], "read_file");
    assert_eq!(call["arguments"], json!({"path": "notes.txt"}));
    let title = call["title"].as_str().unwrap();
    assert!(title.contains("notes.txt"), "title {title:?}");

    let result = turn.tool_result();
    assert_eq!(result["toolCallId"], "call_read_1");
    assert_eq!(result["status"], "ok");
    let output = result["output"].as_str().unwrap();
    // Numbered lines: line 1 holds alpha, line 2 beta.
    assert!(
        output
            .lines()
            .any(|l| l.contains("alpha") && l.trim_start().starts_with('1')),
        "{output}"
    );
    assert!(
        output
            .lines()
            .any(|l| l.contains("beta") && l.trim_start().starts_with('2')),
        "{output}"
    );

    let usage = turn.of_kind("usage")[1];
    assert_eq!(usage["promptTokens"], 120);
    assert_eq!(usage["completionTokens"], 8);
    assert_eq!(usage["contextWindow"], 32768);
    assert_eq!(turn.stop_reason(), "endTurn");
    assert_eq!(turn.end_error(), None, "{turn}");

    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    assert_eq!(first.body["model"], "mock-coder");
    assert_eq!(first.body["stream"], true);
    assert_eq!(
        first.headers.get("authorization").map(String::as_str),
        Some("Bearer sk-test-SECRET")
    );
    let offered: Vec<&str> = first.body["tools"]
        .as_array()
        .expect("tools offered")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    for name in TOOLS {
        assert!(offered.contains(&name), "{name} not offered: {offered:?}");
    }
    assert_eq!(roles(first), ["system", "user"]);
    assert!(first.message_texts()[1].contains("What is in notes.txt?"));

    // The second request carries the assistant's call and the file text as the tool result.
    let second = &requests[1];
    let assistant = second.messages_with_role("assistant");
    let assistant = assistant.last().expect("an assistant message");
    assert_eq!(assistant["content"], "Let me look.");
    assert_eq!(assistant["tool_calls"][0]["id"], "call_read_1");
    assert_eq!(assistant["tool_calls"][0]["type"], "function");
    assert_eq!(assistant["tool_calls"][0]["function"]["name"], "read_file");
    let arguments: Value = serde_json::from_str(
        assistant["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(arguments, json!({"path": "notes.txt"}));
    let fed_back = tool_message(second, "call_read_1");
    assert!(
        fed_back.contains("alpha") && fed_back.contains("beta"),
        "{fed_back}"
    );
    assert_eq!(roles(second), ["system", "user", "assistant", "tool"]);
}

#[tokio::test]
async fn malformed_tool_calls_are_errors_the_model_can_read() {
    let env = Env::new();
    env.write("notes.txt", "alpha\n");
    let mock = MockServer::start(scenario("malformed-args"));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Read notes.txt").await;

    // The turn goes on past the bad calls to the model's next answer.
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert!(
        turn.text()
            .ends_with("Sorry, I will call the tools properly.")
    );
    let calls = turn.tool_calls();
    assert_eq!(calls.len(), 3, "{turn}");
    // Unparseable arguments reach the client as the raw text.
    assert_eq!(calls[0]["arguments"], "{not json");
    assert_eq!(calls[2]["name"], "delete_everything");

    let results = turn.tool_results();
    assert_eq!(results.len(), 3, "{turn}");
    let output = |i: usize| {
        assert_eq!(results[i]["status"], "error", "{}", results[i]);
        results[i]["output"].as_str().unwrap().to_string()
    };
    let bad_json = output(0);
    assert!(
        bad_json.contains("invalid") && bad_json.contains("read_file"),
        "{bad_json}"
    );
    let bad_type = output(1);
    assert!(
        bad_type.contains("invalid") && (bad_type.contains("path") || bad_type.contains("42")),
        "{bad_type}"
    );
    let unknown = output(2);
    assert!(
        unknown.contains("delete_everything") && unknown.contains("read_file"),
        "the error should name the tool and the real ones: {unknown}"
    );

    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 2);
    assert_eq!(tool_message(&requests[1], "call_bad_json"), bad_json);
    assert_eq!(tool_message(&requests[1], "call_bad_type"), bad_type);
    assert_eq!(tool_message(&requests[1], "call_unknown"), unknown);
}

#[tokio::test]
async fn reasoning_streams_separately_from_the_answer() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::text("Four.")
        .with_reasoning("Two plus two is four.")
        .chunk_size(3)]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "2+2?").await;
    assert_eq!(
        turn.kinds(),
        ["turnStarted", "reasoning", "text", "usage", "turnEnded"],
        "{turn}"
    );
    let reasoning: String = turn
        .of_kind("reasoning")
        .iter()
        .filter_map(|u| u["delta"].as_str())
        .collect();
    assert_eq!(reasoning, "Two plus two is four.");
    assert_eq!(turn.text(), "Four.");
}

#[tokio::test]
async fn attached_context_reaches_the_model_but_not_the_title() {
    let env = Env::new();
    env.write("src/lib.rs", "line one\nline two\nline three\n");
    let mock = MockServer::start(Scenario::new([Reply::text("Line two says two.")]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let selection =
        json!({"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}});
    let turn_ref = tandem
        .try_prompt_with(
            json!({"sessionId": session, "text": "Explain this", "context": [
                {"path": "src/lib.rs", "range": selection},
                {"path": "draft.rs", "text": "fn unsaved_draft() {}"}
            ]}),
        )
        .await
        .unwrap();
    let turn = tandem.wait_for_turn_end(&turn_ref).await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(turn.updates[0]["prompt"], "Explain this");

    let requests = model_requests(&mock);
    let user = &requests[0].message_texts()[1];
    assert!(user.starts_with("Explain this"), "{user}");
    assert!(
        user.contains("src/lib.rs") && user.contains("line two"),
        "{user}"
    );
    assert!(
        !user.contains("line one") && !user.contains("line three"),
        "only the selected lines: {user}"
    );
    assert!(
        user.contains("draft.rs") && user.contains("fn unsaved_draft() {}"),
        "{user}"
    );
}

/// A recorded provider stream from `tests/fixtures/providers/`.
fn fixture(name: &str) -> std::path::PathBuf {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/providers")
        .join(name);
    assert!(path.exists(), "{} is missing", path.display());
    path
}

#[tokio::test]
async fn a_recorded_openai_stream_plays_through_the_sidecar() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::sse(fixture("openai-text-usage.sse")),
        Reply::sse(fixture("openai-tool-calls-parallel.sse")),
        Reply::text("Those tools do not exist here.")
            .expect_messages_contain("GetWeatherArgs")
            .expect_messages_contain("get_stock_price"),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;

    let turn = tandem.run_turn(&session, "What's the weather?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let text = turn.text();
    assert_eq!(text.len(), 159, "{text:?}");
    assert!(text.starts_with("I'm unable to provide real-time weather"));
    let usage = turn.of_kind("usage")[0];
    assert_eq!(
        (&usage["promptTokens"], &usage["completionTokens"]),
        (&json!(14), &json!(30))
    );

    // Two calls in one response, arguments split mid-token, come out whole and in order.
    let turn = tandem.run_turn(&session, "And the stock price?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let calls = turn.tool_calls();
    assert_eq!(calls.len(), 2, "{turn}");
    assert_eq!(calls[0]["toolCallId"], "call_JMW1whyEaYG438VE1OIflxA2");
    assert_eq!(calls[0]["name"], "GetWeatherArgs");
    assert_eq!(
        calls[0]["arguments"],
        json!({"city": "Edinburgh", "country": "GB", "units": "c"})
    );
    assert_eq!(calls[1]["toolCallId"], "call_DNYTawLBoN8fj3KN6qU9N1Ou");
    assert_eq!(
        calls[1]["arguments"],
        json!({"ticker": "AAPL", "exchange": "NASDAQ"})
    );
    for result in turn.tool_results() {
        assert_eq!(result["status"], "error", "{result}");
    }
    model_requests(&mock);
}

#[tokio::test]
async fn the_step_cap_ends_a_turn_that_keeps_calling_tools() {
    let env = Env::new();
    env.write("a.txt", "a\n");
    let list = || Reply::tool("list_files", json!({}));
    let mock = MockServer::start(Scenario::new([list(), list(), list()]));
    let options = Options {
        max_steps: Some(2),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "List forever").await;
    assert_eq!(turn.stop_reason(), "maxSteps", "{turn}");
    assert_eq!(turn.tool_results().len(), 2);
    assert!(
        turn.tool_results()[0]["output"]
            .as_str()
            .unwrap()
            .contains("a.txt")
    );
    assert_eq!(model_requests(&mock).len(), 2);
}

#[tokio::test]
async fn an_answer_cut_by_the_output_limit_is_an_error() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("Once upon a").finish_reason("length")
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Tell me a story").await;
    assert_eq!(turn.stop_reason(), "error", "{turn}");
    assert_eq!(turn.text(), "Once upon a");
    let error = turn.ended()["error"].as_str().unwrap_or("");
    assert!(error.contains("limit"), "{error:?}");
}

#[tokio::test]
async fn models_are_listed_and_switched() {
    let env = Env::new();
    let mock = MockServer::start(
        Scenario::new([Reply::text("From the other model.")]).with_models([
            mock_model::ModelEntry {
                id: "mock-coder".into(),
                context_length: Some(32768),
                extra: None,
            },
            mock_model::ModelEntry {
                id: "other-model".into(),
                context_length: None,
                extra: None,
            },
        ]),
    );
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let listed = tandem
        .request("tandem/listModels", Value::Null)
        .await
        .unwrap();
    assert_eq!(
        listed,
        json!({"models": [{"id": "mock-coder", "contextWindow": 32768}, {"id": "other-model"}],
               "current": "mock-coder"})
    );
    tandem
        .request("tandem/setModel", json!({"model": "other-model"}))
        .await
        .unwrap();
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Hi").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(model_requests(&mock)[0].body["model"], "other-model");
}

#[cfg(unix)]
#[tokio::test]
async fn reads_outside_the_workspace_are_refused() {
    let env = Env::new();
    let outside = env.workspace.parent().unwrap().join("secret.txt");
    std::fs::write(&outside, "TOP-SECRET-CONTENT\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.workspace.join("link.txt")).unwrap();
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": "../secret.txt"}))
            .and_tool("read_file", json!({"path": outside}))
            .and_tool("read_file", json!({"path": "link.txt"})),
        Reply::text("I cannot read those."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Read the secret").await;
    let results = turn.tool_results();
    assert_eq!(results.len(), 3, "{turn}");
    for result in results {
        assert_eq!(result["status"], "error", "{result}");
        assert!(
            result["output"].as_str().unwrap().contains("outside"),
            "{result}"
        );
    }
    assert!(!format!("{turn}").contains("TOP-SECRET"), "{turn}");
    let requests = model_requests(&mock);
    assert!(!requests[1].body.to_string().contains("TOP-SECRET"));
}

#[tokio::test]
async fn a_long_fast_stream_arrives_whole() {
    // Multi-byte text, many deltas, written in large pieces: TCP and SSE boundaries fall
    // anywhere, mid-character included.
    const PIECE: &str = "héllo wörld 😊 ";
    const N: usize = 20_000;
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::text(PIECE).repeat(N)]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Talk a lot").await;
    assert_eq!(turn.stop_reason(), "endTurn");
    let text = turn.text();
    assert_eq!(text.len(), PIECE.len() * N);
    assert!(text == PIECE.repeat(N), "the text came out garbled");
}

#[tokio::test]
async fn tool_calls_without_an_id_or_arguments_still_work() {
    // Some local servers send no call id, and no arguments for a call that needs none.
    let env = Env::new();
    env.write("a.txt", "a\n");
    let mut call = Reply::tool("list_files", json!(""));
    call.tool_calls[0].id = Some(String::new());
    let mock = MockServer::start(Scenario::new([call, Reply::text("One file.")]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "List").await;
    let id = turn.tool_calls()[0]["toolCallId"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!id.is_empty(), "{turn}");
    let result = turn.tool_result();
    assert_eq!(result["toolCallId"], id.as_str());
    assert_eq!(result["status"], "ok", "{result}");
    assert!(result["output"].as_str().unwrap().contains("a.txt"));
    // The model sees one consistent id on its call and on the result.
    let requests = model_requests(&mock);
    let assistant = &requests[1].messages_with_role("assistant")[0];
    assert_eq!(assistant["tool_calls"][0]["id"], id.as_str());
    tool_message(&requests[1], &id);
}

#[tokio::test]
async fn tools_that_cannot_apply_fail_without_asking() {
    let env = Env::new();
    env.write("src/answer.rs", crate::approvals::ORIGINAL);
    let outside = env.workspace.parent().unwrap().join("planted.txt");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "../planted.txt", "content": "x"}),
        )
        .and_tool(
            "replace_in_file",
            json!({"path": "src/answer.rs",
                   "diff": "------- SEARCH\n    99\n=======\n    42\n+++++++ REPLACE"}),
        )
        .and_tool("execute_command", json!({"command": "ls", "cwd": ".."})),
        Reply::text("None of that worked."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Do odd things").await;
    assert!(
        tandem.approvals().is_empty(),
        "nothing that can't apply is put to the user: {:#?}",
        tandem.approvals()
    );
    let results = turn.tool_results();
    assert_eq!(results.len(), 3, "{turn}");
    for result in &results {
        assert_eq!(result["status"], "error", "{result}");
    }
    assert!(results[0]["output"].as_str().unwrap().contains("outside"));
    assert!(results[1]["output"].as_str().unwrap().contains("not_found"));
    assert!(results[2]["output"].as_str().unwrap().contains("outside"));
    assert!(!outside.exists());
    assert_eq!(env.read("src/answer.rs"), crate::approvals::ORIGINAL);
}
