//! A stdio server's output with its long JSON strings cut as they stream in.
//!
//! rmcp drops a stdio message longer than 16 MiB without a word, so a tool call whose result is
//! that long would wait for the call's timeout (5 minutes). Every such message is a JSON-RPC
//! line whose bulk is strings (a result's text), so strings are cut here, before rmcp frames the
//! line: the first [`KEEP`] bytes of each string stay (at a character boundary, never inside an
//! escape or between the halves of a surrogate pair), the rest is replaced by a note, and the
//! line stays valid JSON with its id. Once a line has brought [`LINE_BUDGET`] bytes, its further
//! strings keep only [`KEEP_OVER_BUDGET`] bytes (object keys and ids are shorter). The result is
//! then cut to the hub's bound as any other (with its own note).

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// What stays of one string: every result rmcp would take whole stays whole (and is cut, with
/// its true length named, by the hub), a longer one keeps this much.
pub const KEEP: usize = 8 * 1024 * 1024;
/// Bytes of a line after which strings are cut to [`KEEP_OVER_BUDGET`]: with [`KEEP`], a line
/// stays under rmcp's 16 MiB.
pub const LINE_BUDGET: usize = 6 * 1024 * 1024;
pub const KEEP_OVER_BUDGET: usize = 256;

/// The start of the note that ends a cut string; the rest names the sizes:
/// `[cut by Tandem: a string of N bytes, over the M bytes kept]`. The hub turns a result that
/// holds it into a tool error naming them ([`crate::result::render`]).
pub const NOTE: &str = " [cut by Tandem: a string of ";

/// The note that ends a string of `total` bytes (as sent, escapes counted) of which `kept`
/// passed.
pub fn note(total: usize, kept: usize) -> String {
    format!("{NOTE}{total} bytes, over the {kept} bytes kept]")
}

/// Where the scanner is in the JSON text.
#[derive(Default)]
struct Scan {
    in_string: bool,
    /// After a backslash inside a string.
    escape: bool,
    /// Hex digits of a `\u` escape still to come.
    hex_left: u8,
    hex: u16,
    /// The last escape was a high surrogate: its low half must follow.
    high_surrogate: bool,
    /// Bytes of the current string passed on.
    kept: usize,
    /// Dropping the rest of the current string.
    skipping: bool,
    /// Bytes of the current string dropped.
    skipped: usize,
    /// Bytes of the current line passed on.
    line: usize,
}

impl Scan {
    fn limit(&self) -> usize {
        if self.line > LINE_BUDGET {
            KEEP_OVER_BUDGET
        } else {
            KEEP
        }
    }

    /// Passes `input` on into `out`, cut.
    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) {
        let start = out.len();
        for &c in input {
            self.byte(c, out);
        }
        self.line += out.len() - start;
    }

    fn byte(&mut self, c: u8, out: &mut Vec<u8>) {
        if c == b'\n' {
            // A raw newline never occurs inside a JSON string: a new message starts.
            *self = Scan::default();
            out.push(c);
            return;
        }
        if !self.in_string {
            if c == b'"' {
                self.in_string = true;
                self.kept = 0;
            }
            out.push(c);
            return;
        }
        if self.skipping {
            if self.escape {
                self.escape = false;
            } else if c == b'\\' {
                self.escape = true;
            } else if c == b'"' {
                out.extend_from_slice(note(self.kept + self.skipped, self.kept).as_bytes());
                out.push(c);
                self.in_string = false;
                self.skipping = false;
                return;
            }
            self.skipped += 1;
            return;
        }
        if self.hex_left > 0 {
            self.hex_left -= 1;
            self.hex = (self.hex << 4) | u16::from((c as char).to_digit(16).unwrap_or(0) as u8);
            if self.hex_left == 0 {
                self.high_surrogate = (0xd800..0xdc00).contains(&self.hex);
            }
            self.pass(c, out);
            return;
        }
        if self.escape {
            self.escape = false;
            if c == b'u' {
                self.hex_left = 4;
                self.hex = 0;
            }
            self.pass(c, out);
            return;
        }
        let boundary = c != b'"' && c & 0xc0 != 0x80 && !(self.high_surrogate && c == b'\\');
        if boundary && self.kept >= self.limit() {
            self.skipping = true;
            self.skipped = 1;
            self.escape = c == b'\\';
            return;
        }
        self.high_surrogate = false;
        match c {
            b'"' => {
                self.in_string = false;
                out.push(c);
            }
            b'\\' => {
                self.escape = true;
                self.pass(c, out);
            }
            _ => self.pass(c, out),
        }
    }

    fn pass(&mut self, c: u8, out: &mut Vec<u8>) {
        self.kept += 1;
        out.push(c);
    }
}

/// An `AsyncRead` whose JSON strings are cut (see the module).
pub struct Shorten<R> {
    inner: R,
    scan: Scan,
    /// Cut bytes not yet handed out.
    pending: Vec<u8>,
    at: usize,
}

impl<R> Shorten<R> {
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            scan: Scan::default(),
            pending: Vec::new(),
            at: 0,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Shorten<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.at < this.pending.len() {
                let n = (this.pending.len() - this.at).min(buf.remaining());
                buf.put_slice(&this.pending[this.at..this.at + n]);
                this.at += n;
                return Poll::Ready(Ok(()));
            }
            let mut raw = [0u8; 64 * 1024];
            let mut raw_buf = ReadBuf::new(&mut raw);
            match Pin::new(&mut this.inner).poll_read(cx, &mut raw_buf) {
                Poll::Ready(Ok(())) if raw_buf.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => {
                    this.pending.clear();
                    this.at = 0;
                    this.scan.feed(raw_buf.filled(), &mut this.pending);
                    // A whole read may have been dropped (inside a long string): read on.
                }
                other => return other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn shorten(text: &str, chunk: usize) -> String {
        let mut scan = Scan::default();
        let mut out = Vec::new();
        for part in text.as_bytes().chunks(chunk) {
            scan.feed(part, &mut out);
        }
        String::from_utf8(out).expect("still UTF-8")
    }

    #[test]
    fn a_long_string_is_cut_and_the_message_stays_json_with_its_id() {
        let long = "é\"\\\u{1F600}".repeat(KEEP / 4);
        let message = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [
            {"type": "text", "text": long}]}});
        let text = message.to_string();
        for chunk in [7, 64 * 1024] {
            let out = shorten(&format!("{text}\n"), chunk);
            let back: Value = serde_json::from_str(out.trim_end()).expect("valid JSON");
            assert_eq!(back["id"], 3);
            let cut = back["result"]["content"][0]["text"].as_str().unwrap();
            let at = cut.find(NOTE).expect("the note");
            // The true size, escapes counted as sent.
            let sent = serde_json::to_string(&long).unwrap().len() - 2;
            assert!(
                cut[at..].starts_with(&format!("{NOTE}{sent} bytes, over the ")),
                "{chunk}: {}",
                &cut[at..]
            );
            assert!(cut.len() < KEEP + 100, "{}", cut.len());
            assert!(long.starts_with(&cut[..at]));
        }
    }

    #[test]
    fn short_messages_pass_unchanged_and_many_strings_share_a_budget() {
        let small = r#"{"jsonrpc":"2.0","id":"a\"b","result":{"x":["\u00e9\ud83d\ude00",1,true]}}"#;
        assert_eq!(
            shorten(&format!("{small}\n{small}\n"), 3),
            format!("{small}\n{small}\n")
        );
        let parts: Vec<String> = (0..4).map(|_| "y".repeat(KEEP - 10)).collect();
        let text = json!({"jsonrpc": "2.0", "id": 9, "result": parts}).to_string();
        let out = shorten(&text, 4096);
        // Under rmcp's 16 MiB line limit.
        assert!(out.len() < 16 * 1024 * 1024, "{}", out.len());
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back["id"], 9);
        assert_eq!(back["result"].as_array().unwrap().len(), 4);
    }
}
