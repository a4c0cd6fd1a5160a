//! Counting a request's tokens before it is sent, without the model's tokenizer: characters
//! divided by a ratio, which the agent calibrates with what the server reports.

use tandem_model::{Message, ToolDefinition};

/// Characters per token before any calibration: low, so a first estimate errs on the large side
/// (English prose runs about 4, code and JSON nearer 3).
pub const DEFAULT_CHARS_PER_TOKEN: f64 = 3.0;

/// Tokens a chat template adds around each message (role markers, separators).
pub const PER_MESSAGE: u64 = 6;

/// The characters of one message as the model reads them.
pub fn message_chars(message: &Message) -> u64 {
    let chars = |s: &str| s.chars().count() as u64;
    match message {
        // Images are counted apart ([`estimate`]): they are no characters to calibrate with.
        Message::System { content } | Message::User { content, .. } => chars(content),
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            chars(content)
                + tool_calls
                    .iter()
                    .map(|c| chars(&c.name) + chars(&c.arguments) + 16)
                    .sum::<u64>()
        }
        Message::Tool { content, .. } => chars(content),
    }
}

/// The characters the tool definitions take (their JSON, as the template renders it).
pub fn tools_chars(tools: &[ToolDefinition]) -> u64 {
    tools
        .iter()
        .map(|t| {
            (t.name.chars().count() + t.description.chars().count()) as u64
                + t.parameters.to_string().chars().count() as u64
                + 40
        })
        .sum()
}

/// Tokens for `chars` characters over `messages` messages at `chars_per_token`.
pub fn tokens_for(chars: u64, messages: usize, chars_per_token: f64) -> u64 {
    (chars as f64 / chars_per_token.max(0.5)).ceil() as u64 + messages as u64 * PER_MESSAGE
}

/// The estimated prompt tokens of a request, its images included.
pub fn estimate(messages: &[Message], tools: &[ToolDefinition], chars_per_token: f64) -> u64 {
    let chars = messages.iter().map(message_chars).sum::<u64>() + tools_chars(tools);
    tokens_for(chars, messages.len(), chars_per_token) + crate::images::messages_tokens(messages)
}

/// The answer's share of a window: a quarter, at least 128 and at most 8,192 tokens. The agent
/// keeps this much free when it fits a request, and local servers get it as `max_tokens`, so a
/// small model that rambles stops while there is room for the next step.
pub fn answer_limit(window: u64) -> u64 {
    (window / 4).clamp(128, 8192)
}
