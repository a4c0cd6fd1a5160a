//! LSP's framing: each body behind a `Content-Length` header block.

use bytes::{Buf, BytesMut};
use memchr::memmem;

use super::{Frame, Framing};

/// The largest body taken: a bigger one is answered with an error and its bytes are skipped
/// as they come, never buffered. 64 MiB holds any document an editor would open.
pub const MAX_FRAME: usize = 64 << 20;

/// The longest header block: real ones are under 100 bytes.
const MAX_HEADERS: usize = 8 << 10;

const CONTENT_LENGTH: &[u8] = b"Content-Length";

enum State {
    Headers,
    Body(usize),
    /// Bytes of a too large body still to drop.
    Skip(usize),
    /// After a bad header: drop bytes up to the next `Content-Length`.
    Resync,
}

/// Splits an LSP byte stream into frames. Holds at most one header block or one body (up to the
/// limit) plus what was fed since the last [`Framing::next_frame`].
pub struct ContentLength {
    buf: BytesMut,
    state: State,
    max_frame: usize,
}

impl Default for ContentLength {
    fn default() -> Self {
        Self::new(MAX_FRAME)
    }
}

impl ContentLength {
    pub fn new(max_frame: usize) -> Self {
        Self {
            buf: BytesMut::new(),
            state: State::Headers,
            max_frame,
        }
    }

    /// Skips past the start of a bad header block: the next frame starts at the next
    /// `Content-Length` (which may be inside this block, after a stray line).
    fn bad_header(&mut self, why: String) -> Frame {
        self.buf.advance(1);
        self.state = State::Resync;
        Frame::Skipped(format!(
            "bad frame header: {why}; skipped to the next Content-Length"
        ))
    }
}

impl Framing for ContentLength {
    const BATCH_HINT: &'static str = "send each message in its own frame";

    fn feed(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    #[cfg(test)]
    fn buffered(&self) -> usize {
        self.buf.len()
    }

    fn next_frame(&mut self) -> Option<Frame> {
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
                                return Some(Frame::Skipped(format!(
                                    "a message of {len} bytes is over the limit of {} bytes; \
                                     skipped it",
                                    self.max_frame
                                )));
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

    fn encode(body: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        out.extend_from_slice(body);
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

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;

    pub(crate) fn encode(body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        ContentLength::encode(body, &mut out);
        out
    }

    fn frames(decoder: &mut ContentLength) -> Vec<Frame> {
        std::iter::from_fn(|| decoder.next_frame()).collect()
    }

    fn decode(input: &[u8]) -> Vec<Frame> {
        let mut decoder = ContentLength::new(1024);
        decoder.feed(input);
        frames(&mut decoder)
    }

    fn body(text: &str) -> Frame {
        Frame::Body(Bytes::copy_from_slice(text.as_bytes()))
    }

    fn skipped(frame: Option<&Frame>, mentions: &str) -> bool {
        matches!(frame, Some(Frame::Skipped(why)) if why.contains(mentions))
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
            let mut decoder = ContentLength::default();
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
        assert!(skipped(got.first(), "no Content-Length"), "{got:?}");
        assert_eq!(got[1..], [body(PING)]);
    }

    #[test]
    fn a_stray_line_before_a_header_costs_one_error_not_the_frame() {
        let input = format!("garbage\r\nContent-Length: {}\r\n\r\n{PING}", PING.len());
        let got = decode(input.as_bytes());
        assert!(skipped(got.first(), "bad frame header"), "{got:?}");
        assert_eq!(got[1..], [body(PING)]);
    }

    #[test]
    fn bad_lengths_are_reported() {
        for header in [
            "Content-Length: -1",
            "Content-Length: 1e3",
            "Content-Length: 99999999999999999999999",
            "Content-Length: 1\r\nContent-Length: 2",
            "Content-Length: \u{e9}",
        ] {
            let got = decode(format!("{header}\r\n\r\n{{}}").as_bytes());
            // The block is reported; what follows is read from the next Content-Length on.
            assert!(
                skipped(got.first(), "bad frame header"),
                "{header}: {got:?}"
            );
        }
    }

    #[test]
    fn endless_headers_are_cut_off_and_not_buffered() {
        let mut decoder = ContentLength::default();
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
        let mut decoder = ContentLength::new(100);
        decoder.feed(b"Content-Length: 5000\r\n\r\n");
        let got = frames(&mut decoder);
        assert!(
            skipped(got.first(), "5000 bytes is over the limit of 100"),
            "{got:?}"
        );
        for _ in 0..50 {
            decoder.feed(&[b'x'; 100]);
            assert_eq!(frames(&mut decoder), vec![]);
            assert_eq!(decoder.buffered(), 0);
        }
        decoder.feed(&encode(PING.as_bytes()));
        assert_eq!(frames(&mut decoder), vec![body(PING)]);
    }

    #[test]
    fn a_body_that_is_not_utf8_is_still_a_frame() {
        // The framing counts bytes; whether they are a message is the parse's to say.
        let input = encode(b"\xff\xfe{}");
        assert_eq!(
            decode(&input),
            vec![Frame::Body(Bytes::from_static(b"\xff\xfe{}"))]
        );
    }
}

/// Arbitrary input never panics the reader, and the frames do not depend on how the bytes came.
#[cfg(test)]
mod props {
    use bytes::Bytes;
    use proptest::prelude::*;

    use super::super::tests::frames_in_any_chunks;
    use super::tests::encode;
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

    proptest! {
        #[test]
        fn any_bytes_in_any_chunks_give_the_same_frames(
            input in prop_oneof![stream(), prop::collection::vec(any::<u8>(), 0..2000)],
            cuts in prop::collection::vec(0usize..2000, 0..20),
            max_frame in 0usize..200,
        ) {
            let new = || ContentLength::new(max_frame);
            frames_in_any_chunks(new, &input, cuts, (MAX_HEADERS + 4).max(max_frame));
        }

        #[test]
        fn good_frames_come_out_whole_after_any_garbage(
            garbage in prop::collection::vec(any::<u8>(), 0..500),
            bodies in prop::collection::vec(".{0,60}", 1..5),
            cuts in prop::collection::vec(0usize..1000, 0..10),
        ) {
            // Garbage cannot hold a header we take; everything after it must come through.
            prop_assume!(!String::from_utf8_lossy(&garbage).to_lowercase().contains("content-length"));
            let mut input = garbage;
            for body in &bodies {
                input.extend(encode(body.as_bytes()));
            }
            let frames = frames_in_any_chunks(ContentLength::default, &input, cuts, MAX_FRAME);
            let tail: Vec<Frame> = bodies
                .iter()
                .map(|b| Frame::Body(Bytes::copy_from_slice(b.as_bytes())))
                .collect();
            prop_assert!(frames.ends_with(&tail), "{:?}", frames);
        }
    }
}
