//! The OpenAI-compatible and Anthropic backends over the transport: the request in the endpoint's
//! own format, its answer read as an event stream (or a whole JSON completion), retried while
//! nothing of it reached the user, and the model list.

use bytes::Bytes;
use reqwest::RequestBuilder;
use serde_json::Value;
use tandem_model::{Completion, Delta};

use super::HttpModelClient;
use crate::anthropic::{self, AnthropicStream};
use crate::error_body::unexpected_body;
use crate::models::parse_model_list;
use crate::openai::{self, OpenAiStream};
use crate::stream::StreamAccumulator;
use crate::transport::answer::{self, ParseWhole};
use crate::transport::retry::{Failure, Retry, retrying};
use crate::{Api, CompletionRequest, ModelInfo, ProviderError, ProviderErrorKind, tokens};

impl HttpModelClient {
    /// One request in the endpoint's own format, with retries.
    pub(super) async fn complete_wire(
        &self,
        request: CompletionRequest<'_>,
        extras: openai::Extras,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, ProviderError> {
        let model = &self.config.model;
        let (path, body) = match self.config.api {
            Api::OpenAi => (
                openai::PATH,
                openai::request_body_with(model, request, &extras),
            ),
            Api::Anthropic => (anthropic::PATH, anthropic::request_body(model, request)),
        };
        let url = self.transport.url(path);
        // Serialized once; each attempt sends the same shared bytes.
        let body = Bytes::from(body);
        let local = self.transport.is_loopback();
        let answer = retrying!(
            self.transport.limits(),
            {
                let attempt = match self.transport.post(&url, body.clone()) {
                    Err(error) => Err(Failure::from(error)),
                    Ok(post) => match self.config.api {
                        Api::OpenAi => {
                            self.attempt::<OpenAiStream>(post, openai::parse_completion, on_delta)
                                .await
                        }
                        Api::Anthropic => {
                            self.attempt::<AnthropicStream>(
                                post,
                                anthropic::parse_message,
                                on_delta,
                            )
                            .await
                        }
                    },
                };
                attempt.map_err(|mut failure| {
                    // A local server's empty stream is not tried again as it was: it is asked once
                    // more without streaming, below.
                    if failure.error.kind == ProviderErrorKind::EmptyStream && local {
                        failure.retry = Retry::No;
                    }
                    failure
                })
            },
            on_delta
        );
        match answer {
            Ok(completion) => Ok(completion),
            Err(error) if error.kind == ProviderErrorKind::EmptyStream && local => {
                self.unstreamed(request, &url, &body, on_delta).await
            }
            Err(error) => Err(self.explain(error, &url)),
        }
    }

    async fn attempt<A: StreamAccumulator>(
        &self,
        request: RequestBuilder,
        parse_whole: ParseWhole,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, Failure> {
        let response = self.transport.send(request).await?;
        answer::read::<A>(response, self.transport.limits(), parse_whole, on_delta).await
    }

    pub(super) async fn list_models_inner(&self) -> Result<Vec<ModelInfo>, ProviderError> {
        let client = self.transport.client()?;
        let headers = self.transport.headers()?;
        let url = self.transport.url("models");
        retrying!(
            self.transport.limits(),
            self.fetch_models(client.get(&url).headers(headers.clone()))
                .await
        )
    }

    async fn fetch_models(&self, request: RequestBuilder) -> Result<Vec<ModelInfo>, Failure> {
        let stall = self.transport.limits().stall_timeout;
        let mut body = self.transport.send(request).await?.bytes_stream();
        let whole = answer::read_to_end(&mut body, None, stall).await?;
        serde_json::from_slice(&whole)
            .ok()
            .and_then(|value| parse_model_list(&value))
            .ok_or_else(|| {
                Failure::from(unexpected_body(
                    "the model server's model list is not the expected {\"data\": [...]} JSON",
                    &whole,
                ))
            })
    }

    /// A local server closed a stream without a byte. llama-cpp-python does that for a prompt
    /// longer than its window (the reason goes to its log only), and for tools with
    /// `tool_choice: auto` under `chatml-function-calling` ("Automatic streaming tool choice is
    /// not supported"). The same request once more, not streamed, gets the overflow's 400 with
    /// its numbers, or the whole answer (relayed in one piece); a server that crashed gets the
    /// user a message that says where to look.
    async fn unstreamed(
        &self,
        request: CompletionRequest<'_>,
        url: &str,
        body: &Bytes,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, ProviderError> {
        let estimate = tokens::estimate(
            request.messages,
            request.tools,
            tokens::DEFAULT_CHARS_PER_TOKEN,
        );
        let hint = || {
            ProviderError::new(
                ProviderErrorKind::EmptyStream,
                format!(
                    "the model server at {} closed the stream without sending anything. A local \
                     server does this when a request does not fit its context window (this one \
                     is about {estimate} tokens) or when it crashed: its log (the terminal it \
                     runs in) says which. For the context, start it with a larger context size \
                     (llama.cpp --ctx-size, llama-cpp-python --n_ctx) or set \
                     provider.contextWindow",
                    self.transport.shown_url()
                ),
            )
        };
        if self.config.api != Api::OpenAi {
            return Err(hint());
        }
        let Ok(mut whole) = serde_json::from_slice::<Value>(body) else {
            return Err(hint());
        };
        whole["stream"] = Value::Bool(false);
        if let Some(object) = whole.as_object_mut() {
            object.remove("stream_options");
        }
        // A fresh connection: uvicorn closes idle ones after 5 s, and the one the empty stream
        // came on may be closing, so a pooled one could be dead on arrival.
        let client = self.transport.fresh_client()?;
        let headers = self.transport.headers()?;
        let mut answer = Err(Failure::fatal(ProviderErrorKind::Connect, "not sent"));
        // Twice at most, for a connection refused while the server restarts its worker.
        for _ in 0..2 {
            let post = client.post(url).headers(headers.clone()).json(&whole);
            answer = self
                .attempt::<OpenAiStream>(post, openai::parse_completion, on_delta)
                .await;
            if !matches!(&answer, Err(f) if f.error.kind == ProviderErrorKind::Connect) {
                break;
            }
        }
        match answer {
            Ok(completion) => Ok(completion),
            Err(failure) => match failure.error.kind {
                ProviderErrorKind::ContextOverflow { window, .. } => {
                    if let Some(window) = window {
                        self.local.learn(window);
                    }
                    Err(failure.error)
                }
                _ => {
                    let mut error = hint();
                    error.message = format!(
                        "{} (asked again without streaming: {})",
                        error.message, failure.error.message
                    );
                    Err(error)
                }
            },
        }
    }

    /// Adds what to do to errors whose cause is usually the settings.
    fn explain(&self, mut error: ProviderError, url: &str) -> ProviderError {
        if error.kind == ProviderErrorKind::Status(404) {
            let base = self.transport.shown_url();
            let base = base.trim_end_matches('/');
            let shown = url.replace(self.config.base_url.trim_end_matches('/'), base);
            let fix = if base.ends_with("/v1") {
                "check the base URL and the model name".to_string()
            } else {
                format!("most servers serve the API under /v1: try the base URL {base}/v1")
            };
            error.message = format!("{} (the URL used was {shown}; {fix})", error.message);
        }
        error
    }
}
