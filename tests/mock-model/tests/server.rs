//! The mock, seen from an HTTP client.

use std::time::Duration;

use futures_util::StreamExt;
use mock_model::{Hold, MockServer, Reply, Scenario};
use serde_json::{Value, json};

fn chat_body(stream: bool) -> Value {
    json!({"model": "mock-coder", "stream": stream,
           "stream_options": {"include_usage": true},
           "messages": [{"role": "user", "content": "hi"}]})
}

/// A client: reqwest's rustls takes the process's crypto provider, ring's here.
fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

async fn post(mock: &MockServer, body: &Value) -> reqwest::Response {
    http()
        .post(format!("{}/chat/completions", mock.base_url()))
        .bearer_auth("sk-test")
        .json(body)
        .send()
        .await
        .unwrap()
}

/// Waits for what must come; the bound only turns a hang into a failure.
async fn within_bound<T>(what: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), what)
        .await
        .expect("not within 30 s")
}

/// The JSON payloads of an SSE body, `[DONE]` as a string.
fn events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap_or(Value::String(d.to_string())))
        .collect()
}

#[tokio::test]
async fn streams_text_and_records_the_request() {
    let mock = MockServer::start(Scenario::new([Reply::text("Hello there").usage(7, 2)]));
    let response = post(&mock, &chat_body(true)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    let all = events(&response.text().await.unwrap());
    assert_eq!(all.last().unwrap(), "[DONE]");
    let text: String = all
        .iter()
        .filter_map(|e| e.pointer("/choices/0/delta/content")?.as_str())
        .collect();
    assert_eq!(text, "Hello there");
    assert_eq!(all[all.len() - 2]["usage"]["completion_tokens"], 2);

    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].headers["authorization"], "Bearer sk-test");
    assert_eq!(requests[0].message_texts(), vec!["hi".to_string()]);
}

#[tokio::test]
async fn non_streaming_requests_get_a_whole_completion() {
    let mock = MockServer::start(Scenario::new([Reply::tool(
        "read_file",
        json!({"path": "a"}),
    )
    .with_text("Looking")]));
    let body: Value = post(&mock, &chat_body(false)).await.json().await.unwrap();
    assert_eq!(body["object"], "chat.completion");
    let message = &body["choices"][0]["message"];
    assert_eq!(message["content"], "Looking");
    assert_eq!(
        message["tool_calls"][0]["function"]["arguments"],
        r#"{"path":"a"}"#
    );
    assert_eq!(body["choices"][0]["finish_reason"], "tool_calls");
}

#[tokio::test]
async fn route_states_follow_the_chat_requests_and_timings_ride_the_finish_chunk() {
    let timings = json!({"cache_n": 700, "prompt_n": 40});
    let mut scenario = Scenario::new([
        Reply::text("one").timings(timings.clone()),
        Reply::text("two").timings(timings.clone()),
    ]);
    let states = [
        json!([{"id": 0}]),
        json!([{"id": 0, "n_prompt_tokens": 740}]),
    ];
    scenario
        .route_states
        .insert("GET /slots".into(), states.to_vec());
    let mock = MockServer::start(scenario);
    let slots = || async {
        let url = format!("{}/slots", mock.base_url().trim_end_matches("/v1"));
        http()
            .get(url)
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    };
    assert_eq!(slots().await, states[0]);
    let all = events(&post(&mock, &chat_body(true)).await.text().await.unwrap());
    let finish = all
        .iter()
        .find(|e| {
            e.pointer("/choices/0/finish_reason")
                .is_some_and(|r| !r.is_null())
        })
        .unwrap();
    assert_eq!(finish["timings"], timings);
    assert_eq!(slots().await, states[1]);
    // Past the list, the last state stays.
    let whole: Value = post(&mock, &chat_body(false)).await.json().await.unwrap();
    assert_eq!(whole["timings"], timings);
    assert_eq!(slots().await, states[1]);
}

#[tokio::test]
async fn lists_models_with_their_context_length() {
    let mock = MockServer::start(Scenario::default());
    let body: Value = http()
        .get(format!("{}/models", mock.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        body,
        json!({"object": "list", "data": [{"id": "mock-coder", "object": "model",
               "owned_by": "mock-model", "context_length": 32768}]})
    );
}

#[tokio::test]
async fn scripted_errors_and_running_out_are_openai_errors() {
    let mock = MockServer::start(Scenario::new([Reply::status(429)
        .header("Retry-After", "0")
        .with_body(json!({"error": {"message": "Rate limit reached"}}))]));
    let first = post(&mock, &chat_body(true)).await;
    assert_eq!(first.status(), 429);
    assert_eq!(first.headers()["retry-after"], "0");
    let body: Value = first.json().await.unwrap();
    assert_eq!(body["error"]["message"], "Rate limit reached");

    let second = post(&mock, &chat_body(true)).await;
    assert_eq!(second.status(), 500);
    let body: Value = second.json().await.unwrap();
    assert_eq!(
        body["error"]["message"],
        "mock-model: no scripted response left (request 2)"
    );
    assert_eq!(mock.failures().len(), 1);
}

#[tokio::test]
async fn a_failed_expectation_says_what_was_expected_and_what_came() {
    let mock = MockServer::start(Scenario::new([
        Reply::text("ok").expect_tool_result_contains("use a constant")
    ]));
    let mut body = chat_body(true);
    body["messages"]
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "tool", "tool_call_id": "c1", "content": "Applied the edit."}));
    let response = post(&mock, &body).await;
    assert_eq!(response.status(), 500);
    let body: Value = response.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("use a constant") && message.contains("Applied the edit."),
        "{message}"
    );
}

#[tokio::test]
async fn a_cut_stream_breaks_off_after_n_events() {
    let mock = MockServer::start(Scenario::new([Reply::text("partial answer that gets cut")
        .chunk_size(4)
        .cut_after(3)]));
    let response = post(&mock, &chat_body(true)).await;
    let mut stream = response.bytes_stream();
    let mut received = Vec::new();
    let mut broke = false;
    while let Some(piece) = stream.next().await {
        match piece {
            Ok(bytes) => received.extend_from_slice(&bytes),
            Err(_) => {
                broke = true;
                break;
            }
        }
    }
    assert!(broke, "the body ended cleanly");
    let all = events(&String::from_utf8(received).unwrap());
    assert_eq!(all.len(), 3, "{all:?}");
    assert_eq!(all[2]["choices"][0]["delta"]["content"], "ial ");
}

/// Everything the client gets of a body once the server is gone: the SSE text, and whether the
/// body broke off (rather than ending with its last chunk).
async fn rest_after_stop(mock: MockServer, response: reqwest::Response) -> (String, bool) {
    drop(mock);
    let mut stream = response.bytes_stream();
    let mut received = Vec::new();
    while let Some(piece) = stream.next().await {
        match piece {
            Ok(bytes) => received.extend_from_slice(&bytes),
            Err(_) => return (String::from_utf8(received).unwrap(), true),
        }
    }
    (String::from_utf8(received).unwrap(), false)
}

#[tokio::test]
async fn a_stalled_stream_sends_n_events_then_nothing() {
    let mock = MockServer::start(Scenario::new([Reply::text("abcdefgh")
        .chunk_size(1)
        .stall_after(2)]));
    let response = post(&mock, &chat_body(true)).await;
    // The mock says when it has gone silent; the server still answers other requests then.
    let hold = within_bound(mock.hold(|_| true)).await;
    assert_eq!(hold, Hold::Stalled { sent: 2 });
    let models = http()
        .get(format!("{}/models", mock.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(models.status(), 200);
    // Stopping the server ends the connection: all the body ever held is the two events.
    let (received, broke) = rest_after_stop(mock, response).await;
    assert!(broke, "the body ended cleanly: {received}");
    assert_eq!(events(&received).len(), 2, "{received}");
}

#[tokio::test]
async fn delays_pace_the_events() {
    // An hour's pause: the head is sent, then nothing until the pause ends.
    let mock = MockServer::start(Scenario::new([Reply::text("abcd")
        .chunk_size(1)
        .delay_ms(3_600_000)]));
    let response = post(&mock, &chat_body(true)).await;
    assert_eq!(response.status(), 200);
    let hold = within_bound(mock.hold(|_| true)).await;
    assert_eq!(hold, Hold::Paused { sent: 0 });
    let (received, broke) = rest_after_stop(mock, response).await;
    assert!(broke && received.is_empty(), "{received:?}");

    // A short pause before each: every event comes, one at a time.
    let mock = MockServer::start(Scenario::new([Reply::text("abcd")
        .chunk_size(1)
        .delay_ms(1)]));
    let text = post(&mock, &chat_body(true)).await.text().await.unwrap();
    // 8 events (role, 4 deltas, finish, usage, done), the last pause before the 8th.
    assert_eq!(events(&text).len(), 8);
    assert_eq!(
        within_bound(mock.hold(|_| true)).await,
        Hold::Paused { sent: 7 }
    );
}

#[tokio::test]
async fn replays_a_recorded_stream() {
    // A stream recorded from the real API, kept in the repository (tests/fixtures/providers).
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/providers/openai-tool-call-single.sse"
    );
    let mock = MockServer::start(Scenario::new([Reply::sse(fixture)]));
    let text = post(&mock, &chat_body(true)).await.text().await.unwrap();
    assert_eq!(text.as_bytes(), std::fs::read(fixture).unwrap());
}

#[tokio::test]
async fn repeat_streams_many_deltas() {
    const N: usize = 200_000;
    let mock = MockServer::start(Scenario::new([Reply::text("x").repeat(N)]));
    let text = post(&mock, &chat_body(true)).await.text().await.unwrap();
    let deltas = text.matches(r#""delta":{"content":"x"}"#).count();
    assert_eq!(deltas, N);
}

#[test]
fn the_binary_prints_its_url_and_serves_its_requests() {
    use std::io::BufRead;
    let dir = std::env::temp_dir().join(format!("mock-model-bin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("scenario.json");
    std::fs::write(&file, r#"{"responses": [{"text": "hi"}]}"#).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mock-model"))
        .arg("--scenario")
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line: {line:?}"))
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/v1"));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let requests: Value = runtime.block_on(async {
        let client = http();
        let answer = client
            .post(format!("{url}/chat/completions"))
            .json(&chat_body(true))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(answer.contains(r#""content":"hi""#), "{answer}");
        let origin = url.strip_suffix("/v1").unwrap();
        client
            .get(format!("{origin}/__mock/requests"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    });
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(requests.as_array().unwrap().len(), 1);
    assert_eq!(requests[0]["body"]["messages"][0]["content"], "hi");
}

#[tokio::test]
async fn a_request_asked_aside_gets_its_reply_and_leaves_the_sequence_alone() {
    let mock = MockServer::start(
        Scenario::new([Reply::text("first"), Reply::text("second")])
            .with_aside("You summarize", Reply::text("a summary")),
    );
    let aside = json!({"model": "mock-coder", "stream": false,
        "messages": [{"role": "system", "content": "You summarize.\nBriefly."},
                     {"role": "user", "content": "the talk"}]});
    async fn answer(mock: &MockServer, body: Value) -> Option<String> {
        let response = within_bound(post(mock, &body)).await;
        let v = response.json::<Value>().await.unwrap();
        v["choices"][0]["message"]["content"]
            .as_str()
            .map(String::from)
    }
    assert_eq!(
        answer(&mock, chat_body(false)).await.as_deref(),
        Some("first")
    );
    assert_eq!(
        answer(&mock, aside.clone()).await.as_deref(),
        Some("a summary")
    );
    assert_eq!(answer(&mock, aside).await.as_deref(), Some("a summary"));
    assert_eq!(
        answer(&mock, chat_body(false)).await.as_deref(),
        Some("second")
    );
}
