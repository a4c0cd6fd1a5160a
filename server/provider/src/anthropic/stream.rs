//! Reassembling a streamed Anthropic Messages answer from its events.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::ProviderError;
use crate::stream::{
    StreamAccumulator, arguments_or_empty_object, bad_chunk, finish_reason, stream_error,
};
use tandem_model::{Completion, Delta, FinishReason, ToolCall, Usage};

/// Accumulates Messages stream events (`message_start`, `content_block_*`, `message_delta`,
/// `message_stop`, `ping`, `error`). Text blocks make the text and thinking blocks the
/// reasoning, in stream order; `tool_use` blocks make the tool calls, in block order.
#[derive(Debug, Default)]
pub struct AnthropicStream {
    text: String,
    reasoning: String,
    blocks: Vec<Block>,
    pub(super) finish: Option<FinishReason>,
    usage: UsageCounts,
    saw_usage: bool,
    /// `message_stop` arrived.
    stopped: bool,
}

impl AnthropicStream {
    pub fn new() -> Self {
        Self::default()
    }

    /// The signature of each thinking block, in order (needed to send thinking back to the API).
    pub fn thinking_signatures(&self) -> Vec<&str> {
        self.blocks
            .iter()
            .filter_map(|b| match &b.kind {
                BlockKind::Thinking { signature } => Some(signature.as_str()),
                _ => None,
            })
            .collect()
    }

    pub(super) fn start_block(
        &mut self,
        index: usize,
        start: BlockStart<'_>,
        on_delta: &mut dyn FnMut(Delta),
    ) {
        let kind = match start.kind.as_ref() {
            "tool_use" | "server_tool_use" => BlockKind::ToolUse {
                id: start.id.map(Cow::into_owned).unwrap_or_default(),
                name: start.name.map(Cow::into_owned).unwrap_or_default(),
                json: String::new(),
                start_input: start.input,
            },
            "thinking" => BlockKind::Thinking {
                signature: start.signature.map(Cow::into_owned).unwrap_or_default(),
            },
            _ => BlockKind::Other,
        };
        // A start block may already hold text (the API sends it empty; some proxies do not).
        if let Some(text) = start.text {
            push(&mut self.text, text, Delta::Text, on_delta);
        }
        if let Some(thinking) = start.thinking {
            push(&mut self.reasoning, thinking, Delta::Reasoning, on_delta);
        }
        self.blocks.push(Block { index, kind });
    }

    fn block_delta(
        &mut self,
        index: Option<usize>,
        delta: DeltaBody<'_>,
        on_delta: &mut dyn FnMut(Delta),
    ) {
        match delta.kind.as_deref() {
            Some("text_delta") => {
                if let Some(text) = delta.text {
                    push(&mut self.text, text, Delta::Text, on_delta);
                }
            }
            Some("thinking_delta") => {
                if let Some(thinking) = delta.thinking {
                    push(&mut self.reasoning, thinking, Delta::Reasoning, on_delta);
                }
            }
            Some("signature_delta") => {
                if let (Some(BlockKind::Thinking { signature }), Some(piece)) =
                    (self.block_kind_mut(index), delta.signature)
                {
                    signature.push_str(&piece);
                }
            }
            Some("input_json_delta") => {
                if let (Some(BlockKind::ToolUse { json, .. }), Some(piece)) =
                    (self.block_kind_mut(index), delta.partial_json)
                {
                    json.push_str(&piece);
                }
            }
            _ => {}
        }
    }

    fn block_kind_mut(&mut self, index: Option<usize>) -> Option<&mut BlockKind> {
        let block = match index {
            Some(index) => self.blocks.iter_mut().rev().find(|b| b.index == index),
            None => self.blocks.last_mut(),
        };
        block.map(|b| &mut b.kind)
    }

    /// `message_delta` usage is cumulative: each count present replaces the earlier one.
    pub(super) fn count(&mut self, usage: UsageWire) {
        self.saw_usage = true;
        let counts = &mut self.usage;
        for (field, value) in [
            (&mut counts.input, usage.input_tokens),
            (
                &mut counts.cache_creation,
                usage.cache_creation_input_tokens,
            ),
            (&mut counts.cache_read, usage.cache_read_input_tokens),
            (&mut counts.output, usage.output_tokens),
        ] {
            if let Some(value) = value {
                *field = value;
            }
        }
    }
}

impl StreamAccumulator for AnthropicStream {
    /// Takes one `data:` payload; its `type` says which event it is.
    fn progress(&self) -> usize {
        self.text.len()
            + self.reasoning.len()
            + self
                .blocks
                .iter()
                .map(|b| match &b.kind {
                    BlockKind::Thinking { signature } => signature.len(),
                    BlockKind::ToolUse { id, name, json, .. } => id.len() + name.len() + json.len(),
                    #[allow(unreachable_patterns)]
                    _ => 0,
                })
                .sum::<usize>()
    }

    fn push_data(
        &mut self,
        data: &str,
        on_delta: &mut dyn FnMut(Delta),
    ) -> Result<(), ProviderError> {
        let event: Event<'_> = serde_json::from_str(data).map_err(|e| bad_chunk(&e, data))?;
        match event.kind.as_ref() {
            "message_start" => {
                if let Some(usage) = event.message.and_then(|m| m.usage) {
                    self.count(usage);
                }
            }
            "content_block_start" => {
                if let Some(start) = event.content_block {
                    self.start_block(event.index.unwrap_or(self.blocks.len()), start, on_delta);
                }
            }
            "content_block_delta" => {
                if let Some(delta) = event.delta {
                    self.block_delta(event.index, delta, on_delta);
                }
            }
            "message_delta" => {
                if let Some(reason) = event.delta.and_then(|d| d.stop_reason) {
                    self.finish = Some(finish_reason(&reason));
                }
                if let Some(usage) = event.usage {
                    self.count(usage);
                }
            }
            "message_stop" => self.stopped = true,
            "error" => return Err(stream_error(&event.error.unwrap_or(Value::Null))),
            // `ping`, `content_block_stop` and event types newer than this code.
            _ => {}
        }
        Ok(())
    }

    fn is_finished(&self) -> bool {
        self.stopped || self.finish.is_some()
    }

    fn into_completion(self) -> Completion {
        let mut blocks = self.blocks;
        blocks.sort_by_key(|b| b.index);
        let tool_calls = blocks
            .into_iter()
            .filter_map(|block| match block.kind {
                BlockKind::ToolUse {
                    id,
                    name,
                    json,
                    start_input,
                } => Some(ToolCall {
                    id: id.into(),
                    name,
                    // A cut-off input stays as the raw text the model produced.
                    arguments: match start_input {
                        Some(Value::Object(input))
                            if json.trim().is_empty() && !input.is_empty() =>
                        {
                            Value::Object(input).to_string()
                        }
                        _ => arguments_or_empty_object(json),
                    },
                }),
                _ => None,
            })
            .collect();
        Completion {
            text: self.text,
            reasoning: self.reasoning,
            refusal: None,
            tool_calls,
            finish_reason: self.finish,
            usage: self.saw_usage.then(|| self.usage.into()),
        }
    }
}

fn push(
    into: &mut String,
    piece: Cow<'_, str>,
    delta: fn(String) -> Delta,
    on_delta: &mut dyn FnMut(Delta),
) {
    if !piece.is_empty() {
        into.push_str(&piece);
        on_delta(delta(piece.into_owned()));
    }
}

#[derive(Debug)]
struct Block {
    index: usize,
    kind: BlockKind,
}

#[derive(Debug)]
enum BlockKind {
    Thinking {
        signature: String,
    },
    ToolUse {
        id: String,
        name: String,
        json: String,
        /// The `input` of `content_block_start`: `{}` when the input is streamed after it.
        start_input: Option<Value>,
    },
    Other,
}

#[derive(Clone, Copy, Debug, Default)]
struct UsageCounts {
    input: u64,
    cache_creation: u64,
    cache_read: u64,
    output: u64,
}

impl From<UsageCounts> for Usage {
    /// The prompt is everything the model read, cached or not: that is what fills the context.
    fn from(counts: UsageCounts) -> Self {
        Usage {
            prompt_tokens: counts.input + counts.cache_creation + counts.cache_read,
            completion_tokens: counts.output,
            cached_tokens: Some(counts.cache_read),
        }
    }
}

/// Every event's fields in one flat shape: read in one pass, and unknown events still parse.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    index: Option<usize>,
    message: Option<MessageStart>,
    #[serde(borrow)]
    content_block: Option<BlockStart<'a>>,
    #[serde(borrow)]
    delta: Option<DeltaBody<'a>>,
    usage: Option<UsageWire>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct MessageStart {
    usage: Option<UsageWire>,
}

#[derive(Deserialize)]
pub(super) struct BlockStart<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(borrow)]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub name: Option<Cow<'a, str>>,
    pub input: Option<Value>,
    #[serde(borrow)]
    pub text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub thinking: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub signature: Option<Cow<'a, str>>,
}

/// A `content_block_delta`'s delta, or a `message_delta`'s.
#[derive(Deserialize)]
struct DeltaBody<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow)]
    signature: Option<Cow<'a, str>>,
    #[serde(borrow)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(borrow)]
    stop_reason: Option<Cow<'a, str>>,
}

#[derive(Clone, Copy, Deserialize)]
pub(super) struct UsageWire {
    input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    output_tokens: Option<u64>,
}
