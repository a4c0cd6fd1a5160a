//! The conversation vocabulary shared by the provider and the agent core.
//!
//! These types are provider-neutral: the provider module translates them to and from each wire
//! format (OpenAI Chat Completions, Anthropic Messages).

mod ids;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use ids::{SessionId, ToolCallId, TurnId};

/// One message of a conversation, in the order the model sees them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum Message {
    System {
        content: String,
    },
    User {
        content: String,
        /// Images the user attached, in order, after the text. Not serialized: the transcript
        /// stores them in files of their own (its records are not these types).
        #[serde(skip)]
        images: Vec<Image>,
    },
    Assistant {
        #[serde(default)]
        content: String,
        /// Reasoning text the model streamed (kept for the transcript; not sent back).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reasoning: String,
        #[serde(default, rename = "toolCalls", skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        #[serde(rename = "toolCallId")]
        tool_call_id: ToolCallId,
        content: String,
    },
}

impl Message {
    /// A user message of text alone.
    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
            images: Vec::new(),
        }
    }
}

/// The kinds of image every vision API takes (OpenAI, Anthropic, Ollama, llama.cpp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageType {
    Png,
    Jpeg,
    Webp,
    Gif,
}

impl ImageType {
    pub const ALL: [ImageType; 4] = [Self::Png, Self::Jpeg, Self::Webp, Self::Gif];

    /// The media type (`image/png`).
    pub fn mime(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Webp => "image/webp",
            Self::Gif => "image/gif",
        }
    }

    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
            Self::Webp => "webp",
            Self::Gif => "gif",
        }
    }

    /// The type a media type names (`image/jpg` too, as some clients send it).
    pub fn from_mime(mime: &str) -> Option<Self> {
        match mime.trim().to_ascii_lowercase().as_str() {
            "image/png" => Some(Self::Png),
            "image/jpeg" | "image/jpg" => Some(Self::Jpeg),
            "image/webp" => Some(Self::Webp),
            "image/gif" => Some(Self::Gif),
            _ => None,
        }
    }
}

/// An image in a user message: bytes already checked to be of `kind` (by their magic bytes),
/// with the dimensions their header gives.
#[derive(Clone, PartialEq, Eq)]
pub struct Image {
    pub kind: ImageType,
    pub data: Arc<[u8]>,
    pub width: u32,
    pub height: u32,
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Image({}, {}x{}, {} bytes)",
            self.kind.mime(),
            self.width,
            self.height,
            self.data.len()
        )
    }
}

/// A tool call as the model made it. `arguments` is the raw JSON text the model produced, which
/// may be malformed: validation is the tools' job, so the model can be told what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: ToolCallId,
    pub name: String,
    pub arguments: String,
}

/// A tool offered to the model: a name, a description and a JSON Schema for its arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
    /// Arguments of one complete call, where the shape is worth showing (a format inside a
    /// string): the text tool mode writes it out; native tools don't send it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<serde_json::Value>,
}

/// Token counts the provider reported for one request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Of `prompt_tokens`, those the server took from its prompt cache instead of evaluating
    /// them, where it says (`prompt_tokens_details.cached_tokens`, Anthropic's cache reads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
}

/// Why the model stopped generating.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FinishReason {
    /// A natural end (`stop`, Anthropic `end_turn`).
    Stop,
    /// The model asked for tools (`tool_calls`, Anthropic `tool_use`).
    ToolCalls,
    /// The output token limit was hit (`length`, Anthropic `max_tokens`).
    Length,
    /// A provider-side filter cut the answer.
    ContentFilter,
    /// Anything else, verbatim.
    Other(String),
}

/// A piece of a streamed answer, relayed to the user as it arrives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delta {
    Text(String),
    Reasoning(String),
    /// The request failed before any of its answer was used and is tried again after a wait:
    /// not part of the answer, but the user should not stare at silence meanwhile.
    Retrying(Retrying),
}

/// One retry of a request, told before its wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retrying {
    /// This retry's number, from 1.
    pub retry: u32,
    /// How many retries the policy allows.
    pub max_retries: u32,
    /// The HTTP status that failed, when it was one (else a connection, a timeout, a stream).
    pub status: Option<u16>,
    /// What failed, in the provider's words (never with a key).
    pub error: String,
    /// How long until the next attempt.
    pub wait: std::time::Duration,
}

/// A whole answer, reassembled from the stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    pub text: String,
    pub reasoning: String,
    /// Set when the model refused (OpenAI's `refusal` field).
    pub refusal: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub finish_reason: Option<FinishReason>,
    pub usage: Option<Usage>,
}
