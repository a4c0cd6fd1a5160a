/// The largest index `<= index` that is a character boundary of `text` (`text.len()` at most).
pub fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut i = index.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest index `>= index` that is a character boundary of `text` (`text.len()` at most).
pub fn ceil_char_boundary(text: &str, index: usize) -> usize {
    let mut i = index.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Cuts `text` to at most `max` bytes at a character boundary; whether it cut.
pub fn truncate_in_place(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    text.truncate(floor_char_boundary(text, max));
    true
}

/// `text` cut to at most `max` bytes at a character boundary, with `mark` appended when cut.
pub fn truncated(text: &str, max: usize, mark: &str) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    format!("{}{mark}", &text[..floor_char_boundary(text, max)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_never_split_a_character() {
        let s = "aé€😀";
        for max in 0..=s.len() + 1 {
            let mut t = s.to_string();
            truncate_in_place(&mut t, max);
            assert!(t.len() <= max && s.starts_with(&t));
            assert!(s.is_char_boundary(ceil_char_boundary(s, max)));
        }
        assert_eq!(truncated("héllo", 2, "…"), "h…");
        assert_eq!(truncated("hi", 2, "…"), "hi");
    }
}
