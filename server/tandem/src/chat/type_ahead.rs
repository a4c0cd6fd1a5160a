//! What the user typed while the chat asked the terminal its background: read with the
//! terminal's answer, so handed to the prompts as if typed there (whole lines sent, the rest
//! waiting in the first prompt's line), never to a question.

use std::collections::VecDeque;

#[derive(Debug, Default, PartialEq)]
pub struct TypeAhead {
    lines: VecDeque<String>,
    partial: String,
    /// Ctrl-C, or Ctrl-D on an empty line: the chat quits after the lines before it.
    ended: bool,
}

impl TypeAhead {
    /// Keys as the terminal sent them without line editing: Enter ends a line, Backspace and
    /// Ctrl-U edit it, other control keys are dropped.
    pub fn from_keys(keys: &[u8]) -> TypeAhead {
        let mut typed = TypeAhead::default();
        typed.push_keys(keys);
        typed
    }

    /// More keys, going on from the half line already held.
    pub fn push_keys(&mut self, keys: &[u8]) {
        let typed = self;
        if typed.ended {
            return;
        }
        for c in String::from_utf8_lossy(keys).chars() {
            match c {
                '\r' | '\n' => {
                    let line = std::mem::take(&mut typed.partial);
                    typed.lines.push_back(line);
                }
                '\x7f' | '\x08' => {
                    typed.partial.pop();
                }
                '\x15' => typed.partial.clear(),
                '\x03' => typed.ended = true,
                '\x04' if typed.partial.is_empty() => typed.ended = true,
                '\t' => typed.partial.push(c),
                c if c.is_control() => {}
                c => typed.partial.push(c),
            }
            if typed.ended {
                typed.partial.clear();
                break;
            }
        }
    }

    /// The next prompt's answer when it was typed ahead: `Some(Some(line))`, or `Some(None)` to
    /// quit; `None` when no whole line is left.
    pub fn next_line(&mut self) -> Option<Option<String>> {
        match self.lines.pop_front() {
            Some(line) => Some(Some(line)),
            None if self.ended => Some(None),
            None => None,
        }
    }

    /// The start of a line typed ahead, for the prompt to go on from (once).
    pub fn take_partial(&mut self) -> String {
        std::mem::take(&mut self.partial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_lines_go_first_then_the_half_line() {
        let mut t = TypeAhead::from_keys("Go\rand thé\x7fen mor".as_bytes());
        assert_eq!(t.next_line(), Some(Some("Go".to_string())));
        assert_eq!(t.next_line(), None);
        assert_eq!(t.take_partial(), "and then mor");
        assert_eq!(t.take_partial(), "");
        assert_eq!(
            TypeAhead::from_keys(b"x\x15y\x01\n").next_line(),
            Some(Some("y".into()))
        );
    }

    #[test]
    fn ctrl_c_or_ctrl_d_on_an_empty_line_quits_after_the_lines_before() {
        let mut t = TypeAhead::from_keys(b"one\nhalf\x03never");
        assert_eq!(t.next_line(), Some(Some("one".to_string())));
        assert_eq!(t.next_line(), Some(None));
        assert_eq!(t.take_partial(), "");
        assert_eq!(TypeAhead::from_keys(b"\x04").next_line(), Some(None));
        // Ctrl-D inside a line deletes, as the line editor's does: not a quit.
        assert_eq!(TypeAhead::from_keys(b"ab\x04").next_line(), None);
        assert_eq!(TypeAhead::from_keys(b""), TypeAhead::default());
    }

    #[test]
    fn keys_pushed_later_go_on_from_the_half_line() {
        let mut t = TypeAhead::from_keys(b"/ex");
        t.push_keys(b"it\nnext");
        assert_eq!(t.next_line(), Some(Some("/exit".to_string())));
        assert_eq!(t.take_partial(), "next");
        let mut quit = TypeAhead::from_keys(b"\x03");
        quit.push_keys(b"more\n");
        assert_eq!(quit.next_line(), Some(None));
    }
}
