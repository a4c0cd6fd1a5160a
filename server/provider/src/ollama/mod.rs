//! Ollama's native API: `POST /api/chat` streamed as NDJSON, with tool calls and
//! `options.num_ctx`. Its OpenAI-compatible `/v1` cannot set the context size, and Ollama cuts
//! every prompt longer than its default (4,096 or less) silently: the system prompt and the
//! tools are what goes.

mod chat;
pub(crate) mod show;

pub(crate) use chat::complete;

use serde::Serialize;
use serde_json::Value;

use crate::stream::finish_reason;
use crate::{ProviderError, ProviderErrorKind};
use tandem_model::{Completion, Delta, FinishReason, Message, ToolCall, ToolDefinition, Usage};

/// The `num_ctx` for a request of `prompt` tokens: room for it and `reserve` more, rounded up to
/// a multiple of 2,048 (each change makes Ollama reload the model, so it moves in steps), never
/// below 8,192 nor above the model's `context_length`.
pub fn num_ctx(prompt: u64, reserve: u64, context_length: Option<u64>) -> u64 {
    let wanted = (prompt + reserve).max(8192).div_ceil(2048) * 2048;
    match context_length {
        Some(max) if max > 0 => wanted.min(max),
        _ => wanted,
    }
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: Vec<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Value>,
    stream: bool,
    options: Options,
}

#[derive(Serialize)]
struct Options {
    num_ctx: u64,
    /// The most tokens of the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    num_predict: Option<u64>,
}

/// The `/api/chat` body.
pub fn request_body(
    model: &str,
    messages: &[Message],
    tools: &[ToolDefinition],
    num_ctx: u64,
    num_predict: Option<u64>,
) -> Vec<u8> {
    let mut names = std::collections::HashMap::new();
    let messages = messages
        .iter()
        .map(|m| match m {
            Message::System { content } => serde_json::json!({"role": "system", "content": content}),
            Message::User { content, images } => {
                let mut v = serde_json::json!({"role": "user", "content": content});
                if !images.is_empty() {
                    // Ollama's native API takes bare base64, no data URL.
                    v["images"] = images.iter().map(crate::images::base64).collect();
                }
                v
            }
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                let mut v = serde_json::json!({"role": "assistant", "content": content});
                if !tool_calls.is_empty() {
                    v["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| {
                            names.insert(c.id.clone(), c.name.clone());
                            let arguments: Value = serde_json::from_str(&c.arguments)
                                .ok()
                                .filter(Value::is_object)
                                .unwrap_or_else(|| Value::Object(Default::default()));
                            serde_json::json!({"function": {"name": c.name, "arguments": arguments}})
                        })
                        .collect();
                }
                v
            }
            Message::Tool {
                tool_call_id,
                content,
            } => {
                let mut v = serde_json::json!({"role": "tool", "content": content});
                if let Some(name) = names.get(tool_call_id) {
                    v["tool_name"] = Value::String(name.clone());
                }
                v
            }
        })
        .collect();
    let tools = tools
        .iter()
        .map(|t| {
            serde_json::json!({"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.parameters}})
        })
        .collect();
    let body = Body {
        model,
        messages,
        tools,
        stream: true,
        options: Options {
            num_ctx,
            num_predict,
        },
    };
    serde_json::to_vec(&body).expect("a request body always serializes")
}

/// Reassembles an `/api/chat` NDJSON stream, one line at a time.
#[derive(Debug, Default)]
pub struct OllamaStream {
    completion: Completion,
    done: bool,
    partial: Vec<u8>,
}

impl OllamaStream {
    /// Takes bytes of the body; complete lines are applied.
    pub fn feed(
        &mut self,
        bytes: &[u8],
        on_delta: &mut dyn FnMut(Delta),
    ) -> Result<(), ProviderError> {
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            self.line(&line, on_delta)?;
        }
        Ok(())
    }

    /// Bytes held for a line not complete yet.
    pub fn buffered(&self) -> usize {
        self.partial.len()
    }

    /// Bytes of answer gathered (text, reasoning, tool calls): grows only when the model says
    /// something.
    pub fn progress(&self) -> usize {
        let c = &self.completion;
        c.text.len()
            + c.reasoning.len()
            + c.tool_calls
                .iter()
                .map(|t| t.name.len() + t.arguments.len())
                .sum::<usize>()
    }

    /// The end of the body: a last line without a newline is applied.
    pub fn finish(&mut self, on_delta: &mut dyn FnMut(Delta)) -> Result<(), ProviderError> {
        let rest = std::mem::take(&mut self.partial);
        self.line(&rest, on_delta)
    }

    fn line(&mut self, line: &[u8], on_delta: &mut dyn FnMut(Delta)) -> Result<(), ProviderError> {
        let text = String::from_utf8_lossy(line);
        let text = text.trim();
        if text.is_empty() {
            return Ok(());
        }
        let value: Value = serde_json::from_str(text).map_err(|e| {
            ProviderError::new(
                ProviderErrorKind::BadResponse,
                format!(
                    "Ollama sent a line that is not JSON ({e}): {}",
                    crate::error_body::truncate(text, 200)
                ),
            )
        })?;
        if let Some(error) = value.get("error").and_then(Value::as_str) {
            return Err(ProviderError::new(
                crate::overflow::overflow_kind(None, error).unwrap_or(ProviderErrorKind::Stream),
                format!("Ollama reported an error mid-answer: {error}"),
            ));
        }
        if let Some(message) = value.get("message") {
            if let Some(thinking) = message.get("thinking").and_then(Value::as_str)
                && !thinking.is_empty()
            {
                self.completion.reasoning.push_str(thinking);
                on_delta(Delta::Reasoning(thinking.to_string()));
            }
            if let Some(content) = message.get("content").and_then(Value::as_str)
                && !content.is_empty()
            {
                self.completion.text.push_str(content);
                on_delta(Delta::Text(content.to_string()));
            }
            for call in message
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let function = call.get("function").unwrap_or(call);
                let name = function.get("name").and_then(Value::as_str).unwrap_or("");
                let arguments = match function.get("arguments") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) if !v.is_null() => v.to_string(),
                    _ => "{}".into(),
                };
                self.completion.tool_calls.push(ToolCall {
                    id: tandem_model::ToolCallId::generate(),
                    name: name.to_string(),
                    arguments,
                });
            }
        }
        if value.get("done").and_then(Value::as_bool) == Some(true) {
            self.done = true;
            let reason = value
                .get("done_reason")
                .and_then(Value::as_str)
                .map(finish_reason)
                .unwrap_or(FinishReason::Stop);
            self.completion.finish_reason = Some(
                if !self.completion.tool_calls.is_empty() && reason == FinishReason::Stop {
                    FinishReason::ToolCalls
                } else {
                    reason
                },
            );
            let count = |k: &str| value.get(k).and_then(Value::as_u64);
            if let (Some(prompt), completion) = (count("prompt_eval_count"), count("eval_count")) {
                self.completion.usage = Some(Usage {
                    prompt_tokens: prompt,
                    completion_tokens: completion.unwrap_or(0),
                    // Ollama's count is of what it evaluated; it names no cached part.
                    cached_tokens: None,
                });
            }
        }
        Ok(())
    }

    /// Whether the final `"done": true` line arrived.
    pub fn is_finished(&self) -> bool {
        self.done
    }

    pub fn into_completion(self) -> Completion {
        self.completion
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overflow_in_ollamas_error_line_is_an_overflow_by_its_kind() {
        let mut stream = OllamaStream::default();
        let error = stream
            .line(
                br#"{"error":"the input length exceeds the context length"}"#,
                &mut |_| {},
            )
            .unwrap_err();
        assert!(
            matches!(error.kind, ProviderErrorKind::ContextOverflow { .. }),
            "{error:?}"
        );
        let error = stream
            .line(
                br#"{"error":"model runner has unexpectedly stopped"}"#,
                &mut |_| {},
            )
            .unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Stream);
    }

    #[test]
    fn num_ctx_moves_in_steps_and_stays_within_the_model() {
        assert_eq!(num_ctx(100, 1024, Some(32768)), 8192);
        assert_eq!(num_ctx(9000, 1024, Some(32768)), 10240);
        assert_eq!(num_ctx(40000, 1024, Some(32768)), 32768);
    }

    #[test]
    fn reads_text_tool_calls_and_usage() {
        let mut s = OllamaStream::default();
        let mut shown = String::new();
        let body = concat!(
            "{\"message\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"done\":false}\n",
            "{\"message\":{\"role\":\"assistant\",\"content\":\"lo\"},\"done\":false}\n",
            "{\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}}]},\"done\":false}\n",
            "{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":42,\"eval_count\":7}"
        );
        let (a, b) = body.split_at(30);
        let mut relay = |d: Delta| {
            if let Delta::Text(t) = d {
                shown.push_str(&t)
            }
        };
        s.feed(a.as_bytes(), &mut relay).unwrap();
        s.feed(b.as_bytes(), &mut relay).unwrap();
        s.finish(&mut relay).unwrap();
        assert!(s.is_finished());
        let c = s.into_completion();
        assert_eq!(shown, "Hello");
        assert_eq!(c.tool_calls[0].arguments, "{\"path\":\"a\"}");
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(c.usage.unwrap().prompt_tokens, 42);
    }
}
