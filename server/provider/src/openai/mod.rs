//! OpenAI Chat Completions: the request body, the streamed answer, and a whole answer.

mod request;
mod stream;
mod whole;
mod wire;

pub use request::{Extras, request_body, request_body_limited, request_body_with};
pub use stream::OpenAiStream;
pub use whole::parse_completion;
