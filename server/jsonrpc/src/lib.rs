//! What `tandem lsp` and `tandem acp` share below their protocols: stdin and stdout read and
//! written without blocking ([`stdio`]), and one JSON-RPC transport ([`transport`]): the two
//! framings (Content-Length frames, lines), their limits, the error replies to a message the
//! face's library would not take ([`refusal`]: the library would end the connection instead),
//! one parse per message, and one writer for everything going out. Each face keeps only the
//! glue to its library.

pub mod refusal;
pub mod stdio;
pub mod transport;

pub use refusal::{INVALID_REQUEST, PARSE_ERROR, Refusal};
