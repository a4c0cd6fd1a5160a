//! An incremental Server-Sent Events decoder: bytes in, events out.
//!
//! Follows the WHATWG event-stream rules that model APIs rely on: `event:` names, `data:` lines
//! joined with `\n`, `:` comments, `\n` / `\r\n` / `\r` line ends, and chunk boundaries anywhere
//! (even inside a UTF-8 sequence or between `\r` and `\n`). `id:` and `retry:` are ignored: a model
//! answer is never resumed. Unlike a browser, [`SseDecoder::finish`] also delivers a last event
//! that lacks its closing blank line, because some servers end the body right after it.
//!
//! This is on the hot path (one event per streamed token), so it never allocates per event or per
//! byte: complete lines are read straight from the caller's chunk, and only a line split across
//! two chunks is copied, into a buffer that is reused.

use memchr::{memchr, memchr2};

/// One event. It borrows the decoder's buffers, so it is only valid inside the callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The `event:` field, or `"message"` when the event named none.
    pub event: &'a str,
    /// The `data:` lines, joined with `\n`.
    pub data: &'a str,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    /// The start of a line whose end has not arrived yet (raw bytes: it may stop mid-UTF-8).
    partial: Vec<u8>,
    /// The last chunk ended with `\r`: a `\n` opening the next chunk ends the same line.
    after_cr: bool,
    /// At least one line was read (a UTF-8 byte order mark is only skipped before the first).
    started: bool,
    event: String,
    data: String,
    has_data: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes one chunk of the body, calling `on_event` for each event it completes. An error
    /// from `on_event` stops decoding and is returned; the decoder should then be dropped.
    pub fn feed<E>(
        &mut self,
        mut chunk: &[u8],
        mut on_event: impl FnMut(SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
        }
        while let Some(end) = memchr2(b'\n', b'\r', chunk) {
            if self.partial.is_empty() {
                self.line(&chunk[..end], &mut on_event)?;
            } else {
                self.partial.extend_from_slice(&chunk[..end]);
                self.flush_partial(&mut on_event)?;
            }
            let was_cr = chunk[end] == b'\r';
            chunk = &chunk[end + 1..];
            if was_cr {
                match chunk.first() {
                    Some(b'\n') => chunk = &chunk[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.partial.extend_from_slice(chunk);
        Ok(())
    }

    /// Bytes held for an event not complete yet (a line without its end, the `data:` so far).
    pub fn buffered(&self) -> usize {
        self.partial.len() + self.data.len() + self.event.len()
    }

    /// Ends the body: a last line without a line end, and a last event without its blank line,
    /// are delivered.
    pub fn finish<E>(
        &mut self,
        mut on_event: impl FnMut(SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.after_cr = false;
        if !self.partial.is_empty() {
            self.flush_partial(&mut on_event)?;
        }
        self.dispatch(&mut on_event)
    }

    fn flush_partial<E>(
        &mut self,
        on_event: &mut impl FnMut(SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        // Taken out and put back so the buffer keeps its capacity.
        let line = std::mem::take(&mut self.partial);
        let result = self.line(&line, on_event);
        self.partial = line;
        self.partial.clear();
        result
    }

    fn line<E>(
        &mut self,
        mut line: &[u8],
        on_event: &mut impl FnMut(SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if !self.started {
            self.started = true;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch(on_event);
        }
        let (name, value) = match memchr(b':', line) {
            Some(0) => return Ok(()), // a comment, e.g. a keep-alive
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.has_data = true;
                push_utf8(&mut self.data, value);
            }
            b"event" => {
                self.event.clear();
                push_utf8(&mut self.event, value);
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch<E>(
        &mut self,
        on_event: &mut impl FnMut(SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let result = if self.has_data {
            let event = if self.event.is_empty() {
                "message"
            } else {
                &self.event
            };
            on_event(SseEvent {
                event,
                data: &self.data,
            })
        } else {
            Ok(())
        };
        self.event.clear();
        self.data.clear();
        self.has_data = false;
        result
    }
}

/// Lines are only split at ASCII bytes, so a whole line is valid UTF-8 unless the server sent
/// invalid bytes, which become U+FFFD as the SSE standard says.
fn push_utf8(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => out.push_str(text),
        Err(_) => out.push_str(&String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes `body` fed in chunks of `size` bytes into (event, data) pairs.
    fn decode(body: &[u8], size: usize) -> Vec<(String, String)> {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        let mut collect = |e: SseEvent<'_>| -> Result<(), ()> {
            events.push((e.event.to_owned(), e.data.to_owned()));
            Ok(())
        };
        for chunk in body.chunks(size.max(1)) {
            decoder.feed(chunk, &mut collect).unwrap();
        }
        decoder.finish(&mut collect).unwrap();
        events
    }

    /// Every chunking of `body` gives `expected`.
    fn check(body: &str, expected: &[(&str, &str)]) {
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(e, d)| (e.to_string(), d.to_string()))
            .collect();
        for size in [usize::MAX, 1, 2, 3, 5, 7] {
            assert_eq!(decode(body.as_bytes(), size), expected, "chunk size {size}");
        }
    }

    #[test]
    fn data_events_with_names_and_defaults() {
        check(
            "data: {\"a\":1}\n\nevent: ping\ndata: {}\n\n",
            &[("message", "{\"a\":1}"), ("ping", "{}")],
        );
    }

    #[test]
    fn multi_line_data_is_joined_with_newlines() {
        check(
            "data: one\ndata:two\ndata\n\n",
            &[("message", "one\ntwo\n")],
        );
    }

    #[test]
    fn all_three_line_endings() {
        check(
            "data: a\r\n\r\ndata: b\r\rdata: c\n\nevent: x\r\ndata: d\r\n\r\n",
            &[
                ("message", "a"),
                ("message", "b"),
                ("message", "c"),
                ("x", "d"),
            ],
        );
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored() {
        check(
            ": OPENROUTER PROCESSING\n\nid: 7\nretry: 10\nfoo: bar\ndata: x\n\n:\n\n",
            &[("message", "x")],
        );
    }

    #[test]
    fn events_without_data_are_not_dispatched_and_reset_the_name() {
        check("event: a\n\ndata: b\n\n", &[("message", "b")]);
    }

    #[test]
    fn utf8_split_across_chunks() {
        check(
            "data: Hello 😊 ’quoted’\n\n",
            &[("message", "Hello 😊 ’quoted’")],
        );
    }

    #[test]
    fn last_event_without_blank_line_is_flushed_at_end() {
        check(
            "data: a\n\ndata: [DONE]",
            &[("message", "a"), ("message", "[DONE]")],
        );
        check(
            "data: a\n\ndata: b\n",
            &[("message", "a"), ("message", "b")],
        );
        check("data: a\r", &[("message", "a")]);
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        check("\u{FEFF}data: a\n\n", &[("message", "a")]);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        assert_eq!(
            decode(b"data: a\xFFb\n\n", 1),
            vec![("message".to_owned(), "a\u{FFFD}b".to_owned())]
        );
    }

    #[test]
    fn an_error_from_the_callback_stops_decoding() {
        let mut decoder = SseDecoder::new();
        let mut seen = 0;
        let result = decoder.feed(b"data: 1\n\ndata: 2\n\n", |_| {
            seen += 1;
            Err("stop")
        });
        assert_eq!(result, Err("stop"));
        assert_eq!(seen, 1);
    }
}
