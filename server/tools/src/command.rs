//! `execute_command`: the user's shell, in the workspace, as one process tree (see [`process`])
//! with stdin closed; stdout and stderr share one pipe, so their lines interleave exactly as
//! written; the timeout or cancellation ends the whole tree (on Unix SIGTERM, then SIGKILL after a
//! grace period).
//!
//! [`CommandOutcome::output`] holds the output text only: the first 100 lines (at most 8 KiB) and
//! the last 100 lines (at most 8 KiB), with the middle replaced by one line
//! `[... N lines elided ...]`. The exit status is in the other fields; [`CommandOutcome::report`]
//! puts both in one text for the model.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use tandem_sandbox::{SandboxMode, SandboxPolicy};

use super::args::ExecuteCommand;
use super::process;
use super::{CommandOutcome, CommandProposal, ErrorKind, ToolError, Workspace};

/// What a command may touch: the sandbox it runs in (unless it was approved to run outside), and
/// the variables kept out of its environment. Set by the user, never by the model.
#[derive(Clone, Debug)]
pub struct Walls {
    /// The workspace: writable inside the sandbox; git finds no repository above it.
    pub root: std::path::PathBuf,
    /// The workspace's additional roots (those outside `root`): writable inside the sandbox,
    /// their writes captured as `root`'s are ([`Walls::written_roots`]); one that holds `root`
    /// stays read-only (its writes could not be told from `root`'s).
    pub extra_roots: Vec<std::path::PathBuf>,
    pub mode: SandboxMode,
    /// TCP connect and bind allowed inside the sandbox.
    pub network: bool,
    /// The variable the provider key was read from, if any: dropped with the usual key names.
    pub key_var: Option<String>,
    /// Where and how a sandboxed command's writes to the workspace are captured (see
    /// [`crate::capture`]); `None`: they go straight to the workspace, unrecorded.
    pub capture: Option<super::capture::CaptureSettings>,
    /// Tandem's own config and data dirs: never writable by a command, whatever the roots (one
    /// inside a root is bound read-only with namespaces; without, that root is).
    pub protected: Vec<std::path::PathBuf>,
}

impl Walls {
    /// The sandbox's policy for a command of this workspace.
    pub fn policy(&self) -> SandboxPolicy {
        let mut policy = match self.mode {
            SandboxMode::WorkspaceWrite => {
                let mut policy = SandboxPolicy::workspace_write(&self.root);
                policy.writable_roots.extend(self.written_roots());
                policy.readonly_roots = self.readonly_roots();
                policy
            }
            SandboxMode::Off => SandboxPolicy::off(),
        };
        policy.network = self.network;
        policy
    }

    /// The additional roots a sandboxed command writes, each captured on its own: not one
    /// inside `root` (it is `root`'s), nor one that holds `root` (read-only), nor one inside
    /// another written one (it is that one's).
    pub fn written_roots(&self) -> Vec<std::path::PathBuf> {
        let written =
            |r: &std::path::PathBuf| !r.starts_with(&self.root) && !self.root.starts_with(r);
        self.extra_roots
            .iter()
            .filter(|r| written(r))
            .filter(|r| {
                !self
                    .extra_roots
                    .iter()
                    .any(|outer| outer != *r && written(outer) && r.starts_with(outer))
            })
            .cloned()
            .collect()
    }

    /// The additional roots that hold `root`: readable, never writable (granting one would
    /// grant `root` twice, its writes captured by neither overlay alone). And the protected
    /// dirs that lie in a root a command writes: Tandem's config (its MCP servers and hooks run
    /// unsandboxed) and data (trust, transcripts, undo) stay out of a command's reach, even when
    /// the user adds their home as a folder.
    fn readonly_roots(&self) -> Vec<std::path::PathBuf> {
        let mut readonly: Vec<std::path::PathBuf> = self
            .extra_roots
            .iter()
            .filter(|r| self.root.starts_with(r) && **r != self.root)
            .cloned()
            .collect();
        let written: Vec<std::path::PathBuf> = std::iter::once(self.root.clone())
            .chain(self.written_roots())
            .collect();
        for dir in &self.protected {
            if written.iter().any(|r| dir.starts_with(r)) && !readonly.contains(dir) {
                readonly.push(dir.clone());
            }
        }
        readonly
    }

    /// The walls of commands in `ws`: its root and its additional roots writable (see
    /// [`Walls::written_roots`]); mode, network and capture as `self` says.
    pub fn of_workspace(mut self, ws: &Workspace) -> Walls {
        self.root = ws.root().to_path_buf();
        self.protected.extend(ws.protected().iter().cloned());
        self.extra_roots = ws
            .additional_roots()
            .iter()
            .filter(|r| !r.starts_with(ws.root()))
            .cloned()
            .collect();
        self
    }
}

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
const MAX_TIMEOUT_SECONDS: f64 = 24.0 * 3600.0;
/// Between terminate and kill (SIGTERM and SIGKILL on Unix); short enough that cancelling takes well under a second.
const KILL_GRACE: Duration = Duration::from_millis(500);
/// After the shell exits, how long output from what it left running in the background is still
/// collected before the pipe is abandoned.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(250);
const KEEP_LINES: usize = 100;
const KEEP_BYTES: usize = 8 * 1024;

pub(crate) fn prepare(ws: &Workspace, args: ExecuteCommand) -> Result<CommandProposal, ToolError> {
    if args.command.trim().is_empty() {
        return Err(ToolError::new(
            ErrorKind::InvalidArguments,
            "command is empty",
        ));
    }
    let cwd = ws.resolve(args.cwd.as_deref().unwrap_or("."))?;
    if !cwd.is_dir() {
        return Err(ToolError::new(
            ErrorKind::InvalidArguments,
            format!("cwd {} is not a directory", ws.display_path(&cwd)),
        ));
    }
    let timeout = match args.timeout_seconds {
        None => DEFAULT_TIMEOUT,
        Some(s) if s.is_finite() && s > 0.0 && s <= MAX_TIMEOUT_SECONDS => {
            Duration::from_secs_f64(s)
        }
        Some(s) => {
            return Err(ToolError::new(
                ErrorKind::InvalidArguments,
                format!(
                    "timeoutSeconds must be more than 0 and at most {MAX_TIMEOUT_SECONDS}, not {s}"
                ),
            ));
        }
    };
    Ok(CommandProposal {
        command: args.command,
        sandboxed: !args.outside_sandbox,
        display_cwd: ws.display_path(&cwd),
        cwd,
        timeout,
    })
}

impl CommandOutcome {
    /// The output followed by how the command ended, as the model should see it.
    pub fn report(&self) -> String {
        let mut out = self.output.clone();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        let status = if self.timed_out {
            "[timed out: the command and everything it started were killed]".to_string()
        } else if self.cancelled {
            "[cancelled by the user: the command and everything it started were killed]".to_string()
        } else {
            match self.exit_code {
                Some(code) => format!("[exit code {code}]"),
                None => "[killed by a signal]".to_string(),
            }
        };
        out.push_str(&status);
        out
    }
}

/// The shell running the command: inside the sandbox (through its launcher when this is the
/// `tandem` binary) unless the command was approved to run outside it or the sandbox is off.
/// Only Unix has a sandbox, so the line is the shell's last argument there (as `sh -c LINE`);
/// elsewhere a sandboxed command fails to confine and nothing runs.
fn shell_command(
    proposal: &CommandProposal,
    walls: &Walls,
    capture: Vec<tandem_sandbox::launch::CaptureMount>,
) -> Result<(tokio::process::Command, bool), ToolError> {
    shell_in_walls(
        &proposal.command,
        proposal.sandboxed,
        walls,
        capture,
        "nothing was run. Ask to run it with outsideSandbox, which the user must approve",
    )
}

/// The shell running `line`, inside the walls when `sandboxed` (never unconfined by accident:
/// a sandbox that can't be set up is an error, ending with `unconfined_advice`), its writes
/// caught in `capture`'s overlays when given; the `bool` says whether they are. A command's
/// shell and a hook's.
pub(crate) fn shell_in_walls(
    line: &str,
    sandboxed: bool,
    walls: &Walls,
    capture: Vec<tandem_sandbox::launch::CaptureMount>,
    unconfined_advice: &str,
) -> Result<(tokio::process::Command, bool), ToolError> {
    let shell = process::shell();
    if !sandboxed || walls.mode == SandboxMode::Off {
        return Ok((shell.command(line), false));
    }
    let mut args: Vec<std::ffi::OsString> = shell.args.iter().map(Into::into).collect();
    args.push(line.into());
    let (command, _, captured) = tandem_sandbox::command_with_capture(
        shell.program.as_os_str(),
        &args,
        &walls.policy(),
        capture,
    )
    .map_err(|e| {
        ToolError::new(
            ErrorKind::Io,
            format!("the sandbox could not be set up ({e}); {unconfined_advice}"),
        )
    })?;
    Ok((tokio::process::Command::from(command), captured))
}

/// A capture dir for one sandboxed command (or hook: `sandboxed` says whether it runs in the
/// walls), where this machine's walls can capture (an overlay in the launcher's namespaces;
/// probed once per process).
/// The command `make` builds (given the overlays' mounts, one per written root, when the walls
/// can make them; it says whether it used them) with its writes caught: by the overlays, else
/// by a snapshot of each written root taken now. A command's and a hook's shell alike.
pub(crate) async fn captured_command(
    sandboxed: bool,
    walls: &Walls,
    make: impl FnOnce(
        Vec<tandem_sandbox::launch::CaptureMount>,
    ) -> Result<(tokio::process::Command, bool), ToolError>,
) -> Result<(tokio::process::Command, Option<super::capture::Captured>), ToolError> {
    let (mounts, mut captured) = prepare_capture(sandboxed, walls).unzip();
    let (command, capturing) = match make(mounts.unwrap_or_default()) {
        Ok(made) => made,
        Err(e) => {
            if let Some(c) = &captured {
                c.discard();
            }
            return Err(e);
        }
    };
    if !capturing {
        if let Some(c) = captured.take() {
            c.discard();
        }
        captured = snapshot_before(sandboxed, walls).await;
    }
    Ok((command, captured))
}

fn prepare_capture(
    sandboxed: bool,
    walls: &Walls,
) -> Option<(
    Vec<tandem_sandbox::launch::CaptureMount>,
    super::capture::Captured,
)> {
    let settings = walls.capture.as_ref()?;
    if !sandboxed || walls.mode == SandboxMode::Off {
        return None;
    }
    if let Err(why) = super::capture::available(&settings.scratch) {
        tracing::debug!("commands' writes are not captured: {why}");
        return None;
    }
    let dir = match tandem_sandbox::capture::CaptureDir::create_in(&settings.scratch) {
        Ok(dir) => dir,
        Err(e) => {
            tracing::warn!(
                scratch = %settings.scratch.display(),
                "could not make a capture dir, the command writes unrecorded: {e}"
            );
            return None;
        }
    };
    // The primary root's overlay in the dir itself, each additional root's in `roots/<n>`.
    let mut mounts = Vec::new();
    let mut parts = Vec::new();
    for (n, root) in std::iter::once(walls.root.clone())
        .chain(walls.written_roots())
        .enumerate()
    {
        let own = match n {
            0 => Ok(dir.clone()),
            n => dir.create_root(n - 1),
        };
        let own = match own {
            Ok(own) => own,
            Err(e) => {
                tracing::warn!(
                    dir = %dir.path().display(),
                    "could not make a capture dir for {}, the command's writes are snapshotted: {e}",
                    root.display()
                );
                let _ = dir.remove();
                return None;
            }
        };
        mounts.push(tandem_sandbox::launch::CaptureMount {
            root: root.clone(),
            dir: own.path().to_path_buf(),
            passthrough: super::passthrough::passthrough_dirs(&root, &settings.passthrough),
        });
        parts.push(super::capture::Part {
            root,
            how: super::capture::How::Overlay(own),
        });
    }
    Some((
        mounts,
        super::capture::Captured {
            parts,
            dir: Some(dir),
            started: std::time::SystemTime::now(),
            passthrough: settings.passthrough.clone(),
            max_paths: settings.max_paths,
        },
    ))
}

pub(crate) async fn run(
    proposal: &CommandProposal,
    walls: &Walls,
    on_output: &mut (dyn FnMut(&str) + Send),
    cancel: CancellationToken,
) -> Result<CommandOutcome, ToolError> {
    let spawn_error = |e: std::io::Error| {
        ToolError::new(ErrorKind::Io, format!("could not start the command: {e}"))
    };
    // The command's text is the model's and only at `debug` (a tool call's arguments stay out of
    // an `info` log); where it ran, how and how it ended are for the user's log.
    tracing::debug!(command = %proposal.command, "command to run");
    let started = std::time::Instant::now();
    let (mut receiver, stdout, stderr) = process::output_pipe().map_err(spawn_error)?;
    let (mut command, captured) = captured_command(proposal.sandboxed, walls, |mount| {
        shell_command(proposal, walls, mount)
    })
    .await?;
    // Every root the command writes: a `.git` changed in any is told.
    let written: Vec<std::path::PathBuf> = std::iter::once(walls.root.clone())
        .chain(walls.written_roots())
        .collect();
    let mut git_before = Vec::new();
    for root in &written {
        git_before.push(git_snapshot(root).await);
    }
    command
        .current_dir(&proposal.cwd)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        // The provider's keys stay out; git finds no repository above the workspace and no bare
        // repository the model may have planted.
        .env_clear()
        .envs(tandem_sandbox::command_env(
            std::env::vars_os(),
            walls.key_var.as_deref(),
            &walls.root,
        ))
        // Nothing may wait for a terminal that is not there.
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat");
    process::prepare(&mut command);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            if let Some(c) = &captured {
                c.discard();
            }
            return Err(spawn_error(e));
        }
    };
    // Our copies of the pipe's write end go with `command`: the pipe ends when the children close it.
    drop(command);
    let tree = match process::Tree::adopt(&child) {
        Ok(tree) => tree,
        Err(e) => {
            let _ = child.start_kill();
            return Err(spawn_error(e));
        }
    };

    let mut keeper = Keeper::default();
    let mut text = Utf8Chunks::default();
    let mut buf = vec![0u8; 16 * 1024];
    let mut status = None;
    let mut eof = false;
    let (mut timed_out, mut cancelled) = (false, false);
    let deadline = tokio::time::sleep(proposal.timeout);
    tokio::pin!(deadline);
    let mut relay = |bytes: &[u8], keeper: &mut Keeper, text: &mut Utf8Chunks| {
        keeper.push(bytes);
        let chunk = text.push(bytes);
        if !chunk.is_empty() {
            on_output(&chunk);
        }
    };

    while status.is_none() || !eof {
        tokio::select! {
            read = receiver.read(&mut buf), if !eof => match read {
                Ok(0) | Err(_) => eof = true,
                Ok(n) => relay(&buf[..n], &mut keeper, &mut text),
            },
            exit = child.wait(), if status.is_none() => {
                status = Some(exit.map_err(spawn_error)?);
                // The shell is gone; something it started may hold the pipe open. Collect its
                // output a little longer, then stop waiting for it.
                deadline.as_mut().reset(tokio::time::Instant::now() + DRAIN_AFTER_EXIT);
            }
            _ = &mut deadline => {
                timed_out = status.is_none();
                break;
            }
            _ = cancel.cancelled(), if status.is_none() => { cancelled = true; break; }
        }
    }

    if timed_out || cancelled {
        tree.terminate();
        let grace = tokio::time::sleep(KILL_GRACE);
        tokio::pin!(grace);
        loop {
            tokio::select! {
                read = receiver.read(&mut buf), if !eof => match read {
                    Ok(0) | Err(_) => eof = true,
                    Ok(n) => relay(&buf[..n], &mut keeper, &mut text),
                },
                exit = child.wait(), if status.is_none() => status = exit.ok(),
                _ = &mut grace => break,
            }
            if status.is_some() && eof {
                break;
            }
        }
        // Whatever ignored SIGTERM (or outlived the shell) goes now.
        tree.kill();
        if status.is_none() {
            status = child.wait().await.ok();
        }
        // Collect what is still in the pipe, without waiting on a holder outside the group.
        let drain = tokio::time::sleep(DRAIN_AFTER_EXIT);
        tokio::pin!(drain);
        while !eof {
            tokio::select! {
                read = receiver.read(&mut buf) => match read {
                    Ok(0) | Err(_) => eof = true,
                    Ok(n) => relay(&buf[..n], &mut keeper, &mut text),
                },
                _ = &mut drain => break,
            }
        }
    }
    tree.release();
    let tail = text.finish();
    if !tail.is_empty() {
        on_output(&tail);
    }
    let mut output = keeper.finish();
    if proposal.sandboxed && walls.mode == SandboxMode::WorkspaceWrite {
        add_git_hint(&mut output);
        add_readonly_root_hint(
            &mut output,
            &proposal.cwd,
            &walls.root,
            &walls.readonly_roots(),
        );
        if captured.is_some() {
            add_passthrough_hint(&mut output);
        }
    }
    for (root, before) in written.iter().zip(&git_before) {
        let after = git_snapshot(root).await;
        for change in after.changes_since(before) {
            // An additional root's repository is named by its absolute path, as its files are.
            let line = match *root == walls.root {
                true => change.describe(root),
                false => change.describe(std::path::Path::new("")),
            };
            tracing::warn!("{line}");
            if !output.is_empty() && !output.ends_with('\n') {
                output.push('\n');
            }
            output.push_str(&format!("[{line}]\n"));
        }
    }
    tracing::info!(
        cwd = %proposal.display_cwd,
        sandboxed = proposal.sandboxed,
        exit_code = status.and_then(|s| s.code()),
        timed_out,
        cancelled,
        output_bytes = output.len(),
        ms = started.elapsed().as_millis() as u64,
        "command ran"
    );
    Ok(CommandOutcome {
        exit_code: status.and_then(|s| s.code()),
        output,
        timed_out,
        cancelled,
        captured,
    })
}

/// Where no overlay catches a sandboxed command's (or hook's) writes: the files of the workspace
/// and of each root it writes before it runs, to record what it changed (see
/// [`crate::snapshot`]).
async fn snapshot_before(sandboxed: bool, walls: &Walls) -> Option<super::capture::Captured> {
    let settings = walls.capture.as_ref()?;
    if !sandboxed || walls.mode == SandboxMode::Off {
        return None;
    }
    let roots: Vec<std::path::PathBuf> = std::iter::once(walls.root.clone())
        .chain(walls.written_roots())
        .collect();
    let passthrough = settings.passthrough.clone();
    let parts = tokio::task::spawn_blocking(move || {
        roots
            .into_iter()
            .map(|root| super::capture::Part {
                how: super::capture::How::Snapshot(super::snapshot::Snapshot::take(
                    &root,
                    &passthrough,
                )),
                root,
            })
            .collect()
    })
    .await
    .ok()?;
    Some(super::capture::Captured {
        parts,
        dir: None,
        started: std::time::SystemTime::now(),
        passthrough: settings.passthrough.clone(),
        max_paths: settings.max_paths,
    })
}

/// Every `.git` under the workspace and what in it runs programs, off the async threads.
async fn git_snapshot(root: &std::path::Path) -> tandem_sandbox::gitdirs::GitSnapshot {
    let root = root.to_path_buf();
    tokio::task::spawn_blocking(move || tandem_sandbox::gitdirs::GitSnapshot::take(&root))
        .await
        .unwrap_or_default()
}

/// `.git` is read-only in the sandbox (so nothing plants hooks or config the user's git runs
/// later): a refused write there gets a line telling the model how to ask for it.
fn add_git_hint(output: &mut String) {
    if output.contains(".git") && output.contains("Read-only file system") {
        if !output.is_empty() && !output.ends_with('\n') {
            output.push('\n');
        }
        output.push_str(
            "[.git is read-only inside the sandbox: to commit or change the repository, ask to run \
             the command with outsideSandbox, which the user must approve]",
        );
    }
}

/// An additional root that holds the primary root `root` is read-only inside the sandbox (see
/// [`Walls::readonly_roots`]): a write refused there, outside `root` (the command ran there, or
/// its output names a path there), gets a line saying so and how to change files there.
fn add_readonly_root_hint(
    output: &mut String,
    cwd: &std::path::Path,
    root: &std::path::Path,
    readonly: &[std::path::PathBuf],
) {
    let refused = output.contains("Read-only file system") || output.contains("Permission denied");
    let root_text = root.to_string_lossy();
    // Every path under `root` is under the holding root too: only the others count.
    let names_outside_root = |r: &std::path::PathBuf| {
        let r = r.to_string_lossy();
        output
            .match_indices(&*r)
            .any(|(at, _)| !output[at..].starts_with(&*root_text))
    };
    let there: Vec<&std::path::PathBuf> = readonly
        .iter()
        .filter(|r| (cwd.starts_with(r) && !cwd.starts_with(root)) || names_outside_root(r))
        .collect();
    if !refused || there.is_empty() {
        return;
    }
    if !output.is_empty() && !output.ends_with('\n') {
        output.push('\n');
    }
    let names: Vec<String> = there.iter().map(|r| r.display().to_string()).collect();
    output.push_str(&format!(
        "[{} is an additional root of the workspace that holds its primary root: read-only for \
         commands inside the sandbox. Change its files with the edit tools, or ask to run the \
         command with outsideSandbox, which the user must approve]",
        names.join(", ")
    ));
}

/// Ignored build dirs (`target/`, `node_modules/`) pass through the capture's overlay as mounts:
/// what is in them can be removed, not the directory itself, which fails with EBUSY.
fn add_passthrough_hint(output: &mut String) {
    if output.contains("Device or resource busy") {
        if !output.is_empty() && !output.ends_with('\n') {
            output.push('\n');
        }
        output.push_str(
            "[ignored build and dependency dirs (target/, node_modules/, .venv/) are mounts \
             inside the sandbox: remove what is in them (rm -rf target/*), not the directory \
             itself]",
        );
    }
}

/// Decodes a byte stream as UTF-8 across chunk boundaries (invalid bytes become U+FFFD).
#[derive(Default)]
struct Utf8Chunks {
    pending: Vec<u8>,
}

impl Utf8Chunks {
    fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let keep_from = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            // An incomplete character at the end waits for the next chunk.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => incomplete_tail_start(&self.pending),
        };
        let text = String::from_utf8_lossy(&self.pending[..keep_from]).into_owned();
        self.pending.drain(..keep_from);
        text
    }

    fn finish(&mut self) -> String {
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        text
    }
}

/// Where a possibly incomplete UTF-8 character at the end of `bytes` starts (`bytes.len()` if none).
fn incomplete_tail_start(bytes: &[u8]) -> usize {
    for back in 1..=3.min(bytes.len()) {
        let i = bytes.len() - back;
        let b = bytes[i];
        if b & 0xC0 != 0x80 {
            let needed = match b {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if needed > back { i } else { bytes.len() };
        }
    }
    bytes.len()
}

/// Keeps the head and the tail of a stream, counting what falls between.
#[derive(Default)]
struct Keeper {
    head: Vec<u8>,
    head_lines: usize,
    head_full: bool,
    tail: Vec<u8>,
    /// Bytes and line ends dropped from the front of `tail`.
    dropped_bytes: u64,
    dropped_newlines: u64,
}

impl Keeper {
    fn push(&mut self, mut bytes: &[u8]) {
        if !self.head_full {
            let room = KEEP_BYTES - self.head.len();
            let mut take = 0;
            for &b in bytes.iter().take(room) {
                take += 1;
                if b == b'\n' {
                    self.head_lines += 1;
                    if self.head_lines == KEEP_LINES {
                        break;
                    }
                }
            }
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.head_lines == KEEP_LINES || self.head.len() == KEEP_BYTES {
                self.head_full = true;
            }
        }
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 4 * KEEP_BYTES {
            let cut = self.tail.len() - KEEP_BYTES;
            self.dropped_newlines += count_newlines(&self.tail[..cut]);
            self.dropped_bytes += cut as u64;
            self.tail.drain(..cut);
        }
    }

    fn finish(self) -> String {
        let Keeper {
            mut head,
            tail,
            dropped_bytes,
            dropped_newlines,
            ..
        } = self;
        // The tail starts at a line start, holds at most KEEP_LINES lines and KEEP_BYTES bytes.
        let mut cut = tail.len().saturating_sub(KEEP_BYTES);
        if (cut > 0 || dropped_bytes > 0)
            && let Some(nl) = tail[cut..].iter().position(|&b| b == b'\n')
            && cut + nl + 1 < tail.len()
        {
            cut += nl + 1;
        }
        let body = tail[cut..].strip_suffix(b"\n").unwrap_or(&tail[cut..]);
        let lines = count_newlines(body) as usize + 1;
        if lines > KEEP_LINES {
            let mut extra = lines - KEEP_LINES;
            for (i, &b) in tail[cut..].iter().enumerate() {
                if b == b'\n' {
                    extra -= 1;
                    if extra == 0 {
                        cut += i + 1;
                        break;
                    }
                }
            }
        }
        let elided_bytes = dropped_bytes + cut as u64;
        if elided_bytes == 0 {
            head.extend_from_slice(&tail);
            return String::from_utf8_lossy(&head).into_owned();
        }
        let elided = &tail[..cut];
        let mut elided_lines = dropped_newlines + count_newlines(elided);
        if elided.last().is_some_and(|&b| b != b'\n') {
            elided_lines += 1;
        }
        let mut out = String::from_utf8_lossy(&head).into_owned();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("[... {elided_lines} lines elided ...]\n"));
        out.push_str(&String::from_utf8_lossy(&tail[cut..]));
        out
    }
}

fn count_newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(text: &str) -> String {
        let mut k = Keeper::default();
        // Odd chunk sizes, so boundaries fall anywhere.
        for chunk in text.as_bytes().chunks(7) {
            k.push(chunk);
        }
        k.finish()
    }

    #[test]
    fn short_output_is_kept_whole() {
        let text: String = (0..150).map(|i| format!("line {i}\n")).collect();
        assert_eq!(keep(&text), text);
        assert_eq!(keep("no newline"), "no newline");
    }

    #[test]
    fn long_output_keeps_head_and_tail_and_counts_the_middle() {
        let text: String = (1..=12_345).map(|i| format!("line {i}\n")).collect();
        let out = keep(&text);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "line 1");
        assert_eq!(lines[99], "line 100");
        assert_eq!(lines[100], "[... 12145 lines elided ...]");
        assert_eq!(lines[101], "line 12246");
        assert_eq!(*lines.last().unwrap(), "line 12345");
        assert_eq!(lines.len(), 201);
    }

    #[test]
    fn long_lines_are_bounded_by_bytes() {
        let text: String = (0..100)
            .map(|_| format!("{}\n", "x".repeat(1000)))
            .collect();
        let out = keep(&text);
        assert!(out.len() <= 2 * KEEP_BYTES + 100, "{}", out.len());
        assert!(out.contains(" lines elided ...]"));
    }

    #[test]
    fn a_refused_git_write_names_the_way_out() {
        let mut out =
            "error: could not lock config file .git/config: Read-only file system".to_string();
        add_git_hint(&mut out);
        assert!(out.ends_with("which the user must approve]"), "{out}");
        let mut other =
            "cp: cannot create regular file '/etc/x': Read-only file system\n".to_string();
        add_git_hint(&mut other);
        assert!(!other.contains("outsideSandbox"), "{other}");
    }

    #[test]
    fn a_write_refused_in_an_additional_root_holding_the_root_says_it_is_read_only() {
        let (holder, root) = (
            std::path::PathBuf::from("/w"),
            std::path::PathBuf::from("/w/main"),
        );
        let roots = [holder.clone()];
        let mut inside = "touch: cannot touch 'x': Read-only file system\n".to_string();
        add_readonly_root_hint(&mut inside, &holder.join("other"), &root, &roots);
        assert!(inside.contains("/w is an additional root"), "{inside}");
        let mut named = "sh: 1: cannot create /w/x: Permission denied".to_string();
        add_readonly_root_hint(&mut named, &root, &root, &roots);
        assert!(named.ends_with("which the user must approve]"), "{named}");
        let mut elsewhere = "cp: cannot create '/etc/x': Read-only file system\n".to_string();
        add_readonly_root_hint(&mut elsewhere, &root, &root, &roots);
        assert!(!elsewhere.contains("additional root"), "{elsewhere}");
        // The root's own paths are under the holder too: they are not the holder's.
        let mut in_root = "cp: cannot create '/w/main/.git/x': Read-only file system\n".to_string();
        add_readonly_root_hint(&mut in_root, &root.join("src"), &root, &roots);
        assert!(!in_root.contains("additional root"), "{in_root}");
    }

    #[test]
    fn additional_roots_are_written_unless_one_holds_the_root_or_lies_in_another() {
        let p = std::path::PathBuf::from;
        let walls = Walls {
            root: p("/w/main"),
            extra_roots: vec![
                p("/x/lib/inner"),
                p("/x/lib"),
                p("/w"),
                p("/y"),
                p("/w/other"),
            ],
            mode: SandboxMode::WorkspaceWrite,
            network: false,
            key_var: None,
            capture: None,
            protected: Vec::new(),
        };
        // `/x/lib/inner` is `/x/lib`'s; `/w/other` lies in the read-only `/w`, bound over it.
        assert_eq!(walls.written_roots(), [p("/x/lib"), p("/y"), p("/w/other")]);
        let policy = walls.policy();
        assert_eq!(policy.readonly_roots, [p("/w")]);
        for root in [p("/w/main"), p("/x/lib"), p("/y"), p("/w/other")] {
            assert!(policy.writable_roots.contains(&root), "{root:?}");
        }
        assert!(!policy.writable_roots.contains(&p("/w")));
        assert!(!policy.writable_roots.contains(&p("/x/lib/inner")));
    }

    /// Tandem's config and data dirs inside a written root are read-only for commands; one
    /// elsewhere (the usual `~/.config/tandem`, with the workspace elsewhere) changes nothing.
    #[test]
    fn tandems_own_dirs_inside_a_written_root_are_read_only() {
        let p = std::path::PathBuf::from;
        let walls = Walls {
            root: p("/home/u/proj"),
            extra_roots: vec![p("/home/u")],
            mode: SandboxMode::WorkspaceWrite,
            network: false,
            key_var: None,
            capture: None,
            protected: vec![p("/home/u/.config/tandem"), p("/home/u/proj/.data")],
        };
        assert_eq!(
            walls.policy().readonly_roots,
            [p("/home/u"), p("/home/u/proj/.data")],
            "the home holds the workspace and is read-only already"
        );
        let walls = Walls {
            root: p("/home/u"),
            extra_roots: Vec::new(),
            protected: vec![p("/home/u/.config/tandem"), p("/var/lib/x")],
            ..walls
        };
        assert_eq!(walls.policy().readonly_roots, [p("/home/u/.config/tandem")]);
    }

    #[test]
    fn utf8_split_across_chunks() {
        let mut d = Utf8Chunks::default();
        let bytes = "é€😀".as_bytes();
        let mut out = String::new();
        for b in bytes {
            out.push_str(&d.push(std::slice::from_ref(b)));
        }
        out.push_str(&d.finish());
        assert_eq!(out, "é€😀");
        let mut d = Utf8Chunks::default();
        assert_eq!(d.push(b"a\xffb"), "a\u{fffd}b");
    }
}
