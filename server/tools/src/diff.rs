//! Unified diffs of proposals and applied edits (crate `similar`).

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

/// A pathological pair of texts gets a valid but less minimal diff rather than a long wait.
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);

/// A change to one file, in the forms the faces show it: the unified diff text, and each hunk's
/// old and new lines (what ACP's diff content and per-hunk review need), computed once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileDiff {
    /// Relative to the workspace root, `/`-separated.
    pub display_path: String,
    /// The file did not exist before.
    pub created: bool,
    /// Unified diff with `--- a/PATH` / `+++ b/PATH` headers; empty when nothing changed.
    pub unified: String,
    pub hunks: Vec<Hunk>,
    /// Lines added and removed.
    pub added: usize,
    pub removed: usize,
}

/// One hunk: a run of changes with up to 3 lines of context on each side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hunk {
    /// One-based first line of the hunk in the old and the new text (0 for an empty side).
    pub old_start: usize,
    pub new_start: usize,
    /// The hunk's lines on each side (context included), each ending in a newline except a
    /// file's last line when the file has none.
    pub old_text: String,
    pub new_text: String,
}

impl FileDiff {
    /// The diff of `old` (`None`: the file does not exist) to `new`.
    pub fn new(display_path: &str, old: Option<&str>, new: &str) -> FileDiff {
        file_diff(display_path, old, new)
    }

    /// Reads back a diff stored as its unified text (as transcripts keep it). Lines it does not
    /// understand are skipped; what it returns is what the text says.
    pub fn from_unified(unified: &str) -> FileDiff {
        let mut out = FileDiff {
            unified: unified.to_string(),
            ..FileDiff::default()
        };
        let mut hunk: Option<Hunk> = None;
        for line in unified.split_inclusive('\n') {
            let bare = line.strip_suffix('\n').unwrap_or(line);
            if hunk.is_none() && bare.starts_with("--- ") {
                out.created = bare == "--- /dev/null";
            } else if hunk.is_none() && bare.starts_with("+++ ") {
                let path = &bare[4..];
                out.display_path = path.strip_prefix("b/").unwrap_or(path).to_string();
            } else if let Some(header) = bare.strip_prefix("@@ ") {
                out.hunks.extend(hunk.take());
                let mut starts = header.split(' ').take(2).map(|range| {
                    range[1.min(range.len())..]
                        .split(',')
                        .next()
                        .and_then(|n| n.parse::<usize>().ok())
                        .unwrap_or(0)
                });
                hunk = Some(Hunk {
                    old_start: starts.next().unwrap_or(0),
                    new_start: starts.next().unwrap_or(0),
                    ..Hunk::default()
                });
            } else if let Some(h) = hunk.as_mut() {
                let (tag, rest) = line.split_at_checked(1).unwrap_or((" ", ""));
                match tag {
                    "+" => {
                        out.added += 1;
                        h.new_text.push_str(rest);
                    }
                    "-" => {
                        out.removed += 1;
                        h.old_text.push_str(rest);
                    }
                    // `\ No newline at end of file`: the line before had none.
                    "\\" => {
                        let side = if h.new_text.ends_with('\n') && !h.old_text.ends_with('\n') {
                            &mut h.old_text
                        } else {
                            &mut h.new_text
                        };
                        if side.ends_with('\n') {
                            side.pop();
                        }
                    }
                    _ => {
                        h.old_text.push_str(rest);
                        h.new_text.push_str(rest);
                    }
                }
            }
        }
        out.hunks.extend(hunk);
        out
    }
}

/// The unified diff (3 lines of context) of `old` to `new`, with `--- a/PATH` / `+++ b/PATH`
/// headers (`/dev/null` for a file that does not exist, `None`), a `\ No newline at end of file`
/// marker where one is missing, and nothing at all when the texts are equal.
pub fn unified_diff(display_path: &str, old: Option<&str>, new: &str) -> String {
    file_diff(display_path, old, new).unified
}

fn file_diff(display_path: &str, old: Option<&str>, new: &str) -> FileDiff {
    let old_header = match old {
        Some(_) => format!("a/{display_path}"),
        None => "/dev/null".to_string(),
    };
    let new_header = format!("b/{display_path}");
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old.unwrap_or(""), new);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&old_header, &new_header)
        .to_string();
    let mut out = FileDiff {
        display_path: display_path.to_string(),
        created: old.is_none(),
        unified: text,
        ..FileDiff::default()
    };
    for group in diff.grouped_ops(3) {
        let (Some(first), Some(_)) = (group.first(), group.last()) else {
            continue;
        };
        let mut hunk = Hunk {
            old_start: first.old_range().start + 1,
            new_start: first.new_range().start + 1,
            ..Hunk::default()
        };
        for op in &group {
            for change in diff.iter_changes(op) {
                match change.tag() {
                    ChangeTag::Insert => {
                        out.added += 1;
                        hunk.new_text.push_str(change.value());
                    }
                    ChangeTag::Delete => {
                        out.removed += 1;
                        hunk.old_text.push_str(change.value());
                    }
                    ChangeTag::Equal => {
                        hunk.old_text.push_str(change.value());
                        hunk.new_text.push_str(change.value());
                    }
                }
            }
        }
        if hunk.old_text.is_empty() {
            hunk.old_start = 0;
        }
        if hunk.new_text.is_empty() {
            hunk.new_start = 0;
        }
        out.hunks.push(hunk);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_context_and_missing_newline() {
        let d = unified_diff(
            "src/a.rs",
            Some("1\n2\n3\n4\n5\n6\n7\n8\n"),
            "1\n2\n3\n4\nX\n6\n7\n8\n",
        );
        assert_eq!(
            d,
            "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n"
        );
        let d = unified_diff("a", Some("x\ny"), "x\nz");
        assert!(
            d.ends_with("-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n"),
            "{d}"
        );
        assert_eq!(unified_diff("a", Some("same\n"), "same\n"), "");
    }

    #[test]
    fn created_files_diff_from_dev_null() {
        let d = unified_diff("new.txt", None, "hi\n");
        assert_eq!(d, "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n");
    }

    #[test]
    fn stats_count_lines() {
        let d = FileDiff::new("a", Some("a\nb\nc\n"), "a\nB\nc\nd\n");
        assert_eq!((d.added, d.removed), (2, 1));
    }

    #[test]
    fn a_stored_diff_reads_back_as_made() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new: String = (1..=20)
            .filter(|&i| i != 18)
            .map(|i| {
                if i == 3 {
                    "three\n".to_string()
                } else {
                    format!("{i}\n")
                }
            })
            .collect();
        let made = FileDiff::new("src/f.rs", Some(&old), &new);
        assert_eq!(FileDiff::from_unified(&made.unified), made);
        let created = FileDiff::new("n.txt", None, "a\nb\n");
        assert_eq!(FileDiff::from_unified(&created.unified), created);
    }

    #[test]
    fn hunks_carry_each_side_with_context() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new: String = (1..=20)
            .filter(|&i| i != 18)
            .map(|i| {
                if i == 3 {
                    "three\n".to_string()
                } else {
                    format!("{i}\n")
                }
            })
            .collect();
        let d = FileDiff::new("f", Some(&old), &new);
        assert_eq!(d.hunks.len(), 2);
        assert_eq!(d.hunks[0].old_start, 1);
        assert_eq!(d.hunks[0].old_text, "1\n2\n3\n4\n5\n6\n");
        assert_eq!(d.hunks[0].new_text, "1\n2\nthree\n4\n5\n6\n");
        assert_eq!(d.hunks[1].old_start, 15);
        assert_eq!(d.hunks[1].old_text, "15\n16\n17\n18\n19\n20\n");
        assert_eq!(d.hunks[1].new_text, "15\n16\n17\n19\n20\n");
        let created = FileDiff::new("n", None, "hi\n");
        assert!(created.created);
        assert_eq!(created.hunks[0].old_start, 0);
        assert_eq!(created.hunks[0].new_text, "hi\n");
    }
}
