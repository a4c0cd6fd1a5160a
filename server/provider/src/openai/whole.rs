//! A whole (non-streamed) `chat.completion` body: some servers ignore `stream: true`.

use super::stream::{Mode, OpenAiStream};
use super::wire::Chunk;
use crate::ProviderError;
use crate::error_body::unexpected_body;
use crate::stream::StreamAccumulator;
use tandem_model::{Completion, Delta};

/// Parses a whole completion into choice 0's answer. A body holding only an `error` is the
/// provider's error ([`Stream`](crate::ProviderErrorKind::Stream): it came with a 2xx status); anything else
/// without choices is [`BadResponse`](crate::ProviderErrorKind::BadResponse).
pub fn parse_completion(body: &[u8]) -> Result<Completion, ProviderError> {
    let not_a_completion = |why: &str| {
        unexpected_body(
            &format!("the model server's answer is not a chat completion ({why})"),
            body,
        )
    };
    let chunk: Chunk<'_> =
        serde_json::from_slice(body).map_err(|e| not_a_completion(&e.to_string()))?;
    let has_choices = chunk.choices.as_ref().is_some_and(|c| !c.is_empty());
    let has_error = chunk.error.as_ref().is_some_and(|e| !e.is_null());
    if !has_choices && !has_error {
        return Err(not_a_completion("no choices"));
    }
    let mut accumulator = OpenAiStream::new();
    accumulator.apply(chunk, &mut |_: Delta| {}, Mode::Whole)?;
    Ok(accumulator.into_completion())
}
