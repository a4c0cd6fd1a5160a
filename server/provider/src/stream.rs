//! What reading a streamed answer needs, whatever the wire format.

use serde_json::Value;

use super::error_body::{self, truncate};
use super::sse::SseEvent;
use super::{ProviderError, ProviderErrorKind};
use tandem_model::{Completion, Delta, FinishReason};

/// Reassembles one streamed answer from its SSE events.
///
/// Fed every event of a body in order; relays text and reasoning as they arrive. An accumulator
/// never requires the stream's end marker: whether a stream that just stops was complete is the
/// transport's call, made with [`StreamAccumulator::is_finished`].
pub trait StreamAccumulator: Default + Send {
    /// Takes one event. An error the provider reported inside the stream comes back as
    /// [`ProviderErrorKind::Stream`]; what was gathered before it stays readable.
    fn push(
        &mut self,
        event: SseEvent<'_>,
        on_delta: &mut dyn FnMut(Delta),
    ) -> Result<(), ProviderError> {
        // Both formats may report a failure as its own `event: error` (Groq, Anthropic), whose
        // payload need not have the usual shape.
        if event.event == "error" {
            return Err(error_event(event.data));
        }
        self.push_data(event.data, on_delta)
    }

    /// Takes one `data:` payload.
    fn push_data(
        &mut self,
        data: &str,
        on_delta: &mut dyn FnMut(Delta),
    ) -> Result<(), ProviderError>;

    /// Whether the stream said the answer is whole: an end marker (`[DONE]`, `message_stop`) or a
    /// finish reason arrived.
    fn is_finished(&self) -> bool;

    /// The answer gathered so far.
    fn into_completion(self) -> Completion;

    /// How much of an answer has been gathered, in bytes of text, reasoning and tool calls:
    /// grows only when the model says something, so a stream of empty deltas makes no progress.
    fn progress(&self) -> usize;
}

/// Maps both APIs' stop reasons (and the variants of OpenAI-compatible servers).
pub fn finish_reason(wire: &str) -> FinishReason {
    match wire {
        "stop" | "end_turn" | "stop_sequence" | "eos" => FinishReason::Stop,
        "tool_calls" | "function_call" | "tool_use" => FinishReason::ToolCalls,
        "length" | "max_tokens" | "model_length" | "model_context_window_exceeded" => {
            FinishReason::Length
        }
        "content_filter" | "refusal" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// The error an `error` event or an in-stream `"error"` object carries, in the provider's words:
/// [`ProviderErrorKind::Stream`], or an overflow when it says the request did not fit (a server
/// may accept the request and refuse it in the stream).
pub(crate) fn stream_error(value: &Value) -> ProviderError {
    let said = error_body::from_value(value);
    let kind = crate::overflow::overflow_kind(
        Some(value),
        said.as_ref().map_or("", |s| s.message.as_str()),
    )
    .or_else(|| {
        value
            .as_str()
            .and_then(|text| crate::overflow::overflow_kind(None, text))
    })
    .unwrap_or(ProviderErrorKind::Stream);
    let detail = match said {
        Some(said) => match said.code {
            Some(code) => format!("{} (code {code})", said.message),
            None => said.message,
        },
        None => match value {
            Value::String(text) => truncate(text.trim(), 500),
            other => truncate(&other.to_string(), 500),
        },
    };
    ProviderError::new(
        kind,
        format!("the model server reported an error mid-answer: {detail}"),
    )
}

/// The error an SSE `event: error` carries, whether its data is JSON or plain text.
fn error_event(data: &str) -> ProviderError {
    match serde_json::from_str::<Value>(data) {
        Ok(value) => stream_error(&value),
        Err(_) => stream_error(&Value::String(data.to_owned())),
    }
}

/// A `data:` payload that is not the JSON the wire format promises.
pub(crate) fn bad_chunk(error: &serde_json::Error, data: &str) -> ProviderError {
    ProviderError::new(
        ProviderErrorKind::BadResponse,
        format!(
            "the model server sent a stream event that could not be read ({error}): {}",
            truncate(data, 200)
        ),
    )
}

/// Tool arguments as handed to the agent: a call with no arguments at all means `{}`.
pub(crate) fn arguments_or_empty_object(arguments: String) -> String {
    if arguments.trim().is_empty() {
        "{}".to_owned()
    } else {
        arguments
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_overflow_inside_the_stream_is_an_overflow_by_its_kind() {
        // OpenRouter's upstream refusal, in a chunk; and as an `event: error`'s plain text.
        let chunk = json!({"message": "This endpoint's maximum context length is 2048 tokens. However, you requested 3000 tokens.", "code": 400});
        assert_eq!(
            stream_error(&chunk).kind,
            ProviderErrorKind::ContextOverflow {
                window: Some(2048),
                requested: Some(3000)
            }
        );
        assert!(matches!(
            error_event("context_length_exceeded").kind,
            ProviderErrorKind::ContextOverflow { .. }
        ));
        // Anything else stays a stream error.
        let other = json!({"message": "Provider returned error", "code": 502});
        assert_eq!(stream_error(&other).kind, ProviderErrorKind::Stream);
    }
}
