//! The per-program deny lists behind rule 5 of [`crate::allow`]: options that load code or
//! configuration from elsewhere, or move the working tree, the repository or the output.
//! Keep this table and the one in the `allow` module documentation and docs/security.md the same.

/// Checks a word that is not an option; the error says why it asks.
pub(crate) type WordCheck = fn(&str) -> Result<(), String>;

pub(crate) struct DenyList {
    /// Long options, with their two dashes.
    pub long: &'static [&'static str],
    /// Short option letters.
    pub short: &'static [char],
    /// A check for the words that are not options.
    pub extra: Option<WordCheck>,
    /// Why these are denied, for the message.
    pub why: &'static str,
}

const CARGO: DenyList = DenyList {
    long: &[
        "--config",
        "--manifest-path",
        "--target-dir",
        "--artifact-dir",
        "--out-dir",
        "--lockfile-path",
    ],
    short: &['Z', 'C'],
    extra: Some(cargo_word),
    why: "which loads configuration or code from elsewhere, or moves the project or its output",
};

const GIT: DenyList = DenyList {
    long: &[
        "--config",
        "--config-env",
        "--exec-path",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--super-prefix",
        "--upload-pack",
        "--receive-pack",
        "--exec",
        "--ext-diff",
        "--output",
        "--output-directory",
        "--open-files-in-pager",
        "--template",
        "--separate-git-dir",
        "--extcmd",
    ],
    short: &['c', 'C', 'u', 'O', 'x', 'o'],
    extra: None,
    why: "which sets configuration, runs another program, moves the repository or writes a file",
};

const NODE_PACKAGE_MANAGER: DenyList = DenyList {
    long: &[
        "--prefix",
        "--dir",
        "--userconfig",
        "--globalconfig",
        "--script-shell",
        "--node-options",
        "--call",
        "--config",
    ],
    short: &['C', 'c'],
    extra: None,
    why: "which loads configuration or code from elsewhere, or moves the project",
};

const MAKE: DenyList = DenyList {
    long: &[
        "--file",
        "--makefile",
        "--directory",
        "--include-dir",
        "--eval",
    ],
    short: &['f', 'C', 'I', 'E'],
    extra: Some(make_word),
    why: "which reads another makefile, evaluates text or moves the build",
};

pub(crate) fn deny_list(program: &str) -> Option<&'static DenyList> {
    match program {
        "cargo" => Some(&CARGO),
        "git" => Some(&GIT),
        "npm" | "pnpm" | "yarn" => Some(&NODE_PACKAGE_MANAGER),
        "make" | "gmake" => Some(&MAKE),
        _ => None,
    }
}

/// `+toolchain` picks another toolchain (rustup reads it anywhere it is first; refuse it everywhere).
fn cargo_word(word: &str) -> Result<(), String> {
    if word.starts_with('+') {
        return Err(format!(
            "`{word}` is not admitted: a `+` word selects another toolchain"
        ));
    }
    Ok(())
}

/// `NAME=value` overrides a make variable, `SHELL` and `MAKEFLAGS` included.
fn make_word(word: &str) -> Result<(), String> {
    if word.contains('=') {
        return Err(format!(
            "`{word}` is not admitted: it overrides a make variable (SHELL= runs another program)"
        ));
    }
    Ok(())
}

/// Programs whose further words are another command they run (`sudo`, `env`, `timeout`, …):
/// the deny rules look past them, and no "always" rule names one alone.
pub(crate) const RUNS_A_COMMAND: &[&str] = &[
    "sudo",
    "doas",
    "su",
    "env",
    "xargs",
    "time",
    "nice",
    "nohup",
    "timeout",
    "exec",
    "eval",
    "command",
    "builtin",
    "busybox",
    "stdbuf",
    "ionice",
    "setsid",
    "chroot",
    "watch",
    "strace",
    "ltrace",
    "flock",
    "unshare",
    "nsenter",
    "taskset",
    "chrt",
    "script",
    "parallel",
    "pkexec",
    "run0",
    "fakeroot",
    "proot",
    "firejail",
    "systemd-run",
    "source",
    ".",
];
