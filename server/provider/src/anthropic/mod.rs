//! Anthropic Messages: the request body, the streamed answer, and a whole answer.

mod request;
mod stream;
mod whole;

pub use request::{API_VERSION, MAX_TOKENS, request_body};
pub use stream::AnthropicStream;
pub use whole::parse_message;
