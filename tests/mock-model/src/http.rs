//! A small HTTP/1.1 server on raw sockets. Not hyper: the mock must be able to break a
//! connection after exactly N events, or go silent mid-body, and here that is a plain `return`.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

use crate::render::{self, Answer, StreamEnd};
use crate::{Hold, RecordedRequest, Shared};

/// The most header bytes accepted.
const MAX_HEAD: usize = 64 * 1024;
/// Events go out in writes of about this size when nothing paces them.
const WRITE_SIZE: usize = 64 * 1024;

struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Serves one connection, request after request, until either side closes it.
pub(crate) async fn serve(stream: TcpStream, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    while let Ok(Some(request)) = read_request(&mut read).await {
        let close = request
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let kept = respond(request, &mut read, &mut write, &shared).await;
        if !kept || close {
            break;
        }
    }
    let _ = write.shutdown().await;
}

async fn read_request(read: &mut BufReader<OwnedReadHalf>) -> std::io::Result<Option<Request>> {
    let mut head = Vec::new();
    loop {
        let n = read.read_until(b'\n', &mut head).await?;
        if n == 0 {
            return Ok(None);
        }
        if head.ends_with(b"\r\n\r\n") || head == b"\r\n" {
            if head == b"\r\n" {
                // A stray blank line between requests.
                head.clear();
                continue;
            }
            break;
        }
        if head.len() > MAX_HEAD {
            return Err(std::io::Error::other("request head too large"));
        }
    }
    let mut parsed_headers = [httparse::EMPTY_HEADER; 64];
    let mut parsed = httparse::Request::new(&mut parsed_headers);
    parsed
        .parse(&head)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut request = Request {
        method: parsed.method.unwrap_or("").to_string(),
        path: parsed.path.unwrap_or("").to_string(),
        headers: parsed
            .headers
            .iter()
            .map(|h| {
                (
                    h.name.to_ascii_lowercase(),
                    String::from_utf8_lossy(h.value).into_owned(),
                )
            })
            .collect(),
        body: Vec::new(),
    };
    if request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
    {
        request.body = read_chunked(read).await?;
    } else if let Some(len) = request.header("content-length") {
        let len: usize = len
            .trim()
            .parse()
            .map_err(|_| std::io::Error::other("bad content-length"))?;
        request.body = vec![0; len];
        read.read_exact(&mut request.body).await?;
    }
    Ok(Some(request))
}

async fn read_chunked(read: &mut BufReader<OwnedReadHalf>) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut line = String::new();
        read.read_line(&mut line).await?;
        let size = line.trim().split(';').next().unwrap_or("");
        let size =
            usize::from_str_radix(size, 16).map_err(|_| std::io::Error::other("bad chunk size"))?;
        if size == 0 {
            // Trailers, up to the blank line.
            loop {
                line.clear();
                if read.read_line(&mut line).await? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size + 2, 0);
        read.read_exact(&mut body[start..]).await?;
        body.truncate(start + size);
    }
}

/// Answers one request; false when the connection must not be used again.
async fn respond(
    request: Request,
    read: &mut BufReader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
    shared: &Shared,
) -> bool {
    let path = request.path.split('?').next().unwrap_or("").to_string();
    let route = path.strip_prefix("/v1").unwrap_or(&path);
    let body = parse_body(&request.body);
    let chat = request.method == "POST" && route == "/chat/completions";
    let ollama_chat = request.method == "POST" && path == "/api/chat";
    let key = format!("{} {path}", request.method);
    let fixed = shared
        .scenario
        .routes
        .get(&key)
        .cloned()
        .or_else(|| shared.route_state(&key));
    if !route.starts_with("/__mock/") {
        shared.log(RecordedRequest {
            method: request.method.clone(),
            path: path.clone(),
            headers: request.headers.iter().cloned().collect(),
            body: body.clone(),
        });
    }
    let answer = match (request.method.as_str(), route) {
        _ if fixed.is_some() => json_answer(200, &fixed.unwrap_or_default()),
        _ if ollama_chat => match shared.next_reply(&body) {
            (number, None) => {
                let message = format!("mock-model: no scripted response left (request {number})");
                shared.fail(message.clone());
                json_answer(500, &json!({"error": message}))
            }
            (number, Some(reply)) => match render::check(&reply, &body, number) {
                Some(message) => {
                    shared.fail(message.clone());
                    json_answer(500, &json!({"error": message}))
                }
                None => render::ollama(&reply, &body),
            },
        },
        _ if chat => match shared.next_reply(&body) {
            (number, None) => {
                let message = format!("mock-model: no scripted response left (request {number})");
                shared.fail(message.clone());
                render::error(500, &message)
            }
            (number, Some(reply)) => match render::check(&reply, &body, number)
                .map_or_else(|| render::answer(&reply, &body, number), Err)
            {
                Ok(answer) => answer,
                Err(message) => {
                    shared.fail(message.clone());
                    render::error(500, &message)
                }
            },
        },
        ("GET", "/models") => {
            let data: Vec<Value> = shared
                .scenario
                .model_list()
                .into_iter()
                .map(|m| {
                    let mut v = json!({"id": m.id, "object": "model", "owned_by": "mock-model"});
                    if let Some(n) = m.context_length {
                        v["context_length"] = json!(n);
                    }
                    if let Some(Value::Object(extra)) = &m.extra {
                        for (k, x) in extra {
                            v[k] = x.clone();
                        }
                    }
                    v
                })
                .collect();
            json_answer(200, &json!({"object": "list", "data": data}))
        }
        ("GET", "/__mock/requests") => json_answer(200, &json!(shared.requests())),
        ("GET", "/__mock/failures") => json_answer(200, &json!(shared.failures())),
        _ => render::error(
            404,
            &format!("mock-model: no route for {} {}", request.method, path),
        ),
    };
    send(answer, read, write, shared).await
}

fn parse_body(body: &[u8]) -> Value {
    if body.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()))
}

fn json_answer(status: u16, value: &Value) -> Answer {
    Answer::Whole {
        status,
        headers: Vec::new(),
        content_type: "application/json",
        body: value.to_string().into_bytes(),
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

fn head(status: u16, content_type: &str, headers: &[(String, String)], framing: &str) -> Vec<u8> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\n{framing}\r\n",
        reason(status)
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.into_bytes()
}

/// One chunk of a chunked body.
fn chunk(data: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    out
}

async fn send(
    answer: Answer,
    read: &mut BufReader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
    shared: &Shared,
) -> bool {
    match answer {
        Answer::Whole {
            status,
            headers,
            content_type,
            body,
        } => {
            let mut out = head(
                status,
                content_type,
                &headers,
                &format!("content-length: {}", body.len()),
            );
            out.extend_from_slice(&body);
            write.write_all(&out).await.is_ok()
        }
        Answer::Stream {
            headers,
            events,
            delay,
            end,
        } => {
            let framing = "transfer-encoding: chunked\r\ncache-control: no-cache";
            let out = head(200, "text/event-stream", &headers, framing);
            if write.write_all(&out).await.is_err() {
                return false;
            }
            let count = match end {
                StreamEnd::Finish => events.len(),
                StreamEnd::Cut(n) | StreamEnd::Stall(n) => n.min(events.len()),
            };
            if delay.is_zero() {
                let all = events.range(0, count);
                for piece in all.chunks(WRITE_SIZE) {
                    if write.write_all(&chunk(piece)).await.is_err() {
                        return false;
                    }
                }
            } else {
                for i in 0..count {
                    shared.holding(Hold::Paused { sent: i });
                    tokio::time::sleep(delay).await;
                    if write
                        .write_all(&chunk(events.range(i, i + 1)))
                        .await
                        .is_err()
                    {
                        return false;
                    }
                }
            }
            match end {
                StreamEnd::Finish => write.write_all(b"0\r\n\r\n").await.is_ok(),
                // Closing without the last chunk: the client sees the body break off.
                StreamEnd::Cut(_) => false,
                StreamEnd::Stall(_) => {
                    shared.holding(Hold::Stalled { sent: count });
                    // Silent until the client hangs up (or the server stops).
                    let mut sink = [0u8; 1024];
                    while matches!(read.read(&mut sink).await, Ok(n) if n > 0) {}
                    false
                }
            }
        }
    }
}
