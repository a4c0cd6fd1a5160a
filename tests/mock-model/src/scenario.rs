//! What the mock says: a scenario is an ordered list of replies, one per chat request.
//!
//! Scenarios are JSON (camelCase) or built in Rust with the builder methods on [`Reply`]:
//!
//! ```json
//! {"models": [{"id": "mock-coder", "context_length": 32768}],
//!  "responses": [
//!    {"text": "Let me look.", "toolCalls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
//!    {"text": "Done.", "chunkSize": 4, "delayMs": 5, "usage": {"prompt": 120, "completion": 8}},
//!    {"status": 429, "headers": {"Retry-After": "0"}, "body": {"error": {"message": "Rate limit reached"}}},
//!    {"sse": "../../../shared/fixtures/providers/openai-tool-call-single.sse"},
//!    {"text": "partial answer that gets cut", "cutAfterChunks": 3},
//!    {"text": "...", "stallAfterChunks": 2},
//!    {"rawArguments": "{not json", "toolName": "read_file"},
//!    {"expectLastToolResultContains": "use a constant", "text": "OK, using a constant."}
//!  ]}
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Everything the mock serves.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    /// `GET /v1/models`; one `mock-coder` model with a 32768-token context when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelEntry>,
    /// One per `POST /v1/chat/completions` (or Ollama's `POST /api/chat`), in order.
    #[serde(default)]
    pub responses: Vec<Reply>,
    /// Fixed JSON answers (200) to other routes, keyed `"METHOD /path"` as the client asks them
    /// (e.g. `"GET /props"` for llama.cpp, `"GET /api/version"` and `"POST /api/show"` for
    /// Ollama, `"GET /api/v0/models"` for LM Studio).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub routes: BTreeMap<String, Value>,
    /// JSON answers (200) that follow the chat requests, keyed like `routes`: the answer at
    /// index `n` is given while `n` chat requests have come, the last one after that (llama.cpp's
    /// `GET /slots`, whose slots fill and empty as requests are served). `routes` wins.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub route_states: BTreeMap<String, Vec<Value>>,
    /// Replies to requests asked aside (a compaction's summary), by a text their system message
    /// holds: given each time one comes, leaving `responses` to the conversation's requests.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asides: Vec<Aside>,
}

/// A reply for every chat request whose system message contains `system_contains`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Aside {
    pub system_contains: String,
    pub reply: Reply,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    pub id: String,
    /// As OpenRouter and LM Studio name it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_length: Option<u64>,
    /// More fields for the entry, as other servers have them (`max_model_len`, `owned_by`,
    /// `meta`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Value>,
}

/// One scripted answer. With `status` it is an HTTP error; with `sse` a recorded stream replayed;
/// otherwise a stream made of `reasoning`, `text` and `toolCalls`, in that order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Reply {
    /// Checked against the request before answering: the last `role: tool` message's content
    /// must contain this (else a 500 saying what was expected and what came).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_last_tool_result_contains: Option<String>,
    /// Each must appear in some message's content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect_messages_contain: Vec<String>,

    /// Answer with this HTTP status and `body` (an OpenAI-style error body when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Extra response headers (for any kind of reply).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// With `status`: the body, JSON (a string is sent as it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,

    /// Replay a recorded body: a `.sse` file as it is, or a `.chunks.txt` file (one JSON payload
    /// a line). Relative to the scenario file (or the current directory for in-code scenarios).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sse: Option<PathBuf>,

    /// Streamed as `reasoning_content` deltas, before the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Streamed as `content` deltas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Send `text` as this many deltas of the whole text each (for long, fast streams).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallSpec>,
    /// Shorthand for one tool call with raw (possibly malformed) arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_arguments: Option<String>,

    /// Characters per text, reasoning or arguments delta (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_size: Option<usize>,
    /// Pause before each SSE event.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub delay_ms: u64,
    /// Reported in the usage chunk (sent when the request asked `stream_options.include_usage`);
    /// estimated when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageSpec>,
    /// llama.cpp's `timings` (`{"cache_n": 700, "prompt_n": 40, ...}`), sent as it is in the
    /// stream's finish chunk and in a whole answer, as llama-server sends them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<Value>,
    /// Default: `tool_calls` when there are tool calls, else `stop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Close the connection after this many SSE events (the role chunk counts), mid-body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_after_chunks: Option<usize>,
    /// Send this many SSE events, then nothing more until the client goes away.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall_after_chunks: Option<usize>,
    /// A 200 event stream with an empty body, as llama-cpp-python answers a prompt longer than
    /// its window (streamed; a request without `stream` gets `status`/`body` if given).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub empty_stream: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A tool call the model makes. `arguments` is JSON; a JSON string is sent as the raw
/// arguments text itself, so `"{not json"` scripts a malformed call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolCallSpec {
    /// Default `call_<request>_<index>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    #[serde(default = "empty_object")]
    pub arguments: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

impl ToolCallSpec {
    /// The arguments text as it goes on the wire.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(raw) => raw.clone(),
            other => other.to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageSpec {
    pub prompt: u64,
    pub completion: u64,
}

impl Scenario {
    pub fn new(responses: impl IntoIterator<Item = Reply>) -> Self {
        Self {
            models: Vec::new(),
            responses: responses.into_iter().collect(),
            routes: BTreeMap::new(),
            route_states: BTreeMap::new(),
            asides: Vec::new(),
        }
    }

    /// Answers every request whose system message contains `system_contains` with `reply`,
    /// outside the sequence of `responses`.
    pub fn with_aside(mut self, system_contains: impl Into<String>, reply: Reply) -> Self {
        self.asides.push(Aside {
            system_contains: system_contains.into(),
            reply,
        });
        self
    }

    /// Reads a scenario file; `sse` paths in it are taken relative to the file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, String> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut scenario: Scenario = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a valid scenario: {e}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        for reply in &mut scenario.responses {
            if let Some(sse) = reply.sse.as_mut()
                && sse.is_relative()
            {
                *sse = base.join(&*sse);
            }
        }
        Ok(scenario)
    }

    pub fn with_models(mut self, models: impl IntoIterator<Item = ModelEntry>) -> Self {
        self.models = models.into_iter().collect();
        self
    }

    pub(crate) fn model_list(&self) -> Vec<ModelEntry> {
        if self.models.is_empty() {
            vec![ModelEntry {
                id: "mock-coder".into(),
                context_length: Some(32768),
                extra: None,
            }]
        } else {
            self.models.clone()
        }
    }
}

/// Builders, for scenarios written in Rust.
impl Reply {
    /// A plain text answer.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// One tool call with JSON arguments (a JSON string is the raw arguments text).
    pub fn tool(name: impl Into<String>, arguments: Value) -> Self {
        Self::default().and_tool(name, arguments)
    }

    /// An HTTP error answer.
    pub fn status(status: u16) -> Self {
        Self {
            status: Some(status),
            ..Self::default()
        }
    }

    /// A recorded stream replayed.
    pub fn sse(path: impl Into<PathBuf>) -> Self {
        Self {
            sse: Some(path.into()),
            ..Self::default()
        }
    }

    /// One more tool call in the same answer.
    pub fn and_tool(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.tool_calls.push(ToolCallSpec {
            id: None,
            name: name.into(),
            arguments,
        });
        self
    }

    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    pub fn with_reasoning(mut self, reasoning: impl Into<String>) -> Self {
        self.reasoning = Some(reasoning.into());
        self
    }

    pub fn with_body(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }

    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    pub fn repeat(mut self, n: usize) -> Self {
        self.repeat = Some(n);
        self
    }

    pub fn chunk_size(mut self, n: usize) -> Self {
        self.chunk_size = Some(n);
        self
    }

    pub fn delay_ms(mut self, ms: u64) -> Self {
        self.delay_ms = ms;
        self
    }

    pub fn usage(mut self, prompt: u64, completion: u64) -> Self {
        self.usage = Some(UsageSpec { prompt, completion });
        self
    }

    pub fn timings(mut self, timings: Value) -> Self {
        self.timings = Some(timings);
        self
    }

    pub fn finish_reason(mut self, reason: impl Into<String>) -> Self {
        self.finish_reason = Some(reason.into());
        self
    }

    pub fn cut_after(mut self, chunks: usize) -> Self {
        self.cut_after_chunks = Some(chunks);
        self
    }

    /// An empty 200 event stream.
    pub fn empty_stream(mut self) -> Self {
        self.empty_stream = true;
        self
    }

    pub fn stall_after(mut self, chunks: usize) -> Self {
        self.stall_after_chunks = Some(chunks);
        self
    }

    pub fn expect_tool_result_contains(mut self, needle: impl Into<String>) -> Self {
        self.expect_last_tool_result_contains = Some(needle.into());
        self
    }

    pub fn expect_messages_contain(mut self, needle: impl Into<String>) -> Self {
        self.expect_messages_contain.push(needle.into());
        self
    }

    /// Every tool call, the `toolName`/`rawArguments` shorthand included.
    pub(crate) fn all_tool_calls(&self) -> Vec<ToolCallSpec> {
        let mut calls = self.tool_calls.clone();
        if let Some(name) = &self.tool_name {
            calls.push(ToolCallSpec {
                id: None,
                name: name.clone(),
                arguments: Value::String(self.raw_arguments.clone().unwrap_or_default()),
            });
        }
        calls
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_documented_example_parses() {
        let s: Scenario = serde_json::from_value(json!({
            "models": [{"id": "mock-coder", "context_length": 32768}],
            "responses": [
                {"text": "Let me look.", "toolCalls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
                {"text": "Done.", "chunkSize": 4, "delayMs": 5, "usage": {"prompt": 120, "completion": 8}},
                {"status": 429, "headers": {"Retry-After": "0"}, "body": {"error": {"message": "Rate limit reached"}}},
                {"sse": "x.sse"},
                {"text": "partial", "cutAfterChunks": 3},
                {"text": "...", "stallAfterChunks": 2},
                {"rawArguments": "{not json", "toolName": "read_file"},
                {"expectLastToolResultContains": "use a constant", "text": "OK."}
            ]
        }))
        .unwrap();
        assert_eq!(s.responses.len(), 8);
        assert_eq!(
            s.responses[0].all_tool_calls()[0].arguments_text(),
            r#"{"path":"a.txt"}"#
        );
        assert_eq!(
            s.responses[6].all_tool_calls()[0].arguments_text(),
            "{not json"
        );
        assert_eq!(s.responses[2].status, Some(429));
    }

    #[test]
    fn typos_are_refused() {
        let r = serde_json::from_value::<Reply>(json!({"txt": "hello"}));
        assert!(r.unwrap_err().to_string().contains("txt"));
    }
}
