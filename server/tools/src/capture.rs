//! A command's writes to the workspace, caught by its walls ([`tandem_sandbox::capture`]: an
//! overlay whose upper dir holds them), applied to the real workspace once the command is over,
//! each file's earlier content saved in the undo log first, as edits are. The workspace's
//! additional roots (those outside the primary one) are captured the same way, each on its own
//! ([`Part`]), their files named as the edit tools name them (the root's absolute path, `/` and
//! the rest), so undo, review and the turn's changes find them.
//!
//! What is applied and how:
//! * every change is checked before any is written: a change that can't be applied (a path
//!   that leads out of its root through a link, anything in a `.git`, a file the user changed on the real side
//!   while the command ran, a file over [`MAX_SAVED_BYTES`], a link, FIFO, socket or device the
//!   command made) is reported, and the capture dir is kept (its path in the report) so nothing
//!   is lost; the rest is applied;
//! * each file is saved in the undo log (blob and manifest line durable) before it is replaced
//!   atomically or deleted, so a crash leaves every file old or new with its save in the log;
//! * files the workspace's `.gitignore` ignores (and those under the pass-through names) are
//!   written through without a save: they are build output and dependencies;
//! * a file only touched (same bytes and mode) is no change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tandem_model::TurnId;
use tandem_sandbox::capture::{CaptureDir, UpperEntry};

use super::undo::MAX_SAVED_BYTES;
use super::{ChangedBy, UndoLog, Workspace, atomic};

pub mod held;

/// The directories that pass through the overlay unrecorded, by name, wherever they are in the
/// first levels (`passthrough::PASSTHROUGH_DEPTH`; besides what `.gitignore` ignores there).
pub const DEFAULT_PASSTHROUGH: &[&str] = &["target", "node_modules", ".venv"];
/// Past this many paths in the upper dir, nothing is applied (the capture dir is kept).
pub const DEFAULT_MAX_PATHS: usize = 20_000;
/// Past this many bytes of files (their sizes added up), the rest of a root's writes is not
/// applied (the capture dir is kept): a command's few kilobytes of sparse files must not fill
/// the user's disk.
pub const MAX_APPLIED_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// The mode bits no command's file keeps: setuid and setgid (a binary left setuid-root in the
/// workspace gives anyone who runs it root).
const SET_ID_BITS: u32 = 0o6000;
/// Line counts are only worked out for text files up to this size.
const MAX_COUNTED_BYTES: u64 = 1024 * 1024;

/// How commands' writes are captured; set by the user, never the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureSettings {
    /// Where each command's capture dir goes (Tandem's data dir), ideally on the workspace's
    /// filesystem.
    pub scratch: PathBuf,
    /// Directory names that pass through unrecorded (see [`DEFAULT_PASSTHROUGH`]).
    pub passthrough: Vec<String>,
    pub max_paths: usize,
}

impl CaptureSettings {
    pub fn new(scratch: PathBuf) -> Self {
        Self {
            scratch,
            passthrough: DEFAULT_PASSTHROUGH.iter().map(|s| s.to_string()).collect(),
            max_paths: DEFAULT_MAX_PATHS,
        }
    }
}

/// A finished command's writes, held in its capture dir until [`apply`] (or, where no overlay
/// caught them, already in the workspace and known from a snapshot taken before).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    /// Each root written: the workspace's primary root first, then its additional roots.
    pub(crate) parts: Vec<Part>,
    /// The command's capture dir, holding every root's overlay (`None`: snapshots).
    pub(crate) dir: Option<CaptureDir>,
    /// When the command started: a real file changed after it was changed by someone else.
    pub(crate) started: std::time::SystemTime,
    pub(crate) passthrough: Vec<String>,
    pub(crate) max_paths: usize,
}

/// One root's writes: its overlay's dir, or its snapshot from before the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    pub(crate) root: PathBuf,
    pub(crate) how: How,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum How {
    Overlay(CaptureDir),
    Snapshot(super::snapshot::Snapshot),
}

impl Captured {
    /// The capture dir holding the command's writes, if they are held.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_ref().map(CaptureDir::path)
    }

    /// Drops the writes held (the command never ran).
    pub(crate) fn discard(&self) {
        if let Some(dir) = &self.dir {
            let _ = dir.remove();
        }
    }

    /// Whether an overlay's upper dir still holds something: what a problem left unapplied.
    fn holds_writes(&self) -> bool {
        self.parts.iter().any(|part| match &part.how {
            How::Overlay(dir) => std::fs::read_dir(dir.upper())
                .map(|mut entries| entries.next().is_some())
                .unwrap_or(false),
            How::Snapshot(_) => false,
        })
    }

    /// Done with the capture dir: removed, unless a problem left writes in it (then kept, its
    /// path in `applied`, so nothing is lost).
    pub(crate) fn finish(&self, applied: &mut Applied) {
        let Some(dir) = &self.dir else {
            return;
        };
        if !applied.problems.is_empty() && self.holds_writes() {
            applied.kept = Some(dir.path().to_path_buf());
        } else if let Err(e) = dir.remove() {
            tracing::warn!(dir = %dir.path().display(), "could not remove a capture dir: {e}");
        }
    }
}

/// One file a command changed, as applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppliedChange {
    /// As the tools show it: relative to the primary root, `/`-separated; in an additional
    /// root, that root's absolute path, `/` and the rest.
    pub path: String,
    pub kind: ChangeKind,
    /// Lines added and removed (0 and 0 for binary or large files and mode changes).
    pub added: usize,
    pub removed: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    Created,
    Modified,
    Deleted,
    Renamed { from: String },
    ModeChanged,
}

/// What [`apply`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Recorded in the undo log, sorted by path.
    pub changes: Vec<AppliedChange>,
    /// Files written or deleted through without a save (ignored build output).
    pub unrecorded: usize,
    /// What could not be applied, one sentence each.
    pub problems: Vec<String>,
    /// The capture dir, kept because of the problems.
    pub kept: Option<PathBuf>,
    /// Under review: the files the user did not accept, not written.
    pub rejected: Vec<String>,
    /// Under review: binary files and mode changes, which can't be shown as an edit, applied
    /// without asking (in `changes`, saved for undo).
    pub unreviewed: Vec<String>,
}

/// The most changes named in the model's summary; the rest are counted.
const MAX_LISTED: usize = 30;

impl Applied {
    /// Adds what one root's capture did.
    fn merge(&mut self, other: Applied) {
        self.changes.extend(other.changes);
        self.unrecorded += other.unrecorded;
        self.problems.extend(other.problems);
        self.rejected.extend(other.rejected);
        self.unreviewed.extend(other.unreviewed);
    }

    /// A short text for the model: each change with its stat (bounded), then the problems.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        if !self.changes.is_empty() {
            out.push_str(&format!(
                "[files changed by the command ({}), applied to the workspace and recorded for undo:\n",
                self.changes.len()
            ));
            for change in self.changes.iter().take(MAX_LISTED) {
                let stat = match (change.added, change.removed) {
                    (0, 0) => String::new(),
                    (a, r) => format!(" +{a} -{r}"),
                };
                let what = match &change.kind {
                    ChangeKind::Created => "created".to_string(),
                    ChangeKind::Modified => "modified".to_string(),
                    ChangeKind::Deleted => "deleted".to_string(),
                    ChangeKind::Renamed { from } => format!("renamed from {from}"),
                    ChangeKind::ModeChanged => "mode changed".to_string(),
                };
                out.push_str(&format!("  {} ({what}{stat})\n", change.path));
            }
            if self.changes.len() > MAX_LISTED {
                out.push_str(&format!(
                    "  ... and {} more\n",
                    self.changes.len() - MAX_LISTED
                ));
            }
            out.push_str("]\n");
        }
        if self.unrecorded > 0 {
            out.push_str(&format!(
                "[{} ignored files (build output, .gitignore) written through unrecorded]\n",
                self.unrecorded
            ));
        }
        if !self.unreviewed.is_empty() {
            out.push_str(&format!(
                "[applied without review (binary or mode changes can't be shown as an edit; undo \
                 takes them back): {}]\n",
                self.unreviewed.join(", ")
            ));
        }
        if !self.rejected.is_empty() {
            out.push_str(&format!(
                "[not applied, the user rejected the command's changes to ({}): {}]\n",
                self.rejected.len(),
                self.rejected.join(", ")
            ));
        }
        for problem in &self.problems {
            out.push_str(&format!("[not applied: {problem}]\n"));
        }
        if let Some(kept) = &self.kept {
            out.push_str(&format!(
                "[what was not applied is kept in {}]\n",
                kept.display()
            ));
        }
        out
    }
}

/// One change to apply.
enum Op {
    Write { rel: PathBuf, mode: u32 },
    Delete { rel: PathBuf },
    MakeDir { rel: PathBuf },
}

/// Applies a finished command's writes to the workspace (see the module's documentation),
/// recording each in `undo` for `turn`, by `by`: each root's in turn.
pub fn apply(
    captured: &Captured,
    ws: &Workspace,
    undo: &UndoLog,
    turn: &TurnId,
    by: &ChangedBy,
) -> Applied {
    let mut applied = Applied::default();
    for part in &captured.parts {
        applied.merge(match &part.how {
            How::Overlay(dir) => apply_overlay(captured, part, dir, ws, undo, turn, by),
            How::Snapshot(before) => record_snapshot(captured, part, before, ws, undo, turn, by),
        });
    }
    applied.changes.sort_by(|a, b| a.path.cmp(&b.path));
    captured.finish(&mut applied);
    applied
}

/// The problem of a root whose overlay the launcher could not mount: the command wrote there
/// itself, `unrecorded` (how: unrecorded, or unreviewed and unrecorded).
fn not_captured(ws: &Workspace, part: &Part, why: &str, unrecorded: &str) -> String {
    let over = if part.root == ws.root() {
        "this workspace".to_string()
    } else {
        format!("the additional root {}", part.root.display())
    };
    format!(
        "the overlay could not be mounted over {over} ({}); the command wrote there itself, \
         {unrecorded}",
        why.trim()
    )
}

/// One root's overlay, applied.
fn apply_overlay(
    captured: &Captured,
    part: &Part,
    dir: &CaptureDir,
    ws: &Workspace,
    undo: &UndoLog,
    turn: &TurnId,
    by: &ChangedBy,
) -> Applied {
    let mut applied = Applied::default();
    if let Some(why) = dir.not_captured() {
        applied.problems.push(not_captured(
            ws,
            part,
            &why,
            "and its changes there are not recorded for undo",
        ));
        return applied;
    }
    let Some(ops) = gather(captured, part, dir, ws, &mut applied) else {
        return applied;
    };
    let root = &part.root;
    let rules = super::passthrough::ignore_rules(root, &captured.passthrough);
    let mut deleted: HashMap<String, u64> = HashMap::new();
    for op in ops {
        match op {
            Op::MakeDir { rel } => {
                if let Err(e) = make_dir(ws, root, &rel) {
                    applied.problems.push(e);
                }
            }
            Op::Write { rel, mode } => {
                let is_ignored = super::passthrough::ignored(&rules, root, &rel, false);
                match write_one(
                    captured, part, dir, ws, undo, turn, by, &rel, mode, is_ignored,
                ) {
                    Ok(Some(change)) => applied.changes.push(change),
                    Ok(None) if is_ignored => applied.unrecorded += 1,
                    Ok(None) => {}
                    Err(e) => applied.problems.push(e),
                }
            }
            Op::Delete { rel } => {
                let is_ignored = super::passthrough::ignored(&rules, root, &rel, false);
                match delete_one(captured, part, ws, undo, turn, by, &rel, is_ignored) {
                    Ok(Some((change, hash))) => {
                        deleted.insert(change.path.clone(), hash);
                        applied.changes.push(change);
                    }
                    Ok(None) if is_ignored => applied.unrecorded += 1,
                    Ok(None) => {}
                    Err(e) => applied.problems.push(e),
                }
            }
        }
    }
    pair_renames(&mut applied.changes, &deleted, ws);
    applied
}

/// The changes an overlay's upper dir holds, in order; `None` (with the problem in `applied` and
/// the dir kept) when it can't be read.
fn gather(
    captured: &Captured,
    part: &Part,
    dir: &CaptureDir,
    ws: &Workspace,
    applied: &mut Applied,
) -> Option<Vec<Op>> {
    let upper = dir.upper();
    let entries = match read_entries(&upper, captured.max_paths) {
        Ok(entries) => entries,
        Err(e) => {
            applied.problems.push(format!(
                "{e}{}; nothing of it was applied (the cap is {} paths)",
                match part.root == ws.root() {
                    true => String::new(),
                    false => format!(" in {}", part.root.display()),
                },
                captured.max_paths
            ));
            return None;
        }
    };
    let root = &part.root;
    let mut ops = Vec::new();
    let mut bytes = 0u64;
    let mut repositories = HashMap::new();
    for entry in entries {
        if let Some(repository) = in_repository(&upper, root, entry.path(), &mut repositories) {
            applied.problems.push(format!(
                "{} is inside {}, a git repository's directory, which a sandboxed command may \
                 not change (git runs what its config says); to change it, ask to run the \
                 command with outsideSandbox, which the user must approve",
                shown(ws, root, entry.path()),
                shown(ws, root, &repository)
            ));
            continue;
        }
        match entry {
            UpperEntry::File { path, mode, size } => {
                if size > MAX_SAVED_BYTES {
                    applied.problems.push(format!(
                        "{} is {size} bytes, over the cap of {MAX_SAVED_BYTES} the undo log keeps",
                        shown(ws, root, &path)
                    ));
                    continue;
                }
                if bytes + size > MAX_APPLIED_BYTES {
                    applied.problems.push(format!(
                        "{} would take the command's files past {MAX_APPLIED_BYTES} bytes \
                         ({bytes} so far, this one {size}), the most one command applies",
                        shown(ws, root, &path)
                    ));
                    continue;
                }
                bytes += size;
                let mode = without_set_id(mode, &shown(ws, root, &path), applied);
                ops.push(Op::Write { rel: path, mode });
            }
            UpperEntry::Dir { path } => ops.push(Op::MakeDir { rel: path }),
            UpperEntry::Opaque { path } => {
                // Whatever the real directory holds that the upper one doesn't was deleted.
                for rel in real_files(root, &path) {
                    if std::fs::symlink_metadata(upper.join(&rel)).is_err() {
                        ops.push(Op::Delete { rel });
                    }
                }
                ops.push(Op::MakeDir { rel: path });
            }
            UpperEntry::Deleted { path } => match std::fs::symlink_metadata(root.join(&path)) {
                Ok(meta) if meta.is_dir() => {
                    for rel in real_files(root, &path) {
                        ops.push(Op::Delete { rel });
                    }
                }
                Ok(_) => ops.push(Op::Delete { rel: path }),
                // Made and deleted by the command: nothing to do.
                Err(_) => {}
            },
            UpperEntry::Special { path, what } => applied.problems.push(format!(
                "{} is {what}, which is never applied to the workspace",
                shown(ws, root, &path)
            )),
        }
    }
    Some(ops)
}

/// The git directory by another name than `.git` (a bare `x.git`) that is or holds `rel`, in
/// the command's upper dir or the real root, if any; `seen` remembers each directory's answer.
fn in_repository(
    upper: &Path,
    root: &Path,
    rel: &Path,
    seen: &mut HashMap<PathBuf, bool>,
) -> Option<PathBuf> {
    rel.ancestors()
        .filter(|dir| !dir.as_os_str().is_empty())
        .find(|dir| {
            *seen.entry(dir.to_path_buf()).or_insert_with(|| {
                tandem_sandbox::gitdirs::is_repository_dir(&upper.join(dir))
                    || tandem_sandbox::gitdirs::is_repository_dir(&root.join(dir))
            })
        })
        .map(Path::to_path_buf)
}

/// `mode` without its setuid and setgid bits, the problem told when it had them.
pub(super) fn without_set_id(mode: u32, shown: &str, applied: &mut Applied) -> u32 {
    if mode & SET_ID_BITS != 0 {
        applied.problems.push(format!(
            "{shown}: the command set its setuid or setgid bit (mode {mode:o}); the file is \
             applied as {:o}, since no command's file keeps those bits",
            mode & !SET_ID_BITS
        ));
    }
    mode & !SET_ID_BITS
}

/// Takes the setuid and setgid bits off a file a command wrote in the workspace itself (its
/// sandbox refuses to set them; this holds where one was set anyway): the mode it has then.
#[cfg(unix)]
fn strip_set_id(path: &Path, mode: u32, shown: &str, applied: &mut Applied) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    if mode & SET_ID_BITS == 0 {
        return mode;
    }
    let kept = without_set_id(mode, shown, applied);
    if let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(kept)) {
        applied.problems.push(format!(
            "{shown}: could not take its setuid or setgid bit off: {e}; remove it (chmod ug-s)"
        ));
        return mode;
    }
    kept
}

#[cfg(not(unix))]
fn strip_set_id(_path: &Path, mode: u32, _shown: &str, _applied: &mut Applied) -> u32 {
    mode
}

/// The record of a command that wrote to the workspace itself: what differs from the snapshot
/// taken before it, saved in the undo log as if applied.
fn record_snapshot(
    captured: &Captured,
    part: &Part,
    before: &super::snapshot::Snapshot,
    ws: &Workspace,
    undo: &UndoLog,
    turn: &TurnId,
    by: &ChangedBy,
) -> Applied {
    use super::snapshot::Difference;
    let mut applied = Applied::default();
    let mut deleted: HashMap<String, u64> = HashMap::new();
    let root = &part.root;
    for difference in super::snapshot::differences(root, &captured.passthrough, before) {
        let mut stripped = Applied::default();
        let result = match difference {
            Difference::Written { rel, before } => (|| {
                let real = root.join(&rel);
                let rel = shown(ws, root, Path::new(&rel));
                let (now, meta) =
                    tandem_stdx::regular::read(&real, MAX_SAVED_BYTES).map_err(|e| {
                        format!(
                            "{rel}: could not read it to record it: {}",
                            std::io::Error::from(e)
                        )
                    })?;
                let mode = strip_set_id(&real, mode_of(&meta), &rel, &mut stripped);
                if let Some((old, old_mode)) = &before
                    && **old == now
                    && *old_mode == mode
                {
                    return Ok(None);
                }
                undo.save_before(
                    turn,
                    &rel,
                    before.as_ref().map(|(b, m)| (b.as_slice(), *m)),
                    by,
                )
                .and_then(|()| undo.record_written(turn, &rel, &now))
                .map_err(|e| format!("{rel}: {}", e.message))?;
                let (kind, (added, removed)) = match &before {
                    None => (ChangeKind::Created, count_lines(None, &now)),
                    Some((old, _)) if **old == now => (ChangeKind::ModeChanged, (0, 0)),
                    Some((old, _)) => (ChangeKind::Modified, count_lines(Some(old), &now)),
                };
                Ok(Some(AppliedChange {
                    path: rel,
                    kind,
                    added,
                    removed,
                }))
            })(),
            Difference::Deleted { rel, before } => (|| {
                let rel = shown(ws, root, Path::new(&rel));
                undo.save_before(turn, &rel, Some((before.0.as_slice(), before.1)), by)
                    .and_then(|()| undo.record_removed(turn, &rel))
                    .map_err(|e| format!("{rel}: {}", e.message))?;
                deleted.insert(rel.clone(), hash(&before.0));
                Ok(Some(AppliedChange {
                    path: rel,
                    kind: ChangeKind::Deleted,
                    added: 0,
                    removed: count_lines(None, &before.0).1,
                }))
            })(),
            Difference::Uncovered { rel } => Err(format!(
                "{} changed, but the snapshot taken before the command did not hold it (over \
                 {} bytes or past its caps): not recorded for undo",
                shown(ws, root, Path::new(&rel)),
                super::snapshot::MAX_FILE_BYTES
            )),
        };
        applied.problems.append(&mut stripped.problems);
        match result {
            Ok(Some(change)) => applied.changes.push(change),
            Ok(None) => {}
            Err(e) => applied.problems.push(e),
        }
    }
    pair_renames(&mut applied.changes, &deleted, ws);
    applied
}

#[cfg(target_os = "linux")]
fn read_entries(upper: &Path, max: usize) -> std::io::Result<Vec<UpperEntry>> {
    tandem_sandbox::capture::read_upper(upper, max)
}

#[cfg(not(target_os = "linux"))]
fn read_entries(_upper: &Path, _max: usize) -> std::io::Result<Vec<UpperEntry>> {
    Err(std::io::Error::other(
        "a command's writes are only captured on Linux",
    ))
}

/// What the user, the model, the undo log and the edit tools call `rel` in the captured root
/// `root` ([`Workspace::display_path`]: `rel` itself in the primary root; in an additional one,
/// its absolute path).
fn shown(ws: &Workspace, root: &Path, rel: &Path) -> String {
    ws.display_path(&root.join(rel))
}

/// The regular files under `root/rel` (not following links), relative to `root`.
fn real_files(root: &Path, rel: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![rel.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(root.join(&dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let rel = dir.join(entry.file_name());
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(rel),
                Ok(_) => out.push(rel),
                Err(_) => {}
            }
        }
    }
    out.sort();
    out
}

/// The real path of `rel` in the captured root `root`, refused if it is in a `.git` or leads
/// out of that root (a link to another root too: each root's writes are its own overlay's).
fn resolve(ws: &Workspace, root: &Path, rel: &Path) -> Result<PathBuf, String> {
    let shown = shown(ws, root, rel);
    if rel
        .components()
        .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
    {
        // Git runs what a .git holds, outside every wall: a command's repository never lands.
        return Err(format!(
            "{shown} is inside a .git directory, which a sandboxed command may not change; to \
             change the repository, ask to run the command with outsideSandbox, which the user \
             must approve"
        ));
    }
    let real = ws
        .resolve_for_write(&shown)
        .map_err(|e| format!("{shown}: {}", e.message))?;
    if !real.starts_with(root) {
        return Err(format!(
            "{shown}: it leads through a symbolic link to {}, outside {}; not written",
            real.display(),
            root.display()
        ));
    }
    Ok(real)
}

fn make_dir(ws: &Workspace, root: &Path, rel: &Path) -> Result<(), String> {
    let path = resolve(ws, root, rel)?;
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(format!(
            "{}: the command made a directory where the workspace now has a file",
            shown(ws, root, rel)
        )),
        Err(_) => std::fs::create_dir_all(&path).map_err(|e| {
            format!(
                "{}: could not create the directory: {e}",
                shown(ws, root, rel)
            )
        }),
    }
}

/// The real file's bytes and mode, `None` when there is none; an error for what is there but
/// isn't a regular file.
fn current(path: &Path, shown: &str) -> Result<Option<(Vec<u8>, u32, std::fs::Metadata)>, String> {
    match tandem_stdx::regular::read(path, MAX_SAVED_BYTES) {
        Ok((bytes, meta)) => {
            let mode = mode_of(&meta);
            Ok(Some((bytes, mode, meta)))
        }
        Err(tandem_stdx::regular::NotRegular::Missing) => Ok(None),
        Err(e) => Err(format!(
            "{shown}: what the workspace has there can't be replaced ({})",
            std::io::Error::from(e)
        )),
    }
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

/// Whether the real file changed after the command started: someone else wrote it meanwhile.
fn changed_meanwhile(meta: &std::fs::Metadata, started: std::time::SystemTime) -> bool {
    meta.modified().is_ok_and(|m| m > started)
}

/// A file the command wrote, with the workspace's file it replaces (`None`: it creates one).
pub(super) struct Written {
    pub shown: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub before: Option<(Vec<u8>, u32, std::fs::Metadata)>,
}

/// What the command wrote at `rel` against the workspace's file: `None` when they are the same
/// (bytes and mode), an error when the workspace's file changed while the command ran (the
/// command's version is then not `what`: written, proposed).
pub(super) fn written(
    captured: &Captured,
    part: &Part,
    dir: &CaptureDir,
    ws: &Workspace,
    rel: &Path,
    mode: u32,
    what: &str,
) -> Result<Option<Written>, String> {
    let shown = shown(ws, &part.root, rel);
    let path = resolve(ws, &part.root, rel)?;
    let (bytes, _) =
        tandem_stdx::regular::read(&dir.upper().join(rel), MAX_SAVED_BYTES).map_err(|e| {
            format!(
                "{shown}: could not read the command's file: {}",
                std::io::Error::from(e)
            )
        })?;
    let before = current(&path, &shown)?;
    if let Some((old, old_mode, meta)) = &before {
        if *old == bytes && *old_mode == mode {
            return Ok(None);
        }
        if changed_meanwhile(meta, captured.started) {
            return Err(format!(
                "{shown} was changed by someone else while the command ran; the command's \
                 version was not {what} over it"
            ));
        }
    }
    Ok(Some(Written {
        shown,
        path,
        bytes,
        before,
    }))
}

/// A workspace file the command deleted, with what it held.
pub(super) struct Deleted {
    pub shown: String,
    pub path: PathBuf,
    pub old: Vec<u8>,
    pub mode: u32,
}

/// The workspace's file at `rel` the command deleted: `None` when it is gone already, an error
/// when it changed while the command ran (it is kept).
pub(super) fn deleted(
    captured: &Captured,
    part: &Part,
    ws: &Workspace,
    rel: &Path,
) -> Result<Option<Deleted>, String> {
    let shown = shown(ws, &part.root, rel);
    let path = resolve(ws, &part.root, rel)?;
    let Some((old, mode, meta)) = current(&path, &shown)? else {
        return Ok(None);
    };
    if changed_meanwhile(&meta, captured.started) {
        return Err(format!(
            "{shown} was changed by someone else while the command ran, which deleted it; it \
             was kept"
        ));
    }
    Ok(Some(Deleted {
        shown,
        path,
        old,
        mode,
    }))
}

#[allow(clippy::too_many_arguments)]
fn write_one(
    captured: &Captured,
    part: &Part,
    dir: &CaptureDir,
    ws: &Workspace,
    undo: &UndoLog,
    turn: &TurnId,
    by: &ChangedBy,
    rel: &Path,
    mode: u32,
    is_ignored: bool,
) -> Result<Option<AppliedChange>, String> {
    let Some(Written {
        shown,
        path,
        bytes,
        before,
    }) = written(captured, part, dir, ws, rel, mode, "written")?
    else {
        return Ok(None);
    };
    if !is_ignored {
        undo.save_before(
            turn,
            &shown,
            before.as_ref().map(|(b, m, _)| (b.as_slice(), *m)),
            by,
        )
        .map_err(|e| format!("{shown}: {}", e.message))?;
    }
    atomic::write_in(&part.root, &path, &bytes, Some(mode))
        .map_err(|e| format!("{shown}: could not write it: {e}"))?;
    if is_ignored {
        return Ok(None);
    }
    undo.record_written(turn, &shown, &bytes)
        .map_err(|e| format!("{shown}: {}", e.message))?;
    let (kind, (added, removed)) = match &before {
        None => (ChangeKind::Created, count_lines(None, &bytes)),
        Some((old, _, _)) if *old == bytes => (ChangeKind::ModeChanged, (0, 0)),
        Some((old, _, _)) => (ChangeKind::Modified, count_lines(Some(old), &bytes)),
    };
    Ok(Some(AppliedChange {
        path: shown,
        kind,
        added,
        removed,
    }))
}

#[allow(clippy::too_many_arguments)]
fn delete_one(
    captured: &Captured,
    part: &Part,
    ws: &Workspace,
    undo: &UndoLog,
    turn: &TurnId,
    by: &ChangedBy,
    rel: &Path,
    is_ignored: bool,
) -> Result<Option<(AppliedChange, u64)>, String> {
    let Some(Deleted {
        shown,
        path,
        old,
        mode,
    }) = deleted(captured, part, ws, rel)?
    else {
        return Ok(None);
    };
    if !is_ignored {
        undo.save_before(turn, &shown, Some((&old, mode)), by)
            .map_err(|e| format!("{shown}: {}", e.message))?;
    }
    atomic::remove_in(&part.root, &path)
        .map_err(|e| format!("{shown}: could not delete it: {e}"))?;
    remove_empty_parents(&part.root, &path);
    if is_ignored {
        return Ok(None);
    }
    undo.record_removed(turn, &shown)
        .map_err(|e| format!("{shown}: {}", e.message))?;
    let (_, removed) = count_lines(None, &old);
    Ok(Some((
        AppliedChange {
            path: shown,
            kind: ChangeKind::Deleted,
            added: 0,
            removed,
        },
        hash(&old),
    )))
}

/// A directory emptied by a deletion goes too, as the command removed it with its files (a
/// folder renamed leaves no empty folder behind); never the root, never a directory with
/// anything left in it.
fn remove_empty_parents(root: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == root || !d.starts_with(root) || std::fs::remove_dir(d).is_err() {
            return;
        }
        dir = d.parent();
    }
}

/// Lines added and removed from `old` to `new`, for text files of a bounded size.
fn count_lines(old: Option<&[u8]>, new: &[u8]) -> (usize, usize) {
    fn text(b: &[u8]) -> Option<&str> {
        (b.len() as u64 <= MAX_COUNTED_BYTES && !b.contains(&0))
            .then(|| std::str::from_utf8(b).ok())
            .flatten()
    }
    let Some(new_text) = text(new) else {
        return (0, 0);
    };
    let old_text = match old {
        Some(old) => match text(old) {
            Some(t) => Some(t),
            None => return (0, 0),
        },
        None => None,
    };
    let diff = super::FileDiff::new("", old_text, new_text);
    (diff.added, diff.removed)
}

fn hash(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// A created file with the same name and bytes as a deleted one was moved: one `Renamed`
/// change for the two (each still has its own save in the undo log).
fn pair_renames(changes: &mut Vec<AppliedChange>, deleted: &HashMap<String, u64>, ws: &Workspace) {
    let name = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let mut used: Vec<String> = Vec::new();
    for change in changes.iter_mut() {
        if change.kind != ChangeKind::Created {
            continue;
        }
        let Ok(path) = ws.resolve(&change.path) else {
            continue;
        };
        let Ok((bytes, _)) = tandem_stdx::regular::read(&path, MAX_SAVED_BYTES) else {
            continue;
        };
        let h = hash(&bytes);
        let from = deleted
            .iter()
            .filter(|(p, dh)| **dh == h && name(p) == name(&change.path) && !used.contains(p))
            .map(|(p, _)| p.clone())
            .min();
        if let Some(from) = from {
            used.push(from.clone());
            change.kind = ChangeKind::Renamed { from };
            (change.added, change.removed) = (0, 0);
        }
    }
    changes.retain(|c| !(c.kind == ChangeKind::Deleted && used.contains(&c.path)));
}

/// Whether commands' writes can be captured here, with capture dirs in `scratch`: `Ok`, or why
/// not. Asked of the launcher once per process.
pub fn available(scratch: &Path) -> Result<(), String> {
    static PROBED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    PROBED
        .get_or_init(|| {
            if cfg!(target_os = "linux") {
                tandem_sandbox::launch::probe_capture(&scratch.join("probe"))
            } else {
                Err("the overlay capture exists only on Linux".to_string())
            }
        })
        .clone()
}

#[cfg(all(test, target_os = "linux"))]
mod tests;
