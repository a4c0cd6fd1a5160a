//! A turn's change set: every file the turn changed (through an edit, a command or an MCP tool),
//! who changed it, its content before the turn (from the undo log, so it survives a restart and
//! leaves out what was undone) and now (the editor's text for an open file, else the disk's).
//! The model wrote these contents: faces show them as inert text, and the caps here keep a huge
//! file from being carried whole.

use std::path::Path;

use tandem_tools::{ChangedBy, Saved, TurnSave, Workspace};

use crate::{Frontend, TurnId};

/// Each side of a file is carried as text up to this many bytes; over it, only its size.
pub const MAX_SIDE_BYTES: u64 = 1024 * 1024;

/// Every file one turn changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnChanges {
    pub turn_id: TurnId,
    pub files: Vec<ChangedFile>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedFile {
    /// Relative to the workspace root, `/`-separated.
    pub path: String,
    pub kind: ChangedKind,
    /// Who made the turn's first change to it (`None`: an undo log older than that record).
    pub by: Option<ChangedBy>,
    /// Before the turn.
    pub before: Content,
    /// Now: later turns' changes and the user's included.
    pub after: Content,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangedKind {
    Created,
    Modified,
    Deleted,
}

/// One side of a changed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// The file does not exist (on this side).
    Absent,
    Text(String),
    /// Not UTF-8 text, or holds NUL bytes: not shown.
    Binary {
        bytes: u64,
    },
    /// Over [`MAX_SIDE_BYTES`]: not read.
    TooLarge {
        bytes: u64,
    },
}

impl Content {
    fn of_bytes(bytes: Vec<u8>) -> Content {
        let len = bytes.len() as u64;
        if len > MAX_SIDE_BYTES {
            return Content::TooLarge { bytes: len };
        }
        if bytes.contains(&0) {
            return Content::Binary { bytes: len };
        }
        match String::from_utf8(bytes) {
            Ok(text) => Content::Text(text),
            Err(_) => Content::Binary { bytes: len },
        }
    }

    /// The text, when there is some to show (`""` for an absent side).
    pub fn text(&self) -> Option<&str> {
        match self {
            Content::Absent => Some(""),
            Content::Text(t) => Some(t),
            Content::Binary { .. } | Content::TooLarge { .. } => None,
        }
    }

    /// Why there is no text to show, in words (`None` when there is).
    pub fn withheld(&self) -> Option<String> {
        match self {
            Content::Binary { bytes } => Some(format!("binary, {bytes} bytes")),
            Content::TooLarge { bytes } => Some(format!(
                "{bytes} bytes, over the cap of {MAX_SIDE_BYTES} for a diff"
            )),
            Content::Absent | Content::Text(_) => None,
        }
    }
}

impl ChangedFile {
    /// The unified diff from before to now (`--- a/PATH` / `+++ b/PATH`), or why there is none
    /// (a binary or too large side) as `Err`.
    pub fn diff(&self) -> Result<tandem_tools::FileDiff, String> {
        let (Some(before), Some(after)) = (self.before.text(), self.after.text()) else {
            let why = self
                .before
                .withheld()
                .or_else(|| self.after.withheld())
                .unwrap_or_default();
            return Err(why);
        };
        let old = (self.before != Content::Absent).then_some(before);
        Ok(tandem_tools::FileDiff::new(&self.path, old, after))
    }
}

/// Lines of [`TurnChanges::unified`] at most: a document an editor opens, not a dump.
pub const MAX_UNIFIED_LINES: usize = 20_000;

impl TurnChanges {
    /// The change set as one plain unified diff, for a face that shows it as a document: a `#`
    /// line a file (what happened, who), then its diff, or why there is none (binary, too
    /// large); cut after [`MAX_UNIFIED_LINES`] lines, saying so. Paths have their control
    /// characters escaped, so a file name can't forge a line of its own.
    pub fn unified(&self) -> String {
        let mut lines: Vec<String> = vec![format!(
            "# Turn {}: {} file{} changed",
            one_line(self.turn_id.as_str()),
            self.files.len(),
            if self.files.len() == 1 { "" } else { "s" }
        )];
        for file in &self.files {
            let what = match file.kind {
                ChangedKind::Created => "created",
                ChangedKind::Modified => "modified",
                ChangedKind::Deleted => "deleted",
            };
            let by = match &file.by {
                Some(by) => {
                    let source = match by.source {
                        tandem_tools::ChangeSource::Edit => "an edit",
                        tandem_tools::ChangeSource::Command => "a command",
                        tandem_tools::ChangeSource::Mcp => "an MCP tool",
                        tandem_tools::ChangeSource::Hook => "a hook",
                    };
                    match &by.tool_call_id {
                        Some(id) => format!(" by {source} ({})", one_line(id)),
                        None => format!(" by {source}"),
                    }
                }
                None => String::new(),
            };
            let path = one_line(&file.path);
            lines.push(format!("# {what} {path}{by}"));
            let safe = ChangedFile {
                path: path.into_owned(),
                ..file.clone()
            };
            match safe.diff() {
                Ok(diff) if diff.unified.is_empty() => {
                    lines.push("# (same content as before the turn)".into())
                }
                Ok(diff) => lines.extend(diff.unified.lines().map(str::to_string)),
                Err(why) => lines.push(format!("# ({why}: not shown)")),
            }
        }
        let total = lines.len();
        if total > MAX_UNIFIED_LINES {
            lines.truncate(MAX_UNIFIED_LINES);
            lines.push(format!(
                "# … {} more lines not shown",
                total - MAX_UNIFIED_LINES
            ));
        }
        let mut text = lines.join("\n");
        text.push('\n');
        text
    }

    /// Gathers the change set from the undo log's saves and the files now.
    pub(crate) async fn gather(
        turn_id: TurnId,
        saves: Vec<TurnSave>,
        workspace: &Workspace,
        frontend: &dyn Frontend,
    ) -> TurnChanges {
        let mut files = Vec::with_capacity(saves.len());
        for save in saves {
            let after = match workspace.resolve_for_write(&save.display_path) {
                Ok(path) => now(&path, frontend).await,
                // The path no longer resolves inside the workspace (a link changed): not shown.
                Err(_) => Content::Absent,
            };
            files.extend(changed_file(save, after));
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        TurnChanges { turn_id, files }
    }

    /// The same from the disk alone, for a face that must answer at once (an event's handler).
    pub(crate) fn gather_from_disk(
        turn_id: TurnId,
        saves: Vec<TurnSave>,
        workspace: &Workspace,
    ) -> TurnChanges {
        let mut files: Vec<ChangedFile> = saves
            .into_iter()
            .filter_map(|save| {
                let after = match workspace.resolve_for_write(&save.display_path) {
                    Ok(path) => on_disk(&path),
                    Err(_) => Content::Absent,
                };
                changed_file(save, after)
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        TurnChanges { turn_id, files }
    }
}

/// One file of the set; `None` when it is absent before and now (made and removed in the turn).
fn changed_file(save: TurnSave, after: Content) -> Option<ChangedFile> {
    let before = match save.before {
        Saved::Absent => Content::Absent,
        Saved::Bytes(bytes) => Content::of_bytes(bytes),
        Saved::TooLarge { bytes } => Content::TooLarge { bytes },
    };
    let kind = match (&before, &after) {
        (Content::Absent, Content::Absent) => return None,
        (Content::Absent, _) => ChangedKind::Created,
        (_, Content::Absent) => ChangedKind::Deleted,
        _ => ChangedKind::Modified,
    };
    Some(ChangedFile {
        path: save.display_path,
        kind,
        by: save.by,
        before,
        after,
    })
}

/// `text` on one line: control characters (a newline, an escape) written as `\u{..}`.
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// A file's content now: the editor's text when it holds the file, else the disk's.
async fn now(path: &Path, frontend: &dyn Frontend) -> Content {
    if let Some(read) = frontend.read_text(path)
        && let Ok(text) = read.await
    {
        return Content::of_bytes(text.into_bytes());
    }
    on_disk(path)
}

fn on_disk(path: &Path) -> Content {
    match tandem_stdx::regular::read(path, MAX_SIDE_BYTES) {
        Ok((bytes, _)) => Content::of_bytes(bytes),
        Err(tandem_stdx::regular::NotRegular::Missing) => Content::Absent,
        Err(tandem_stdx::regular::NotRegular::TooLarge { len, .. }) => {
            Content::TooLarge { bytes: len }
        }
        // A directory or a device where the file was: nothing to show as text.
        Err(_) => Content::Binary { bytes: 0 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_are_classified_and_capped() {
        assert_eq!(
            Content::of_bytes(b"a\n".to_vec()),
            Content::Text("a\n".into())
        );
        assert_eq!(
            Content::of_bytes(b"a\0b".to_vec()),
            Content::Binary { bytes: 3 }
        );
        assert_eq!(
            Content::of_bytes(vec![0xff, 0xfe]),
            Content::Binary { bytes: 2 }
        );
        let big = vec![b'x'; MAX_SIDE_BYTES as usize + 1];
        assert_eq!(
            Content::of_bytes(big),
            Content::TooLarge {
                bytes: MAX_SIDE_BYTES + 1
            }
        );
    }

    #[test]
    fn the_unified_text_names_each_file_on_a_line_of_its_own() {
        let set = TurnChanges {
            turn_id: "t1".into(),
            files: vec![
                ChangedFile {
                    path: "evil\n+++ b/x.rs".into(),
                    kind: ChangedKind::Created,
                    by: Some(ChangedBy::new(tandem_tools::ChangeSource::Edit, Some("c1"))),
                    before: Content::Absent,
                    after: Content::Text("a\n".into()),
                },
                ChangedFile {
                    path: "big".into(),
                    kind: ChangedKind::Modified,
                    by: None,
                    before: Content::Text("a\n".into()),
                    after: Content::TooLarge { bytes: 9 },
                },
            ],
        };
        let text = set.unified();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "# Turn t1: 2 files changed");
        assert_eq!(lines[1], "# created evil\\u{a}+++ b/x.rs by an edit (c1)");
        assert!(lines.contains(&"+a"), "{text}");
        assert!(
            text.ends_with(&format!(
                "# modified big\n# (9 bytes, over the cap of {MAX_SIDE_BYTES} for a diff: not shown)\n"
            )),
            "{text}"
        );
        // A long set is cut, saying by how much.
        let long = TurnChanges {
            turn_id: "t1".into(),
            files: vec![ChangedFile {
                path: "l".into(),
                kind: ChangedKind::Created,
                by: None,
                before: Content::Absent,
                after: Content::Text("x\n".repeat(MAX_UNIFIED_LINES)),
            }],
        };
        let text = long.unified();
        assert_eq!(text.lines().count(), MAX_UNIFIED_LINES + 1);
        assert!(
            text.ends_with(" more lines not shown\n"),
            "{}",
            &text[text.len() - 80..]
        );
    }

    #[test]
    fn a_withheld_side_gives_no_diff_but_says_why() {
        let file = ChangedFile {
            path: "a.bin".into(),
            kind: ChangedKind::Modified,
            by: None,
            before: Content::Binary { bytes: 4 },
            after: Content::Text("x".into()),
        };
        assert_eq!(file.diff().unwrap_err(), "binary, 4 bytes");
        let created = ChangedFile {
            path: "n.txt".into(),
            kind: ChangedKind::Created,
            by: None,
            before: Content::Absent,
            after: Content::Text("x\n".into()),
        };
        let diff = created.diff().unwrap();
        assert!(diff.created);
        assert_eq!(diff.added, 1);
    }
}
