//! Text for people: the model's words made safe for a terminal, and a tool result in one line.
//! Shared by `tandem chat` and `tandem exec`.

use std::borrow::Cow;

/// The model's text made inert for a terminal: control characters (escape sequences, carriage
/// returns, backspaces, ...) are shown escaped, so nothing the model writes can move the cursor,
/// recolour or overwrite what the user reads; so are the characters that reorder or break what
/// is shown without being seen (bidi controls, line and paragraph separators). Line feeds and
/// tabs stay, unless `one_line`; a `one_line` text (a question's command, path, server) has its
/// invisible characters (zero-width ones, soft hyphens) escaped too, so what the user approves
/// is exactly what they read.
pub fn inert(text: &str, one_line: bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && !(!one_line && (c == '\n' || c == '\t')))
            || reorders(c)
            || (one_line && invisible(c))
    };
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

/// Bidi controls (which make `rm x` display as `x mr`) and the line and paragraph separators
/// some terminals break lines at.
fn reorders(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
}

/// Characters that take no room on screen: zero-width spaces and joiners, word joiners, the
/// byte-order mark, soft hyphens, the Mongolian vowel separator, invisible operators.
fn invisible(c: char) -> bool {
    matches!(c, '\u{00ad}' | '\u{180e}' | '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}'
        | '\u{feff}')
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

/// One line for a file a tool call changed: what happened to it, its path (inert: the model
/// chose it) and its line counts, as `modified src/a.rs (+2 -1)`.
pub fn file_change(c: &tandem_agent::events::FileChange) -> String {
    use tandem_agent::events::FileChangeKind as K;
    let path = inert(&c.path, true);
    let what = match &c.kind {
        K::Created => format!("created {path}"),
        K::Modified => format!("modified {path}"),
        K::Deleted => format!("deleted {path}"),
        K::Renamed { from } => format!("renamed {} → {path}", inert(from, true)),
        K::ModeChanged => format!("mode changed {path}"),
    };
    if c.added == 0 && c.removed == 0 {
        return what;
    }
    format!("{what} (+{} -{})", c.added, c.removed)
}

/// Lines for a call's changed files, one a file, indented under the call, at most
/// [`MAX_FILES_SHOWN`] of them (a command that rewrites a tree would fill the terminal).
pub fn files_changed_lines(changes: &[tandem_agent::events::FileChange]) -> Vec<String> {
    let mut lines: Vec<String> = changes
        .iter()
        .take(MAX_FILES_SHOWN)
        .map(|c| format!("  {}", file_change(c)))
        .collect();
    if changes.len() > MAX_FILES_SHOWN {
        lines.push(format!(
            "  … and {} more files",
            changes.len() - MAX_FILES_SHOWN
        ));
    }
    lines
}

const MAX_FILES_SHOWN: usize = 20;

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

/// `text` broken between words to fit the terminal stdout is, for the lines the chat prints
/// whole (the banner, the status line after a turn), which a narrow terminal would otherwise cut
/// mid-word; a word longer than the width stays whole on its own line. Into a pipe the line stays
/// as it is: a script reads whole lines.
pub fn wrap_for_stdout(text: &str) -> String {
    wrap_words_in(text, crate::terminal::columns())
}

fn wrap_words_in(text: &str, width: Option<usize>) -> String {
    let Some(width) = width.filter(|w| *w > 0) else {
        return text.to_string();
    };
    let options = textwrap::Options::new(width.max(20))
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace);
    textwrap::wrap(text, options).join("\n")
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

    #[test]
    fn characters_that_reorder_or_hide_are_shown_escaped_in_questions() {
        // `rm -rf ~ #` shown reversed by a right-to-left override, a zero-width space inside a
        // word, a line separator that starts a fake line.
        let shown = inert(
            "git status \u{202e}~ fr- mr\u{202c} x\u{200b}y\u{2028}ok",
            true,
        );
        assert_eq!(
            shown,
            "git status \\u{202e}~ fr- mr\\u{202c} x\\u{200b}y\\u{2028}ok"
        );
        assert_eq!(
            inert("a\u{2066}b\u{2069}\u{feff}\u{ad}", true),
            "a\\u{2066}b\\u{2069}\\u{feff}\\u{ad}"
        );
        // In flowing text, what reorders is escaped; a joiner inside an emoji stays.
        assert_eq!(
            inert("a\u{202e}b \u{1f469}\u{200d}\u{1f4bb}", false),
            "a\\u{202e}b \u{1f469}\u{200d}\u{1f4bb}"
        );
    }

    #[test]
    fn lines_wrap_between_words_at_forty_columns() {
        let banner = "Tandem 0.1.0 in /home/me/projects/app, qwen2.5-coder-7b at \
                      http://127.0.0.1:8080/v1. /help lists the commands; Ctrl-C stops a turn, \
                      /exit quits.";
        let wrapped = wrap_words_in(banner, Some(40));
        for line in wrapped.lines() {
            assert!(
                line.chars().count() <= 40 || !line.contains(' '),
                "{line:?}"
            );
        }
        // Every word is whole, on one line.
        let words: Vec<&str> = banner.split_whitespace().collect();
        let again: Vec<&str> = wrapped.split_whitespace().collect();
        assert_eq!(words, again);
        assert!(
            wrapped
                .lines()
                .any(|l| l == "http://127.0.0.1:8080/v1. /help lists")
        );
    }

    #[test]
    fn a_changed_files_line_names_it_inert_with_its_counts() {
        use tandem_agent::events::{FileChange, FileChangeKind as K};
        let change = |path: &str, kind: K, added, removed| FileChange {
            path: path.into(),
            kind,
            added,
            removed,
        };
        assert_eq!(
            file_change(&change("src/a.rs", K::Modified, 2, 1)),
            "modified src/a.rs (+2 -1)"
        );
        assert_eq!(
            file_change(&change("b", K::Renamed { from: "a".into() }, 0, 0)),
            "renamed a → b"
        );
        assert_eq!(
            file_change(&change("x.sh", K::ModeChanged, 0, 0)),
            "mode changed x.sh"
        );
        // A file name with a colour code and a line break: shown, not obeyed.
        let many: Vec<FileChange> = (0..MAX_FILES_SHOWN + 3)
            .map(|i| change(&format!("f{i}"), K::Deleted, 0, 1))
            .collect();
        let lines = files_changed_lines(&many);
        assert_eq!(lines.len(), MAX_FILES_SHOWN + 1);
        assert_eq!(lines[0], "  deleted f0 (+0 -1)");
        assert_eq!(lines[MAX_FILES_SHOWN], "  … and 3 more files");
        let shown = file_change(&change("a\x1b[2K\nok.rs", K::Created, 1, 0));
        assert_eq!(shown, "created a\\u{1b}[2K\\nok.rs (+1 -0)");
        assert!(!shown.chars().any(char::is_control));
    }
}
