//! Text for people: the model's words made safe for a terminal, and a tool result in one line.
//! Shared by `tandem chat` and `tandem exec`.

use std::borrow::Cow;

/// The model's text made inert for a terminal: control characters (escape sequences, carriage
/// returns, backspaces, ...) are shown escaped, so nothing the model writes can move the cursor,
/// recolour or overwrite what the user reads. Line feeds and tabs stay, unless `one_line`.
pub fn inert(text: &str, one_line: bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && !(!one_line && (c == '\n' || c == '\t'));
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !unsafe_char(c) => shown.push(c),
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            c => shown.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(shown)
}

/// One line for a tool's result: a one-line output as it is; else its size, and the closing
/// status line a command's output ends with (`[exit code 0]`).
pub fn summary(output: &str) -> String {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    let count = |n: usize| format!("{n} line{}", if n == 1 { "" } else { "s" });
    match lines.as_slice() {
        [] => "done".to_string(),
        [one] => one.to_string(),
        [.., last] if last.starts_with('[') => format!("{}, {last}", count(lines.len() - 1)),
        _ => count(lines.len()),
    }
}

/// The note that the conversation was compacted to fit the window.
pub fn compaction(
    elided: u32,
    summarized: u32,
    tokens_before: u64,
    tokens_after: u64,
    context_window: u64,
) -> String {
    format!(
        "[context compacted for the {context_window}-token window: {elided} outputs elided, \
         {summarized} messages summarized, ~{tokens_before} → ~{tokens_after} tokens]"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_summed_up_in_a_line() {
        assert_eq!(
            summary("Applied the edit to a.rs (+1 -1)."),
            "Applied the edit to a.rs (+1 -1)."
        );
        assert_eq!(summary("a\nb\n[exit code 0]"), "2 lines, [exit code 0]");
        assert_eq!(summary("a\n[exit code 1]"), "1 line, [exit code 1]");
        assert_eq!(summary("1 | x\n2 | y\n3 | z"), "3 lines");
        assert_eq!(summary(""), "done");
    }

    #[test]
    fn the_models_control_characters_are_shown_not_obeyed() {
        // A command that would show as `ls` after the carriage return and the colour codes.
        let shown = inert("rm -rf ~ \r\x1b[2K\x1b[32mls", true);
        assert_eq!(shown, "rm -rf ~ \\r\\u{1b}[2K\\u{1b}[32mls");
        assert!(!shown.chars().any(char::is_control));
        assert_eq!(inert("a\nb\tc", false), "a\nb\tc");
        assert_eq!(inert("a\nb", true), "a\\nb");
        assert_eq!(inert("plain", true), "plain");
    }
}
