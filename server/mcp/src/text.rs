//! Bounds for the untrusted text a server sends (descriptions, results, stderr).

/// Drops control characters other than newline and tab (terminal escapes, NULs, carriage
/// returns that rewrite a line), and cuts to `max_bytes` at a character boundary with a note.
pub fn clean(text: &str, max_bytes: usize) -> String {
    cut(&strip_controls(text), max_bytes).0
}

/// `text` without control characters other than newline and tab.
pub fn strip_controls(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect()
}

/// `text` cut to at most `max_bytes` (at a character boundary) with a note saying how much was
/// left out; and whether it was cut.
pub fn cut(text: &str, max_bytes: usize) -> (String, bool) {
    if text.len() <= max_bytes {
        return (text.to_owned(), false);
    }
    let end = floor_char_boundary(text, max_bytes);
    let mut out = text[..end].to_owned();
    out.push_str(&format!("\n[… cut: {} of {} bytes shown]", end, text.len()));
    (out, true)
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut end = at.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_controls_and_keeps_lines() {
        assert_eq!(clean("a\u{1b}[31mred\r\n\tb\0", 100), "a[31mred\n\tb");
    }

    #[test]
    fn cuts_at_a_character_boundary_with_a_note() {
        let (text, was_cut) = cut("ééé", 3);
        assert!(was_cut);
        assert!(text.starts_with("é\n[… cut: 2 of 6 bytes shown]"), "{text}");
        assert_eq!(cut("short", 5), ("short".to_owned(), false));
    }
}
