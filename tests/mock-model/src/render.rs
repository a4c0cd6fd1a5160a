//! Turning a scripted [`Reply`] into bytes on the wire, the way OpenAI-compatible servers send
//! them: `chat.completion.chunk` events (a role chunk, deltas, tool-call deltas split across
//! chunks, a finish chunk, a usage chunk when asked for, `[DONE]`), or a whole `chat.completion`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::scenario::{Reply, ToolCallSpec, UsageSpec};

/// What to send back for one request.
pub(crate) enum Answer {
    /// A whole response.
    Whole {
        status: u16,
        headers: Vec<(String, String)>,
        content_type: &'static str,
        body: Vec<u8>,
    },
    /// A `text/event-stream` response.
    Stream {
        headers: Vec<(String, String)>,
        events: Events,
        delay: Duration,
        end: StreamEnd,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StreamEnd {
    /// Every event, then the end of the body.
    Finish,
    /// This many events, then the connection closes mid-body.
    Cut(usize),
    /// This many events, then silence until the client leaves.
    Stall(usize),
}

/// SSE events in one buffer (a long stream costs one allocation, and events go out in bulk).
#[derive(Default)]
pub(crate) struct Events {
    buf: Vec<u8>,
    ends: Vec<usize>,
}

impl Events {
    fn push(&mut self, parts: &[&[u8]]) {
        for part in parts {
            self.buf.extend_from_slice(part);
        }
        self.ends.push(self.buf.len());
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Events `from..to`, as one slice.
    pub fn range(&self, from: usize, to: usize) -> &[u8] {
        let start = if from == 0 { 0 } else { self.ends[from - 1] };
        let end = if to == 0 { 0 } else { self.ends[to - 1] };
        &self.buf[start..end]
    }

    /// A recorded body: `.chunks.txt` is one JSON payload a line; anything else is SSE as sent,
    /// split at blank lines.
    fn recorded(path: &std::path::Path, bytes: &[u8]) -> Self {
        let mut events = Events::default();
        if path.to_string_lossy().ends_with(".chunks.txt") {
            for line in bytes.split(|b| *b == b'\n') {
                if !line.iter().all(u8::is_ascii_whitespace) {
                    events.push(&[b"data: ", line.trim_ascii(), b"\n\n"]);
                }
            }
            events.push(&[b"data: [DONE]\n\n"]);
            return events;
        }
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let sep = if bytes[i..].starts_with(b"\n\n") {
                2
            } else if bytes[i..].starts_with(b"\r\n\r\n") {
                4
            } else {
                0
            };
            if sep > 0 {
                events.push(&[&bytes[start..i + sep]]);
                start = i + sep;
                i = start;
            } else {
                i += 1;
            }
        }
        if start < bytes.len() {
            events.push(&[&bytes[start..]]);
        }
        events
    }
}

/// An OpenAI-style error response.
pub(crate) fn error(status: u16, message: &str) -> Answer {
    Answer::Whole {
        status,
        headers: Vec::new(),
        content_type: "application/json",
        body: error_body(message).to_string().into_bytes(),
    }
}

fn error_body(message: &str) -> Value {
    json!({"error": {"message": message, "type": "mock_error", "param": null, "code": null}})
}

/// The text of a message's content, whether a string or a list of parts.
pub(crate) fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// Why the request does not meet the reply's expectations, if it does not.
pub(crate) fn check(reply: &Reply, request: &Value, number: usize) -> Option<String> {
    let messages = request
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if let Some(needle) = &reply.expect_last_tool_result_contains {
        let last = messages
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("tool"));
        let found = last.map(message_text);
        if !found
            .as_deref()
            .is_some_and(|t| t.contains(needle.as_str()))
        {
            return Some(format!(
                "mock-model: request {number} expected the last tool message to contain {needle:?}, \
                 but it was {}",
                found.map_or("absent (no tool message)".into(), |t| format!("{t:?}"))
            ));
        }
    }
    for needle in &reply.expect_messages_contain {
        let found = messages.iter().any(|m| {
            message_text(m).contains(needle.as_str())
                || m.get("tool_calls").is_some_and(|calls| {
                    calls.as_array().into_iter().flatten().any(|c| {
                        c.pointer("/function/arguments")
                            .and_then(Value::as_str)
                            .is_some_and(|a| a.contains(needle.as_str()))
                    })
                })
        });
        if !found {
            return Some(format!(
                "mock-model: request {number} expected a message containing {needle:?}; the \
                 messages were {}",
                Value::Array(messages.to_vec())
            ));
        }
    }
    None
}

/// What request `number` (1-based) gets from `reply`.
pub(crate) fn answer(reply: &Reply, request: &Value, number: usize) -> Result<Answer, String> {
    let headers: Vec<(String, String)> = reply
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(status) = reply.status {
        let (content_type, body) = match &reply.body {
            Some(Value::String(raw)) => ("text/plain", raw.clone().into_bytes()),
            Some(json) => ("application/json", json.to_string().into_bytes()),
            None => (
                "application/json",
                error_body(&format!("mock-model: scripted HTTP {status}"))
                    .to_string()
                    .into_bytes(),
            ),
        };
        return Ok(Answer::Whole {
            status,
            headers,
            content_type,
            body,
        });
    }
    if reply.empty_stream {
        return Ok(Answer::Stream {
            headers,
            events: Events::default(),
            delay: Duration::ZERO,
            end: StreamEnd::Finish,
        });
    }
    let end = match (reply.cut_after_chunks, reply.stall_after_chunks) {
        (Some(n), _) => StreamEnd::Cut(n),
        (None, Some(n)) => StreamEnd::Stall(n),
        (None, None) => StreamEnd::Finish,
    };
    let delay = Duration::from_millis(reply.delay_ms);
    if let Some(path) = &reply.sse {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("mock-model: cannot read {}: {e}", path.display()))?;
        let events = Events::recorded(path, &bytes);
        return Ok(Answer::Stream {
            headers,
            events,
            delay,
            end,
        });
    }
    let chunk = Chunker::new(reply, request, number);
    if request.get("stream").and_then(Value::as_bool) != Some(true) {
        return Ok(Answer::Whole {
            status: 200,
            headers,
            content_type: "application/json",
            body: chunk.whole().to_string().into_bytes(),
        });
    }
    Ok(Answer::Stream {
        headers,
        events: chunk.events(),
        delay,
        end,
    })
}

/// A reply as Ollama's `/api/chat` streams it: NDJSON lines of `message` pieces, the tool calls
/// in one line (arguments as objects), then a `done` line with the counts. A scripted `status`
/// answers `{"error": ...}` (Ollama's error shape).
pub(crate) fn ollama(reply: &Reply, request: &Value) -> Answer {
    if let Some(status) = reply.status {
        let body = match &reply.body {
            Some(Value::String(message)) => json!({"error": message}),
            Some(other) => other.clone(),
            None => json!({"error": format!("mock-model: scripted HTTP {status}")}),
        };
        return Answer::Whole {
            status,
            headers: Vec::new(),
            content_type: "application/json",
            body: body.to_string().into_bytes(),
        };
    }
    let model = request
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("mock");
    let line = |content: &str| json!({"model": model, "message": {"role": "assistant", "content": content}, "done": false});
    let mut lines = Vec::new();
    let text = reply
        .text
        .as_deref()
        .unwrap_or("")
        .repeat(reply.repeat.unwrap_or(1));
    for piece in pieces(&text, reply.chunk_size.unwrap_or(4).max(1)) {
        lines.push(line(piece));
    }
    let calls: Vec<Value> = reply
        .all_tool_calls()
        .iter()
        .map(|c| {
            let arguments: Value = serde_json::from_str(&c.arguments_text()).unwrap_or(json!({}));
            json!({"function": {"name": c.name, "arguments": arguments}})
        })
        .collect();
    if !calls.is_empty() {
        let mut l = line("");
        l["message"]["tool_calls"] = Value::Array(calls);
        lines.push(l);
    }
    let prompt = reply
        .usage
        .map_or_else(|| request.to_string().len() as u64 / 4, |u| u.prompt);
    let mut done = line("");
    done["done"] = json!(true);
    done["done_reason"] = json!(reply.finish_reason.clone().unwrap_or_else(|| "stop".into()));
    done["prompt_eval_count"] = json!(prompt.max(1));
    done["eval_count"] = json!(text.len() as u64 / 4 + 1);
    lines.push(done);
    if let Some(n) = reply.cut_after_chunks {
        lines.truncate(n);
    }
    let mut body = Vec::new();
    for l in lines {
        body.extend_from_slice(l.to_string().as_bytes());
        body.push(b'\n');
    }
    Answer::Whole {
        status: 200,
        headers: Vec::new(),
        content_type: "application/x-ndjson",
        body,
    }
}

/// Renders one reply's chunks.
struct Chunker<'a> {
    reply: &'a Reply,
    id: String,
    created: u64,
    model: String,
    calls: Vec<(String, ToolCallSpec)>,
    chunk_size: usize,
    include_usage: bool,
    prompt_estimate: u64,
}

impl<'a> Chunker<'a> {
    fn new(reply: &'a Reply, request: &Value, number: usize) -> Self {
        let calls = reply
            .all_tool_calls()
            .into_iter()
            .enumerate()
            .map(|(i, call)| {
                let id = call
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("call_{number}_{i}"));
                (id, call)
            })
            .collect();
        Self {
            reply,
            id: format!("chatcmpl-mock{number}"),
            created: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            model: request
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or("mock-coder")
                .to_string(),
            calls,
            chunk_size: reply.chunk_size.unwrap_or(4).max(1),
            include_usage: request
                .pointer("/stream_options/include_usage")
                .and_then(Value::as_bool)
                == Some(true),
            // The whole request (messages and tools), as a server's template renders both.
            prompt_estimate: request.to_string().len() as u64 / 4,
        }
    }

    fn text(&self) -> String {
        let text = self.reply.text.as_deref().unwrap_or("");
        text.repeat(self.reply.repeat.unwrap_or(1))
    }

    fn finish_reason(&self) -> String {
        match &self.reply.finish_reason {
            Some(r) => r.clone(),
            None if self.calls.is_empty() => "stop".into(),
            None => "tool_calls".into(),
        }
    }

    fn usage(&self) -> Value {
        let UsageSpec { prompt, completion } = self.reply.usage.unwrap_or_else(|| {
            let produced = self.text().len()
                + self.reply.reasoning.as_deref().map_or(0, str::len)
                + self
                    .calls
                    .iter()
                    .map(|(_, c)| c.arguments_text().len())
                    .sum::<usize>();
            UsageSpec {
                prompt: self.prompt_estimate.max(1),
                completion: produced as u64 / 4 + 1,
            }
        });
        json!({"prompt_tokens": prompt, "completion_tokens": completion,
               "total_tokens": prompt + completion})
    }

    fn wire_calls(&self) -> Vec<Value> {
        self.calls
            .iter()
            .map(|(id, call)| {
                json!({"id": id, "type": "function",
                       "function": {"name": call.name, "arguments": call.arguments_text()}})
            })
            .collect()
    }

    /// A non-streaming `chat.completion`.
    fn whole(&self) -> Value {
        let mut message = json!({"role": "assistant", "content": self.reply.text.as_ref().map(|_| self.text()), "refusal": null});
        if let Some(reasoning) = &self.reply.reasoning {
            message["reasoning_content"] = json!(reasoning);
        }
        if !self.calls.is_empty() {
            message["tool_calls"] = Value::Array(self.wire_calls());
        }
        let mut whole = json!({
            "id": self.id, "object": "chat.completion", "created": self.created,
            "model": self.model, "system_fingerprint": "fp_mock",
            "choices": [{"index": 0, "message": message, "logprobs": null,
                         "finish_reason": self.finish_reason()}],
            "usage": self.usage(),
        });
        if let Some(timings) = &self.reply.timings {
            whole["timings"] = timings.clone();
        }
        whole
    }

    fn events(&self) -> Events {
        let head = format!(
            r#"data: {{"id":"{}","object":"chat.completion.chunk","created":{},"model":{},"system_fingerprint":"fp_mock","choices":"#,
            self.id,
            self.created,
            Value::from(self.model.as_str()),
        );
        let head = head.as_bytes();
        let delta_open: &[u8] = br#"[{"index":0,"delta":"#;
        let delta_close: &[u8] = b",\"logprobs\":null,\"finish_reason\":null}]}\n\n";
        let mut events = Events::default();
        let delta = |events: &mut Events, delta: &[u8]| {
            events.push(&[head, delta_open, delta, delta_close]);
        };
        let content = if self.reply.text.is_some() {
            "\"\""
        } else {
            "null"
        };
        delta(
            &mut events,
            format!(r#"{{"role":"assistant","content":{content},"refusal":null}}"#).as_bytes(),
        );
        if let Some(reasoning) = &self.reply.reasoning {
            for piece in pieces(reasoning, self.chunk_size) {
                let d = format!(
                    r#"{{"content":null,"reasoning_content":{}}}"#,
                    Value::from(piece)
                );
                delta(&mut events, d.as_bytes());
            }
        }
        if let Some(text) = &self.reply.text {
            match self.reply.repeat {
                // The same delta over and over: rendered once, copied N times.
                Some(n) => {
                    let d = format!(r#"{{"content":{}}}"#, Value::from(text.as_str()));
                    for _ in 0..n {
                        delta(&mut events, d.as_bytes());
                    }
                }
                None => {
                    for piece in pieces(text, self.chunk_size) {
                        let d = format!(r#"{{"content":{}}}"#, Value::from(piece));
                        delta(&mut events, d.as_bytes());
                    }
                }
            }
        }
        for (index, (id, call)) in self.calls.iter().enumerate() {
            let first = json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                               "function": {"name": call.name, "arguments": ""}}]});
            delta(&mut events, first.to_string().as_bytes());
            for piece in pieces(&call.arguments_text(), self.chunk_size) {
                let d = json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]});
                delta(&mut events, d.to_string().as_bytes());
            }
        }
        let timings = self
            .reply
            .timings
            .as_ref()
            .map(|t| format!(r#","timings":{t}"#))
            .unwrap_or_default();
        let finish = format!(
            r#"[{{"index":0,"delta":{{}},"logprobs":null,"finish_reason":{}}}]{timings}}}"#,
            Value::from(self.finish_reason())
        );
        events.push(&[head, finish.as_bytes(), b"\n\n"]);
        if self.include_usage {
            let usage = format!(r#"[],"usage":{}}}"#, self.usage());
            events.push(&[head, usage.as_bytes(), b"\n\n"]);
        }
        events.push(&[b"data: [DONE]\n\n"]);
        events
    }
}

/// `text` in pieces of `size` characters.
fn pieces(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let cut = rest.char_indices().nth(size).map_or(rest.len(), |(i, _)| i);
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payloads(events: &Events) -> Vec<String> {
        (0..events.len())
            .map(|i| {
                let e = std::str::from_utf8(events.range(i, i + 1)).unwrap();
                e.strip_prefix("data: ").unwrap().trim_end().to_string()
            })
            .collect()
    }

    #[test]
    fn pieces_respect_char_boundaries() {
        assert_eq!(pieces("héllo wörld", 4), vec!["héll", "o wö", "rld"]);
        assert!(pieces("", 4).is_empty());
    }

    #[test]
    fn a_stream_has_role_deltas_tool_calls_finish_usage_and_done() {
        let reply = Reply::tool("read_file", json!({"path": "a.txt"}))
            .with_text("Let me look.")
            .chunk_size(6)
            .usage(12, 3);
        let request =
            json!({"model": "m", "stream": true, "stream_options": {"include_usage": true}});
        let Ok(Answer::Stream { events, .. }) = answer(&reply, &request, 2) else {
            panic!("not a stream")
        };
        let all = payloads(&events);
        assert_eq!(all.last().unwrap(), "[DONE]");
        let chunks: Vec<Value> = all[..all.len() - 1]
            .iter()
            .map(|p| serde_json::from_str(p).unwrap())
            .collect();
        for c in &chunks {
            assert_eq!(c["object"], "chat.completion.chunk");
            assert_eq!(c["id"], "chatcmpl-mock2");
            assert_eq!(c["model"], "m");
        }
        assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
        let text: String = chunks
            .iter()
            .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
            .collect();
        assert_eq!(text, "Let me look.");
        let args: String = chunks
            .iter()
            .filter_map(|c| c.pointer("/choices/0/delta/tool_calls/0/function/arguments"))
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(args, r#"{"path":"a.txt"}"#);
        let first_call = chunks
            .iter()
            .find_map(|c| c.pointer("/choices/0/delta/tool_calls/0/id"))
            .unwrap();
        assert_eq!(first_call, "call_2_0");
        let n = chunks.len();
        assert_eq!(chunks[n - 2]["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(chunks[n - 1]["choices"], json!([]));
        assert_eq!(chunks[n - 1]["usage"]["prompt_tokens"], 12);
    }

    #[test]
    fn no_usage_chunk_unless_asked() {
        let request = json!({"stream": true});
        let Ok(Answer::Stream { events, .. }) = answer(&Reply::text("hi"), &request, 1) else {
            panic!()
        };
        assert!(!payloads(&events).iter().any(|p| p.contains("usage")));
    }

    #[test]
    fn recorded_sse_splits_at_blank_lines() {
        let e = Events::recorded(
            std::path::Path::new("x.sse"),
            b"data: {\"a\":1}\n\n: keep-alive\n\ndata: [DONE]\n\n",
        );
        assert_eq!(e.len(), 3);
        assert_eq!(e.range(1, 2), b": keep-alive\n\n");
        let c = Events::recorded(
            std::path::Path::new("x.chunks.txt"),
            b"{\"a\":1}\n{\"b\":2}",
        );
        assert_eq!(payloads(&c), vec!["{\"a\":1}", "{\"b\":2}", "[DONE]"]);
    }

    #[test]
    fn expectations_name_what_came() {
        let reply = Reply::text("ok").expect_tool_result_contains("use a constant");
        let request =
            json!({"messages": [{"role": "tool", "tool_call_id": "c", "content": "Applied."}]});
        let why = check(&reply, &request, 3).unwrap();
        assert!(
            why.contains("request 3") && why.contains("use a constant") && why.contains("Applied.")
        );
        let request =
            json!({"messages": [{"role": "tool", "content": "rejected: use a constant"}]});
        assert!(check(&reply, &request, 3).is_none());
    }
}
