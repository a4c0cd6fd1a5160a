//! A hosted API is never probed: no `/props`, `/api/show`, tokenizer or model-info request
//! reaches it, only the API's own requests. Shown through a real HTTP proxy (`HTTP_PROXY`) on
//! 127.0.0.1 that records every request line and answers it itself, so the hosted name needs no
//! DNS and no network. The same calls against a host on the user's own network (a `.local`
//! name) do probe it, so the recorder would see a probe if one were sent.
//!
//! The only test in this binary: it sets the proxy variables before any client exists and
//! before any other thread of the test runs.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tandem_model::{Delta, Message, ToolDefinition};
use tandem_provider::{
    Api, CompletionRequest, HttpModelClient, Limits, LocalOptions, ModelClient, ProviderConfig,
};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A forward proxy that answers every request itself: a short SSE answer to a chat completion,
/// a 404 to anything else. Records `METHOD URI` of each request, in order.
async fn start_recorder(listener: std::net::TcpListener) -> Arc<Mutex<Vec<String>>> {
    let listener = TcpListener::from_std(listener).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let record = record.clone();
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut read = BufReader::new(read);
                loop {
                    let mut line = String::new();
                    if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let mut parts = line.split_whitespace();
                    let request = format!(
                        "{} {}",
                        parts.next().unwrap_or(""),
                        parts.next().unwrap_or("")
                    );
                    let mut length = 0;
                    loop {
                        let mut header = String::new();
                        if read.read_line(&mut header).await.unwrap_or(0) == 0 {
                            return;
                        }
                        let header = header.trim_end();
                        if header.is_empty() {
                            break;
                        }
                        if let Some((name, value)) = header.split_once(':')
                            && name.eq_ignore_ascii_case("content-length")
                        {
                            length = value.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if read.read_exact(&mut body).await.is_err() {
                        return;
                    }
                    let answer = if request.ends_with("/chat/completions") {
                        let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
                        format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{sse}",
                            sse.len()
                        )
                    } else {
                        "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}".to_string()
                    };
                    record.lock().unwrap().push(request);
                    if write.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    seen
}

/// Everything a session asks of its client about the server, then one completion.
async fn use_client(base_url: &str) {
    // The process-wide TLS crypto provider, which `tandem`'s main installs at start-up.
    tandem_test_support::install_crypto_provider();
    let client = HttpModelClient::with_local(
        ProviderConfig {
            base_url: base_url.to_string(),
            model: "some-model".into(),
            api_key: None,
            api: Api::OpenAi,
            limits: Limits::default(),
        },
        LocalOptions {
            detect: true,
            ..LocalOptions::default()
        },
    );
    let messages = [Message::user("hi")];
    let tools = [ToolDefinition {
        name: "t".into(),
        description: "a tool".into(),
        parameters: json!({"type": "object"}),
        example: None,
    }];
    let request = || CompletionRequest::conversation(&messages, &tools, 1);
    client.window().await;
    client.count_tokens("hi").await;
    client.count_request(request()).await;
    client.aside_cache().await;
    let mut text = String::new();
    let mut on_delta = |delta: Delta| {
        if let Delta::Text(t) = delta {
            text.push_str(&t);
        }
    };
    let completion = client.complete(request(), &mut on_delta).await;
    assert_eq!(completion.expect("the completion").text, "hi");
}

#[test]
fn a_hosted_api_gets_its_own_requests_and_no_probe() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let proxy = format!("http://{}", listener.local_addr().unwrap());
    // SAFETY: this is the only test of this binary and no runtime runs yet, so no other thread
    // reads or writes the environment.
    unsafe {
        for name in [
            "NO_PROXY",
            "no_proxy",
            "ALL_PROXY",
            "all_proxy",
            "http_proxy",
        ] {
            std::env::remove_var(name);
        }
        std::env::set_var("HTTP_PROXY", &proxy);
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let seen = runtime.block_on(start_recorder(listener));

    runtime.block_on(use_client("http://models.example.com/v1"));
    let hosted = std::mem::take(&mut *seen.lock().unwrap());
    assert_eq!(
        hosted,
        ["POST http://models.example.com/v1/chat/completions"],
        "a hosted API was sent more than the completion"
    );

    // The same on the user's own network: the server is asked what it is.
    runtime.block_on(use_client("http://gpu-box.local:8080/v1"));
    let own = seen.lock().unwrap().clone();
    assert!(
        own.iter()
            .any(|r| r == "GET http://gpu-box.local:8080/props"),
        "{own:#?}"
    );
    assert_eq!(
        own.last().map(String::as_str),
        Some("POST http://gpu-box.local:8080/v1/chat/completions"),
        "{own:#?}"
    );
}
