//! Reassembling a streamed Chat Completions answer, with the quirks of the servers that speak it
//! (see `tests/fixtures/providers/SOURCES.md` for the recordings each rule comes from).

use std::borrow::Cow;

use serde_json::Value;

use super::wire::{Chunk, Content, ContentPart, MessageDelta, ToolCallDelta};
use crate::ProviderError;
use crate::stream::{
    StreamAccumulator, arguments_or_empty_object, bad_chunk, finish_reason, stream_error,
};
use tandem_model::{Completion, Delta, FinishReason, ToolCall, ToolCallId, Usage};

/// Accumulates `chat.completion.chunk` payloads. With `n > 1` every choice is kept apart; only
/// choice 0 is relayed and returned, the others are readable through [`OpenAiStream::choices`].
#[derive(Debug, Default)]
pub struct OpenAiStream {
    /// In order of first appearance; few enough that a linear search beats a map.
    choices: Vec<ChoiceState>,
    usage: Option<Usage>,
    /// `data: [DONE]` arrived.
    done: bool,
}

impl OpenAiStream {
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies a parsed chunk, or a whole completion's body (`Mode::Whole`).
    pub(super) fn apply(
        &mut self,
        chunk: Chunk<'_>,
        on_delta: &mut dyn FnMut(Delta),
        mode: Mode,
    ) -> Result<(), ProviderError> {
        if let Some(usage) = chunk.usage.or(chunk.x_groq.and_then(|x| x.usage)) {
            self.usage = Some(usage.into());
        }
        for choice in chunk.choices.into_iter().flatten() {
            let index = choice.index.unwrap_or(0);
            let state = self.choice_mut(index);
            if let Some(delta) = choice.delta {
                if index == 0 {
                    state.apply(delta, on_delta, mode);
                } else {
                    state.apply(delta, &mut |_| {}, mode);
                }
            }
            // Absent and null both mean "not yet": a later chunk must not erase a finish.
            if let Some(reason) = choice.finish_reason {
                state.finish = Some(finish_reason(&reason));
            }
        }
        match chunk.error {
            Some(error) if !error.is_null() => Err(stream_error(&error)),
            _ => Ok(()),
        }
    }

    /// Every choice's answer so far, in choice-index order.
    pub fn choices(&self) -> Vec<Completion> {
        let mut states: Vec<&ChoiceState> = self.choices.iter().collect();
        states.sort_by_key(|s| s.index);
        states
            .into_iter()
            .map(|s| s.clone().into_completion(self.usage))
            .collect()
    }

    /// Whether `data: [DONE]` arrived.
    pub fn saw_done(&self) -> bool {
        self.done
    }

    fn choice_mut(&mut self, index: u32) -> &mut ChoiceState {
        let position = match self.choices.iter().position(|c| c.index == index) {
            Some(position) => position,
            None => {
                self.choices.push(ChoiceState {
                    index,
                    ..ChoiceState::default()
                });
                self.choices.len() - 1
            }
        };
        &mut self.choices[position]
    }
}

impl StreamAccumulator for OpenAiStream {
    /// Takes one `data:` payload (a JSON chunk or `[DONE]`).
    fn push_data(
        &mut self,
        data: &str,
        on_delta: &mut dyn FnMut(Delta),
    ) -> Result<(), ProviderError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Chunk<'_> = serde_json::from_str(data).map_err(|e| bad_chunk(&e, data))?;
        self.apply(chunk, on_delta, Mode::Stream)
    }

    fn is_finished(&self) -> bool {
        self.done
            || self
                .choices
                .iter()
                .any(|c| c.index == 0 && c.finish.is_some())
    }

    fn progress(&self) -> usize {
        self.choices
            .iter()
            .map(|c| {
                c.text.len()
                    + c.reasoning.len()
                    + c.refusal.as_ref().map_or(0, String::len)
                    + c.calls
                        .iter()
                        .map(|k| k.id.len() + k.name.len() + k.arguments.len())
                        .sum::<usize>()
            })
            .sum()
    }

    fn into_completion(mut self) -> Completion {
        let usage = self.usage;
        match self.choices.iter().position(|c| c.index == 0) {
            Some(position) => self.choices.swap_remove(position).into_completion(usage),
            None => Completion {
                usage,
                ..Completion::default()
            },
        }
    }
}

/// Whether tool calls arrive in pieces (a stream) or whole (a non-streamed body).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Stream,
    Whole,
}

#[derive(Clone, Debug, Default)]
struct ChoiceState {
    index: u32,
    text: String,
    reasoning: String,
    refusal: Option<String>,
    calls: Vec<CallState>,
    finish: Option<FinishReason>,
}

#[derive(Clone, Debug, Default)]
struct CallState {
    /// The wire `index`, when the server sends one (Mistral does not; some gateways start at 1).
    index: Option<u32>,
    id: String,
    name: String,
    arguments: String,
}

impl ChoiceState {
    fn apply(&mut self, delta: MessageDelta<'_>, on_delta: &mut dyn FnMut(Delta), mode: Mode) {
        // One copy of the reasoning: OpenRouter sends it in `reasoning` AND `reasoning_details`,
        // vLLM may send `reasoning` AND `reasoning_content`.
        if let Some(reasoning) = delta.reasoning.or(delta.reasoning_content) {
            self.push_reasoning(reasoning, on_delta);
        } else {
            // Encrypted details carry no text and are skipped.
            for detail in delta.reasoning_details.into_iter().flatten() {
                let text = match detail.kind.as_deref() {
                    Some("reasoning.text") => detail.text,
                    Some("reasoning.summary") => detail.summary,
                    _ => None,
                };
                if let Some(text) = text {
                    self.push_reasoning(text, on_delta);
                }
            }
        }
        match delta.content {
            Some(Content::Text(text)) => self.push_text(text, on_delta),
            Some(Content::Parts(parts)) => self.push_parts(parts, on_delta),
            Some(Content::Other(_)) | None => {}
        }
        if let Some(refusal) = delta.refusal {
            self.refusal.get_or_insert_default().push_str(&refusal);
        }
        for call in delta.tool_calls.into_iter().flatten() {
            self.merge_call(call, mode);
        }
    }

    /// Mistral's typed parts: `text` is the answer, `thinking` (itself parts) is reasoning.
    fn push_parts(&mut self, parts: Vec<ContentPart<'_>>, on_delta: &mut dyn FnMut(Delta)) {
        for part in parts {
            match (part.kind.as_deref(), part.thinking) {
                (Some("thinking"), Some(Content::Text(text))) => {
                    self.push_reasoning(text, on_delta)
                }
                (Some("thinking"), Some(Content::Parts(inner))) => {
                    for text in inner.into_iter().filter_map(|p| p.text) {
                        self.push_reasoning(text, on_delta);
                    }
                }
                (Some("text") | None, _) => {
                    if let Some(text) = part.text {
                        self.push_text(text, on_delta);
                    }
                }
                _ => {}
            }
        }
    }

    fn push_text(&mut self, text: Cow<'_, str>, on_delta: &mut dyn FnMut(Delta)) {
        if !text.is_empty() {
            self.text.push_str(&text);
            on_delta(Delta::Text(text.into_owned()));
        }
    }

    fn push_reasoning(&mut self, text: Cow<'_, str>, on_delta: &mut dyn FnMut(Delta)) {
        if !text.is_empty() {
            self.reasoning.push_str(&text);
            on_delta(Delta::Reasoning(text.into_owned()));
        }
    }

    /// Finds the call a tool-call delta continues, or starts a new one.
    ///
    /// With an `index`, the call with that index continues, unless a different non-empty `id`
    /// arrives (servers that number every call 0). Without one (Mistral), the last call
    /// continues unless a new non-empty `id` arrives. Empty `id`/`name` strings on continuation
    /// deltas (Alibaba, Mistral) never overwrite what the first delta said.
    fn merge_call(&mut self, delta: ToolCallDelta<'_>, mode: Mode) {
        let id = delta.id.filter(|id| !id.is_empty());
        let new_id = |call: &CallState| {
            id.as_deref()
                .is_some_and(|id| !call.id.is_empty() && call.id != id)
        };
        let continued = match (mode, delta.index) {
            (Mode::Whole, _) => None,
            (Mode::Stream, Some(index)) => self
                .calls
                .iter()
                .rposition(|c| c.index == Some(index))
                .filter(|&p| !new_id(&self.calls[p])),
            (Mode::Stream, None) => self
                .calls
                .len()
                .checked_sub(1)
                .filter(|&p| !new_id(&self.calls[p])),
        };
        let position = continued.unwrap_or_else(|| {
            self.calls.push(CallState {
                index: delta.index,
                ..CallState::default()
            });
            self.calls.len() - 1
        });
        let call = &mut self.calls[position];
        if let Some(id) = id
            && call.id.is_empty()
        {
            call.id = id.into_owned();
        }
        let Some(function) = delta.function else {
            return;
        };
        if let Some(name) = function.name.filter(|n| !n.is_empty())
            && call.name.is_empty()
        {
            call.name = name.into_owned();
        }
        match function.arguments {
            Some(Value::String(piece)) => call.arguments.push_str(&piece),
            Some(Value::Null) | None => {}
            Some(whole) => call.arguments.push_str(&whole.to_string()),
        }
    }

    fn into_completion(self, usage: Option<Usage>) -> Completion {
        let tool_calls = self
            .calls
            .into_iter()
            .map(|call| ToolCall {
                // The agent pairs results with calls by id: a server that sends none gets one.
                id: if call.id.is_empty() {
                    ToolCallId::generate()
                } else {
                    ToolCallId::from(call.id)
                },
                name: call.name,
                arguments: arguments_or_empty_object(call.arguments),
            })
            .collect();
        Completion {
            text: self.text,
            reasoning: self.reasoning,
            refusal: self.refusal,
            tool_calls,
            finish_reason: self.finish,
            usage,
        }
    }
}
