//! Our own reading of the LSP byte stream, in front of tower-lsp-server.
//!
//! The library's decoder treats any malformed frame (no `Content-Length`, a body that is not
//! UTF-8 or not JSON, an `id` it cannot read, nesting past serde_json's recursion limit) as the
//! end of its input: `tandem lsp` then exits and the running turns are lost. So the frames are
//! read here first: a good one goes on to the library unchanged (under a clean header); a bad
//! one is answered here with a JSON-RPC error and skipped, and the stream goes on. Only the end
//! of stdin (or a read error) ends it.
//!
//! [`Decoder`] splits bytes into frames (no I/O, so it can be tested on any input); [`check`]
//! decides whether a body is a message the library will take; [`relay`] wires both between
//! stdin/stdout and the library, with one writer for everything that goes out.

use std::pin::Pin;

use bytes::{Buf, Bytes, BytesMut};
use memchr::memmem;
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Id, Request, Response};

/// The largest body taken: a bigger one is answered with an error and its bytes are skipped
/// as they come, never buffered. 64 MiB holds any document an editor would open.
pub const MAX_FRAME: usize = 64 << 20;

/// The longest header block: real ones are under 100 bytes.
const MAX_HEADERS: usize = 8 << 10;

const CONTENT_LENGTH: &[u8] = b"Content-Length";

/// What the decoder found next in the stream.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A whole body, as its header announced it.
    Body(Bytes),
    /// A header block that cannot be read; the decoder skipped to the next `Content-Length`.
    BadHeader(String),
    /// A body longer than the limit; its bytes are being skipped.
    TooLarge(usize),
}

enum State {
    Headers,
    Body(usize),
    /// Bytes of a too large body still to drop.
    Skip(usize),
    /// After a bad header: drop bytes up to the next `Content-Length`.
    Resync,
}

/// Splits an LSP byte stream into frames. Holds at most one header block or one body (up to the
/// limit) plus what was fed since the last [`Decoder::next`].
pub struct Decoder {
    buf: BytesMut,
    state: State,
    max_frame: usize,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new(MAX_FRAME)
    }
}

impl Decoder {
    pub fn new(max_frame: usize) -> Self {
        Self {
            buf: BytesMut::new(),
            state: State::Headers,
            max_frame,
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

    /// The next frame, or `None` when more bytes are needed.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            match self.state {
                State::Headers => {
                    // Blank lines between frames are not in the spec, but harmless: skip them.
                    let blank = self
                        .buf
                        .iter()
                        .take_while(|b| matches!(b, b'\r' | b'\n'))
                        .count();
                    self.buf.advance(blank);
                    // Only a terminator within the limit counts, so the outcome does not
                    // depend on how the bytes were chunked.
                    let window = &self.buf[..self.buf.len().min(MAX_HEADERS + 4)];
                    let Some(end) = memmem::find(window, b"\r\n\r\n") else {
                        if window.len() == MAX_HEADERS + 4 {
                            return Some(self.bad_header(format!(
                                "no end of the header block (an empty line) within {MAX_HEADERS} bytes"
                            )));
                        }
                        return None;
                    };
                    match content_length(&self.buf[..end]) {
                        Ok(len) => {
                            self.buf.advance(end + 4);
                            if len > self.max_frame {
                                self.state = State::Skip(len);
                                return Some(Frame::TooLarge(len));
                            }
                            self.state = State::Body(len);
                        }
                        Err(why) => return Some(self.bad_header(why)),
                    }
                }
                State::Body(len) => {
                    if self.buf.len() < len {
                        self.buf.reserve(len - self.buf.len());
                        return None;
                    }
                    self.state = State::Headers;
                    return Some(Frame::Body(self.buf.split_to(len).freeze()));
                }
                State::Skip(left) => {
                    let n = left.min(self.buf.len());
                    self.buf.advance(n);
                    if n < left {
                        self.state = State::Skip(left - n);
                        return None;
                    }
                    self.state = State::Headers;
                }
                State::Resync => match memmem::find(&self.buf, CONTENT_LENGTH) {
                    Some(at) => {
                        self.buf.advance(at);
                        self.state = State::Headers;
                    }
                    None => {
                        // Keep a tail that may be the start of a split `Content-Length`.
                        let keep = (CONTENT_LENGTH.len() - 1).min(self.buf.len());
                        self.buf.advance(self.buf.len() - keep);
                        return None;
                    }
                },
            }
        }
    }

    /// Skips past the start of a bad header block: the next frame starts at the next
    /// `Content-Length` (which may be inside this block, after a stray line).
    fn bad_header(&mut self, why: String) -> Frame {
        self.buf.advance(1);
        self.state = State::Resync;
        Frame::BadHeader(why)
    }
}

/// The body length a header block announces. Header names are matched without regard to case;
/// other headers (`Content-Type`) are allowed and ignored: the body is checked as UTF-8 anyway.
fn content_length(block: &[u8]) -> Result<usize, String> {
    let mut length = None;
    for line in block.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let text = std::str::from_utf8(line)
            .ok()
            .filter(|t| t.chars().all(|c| c == '\t' || (' '..='~').contains(&c)));
        let Some((name, value)) = text.and_then(|t| t.split_once(':')) else {
            return Err(format!(
                "a header line is not \"Name: value\": {:?}",
                String::from_utf8_lossy(&line[..line.len().min(80)])
            ));
        };
        if name.is_empty() || name.contains([' ', '\t']) {
            return Err(format!("bad header name {name:?}"));
        }
        if name.eq_ignore_ascii_case("content-length") {
            let value = value.trim();
            let parsed = value
                .parse::<usize>()
                .ok()
                .filter(|_| value.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| format!("Content-Length is not a byte count: {value:?}"))?;
            if length.is_some_and(|l| l != parsed) {
                return Err("two different Content-Length headers".into());
            }
            length = Some(parsed);
        }
    }
    length.ok_or_else(|| "no Content-Length header".into())
}

/// A message as the library reads it (its own `Message` is private): a response or a request.
#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)] // Only whether it parses matters.
enum Incoming {
    Response(Response),
    Request(Request),
}

/// Whether the library will take this body; if not, the error reply to send.
// The error is the reply itself, made once per malformed frame: its size costs nothing.
#[allow(clippy::result_large_err)]
pub fn check(body: &[u8]) -> Result<(), Response> {
    let parses = |text: &str| serde_json::from_str::<Incoming>(text).map(|_| ());
    match tandem_jsonrpc::refusal(body, parses, "send each message in its own frame") {
        None => Ok(()),
        Some(r) => Err(reply(
            Id::deserialize(&r.id).unwrap_or(Id::Null),
            ErrorCode::from(r.code),
            r.message,
        )),
    }
}

fn reply(id: Id, code: ErrorCode, message: String) -> Response {
    Response::from_error(
        id,
        Error {
            code,
            message: message.into(),
            data: None,
        },
    )
}

/// The reply for a frame the decoder could not take.
fn frame_error(frame: &Frame) -> Option<Response> {
    match frame {
        Frame::Body(_) => None,
        Frame::BadHeader(why) => Some(reply(
            Id::Null,
            ErrorCode::ParseError,
            format!("bad frame header: {why}; skipped to the next Content-Length"),
        )),
        Frame::TooLarge(len) => Some(reply(
            Id::Null,
            ErrorCode::ParseError,
            format!("a message of {len} bytes is over the limit of {MAX_FRAME} bytes; skipped it"),
        )),
    }
}

/// A body with its header, as it goes on the wire.
pub fn encode(body: &[u8]) -> Vec<u8> {
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(body);
    frame
}

type Input = Pin<Box<dyn AsyncRead + Send>>;
type Output = Pin<Box<dyn AsyncWrite + Send>>;

/// The tasks between stdio and the library; see [`relay`].
pub struct Relay {
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

/// How much of the stream is in flight between the relay and the library each way.
const PIPE: usize = 64 << 10;

/// Starts relaying `stdin` and `stdout`; returns the input and output to give the library.
///
/// Good frames go to the library's input; the library's output is split back into whole frames
/// and goes out through one writer, with the error replies for bad frames, so the two never
/// interleave inside a frame.
pub fn relay(stdin: Input, stdout: Output) -> (DuplexStream, DuplexStream, Relay) {
    let (to_library, library_input) = tokio::io::duplex(PIPE);
    let (library_output, from_library) = tokio::io::duplex(PIPE);
    let (frames, outbox) = mpsc::channel::<Vec<u8>>(64);
    let reader = tokio::spawn(read_input(stdin, to_library, frames.clone()));
    tokio::spawn(split_output(from_library, frames));
    let writer = tokio::spawn(write_output(stdout, outbox));
    (library_input, library_output, Relay { reader, writer })
}

impl Relay {
    /// Once the library is done (and so has dropped its output): stops reading stdin and waits
    /// until everything queued has been written.
    pub async fn finish(self) {
        self.reader.abort();
        let _ = self.reader.await;
        let _ = self.writer.await;
    }
}

async fn read_input(mut stdin: Input, mut library: DuplexStream, out: mpsc::Sender<Vec<u8>>) {
    let mut decoder = Decoder::default();
    let mut chunk = vec![0u8; PIPE];
    loop {
        let n = match stdin.read(&mut chunk).await {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                tracing::warn!("lsp: cannot read stdin: {e}");
                break;
            }
        };
        decoder.feed(&chunk[..n]);
        while let Some(frame) = decoder.next_frame() {
            let refused = match &frame {
                Frame::Body(body) => check(body).err(),
                other => frame_error(other),
            };
            match (frame, refused) {
                (_, Some(response)) => {
                    tracing::warn!("lsp: refused a message: {}", describe(&response));
                    let body = serde_json::to_vec(&response).unwrap_or_default();
                    if out.send(encode(&body)).await.is_err() {
                        return;
                    }
                }
                // The library stopped reading (`exit`).
                (Frame::Body(body), None) if library.write_all(&encode(&body)).await.is_err() => {
                    return;
                }
                _ => {}
            }
        }
    }
    // The end of stdin: the library sees the end of its input and stops.
    let _ = library.shutdown().await;
}

fn describe(response: &Response) -> String {
    serde_json::to_value(response)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Cuts the library's output into whole frames for the writer.
async fn split_output(mut library: DuplexStream, out: mpsc::Sender<Vec<u8>>) {
    // The library's frames are well-formed and never over the limit it could not produce.
    let mut decoder = Decoder::new(usize::MAX);
    let mut chunk = vec![0u8; PIPE];
    while let Ok(n) = library.read(&mut chunk).await
        && n > 0
    {
        decoder.feed(&chunk[..n]);
        while let Some(frame) = decoder.next_frame() {
            if let Frame::Body(body) = frame
                && out.send(encode(&body)).await.is_err()
            {
                return;
            }
        }
    }
}

async fn write_output(mut stdout: Output, mut outbox: mpsc::Receiver<Vec<u8>>) {
    while let Some(frame) = outbox.recv().await {
        if stdout.write_all(&frame).await.is_err() {
            return;
        }
        // Flush once the queue is drained, not after every frame of a burst.
        if outbox.is_empty() && stdout.flush().await.is_err() {
            return;
        }
    }
    let _ = stdout.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn frames(decoder: &mut Decoder) -> Vec<Frame> {
        std::iter::from_fn(|| decoder.next_frame()).collect()
    }

    fn decode(input: &[u8]) -> Vec<Frame> {
        let mut decoder = Decoder::new(1024);
        decoder.feed(input);
        frames(&mut decoder)
    }

    fn body(text: &str) -> Frame {
        Frame::Body(Bytes::copy_from_slice(text.as_bytes()))
    }

    fn error_of(response: &Response) -> Value {
        serde_json::to_value(response).unwrap()
    }

    const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

    #[test]
    fn splits_frames_with_any_header_case_and_content_type() {
        let input = format!(
            "Content-Length: {}\r\n\r\n{PING}content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{{}}",
            PING.len()
        );
        assert_eq!(decode(input.as_bytes()), vec![body(PING), body("{}")]);
    }

    #[test]
    fn a_frame_split_anywhere_comes_out_whole() {
        let input = encode(PING.as_bytes());
        for cut in 0..input.len() {
            let mut decoder = Decoder::default();
            decoder.feed(&input[..cut]);
            assert_eq!(frames(&mut decoder), vec![], "cut at {cut}");
            decoder.feed(&input[cut..]);
            assert_eq!(frames(&mut decoder), vec![body(PING)], "cut at {cut}");
        }
    }

    #[test]
    fn a_header_block_without_content_length_is_reported_and_the_next_frame_read() {
        let input = format!(
            "Content-Type: text/plain\r\n\r\n{PING}Content-Length: {}\r\n\r\n{PING}",
            PING.len()
        );
        let got = decode(input.as_bytes());
        assert!(
            matches!(&got[0], Frame::BadHeader(why) if why.contains("no Content-Length")),
            "{got:?}"
        );
        assert_eq!(got[1..], [body(PING)]);
    }

    #[test]
    fn a_stray_line_before_a_header_costs_one_error_not_the_frame() {
        let input = format!("garbage\r\nContent-Length: {}\r\n\r\n{PING}", PING.len());
        let got = decode(input.as_bytes());
        assert!(matches!(&got[0], Frame::BadHeader(_)), "{got:?}");
        assert_eq!(got[1..], [body(PING)]);
    }

    #[test]
    fn bad_lengths_are_reported() {
        for header in [
            "Content-Length: -1",
            "Content-Length: 1e3",
            "Content-Length: 99999999999999999999999",
            "Content-Length: 1\r\nContent-Length: 2",
        ] {
            let got = decode(format!("{header}\r\n\r\n{{}}").as_bytes());
            // The block is reported; what follows is read from the next Content-Length on.
            assert!(
                matches!(got.first(), Some(Frame::BadHeader(_))),
                "{header}: {got:?}"
            );
        }
    }

    #[test]
    fn endless_headers_are_cut_off_and_not_buffered() {
        let mut decoder = Decoder::default();
        let line = b"X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";
        let mut reports = 0;
        for _ in 0..10_000 {
            decoder.feed(line);
            reports += frames(&mut decoder).len();
            assert!(decoder.buffered() <= MAX_HEADERS + line.len());
        }
        assert_eq!(reports, 1, "one report for one bad block");
        decoder.feed(&encode(PING.as_bytes()));
        assert_eq!(frames(&mut decoder), vec![body(PING)]);
    }

    #[test]
    fn a_body_over_the_limit_is_skipped_without_being_held() {
        let mut decoder = Decoder::new(100);
        decoder.feed(b"Content-Length: 5000\r\n\r\n");
        assert_eq!(frames(&mut decoder), vec![Frame::TooLarge(5000)]);
        for _ in 0..50 {
            decoder.feed(&[b'x'; 100]);
            assert_eq!(frames(&mut decoder), vec![]);
            assert_eq!(decoder.buffered(), 0);
        }
        decoder.feed(&encode(PING.as_bytes()));
        assert_eq!(frames(&mut decoder), vec![body(PING)]);
    }

    #[test]
    fn good_messages_pass() {
        for message in [
            PING,
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
        ] {
            assert!(check(message.as_bytes()).is_ok(), "{message}");
        }
    }

    #[test]
    fn unreadable_bodies_are_parse_errors_with_a_null_id() {
        let deep = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let cases: [&[u8]; 4] = [
            b"",
            b"not json",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,",
        ];
        for body in cases {
            let reply = error_of(&check(body).expect_err("refused"));
            assert_eq!(reply["error"]["code"], -32700, "{reply}");
            assert_eq!(reply["id"], Value::Null, "{reply}");
        }
        // Too deep to parse, but its id is read from the top level: the request is answered.
        let reply = error_of(&check(deep.as_bytes()).expect_err("refused"));
        assert_eq!(reply["error"]["code"], -32700, "{reply}");
        assert_eq!(reply["id"], 1, "{reply}");
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
            (
                r#"{"jsonrpc":"1.0","id":"a","method":"x"}"#,
                "a".into(),
                "jsonrpc",
            ),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#,
                Value::Null,
                "batch",
            ),
            (r#"[]"#, Value::Null, "batch"),
            (r#"42"#, Value::Null, "object"),
        ];
        for (message, id, mentions) in cases {
            let reply = error_of(&check(message.as_bytes()).expect_err(message));
            assert_eq!(reply["error"]["code"], -32600, "{message}: {reply}");
            assert_eq!(reply["id"], id, "{message}: {reply}");
            let text = reply["error"]["message"].as_str().unwrap();
            assert!(text.contains(mentions), "{message}: {text}");
        }
    }

    #[tokio::test]
    async fn the_relay_answers_bad_frames_and_passes_good_ones() {
        let (mut client, stdin) = tokio::io::duplex(1 << 16);
        let (stdout, mut editor) = tokio::io::duplex(1 << 16);
        let (mut library_in, mut library_out, relay) = relay(Box::pin(stdin), Box::pin(stdout));
        client.write_all(&encode(b"nonsense")).await.unwrap();
        client.write_all(&encode(PING.as_bytes())).await.unwrap();
        drop(client);
        let mut seen = Vec::new();
        library_in.read_to_end(&mut seen).await.unwrap();
        assert_eq!(
            seen,
            encode(PING.as_bytes()),
            "only the good frame, at the end of input"
        );
        library_out.write_all(&encode(b"{\"x\":1}")).await.unwrap();
        drop(library_out);
        drop(library_in);
        relay.finish().await;
        let mut out = Vec::new();
        editor.read_to_end(&mut out).await.unwrap();
        let mut decoder = Decoder::default();
        decoder.feed(&out);
        let mut bodies: Vec<Value> = frames(&mut decoder)
            .into_iter()
            .map(|f| match f {
                Frame::Body(b) => serde_json::from_slice(&b).unwrap(),
                other => panic!("{other:?}"),
            })
            .collect();
        bodies.sort_by_key(|v| v.to_string());
        assert_eq!(bodies.len(), 2, "{bodies:?}");
        assert!(
            bodies.iter().any(|b| b["error"]["code"] == -32700),
            "{bodies:?}"
        );
        assert!(bodies.iter().any(|b| b["x"] == 1), "{bodies:?}");
    }
}

/// Arbitrary input never panics the reader, and the frames do not depend on how the bytes came.
#[cfg(test)]
mod props {
    use proptest::prelude::*;

    use super::*;

    /// Pieces that reach every state: headers good and bad, terminators, bodies, plain noise.
    fn stream() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"Content-Length: ".to_vec()),
            Just(b"content-length:3".to_vec()),
            Just(b"Content-Type: x\r\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\r\n\r\n".to_vec()),
            (0usize..300).prop_map(|n| n.to_string().into_bytes()),
            Just(br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#.to_vec()),
            prop::collection::vec(any::<u8>(), 0..40),
        ];
        prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
    }

    fn decode_in(input: &[u8], cuts: &[usize], max_frame: usize) -> Vec<Frame> {
        let mut decoder = Decoder::new(max_frame);
        let mut out = Vec::new();
        let mut at = 0;
        let mut biggest = 0;
        for &cut in cuts.iter().chain([&input.len()]) {
            let cut = cut.clamp(at, input.len());
            decoder.feed(&input[at..cut]);
            biggest = biggest.max(cut - at);
            at = cut;
            out.extend(std::iter::from_fn(|| decoder.next_frame()));
            assert!(
                decoder.buffered() <= (MAX_HEADERS + 4).max(max_frame) + biggest,
                "holds {} bytes",
                decoder.buffered()
            );
        }
        out
    }

    proptest! {
        #[test]
        fn any_bytes_in_any_chunks_give_the_same_frames(
            input in prop_oneof![stream(), prop::collection::vec(any::<u8>(), 0..2000)],
            mut cuts in prop::collection::vec(0usize..2000, 0..20),
            max_frame in 0usize..200,
        ) {
            cuts.sort_unstable();
            let whole = decode_in(&input, &[], max_frame);
            let chunked = decode_in(&input, &cuts, max_frame);
            prop_assert_eq!(&whole, &chunked);
            for frame in whole {
                if let Frame::Body(body) = frame {
                    let _ = check(&body);
                }
            }
        }

        #[test]
        fn check_never_panics(body in prop::collection::vec(any::<u8>(), 0..500)) {
            let _ = check(&body);
        }

        #[test]
        fn good_frames_come_out_whole_after_any_garbage(
            garbage in prop::collection::vec(any::<u8>(), 0..500),
            bodies in prop::collection::vec(".{0,60}", 1..5),
            mut cuts in prop::collection::vec(0usize..1000, 0..10),
        ) {
            // Garbage cannot hold a header we take; everything after it must come through.
            prop_assume!(!String::from_utf8_lossy(&garbage).to_lowercase().contains("content-length"));
            let mut input = garbage;
            for body in &bodies {
                input.extend(encode(body.as_bytes()));
            }
            cuts.sort_unstable();
            let frames = decode_in(&input, &cuts, MAX_FRAME);
            let tail: Vec<Frame> = bodies
                .iter()
                .map(|b| Frame::Body(Bytes::copy_from_slice(b.as_bytes())))
                .collect();
            prop_assert!(frames.ends_with(&tail), "{:?}", frames);
        }
    }
}
