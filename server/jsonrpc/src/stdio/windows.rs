//! Windows: tokio's stdio (its blocking threads). Anonymous pipes, as an editor gives its
//! child, cannot be read asynchronously on Windows.

use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

/// Stdin, for reading.
pub fn input() -> Pin<Box<dyn AsyncRead + Send>> {
    Box::pin(tokio::io::stdin())
}

/// Stdout, for writing.
pub fn output() -> Pin<Box<dyn AsyncWrite + Send>> {
    Box::pin(tokio::io::stdout())
}
