//! Unix: pipes and Unix sockets read and written without blocking, straight from the runtime.

use std::os::fd::{AsFd, OwnedFd};
use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::pipe;

/// Stdin, for reading.
pub fn input() -> Pin<Box<dyn AsyncRead + Send>> {
    std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(
            |fd| match fd.try_clone().and_then(pipe::Receiver::from_owned_fd) {
                Ok(r) => Ok(Box::pin(r) as Pin<Box<dyn AsyncRead + Send>>),
                Err(_) => unix_socket(fd).map(|s| Box::pin(s) as Pin<Box<dyn AsyncRead + Send>>),
            },
        )
        .unwrap_or_else(|_| Box::pin(tokio::io::stdin()))
}

/// Stdout, for writing.
pub fn output() -> Pin<Box<dyn AsyncWrite + Send>> {
    std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(
            |fd| match fd.try_clone().and_then(pipe::Sender::from_owned_fd) {
                Ok(s) => Ok(Box::pin(s) as Pin<Box<dyn AsyncWrite + Send>>),
                Err(_) => unix_socket(fd).map(|s| Box::pin(s) as Pin<Box<dyn AsyncWrite + Send>>),
            },
        )
        .unwrap_or_else(|_| Box::pin(tokio::io::stdout()))
}

/// A Unix socket, as Node.js gives a child for its stdio (`spawn` with `'pipe'` makes socket
/// pairs): read and written without blocking too. Through tokio's stdio, a read blocked on its
/// thread at exit would keep the runtime, and so the process, alive until the client closed
/// the stream (`exit` never ended `tandem lsp` under vscode-jsonrpc).
fn unix_socket(fd: OwnedFd) -> std::io::Result<tokio::net::UnixStream> {
    let socket = std::os::unix::net::UnixStream::from(fd);
    // Anything but a Unix socket (a terminal, a file) fails here and falls back.
    socket.local_addr()?;
    socket.set_nonblocking(true)?;
    tokio::net::UnixStream::from_std(socket)
}
