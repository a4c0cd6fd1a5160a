//! The launcher: the `tandem` binary re-executed as a small single-threaded process that raises
//! the walls around one command and then runs it. The sidecar is multi-threaded, so nothing
//! risky (namespaces, mounts, filters) may run between its `fork` and `exec`; the launcher is a
//! fresh process, where all of it is ordinary code.
//!
//! `tandem __sandbox-launch [--network] [--no-namespaces] [--probe] [--writable PATH]... [--temp PATH]... [--readonly PATH]... [--capture ROOT DIR [--passthrough PATH]...]... -- PROGRAM ARGS...`
//!
//! With namespaces (where the kernel allows an unprivileged user namespace):
//! * a user namespace mapping only the caller's own uid and gid, whose capabilities are dropped
//!   before the command runs;
//! * a mount namespace where every mount is read-only, the temp directories are private empty
//!   `tmpfs`, the writable roots (the workspace and its additional roots) are bound back
//!   writable (each captured one as an overlay), the read-only roots are bound back read-only,
//!   and `.git` in each writable root is bound read-only again;
//! * a PID namespace whose init is the command, with its own `/proc`: the sidecar and every other
//!   process are invisible, and when the command exits the kernel kills all it left behind;
//! * without the network, a network namespace with loopback alone (no route out: TCP, UDP, DNS,
//!   MPTCP, ICMP alike).
//!
//! Always (namespaces or not): a new session (no controlling terminal: `/dev/tty` fails), the
//! Landlock rules of [`crate::confine`], and a seccomp filter that refuses sockets of any family
//! but `AF_UNIX` (and `io_uring`, which could open them past the filter) when the network is off.
//! Without a PID namespace the launcher is the command's subreaper and kills whatever is left
//! when the command exits.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::sync::OnceLock;

#[cfg(target_os = "linux")]
mod linux;

/// The hidden subcommand that makes the binary a launcher.
pub const SUBCOMMAND: &str = "__sandbox-launch";

/// The exit status of a launcher that could not raise its walls (nothing was run).
pub const SETUP_FAILED: i32 = 125;

/// Set to `off` to run commands without namespaces (Landlock, seccomp and a new session only),
/// where the namespaces misbehave; `tandem doctor` shows the result.
pub const NAMESPACES_ENV: &str = "TANDEM_SANDBOX_NAMESPACES";

static LAUNCHER: OnceLock<PathBuf> = OnceLock::new();

/// Call first thing in `main`: when the process was started as a launcher, this runs the command
/// and exits; otherwise it records that this binary can be re-executed as one.
pub fn dispatch() {
    let mut args = std::env::args_os();
    args.next();
    if args.next().as_deref() == Some(OsStr::new(SUBCOMMAND)) {
        std::process::exit(main(args.collect()));
    }
    if cfg!(target_os = "linux") {
        // The running binary itself, even if its file was replaced since it started.
        let _ = LAUNCHER.set(PathBuf::from("/proc/self/exe"));
    }
}

/// The binary to re-execute as a launcher, if [`dispatch`] ran in this process.
pub(crate) fn launcher() -> Option<&'static PathBuf> {
    LAUNCHER.get()
}

/// What one launch is asked to do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchOptions {
    pub network: bool,
    pub namespaces: bool,
    /// Raise the walls, run nothing, exit 0: how the sidecar learns what this machine allows.
    pub probe: bool,
    /// Writable with everything beneath (the workspace and its additional roots): bound back
    /// writable.
    pub writable: Vec<PathBuf>,
    /// Temp directories: private and empty with namespaces, shared without.
    pub temp: Vec<PathBuf>,
    /// Readable, never writable (an additional root holding the workspace): bound back
    /// read-only.
    pub readonly: Vec<PathBuf>,
    /// With namespaces: each of these writable roots becomes an overlay whose upper dir records
    /// the command's writes (see [`crate::capture`]); the workspace's first, then its
    /// additional roots'.
    pub captures: Vec<CaptureMount>,
}

/// The overlay over one writable root: `root` is the lower layer, `dir` holds `upper` and
/// `work` (made by the caller, on a writable filesystem), and each of `passthrough` (real
/// directories under `root`) is bound over the overlay, so writes there go straight through.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureMount {
    pub root: PathBuf,
    pub dir: PathBuf,
    pub passthrough: Vec<PathBuf>,
}

impl LaunchOptions {
    /// The arguments after [`SUBCOMMAND`], up to and including `--`.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args = Vec::new();
        if self.network {
            args.push("--network".into());
        }
        if !self.namespaces {
            args.push("--no-namespaces".into());
        }
        if self.probe {
            args.push("--probe".into());
        }
        for (flag, paths) in [
            ("--writable", &self.writable),
            ("--temp", &self.temp),
            ("--readonly", &self.readonly),
        ] {
            for path in paths {
                args.push(flag.into());
                args.push(path.clone().into_os_string());
            }
        }
        for capture in &self.captures {
            args.push("--capture".into());
            args.push(capture.root.clone().into_os_string());
            args.push(capture.dir.clone().into_os_string());
            for path in &capture.passthrough {
                args.push("--passthrough".into());
                args.push(path.clone().into_os_string());
            }
        }
        args.push("--".into());
        args
    }

    /// Parses what [`to_args`](Self::to_args) wrote, followed by the program and its arguments.
    pub fn parse(args: Vec<OsString>) -> Result<(LaunchOptions, Vec<OsString>), String> {
        let mut options = LaunchOptions {
            namespaces: true,
            ..LaunchOptions::default()
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            match arg.to_str() {
                Some("--network") => options.network = true,
                Some("--no-namespaces") => options.namespaces = false,
                Some("--probe") => options.probe = true,
                Some("--capture") => {
                    let (Some(root), Some(dir)) = (args.next(), args.next()) else {
                        return Err("--capture needs a root and a directory".to_string());
                    };
                    options.captures.push(CaptureMount {
                        root: root.into(),
                        dir: dir.into(),
                        passthrough: Vec::new(),
                    });
                }
                // Belongs to the `--capture` before it.
                Some("--passthrough") => {
                    let Some(path) = args.next() else {
                        return Err("--passthrough needs a path".to_string());
                    };
                    let Some(capture) = options.captures.last_mut() else {
                        return Err(
                            "--passthrough comes after the --capture it is part of".to_string()
                        );
                    };
                    capture.passthrough.push(path.into());
                }
                Some(flag @ ("--writable" | "--temp" | "--readonly")) => {
                    let Some(path) = args.next() else {
                        return Err(format!("{flag} needs a path"));
                    };
                    let list = match flag {
                        "--temp" => &mut options.temp,
                        "--readonly" => &mut options.readonly,
                        _ => &mut options.writable,
                    };
                    list.push(PathBuf::from(path));
                }
                Some("--") => {
                    let rest: Vec<OsString> = args.collect();
                    if rest.is_empty() && !options.probe {
                        return Err("no program after --".to_string());
                    }
                    return Ok((options, rest));
                }
                _ => return Err(format!("unknown launcher argument {arg:?}")),
            }
        }
        Err("the launcher's arguments end without --".to_string())
    }
}

fn main(args: Vec<OsString>) -> i32 {
    let (options, program) = match LaunchOptions::parse(args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("tandem sandbox: {e}");
            return SETUP_FAILED;
        }
    };
    run(&options, &program)
}

#[cfg(target_os = "linux")]
fn run(options: &LaunchOptions, program: &[OsString]) -> i32 {
    linux::run(options, program)
}

#[cfg(not(target_os = "linux"))]
fn run(_options: &LaunchOptions, _program: &[OsString]) -> i32 {
    eprintln!("tandem sandbox: the launcher exists only on Linux");
    SETUP_FAILED
}

/// Whether this process seems to run in a container (Docker's `/.dockerenv`, Podman's
/// `/run/.containerenv`, or the `container` variable systemd and Podman set).
pub fn in_container() -> bool {
    std::path::Path::new("/.dockerenv").exists()
        || std::path::Path::new("/run/.containerenv").exists()
        || std::env::var_os("container").is_some()
}

/// Whether namespaces are wanted: not when [`NAMESPACES_ENV`] is `off` (or `0`, `false`).
pub fn namespaces_wanted() -> bool {
    namespaces_wanted_by(std::env::var(NAMESPACES_ENV).ok().as_deref())
}

/// [`namespaces_wanted`] for a given value of [`NAMESPACES_ENV`].
pub fn namespaces_wanted_by(value: Option<&str>) -> bool {
    !matches!(
        value.map(str::trim).map(str::to_ascii_lowercase).as_deref(),
        Some("off" | "0" | "false" | "no")
    )
}

/// Runs the launcher once with nothing to run: `Ok` when it could raise every namespace wall
/// here, or why not.
pub(crate) fn probe_namespaces() -> Result<(), String> {
    if !namespaces_wanted() {
        return Err(format!("{NAMESPACES_ENV}=off"));
    }
    let Some(launcher) = launcher() else {
        return Err(
            "this program cannot re-execute itself as the sandbox launcher (only `tandem` can)"
                .to_string(),
        );
    };
    let options = LaunchOptions {
        namespaces: true,
        probe: true,
        temp: crate::default_temp_dirs(),
        ..LaunchOptions::default()
    };
    let out = std::process::Command::new(launcher)
        .arg(SUBCOMMAND)
        .args(options.to_args())
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("could not start the launcher: {e}"))?;
    probe_result(&out)
}

/// Runs the launcher once with a workspace under `scratch` captured by an overlay: `Ok` when
/// this kernel mounts one in an unprivileged user namespace (Linux 5.11 and later), or why not.
/// `scratch` must be on the filesystem the capture dirs will be on (Tandem's data dir).
pub fn probe_capture(scratch: &std::path::Path) -> Result<(), String> {
    probe_namespaces()?;
    let Some(launcher) = launcher() else {
        return Err("this program cannot re-execute itself as the sandbox launcher".to_string());
    };
    let made =
        |e: std::io::Error| format!("could not prepare the probe in {}: {e}", scratch.display());
    std::fs::create_dir_all(scratch).map_err(made)?;
    let probe = tempfile_dir(scratch).map_err(made)?;
    let root = probe.join("root");
    let capture = crate::capture::CaptureDir::create_in(&probe).map_err(made)?;
    std::fs::create_dir(&root).map_err(made)?;
    let options = LaunchOptions {
        namespaces: true,
        probe: true,
        writable: vec![root.clone()],
        temp: crate::default_temp_dirs(),
        captures: vec![CaptureMount {
            root,
            dir: capture.path().to_path_buf(),
            passthrough: Vec::new(),
        }],
        ..LaunchOptions::default()
    };
    let out = std::process::Command::new(launcher)
        .arg(SUBCOMMAND)
        .args(options.to_args())
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .output();
    // A launcher that can't mount the overlay runs on without it, and says why in the dir.
    let refused = capture.not_captured();
    let _ = capture.remove();
    let _ = std::fs::remove_dir_all(&probe);
    probe_result(&out.map_err(|e| format!("could not start the launcher: {e}"))?)?;
    match refused {
        Some(why) => Err(why.trim().to_string()),
        None => Ok(()),
    }
}

/// A fresh directory in `parent`, named after this process and a counter.
fn tempfile_dir(parent: &std::path::Path) -> std::io::Result<PathBuf> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    loop {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = parent.join(format!("probe-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            other => return other.map(|()| dir),
        }
    }
}

fn probe_result(out: &std::process::Output) -> Result<(), String> {
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let said = said.trim().trim_start_matches("tandem sandbox: ");
    Err(if said.is_empty() {
        format!("the launcher's probe failed ({})", out.status)
    } else {
        said.to_string()
    })
}
