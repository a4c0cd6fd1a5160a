//! The parts of Chat Completions responses we read, streamed chunks and whole bodies alike (a
//! whole body's `message` has the same fields as a chunk's `delta`).
//!
//! Strings borrow from the payload where they can; unknown fields are skipped. Fields that some
//! server or other fills with another shape are read leniently rather than failing the answer.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use tandem_model::Usage;

/// A `chat.completion.chunk`, or a whole `chat.completion`.
#[derive(Deserialize)]
pub(super) struct Chunk<'a> {
    #[serde(borrow)]
    pub choices: Option<Vec<Choice<'a>>>,
    pub usage: Option<UsageWire>,
    /// Groq used to report usage only here.
    pub x_groq: Option<XGroq>,
    /// OpenRouter reports a failure mid-stream as a top-level `error` in a normal chunk.
    pub error: Option<Value>,
}

#[derive(Deserialize)]
pub(super) struct Choice<'a> {
    pub index: Option<u32>,
    #[serde(borrow, alias = "message")]
    pub delta: Option<MessageDelta<'a>>,
    #[serde(borrow)]
    pub finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
pub(super) struct MessageDelta<'a> {
    #[serde(borrow)]
    pub content: Option<Content<'a>>,
    /// OpenRouter, Groq (gpt-oss), Ollama, vLLM.
    #[serde(borrow)]
    pub reasoning: Option<Cow<'a, str>>,
    /// DeepSeek, xAI, older vLLM, LM Studio.
    #[serde(borrow)]
    pub reasoning_content: Option<Cow<'a, str>>,
    /// OpenRouter's structured copy of `reasoning`.
    #[serde(borrow)]
    pub reasoning_details: Option<Vec<ReasoningDetail<'a>>>,
    #[serde(borrow)]
    pub refusal: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

/// `content` is a string, or (Mistral) an array of typed parts.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum Content<'a> {
    Text(#[serde(borrow)] Cow<'a, str>),
    Parts(#[serde(borrow)] Vec<ContentPart<'a>>),
    Other(IgnoredAny),
}

/// `{"type":"text","text":...}` or `{"type":"thinking","thinking":[parts] | "..."}`.
#[derive(Deserialize)]
pub(super) struct ContentPart<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub thinking: Option<Content<'a>>,
}

#[derive(Deserialize)]
pub(super) struct ReasoningDetail<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub summary: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
pub(super) struct ToolCallDelta<'a> {
    pub index: Option<u32>,
    #[serde(borrow)]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
pub(super) struct FunctionDelta<'a> {
    #[serde(borrow)]
    pub name: Option<Cow<'a, str>>,
    /// A string by the spec; a few servers send the arguments object itself.
    pub arguments: Option<Value>,
}

#[derive(Clone, Copy, Deserialize)]
pub(super) struct UsageWire {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Clone, Copy, Deserialize)]
pub(super) struct PromptDetails {
    cached_tokens: Option<u64>,
}

impl From<UsageWire> for Usage {
    fn from(wire: UsageWire) -> Self {
        Usage {
            prompt_tokens: wire.prompt_tokens.unwrap_or(0),
            completion_tokens: wire.completion_tokens.unwrap_or(0),
            cached_tokens: wire.prompt_tokens_details.and_then(|d| d.cached_tokens),
        }
    }
}

#[derive(Deserialize)]
pub(super) struct XGroq {
    pub usage: Option<UsageWire>,
}
