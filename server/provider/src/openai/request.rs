//! The Chat Completions request body.

use std::borrow::Cow;

use serde::Serialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::CompletionRequest;
use tandem_model::{Message, ToolCall, ToolDefinition};

/// `POST {base_url}/chat/completions` body for `model`: streamed, with usage in the stream.
pub fn request_body(model: &str, request: CompletionRequest<'_>) -> Vec<u8> {
    request_body_limited(model, request, None)
}

/// [`request_body`] with the answer bounded to `max_tokens`.
pub fn request_body_limited(
    model: &str,
    request: CompletionRequest<'_>,
    max_tokens: Option<u64>,
) -> Vec<u8> {
    request_body_with(
        model,
        request,
        &Extras {
            max_tokens,
            ..Extras::default()
        },
    )
}

/// What a request carries beyond the conversation, for servers that take it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extras {
    /// `max_tokens`: the answer's bound.
    pub max_tokens: Option<u64>,
    /// llama.cpp `id_slot` with `cache_prompt: true`: the slot whose prompt cache the request
    /// should use (and keep).
    pub slot: Option<u64>,
}

/// [`request_body`] with `extras`.
pub fn request_body_with(model: &str, request: CompletionRequest<'_>, extras: &Extras) -> Vec<u8> {
    let body = Body {
        max_tokens: extras.max_tokens,
        id_slot: extras.slot,
        cache_prompt: extras.slot.map(|_| true),
        model,
        messages: request.messages.iter().map(WireMessage::from).collect(),
        tools: request.tools.iter().map(WireTool::from).collect(),
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
    };
    serde_json::to_vec(&body).expect("a request body always serializes")
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    stream: bool,
    stream_options: StreamOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id_slot: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_prompt: Option<bool>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum WireMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: UserContent<'a>,
    },
    /// Reasoning is not sent back: servers reject or ignore it.
    Assistant {
        content: &'a str,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<WireToolCall<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: &'a str,
    },
}

impl<'a> From<&'a Message> for WireMessage<'a> {
    fn from(message: &'a Message) -> Self {
        match message {
            Message::System { content } => Self::System { content },
            Message::User { content, images } if images.is_empty() => Self::User {
                content: UserContent::Text(content),
            },
            Message::User { content, images } => Self::User {
                content: UserContent::Parts(
                    (!content.is_empty())
                        .then_some(Part::Text { text: content })
                        .into_iter()
                        .chain(images.iter().map(|image| Part::ImageUrl {
                            image_url: ImageUrl {
                                url: crate::images::data_url(image),
                            },
                        }))
                        .collect(),
                ),
            },
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => Self::Assistant {
                content,
                tool_calls: tool_calls.iter().map(WireToolCall::from).collect(),
            },
            Message::Tool {
                tool_call_id,
                content,
            } => Self::Tool {
                tool_call_id: tool_call_id.as_str(),
                content,
            },
        }
    }
}

/// A user message's content: its text, or (with images) content parts, the text first.
#[derive(Serialize)]
#[serde(untagged)]
enum UserContent<'a> {
    Text(&'a str),
    Parts(Vec<Part<'a>>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part<'a> {
    Text { text: &'a str },
    ImageUrl { image_url: ImageUrl },
}

/// An image as a `data:` URL: every OpenAI-compatible server with vision takes these.
#[derive(Serialize)]
struct ImageUrl {
    url: String,
}

#[derive(Serialize)]
struct WireToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionCall<'a>,
}

#[derive(Serialize)]
struct WireFunctionCall<'a> {
    name: &'a str,
    arguments: Cow<'a, str>,
}

impl<'a> From<&'a ToolCall> for WireToolCall<'a> {
    fn from(call: &'a ToolCall) -> Self {
        Self {
            id: call.id.as_str(),
            kind: "function",
            function: WireFunctionCall {
                name: &call.name,
                arguments: replayable_arguments(&call.arguments),
            },
        }
    }
}

/// The model's arguments as they were, unless they are not JSON: several servers (vLLM, Mistral)
/// parse the history's arguments and refuse the whole request when one is malformed. The tool's
/// answer to that call already told the model what was wrong.
fn replayable_arguments(arguments: &str) -> Cow<'_, str> {
    if serde_json::from_str::<IgnoredAny>(arguments).is_ok() {
        Cow::Borrowed(arguments)
    } else {
        Cow::Borrowed("{}")
    }
}

#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

impl<'a> From<&'a ToolDefinition> for WireTool<'a> {
    fn from(tool: &'a ToolDefinition) -> Self {
        Self {
            kind: "function",
            function: WireFunction {
                name: &tool.name,
                description: &tool.description,
                parameters: &tool.parameters,
            },
        }
    }
}
