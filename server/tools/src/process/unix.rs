//! Unix: the command leads its own process group; signals go to the whole group.

use std::path::PathBuf;
use std::process::Stdio;

use super::{Shell, ShellKind};

/// `$SHELL` if it names a file, else `/bin/sh`.
pub(crate) fn shell() -> Shell {
    let program = std::env::var_os("SHELL")
        .map(PathBuf::from)
        .filter(|s| !s.as_os_str().is_empty() && s.is_file())
        .unwrap_or_else(|| PathBuf::from("/bin/sh"));
    Shell {
        program,
        args: vec!["-c".to_string()],
        kind: ShellKind::Posix,
    }
}

pub(super) fn push_line(command: &mut tokio::process::Command, _kind: ShellKind, line: &str) {
    command.arg(line);
}

pub(crate) type OutputReader = tokio::net::unix::pipe::Receiver;

/// The read end, and two write ends (stdout, stderr) of one pipe.
pub(crate) fn output_pipe() -> std::io::Result<(OutputReader, Stdio, Stdio)> {
    let (sender, receiver) = tokio::net::unix::pipe::pipe()?;
    let write_end = sender.into_blocking_fd()?;
    let write_end_too = write_end.try_clone()?;
    Ok((receiver, Stdio::from(write_end), Stdio::from(write_end_too)))
}

/// Puts the command in a new process group, and (Linux) has the kernel kill the shell if the
/// sidecar itself is killed: SIGKILL leaves no chance to clean up. The kernel ties this to the
/// spawning thread: a runtime worker, which lives as long as the sidecar. What the shell started
/// in the background is reached by the group kill on every other way out.
pub(crate) fn prepare(command: &mut tokio::process::Command) {
    command.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and touches nothing of the parent's.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A spawned command's process group. Dropping it kills the group, unless released.
pub(crate) struct Tree(Option<i32>);

impl Tree {
    pub(crate) fn adopt(child: &tokio::process::Child) -> std::io::Result<Tree> {
        Ok(Tree(child.id().map(|id| id as i32)))
    }

    /// SIGTERM to the group: the caller kills after a grace period.
    pub(crate) fn terminate(&self) {
        self.signal(libc::SIGTERM);
    }

    pub(crate) fn kill(&self) {
        self.signal(libc::SIGKILL);
    }

    /// The command ended by itself: what it left in the background keeps running.
    pub(crate) fn release(mut self) {
        self.0 = None;
    }

    fn signal(&self, signal: i32) {
        if let Some(pgid) = self.0 {
            // SAFETY: killpg takes plain integers; a group that is gone gives ESRCH, which is fine.
            unsafe {
                libc::killpg(pgid, signal);
            }
        }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Whether a process with this id exists (a temp file's writer may still be writing).
pub(crate) fn process_alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 checks for existence only.
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}
