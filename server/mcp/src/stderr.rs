//! A stdio server's stderr, kept as its last few kilobytes. It must never reach our stdout (the
//! JSON-RPC channel to the editor) and a server that writes without end must not fill memory; the
//! tail is what an error report needs.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};

/// The last `capacity` bytes a server wrote to stderr.
#[derive(Clone)]
pub struct StderrTail {
    inner: Arc<Mutex<VecDeque<u8>>>,
    capacity: usize,
}

impl StderrTail {
    pub fn new(capacity: usize) -> Self {
        Self {
            inner: Arc::new(Mutex::new(VecDeque::with_capacity(capacity.min(64 * 1024)))),
            capacity,
        }
    }

    /// Reads `stream` to its end in a task, keeping the tail.
    pub fn drain(&self, mut stream: impl AsyncRead + Unpin + Send + 'static) {
        let tail = self.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stream.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                tail.push(&buf[..n]);
            }
        });
    }

    fn push(&self, bytes: &[u8]) {
        let Ok(mut deque) = self.inner.lock() else {
            return;
        };
        let bytes = &bytes[bytes.len().saturating_sub(self.capacity)..];
        let overflow = (deque.len() + bytes.len()).saturating_sub(self.capacity);
        deque.drain(..overflow);
        deque.extend(bytes);
    }

    /// The tail as text, control characters dropped; empty if the server wrote nothing.
    pub fn text(&self) -> String {
        let bytes: Vec<u8> = match self.inner.lock() {
            Ok(deque) => deque.iter().copied().collect(),
            Err(_) => return String::new(),
        };
        crate::text::clean(String::from_utf8_lossy(&bytes).trim(), self.capacity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_last_bytes() {
        let tail = StderrTail::new(8);
        tail.push(b"0123");
        tail.push(b"456789");
        assert_eq!(tail.text(), "23456789");
        tail.push(b"a very long line that is longer than the capacity");
        assert_eq!(tail.text(), "capacity");
    }

    #[tokio::test]
    async fn drains_a_stream_to_the_end() {
        let tail = StderrTail::new(4);
        let (mut w, r) = tokio::io::duplex(16);
        tail.drain(r);
        tokio::io::AsyncWriteExt::write_all(&mut w, &[b'x'; 10_000])
            .await
            .unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut w, b"done")
            .await
            .unwrap();
        drop(w);
        for _ in 0..100 {
            if tail.text() == "done" {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("tail is {:?}", tail.text());
    }
}
