//! How a command's processes live and die, per OS. The command runner sees four things:
//!
//! * [`shell`]: the program and arguments that run a command line (the user's shell on Unix;
//!   PowerShell, else `cmd.exe`, on Windows);
//! * [`output_pipe`]: one pipe for stdout and stderr together, read without blocking the runtime;
//! * [`prepare`] before the spawn and [`Tree::adopt`] after it: the command and everything it
//!   starts become one tree (a process group on Unix, a Job Object on Windows);
//! * [`Tree`]: ends that tree politely ([`Tree::terminate`]), at once ([`Tree::kill`]), or when
//!   dropped half-way (an aborted task); [`Tree::release`] leaves it alone after a normal exit.
//!
//! And [`process_alive`], for the temp files a killed write left behind.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as os;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as os;

pub(crate) use os::{Tree, output_pipe, prepare, process_alive, shell};

/// The shell that runs a command line: the program and the arguments before the line itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shell {
    pub program: std::path::PathBuf,
    pub args: Vec<String>,
    /// How the shell's quoting works, for the allow-list and for what the model is told.
    pub kind: ShellKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code, reason = "each OS builds the kinds it has")]
pub enum ShellKind {
    Posix,
    PowerShell,
    Cmd,
}

/// How the shell that runs command lines reads them: POSIX (sh, bash, dash, ksh, zsh, …) lines
/// are judged part by part; `cmd.exe` and PowerShell lines when they are lists or pipelines of
/// plain commands; anything else (fish) only as one plain command.
pub fn dialect() -> tandem_sandbox::Dialect {
    let shell = shell();
    let name = shell
        .program
        .file_stem()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let posix = [
        "sh", "bash", "dash", "ksh", "mksh", "ksh93", "zsh", "ash", "yash",
    ];
    match shell.kind {
        ShellKind::Posix if posix.contains(&name) => tandem_sandbox::Dialect::Posix,
        ShellKind::Cmd => tandem_sandbox::Dialect::Cmd,
        ShellKind::PowerShell => tandem_sandbox::Dialect::PowerShell,
        ShellKind::Posix => tandem_sandbox::Dialect::Other,
    }
}

impl Shell {
    /// A command for `line`, run by this shell.
    pub(crate) fn command(&self, line: &str) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(&self.args);
        os::push_line(&mut command, self.kind, line);
        command
    }
}
