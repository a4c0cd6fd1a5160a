//! ACP's framing: one message a line (`\n` or `\r\n`); blank lines are passed over.

use bytes::BytesMut;

use super::{Frame, Framing};

/// The longest line taken: a longer one is answered with an error and dropped as it comes,
/// never buffered. 64 MiB holds any prompt with its embedded files.
pub const MAX_LINE: usize = 64 << 20;

/// Splits a byte stream into lines. Holds at most one line (up to the limit) plus what was fed
/// since the last [`Framing::next_frame`].
pub struct Lines {
    buf: BytesMut,
    /// How much of `buf` is known to hold no newline.
    scanned: usize,
    /// Dropping the rest of a too long line.
    discarding: bool,
    max_line: usize,
}

impl Default for Lines {
    fn default() -> Self {
        Self::new(MAX_LINE)
    }
}

impl Lines {
    pub fn new(max_line: usize) -> Self {
        Self {
            buf: BytesMut::new(),
            scanned: 0,
            discarding: false,
            max_line,
        }
    }

    fn too_long(&self) -> Frame {
        Frame::Skipped(format!(
            "a line over the limit of {} bytes; dropped it",
            self.max_line
        ))
    }
}

impl Framing for Lines {
    const BATCH_HINT: &'static str = "send each message on its own line";

    fn feed(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    #[cfg(test)]
    fn buffered(&self) -> usize {
        self.buf.len()
    }

    fn next_frame(&mut self) -> Option<Frame> {
        loop {
            let Some(at) = memchr::memchr(b'\n', &self.buf[self.scanned..]) else {
                if self.discarding {
                    self.buf.clear();
                } else if self.buf.len() > self.max_line + 1 {
                    // (+1: a line of the limit may still end in `\r\n`.)
                    self.buf.clear();
                    self.discarding = true;
                    self.scanned = 0;
                    return Some(self.too_long());
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
                return Some(self.too_long());
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(Frame::Body(line.freeze()));
        }
    }

    fn encode(body: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(body);
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;

    fn lines(decoder: &mut Lines) -> Vec<Frame> {
        std::iter::from_fn(|| decoder.next_frame()).collect()
    }

    fn text(s: &str) -> Frame {
        Frame::Body(Bytes::copy_from_slice(s.as_bytes()))
    }

    fn too_long(max_line: usize) -> Frame {
        Lines::new(max_line).too_long()
    }

    const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

    #[test]
    fn splits_lines_on_lf_and_crlf_and_passes_over_blank_ones() {
        let mut decoder = Lines::new(1024);
        decoder.feed(b"a\r\n \t\r\n\nb\nc");
        assert_eq!(lines(&mut decoder), vec![text("a"), text("b")]);
        decoder.feed(b"d\n");
        assert_eq!(lines(&mut decoder), vec![text("cd")]);
    }

    #[test]
    fn a_long_line_is_reported_once_and_not_held() {
        let mut decoder = Lines::new(100);
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
        let mut decoder = Lines::new(10);
        decoder.feed(b"0123456789abc\nok\n");
        assert_eq!(lines(&mut decoder), vec![too_long(10), text("ok")]);
        assert!(matches!(too_long(10), Frame::Skipped(why) if why.contains("limit of 10 bytes")));
    }

    #[test]
    fn a_line_that_is_not_utf8_is_still_a_frame() {
        let mut decoder = Lines::new(10);
        decoder.feed(b"\xff\xfe\nok\n");
        assert_eq!(
            lines(&mut decoder),
            vec![Frame::Body(Bytes::from_static(b"\xff\xfe")), text("ok")]
        );
    }
}

/// Arbitrary input never panics the reader, and the lines do not depend on how the bytes came.
#[cfg(test)]
mod props {
    use bytes::Bytes;
    use proptest::prelude::*;

    use super::super::tests::frames_in_any_chunks;
    use super::*;

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b" ".to_vec()),
            Just(br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#.to_vec()),
            prop::collection::vec(any::<u8>(), 0..40),
        ];
        prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn any_bytes_in_any_chunks_give_the_same_lines(
            input in bytes(),
            cuts in prop::collection::vec(0usize..2000, 0..20),
            max_line in 0usize..100,
        ) {
            frames_in_any_chunks(|| Lines::new(max_line), &input, cuts, max_line + 1);
        }

        #[test]
        fn good_lines_come_out_whole_after_any_garbage(
            garbage in prop::collection::vec(any::<u8>(), 0..500),
            messages in prop::collection::vec("[^\r\n]{0,60}", 1..5),
            cuts in prop::collection::vec(0usize..1000, 0..10),
        ) {
            let mut input = garbage;
            input.push(b'\n');
            for message in &messages {
                input.extend(message.as_bytes());
                input.push(b'\n');
            }
            let lines = frames_in_any_chunks(|| Lines::new(1000), &input, cuts, 1001);
            // Blank lines are passed over.
            let tail: Vec<Frame> = messages
                .iter()
                .filter(|m| !m.bytes().all(|b| b.is_ascii_whitespace()))
                .map(|m| Frame::Body(Bytes::copy_from_slice(m.as_bytes())))
                .collect();
            prop_assert!(lines.ends_with(&tail), "{:?}", lines);
        }
    }
}
