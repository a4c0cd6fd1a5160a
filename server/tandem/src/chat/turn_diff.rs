//! `/diff [TURN]`: a turn's change set as a colored unified diff. The model wrote the files, so
//! every line is made inert and colored by the diff's own structure, never by what a line of
//! the file looks like (a file line `++ b/x` shows as an added line, not as a file header);
//! long diffs are cut per file and in all, with the count of what was left out.

use tandem_agent::changes::{ChangedFile, ChangedKind, TurnChanges};
use tandem_tools::{ChangeSource, ChangedBy};

use super::style::Style;
use crate::display::inert;

/// Lines of one file's diff shown, and of the whole turn's.
const MAX_FILE_LINES: usize = 400;
const MAX_LINES: usize = 2000;

/// The whole change set, ready to print.
pub fn render(changes: &TurnChanges, style: Style) -> String {
    let mut out = format!(
        "{}\n",
        style.bold(&format!(
            "Turn {}: {} file{} changed",
            inert(changes.turn_id.as_str(), true),
            changes.files.len(),
            if changes.files.len() == 1 { "" } else { "s" }
        ))
    );
    let mut budget = MAX_LINES;
    for file in &changes.files {
        out.push_str(&file_header(file, style));
        match file.diff() {
            Err(why) => out.push_str(&style.dim(&format!("  ({})\n", inert(&why, true)))),
            Ok(diff) if diff.unified.is_empty() => {
                out.push_str(&style.dim("  (same content as before the turn)\n"))
            }
            Ok(diff) => {
                // The first two lines are the diff's own `---`/`+++` header: the path is in ours.
                let body: Vec<&str> = diff.unified.lines().skip(2).collect();
                let shown = body.len().min(MAX_FILE_LINES).min(budget);
                for line in &body[..shown] {
                    out.push_str(&body_line(line, style));
                    out.push('\n');
                }
                budget -= shown;
                if shown < body.len() {
                    out.push_str(&style.dim(&format!(
                        "  … {} more lines of this diff not shown\n",
                        body.len() - shown
                    )));
                }
            }
        }
    }
    if budget == 0 {
        out.push_str(&style.dim(&format!(
            "(the diff is cut at {MAX_LINES} lines; /diff shows one turn at a time)\n"
        )));
    }
    out
}

/// `modified src/a.rs  by edit call_1`.
fn file_header(file: &ChangedFile, style: Style) -> String {
    let what = match file.kind {
        ChangedKind::Created => "created",
        ChangedKind::Modified => "modified",
        ChangedKind::Deleted => "deleted",
    };
    let by = file.by.as_ref().map(by_line).unwrap_or_default();
    format!(
        "{}{}\n",
        style.bold(&format!("{what} {}", inert(&file.path, true))),
        style.dim(&by)
    )
}

fn by_line(by: &ChangedBy) -> String {
    let source = match by.source {
        ChangeSource::Edit => "an edit",
        ChangeSource::Command => "a command",
        ChangeSource::Mcp => "an MCP tool",
        ChangeSource::Hook => "a hook",
    };
    match &by.tool_call_id {
        Some(id) => format!("  by {source} ({})", inert(id, true)),
        None => format!("  by {source}"),
    }
}

/// One line of a hunk, colored by its first character (what the diff made it).
fn body_line(line: &str, style: Style) -> String {
    let shown = inert(line, true);
    match line.as_bytes().first() {
        Some(b'+') => style.paint("32", &shown),
        Some(b'-') => style.paint("31", &shown),
        Some(b'@') => style.paint("36", &shown),
        _ => shown.into_owned(),
    }
}

/// `/diff`'s argument as a turn id: `t3` or `3`.
pub fn turn_arg(arg: &str) -> tandem_agent::TurnId {
    if !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_digit()) {
        format!("t{arg}").into()
    } else {
        arg.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_agent::changes::Content;

    fn set(files: Vec<ChangedFile>) -> TurnChanges {
        TurnChanges {
            turn_id: "t2".into(),
            files,
        }
    }

    fn file(path: &str, before: Content, after: Content, kind: ChangedKind) -> ChangedFile {
        ChangedFile {
            path: path.into(),
            kind,
            by: Some(ChangedBy::new(ChangeSource::Command, Some("call_7"))),
            before,
            after,
        }
    }

    /// A file holding a terminal escape and lines that look like a diff's header: the escape
    /// is shown, not obeyed, and the fake header is colored as the added lines it is.
    #[test]
    fn the_models_text_is_inert_and_colored_by_the_diffs_structure() {
        let hostile = "\u{1b}]0;owned\u{7}\u{1b}[2J\n++ b/etc/passwd\n-- a/x\n@@ -1 +1 @@\n";
        let changes = set(vec![file(
            "a.txt",
            Content::Text("safe\n".into()),
            Content::Text(hostile.into()),
            ChangedKind::Modified,
        )]);
        let plain = render(&changes, Style { on: false });
        assert!(
            plain.starts_with("Turn t2: 1 file changed\nmodified a.txt  by a command (call_7)\n"),
            "{plain}"
        );
        assert!(
            !plain.contains('\u{1b}') && !plain.contains('\u{7}'),
            "{plain:?}"
        );
        assert!(
            plain.contains("+\\u{1b}]0;owned\\u{7}\\u{1b}[2J\n"),
            "{plain}"
        );
        assert!(plain.contains("\n+++ b/etc/passwd\n"), "{plain}");

        let colored = render(&changes, Style { on: true });
        // Green as an added line, never bold as a header.
        assert!(
            colored.contains("\u{1b}[32m+++ b/etc/passwd\u{1b}[0m"),
            "{colored:?}"
        );
        assert!(colored.contains("\u{1b}[31m-safe\u{1b}[0m"), "{colored:?}");
        // Only our own color codes: each escape starts one of them.
        let codes = colored.matches('\u{1b}').count();
        let ours = colored.matches("\u{1b}[").count();
        assert_eq!(codes, ours, "{colored:?}");
    }

    #[test]
    fn big_binary_and_long_diffs_are_noted_and_cut() {
        let long: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let changes = set(vec![
            file(
                "big.log",
                Content::Text("x\n".into()),
                Content::TooLarge { bytes: 10_000_000 },
                ChangedKind::Modified,
            ),
            file(
                "img.png",
                Content::Absent,
                Content::Binary { bytes: 42 },
                ChangedKind::Created,
            ),
            file(
                "long.txt",
                Content::Absent,
                Content::Text(long),
                ChangedKind::Created,
            ),
        ]);
        let plain = render(&changes, Style { on: false });
        assert!(
            plain.contains(
                "modified big.log  by a command (call_7)\n  (10000000 bytes, over the cap"
            ),
            "{plain}"
        );
        assert!(plain.contains("created img.png  by a command (call_7)\n  (binary, 42 bytes)\n"));
        assert!(
            plain.contains("@@ -0,0 +1,1000 @@\n+line 0\n")
                && plain.contains("+line 398\n  … 601 more lines of this diff not shown\n")
        );
        assert!(!plain.contains("+line 399\n"));
        assert!(plain.lines().count() < MAX_FILE_LINES + 20);
    }

    #[test]
    fn a_turn_is_named_with_or_without_its_t() {
        assert_eq!(turn_arg("3"), tandem_agent::TurnId::from("t3"));
        assert_eq!(turn_arg("t3"), tandem_agent::TurnId::from("t3"));
    }
}
