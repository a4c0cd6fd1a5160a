//! Local models: the window each kind of server reports, overflow errors, compaction, text tool
//! calls, the switch to text tools, Ollama's native API, and a prompt prefix that stays put.

use crate::support::*;

fn no_window_models() -> Vec<ModelEntry> {
    vec![ModelEntry {
        id: "mock-coder".into(),
        context_length: None,
        extra: None,
    }]
}

fn with_routes(scenario: Scenario, routes: Value) -> Scenario {
    let mut scenario = scenario;
    for (k, v) in routes.as_object().unwrap() {
        scenario.routes.insert(k.clone(), v.clone());
    }
    scenario
}

fn options(provider: Value) -> Options {
    Options {
        provider,
        ..Options::default()
    }
}

async fn window_seen(scenario: Scenario, provider: Value) -> Value {
    let env = Env::new();
    let mock = MockServer::start(scenario);
    let tandem = Sidecar::start(&env, &mock, options(provider)).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "hi").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    turn.of_kind("usage")[0]["contextWindow"].clone()
}

#[tokio::test]
async fn each_server_kind_reports_its_loaded_window_and_the_setting_wins() {
    // llama.cpp: /props n_ctx, not the model list's n_ctx_train.
    let llama = with_routes(
        Scenario::new([Reply::text("ok")]).with_models([ModelEntry {
            id: "mock-coder".into(),
            context_length: None,
            extra: Some(json!({"meta": {"n_ctx_train": 131072}})),
        }]),
        json!({"GET /props": {"default_generation_settings": {"n_ctx": 4096}}}),
    );
    assert_eq!(window_seen(llama.clone(), Value::Null).await, 4096);
    // LM Studio: the loaded context, not the model's maximum.
    let lm = with_routes(
        Scenario::new([Reply::text("ok")]).with_models(no_window_models()),
        json!({"GET /api/v0/models": {"data": [{"id": "mock-coder", "max_context_length": 32768, "loaded_context_length": 8192}]}}),
    );
    assert_eq!(window_seen(lm, Value::Null).await, 8192);
    // vLLM: max_model_len in the model list.
    let vllm = Scenario::new([Reply::text("ok")]).with_models([ModelEntry {
        id: "mock-coder".into(),
        context_length: None,
        extra: Some(json!({"max_model_len": 6144, "owned_by": "vllm"})),
    }]);
    assert_eq!(window_seen(vllm, Value::Null).await, 6144);
    // The user's setting wins over the server.
    assert_eq!(
        window_seen(llama, json!({"contextWindow": 3000})).await,
        3000
    );
}

const HUGE: usize = 12_000;

async fn overflowing_turn(first: Reply, more: Vec<Reply>) -> (Turn, usize) {
    let env = Env::new();
    let mut replies = vec![first];
    replies.extend(more);
    let mock = MockServer::start(Scenario::new(replies).with_models(no_window_models()));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let message = format!("Summarize: {}", "apple ".repeat(HUGE / 6));
    let turn = tandem.run_turn(&session, &message).await;
    (turn, mock.chat_requests().len())
}

#[tokio::test]
async fn every_overflow_shape_ends_with_both_numbers_after_one_request() {
    let shapes = [
        json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 4100, "n_ctx": 2048}}),
        json!({"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested 4100 tokens (4092 in the messages, 8 in the completion).", "type": "invalid_request_error", "code": "context_length_exceeded"}}),
        json!({"error": "Trying to keep the first 4100 tokens when context the overflows. However, the model is loaded with context length of only 2048 tokens, which is not enough."}),
    ];
    for body in shapes {
        let (turn, requests) =
            overflowing_turn(Reply::status(400).with_body(body.clone()), vec![]).await;
        assert_eq!(turn.stop_reason(), "error", "{turn}");
        let error = turn.ended()["error"].as_str().unwrap().to_string();
        assert!(
            error.contains("2,048") && error.contains("your message is about"),
            "{body}: {error}"
        );
        assert!(error.contains("shorten the message"), "{error}");
        assert_eq!(requests, 1, "{body}: never retried as it is");
    }
}

#[tokio::test]
async fn an_empty_stream_from_a_local_server_is_diagnosed_not_retried() {
    // llama-cpp-python: the streamed request gets an empty 200, the same request unstreamed the
    // 400 with the numbers.
    let overflow = json!({"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested 4100 tokens (4092 in the messages, 8 in the completion).", "code": "context_length_exceeded"}});
    let (turn, requests) = overflowing_turn(
        Reply::text("").empty_stream(),
        vec![Reply::status(400).with_body(overflow)],
    )
    .await;
    let error = turn.ended()["error"].as_str().unwrap().to_string();
    assert!(error.contains("2,048"), "{error}");
    assert_eq!(requests, 2, "one streamed request and one unstreamed check");

    // A server that cannot stream this answer (llama-cpp-python's tools with tool_choice auto)
    // gives it whole.
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("").empty_stream(),
        Reply::text("whole answer"),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "hi").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(turn.text(), "whole answer");
    let requests = model_requests(&mock);
    assert_eq!(requests[1].body["stream"], false);

    // A crash: the check fails too, and the user is told where to look.
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("").empty_stream(),
        Reply::status(400).with_body(json!({"error": "bad"})),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "hi").await;
    let error = turn.ended()["error"].as_str().unwrap().to_string();
    assert!(
        error.contains("without sending anything")
            && error.contains("context window")
            && error.contains("log"),
        "{error}"
    );
    assert_eq!(mock.chat_requests().len(), 2);
}

#[tokio::test]
async fn a_message_that_cannot_fit_a_known_window_is_never_sent() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([]));
    let tandem = Sidecar::start(&env, &mock, options(json!({"contextWindow": 2048}))).await;
    let session = tandem.new_session().await;
    let message = "apple ".repeat(HUGE / 6);
    let turn = tandem.run_turn(&session, &message).await;
    let error = turn.ended()["error"].as_str().unwrap().to_string();
    assert!(error.contains("2,048 tokens (your setting)"), "{error}");
    assert!(error.contains("your message is about"), "{error}");
    assert_eq!(mock.chat_requests().len(), 0);
}

fn read_then_done(first: Reply) -> Scenario {
    Scenario::new([
        first,
        Reply::text("Done.").expect_tool_result_contains("alpha"),
    ])
}

#[tokio::test]
async fn tool_calls_written_as_text_run_and_their_markup_is_not_shown() {
    let formats = [
        "Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call>",
        "Let me look.\n<tool_call>\n<function=read_file>\n<parameter=path>\nnotes.txt\n</parameter>\n</function>\n</tool_call>",
        "Let me look.[TOOL_CALLS][{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\",}}]",
        "Let me look.<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"notes.txt\"}}<|eom_id|>",
        "Let me look.<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\":\"notes.txt\"}<|call|>",
        "{'name': 'read_file', 'arguments': {'path': 'notes.txt'}}",
        // llama-cpp-python's chatml-function-calling history, as SmolLM2 echoes it.
        "Let me look.\nfunctions.read_file:\n{&#34;path&#34;: &#34;notes.txt&#34;}",
    ];
    for text in formats {
        let env = Env::new();
        env.write("notes.txt", "alpha\n");
        let mock = MockServer::start(read_then_done(Reply::text(text).chunk_size(3)));
        let tandem = Sidecar::start(&env, &mock, Options::default()).await;
        let session = tandem.new_session().await;
        let turn = tandem.run_turn(&session, "What is in notes.txt?").await;
        assert_eq!(turn.stop_reason(), "endTurn", "{text}: {turn}");
        let calls = turn.tool_calls();
        assert_eq!(calls.len(), 1, "{text}: {turn}");
        assert_eq!(calls[0]["name"], "read_file");
        assert_eq!(calls[0]["arguments"], json!({"path": "notes.txt"}));
        let shown = turn.text();
        for markup in [
            "<tool_call>",
            "<function=",
            "[TOOL_CALLS]",
            "<|",
            "{",
            "functions.",
        ] {
            assert!(!shown.contains(markup), "{text}: shown {shown:?}");
        }
        assert!(shown.ends_with("Done."), "{shown:?}");
        assert!(model_requests(&mock).len() == 2);
    }
}

#[tokio::test]
async fn a_server_that_refuses_tools_gets_them_as_text_and_the_turn_goes_on() {
    let env = Env::new();
    env.write("notes.txt", "alpha\n");
    let mock = MockServer::start(Scenario::new([
        Reply::status(400).with_body(
            json!({"error": "registry.ollama.ai/library/gemma:2b does not support tools"}),
        ),
        Reply::text(
            "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call>",
        ),
        Reply::text("Done.").expect_messages_contain("<tool_response>\n"),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "What is in notes.txt?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 3);
    assert!(requests[0].body.get("tools").is_some());
    for later in &requests[1..] {
        assert!(
            later.body.get("tools").is_none(),
            "text mode sends no tools"
        );
        let system = later.message_texts()[0].clone();
        assert!(
            system.contains("# Tools") && system.contains("\nread_file(path"),
            "{system}"
        );
    }
    assert!(
        requests[2]
            .message_texts()
            .iter()
            .any(|t| t.contains("alpha"))
    );
}

fn ollama_routes(scenario: Scenario, tools: bool) -> Scenario {
    let capabilities = if tools {
        json!(["completion", "tools"])
    } else {
        json!(["completion"])
    };
    as_ollama(scenario, capabilities)
}

#[tokio::test]
async fn ollama_is_spoken_natively_with_num_ctx_and_its_window() {
    let env = Env::new();
    env.write("notes.txt", "alpha\n");
    let mock = MockServer::start(ollama_routes(
        read_then_done(
            Reply::tool("read_file", json!({"path": "notes.txt"})).with_text("Looking."),
        ),
        true,
    ));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "What is in notes.txt?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(turn.tool_calls()[0]["name"], "read_file");
    assert_eq!(turn.of_kind("usage")[0]["contextWindow"], 8192);
    let chats: Vec<_> = mock
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/chat")
        .collect();
    assert_eq!(chats.len(), 2);
    assert!(mock.chat_requests().is_empty(), "nothing went to /v1");
    for chat in &chats {
        assert_eq!(chat.body["options"]["num_ctx"], 8192);
        assert_eq!(chat.body["stream"], true);
        assert_eq!(chat.body["tools"][0]["function"]["name"], "read_file");
    }
    let tool = chats[1].messages_with_role("tool")[0].clone();
    assert_eq!(tool["tool_name"], "read_file");
    assert!(tool["content"].as_str().unwrap().contains("alpha"));
    // The call went back with its arguments as an object, as Ollama wants them.
    let assistant = chats[1].messages_with_role("assistant")[0].clone();
    assert_eq!(
        assistant["tool_calls"][0]["function"]["arguments"],
        json!({"path": "notes.txt"})
    );
}

/// A model whose `/api/show` names no context length: the context `/api/ps` says it is loaded
/// with is the window, and `num_ctx` stays within it.
#[tokio::test]
async fn ollama_without_a_context_length_uses_the_loaded_one_from_api_ps() {
    let env = Env::new();
    let mock = MockServer::start(with_routes(
        Scenario::new([Reply::text("Hi.")]),
        json!({
            "GET /api/version": {"version": "0.9.0"},
            "POST /api/show": {"model_info": {}, "capabilities": ["completion", "tools"]},
            "GET /api/ps": {"models": [{"name": "mock-coder:latest", "model": "mock-coder:latest", "context_length": 4096}]},
        }),
    ));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Hello").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(turn.of_kind("usage")[0]["contextWindow"], 4096);
    let chat = mock
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/chat")
        .expect("a native chat request");
    assert_eq!(chat.body["options"]["num_ctx"], 4096);
}

#[tokio::test]
async fn an_ollama_model_without_tools_gets_them_as_text_from_the_start() {
    let env = Env::new();
    env.write("notes.txt", "alpha\n");
    let mock = MockServer::start(ollama_routes(
        Scenario::new([
            Reply::text(
                "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}</tool_call>",
            ),
            Reply::text("Done.").expect_messages_contain("alpha"),
        ]),
        false,
    ));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "What is in notes.txt?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let chats: Vec<_> = mock
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/chat")
        .collect();
    assert!(chats.iter().all(|c| c.body.get("tools").is_none()));
    assert!(chats[0].message_texts()[0].contains("# Tools"));
}

/// Six files of 150 lines in `env`, and the model reading each: more than a 4k window holds.
pub(crate) fn six_reads(env: &Env) -> Vec<Reply> {
    let mut replies = Vec::new();
    for name in ["a", "b", "c", "d", "e", "f"] {
        env.write(
            &format!("{name}.txt"),
            &format!("{name} line with some words\n").repeat(150),
        );
        replies.push(Reply::tool(
            "read_file",
            json!({"path": format!("{name}.txt")}),
        ));
    }
    replies
}

#[tokio::test]
async fn a_long_turn_in_a_4k_window_compacts_and_goes_on() {
    let env = Env::new();
    let mut replies = six_reads(&env);
    replies.push(Reply::text("All read."));
    let mock = MockServer::start(Scenario::new(replies));
    let tandem = Sidecar::start(&env, &mock, options(json!({"contextWindow": 4096}))).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Read the six files.").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let compactions = turn.of_kind("compaction");
    assert!(!compactions.is_empty(), "{turn}");
    assert!(compactions[0]["elided"].as_u64().unwrap() > 0);
    assert_eq!(compactions[0]["contextWindow"], 4096);
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 7);
    for request in &requests {
        // Characters over 3 per token (the start ratio): every request within the window.
        let chars: usize = request
            .message_texts()
            .iter()
            .map(|t| t.chars().count())
            .sum();
        let tools = request.body["tools"].to_string().len();
        assert!(
            (chars + tools) / 3 < 4096,
            "a request of {} characters",
            chars + tools
        );
    }
    let last = requests.last().unwrap();
    assert!(
        last.message_texts()
            .iter()
            .any(|t| t.contains("[elided to save context: the output of read_file a.txt"))
    );
    // The full outputs stay in the transcript on disk.
    let transcript: String = env.data_files().into_iter().map(|(_, t)| t).collect();
    assert!(transcript.contains("\"type\":\"compaction\""));
    assert!(transcript.matches("a line with some words").count() >= 150);
}

#[tokio::test]
async fn earlier_turns_are_summarized_by_the_model_when_eliding_is_not_enough() {
    let env = Env::new();
    let long = "word ".repeat(3000);
    let mock = MockServer::start(Scenario::new([
        Reply::text(long.clone()),
        Reply::text(long.clone()),
        Reply::text("SUMMARY-OF-EARLIER"),
        Reply::text("Fine.").expect_messages_contain("SUMMARY-OF-EARLIER"),
    ]));
    let tandem = Sidecar::start(&env, &mock, options(json!({"contextWindow": 8192}))).await;
    let session = tandem.new_session().await;
    for prompt in ["one", "two", "three"] {
        let turn = tandem.run_turn(&session, prompt).await;
        assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
        if prompt == "three" {
            let compaction = turn.of_kind("compaction")[0].clone();
            assert!(
                compaction["summarized"].as_u64().unwrap() >= 2,
                "{compaction}"
            );
        }
    }
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 4);
    assert!(
        requests[2].body.get("tools").is_none(),
        "the summary request has no tools"
    );
    assert!(requests[3].message_texts()[1].starts_with("[Summary of the earlier conversation"));
}

#[tokio::test]
async fn the_prompt_prefix_stays_byte_identical_from_step_to_step() {
    let env = Env::new();
    env.write("a.txt", "alpha\n");
    env.write("b.txt", "beta\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": "a.txt"})).with_text("First."),
        Reply::tool("read_file", json!({"path": "b.txt"})),
        Reply::text("Done."),
        Reply::text("Again."),
    ]));
    let tandem = Sidecar::start(&env, &mock, options(json!({"contextWindow": 8192}))).await;
    let session = tandem.new_session().await;
    tandem.run_turn(&session, "Read both.").await;
    tandem.run_turn(&session, "And again?").await;
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 4);
    for pair in requests.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        assert_eq!(
            before.body["tools"].to_string(),
            after.body["tools"].to_string()
        );
        let n = before.messages().len();
        for i in 0..n {
            assert_eq!(
                before.messages()[i].to_string(),
                after.messages()[i].to_string(),
                "message {i} changed between requests"
            );
        }
    }
}

#[tokio::test]
async fn compaction_is_rare_and_leaves_a_prefix_the_next_steps_only_append_to() {
    let env = Env::new();
    let mut replies = Vec::new();
    for i in 0..16 {
        env.write(
            &format!("f{i}.txt"),
            &format!("line {i} of a file with some words\n").repeat(40),
        );
        replies.push(Reply::tool(
            "read_file",
            json!({"path": format!("f{i}.txt")}),
        ));
    }
    replies.push(Reply::text("All read."));
    let mock = MockServer::start(Scenario::new(replies));
    let tandem = Sidecar::start(
        &env,
        &mock,
        Options {
            provider: json!({"contextWindow": 4096}),
            max_steps: Some(30),
            ..Options::default()
        },
    )
    .await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Read f0.txt to f15.txt.").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let compactions = turn.of_kind("compaction").len();
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 17);
    // A request whose messages do not begin with the previous request's, byte for byte, lost
    // the server's prompt cache: that happens at a compaction and at no other step.
    let mut rewritten = 0;
    for pair in requests.windows(2) {
        let (before, after) = (pair[0].messages(), pair[1].messages());
        let kept = before.len() <= after.len() && before.iter().zip(after).all(|(a, b)| a == b);
        if !kept {
            rewritten += 1;
        }
    }
    assert_eq!(rewritten, compactions, "{turn}");
    // Each compaction makes room for several steps: 16 reads of ~1,400 characters in a 4k
    // window take a few, not one a step.
    assert!(
        (1..=4).contains(&compactions),
        "{compactions} compactions in 16 steps"
    );
}

#[tokio::test]
async fn a_server_that_read_far_fewer_tokens_than_sent_is_noticed_and_tools_go_as_text() {
    let env = Env::new();
    env.write("notes.txt", "alpha\n");
    let mock = MockServer::start(Scenario::new([
        Reply::text("I have no tools.").usage(12, 5),
        Reply::text(
            "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}</tool_call>",
        ),
        Reply::text("Done."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let question = format!("What is in notes.txt? {}", "Some context. ".repeat(800));
    let turn = tandem.run_turn(&session, &question).await;
    let notice = turn.of_kind("modelNotice")[0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        notice.contains("reports reading 12 tokens")
            && notice.contains("tools are described in the prompt"),
        "{notice}"
    );
    let turn = tandem.run_turn(&session, "Read it.").await;
    assert_eq!(turn.tool_calls()[0]["name"], "read_file", "{turn}");
    let requests = model_requests(&mock);
    assert!(requests[1].body.get("tools").is_none());
}

#[tokio::test]
async fn a_404_names_the_url_used() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::status(404).with_body(json!({"detail": "Not Found"}))
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "hi").await;
    let error = turn.ended()["error"].as_str().unwrap().to_string();
    assert!(
        error.contains(&format!(
            "the URL used was {}/chat/completions",
            mock.base_url()
        )),
        "{error}"
    );
}
