//! The undo log: files' contents before the agent's writes, kept on disk so that undo works after
//! a restart and without git.
//!
//! Layout of the log's directory: `manifest.jsonl`, one record a line (a file's state saved before
//! a turn's first write to it, or a set of saves undone), and `blobs/<seq>`, the saved bytes. The
//! blob and the manifest line are made durable before the file is written, so a crash at any point
//! leaves a log that can put the file back.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tandem_model::TurnId;

use super::{ErrorKind, ToolError, Workspace, atomic};

const MANIFEST: &str = "manifest.jsonl";
const BLOBS: &str = "blobs";
/// The undo log's index is read whole at start; one line a write, so this is years of work.
const MAX_MANIFEST_BYTES: u64 = 256 * 1024 * 1024;
/// The largest file the log saves and puts back: commands change binaries and large files,
/// not only text the edit tools write (whose cap is [`super::text::MAX_FILE_BYTES`]).
pub const MAX_SAVED_BYTES: u64 = 64 * 1024 * 1024;

/// What an undo puts back: one item per file.
#[derive(Debug, Default)]
pub struct UndoPlan {
    pub items: Vec<Restore>,
}

impl UndoPlan {
    /// The files the user changed since the agent last wrote them: restoring them would lose
    /// the user's work, so it needs the user's word.
    pub fn conflicts(&self) -> impl Iterator<Item = (&Restore, &Conflict)> {
        self.items
            .iter()
            .filter_map(|item| item.conflict.as_ref().map(|c| (item, c)))
    }
}

/// How a file differs from what the agent left in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub change: Change,
    /// What restoring would lose: a unified diff from the file now to what would be put back
    /// (for a file that would be deleted, its whole text as removed lines).
    pub lost: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Someone changed the file after the agent wrote it.
    Modified,
    /// The file the agent wrote is gone.
    Deleted,
}

/// One file to put back.
#[derive(Debug)]
pub struct Restore {
    seqs: Vec<u64>,
    /// Relative to the workspace root (absolute in an additional root: what it is keyed by).
    pub display_path: String,
    /// Absolute, resolved inside the workspace.
    pub path: PathBuf,
    /// The bytes to put back; `None`: the turn created the file, so it is deleted.
    pub content: Option<Vec<u8>>,
    mode: Option<u32>,
    /// The workspace root: writes and deletes go through it, never following a link out.
    root: PathBuf,
    /// The file is no longer what the agent left.
    pub conflict: Option<Conflict>,
    /// What the agent last wrote to the file, as a fingerprint (unknown for logs older than it).
    written: Option<u64>,
    /// The agent last deleted the file (a command did): it should still be gone.
    removed: bool,
}

/// How the file (`now`: its bytes, `None` when it is gone) differs from what the agent left
/// (fingerprint `written`), if it does.
fn conflict(item: &Restore, written: u64, now: Option<&[u8]>) -> Option<Conflict> {
    let Some(now) = now else {
        return Some(Conflict {
            change: Change::Deleted,
            lost: String::new(),
        });
    };
    if fingerprint(now) == written {
        return None;
    }
    let now_text = String::from_utf8_lossy(now);
    let back = item.content.as_deref().map(String::from_utf8_lossy);
    let lost = match back {
        Some(back) => super::FileDiff::new(&item.display_path, Some(&now_text), &back).unified,
        // Deleting it loses all of it.
        None => super::FileDiff::new(&item.display_path, Some(&now_text), "").unified,
    };
    Some(Conflict {
        change: Change::Modified,
        lost,
    })
}

impl Restore {
    /// Checks the file's current text (`None`: it is gone) against what the agent left, and
    /// notes a conflict if someone changed it since. Called with the disk's text by
    /// [`UndoLog::plan`]; a caller that knows the editor's text calls it again with that.
    pub fn check(&mut self, now: Option<&[u8]>) {
        self.conflict = if self.removed {
            // Made again since the agent deleted it: putting the old one back loses that.
            now.map(|now| {
                let back = self.content.as_deref().map(String::from_utf8_lossy);
                let now_text = String::from_utf8_lossy(now);
                Conflict {
                    change: Change::Modified,
                    lost: super::FileDiff::new(
                        &self.display_path,
                        Some(&now_text),
                        back.as_deref().unwrap_or(""),
                    )
                    .unified,
                }
            })
        } else {
            self.written.and_then(|w| conflict(self, w, now))
        };
    }

    /// Puts the file back on disk (atomically, with its permissions), or deletes a created one.
    pub fn restore_to_disk(&self) -> Result<(), ToolError> {
        match &self.content {
            Some(bytes) => atomic::write_in(&self.root, &self.path, bytes, self.mode)
                .map_err(|e| super::text::io_error(&self.display_path, &e)),
            None => atomic::remove_in(&self.root, &self.path)
                .map_err(|e| super::text::io_error(&self.display_path, &e)),
        }
    }
}

/// Per-session record of files' contents before the agent's writes, for `tandem/undo`.
/// Lives on disk (in the session's data dir) so undo works after a restart and without git.
#[derive(Debug)]
pub struct UndoLog {
    dir: PathBuf,
    state: Mutex<Vec<Save>>,
}

/// What changed a file: an edit tool, a command the agent ran, an MCP tool (inside the walls).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ChangeSource {
    Edit,
    Command,
    Mcp,
    /// One of the user's hooks, run in the sandbox (a formatter after an edit).
    Hook,
}

/// Who changed a file in a turn: the kind of tool and, where known, its call's id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangedBy {
    pub source: ChangeSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChangedBy {
    pub fn new(source: ChangeSource, tool_call_id: Option<&str>) -> Self {
        Self {
            source,
            tool_call_id: tool_call_id.map(str::to_string),
        }
    }
}

/// A file's state before a turn, as [`UndoLog::turn_saves`] gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Saved {
    /// The file did not exist: the turn created it.
    Absent,
    Bytes(Vec<u8>),
    /// Over the caller's cap: not read.
    TooLarge {
        bytes: u64,
    },
}

/// One file a turn changed, with its state before the turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnSave {
    /// Relative to the workspace root.
    pub display_path: String,
    pub before: Saved,
    /// Who made the turn's first change to it (`None` for logs older than that record).
    pub by: Option<ChangedBy>,
}

/// A file's state before the first write of a turn to it.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Save {
    seq: u64,
    turn: TurnId,
    /// Relative to the workspace root, as shown to the user.
    path: String,
    /// `false`: the turn created the file, so undo deletes it.
    existed: bool,
    /// Permission bits of the file that existed.
    #[serde(default)]
    mode: Option<u32>,
    /// Who made the turn's first change to the file (logs older than it: unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    by: Option<ChangedBy>,
    #[serde(skip)]
    undone: bool,
    /// A fingerprint of what the agent last wrote to the file in this turn.
    #[serde(skip)]
    written: Option<u64>,
    /// The agent last deleted the file in this turn.
    #[serde(skip)]
    removed: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
enum Record {
    Save(Save),
    Undone {
        seqs: Vec<u64>,
    },
    /// The agent wrote the file of save `seq` (again): what it wrote, as a fingerprint.
    Written {
        seq: u64,
        fingerprint: u64,
    },
    /// The agent deleted the file of save `seq` (a command did).
    Removed {
        seq: u64,
    },
}

/// FNV-1a, 64 bits: stable across builds and platforms, enough to notice that a file changed.
fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}

impl UndoLog {
    /// Opens (or creates) the log kept in `dir`.
    pub fn open(dir: &Path) -> std::io::Result<Self> {
        tandem_stdx::private_dir(dir)?;
        tandem_stdx::private_dir(&dir.join(BLOBS))?;
        let mut saves: Vec<Save> = Vec::new();
        match tandem_stdx::regular::open(&dir.join(MANIFEST)) {
            Ok((_, meta)) if meta.len() > MAX_MANIFEST_BYTES => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::FileTooLarge,
                    format!(
                        "{} is {} bytes, over the cap of {MAX_MANIFEST_BYTES}: move it away to \
                         start a new undo log",
                        dir.join(MANIFEST).display(),
                        meta.len()
                    ),
                ));
            }
            Ok((file, _)) => {
                let file = std::io::Read::take(file, MAX_MANIFEST_BYTES);
                for line in std::io::BufReader::new(file).lines() {
                    // A line torn by a crash mid-append is not a record.
                    let Ok(record) = serde_json::from_str::<Record>(&line?) else {
                        continue;
                    };
                    match record {
                        Record::Save(save) => saves.push(save),
                        Record::Undone { seqs } => {
                            for save in saves.iter_mut().filter(|s| seqs.contains(&s.seq)) {
                                save.undone = true;
                            }
                        }
                        Record::Written { seq, fingerprint } => {
                            if let Some(save) = saves.iter_mut().find(|s| s.seq == seq) {
                                save.written = Some(fingerprint);
                                save.removed = false;
                            }
                        }
                        Record::Removed { seq } => {
                            if let Some(save) = saves.iter_mut().find(|s| s.seq == seq) {
                                save.written = None;
                                save.removed = true;
                            }
                        }
                    }
                }
            }
            Err(tandem_stdx::regular::NotRegular::Missing) => {}
            Err(e) => return Err(e.into()),
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            state: Mutex::new(saves),
        })
    }

    /// Saves a file's state (`previous`: its bytes and mode, `None` when it does not exist) before
    /// the first write of `turn` to it; later writes of the same turn keep the first state.
    /// `by`: who is about to change it.
    pub fn save_before(
        &self,
        turn: &TurnId,
        display_path: &str,
        previous: Option<(&[u8], u32)>,
        by: &ChangedBy,
    ) -> Result<(), ToolError> {
        let mut saves = self.lock();
        if saves
            .iter()
            .any(|s| !s.undone && s.turn == *turn && s.path == display_path)
        {
            return Ok(());
        }
        let seq = saves.last().map_or(1, |s| s.seq + 1);
        if let Some((bytes, _)) = previous {
            atomic::write(&self.blob(seq), bytes, Some(0o600)).map_err(|e| self.error(&e))?;
        }
        let save = Save {
            seq,
            turn: turn.clone(),
            path: display_path.to_string(),
            existed: previous.is_some(),
            mode: previous.map(|(_, mode)| mode),
            by: Some(by.clone()),
            undone: false,
            written: None,
            removed: false,
        };
        self.append(&Record::Save(save.clone()))?;
        saves.push(save);
        Ok(())
    }

    /// Remembers what the agent wrote to `display_path` in `turn` (after [`Self::save_before`]),
    /// so that an undo can tell whether someone changed the file since.
    pub fn record_written(
        &self,
        turn: &TurnId,
        display_path: &str,
        bytes: &[u8],
    ) -> Result<(), ToolError> {
        let mut saves = self.lock();
        let Some(save) = saves
            .iter_mut()
            .rev()
            .find(|s| !s.undone && s.turn == *turn && s.path == display_path)
        else {
            return Ok(());
        };
        let fingerprint = fingerprint(bytes);
        save.written = Some(fingerprint);
        save.removed = false;
        let seq = save.seq;
        drop(saves);
        self.append(&Record::Written { seq, fingerprint })
    }

    /// Remembers that the agent deleted `display_path` in `turn` (after [`Self::save_before`]),
    /// so that an undo can tell whether someone made it again since.
    pub fn record_removed(&self, turn: &TurnId, display_path: &str) -> Result<(), ToolError> {
        let mut saves = self.lock();
        let Some(save) = saves
            .iter_mut()
            .rev()
            .find(|s| !s.undone && s.turn == *turn && s.path == display_path)
        else {
            return Ok(());
        };
        save.written = None;
        save.removed = true;
        let seq = save.seq;
        drop(saves);
        self.append(&Record::Removed { seq })
    }

    /// Puts back every file changed in `turn_id` and the turns after it (the last turn that wrote
    /// anything when `None`), deleting files those turns created. Returns the display paths.
    /// What is undone once is not undone again.
    pub fn undo(&self, ws: &Workspace, turn_id: Option<&TurnId>) -> Result<Vec<String>, ToolError> {
        let plan = self.plan(ws, turn_id)?;
        let mut done = Vec::new();
        let mut failures = Vec::new();
        for item in &plan.items {
            match item.restore_to_disk() {
                Ok(()) => done.push(item.display_path.clone()),
                Err(e) => failures.push(format!("{}: {}", item.display_path, e.message)),
            }
        }
        self.commit(&plan, &done, &failures)
    }

    /// What undoing `turn_id` (and the turns after it) would put back, for a caller that writes
    /// some files its own way (through an editor); then [`UndoLog::commit`].
    pub fn plan(&self, ws: &Workspace, turn_id: Option<&TurnId>) -> Result<UndoPlan, ToolError> {
        let saves = self.lock();
        let live = |s: &Save| !s.undone;
        let turn = match turn_id {
            Some(turn) => turn.clone(),
            None => match saves.iter().rev().find(|s| live(s)) {
                Some(last) => last.turn.clone(),
                None => return Ok(UndoPlan::default()),
            },
        };
        let Some(from) = saves.iter().position(|s| live(s) && s.turn == turn) else {
            return Err(ToolError::new(
                ErrorKind::InvalidArguments,
                format!("turn {turn} changed no file that is not already undone"),
            ));
        };
        let range: Vec<&Save> = saves[from..].iter().filter(|s| live(s)).collect();
        let mut items: Vec<Restore> = Vec::new();
        for save in &range {
            // For each file, its state before the first of these writes is the one to restore.
            if let Some(item) = items.iter_mut().find(|i| i.display_path == save.path) {
                item.seqs.push(save.seq);
                continue;
            }
            let path = ws.resolve_for_write(&save.path)?;
            let root = ws.anchor_of(&path).to_path_buf();
            let content = if save.existed {
                Some(
                    tandem_stdx::regular::read(&self.blob(save.seq), MAX_SAVED_BYTES)
                        .map_err(|e| self.error(&e.into()))?
                        .0,
                )
            } else {
                None
            };
            items.push(Restore {
                seqs: vec![save.seq],
                display_path: save.path.clone(),
                path,
                content,
                mode: save.mode,
                root,
                conflict: None,
                written: None,
                removed: false,
            });
        }
        // What the agent last wrote to each file, over every live turn (a later turn's write
        // counts too): the file should still hold it, or the user changed it since.
        for item in &mut items {
            let last = saves
                .iter()
                .rev()
                .find(|s| live(s) && s.path == item.display_path);
            item.written = last.and_then(|s| s.written);
            item.removed = last.is_some_and(|s| s.removed);
            let now = match tandem_stdx::regular::read(&item.path, MAX_SAVED_BYTES) {
                Ok((bytes, _)) => Some(bytes),
                Err(tandem_stdx::regular::NotRegular::Missing) => None,
                // Unreadable: not what the agent left either.
                Err(_) => Some(Vec::new()),
            };
            item.check(now.as_deref());
        }
        Ok(UndoPlan { items })
    }

    /// Records which files of `plan` were put back (by display path), so they are not undone
    /// twice; returns them, or an error naming the `failures`.
    pub fn commit(
        &self,
        plan: &UndoPlan,
        done: &[String],
        failures: &[String],
    ) -> Result<Vec<String>, ToolError> {
        let mut saves = self.lock();
        let undone: Vec<u64> = plan
            .items
            .iter()
            .filter(|i| done.contains(&i.display_path))
            .flat_map(|i| i.seqs.iter().copied())
            .collect();
        if !undone.is_empty() {
            self.append(&Record::Undone {
                seqs: undone.clone(),
            })?;
            for save in saves.iter_mut().filter(|s| undone.contains(&s.seq)) {
                save.undone = true;
            }
        }
        if !failures.is_empty() {
            return Err(ToolError::new(
                ErrorKind::Io,
                format!(
                    "could not undo every file ({} put back). Failed: {}",
                    done.len(),
                    failures.join("; ")
                ),
            ));
        }
        let mut restored: Vec<String> = done.to_vec();
        restored.sort();
        Ok(restored)
    }

    /// The turns with changes not undone, oldest first (each once).
    pub fn turns(&self) -> Vec<TurnId> {
        let saves = self.lock();
        let mut turns: Vec<TurnId> = Vec::new();
        for save in saves.iter().filter(|s| !s.undone) {
            if !turns.contains(&save.turn) {
                turns.push(save.turn.clone());
            }
        }
        turns
    }

    /// The files `turn` changed (the last turn with changes not undone when `None`), each with
    /// its state before the turn and who changed it first; saves already undone are left out.
    /// Read-only. A saved state over `max` bytes is not read, only measured. `Ok(None)`: no such
    /// turn has live changes.
    pub fn turn_saves(
        &self,
        turn: Option<&TurnId>,
        max: u64,
    ) -> Result<Option<(TurnId, Vec<TurnSave>)>, ToolError> {
        self.turn_saves_where(turn, max, &|_| true)
    }

    /// [`Self::turn_saves`] of the files `keep` takes (by display path) only: the others' saved
    /// bytes are not read (a face that shows one command's files reads no more).
    pub fn turn_saves_where(
        &self,
        turn: Option<&TurnId>,
        max: u64,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<Option<(TurnId, Vec<TurnSave>)>, ToolError> {
        let picked: Vec<Save> = {
            let saves = self.lock();
            let turn = match turn {
                Some(turn) => turn.clone(),
                None => match saves.iter().rev().find(|s| !s.undone) {
                    Some(last) => last.turn.clone(),
                    None => return Ok(None),
                },
            };
            saves
                .iter()
                .filter(|s| !s.undone && s.turn == turn && keep(&s.path))
                .cloned()
                .collect()
        };
        let Some(first) = picked.first() else {
            return Ok(None);
        };
        let turn = first.turn.clone();
        let mut out = Vec::with_capacity(picked.len());
        for save in picked {
            let before = if save.existed {
                match tandem_stdx::regular::read(&self.blob(save.seq), max) {
                    Ok((bytes, _)) => Saved::Bytes(bytes),
                    Err(tandem_stdx::regular::NotRegular::TooLarge { len, .. }) => {
                        Saved::TooLarge { bytes: len }
                    }
                    Err(e) => return Err(self.error(&e.into())),
                }
            } else {
                Saved::Absent
            };
            out.push(TurnSave {
                display_path: save.path,
                before,
                by: save.by,
            });
        }
        Ok(Some((turn, out)))
    }

    /// Appends one record and waits until it is on disk.
    fn append(&self, record: &Record) -> Result<(), ToolError> {
        let mut line = serde_json::to_string(record)
            .map_err(|e| ToolError::new(ErrorKind::Io, format!("undo log: {e}")))?;
        line.push('\n');
        let result = (|| {
            let mut file = tandem_stdx::private_file()
                .create(true)
                .append(true)
                .open(self.dir.join(MANIFEST))?;
            file.write_all(line.as_bytes())?;
            file.sync_data()
        })();
        result.map_err(|e| self.error(&e))
    }

    fn blob(&self, seq: u64) -> PathBuf {
        self.dir.join(BLOBS).join(seq.to_string())
    }

    fn error(&self, e: &std::io::Error) -> ToolError {
        ToolError::new(
            ErrorKind::Io,
            format!(
                "the undo log in {} failed: {e}; nothing was written",
                self.dir.display()
            ),
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Save>> {
        tandem_stdx::lock(&self.state)
    }
}
