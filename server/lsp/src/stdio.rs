//! Standard input and output for the JSON-RPC stream. When they are pipes (as an editor starts
//! the sidecar), they are read and written without blocking, straight from the runtime; tokio's
//! own stdio hands every read and write to a blocking thread, which costs tens of microseconds a
//! message and would dominate the relay of a fast stream. Anything else (a terminal, a file)
//! falls back to tokio's stdio.

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
