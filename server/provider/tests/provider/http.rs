//! `HttpModelClient` against a tiny scripted HTTP/1.1 server on 127.0.0.1: what it sends, how it
//! reads answers, retries, timeouts, and what the user reads when something fails.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tandem_model::{Completion, Delta, FinishReason, Message, ToolCall, ToolDefinition, Usage};
use tandem_provider::{
    Api, ApiKey, CompletionRequest, HttpModelClient, Limits, ModelClient, ModelInfo,
    ProviderConfig, ProviderError, ProviderErrorKind, probe,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Recognisable, so a test can tell it never leaks into an error.
const KEY: &str = "sk-test-SECRET-9f8e7d6c5b4a";

// ---------------------------------------------------------------------------------------------
// The scripted server

/// What the server does on one connection, in order, before closing it.
#[derive(Clone)]
enum Step {
    Send(Vec<u8>),
    Sleep(Duration),
}

/// One request as the server received it.
#[derive(Clone, Debug)]
struct Received {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the request body is JSON")
    }
}

struct Server {
    addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Server {
    /// Serves connection `n` with `replies[n]`; a connection beyond the script gets a 500.
    async fn start(replies: Vec<Vec<Step>>) -> Self {
        install_crypto_provider();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        tokio::spawn(async move {
            let mut replies = replies.into_iter();
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let steps = replies.next().unwrap_or_else(|| {
                    vec![Step::Send(response(
                        "500 Internal Server Error",
                        "text/plain",
                        "unscripted request",
                    ))]
                });
                let log = Arc::clone(&log);
                tokio::spawn(async move { serve(socket, steps, log).await });
            }
        });
        Self { addr, received }
    }

    fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

async fn serve(mut socket: TcpStream, steps: Vec<Step>, log: Arc<Mutex<Vec<Received>>>) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    log.lock().unwrap().push(request);
    for step in steps {
        match step {
            Step::Send(bytes) => {
                if socket.write_all(&bytes).await.is_err() {
                    return;
                }
                let _ = socket.flush().await;
            }
            Step::Sleep(duration) => tokio::time::sleep(duration).await,
        }
    }
    let _ = socket.shutdown().await;
}

async fn read_request(socket: &mut TcpStream) -> Option<Received> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = data[head_end..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&buf[..n]);
    }
    Some(Received {
        method,
        path,
        headers,
        body,
    })
}

/// A whole response with a length.
fn response(status: &str, content_type: &str, body: &str) -> Vec<u8> {
    response_with(status, &[("content-type", content_type)], body)
}

fn response_with(status: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status}\r\nconnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
    [head.into_bytes(), body.as_bytes().to_vec()].concat()
}

/// The head of a chunked response; the body follows as [`chunk`]s and [`LAST_CHUNK`].
fn chunked_head(content_type: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n"
    )
    .into_bytes()
}

fn chunk(data: &str) -> Vec<u8> {
    format!("{:x}\r\n{data}\r\n", data.len()).into_bytes()
}

const LAST_CHUNK: &[u8] = b"0\r\n\r\n";

/// An SSE event carrying `payload` as its data.
fn event(payload: Value) -> String {
    format!("data: {payload}\n\n")
}

fn text_event(text: &str) -> String {
    event(json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}))
}

fn finish_event(reason: &str) -> String {
    event(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}))
}

/// A whole successful stream, sent as one chunked body.
fn ok_stream(text: &str) -> Vec<Step> {
    let body = format!(
        "{}{}data: [DONE]\n\n",
        text_event(text),
        finish_event("stop")
    );
    vec![Step::Send(
        [
            chunked_head("text/event-stream"),
            chunk(&body),
            LAST_CHUNK.to_vec(),
        ]
        .concat(),
    )]
}

// ---------------------------------------------------------------------------------------------
// The client side

/// The process-wide TLS crypto provider, which `tandem`'s main installs at start-up and the
/// library assumes: every test's server start installs it (once; later calls are no-ops).
fn install_crypto_provider() {
    tandem_test_support::install_crypto_provider();
}

fn limits() -> Limits {
    Limits {
        connect_timeout: Duration::from_secs(5),
        stall_timeout: Duration::from_secs(10),
        max_retries: 2,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(5),
        ..Limits::default()
    }
}

fn client_for(base_url: String, api: Api, limits: Limits) -> HttpModelClient {
    // A test may build a client with no server to start (a refused connection): nextest runs
    // each test in a process of its own, so each installs the provider itself.
    install_crypto_provider();
    HttpModelClient::new(ProviderConfig {
        base_url,
        model: "test-model".into(),
        api_key: Some(ApiKey::new(KEY)),
        api,
        limits,
    })
}

fn client(server: &Server) -> HttpModelClient {
    client_for(server.base_url(), Api::OpenAi, limits())
}

fn conversation() -> Vec<Message> {
    vec![
        Message::System {
            content: "You are terse.".into(),
        },
        Message::user("Read a.txt and b.txt"),
        Message::Assistant {
            content: String::new(),
            reasoning: "I should read both.".into(),
            tool_calls: vec![
                ToolCall {
                    id: "call_1".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"a.txt"}"#.into(),
                },
                ToolCall {
                    id: "call_2".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"b.t"#.into(),
                },
            ],
        },
        Message::Tool {
            tool_call_id: "call_1".into(),
            content: "alpha".into(),
        },
        Message::Tool {
            tool_call_id: "call_2".into(),
            content: "error: arguments are not valid JSON".into(),
        },
    ]
}

fn tools() -> Vec<ToolDefinition> {
    vec![ToolDefinition {
        name: "read_file".into(),
        description: "Reads a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        example: None,
    }]
}

/// Runs one completion, returning the result and every relayed delta.
async fn complete(
    client: &HttpModelClient,
    messages: &[Message],
    tools: &[ToolDefinition],
) -> (Result<Completion, ProviderError>, Vec<Delta>) {
    let mut deltas = Vec::new();
    let mut on_delta = |delta: Delta| deltas.push(delta);
    let request = CompletionRequest::conversation(messages, tools, 0);
    let result = client.complete(request, &mut on_delta).await;
    (result, deltas)
}

async fn complete_simple(
    client: &HttpModelClient,
) -> (Result<Completion, ProviderError>, Vec<Delta>) {
    let messages = [Message::user("hi")];
    complete(client, &messages, &[]).await
}

/// The key must not show in what the user (or a log) could see of an error.
fn failed(result: Result<Completion, ProviderError>) -> ProviderError {
    let error = result.expect_err("the request should fail");
    for shown in [error.to_string(), format!("{error:?}")] {
        assert!(!shown.contains(KEY), "the API key leaked: {shown}");
        assert!(
            !shown.contains("SECRET"),
            "part of the API key leaked: {shown}"
        );
    }
    error
}

/// One plain completion against a server scripted with `replies`, which must fail: the error,
/// and how many requests the server saw.
async fn failure_against(replies: Vec<Vec<Step>>) -> (ProviderError, usize) {
    let server = Server::start(replies).await;
    let error = failed(complete_simple(&client(&server)).await.0);
    (error, server.received().len())
}

// ---------------------------------------------------------------------------------------------
// Tests

#[tokio::test]
async fn streams_text_and_a_tool_call_and_sends_the_right_request() {
    let events = [
        event(
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "Thinking."}}]}),
        ),
        text_event("Reading "),
        text_event("it."),
        event(
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_9", "type": "function", "function": {"name": "read_file", "arguments": ""}}]}}]}),
        ),
        event(
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"pa"}}]}}]}),
        ),
        event(
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "th\": \"c.txt\"}"}}]}}]}),
        ),
        finish_event("tool_calls"),
        event(json!({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 7}})),
        "data: [DONE]\n\n".to_owned(),
    ];
    // Every event in its own HTTP chunk, and one event split across two.
    let mut body = chunked_head("text/event-stream; charset=utf-8");
    for e in &events {
        let (a, b) = e.split_at(e.len() / 2);
        body.extend(chunk(a));
        body.extend(chunk(b));
    }
    body.extend(LAST_CHUNK);
    let server = Server::start(vec![vec![Step::Send(body)]]).await;
    let client = client(&server);

    let (result, deltas) = complete(&client, &conversation(), &tools()).await;
    let completion = result.unwrap();
    assert_eq!(completion.text, "Reading it.");
    assert_eq!(completion.reasoning, "Thinking.");
    assert_eq!(
        completion.tool_calls,
        [ToolCall {
            id: "call_9".into(),
            name: "read_file".into(),
            arguments: r#"{"path": "c.txt"}"#.into()
        }]
    );
    assert_eq!(completion.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(
        completion.usage,
        Some(Usage {
            prompt_tokens: 12,
            completion_tokens: 7,
            cached_tokens: None
        })
    );
    assert_eq!(
        deltas,
        [
            Delta::Reasoning("Thinking.".into()),
            Delta::Text("Reading ".into()),
            Delta::Text("it.".into())
        ]
    );

    let [request] = server.received().try_into().unwrap();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(request.header("content-type"), Some("application/json"));
    let expected = json!({
        "model": "test-model",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Read a.txt and b.txt"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a.txt\"}"}},
                // Malformed arguments are replayed as {} (servers refuse the history otherwise).
                {"id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "alpha"},
            {"role": "tool", "tool_call_id": "call_2", "content": "error: arguments are not valid JSON"}
        ],
        "tools": [{"type": "function", "function": {
            "name": "read_file", "description": "Reads a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
        }}],
        "stream": true,
        "stream_options": {"include_usage": true}
    });
    assert_eq!(request.json(), expected);
}

#[tokio::test]
async fn no_tools_means_no_tools_field_and_no_key_means_no_authorization() {
    let server = Server::start(vec![ok_stream("hello")]).await;
    let client = HttpModelClient::new(ProviderConfig {
        base_url: format!("{}/", server.base_url()),
        model: "m".into(),
        api_key: None,
        api: Api::OpenAi,
        limits: limits(),
    });
    let (result, _) = complete_simple(&client).await;
    assert_eq!(result.unwrap().text, "hello");
    let [request] = server.received().try_into().unwrap();
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), None);
    assert!(request.json().get("tools").is_none());
}

#[tokio::test]
async fn rate_limited_then_answered_after_retry_after() {
    let limited = response_with(
        "429 Too Many Requests",
        &[("content-type", "application/json"), ("retry-after", "1")],
        r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
    );
    let server = Server::start(vec![vec![Step::Send(limited)], ok_stream("after the wait")]).await;
    let (result, deltas) = complete_simple(&client(&server)).await;
    assert_eq!(result.unwrap().text, "after the wait");
    // The wait the server asked for is told before it, then the answer streams.
    let [Delta::Retrying(retrying), text] = deltas.as_slice() else {
        panic!("{deltas:?}")
    };
    assert_eq!((retrying.retry, retrying.status), (1, Some(429)));
    assert_eq!(retrying.wait, Duration::from_secs(1));
    assert_eq!(text, &Delta::Text("after the wait".into()));
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn overloaded_then_answered_after_backoff() {
    let unavailable = response("503 Service Unavailable", "text/plain", "upstream busy");
    let server = Server::start(vec![vec![Step::Send(unavailable)], ok_stream("ok")]).await;
    let (result, _) = complete_simple(&client(&server)).await;
    assert_eq!(result.unwrap().text, "ok");
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn retries_give_up_with_the_last_status_and_its_message() {
    let bad_gateway = || {
        vec![Step::Send(response(
            "502 Bad Gateway",
            "text/html",
            "<html><body>Bad gateway</body></html>",
        ))]
    };
    let (error, requests) =
        failure_against(vec![bad_gateway(), bad_gateway(), bad_gateway()]).await;
    assert_eq!(error.kind, ProviderErrorKind::Status(502));
    assert_eq!(
        error.message,
        "model server returned 502 Bad Gateway: <html><body>Bad gateway</body></html> (tried 3 times)"
    );
    assert_eq!(requests, 3);
}

#[tokio::test]
async fn a_retry_after_too_long_fails_at_once_and_says_why() {
    let limited = response_with(
        "429 Too Many Requests",
        &[
            ("content-type", "application/json"),
            ("retry-after", "3600"),
        ],
        r#"{"error":{"message":"Daily quota exhausted"}}"#,
    );
    let (error, requests) =
        failure_against(vec![vec![Step::Send(limited)], ok_stream("never")]).await;
    assert_eq!(error.kind, ProviderErrorKind::Status(429));
    assert_eq!(
        error.message,
        "model server returned 429 Too Many Requests: Daily quota exhausted (the server asks to wait 3600 s before retrying; not waiting that long)"
    );
    assert_eq!(requests, 1);
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_quotes_the_provider_without_the_key() {
    // A server that echoes the whole key in its message: the client must still not show it.
    let body = json!({"error": {"message": format!("Incorrect API key provided: {KEY}."), "type": "invalid_request_error", "code": "invalid_api_key"}});
    let unauthorized = response("401 Unauthorized", "application/json", &body.to_string());
    let (error, requests) =
        failure_against(vec![vec![Step::Send(unauthorized)], ok_stream("never")]).await;
    assert_eq!(error.kind, ProviderErrorKind::Status(401));
    assert_eq!(
        error.message,
        "model server returned 401 Unauthorized: Incorrect API key provided: ***."
    );
    assert_eq!(requests, 1);
}

#[tokio::test]
async fn an_error_inside_a_200_stream_carries_the_provider_message() {
    // OpenRouter puts a top-level "error" in a normal chunk; Groq sends `event: error`.
    let openrouter = format!(
        "{}{}data: [DONE]\n\n",
        text_event("Partial"),
        event(
            json!({"error": {"code": 400, "message": "Token limit reached"}, "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": null}]})
        )
    );
    let groq = format!(
        "{}event: error\ndata: {}\n\n",
        text_event("Partial"),
        json!({"error": {"message": "Tool call validation failed", "type": "invalid_request_error", "code": "tool_use_failed"}})
    );
    let server = Server::start(vec![
        vec![Step::Send(response(
            "200 OK",
            "text/event-stream",
            &openrouter,
        ))],
        vec![Step::Send(response("200 OK", "text/event-stream", &groq))],
    ])
    .await;
    let client = client(&server);
    let (result, deltas) = complete_simple(&client).await;
    let error = failed(result);
    assert_eq!(error.kind, ProviderErrorKind::Stream);
    assert_eq!(
        error.message,
        "the model server reported an error mid-answer: Token limit reached (code 400)"
    );
    assert_eq!(deltas, [Delta::Text("Partial".into())]);
    let error = failed(complete_simple(&client).await.0);
    assert_eq!(error.kind, ProviderErrorKind::Stream);
    assert_eq!(
        error.message,
        "the model server reported an error mid-answer: Tool call validation failed (code tool_use_failed)"
    );
    assert_eq!(server.received().len(), 2, "stream errors are not retried");
}

#[tokio::test]
async fn an_html_page_is_a_bad_response() {
    let html = "<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head></html>";
    let server = Server::start(vec![vec![Step::Send(response(
        "200 OK",
        "text/html; charset=utf-8",
        html,
    ))]])
    .await;
    let error = failed(complete_simple(&client(&server)).await.0);
    assert_eq!(error.kind, ProviderErrorKind::BadResponse);
    assert_eq!(
        error.message,
        format!(
            "the model server answered with text/html; charset=utf-8, not an event stream or a JSON completion (is the base URL right?): {html}"
        )
    );
}

#[tokio::test]
async fn a_whole_json_completion_is_accepted_and_relayed() {
    // Some servers ignore `stream: true`.
    let body = json!({"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Paris.", "reasoning": "Easy."}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2}});
    let server = Server::start(vec![vec![Step::Send(response(
        "200 OK",
        "application/json",
        &body.to_string(),
    ))]])
    .await;
    let (result, deltas) = complete_simple(&client(&server)).await;
    let completion = result.unwrap();
    assert_eq!(
        (completion.text.as_str(), completion.reasoning.as_str()),
        ("Paris.", "Easy.")
    );
    assert_eq!(completion.finish_reason, Some(FinishReason::Stop));
    assert_eq!(
        deltas,
        [
            Delta::Reasoning("Easy.".into()),
            Delta::Text("Paris.".into())
        ]
    );
}

#[tokio::test]
async fn an_event_stream_with_the_wrong_content_type_is_still_read() {
    let body = format!("{}{}", text_event("plain"), finish_event("stop"));
    let server = Server::start(vec![vec![Step::Send(response(
        "200 OK",
        "text/plain",
        &body,
    ))]])
    .await;
    let (result, _) = complete_simple(&client(&server)).await;
    assert_eq!(result.unwrap().text, "plain");
}

#[tokio::test]
async fn a_connection_broken_mid_answer_is_interrupted_and_not_retried() {
    // A chunked body that stops without its last chunk: the connection broke.
    let cut = [
        chunked_head("text/event-stream"),
        chunk(&text_event("Half an ans")),
    ]
    .concat();
    let server = Server::start(vec![vec![Step::Send(cut)], ok_stream("never")]).await;
    let (result, deltas) = complete_simple(&client(&server)).await;
    let error = failed(result);
    assert_eq!(error.kind, ProviderErrorKind::Interrupted);
    assert!(
        error
            .message
            .starts_with("the connection to the model server broke mid-answer"),
        "{}",
        error.message
    );
    assert_eq!(deltas, [Delta::Text("Half an ans".into())]);
    assert_eq!(
        server.received().len(),
        1,
        "text was already relayed: no retry"
    );
}

#[tokio::test]
async fn a_stream_that_ends_without_finish_or_done_was_cut_short() {
    // Close-delimited: the body ends cleanly, but the answer never said it was complete.
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    let cut = [head.as_bytes().to_vec(), text_event("Half").into_bytes()].concat();
    let (error, _) = failure_against(vec![vec![Step::Send(cut)]]).await;
    assert_eq!(error.kind, ProviderErrorKind::Interrupted);
    assert_eq!(
        error.message,
        "the connection to the model server broke mid-answer: the stream ended before the answer was complete"
    );
}

#[tokio::test]
async fn a_stream_broken_before_any_delta_is_retried() {
    let cut = [chunked_head("text/event-stream"), chunk(": keep-alive\n\n")].concat();
    let server = Server::start(vec![vec![Step::Send(cut)], ok_stream("second try")]).await;
    let (result, _) = complete_simple(&client(&server)).await;
    assert_eq!(result.unwrap().text, "second try");
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn a_stalled_stream_times_out_naming_the_seconds() {
    let stall = Limits {
        stall_timeout: Duration::from_millis(300),
        ..limits()
    };
    let start = [chunked_head("text/event-stream"), chunk(&text_event("Hel"))].concat();
    let server = Server::start(vec![vec![
        Step::Send(start),
        Step::Sleep(Duration::from_secs(30)),
    ]])
    .await;
    let client = client_for(server.base_url(), Api::OpenAi, stall);
    let (result, deltas) = complete_simple(&client).await;
    let error = failed(result);
    assert_eq!(error.kind, ProviderErrorKind::Timeout);
    assert_eq!(
        error.message,
        "the model server sent nothing for 0.3 s (the stall timeout); gave up waiting"
    );
    assert_eq!(deltas, [Delta::Text("Hel".into())]);
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_before_the_headers() {
    let stall = Limits {
        stall_timeout: Duration::from_millis(300),
        ..limits()
    };
    let server = Server::start(vec![vec![Step::Sleep(Duration::from_secs(30))]]).await;
    let client = client_for(server.base_url(), Api::OpenAi, stall);
    let error = failed(complete_simple(&client).await.0);
    assert_eq!(error.kind, ProviderErrorKind::Timeout);
    assert_eq!(
        error.message,
        "the model server did not answer within 0.3 s (the stall timeout)"
    );
}

/// A port nothing listens on, held while the socket lives: bound but not listening, so a
/// connection is refused and no other test can take the port meanwhile.
fn closed_port() -> (tokio::net::TcpSocket, SocketAddr) {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = socket.local_addr().unwrap();
    (socket, addr)
}

#[tokio::test]
async fn connection_refused_fails_to_connect_after_the_retries() {
    let (_held, addr) = closed_port();
    let client = client_for(format!("http://{addr}/v1"), Api::OpenAi, limits());
    let error = failed(complete_simple(&client).await.0);
    assert_eq!(error.kind, ProviderErrorKind::Connect);
    assert!(
        error.message.starts_with(&format!(
            "could not connect to the model server at http://{addr}/v1: "
        )),
        "{}",
        error.message
    );
    assert!(
        error.message.ends_with("(tried 3 times)"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn the_key_is_hidden_from_debug_output_and_from_urls_in_messages() {
    let (_held, addr) = closed_port();
    // A key that also sits in the URL (as some gateways want it) must be masked there too.
    let client = client_for(format!("http://{addr}/v1?key={KEY}"), Api::OpenAi, limits());
    let shown = format!("{client:?}");
    assert!(!shown.contains(KEY), "{shown}");
    let error = failed(complete_simple(&client).await.0);
    assert!(error.message.contains("key=***"), "{}", error.message);
    let error = client.list_models().await.unwrap_err();
    assert!(!error.to_string().contains(KEY), "{error}");
}

#[tokio::test]
async fn anthropic_messages_request_and_stream() {
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 30, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        ("ping", json!({"type": "ping"})),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Done."}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    let body: String = events
        .iter()
        .map(|(name, data)| format!("event: {name}\r\ndata: {data}\r\n\r\n"))
        .collect();
    let server = Server::start(vec![vec![Step::Send(response(
        "200 OK",
        "text/event-stream",
        &body,
    ))]])
    .await;
    let client = client_for(server.base_url(), Api::Anthropic, limits());
    let (result, deltas) = complete(&client, &conversation(), &tools()).await;
    let completion = result.unwrap();
    assert_eq!(completion.text, "Done.");
    assert_eq!(completion.finish_reason, Some(FinishReason::Stop));
    assert_eq!(
        completion.usage,
        Some(Usage {
            prompt_tokens: 30,
            completion_tokens: 4,
            // Anthropic always says how much came from its cache.
            cached_tokens: Some(0)
        })
    );
    assert_eq!(deltas, [Delta::Text("Done.".into())]);

    let [request] = server.received().try_into().unwrap();
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
    let expected = json!({
        "model": "test-model",
        "max_tokens": 8192,
        "system": "You are terse.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Read a.txt and b.txt"}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "call_1", "name": "read_file", "input": {"path": "a.txt"}},
                {"type": "tool_use", "id": "call_2", "name": "read_file", "input": {}}
            ]},
            // Both results in ONE user turn, right after the calls.
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "alpha"},
                {"type": "tool_result", "tool_use_id": "call_2", "content": "error: arguments are not valid JSON"}
            ]}
        ],
        "tools": [{"name": "read_file", "description": "Reads a file",
                   "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}],
        "stream": true
    });
    assert_eq!(request.json(), expected);
}

#[tokio::test]
async fn anthropic_overloaded_event_is_a_stream_error() {
    let body = format!(
        "event: message_start\ndata: {}\n\nevent: error\ndata: {}\n\n",
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
    let server = Server::start(vec![vec![Step::Send(response(
        "200 OK",
        "text/event-stream",
        &body,
    ))]])
    .await;
    let client = client_for(server.base_url(), Api::Anthropic, limits());
    let error = failed(complete_simple(&client).await.0);
    assert_eq!(error.kind, ProviderErrorKind::Stream);
    assert_eq!(
        error.message,
        "the model server reported an error mid-answer: Overloaded (code overloaded_error)"
    );
}

#[tokio::test]
async fn list_models_reads_ids_and_context_windows_in_server_order() {
    let body = json!({"object": "list", "data": [
        {"id": "qwen3-8b", "object": "model", "max_context_length": 32768, "loaded_context_length": 8192},
        {"id": "anthropic/claude-sonnet-4.5", "context_length": 1000000},
        {"id": "model.gguf", "meta": {"n_ctx_train": 131072}},
        {"id": "plain", "owned_by": "library"}
    ]});
    let server = Server::start(vec![vec![Step::Send(response(
        "200 OK",
        "application/json",
        &body.to_string(),
    ))]])
    .await;
    let models = client(&server).list_models().await.unwrap();
    let model = |id: &str, context_window| ModelInfo {
        id: id.into(),
        context_window,
    };
    assert_eq!(
        models,
        [
            model("qwen3-8b", Some(8192)),
            model("anthropic/claude-sonnet-4.5", Some(1_000_000)),
            model("model.gguf", Some(131072)),
            model("plain", None)
        ]
    );
    let [request] = server.received().try_into().unwrap();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}

#[tokio::test]
async fn list_models_failures_are_explained() {
    let server = Server::start(vec![
        vec![Step::Send(response(
            "404 Not Found",
            "application/json",
            r#"{"detail":"Not Found"}"#,
        ))],
        vec![Step::Send(response(
            "200 OK",
            "text/html",
            "<html>hi</html>",
        ))],
    ])
    .await;
    let client = client(&server);
    let error = client.list_models().await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Status(404));
    assert_eq!(
        error.message,
        "model server returned 404 Not Found: Not Found"
    );
    let error = client.list_models().await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::BadResponse);
    assert!(
        error.message.ends_with(": <html>hi</html>"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn probe_finds_a_server_that_lists_models() {
    let server = Server::start(vec![
        vec![Step::Send(response(
            "200 OK",
            "application/json",
            r#"{"data":[]}"#,
        ))],
        vec![Step::Send(response("404 Not Found", "text/plain", "no"))],
    ])
    .await;
    let timeout = Duration::from_secs(5);
    assert!(probe(&server.base_url(), timeout).await);
    assert!(!probe(&server.base_url(), timeout).await);
    let (_held, closed) = closed_port();
    assert!(!probe(&format!("http://{closed}/v1"), timeout).await);
    assert!(!probe("not a url", timeout).await);
    assert_eq!(server.received()[0].path, "/v1/models");
}

#[tokio::test]
async fn endless_empty_deltas_end_at_the_progress_deadline() {
    let limits = Limits {
        progress_timeout: Duration::from_millis(600),
        ..limits()
    };
    let empty = text_event("");
    let mut steps = vec![Step::Send(
        [chunked_head("text/event-stream"), chunk(&text_event("Hi"))].concat(),
    )];
    // A byte of nothing every 50 ms, for far longer than the deadline: the stall timer alone
    // would never fire.
    for _ in 0..200 {
        steps.push(Step::Sleep(Duration::from_millis(50)));
        steps.push(Step::Send(chunk(&empty)));
        steps.push(Step::Send(chunk(": keep-alive\n\n")));
    }
    let server = Server::start(vec![steps]).await;
    let client = client_for(server.base_url(), Api::OpenAi, limits);
    // The server sends for 10 s and then breaks off: a timeout naming the progress deadline can
    // only be that deadline's.
    let (result, deltas) = complete_simple(&client).await;
    let error = failed(result);
    assert_eq!(error.kind, ProviderErrorKind::Timeout);
    assert!(error.message.contains("limits.progress_timeout"), "{error}");
    assert_eq!(deltas, [Delta::Text("Hi".into())]);
}

#[tokio::test]
async fn an_event_or_an_answer_past_its_limit_ends_the_stream() {
    let small = Limits {
        max_event_bytes: 64 * 1024,
        max_answer_bytes: 256 * 1024,
        ..limits()
    };
    // One line that never ends.
    let mut steps = vec![Step::Send(
        [
            chunked_head("text/event-stream"),
            chunk("data: {\"choices\":[{\"delta\":{\"content\":\""),
        ]
        .concat(),
    )];
    for _ in 0..64 {
        steps.push(Step::Send(chunk(&"x".repeat(16 * 1024))));
    }
    let server = Server::start(vec![steps]).await;
    let error = failed(
        complete_simple(&client_for(server.base_url(), Api::OpenAi, small.clone()))
            .await
            .0,
    );
    assert!(error.message.contains("limits.max_event_bytes"), "{error}");

    // Many small events that add up.
    let mut steps = vec![Step::Send(chunked_head("text/event-stream"))];
    for _ in 0..64 {
        steps.push(Step::Send(chunk(&text_event(&"y".repeat(8 * 1024)))));
    }
    let server = Server::start(vec![steps]).await;
    let error = failed(
        complete_simple(&client_for(server.base_url(), Api::OpenAi, small))
            .await
            .0,
    );
    assert!(error.message.contains("limits.max_answer_bytes"), "{error}");
}

#[tokio::test]
async fn a_redirect_to_another_host_carries_nothing_there() {
    let elsewhere = Server::start(vec![ok_stream("stolen")]).await;
    let redirect = format!(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://localhost:{}/v1/chat/completions\r\nContent-Length: 0\r\n\r\n",
        elsewhere.addr.port()
    );
    let server = Server::start(vec![vec![Step::Send(redirect.into_bytes())]]).await;
    let error = failed(complete_simple(&client(&server)).await.0);
    assert_eq!(error.kind, ProviderErrorKind::Status(307));
    assert!(error.message.contains("not followed"), "{error}");
    assert!(
        elsewhere.received().is_empty(),
        "the conversation went to the other host"
    );
}
