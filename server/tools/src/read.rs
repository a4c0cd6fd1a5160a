//! `read_file`, and the record of what the model was shown for the staleness check.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::args::ReadFile;
use super::text;
use super::{ErrorKind, ToolContext, ToolError};

/// Lines shown when the model gives no `limit`.
const DEFAULT_LIMIT: u64 = 2_000;
/// A longer line is cut (minified code would otherwise flood the context).
const MAX_LINE_CHARS: usize = 2_000;
/// The output stops early past this many bytes, saying where to read on.
const MAX_OUTPUT_BYTES: usize = 256 * 1024;

/// What the model was last shown of each file (by `read_file`, or by its own applied edits), for
/// the staleness check: an edit that depends on what the model read is refused (`stale`) when the
/// file changed since.
#[derive(Debug, Default)]
pub struct ReadTracker {
    seen: Mutex<HashMap<PathBuf, Fingerprint>>,
}

/// Length and a 64-bit hash of a file's bytes: enough to notice a change (not an attack).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fingerprint {
    len: usize,
    hash: u64,
}

impl Fingerprint {
    fn of(bytes: &[u8]) -> Self {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut hasher);
        Self {
            len: bytes.len(),
            hash: hasher.finish(),
        }
    }
}

impl ReadTracker {
    pub fn new() -> Self {
        Self::default()
    }

    /// Notes that the model now knows `path` holds `bytes`.
    pub fn record(&self, path: &Path, bytes: &[u8]) {
        let fingerprint = Fingerprint::of(bytes);
        self.lock().insert(path.to_path_buf(), fingerprint);
    }

    /// `stale` when the model read `path` and its bytes (`None`: gone) changed since. The message
    /// says where: `in_editor` when `current` is the editor's buffer (the user typed there, nothing
    /// was saved), else the disk.
    pub(crate) fn check(
        &self,
        path: &Path,
        display: &str,
        current: Option<&[u8]>,
        in_editor: bool,
    ) -> Result<(), ToolError> {
        let Some(seen) = self.lock().get(path).copied() else {
            return Ok(());
        };
        if current.map(Fingerprint::of) == Some(seen) {
            return Ok(());
        }
        let what = match (current.is_some(), in_editor) {
            (true, true) => "changed in the editor (unsaved changes in its buffer)",
            (true, false) => "changed on disk",
            (false, _) => "was deleted",
        };
        Err(ToolError::new(
            ErrorKind::Stale,
            format!(
                "{display} {what} since you last read it; nothing was written. Call read_file on \
                 it again and redo the edit against what it holds now."
            ),
        ))
    }

    /// Forgets what the model knew of `path` (the file is gone: there is nothing to read again,
    /// and writing it anew is no stale edit).
    pub fn forget(&self, path: &Path) {
        self.lock().remove(path);
    }

    /// Every file the model read or wrote (absolute paths).
    pub fn paths(&self) -> Vec<PathBuf> {
        self.lock().keys().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Fingerprint>> {
        // A panic elsewhere while holding the lock leaves the map usable.
        tandem_stdx::lock(&self.seen)
    }
}

pub(crate) fn read_file(ctx: &ToolContext<'_>, args: ReadFile) -> Result<String, ToolError> {
    let ws = ctx.workspace;
    let path = ws.resolve_for_read(&args.path)?;
    let text = text::load_for(ctx, &path)?.ok_or_else(|| text::no_such_file(ws, &path))?;
    let display = ws.display_path(&path);
    let out = render(&display, &text, args.offset, args.limit)?;
    ctx.reads.record(&path, text.as_bytes());
    Ok(out)
}

/// The numbered view: `N | text` per line, and a footer saying where it stopped.
fn render(
    display: &str,
    text: &str,
    offset: Option<u64>,
    limit: Option<u64>,
) -> Result<String, ToolError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.is_empty() {
        return Ok(format!("[{display} is empty]"));
    }
    let total = text.split_inclusive('\n').count() as u64;
    let first = offset.unwrap_or(1).max(1);
    if first > total {
        return Err(ToolError::new(
            ErrorKind::InvalidArguments,
            format!("offset {first} is past the end of {display}, which has {total} lines"),
        ));
    }
    let limit = limit.unwrap_or(DEFAULT_LIMIT).max(1);
    let mut out = String::with_capacity(text.len().min(MAX_OUTPUT_BYTES) + 256);
    let mut last = first - 1;
    let mut capped = false;
    for (i, line) in text
        .split_inclusive('\n')
        .enumerate()
        .skip((first - 1) as usize)
    {
        let number = i as u64 + 1;
        if number >= first.saturating_add(limit) {
            break;
        }
        if out.len() >= MAX_OUTPUT_BYTES && number > first {
            capped = true;
            break;
        }
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        push_line(&mut out, number, line);
        last = number;
    }
    if last < total {
        let why = if capped {
            format!(" (output capped at {} KiB)", MAX_OUTPUT_BYTES / 1024)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "[showing lines {first}-{last} of {total}{why}; call read_file with offset {} to read on]",
            last + 1
        ));
    } else if first > 1 {
        out.push_str(&format!(
            "[showing lines {first}-{last} of {total}; end of file]"
        ));
    } else if out.ends_with('\n') {
        out.pop();
    }
    Ok(out)
}

fn push_line(out: &mut String, number: u64, line: &str) {
    use std::fmt::Write;
    let _ = write!(out, "{number} | ");
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => out.push_str(line),
        Some((cut, _)) => {
            let rest = line[cut..].chars().count();
            out.push_str(&line[..cut]);
            let _ = write!(out, " [... line cut: {rest} more characters]");
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_lines_without_footer_when_whole() {
        assert_eq!(render("a", "x\r\ny\n", None, None).unwrap(), "1 | x\n2 | y");
        assert_eq!(render("a", "\u{feff}x", None, None).unwrap(), "1 | x");
        assert_eq!(render("a", "", None, None).unwrap(), "[a is empty]");
    }

    #[test]
    fn pages_with_offset_and_limit() {
        let text: String = (1..=10).map(|i| format!("l{i}\n")).collect();
        let out = render("a", &text, Some(3), Some(2)).unwrap();
        assert_eq!(
            out,
            "3 | l3\n4 | l4\n[showing lines 3-4 of 10; call read_file with offset 5 to read on]"
        );
        let out = render("a", &text, Some(9), None).unwrap();
        assert!(
            out.ends_with("[showing lines 9-10 of 10; end of file]"),
            "{out}"
        );
        let err = render("a", &text, Some(11), None).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArguments);
    }

    #[test]
    fn long_lines_are_cut() {
        let line = "x".repeat(MAX_LINE_CHARS + 5);
        let out = render("a", &line, None, None).unwrap();
        assert!(out.ends_with("[... line cut: 5 more characters]"), "{out}");
    }

    #[test]
    fn tracker_notices_changes_and_deletion() {
        let t = ReadTracker::new();
        let p = Path::new("/w/a");
        assert!(
            t.check(p, "a", Some(b"x"), false).is_ok(),
            "never read: no check"
        );
        t.record(p, b"x");
        assert!(t.check(p, "a", Some(b"x"), false).is_ok());
        let disk = t.check(p, "a", Some(b"y"), false).unwrap_err();
        assert_eq!(disk.kind, ErrorKind::Stale);
        assert!(
            disk.message.starts_with("a changed on disk since"),
            "{}",
            disk.message
        );
        // The user typed in the buffer: the message says so, not "on disk".
        let buffer = t.check(p, "a", Some(b"y"), true).unwrap_err();
        assert!(
            buffer
                .message
                .starts_with("a changed in the editor (unsaved changes in its buffer) since"),
            "{}",
            buffer.message
        );
        assert_eq!(
            t.check(p, "a", None, false).unwrap_err().kind,
            ErrorKind::Stale
        );
    }
}
