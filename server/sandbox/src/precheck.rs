//! Bytes the grammar and the shell may read differently, found in the raw line before it is
//! parsed: where they are, the line asks.
//!
//! tree-sitter-bash skips some bytes as blanks (its `extras`: `\s`, a backslash before a blank,
//! tab, VT or FF, a backslash-newline) where bash keeps them in a word. After one of them a `#`
//! starts a comment for the grammar but not for bash (`ls \ #; rm x` runs `rm x`), and a word
//! glued across one is two words for the grammar and one for bash (`r\<newline>m`). Patching
//! each shape would leave the next one open, so the check is coarse on purpose and runs on the
//! bytes, whatever the quoting:
//!
//! * any control character but tab and newline (CR, VT, FF, NUL, ESC, DEL, C1 controls), and
//!   any Unicode blank but space, tab and newline (NBSP, U+2028, the zero-width ones): bash
//!   takes them for word characters, the grammar for blanks;
//! * a backslash before a space or a tab (an escaped blank): the grammar may skip it;
//! * a backslash-newline that does not follow a blank, or is followed (after blanks) by `#` or
//!   by another backslash-newline: the grammar splits there, bash joins.
//!
//! Everyday lines keep `cargo test \` + newline + `  -p core` (a blank before, a word after).

/// Why `line` may be read differently by the grammar and the shell, if it may.
pub(crate) fn ambiguous(line: &str) -> Option<String> {
    if let Some(c) = line.chars().find(|c| odd_char(*c)) {
        return Some(format!(
            "the character U+{:04X} (the shell takes it as part of a word, the parser as a \
             blank)",
            c as u32
        ));
    }
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'\\' {
            continue;
        }
        match bytes.get(i + 1) {
            Some(b' ' | b'\t') => {
                return Some(
                    "a backslash before a blank (the parser may skip it where the shell keeps it \
                     in a word)"
                        .to_string(),
                );
            }
            Some(b'\n') => {
                let before_blank = i > 0 && matches!(bytes[i - 1], b' ' | b'\t');
                let next = bytes[i + 2..]
                    .iter()
                    .find(|b| !matches!(b, b' ' | b'\t'))
                    .copied();
                if !before_blank || matches!(next, Some(b'#' | b'\\')) {
                    return Some(
                        "a backslash-newline where the parser and the shell may split the words \
                         differently"
                            .to_string(),
                    );
                }
            }
            _ => {}
        }
    }
    None
}

/// A character bash keeps in a word that a parser may take for a blank.
fn odd_char(c: char) -> bool {
    match c {
        '\t' | '\n' | ' ' => false,
        c if c.is_control() || c.is_whitespace() => true,
        // Not White_Space for Rust, blank for some regex engines.
        '\u{180E}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::ambiguous;

    #[test]
    fn shapes_the_parser_and_bash_read_differently_are_found() {
        for line in [
            "ls \\ #; rm x",
            "ls \\\t#; rm x",
            "ls \\\x0b#; rm x",
            "ls \\\x0c#; rm x",
            "ls \r#; rm x",
            "ls \x0b#; rm x",
            "ls \x0c#; rm x",
            "ls x\\\n#; rm y",
            "ls x\\\r\n#; rm y",
            "ls \\\n#; rm y",
            "ls \\\n \\\n#x",
            "r\\\nm x",
            "ls\u{a0}#; rm x",
            "ls\u{2028}#; rm x",
            "ls\u{feff}#; rm x",
            "ls \x00 x",
            "ls \x1b[2J",
        ] {
            assert!(ambiguous(line).is_some(), "{line:?}");
        }
    }

    #[test]
    fn everyday_continuations_and_tabs_pass() {
        for line in [
            "cargo test \\\n  -p core \\\n  --lib",
            "ls\t-la",
            "cat <<'EOF' > x\na\tb\nEOF",
            "echo 'a\\nb'",
            "grep -n 'fn \\w+' src",
        ] {
            assert_eq!(ambiguous(line), None, "{line:?}");
        }
    }
}
