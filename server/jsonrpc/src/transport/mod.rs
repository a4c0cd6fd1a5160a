//! One JSON-RPC transport for both faces: bytes from stdin are cut into messages by a
//! [`Framing`] (LSP's Content-Length frames, ACP's lines), each message is parsed once, by the
//! face's own library type, and handed over parsed; whatever cannot be taken (a bad header, a
//! message over the limit, a body that is not UTF-8, not JSON or not a JSON-RPC message) is
//! answered here with a JSON-RPC error, and the stream goes on. Only the end of stdin, or a read
//! error, ends it. Everything going out, the library's messages and these error replies, goes
//! through one writer ([`Outbox`]), so they never interleave inside a frame.

mod content_length;
mod lines;

use std::future::Future;
use std::io;
use std::pin::Pin;

use bytes::Bytes;
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

pub use content_length::ContentLength;
pub use lines::Lines;

use crate::refusal::{PARSE_ERROR, Refusal};

/// What a framing found next in the stream.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// One message's bytes.
    Body(Bytes),
    /// Bytes that hold no message (a bad header, a message over the limit), skipped; why.
    Skipped(String),
}

/// How messages are cut out of a byte stream, and put into one.
pub trait Framing: Send + 'static {
    /// How a client that sent a batch (a JSON array) should send its messages instead.
    const BATCH_HINT: &'static str;
    /// Takes bytes as they came.
    fn feed(&mut self, bytes: &[u8]);
    /// The next frame, or `None` when more bytes are needed. The frames do not depend on how
    /// the bytes were chunked.
    fn next_frame(&mut self) -> Option<Frame>;
    /// Appends `body`, framed, to `out`.
    fn encode(body: &[u8], out: &mut Vec<u8>);
    /// How many bytes are held (for tests of the bound).
    #[cfg(test)]
    fn buffered(&self) -> usize;
}

pub type Input = Pin<Box<dyn AsyncRead + Send>>;
pub type Output = Pin<Box<dyn AsyncWrite + Send>>;

/// How much of stdin is read at once.
const CHUNK: usize = 64 << 10;
/// Messages queued for the writer before a sender waits.
const QUEUE: usize = 64;

/// Where messages go out: queued for the one writer, which frames them. Cloned freely.
#[derive(Clone)]
pub struct Outbox(mpsc::Sender<Vec<u8>>);

impl Outbox {
    /// Queues a message; waits while the writer is behind. `false` once stdout is closed.
    pub async fn send(&self, message: &impl Serialize) -> bool {
        // Only our own messages come here, and they serialize.
        let body = serde_json::to_vec(message).unwrap_or_default();
        self.0.send(body).await.is_ok()
    }
}

/// The tasks between stdio and a face's library; see [`start`].
pub struct Relay {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<()>,
}

impl Relay {
    /// Once the library is done (and every [`Outbox`] is dropped): stops reading stdin and waits
    /// until everything queued has been written. The read error that ended the input, if one did.
    pub async fn finish(self) -> io::Result<()> {
        self.reader.abort();
        // Aborted (the library finished first) is the normal end.
        let read = self.reader.await.unwrap_or(Ok(()));
        let _ = self.writer.await;
        read
    }
}

/// Starts relaying `stdin` and `stdout` through `framing`. Each good message is parsed by
/// `parse` (the library's own message type) and given to `deliver`, which answers `false` once
/// the library takes no more; the rest are answered with errors. `face` names the face in logs.
/// Returns the outbox for the library's messages and the relay to finish at the end.
pub fn start<F, T, D>(
    framing: F,
    stdin: Input,
    stdout: Output,
    parse: fn(&str) -> serde_json::Result<T>,
    deliver: impl FnMut(T) -> D + Send + 'static,
    face: &'static str,
) -> (Outbox, Relay)
where
    F: Framing,
    T: Send + 'static,
    D: Future<Output = bool> + Send + 'static,
{
    let (tx, rx) = mpsc::channel(QUEUE);
    let outbox = Outbox(tx);
    let reader = tokio::spawn(read_input(
        framing,
        stdin,
        parse,
        deliver,
        outbox.clone(),
        face,
    ));
    let writer = tokio::spawn(write_output::<F>(stdout, rx));
    (outbox, Relay { reader, writer })
}

async fn read_input<F: Framing, T, D: Future<Output = bool>>(
    mut framing: F,
    mut stdin: Input,
    parse: fn(&str) -> serde_json::Result<T>,
    mut deliver: impl FnMut(T) -> D,
    outbox: Outbox,
    face: &'static str,
) -> io::Result<()> {
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match stdin.read(&mut chunk).await {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) => {
                tracing::warn!("{face}: cannot read stdin: {e}");
                return Err(e);
            }
        };
        framing.feed(&chunk[..n]);
        while let Some(frame) = framing.next_frame() {
            let refusal = match frame {
                Frame::Body(body) => match crate::refusal::parse(&body, parse, F::BATCH_HINT) {
                    Ok(message) => {
                        if deliver(message).await {
                            continue;
                        }
                        // The library stopped reading (`exit`).
                        return Ok(());
                    }
                    Err(refusal) => refusal,
                },
                Frame::Skipped(why) => Refusal {
                    code: PARSE_ERROR,
                    id: serde_json::Value::Null,
                    message: why,
                },
            };
            tracing::warn!("{face}: refused a message: {}", refusal.message);
            if !outbox.send(&refusal.reply()).await {
                return Ok(());
            }
        }
    }
}

/// Writes at most this much before a write: a burst goes out in few writes, not one a message.
const BATCH: usize = 64 << 10;

async fn write_output<F: Framing>(mut stdout: Output, mut bodies: mpsc::Receiver<Vec<u8>>) {
    let mut out = Vec::new();
    while let Some(body) = bodies.recv().await {
        F::encode(&body, &mut out);
        while out.len() < BATCH
            && let Ok(body) = bodies.try_recv()
        {
            F::encode(&body, &mut out);
        }
        if stdout.write_all(&out).await.is_err() || stdout.flush().await.is_err() {
            return;
        }
        out.clear();
        // Not holding on to the room a huge message once took.
        out.shrink_to(BATCH * 2);
    }
}

#[cfg(test)]
mod tests;
