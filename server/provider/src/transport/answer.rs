//! Reading a 2xx answer: an SSE stream relayed as it arrives, or a whole JSON completion.

use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use reqwest::Response;
use reqwest::header::CONTENT_TYPE;

use super::failure::{root_cause, seconds};
use super::retry::{Failure, Retry};
use crate::error_body::unexpected_body;
use crate::sse::SseDecoder;
use crate::stream::StreamAccumulator;
use crate::{ProviderError, ProviderErrorKind};
use tandem_model::{Completion, Delta};

/// The largest whole (non-streamed) body accepted.
const WHOLE_BODY_LIMIT: usize = 32 * 1024 * 1024;

/// Parses a whole, non-streamed answer in the endpoint's format.
pub(crate) type ParseWhole = fn(&[u8]) -> Result<Completion, ProviderError>;

/// Reads the answer, relaying text and reasoning to `on_delta`.
///
/// An event stream (by content type, or by its first bytes when a server labels it wrongly) goes
/// through the SSE decoder and `A`; anything else must be a whole completion. A stream that ends
/// with neither an end marker nor a finish reason was cut short: [`ProviderErrorKind::Interrupted`].
/// A broken stream is worth retrying only while nothing was relayed.
pub(crate) async fn read<A: StreamAccumulator>(
    response: Response,
    limits: &crate::Limits,
    parse_whole: ParseWhole,
    on_delta: &mut (dyn FnMut(Delta) + Send),
) -> Result<Completion, Failure> {
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let stall = limits.stall_timeout;
    let mut body = response.bytes_stream();
    let first = next_chunk(&mut body, stall).await?;
    let is_stream = content_type.starts_with("text/event-stream")
        || first.as_deref().is_some_and(looks_like_sse);
    if first.is_none() && content_type.starts_with("text/event-stream") {
        return Err(Failure::retryable(
            ProviderErrorKind::EmptyStream,
            "the model server answered but closed the stream without sending anything",
        ));
    }
    if !is_stream {
        let completion = read_whole(&mut body, first, stall, &content_type, parse_whole).await?;
        relay_whole(&completion, on_delta);
        return Ok(completion);
    }

    let mut accumulator = A::default();
    let mut relayed = false;
    let pumped = {
        let mut relay = |delta: Delta| {
            relayed = true;
            on_delta(delta);
        };
        pump(&mut body, first, limits, &mut accumulator, &mut relay).await
    };
    let cut_short = |failure: Failure| Failure {
        retry: if relayed { Retry::No } else { Retry::Backoff },
        ..failure
    };
    match pumped {
        Err(failure) if failure.error.kind == ProviderErrorKind::Interrupted => {
            Err(cut_short(failure))
        }
        Err(failure) => Err(failure),
        Ok(()) if !accumulator.is_finished() => Err(cut_short(Failure::fatal(
            ProviderErrorKind::Interrupted,
            "the connection to the model server broke mid-answer: the stream ended before the \
             answer was complete",
        ))),
        Ok(()) => Ok(accumulator.into_completion()),
    }
}

/// Feeds the body through the SSE decoder into the accumulator, one chunk at a time, within the
/// limits: one event's size, the answer's size, and the time without progress.
async fn pump<A: StreamAccumulator>(
    body: &mut (impl Stream<Item = reqwest::Result<Bytes>> + Unpin),
    first: Option<Bytes>,
    limits: &crate::Limits,
    accumulator: &mut A,
    relay: &mut (dyn FnMut(Delta) + Send),
) -> Result<(), Failure> {
    let mut decoder = SseDecoder::new();
    let mut chunk = first;
    let mut progress = (accumulator.progress(), tokio::time::Instant::now());
    while let Some(bytes) = chunk {
        decoder.feed(&bytes, |event| accumulator.push(event, relay))?;
        check_limits(
            limits,
            decoder.buffered(),
            accumulator.progress(),
            &mut progress,
        )?;
        let left = limits.progress_timeout.saturating_sub(progress.1.elapsed());
        if left.is_zero() {
            return Err(no_progress(limits.progress_timeout));
        }
        // Waiting for the next bytes: the stall timeout, or the end of the progress deadline.
        chunk = match tokio::time::timeout(left, next_chunk(body, limits.stall_timeout)).await {
            Ok(next) => next?,
            Err(_) => return Err(no_progress(limits.progress_timeout)),
        };
    }
    decoder.finish(|event| accumulator.push(event, relay))?;
    Ok(())
}

/// Ends a stream that passed one of the limits: one line or event, the whole answer, or the time
/// without progress (`progress` is the answer's size so far and when it last grew).
pub(crate) fn check_limits(
    limits: &crate::Limits,
    buffered: usize,
    gathered: usize,
    progress: &mut (usize, tokio::time::Instant),
) -> Result<(), Failure> {
    if buffered > limits.max_event_bytes {
        return Err(over_limit(format!(
            "one event of the model's stream passed {} (limits.max_event_bytes); the answer was \
             stopped there",
            mib(limits.max_event_bytes)
        )));
    }
    if gathered > limits.max_answer_bytes {
        return Err(over_limit(format!(
            "the model's answer passed {} (limits.max_answer_bytes); it was stopped there",
            mib(limits.max_answer_bytes)
        )));
    }
    if gathered != progress.0 {
        *progress = (gathered, tokio::time::Instant::now());
    }
    if progress.1.elapsed() >= limits.progress_timeout {
        return Err(no_progress(limits.progress_timeout));
    }
    Ok(())
}

fn mib(bytes: usize) -> String {
    format!("{} MiB", bytes / (1024 * 1024))
}

fn over_limit(message: String) -> Failure {
    Failure::fatal(ProviderErrorKind::BadResponse, message)
}

fn no_progress(limit: Duration) -> Failure {
    Failure::fatal(
        ProviderErrorKind::Timeout,
        format!(
            "the model server kept the stream open but sent no new text, reasoning or tool call \
             for {} (limits.progress_timeout); gave up waiting",
            seconds(limit)
        ),
    )
}

/// The next piece of the body, within the stall timeout.
pub(crate) async fn next_chunk(
    body: &mut (impl Stream<Item = reqwest::Result<Bytes>> + Unpin),
    stall: Duration,
) -> Result<Option<Bytes>, Failure> {
    match tokio::time::timeout(stall, body.next()).await {
        Err(_) => Err(Failure::fatal(
            ProviderErrorKind::Timeout,
            format!(
                "the model server sent nothing for {} (the stall timeout); gave up waiting",
                seconds(stall)
            ),
        )),
        Ok(None) => Ok(None),
        Ok(Some(Ok(bytes))) => Ok(Some(bytes)),
        Ok(Some(Err(error))) => Err(Failure::fatal(
            ProviderErrorKind::Interrupted,
            format!(
                "the connection to the model server broke mid-answer: {}",
                root_cause(&error)
            ),
        )),
    }
}

/// Reads the rest of a body into memory (bounded).
pub(crate) async fn read_to_end(
    body: &mut (impl Stream<Item = reqwest::Result<Bytes>> + Unpin),
    first: Option<Bytes>,
    stall: Duration,
) -> Result<Vec<u8>, Failure> {
    let mut whole = first.map(Vec::from).unwrap_or_default();
    while let Some(bytes) = next_chunk(body, stall).await? {
        if whole.len() + bytes.len() > WHOLE_BODY_LIMIT {
            return Err(Failure::fatal(
                ProviderErrorKind::BadResponse,
                format!(
                    "the model server's answer is larger than {} MiB",
                    WHOLE_BODY_LIMIT >> 20
                ),
            ));
        }
        whole.extend_from_slice(&bytes);
    }
    Ok(whole)
}

async fn read_whole(
    body: &mut (impl Stream<Item = reqwest::Result<Bytes>> + Unpin),
    first: Option<Bytes>,
    stall: Duration,
    content_type: &str,
    parse_whole: ParseWhole,
) -> Result<Completion, Failure> {
    let whole = read_to_end(body, first, stall).await?;
    let looks_like_json = content_type.contains("json")
        || whole.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if !looks_like_json {
        let shown = if content_type.is_empty() {
            "no content type"
        } else {
            content_type
        };
        return Err(Failure::from(unexpected_body(
            &format!(
                "the model server answered with {shown}, not an event stream or a JSON \
                 completion (is the base URL right?)"
            ),
            &whole,
        )));
    }
    Ok(parse_whole(&whole)?)
}

/// A whole answer is relayed in one piece each, so the user still sees it.
fn relay_whole(completion: &Completion, on_delta: &mut (dyn FnMut(Delta) + Send)) {
    if !completion.reasoning.is_empty() {
        on_delta(Delta::Reasoning(completion.reasoning.clone()));
    }
    if !completion.text.is_empty() {
        on_delta(Delta::Text(completion.text.clone()));
    }
}

/// An event stream's first line is a field or a comment, where a JSON body opens with `{`.
fn looks_like_sse(first: &[u8]) -> bool {
    let start = first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(first);
    let start = &start[start.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
    [&b"data:"[..], b"event:", b":", b"id:", b"retry:"]
        .iter()
        .any(|field| start.starts_with(field))
}
