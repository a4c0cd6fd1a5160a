//! Standard input and output for the JSON-RPC stream, read and written without blocking when
//! they are pipes (as a client starts the agent), else through tokio's stdio. The same as
//! `tandem-lsp`'s: a read blocked on a thread (tokio's stdin, or the SDK's own `Stdio`) would
//! keep the runtime from shutting down when the connection ends for any other reason.

use std::os::fd::AsFd;
use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::pipe;

pub fn input() -> Pin<Box<dyn AsyncRead + Send>> {
    std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(pipe::Receiver::from_owned_fd)
        .map(|r| Box::pin(r) as Pin<Box<dyn AsyncRead + Send>>)
        .unwrap_or_else(|_| Box::pin(tokio::io::stdin()))
}

pub fn output() -> Pin<Box<dyn AsyncWrite + Send>> {
    std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(pipe::Sender::from_owned_fd)
        .map(|s| Box::pin(s) as Pin<Box<dyn AsyncWrite + Send>>)
        .unwrap_or_else(|_| Box::pin(tokio::io::stdout()))
}
