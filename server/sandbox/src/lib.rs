//! Tandem's walls around the commands the model asks to run.
//!
//! * [`allow`]: which command lines run without asking (words and options, not string prefixes);
//!   the exact rules are in that module's documentation and in `docs/security.md`.
//! * [`shell`] and [`judge`]: a line parsed into its parts (pipelines, lists, substitutions,
//!   redirections), each part judged by the user's allow, ask and deny rules and, inside the
//!   walls, the read-only list.
//! * [`env`]: the environment a command gets: no provider keys, and git hardened against
//!   repositories the model planted.
//! * [`seatbelt`]: the macOS sandbox's profile, from the same policy; on macOS [`command`] runs
//!   commands through `sandbox-exec` with it.
//! * [`confine`]: the Landlock sandbox a command runs in (writes only in the workspace and temp
//!   directories, no network unless allowed), and which walls this kernel has.
//! * [`capture`]: a command's writes to the workspace, recorded by an overlay in its mount
//!   namespace and read back for the caller to apply (and record for undo).
//! * [`gitdirs`]: every `.git` in a workspace, bound read-only by the launcher and compared
//!   before and after each command.
//!
//! The crate depends on no other Tandem crate. How the command runner uses it:
//!
//! ```no_run
//! # use std::path::Path;
//! use tandem_sandbox::{AllowList, SandboxPolicy, command_env, confine, status};
//!
//! let workspace = Path::new("/home/me/project");
//! let policy = SandboxPolicy::workspace_write(workspace);
//! let support = status(); // once, at start; say `support.describe()` if it cannot enforce
//! let list = AllowList::new(["cargo test", "git status"]);
//! let unasked = support.enforces(&policy) && list.allows("cargo test -p x");
//!
//! let mut command = std::process::Command::new("/bin/sh");
//! command
//!     .args(["-c", "cargo test -p x"])
//!     .current_dir(workspace)
//!     .env_clear()
//!     .envs(command_env(std::env::vars_os(), Some("MY_KEY"), workspace));
//! confine(&mut command, &policy).expect("sandbox");
//! ```

pub mod allow;
pub mod capture;
pub mod confine;
mod deny;
pub mod env;
pub mod gitdirs;
pub mod judge;
pub mod launch;
mod plain_lists;
mod precheck;
mod programs;
mod reach;
mod readonly;
pub mod seatbelt;
#[cfg(target_os = "linux")]
mod seccomp;
pub mod shell;

pub use allow::{AllowList, Verdict};
pub use confine::{
    Confinement, Coverage, SandboxError, SandboxMode, SandboxPolicy, SandboxSupport, Wall, command,
    command_with_capture, confine, default_temp_dirs, status,
};
pub use env::{command_env, with_git_hardening, without_secrets};
pub use judge::{Dialect, Judgement, Place, Question, Reason, Rules, judge};
