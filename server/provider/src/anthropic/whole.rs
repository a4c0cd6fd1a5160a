//! A whole (non-streamed) Messages body: some proxies ignore `stream: true`.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::stream::{AnthropicStream, BlockStart, UsageWire};
use crate::ProviderError;
use crate::error_body::unexpected_body;
use crate::stream::{StreamAccumulator, finish_reason, stream_error};
use tandem_model::{Completion, Delta};

/// Parses a whole `message` body. Its content blocks have the shape of `content_block_start`'s,
/// so they go through the stream accumulator as blocks that arrive whole.
pub fn parse_message(body: &[u8]) -> Result<Completion, ProviderError> {
    let not_a_message = |why: &str| {
        unexpected_body(
            &format!("the model server's answer is not a message ({why})"),
            body,
        )
    };
    let message: Message<'_> =
        serde_json::from_slice(body).map_err(|e| not_a_message(&e.to_string()))?;
    if let Some(error) = message.error.filter(|e| !e.is_null()) {
        return Err(stream_error(&error));
    }
    let Some(content) = message.content else {
        return Err(not_a_message("no content"));
    };
    let mut accumulator = AnthropicStream::new();
    for (index, block) in content.into_iter().enumerate() {
        accumulator.start_block(index, block, &mut |_: Delta| {});
    }
    if let Some(usage) = message.usage {
        accumulator.count(usage);
    }
    accumulator.finish = message.stop_reason.map(|r| finish_reason(&r));
    Ok(accumulator.into_completion())
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    content: Option<Vec<BlockStart<'a>>>,
    #[serde(borrow)]
    stop_reason: Option<Cow<'a, str>>,
    usage: Option<UsageWire>,
    error: Option<Value>,
}
