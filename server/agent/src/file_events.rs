//! Which files the core deleted or put back behind the editor's back, for
//! [`Frontend::files_changed`](crate::Frontend::files_changed): after an undo, the files it
//! restored; after a command, the files the model knew that the command removed.

use std::path::PathBuf;

use crate::events::{FileEvent, FileEventKind};

/// What an undo did to the files it restored (`done`: their display paths).
pub(crate) fn of_undo(plan: &tandem_tools::UndoPlan, done: &[String]) -> Vec<FileEvent> {
    plan.items
        .iter()
        .filter(|item| done.contains(&item.display_path))
        .map(|item| FileEvent {
            path: item.path.clone(),
            kind: if item.content.is_none() {
                FileEventKind::Deleted
            } else {
                FileEventKind::Restored
            },
        })
        .collect()
}

/// The files the model knows that exist before a command runs; [`Known::gone`] after it says
/// which of them it removed.
pub(crate) struct Known(Vec<PathBuf>);

impl Known {
    pub(crate) fn before(reads: &tandem_tools::ReadTracker) -> Self {
        Self(reads.paths().into_iter().filter(|p| exists(p)).collect())
    }

    pub(crate) fn gone(self) -> Vec<FileEvent> {
        self.0
            .into_iter()
            .filter(|p| !exists(p))
            .map(|path| FileEvent {
                path,
                kind: FileEventKind::Deleted,
            })
            .collect()
    }
}

/// The model's picture of a deleted file is dropped: it can't read the file again to refresh it,
/// and creating it anew must not be refused as a stale edit.
pub(crate) fn forget_deleted(reads: &tandem_tools::ReadTracker, files: &[FileEvent]) {
    for f in files.iter().filter(|f| f.kind == FileEventKind::Deleted) {
        reads.forget(&f.path);
    }
}

/// The path names something (a dangling link counts: it was not deleted).
fn exists(path: &std::path::Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_removes_a_known_file_reports_it_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let (kept, removed, never) = (
            dir.path().join("kept.txt"),
            dir.path().join("removed.txt"),
            dir.path().join("never.txt"),
        );
        std::fs::write(&kept, "k").unwrap();
        std::fs::write(&removed, "r").unwrap();
        let reads = tandem_tools::ReadTracker::new();
        for p in [&kept, &removed, &never] {
            reads.record(p, b"x");
        }
        let known = Known::before(&reads);
        std::fs::remove_file(&removed).unwrap();
        // Created by the command: it did not exist before, so it is no deletion.
        std::fs::write(&never, "n").unwrap();
        let gone = known.gone();
        assert_eq!(
            gone,
            vec![FileEvent {
                path: removed.clone(),
                kind: FileEventKind::Deleted
            }]
        );
        forget_deleted(&reads, &gone);
        let mut left = reads.paths();
        left.sort();
        let mut expected = vec![kept, never];
        expected.sort();
        assert_eq!(left, expected, "only the deleted file is forgotten");
    }
}
