//! Unified diffs of proposals and applied edits (crate `similar`).

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

/// A pathological pair of texts gets a valid but less minimal diff rather than a long wait.
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);

/// Lines added and removed by a change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DiffStats {
    pub added: usize,
    pub removed: usize,
}

/// The unified diff (3 lines of context) of `old` to `new`, with `--- a/PATH` / `+++ b/PATH`
/// headers (`/dev/null` for a file that does not exist, `None`), a `\ No newline at end of file`
/// marker where one is missing, and nothing at all when the texts are equal.
pub fn unified_diff(display_path: &str, old: Option<&str>, new: &str) -> String {
    diff_and_stats(display_path, old, new).0
}

/// [`unified_diff`] and the count of lines added and removed, from one diff.
pub(crate) fn diff_and_stats(
    display_path: &str,
    old: Option<&str>,
    new: &str,
) -> (String, DiffStats) {
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
    let mut stats = DiffStats::default();
    for op in diff.ops() {
        for change in diff.iter_changes(op) {
            match change.tag() {
                ChangeTag::Insert => stats.added += 1,
                ChangeTag::Delete => stats.removed += 1,
                ChangeTag::Equal => {}
            }
        }
    }
    (text, stats)
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
        assert_eq!(
            diff_and_stats("a", Some("a\nb\nc\n"), "a\nB\nc\nd\n").1,
            DiffStats {
                added: 2,
                removed: 1
            }
        );
    }
}
