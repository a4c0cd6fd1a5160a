//! The SEARCH/REPLACE block format of `replace_in_file`'s `diff` argument.
//!
//! ```text
//! ------- SEARCH
//! lines to find
//! =======
//! lines to put there
//! +++++++ REPLACE
//! ```
//!
//! The legacy `<<<<<<< SEARCH` / `>>>>>>> REPLACE` markers work too, a marker may end with a stray
//! `>`, and text outside blocks (a code fence, a remark) is ignored.

use crate::{ErrorKind, ToolError};

/// One SEARCH/REPLACE pair, lines without their endings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    /// 1-based, in the order the model wrote them.
    pub number: usize,
    pub search: Vec<String>,
    pub replace: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Search,
    Divider,
    Replace,
}

fn marker(line: &str) -> Option<Marker> {
    let line = line.trim();
    if line.len() >= 3 && line.bytes().all(|b| b == b'=') {
        return Some(Marker::Divider);
    }
    let line = line.strip_suffix('>').unwrap_or(line).trim_end();
    let (fence, word) =
        line.split_at(line.len() - line.trim_start_matches(['-', '<', '+', '>']).len());
    let word = word.trim();
    let fence_of = |c: u8| fence.len() >= 3 && fence.bytes().all(|b| b == c);
    match word {
        "SEARCH" if fence_of(b'-') || fence_of(b'<') => Some(Marker::Search),
        "REPLACE" if fence_of(b'+') || fence_of(b'>') => Some(Marker::Replace),
        _ => None,
    }
}

pub(crate) fn parse(diff: &str) -> Result<Vec<Block>, ToolError> {
    enum State {
        Outside,
        Search(Vec<String>),
        Replace(Vec<String>, Vec<String>),
    }
    let mut blocks = Vec::new();
    let mut state = State::Outside;
    for (i, raw) in diff.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let at = i + 1;
        let number = blocks.len() + 1;
        state = match (state, marker(line)) {
            (State::Outside, Some(Marker::Search)) => State::Search(Vec::new()),
            (State::Outside, Some(m)) => {
                return Err(invalid(format!(
                    "line {at} of diff: `{}` without a `------- SEARCH` line opening the block",
                    if m == Marker::Divider {
                        "======="
                    } else {
                        line.trim()
                    }
                )));
            }
            (State::Outside, None) => State::Outside,
            (State::Search(search), Some(Marker::Divider)) => State::Replace(search, Vec::new()),
            (State::Search(_), Some(_)) => {
                return Err(invalid(format!(
                    "line {at} of diff: block {number} has `{}` where its `=======` line should \
                     come first",
                    line.trim()
                )));
            }
            (State::Search(mut search), None) => {
                search.push(line.to_string());
                State::Search(search)
            }
            (State::Replace(search, replace), Some(Marker::Replace)) => {
                blocks.push(Block {
                    number,
                    search,
                    replace,
                });
                State::Outside
            }
            (State::Replace(_, _), Some(Marker::Search)) => {
                return Err(invalid(format!(
                    "line {at} of diff: block {number} is not closed with `+++++++ REPLACE` \
                     before the next `------- SEARCH`"
                )));
            }
            // A divider inside REPLACE is content (a heading underline, a conflict marker).
            (State::Replace(search, mut replace), _) => {
                replace.push(line.to_string());
                State::Replace(search, replace)
            }
        };
    }
    match state {
        State::Outside if !blocks.is_empty() => Ok(blocks),
        State::Outside => Err(invalid(
            "diff holds no SEARCH/REPLACE block. Each block is: a line `------- SEARCH`, the exact \
             lines to find, a line `=======`, the lines to put in their place, a line \
             `+++++++ REPLACE`."
                .to_string(),
        )),
        _ => Err(invalid(format!(
            "block {} is not closed: it needs `=======` and then `+++++++ REPLACE`",
            blocks.len() + 1
        ))),
    }
}

fn invalid(message: String) -> ToolError {
    ToolError::new(ErrorKind::Invalid, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::owned as lines;

    #[test]
    fn markers_new_legacy_and_stray_angle() {
        for (s, m) in [
            ("------- SEARCH", Some(Marker::Search)),
            ("<<<<<<< SEARCH", Some(Marker::Search)),
            ("------- SEARCH>", Some(Marker::Search)),
            ("=======", Some(Marker::Divider)),
            ("+++++++ REPLACE", Some(Marker::Replace)),
            (">>>>>>> REPLACE", Some(Marker::Replace)),
            ("+++++++ REPLACE>", Some(Marker::Replace)),
            ("------- REPLACE", None),
            ("-------", None),
            ("-- SEARCH", None),
            ("SEARCH", None),
        ] {
            assert!(marker(s) == m, "{s}");
        }
    }

    #[test]
    fn blocks_in_order_with_fences_ignored() {
        let diff = "```\n------- SEARCH\na\n=======\nb\n=======\n+++++++ REPLACE\n<<<<<<< SEARCH\nc\n=======\n>>>>>>> REPLACE\n```\n";
        let blocks = parse(diff).unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].search, lines(&["a"]));
        assert_eq!(blocks[0].replace, lines(&["b", "======="]));
        assert_eq!(blocks[1].number, 2);
        assert!(blocks[1].replace.is_empty());
    }

    #[test]
    fn crlf_diffs_parse_like_lf() {
        let blocks = parse("------- SEARCH\r\na\r\n=======\r\nb\r\n+++++++ REPLACE\r\n").unwrap();
        assert_eq!(blocks[0].search, lines(&["a"]));
        assert_eq!(blocks[0].replace, lines(&["b"]));
    }

    #[test]
    fn unpaired_markers_are_invalid() {
        for diff in [
            "",
            "just text",
            "=======\n",
            "+++++++ REPLACE\n",
            "------- SEARCH\na\n",
            "------- SEARCH\na\n=======\nb\n",
            "------- SEARCH\na\n+++++++ REPLACE\n",
            "------- SEARCH\na\n=======\nb\n------- SEARCH\n",
        ] {
            assert_eq!(
                parse(diff).unwrap_err().kind,
                ErrorKind::Invalid,
                "{diff:?}"
            );
        }
    }
}
