//! One `/api/chat` exchange over the transport: the NDJSON answer relayed line by line, within
//! the stall and progress limits, retried while nothing of it reached the user.

use bytes::Bytes;
use tandem_model::{Completion, Delta};

use super::OllamaStream;
use crate::ProviderError;
use crate::ProviderErrorKind;
use crate::transport::Transport;
use crate::transport::answer::{check_limits, next_chunk};
use crate::transport::retry::{Failure, Retry, retrying};

/// Sends `body` (an `/api/chat` request, [`super::request_body`]) and reads the answer.
pub(crate) async fn complete(
    transport: &Transport,
    body: Bytes,
    on_delta: &mut (dyn FnMut(Delta) + Send),
) -> Result<Completion, ProviderError> {
    let url = format!("{}/api/chat", transport.root());
    retrying!(
        transport.limits(),
        {
            let attempt: Result<Completion, Failure> = async {
                let post = transport.post(&url, body.clone())?;
                let response = transport.send(post).await?;
                read(transport, response, on_delta).await
            }
            .await;
            attempt
        },
        on_delta
    )
}

async fn read(
    transport: &Transport,
    response: reqwest::Response,
    on_delta: &mut (dyn FnMut(Delta) + Send),
) -> Result<Completion, Failure> {
    let limits = transport.limits();
    let mut stream = response.bytes_stream();
    let mut answer = OllamaStream::default();
    let mut relayed = false;
    let mut relay = |d: Delta| {
        relayed = true;
        on_delta(d);
    };
    let mut received = false;
    let mut progress = (0, tokio::time::Instant::now());
    while let Some(bytes) = next_chunk(&mut stream, limits.stall_timeout).await? {
        received = true;
        answer.feed(&bytes, &mut relay)?;
        check_limits(limits, answer.buffered(), answer.progress(), &mut progress)?;
    }
    answer.finish(&mut relay)?;
    if !answer.is_finished() {
        let mut failure = Failure::fatal(
            ProviderErrorKind::Interrupted,
            format!(
                "Ollama at {} ended the answer before its last line{}",
                transport.shown_url(),
                if received {
                    ""
                } else {
                    ": it sent nothing (it may have crashed; its log says why)"
                }
            ),
        );
        if !relayed {
            failure.retry = Retry::Backoff;
        }
        return Err(failure);
    }
    Ok(answer.into_completion())
}
