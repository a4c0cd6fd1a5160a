//! Our own reading of the ACP byte stream (one JSON-RPC message per line), in front of the SDK.
//!
//! The SDK reads stdin as lines of text: a line that is not UTF-8 is a read error and ends
//! `tandem acp`, and it holds a line of any length. So the lines are read here first: a line
//! that is a JSON-RPC message (as the SDK's own [`RawJsonRpcMessage`] reads it) goes on
//! unchanged; any other is answered here with a JSON-RPC error (parse error, or invalid request
//! with the request's id when it has a valid one) and skipped. Only the end of stdin, or a read
//! error, ends the stream.
//!
//! [`LineDecoder`] splits bytes into lines (no I/O, so it can be tested on any input);
//! [`check`] decides whether a line goes on; [`relay`] wires both between stdio and the SDK's
//! [`Lines`] transport, with one writer for the SDK's lines and the error replies.

use std::io;
use std::pin::Pin;

use agent_client_protocol::{Lines, RawJsonRpcMessage};
use bytes::{Bytes, BytesMut};
use futures_util::{Sink, Stream};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The longest line taken: a longer one is answered with an error and dropped as it comes,
/// never buffered. 64 MiB holds any prompt with its embedded files.
pub const MAX_LINE: usize = 64 << 20;

/// What the decoder found next in the stream.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A whole line, without its `\n` (or `\r\n`).
    Text(Bytes),
    /// A line longer than the limit; the rest of it is dropped.
    TooLong,
}

/// Splits a byte stream into lines. Holds at most one line (up to the limit) plus what was fed
/// since the last [`LineDecoder::next_line`].
pub struct LineDecoder {
    buf: BytesMut,
    /// How much of `buf` is known to hold no newline.
    scanned: usize,
    /// Dropping the rest of a too long line.
    discarding: bool,
    max_line: usize,
}

impl Default for LineDecoder {
    fn default() -> Self {
        Self::new(MAX_LINE)
    }
}

impl LineDecoder {
    pub fn new(max_line: usize) -> Self {
        Self {
            buf: BytesMut::new(),
            scanned: 0,
            discarding: false,
            max_line,
        }
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// How many bytes are held (for tests of the bound).
    #[cfg(test)]
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// The next line, or `None` when more bytes are needed.
    pub fn next_line(&mut self) -> Option<Line> {
        loop {
            let Some(at) = memchr::memchr(b'\n', &self.buf[self.scanned..]) else {
                if self.discarding {
                    self.buf.clear();
                } else if self.buf.len() > self.max_line + 1 {
                    // (+1: a line of the limit may still end in `\r\n`.)
                    self.buf.clear();
                    self.discarding = true;
                    self.scanned = 0;
                    return Some(Line::TooLong);
                }
                self.scanned = self.buf.len();
                return None;
            };
            let end = self.scanned + at;
            self.scanned = 0;
            let mut line = self.buf.split_to(end + 1);
            if std::mem::take(&mut self.discarding) {
                continue;
            }
            line.truncate(end);
            if line.last() == Some(&b'\r') {
                line.truncate(end - 1);
            }
            // Decided on the whole line, so the answer does not depend on the chunking.
            if line.len() > self.max_line {
                return Some(Line::TooLong);
            }
            return Some(Line::Text(line.freeze()));
        }
    }
}

/// What to do with a line.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// A message: pass it on, as it is.
    Pass(String),
    /// Nothing but white space: ignore it.
    Blank,
    /// Not a message: send this error reply.
    Refuse(Value),
}

/// Whether a line is a message the SDK will take; if not, the error reply to send.
pub fn check(line: Line) -> Verdict {
    let bytes = match line {
        Line::Text(bytes) => bytes,
        Line::TooLong => {
            return Verdict::Refuse(error_reply(
                Value::Null,
                tandem_jsonrpc::PARSE_ERROR,
                format!("a line over the limit of {MAX_LINE} bytes; dropped it"),
            ));
        }
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Blank;
    }
    let parses = |text: &str| serde_json::from_str::<RawJsonRpcMessage>(text).map(|_| ());
    match tandem_jsonrpc::refusal(&bytes, parses, "send each message on its own line") {
        // Checked to be UTF-8 by the refusal: the lossy conversion loses nothing.
        None => Verdict::Pass(String::from_utf8_lossy(&bytes).into_owned()),
        Some(r) => Verdict::Refuse(error_reply(r.id, r.code, r.message)),
    }
}

fn error_reply(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

type Input = Pin<Box<dyn AsyncRead + Send>>;
type Output = Pin<Box<dyn AsyncWrite + Send>>;
type IncomingLines = Pin<Box<dyn Stream<Item = io::Result<String>> + Send>>;
type OutgoingLines = Pin<Box<dyn Sink<String, Error = io::Error> + Send>>;

/// The tasks between stdio and the SDK; see [`relay`].
pub struct Relay {
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

/// Lines queued for the writer (and checked lines for the SDK) before the sender waits.
const QUEUE: usize = 64;

/// Starts relaying `stdin` and `stdout`; returns the transport to give the SDK.
pub fn relay(stdin: Input, stdout: Output) -> (Lines<OutgoingLines, IncomingLines>, Relay) {
    let (lines_tx, lines_rx) = mpsc::channel::<io::Result<String>>(QUEUE);
    let (out_tx, out_rx) = mpsc::channel::<String>(QUEUE);
    let reader = tokio::spawn(read_input(stdin, lines_tx, out_tx.clone()));
    let writer = tokio::spawn(write_output(stdout, out_rx));
    let incoming: IncomingLines = Box::pin(futures_util::stream::unfold(
        lines_rx,
        |mut rx| async move { rx.recv().await.map(|line| (line, rx)) },
    ));
    let outgoing: OutgoingLines = Box::pin(futures_util::sink::unfold(
        out_tx,
        |tx, line: String| async move {
            tx.send(line)
                .await
                .map_err(|_| io::Error::other("the stdout writer stopped"))?;
            Ok::<_, io::Error>(tx)
        },
    ));
    (Lines::new(outgoing, incoming), Relay { reader, writer })
}

impl Relay {
    /// Once the SDK is done (and so has dropped its sink): stops reading stdin and waits until
    /// everything queued has been written.
    pub async fn finish(self) {
        self.reader.abort();
        let _ = self.reader.await;
        let _ = self.writer.await;
    }
}

async fn read_input(
    mut stdin: Input,
    lines: mpsc::Sender<io::Result<String>>,
    out: mpsc::Sender<String>,
) {
    let mut decoder = LineDecoder::default();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match stdin.read(&mut chunk).await {
            // The end of stdin: dropping `lines` ends the SDK's input.
            Ok(0) => return,
            Ok(n) => n,
            Err(e) => {
                let _ = lines.send(Err(e)).await;
                return;
            }
        };
        decoder.feed(&chunk[..n]);
        while let Some(line) = decoder.next_line() {
            let sent = match check(line) {
                Verdict::Pass(text) => lines.send(Ok(text)).await.is_ok(),
                Verdict::Blank => true,
                Verdict::Refuse(reply) => {
                    tracing::warn!(
                        "acp: refused a message: {}",
                        reply["error"]["message"].as_str().unwrap_or("")
                    );
                    out.send(reply.to_string()).await.is_ok()
                }
            };
            if !sent {
                return;
            }
        }
    }
}

async fn write_output(mut stdout: Output, mut outbox: mpsc::Receiver<String>) {
    while let Some(mut line) = outbox.recv().await {
        line.push('\n');
        if stdout.write_all(line.as_bytes()).await.is_err() {
            return;
        }
        // Flush once the queue is drained, not after every line of a burst.
        if outbox.is_empty() && stdout.flush().await.is_err() {
            return;
        }
    }
    let _ = stdout.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_jsonrpc::{INVALID_REQUEST, PARSE_ERROR};

    fn lines(decoder: &mut LineDecoder) -> Vec<Line> {
        std::iter::from_fn(|| decoder.next_line()).collect()
    }

    fn text(s: &str) -> Line {
        Line::Text(Bytes::copy_from_slice(s.as_bytes()))
    }

    fn refusal(line: &[u8]) -> Value {
        match check(Line::Text(Bytes::copy_from_slice(line))) {
            Verdict::Refuse(reply) => reply,
            other => panic!("{:?} passed: {other:?}", String::from_utf8_lossy(line)),
        }
    }

    const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

    #[test]
    fn splits_lines_on_lf_and_crlf() {
        let mut decoder = LineDecoder::new(1024);
        decoder.feed(b"a\r\nb\nc");
        assert_eq!(lines(&mut decoder), vec![text("a"), text("b")]);
        decoder.feed(b"d\n");
        assert_eq!(lines(&mut decoder), vec![text("cd")]);
    }

    #[test]
    fn a_long_line_is_reported_once_and_not_held() {
        let mut decoder = LineDecoder::new(100);
        let mut reports = 0;
        for _ in 0..50 {
            decoder.feed(&[b'x'; 64]);
            reports += lines(&mut decoder).len();
            assert!(decoder.buffered() <= 100 + 64);
        }
        decoder.feed(format!("tail\n{PING}\n").as_bytes());
        let rest = lines(&mut decoder);
        assert_eq!(reports + rest.len(), 2, "{rest:?}");
        assert_eq!(rest.last(), Some(&text(PING)));
    }

    #[test]
    fn a_long_line_in_one_piece_is_reported_too() {
        let mut decoder = LineDecoder::new(10);
        decoder.feed(b"0123456789abc\nok\n");
        assert_eq!(lines(&mut decoder), vec![Line::TooLong, text("ok")]);
    }

    #[test]
    fn messages_pass_unchanged() {
        for message in [
            PING,
            r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":{}}"#,
        ] {
            assert_eq!(check(text(message)), Verdict::Pass(message.to_string()));
        }
        assert_eq!(check(text("  \t")), Verdict::Blank);
    }

    #[test]
    fn unreadable_lines_are_parse_errors_with_a_null_id() {
        let deep = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let cases: [&[u8]; 3] = [
            b"not json",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,",
        ];
        for line in cases {
            let reply = refusal(line);
            assert_eq!(reply["error"]["code"], PARSE_ERROR, "{reply}");
            assert_eq!(reply["id"], Value::Null, "{reply}");
        }
        // Too deep to parse, but its id is read from the top level: the request is answered.
        let reply = refusal(deep.as_bytes());
        assert_eq!(reply["error"]["code"], PARSE_ERROR, "{reply}");
        assert_eq!(reply["id"], 1, "{reply}");
        let too_long = check(Line::TooLong);
        assert!(matches!(too_long, Verdict::Refuse(r) if r["error"]["code"] == PARSE_ERROR));
    }

    #[test]
    fn malformed_requests_are_invalid_with_their_id_when_it_is_one() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
                Value::Null,
                "\"id\"",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
                Value::Null,
                "\"id\"",
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":3}"#,
                7.into(),
                "\"method\"",
            ),
            (r#"{"id":"a","method":"x"}"#, "a".into(), "jsonrpc"),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#,
                Value::Null,
                "batch",
            ),
            (r#"42"#, Value::Null, "object"),
            (r#"{"jsonrpc":"2.0","id":9}"#, Value::Null, "neither"),
        ];
        for (message, id, mentions) in cases {
            let reply = refusal(message.as_bytes());
            assert_eq!(
                reply["error"]["code"], INVALID_REQUEST,
                "{message}: {reply}"
            );
            assert_eq!(reply["id"], id, "{message}: {reply}");
            let text = reply["error"]["message"].as_str().unwrap();
            assert!(text.contains(mentions), "{message}: {text}");
        }
    }
}

/// Arbitrary input never panics the reader, and the lines do not depend on how the bytes came.
#[cfg(test)]
mod props {
    use proptest::prelude::*;

    use super::*;

    fn decode_in(input: &[u8], cuts: &[usize], max_line: usize) -> Vec<Line> {
        let mut decoder = LineDecoder::new(max_line);
        let mut out = Vec::new();
        let mut at = 0;
        let mut biggest = 0;
        for &cut in cuts.iter().chain([&input.len()]) {
            let cut = cut.clamp(at, input.len());
            decoder.feed(&input[at..cut]);
            biggest = biggest.max(cut - at);
            at = cut;
            out.extend(std::iter::from_fn(|| decoder.next_line()));
            assert!(
                decoder.buffered() <= max_line + 1 + biggest,
                "holds {} bytes",
                decoder.buffered()
            );
        }
        out
    }

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#.to_vec()),
            prop::collection::vec(any::<u8>(), 0..40),
        ];
        prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn any_bytes_in_any_chunks_give_the_same_lines(
            input in bytes(),
            mut cuts in prop::collection::vec(0usize..2000, 0..20),
            max_line in 0usize..100,
        ) {
            cuts.sort_unstable();
            let whole = decode_in(&input, &[], max_line);
            let chunked = decode_in(&input, &cuts, max_line);
            prop_assert_eq!(&whole, &chunked);
            for line in whole {
                let _ = check(line);
            }
        }

        #[test]
        fn check_never_panics(line in prop::collection::vec(any::<u8>(), 0..500)) {
            let _ = check(Line::Text(line.into()));
        }

        #[test]
        fn good_lines_come_out_whole_after_any_garbage(
            garbage in prop::collection::vec(any::<u8>(), 0..500),
            messages in prop::collection::vec("[^\r\n]{0,60}", 1..5),
            mut cuts in prop::collection::vec(0usize..1000, 0..10),
        ) {
            let mut input = garbage;
            input.push(b'\n');
            for message in &messages {
                input.extend(message.as_bytes());
                input.push(b'\n');
            }
            cuts.sort_unstable();
            let lines = decode_in(&input, &cuts, 1000);
            let tail: Vec<Line> = messages
                .iter()
                .map(|m| Line::Text(Bytes::copy_from_slice(m.as_bytes())))
                .collect();
            prop_assert!(lines.ends_with(&tail), "{:?}", lines);
        }
    }
}
