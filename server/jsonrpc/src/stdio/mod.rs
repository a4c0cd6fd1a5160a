//! Standard input and output for a face's JSON-RPC stream (`tandem lsp`, `tandem acp`). When
//! they are pipes or Unix sockets (as an editor or client starts the sidecar), they are read and
//! written without blocking, straight from the runtime. Tokio's own stdio hands every read and
//! write to a blocking thread: that costs tens of microseconds a message, which would dominate
//! the relay of a fast stream, and a read blocked there at exit keeps the runtime alive until the
//! client closes the stream. Anything else (a terminal, a file) falls back to tokio's stdio.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{input, output};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{input, output};
