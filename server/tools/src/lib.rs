//! What the agent can do to the workspace: read, list, search, write, edit, run.
//!
//! Every path is resolved against the workspace root before any I/O ([`Workspace::resolve`]).
//! Read-only tools run at once ([`Prepared::Done`]); edits and commands come back as proposals
//! that the agent core puts to the user, then applies ([`apply_edit`]) or runs ([`run_command`]).
//! Knows nothing of models, sessions or editors.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use tandem_model::TurnId;

mod args;
mod atomic;
mod builtin;
pub mod capture;
mod command;
mod diff;
mod edit;
pub mod fetch;
mod files;
mod hook;
mod list;
mod passthrough;
mod paths;
mod process;
mod read;
pub mod registry;
mod search;
pub mod snapshot;
mod text;
mod tool;
mod toolset;
mod undo;
mod walk;
mod write;

pub use builtin::{ExecuteCommand, ListFiles, ReadFile, ReplaceInFile, SearchFiles, WriteToFile};
pub use command::Walls;
pub use diff::{FileDiff, Hunk, unified_diff};
pub use edit::search_replace_pairs;
pub use fetch::FetchUrl;
pub use hook::{HookCommand, HookExit, MAX_HOOK_OUTPUT, run_hook};
pub use list::folder_listing;
pub use process::dialect as shell_dialect;
pub use read::ReadTracker;
pub use registry::{Cut, Effect, Registry, Runs, ToolSpec};
pub use tool::{CallInfo, ToolKind, ToolTarget};
pub use toolset::describe;
pub use undo::{
    Change, ChangeSource, ChangedBy, Conflict, Restore, Saved, TurnSave, UndoLog, UndoPlan,
};

/// Why a tool call failed. Goes back to the model as the tool result, so it can correct itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{kind}: {message}")]
pub struct ToolError {
    pub kind: ErrorKind,
    pub message: String,
}

impl ToolError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// The error kinds, as `tandem tool` prints them and the model sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    NoSuchFile,
    OutsideWorkspace,
    BinaryFile,
    TooLarge,
    InvalidArguments,
    UnknownTool,
    Stale,
    Timeout,
    Cancelled,
    Io,
    // replace_in_file (see tests/fixtures/edit-cases/README.md)
    NotFound,
    Ambiguous,
    Overlap,
    Placeholder,
    Invalid,
    // fetch_url
    /// A URL, address or content type the tool will not fetch.
    Refused,
    /// The server could not be reached or answered with an error.
    Network,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NoSuchFile => "no_such_file",
            ErrorKind::OutsideWorkspace => "outside_workspace",
            ErrorKind::BinaryFile => "binary_file",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::InvalidArguments => "invalid_arguments",
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::Stale => "stale",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Io => "io",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::Overlap => "overlap",
            ErrorKind::Placeholder => "placeholder",
            ErrorKind::Invalid => "invalid",
            ErrorKind::Refused => "refused",
            ErrorKind::Network => "network",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A proposed change to one file, waiting for the user's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditProposal {
    /// Absolute, resolved inside the workspace.
    pub path: PathBuf,
    /// Relative to the workspace root, with `/` separators: what the user and the model see.
    pub display_path: String,
    /// The file's text when the proposal was made; `None` when the file does not exist yet.
    pub original: Option<String>,
    /// The whole proposed text.
    pub proposed: String,
    /// `original` to `proposed`.
    pub diff: FileDiff,
}

/// A command the model wants to run, waiting for the user's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandProposal {
    pub command: String,
    /// Runs inside the sandbox (the model did not ask to leave it).
    pub sandboxed: bool,
    /// Absolute, inside the workspace.
    pub cwd: PathBuf,
    /// Relative to the workspace root (`.` for the root).
    pub display_cwd: String,
    pub timeout: Duration,
}

/// What a tool call turned into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prepared {
    /// A read-only tool ran; this is its output for the model.
    Done(String),
    /// `write_to_file` or `replace_in_file`: nothing is written until [`apply_edit`].
    Edit(EditProposal),
    /// `execute_command`: nothing runs until [`run_command`].
    Command(CommandProposal),
}

/// What an applied edit did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppliedEdit {
    /// What was written against what the file held before.
    pub diff: FileDiff,
}

/// How a command ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandOutcome {
    /// `None` when killed by a signal.
    pub exit_code: Option<i32>,
    /// stdout and stderr interleaved, head and tail kept with the middle elided and counted.
    pub output: String,
    pub timed_out: bool,
    pub cancelled: bool,
    /// The command's writes to the workspace, caught by its walls and not applied yet: the
    /// caller applies them with [`capture::apply`] (recording them for undo).
    pub captured: Option<capture::Captured>,
}

/// The workspace a session works in: its primary root, which relative paths resolve against
/// (commands' default directory, where project settings and rules are read), and the additional
/// roots the user gave (the other folders of an editor's window), reached by absolute path.
#[derive(Clone, Debug)]
pub struct Workspace {
    root: PathBuf,
    /// Canonical, none equal to `root` or to another.
    additional: Vec<PathBuf>,
    /// Tandem's own config and data dirs, canonical where they exist: no tool writes there,
    /// whatever the roots (see [`Workspace::protecting`]).
    protected: Vec<PathBuf>,
}

impl Workspace {
    /// The root is canonicalised once, so later checks compare real paths.
    pub fn new(root: impl AsRef<Path>) -> std::io::Result<Self> {
        Ok(Self {
            root: dunce::canonicalize(root.as_ref())?,
            additional: Vec::new(),
            protected: Vec::new(),
        })
    }

    /// This workspace with `dirs` (Tandem's config and data dirs) never written by a tool or a
    /// command, even where a root holds them: what the model may not change is how Tandem is
    /// set up, its trust and its records.
    pub fn protecting<P: AsRef<Path>>(mut self, dirs: impl IntoIterator<Item = P>) -> Self {
        for dir in dirs {
            let dir = dir.as_ref();
            let real = dunce::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            if !self.protected.contains(&real) {
                self.protected.push(real);
            }
        }
        self
    }

    /// The dirs [`Workspace::protecting`] keeps out of reach.
    pub fn protected(&self) -> &[PathBuf] {
        &self.protected
    }

    /// This workspace with `roots` as its additional roots, each canonicalised once (a root
    /// that names the primary one or an earlier one, through a link or not, is dropped).
    /// Fails, naming the folder, when one can't be opened or is not a directory.
    pub fn with_additional_roots<P: AsRef<Path>>(
        mut self,
        roots: impl IntoIterator<Item = P>,
    ) -> std::io::Result<Self> {
        for given in roots {
            let given = given.as_ref();
            let real = dunce::canonicalize(given).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("the additional root {} can't be used: {e}", given.display()),
                )
            })?;
            if !real.is_dir() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    format!("the additional root {} is not a directory", given.display()),
                ));
            }
            if real != self.root && !self.additional.contains(&real) {
                self.additional.push(real);
            }
        }
        Ok(self)
    }

    /// The primary root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The additional roots, canonical, in the order given.
    pub fn additional_roots(&self) -> &[PathBuf] {
        &self.additional
    }

    /// Every root, the primary one first.
    pub fn roots(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.root.as_path()).chain(self.additional.iter().map(PathBuf::as_path))
    }

    /// The root a real path lies in: the primary root when it is inside it (roots may nest),
    /// else the first additional root holding it; `None` outside every root.
    pub fn root_of(&self, real: &Path) -> Option<&Path> {
        self.roots().find(|root| real.starts_with(root))
    }

    /// The root a write to `path` goes through ([`atomic::write_in`]): the one holding it, or
    /// the primary one for a path outside every root (where the write then fails).
    pub(crate) fn anchor_of(&self, path: &Path) -> &Path {
        self.root_of(path).unwrap_or(&self.root)
    }
}

/// Everything a tool call needs.
pub struct ToolContext<'a> {
    pub workspace: &'a Workspace,
    pub reads: &'a ReadTracker,
    /// A file's text as the editor holds it (unsaved changes included), read and edited instead
    /// of what is on disk. The face fetches it before the call; tools stay synchronous.
    pub editor_text: Option<&'a EditorText>,
    /// The call this runs for, recorded with the undo log's saves (who changed a file).
    pub tool_call_id: Option<&'a str>,
}

impl<'a> ToolContext<'a> {
    pub fn new(workspace: &'a Workspace, reads: &'a ReadTracker) -> Self {
        Self {
            workspace,
            reads,
            editor_text: None,
            tool_call_id: None,
        }
    }

    /// The editor's text for `path`, when the face gave it.
    pub(crate) fn editor_text_of(&self, path: &Path) -> Option<&str> {
        self.editor_text
            .filter(|e| e.path == path)
            .map(|e| e.text.as_str())
    }
}

/// The editor's text of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditorText {
    /// Absolute, as [`Workspace::resolve`] gives it.
    pub path: PathBuf,
    pub text: String,
}

/// Validates a call of one of this crate's workspace tools and runs it if it is read-only, or
/// turns it into a proposal ([`Registry::prepare`] on [`Registry::workspace`]).
pub async fn prepare(
    ctx: &ToolContext<'_>,
    name: &str,
    arguments: &str,
) -> Result<Prepared, ToolError> {
    Registry::workspace().prepare(ctx, name, arguments).await
}

/// Runs a tool that walks the tree on the blocking pool: walks are CPU- and I/O-bound, may take a
/// while on a large tree, and must not stall the runtime's workers.
pub(crate) async fn on_tree<A: Send + 'static>(
    ctx: &ToolContext<'_>,
    args: A,
    tool: fn(&Workspace, A) -> Result<String, ToolError>,
) -> Result<Prepared, ToolError> {
    let ws = ctx.workspace.clone();
    match tokio::task::spawn_blocking(move || tool(&ws, args)).await {
        Ok(result) => result.map(Prepared::Done),
        Err(e) => Err(ToolError::new(
            ErrorKind::Io,
            format!("the tool's worker failed: {e}"),
        )),
    }
}

/// Writes `content` (the proposal, or the user's edited version of it) atomically, after checking
/// the file still holds `proposal.original` (else `stale`, nothing written). Saves the previous
/// content in `undo` before the first write of `turn_id` to this file.
pub fn apply_edit(
    ctx: &ToolContext<'_>,
    proposal: &EditProposal,
    content: &str,
    undo: &UndoLog,
    turn_id: &TurnId,
) -> Result<AppliedEdit, ToolError> {
    let path = write::begin(ctx, proposal, undo, turn_id)?;
    write::to_disk(ctx, &path, content)?;
    undo.record_written(turn_id, &proposal.display_path, content.as_bytes())?;
    Ok(write::finish(ctx, proposal, &path, content))
}

/// The first half of [`apply_edit`], for a caller that may write through the editor: the `stale`
/// check (against the editor's text where given, else the disk's) and the undo save. Returns the
/// resolved path; write `content` there ([`write_to_disk`] or the editor), then [`finish_edit`].
pub fn begin_edit(
    ctx: &ToolContext<'_>,
    proposal: &EditProposal,
    undo: &UndoLog,
    turn_id: &TurnId,
) -> Result<PathBuf, ToolError> {
    write::begin(ctx, proposal, undo, turn_id)
}

/// Writes an edit checked by [`begin_edit`] to disk, atomically (temp file, fsync, rename),
/// keeping the file's permissions.
pub fn write_to_disk(ctx: &ToolContext<'_>, path: &Path, content: &str) -> Result<(), ToolError> {
    write::to_disk(ctx, path, content)
}

/// The second half of an editor-written edit: remembers what the model now knows of the file and
/// returns the diff written.
pub fn finish_edit(
    ctx: &ToolContext<'_>,
    proposal: &EditProposal,
    path: &Path,
    content: &str,
) -> AppliedEdit {
    write::finish(ctx, proposal, path, content)
}

/// A workspace file's text for the model, with every check `read_file` makes (inside the
/// workspace, not in `.git/`, a regular file, not too large, not binary).
pub fn read_text(ws: &Workspace, path: &str) -> Result<String, ToolError> {
    let abs = ws.resolve_for_read(path)?;
    text::load(ws, &abs)?.ok_or_else(|| text::no_such_file(ws, &abs))
}

/// Removes what writes killed mid-way (`kill -9`) left in the workspace: temp files of processes
/// that are gone. Walks the workspace: call it off the async runtime.
pub fn remove_stale_temp_files(ws: &Workspace) -> usize {
    ws.roots().map(atomic::remove_stale_temp_files).sum()
}

/// Runs an approved command in its own process group with stdin closed, relaying output as it
/// comes; the timeout or `cancel` kills the whole group (within a second).
pub async fn run_command(
    proposal: &CommandProposal,
    walls: &Walls,
    on_output: &mut (dyn FnMut(&str) + Send),
    cancel: tokio_util::sync::CancellationToken,
) -> Result<CommandOutcome, ToolError> {
    command::run(proposal, walls, on_output, cancel).await
}
