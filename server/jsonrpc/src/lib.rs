//! What `tandem lsp` and `tandem acp` share below their protocols: stdin and stdout read and
//! written without blocking ([`stdio`]), and the diagnosis of a message their JSON-RPC library
//! would not take ([`refusal`]), so a bad message gets an error reply that says what is wrong
//! instead of ending the connection. Each face keeps its own framing (Content-Length frames,
//! lines) and its own library's parse.

mod refusal;
pub mod stdio;

pub use refusal::{INVALID_REQUEST, PARSE_ERROR, Refusal, refusal};
