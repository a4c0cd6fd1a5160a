//! Under `approval.command_writes = "review"`: a command's changes are held, not applied, and
//! each changed file is proposed to the user; only what the user accepts is written (saved in
//! the undo log first, as [`super::apply`] does).
//!
//! * overlay: the changes stay in the capture dir while the user decides;
//! * snapshot (no namespaces): the command already wrote the real files, so each changed file
//!   is put back as the snapshot had it, and its new content is held in memory;
//! * files the ignore rules pass through (build output) are written through unreviewed, as they
//!   are unrecorded;
//! * a file the user (or anything else) changed after it was proposed is never written over.

use std::path::{Path, PathBuf};

use tandem_model::TurnId;
use tandem_sandbox::capture::CaptureDir;

use super::{
    Applied, AppliedChange, Captured, ChangeKind, How, MAX_SAVED_BYTES, Op, Part, atomic,
    count_lines, current, gather, resolve, shown,
};
use crate::{ChangedBy, UndoLog, Workspace};

/// One file a held command changed: its content before (`None`: new) and proposed (`None`:
/// deleted), each with its mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposed {
    /// As the tools show it (see [`AppliedChange::path`]).
    pub path: String,
    pub before: Option<(Vec<u8>, u32)>,
    pub after: Option<(Vec<u8>, u32)>,
    /// The captured root it is in, and its path there: where it is written.
    root: PathBuf,
    rel: PathBuf,
}

impl Proposed {
    /// The two sides as text, when both are (an absent side is `None`); `None` for a binary
    /// file or a change of mode alone, which a text edit can't show.
    pub fn as_text(&self) -> Option<(Option<String>, Option<String>)> {
        fn text(side: &Option<(Vec<u8>, u32)>) -> Result<Option<String>, ()> {
            match side {
                None => Ok(None),
                Some((b, _)) if b.contains(&0) => Err(()),
                Some((b, _)) => String::from_utf8(b.clone()).map(Some).map_err(|_| ()),
            }
        }
        if let (Some((old, m1)), Some((new, m2))) = (&self.before, &self.after)
            && old == new
            && m1 != m2
        {
            return None;
        }
        Some((text(&self.before).ok()?, text(&self.after).ok()?))
    }
}

/// A command's changes, held for review.
#[derive(Debug)]
pub struct Held {
    /// Every change to review, sorted by path.
    pub files: Vec<Proposed>,
    /// What was done without review (ignored files written through) and what could not be
    /// held.
    pub applied: Applied,
    captured: Captured,
}

/// Holds a finished command's changes (see the module's documentation): each root's in turn.
pub fn hold(captured: &Captured, ws: &Workspace) -> Held {
    let mut held = Held {
        files: Vec::new(),
        applied: Applied::default(),
        captured: captured.clone(),
    };
    for part in &captured.parts {
        match &part.how {
            How::Overlay(dir) => hold_overlay(captured, part, dir, ws, &mut held),
            How::Snapshot(before) => put_back(captured, part, before, ws, &mut held),
        }
    }
    held.files.sort_by(|a, b| a.path.cmp(&b.path));
    held
}

fn hold_overlay(
    captured: &Captured,
    part: &Part,
    dir: &CaptureDir,
    ws: &Workspace,
    held: &mut Held,
) {
    if let Some(why) = dir.not_captured() {
        held.applied.problems.push(super::not_captured(
            ws,
            part,
            &why,
            "unreviewed and unrecorded",
        ));
        return;
    }
    let Some(ops) = gather(captured, part, dir, ws, &mut held.applied) else {
        return;
    };
    let root = &part.root;
    let rules = crate::passthrough::ignore_rules(root, &captured.passthrough);
    for op in ops {
        let result = match op {
            Op::MakeDir { .. } => Ok(None),
            Op::Write { rel, mode } => {
                if crate::passthrough::ignored(&rules, root, &rel, false) {
                    through(ws, root, &rel, Some((&dir.upper().join(&rel), mode))).map(|()| {
                        held.applied.unrecorded += 1;
                        None
                    })
                } else {
                    proposed_write(captured, part, dir, ws, &rel, mode)
                }
            }
            Op::Delete { rel } => {
                if crate::passthrough::ignored(&rules, root, &rel, false) {
                    through(ws, root, &rel, None).map(|()| {
                        held.applied.unrecorded += 1;
                        None
                    })
                } else {
                    proposed_delete(captured, part, ws, &rel)
                }
            }
        };
        match result {
            Ok(Some(p)) => held.files.push(p),
            Ok(None) => {}
            Err(e) => held.applied.problems.push(e),
        }
    }
}

/// An ignored file written (or deleted) through, unreviewed and unrecorded.
fn through(
    ws: &Workspace,
    root: &Path,
    rel: &Path,
    from: Option<(&Path, u32)>,
) -> Result<(), String> {
    let shown = shown(ws, root, rel);
    let path = resolve(ws, root, rel)?;
    match from {
        Some((upper, mode)) => {
            let (bytes, _) = tandem_stdx::regular::read(upper, MAX_SAVED_BYTES)
                .map_err(|e| format!("{shown}: {}", std::io::Error::from(e)))?;
            atomic::write_in(root, &path, &bytes, Some(mode))
                .map_err(|e| format!("{shown}: could not write it: {e}"))
        }
        None => match atomic::remove_in(root, &path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(format!("{shown}: could not delete it: {e}")),
        },
    }
}

fn proposed_write(
    captured: &Captured,
    part: &Part,
    dir: &CaptureDir,
    ws: &Workspace,
    rel: &Path,
    mode: u32,
) -> Result<Option<Proposed>, String> {
    Ok(
        super::written(captured, part, dir, ws, rel, mode, "proposed")?.map(|w| Proposed {
            path: w.shown,
            before: w.before.map(|(b, m, _)| (b, m)),
            after: Some((w.bytes, mode)),
            root: part.root.clone(),
            rel: rel.to_path_buf(),
        }),
    )
}

fn proposed_delete(
    captured: &Captured,
    part: &Part,
    ws: &Workspace,
    rel: &Path,
) -> Result<Option<Proposed>, String> {
    Ok(super::deleted(captured, part, ws, rel)?.map(|d| Proposed {
        path: d.shown,
        before: Some((d.old, d.mode)),
        after: None,
        root: part.root.clone(),
        rel: rel.to_path_buf(),
    }))
}

/// The command wrote the real files: each change is put back as the snapshot had it, and
/// proposed.
fn put_back(
    captured: &Captured,
    part: &Part,
    before: &crate::snapshot::Snapshot,
    ws: &Workspace,
    held: &mut Held,
) {
    use crate::snapshot::Difference;
    let root = &part.root;
    for difference in crate::snapshot::differences(root, &captured.passthrough, before) {
        let result = match difference {
            Difference::Written { rel, before } => (|| {
                let (rel, shown) = (PathBuf::from(&rel), shown(ws, root, Path::new(&rel)));
                let path = resolve(ws, root, &rel)?;
                let (now, meta) =
                    tandem_stdx::regular::read(&path, MAX_SAVED_BYTES).map_err(|e| {
                        format!("{shown}: could not read it: {}", std::io::Error::from(e))
                    })?;
                let now_mode =
                    super::without_set_id(super::mode_of(&meta), &shown, &mut held.applied);
                let before = before.map(|(b, m)| (b.to_vec(), m));
                if before.as_ref() == Some(&(now.clone(), now_mode)) {
                    return Ok(None);
                }
                restore(root, &path, &shown, before.as_ref())?;
                Ok(Some(Proposed {
                    path: shown,
                    before,
                    after: Some((now, now_mode)),
                    root: root.clone(),
                    rel,
                }))
            })(),
            Difference::Deleted { rel, before } => (|| {
                let (rel, shown) = (PathBuf::from(&rel), shown(ws, root, Path::new(&rel)));
                let path = resolve(ws, root, &rel)?;
                let before = (before.0.to_vec(), before.1);
                restore(root, &path, &shown, Some(&before))?;
                Ok(Some(Proposed {
                    path: shown,
                    before: Some(before),
                    after: None,
                    root: root.clone(),
                    rel,
                }))
            })(),
            Difference::Uncovered { rel } => Err(format!(
                "{} changed, but the snapshot taken before the command did not hold it (over \
                 its size cap or past its caps): it can't be put back for review, so it is left \
                 as the command wrote it, unrecorded",
                shown(ws, root, Path::new(&rel))
            )),
        };
        match result {
            Ok(Some(p)) => held.files.push(p),
            Ok(None) => {}
            Err(e) => held.applied.problems.push(e),
        }
    }
}

/// Puts a file of `root` back as it was before the command (`None`: it did not exist).
fn restore(
    root: &Path,
    path: &Path,
    shown: &str,
    before: Option<&(Vec<u8>, u32)>,
) -> Result<(), String> {
    match before {
        Some((bytes, mode)) => atomic::write_in(root, path, bytes, Some(*mode)),
        None => atomic::remove_in(root, path),
    }
    .map_err(|e| format!("{shown}: could not put it back as it was before the command: {e}"))
}

impl Held {
    /// Writes one accepted change: `content` instead of the proposal's when the user edited it
    /// (`None`: the proposal as it is; an empty text for a deletion keeps it a deletion). The
    /// file must still be as it was proposed against.
    pub fn write(
        &self,
        file: &Proposed,
        content: Option<&[u8]>,
        ws: &Workspace,
        undo: &UndoLog,
        turn: &TurnId,
        by: &ChangedBy,
    ) -> Result<AppliedChange, String> {
        let root = &file.root;
        let path = resolve(ws, root, &file.rel)?;
        let now = current(&path, &file.path)?.map(|(b, m, _)| (b, m));
        if now != file.before {
            return Err(format!(
                "{} changed after the command's version was proposed; it was not written over",
                file.path
            ));
        }
        let after: Option<(Vec<u8>, u32)> = match (content, &file.after) {
            (None, after) => after.clone(),
            (Some([]), None) => None,
            (Some(c), after) => Some((
                c.to_vec(),
                after
                    .as_ref()
                    .or(file.before.as_ref())
                    .map_or(0o644, |(_, m)| *m),
            )),
        };
        undo.save_before(
            turn,
            &file.path,
            file.before.as_ref().map(|(b, m)| (b.as_slice(), *m)),
            by,
        )
        .map_err(|e| format!("{}: {}", file.path, e.message))?;
        match &after {
            Some((bytes, mode)) => {
                atomic::write_in(root, &path, bytes, Some(*mode))
                    .map_err(|e| format!("{}: could not write it: {e}", file.path))?;
                undo.record_written(turn, &file.path, bytes)
                    .map_err(|e| format!("{}: {}", file.path, e.message))?;
            }
            None => {
                atomic::remove_in(root, &path)
                    .map_err(|e| format!("{}: could not delete it: {e}", file.path))?;
                super::remove_empty_parents(root, &path);
                undo.record_removed(turn, &file.path)
                    .map_err(|e| format!("{}: {}", file.path, e.message))?;
            }
        }
        let old = file.before.as_ref().map(|(b, _)| b.as_slice());
        let (kind, (added, removed)) = match (&file.before, &after) {
            (None, Some((new, _))) => (ChangeKind::Created, count_lines(None, new)),
            (Some((o, _)), None) => (ChangeKind::Deleted, (0, count_lines(None, o).1)),
            (Some((o, _)), Some((new, _))) if o == new => (ChangeKind::ModeChanged, (0, 0)),
            (_, Some((new, _))) => (ChangeKind::Modified, count_lines(old, new)),
            (None, None) => (ChangeKind::Deleted, (0, 0)),
        };
        Ok(AppliedChange {
            path: file.path.clone(),
            kind,
            added,
            removed,
        })
    }

    /// Done deciding: the capture dir goes, unless something could not be held or written
    /// (then it is kept, its path in `applied`).
    pub fn finish(&self, applied: &mut Applied) {
        self.captured.finish(applied);
    }
}
