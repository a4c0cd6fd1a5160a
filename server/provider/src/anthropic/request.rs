//! The Anthropic Messages request body.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::CompletionRequest;
use tandem_model::{Message, ToolDefinition};

/// The output budget asked for: Messages requires one, and every current model allows this much.
pub const MAX_TOKENS: u32 = 8192;

/// The API version sent as `anthropic-version`.
pub const API_VERSION: &str = "2023-06-01";

/// `POST {base_url}/messages` body for `model`, streamed.
///
/// The leading system messages become `system`; tool results become `tool_result` blocks of a
/// user turn; consecutive turns of one role are merged, so the results of parallel calls travel
/// together right after the assistant turn that made them, as the API requires.
pub fn request_body(model: &str, request: CompletionRequest<'_>) -> Vec<u8> {
    let leading_system = request
        .messages
        .iter()
        .take_while(|m| matches!(m, Message::System { .. }))
        .count();
    let system: Vec<&str> = request.messages[..leading_system]
        .iter()
        .filter_map(|m| match m {
            Message::System { content } if !content.is_empty() => Some(content.as_str()),
            _ => None,
        })
        .collect();
    let mut turns: Vec<Turn<'_>> = Vec::new();
    for message in &request.messages[leading_system..] {
        let (role, blocks) = blocks_of(message);
        match turns.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks),
            _ if blocks.is_empty() => {}
            _ => turns.push(Turn {
                role,
                content: blocks,
            }),
        }
    }
    let body = Body {
        model,
        max_tokens: MAX_TOKENS,
        system: (!system.is_empty()).then(|| system.join("\n\n")),
        messages: turns,
        tools: request.tools.iter().map(Tool::from).collect(),
        stream: true,
    };
    serde_json::to_vec(&body).expect("a request body always serializes")
}

/// A message's role on the wire and its content blocks (empty text blocks are refused by the API).
fn blocks_of(message: &Message) -> (&'static str, Vec<Block<'_>>) {
    fn text(text: &str) -> Option<Block<'_>> {
        (!text.is_empty()).then_some(Block::Text { text })
    }
    match message {
        // A system message after the conversation started keeps its place as user text.
        Message::System { content } => ("user", text(content).into_iter().collect()),
        Message::User { content, images } => {
            let images = images.iter().map(|image| Block::Image {
                source: ImageSource {
                    kind: "base64",
                    media_type: image.kind.mime(),
                    data: crate::images::base64(image),
                },
            });
            // Images before the text, as Anthropic's vision guide advises.
            ("user", images.chain(text(content)).collect())
        }
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let calls = tool_calls.iter().map(|call| Block::ToolUse {
                id: call.id.as_str(),
                name: &call.name,
                input: input_object(&call.arguments),
            });
            (
                "assistant",
                text(content).into_iter().chain(calls).collect(),
            )
        }
        Message::Tool {
            tool_call_id,
            content,
        } => (
            "user",
            vec![Block::ToolResult {
                tool_use_id: tool_call_id.as_str(),
                content,
            }],
        ),
    }
}

/// `tool_use.input` must be an object: malformed arguments (already answered with an error by the
/// tool) are replayed as `{}`.
fn input_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(object @ Value::Object(_)) => object,
        _ => Value::Object(Map::new()),
    }
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    messages: Vec<Turn<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    stream: bool,
}

#[derive(Serialize)]
struct Turn<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        content: &'a str,
    },
    Image {
        source: ImageSource,
    },
}

/// An image block's source: the bytes in base64.
#[derive(Serialize)]
struct ImageSource {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'static str,
    data: String,
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

impl<'a> From<&'a ToolDefinition> for Tool<'a> {
    fn from(tool: &'a ToolDefinition) -> Self {
        Self {
            name: &tool.name,
            description: &tool.description,
            input_schema: &tool.parameters,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(messages: &[Message]) -> Value {
        let request = CompletionRequest::conversation(messages, &[], 0);
        serde_json::from_slice(&request_body("claude", request)).unwrap()
    }

    #[test]
    fn later_system_messages_stay_in_place_as_user_text_and_turns_merge() {
        let messages = [
            Message::user("first"),
            Message::Assistant {
                content: String::new(),
                reasoning: "nothing to say".into(),
                tool_calls: vec![],
            },
            Message::System {
                content: "The context was compacted.".into(),
            },
            Message::user("second"),
        ];
        let body = body(&messages);
        assert!(body.get("system").is_none());
        assert!(body.get("tools").is_none());
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": [
                {"type": "text", "text": "first"},
                {"type": "text", "text": "The context was compacted."},
                {"type": "text", "text": "second"}
            ]}])
        );
    }

    #[test]
    fn leading_system_messages_join_into_the_system_prompt() {
        let messages = [
            Message::System {
                content: "One.".into(),
            },
            Message::System {
                content: "Two.".into(),
            },
            Message::user("hi"),
        ];
        assert_eq!(body(&messages)["system"], json!("One.\n\nTwo."));
    }
}
