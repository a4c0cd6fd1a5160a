//! The sandbox around a command (Linux Landlock): it reads everywhere, writes only inside the
//! writable roots (the workspace and the temp directories) and a few harmless devices, and, unless
//! the policy allows the network, can neither connect nor bind a TCP socket nor reach an abstract
//! Unix socket outside itself. It cannot signal processes outside itself either, and setuid
//! programs do not gain privileges in it (`no_new_privs`). Everything the command starts inherits
//! all of this; nothing inside can lift it.
//!
//! The rules are built in the parent, before `fork`; the child only calls `landlock_restrict_self`
//! (and `prctl(PR_SET_NO_NEW_PRIVS)`) between `fork` and `exec`, which allocate nothing and take no
//! lock, as code in `pre_exec` must.
//!
//! Reads: everything under `/` but `/dev`, where only `/dev/null`, `/dev/zero`, `/dev/full`,
//! `/dev/random` and `/dev/urandom` (also writable, with device ioctls) are reached: no terminal
//! (`/dev/tty`, `/dev/pts/*`), disk, console or kernel log. In the launcher's private `/dev`
//! ([`crate::launch`]) the command's own `/dev/pts` is added. `/dev/shm` counts as a temp
//! directory.
//!
//! Which walls hold depends on the kernel: [`SandboxSupport::coverage`] says, wall by wall, what
//! confines the files, the network and the processes here.

use std::path::{Path, PathBuf};

/// Whether commands are confined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SandboxMode {
    /// Writes only inside [`SandboxPolicy::writable_roots`]; the default.
    #[default]
    WorkspaceWrite,
    /// No restriction at all (the user chose it).
    Off,
}

/// What a confined command may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxPolicy {
    pub mode: SandboxMode,
    /// TCP connect and bind, and abstract Unix sockets outside the sandbox.
    pub network: bool,
    /// Directories (or files) writable with everything beneath them. Paths that do not exist
    /// when the command starts are left out.
    pub writable_roots: Vec<PathBuf>,
    /// Those of the writable roots that are temp directories: with namespaces each command gets
    /// them private and empty (so a workspace under `/tmp` is the only thing writable there).
    pub temp_dirs: Vec<PathBuf>,
    /// Directories readable and never writable, wherever they are (an additional root of the
    /// workspace that holds the workspace itself): with namespaces bound back read-only (visible in a private temp directory too);
    /// a writable root holding one is left out where that is the only way to keep it read-only
    /// (see [`SandboxPolicy::writable_for`]).
    pub readonly_roots: Vec<PathBuf>,
}

impl SandboxPolicy {
    /// The default: the workspace and [`default_temp_dirs`] writable, no network.
    pub fn workspace_write(workspace: &Path) -> Self {
        let temp_dirs = default_temp_dirs();
        let mut writable_roots = vec![workspace.to_path_buf()];
        writable_roots.extend(temp_dirs.iter().cloned());
        SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            network: false,
            writable_roots,
            temp_dirs,
            readonly_roots: Vec::new(),
        }
    }

    pub fn off() -> Self {
        SandboxPolicy {
            mode: SandboxMode::Off,
            network: true,
            writable_roots: Vec::new(),
            temp_dirs: Vec::new(),
            readonly_roots: Vec::new(),
        }
    }

    /// The writable roots a wall that grants whole trees (Landlock, Seatbelt) may grant. A tree
    /// holding a read-only root can't be granted without making that root writable too, so it
    /// is left out, unless it is a temp directory that `private_temps` (namespaces) replaces with
    /// an empty one: a command then can't write `/tmp` at all while an additional root lies
    /// there. Never writable and unrecorded: a read-only root stays read-only.
    pub fn writable_for(&self, private_temps: bool) -> Vec<PathBuf> {
        self.writable_roots
            .iter()
            .filter(|w| {
                (private_temps && self.temp_dirs.contains(*w))
                    || !self.readonly_roots.iter().any(|r| r.starts_with(w))
            })
            .cloned()
            .collect()
    }
}

/// The temp directories commands may write: `$TMPDIR` (or `/tmp`), `/tmp`, `/var/tmp` and
/// `/dev/shm`, those that exist, without repeats.
pub fn default_temp_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for dir in [
        std::env::temp_dir(),
        PathBuf::from("/tmp"),
        PathBuf::from("/var/tmp"),
        PathBuf::from("/dev/shm"),
    ] {
        if let Ok(real) = dir.canonicalize()
            && !dirs.contains(&real)
        {
            dirs.push(real);
        }
    }
    dirs
}

/// What this kernel's Landlock can enforce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxSupport {
    /// The Landlock ABI version, 0 when there is none.
    pub abi: u32,
    /// Why there is none (empty when there is).
    pub missing: String,
    /// Whether each command gets its own user, mount, PID and network namespaces (see
    /// [`crate::launch`]), or why not.
    pub namespaces: Result<(), String>,
    /// macOS: `/usr/bin/sandbox-exec` is there, so commands run under a Seatbelt profile
    /// ([`crate::seatbelt`]) instead of Landlock.
    pub seatbelt: bool,
    /// Commands run through the launcher (this is the `tandem` binary): seccomp, the capability
    /// drop and the sweep are there.
    pub launcher: bool,
}

/// The walls that confine each part of the policy on this machine; an empty list means that
/// part is not confined.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Writes outside the workspace and temp directories: "mount namespace", "Landlock".
    pub files: Vec<&'static str>,
    /// The network while it is off: "network namespace", "seccomp", "Landlock TCP".
    pub network: Vec<&'static str>,
    /// What a command leaves behind: "PID namespace" or "subreaper sweep".
    pub processes: Vec<&'static str>,
}

impl SandboxSupport {
    /// Writes can be confined: by the mount namespace or by Landlock (ABI 1, Linux 5.13).
    pub fn filesystem(&self) -> bool {
        !self.coverage().files.is_empty()
    }

    /// Landlock can block TCP connect and bind (ABI 4, Linux 6.7).
    pub fn tcp(&self) -> bool {
        self.abi >= 4
    }

    /// Landlock can scope abstract Unix sockets and signals (ABI 6, Linux 6.12).
    pub fn scopes(&self) -> bool {
        self.abi >= 6
    }

    /// Which walls confine what here, each part decided on its own from what the kernel has
    /// (the table in docs/security.md).
    pub fn coverage(&self) -> Coverage {
        if self.seatbelt {
            return Coverage {
                files: vec!["Seatbelt"],
                network: vec!["Seatbelt"],
                processes: Vec::new(),
            };
        }
        let namespaces = self.namespaces.is_ok();
        let mut coverage = Coverage::default();
        if namespaces {
            coverage.files.push("mount namespace");
            coverage.network.push("network namespace");
            coverage.processes.push("PID namespace");
        }
        if self.abi >= 1 {
            coverage.files.push("Landlock");
        }
        if self.launcher {
            coverage.network.push("seccomp");
            if !namespaces {
                coverage.processes.push("subreaper sweep");
            }
        }
        // Inside its own network namespace a command's TCP reaches its loopback alone, which
        // Landlock's TCP rules would forbid too; they are set only without it.
        if self.tcp() && !namespaces {
            coverage.network.push("Landlock TCP");
        }
        coverage
    }

    /// Whether the walls that are up cover `policy`: the files always, the network when it is
    /// off. Only then may a command run unasked.
    pub fn enforces(&self, policy: &SandboxPolicy) -> bool {
        match policy.mode {
            SandboxMode::Off => false,
            SandboxMode::WorkspaceWrite => {
                let coverage = self.coverage();
                !coverage.files.is_empty() && (policy.network || !coverage.network.is_empty())
            }
        }
    }

    /// One sentence for the user.
    pub fn describe(&self) -> String {
        if self.seatbelt {
            return "Commands run under a macOS Seatbelt profile (sandbox-exec): writes only in \
                    the workspace and temp directories, .git read-only, no IP network unless \
                    allowed."
                .to_string();
        }
        let coverage = self.coverage();
        if coverage.files.is_empty() {
            let why = match &self.namespaces {
                Err(ns) if self.abi == 0 => format!("Landlock: {}; namespaces: {ns}", self.missing),
                _ => self.missing.clone(),
            };
            return format!(
                "Commands cannot be sandboxed here ({why}). Every command will ask before it runs."
            );
        }
        let list = |walls: &[&str]| {
            if walls.is_empty() {
                "nothing".to_string()
            } else {
                walls.join(" and ")
            }
        };
        let mut text = format!(
            "Commands run confined: files by {}, the network by {}, what they leave behind by {}.",
            list(&coverage.files),
            list(&coverage.network),
            list(&coverage.processes)
        );
        if let Err(why) = &self.namespaces {
            text.push_str(&format!(
                " Without namespaces ({why}): metadata changes outside the workspace (chmod), \
                 .git writes and the sidecar's /proc are not walled off"
            ));
            if !self.scopes() {
                text.push_str(
                    ", nor abstract Unix sockets and signals outside (that needs Landlock ABI 6, \
                     Linux 6.12)",
                );
            }
            text.push('.');
        }
        text
    }

    /// Every wall, whether it is up here, and what it stops or why it is down.
    pub fn walls(&self) -> Vec<Wall> {
        if self.seatbelt {
            return vec![Wall {
                name: "Seatbelt (sandbox-exec)",
                up: true,
                detail: "writes only in the workspace and temp directories, .git read-only, no \
                         IP network unless allowed"
                    .to_string(),
            }];
        }
        let launcher = self.launcher;
        let ns = |what: &'static str, stops: &str| Wall {
            name: what,
            up: self.namespaces.is_ok(),
            detail: match &self.namespaces {
                Ok(()) => stops.to_string(),
                Err(why) => why.clone(),
            },
        };
        let landlock = |name: &'static str, abi: u32, stops: &str| Wall {
            name,
            up: self.abi >= abi,
            detail: if self.abi >= abi {
                stops.to_string()
            } else if self.abi == 0 {
                self.missing.clone()
            } else {
                format!("needs Landlock ABI {abi}, this kernel has {}", self.abi)
            },
        };
        let launched = |name: &'static str, stops: &str| Wall {
            name,
            up: launcher,
            detail: if launcher {
                stops.to_string()
            } else {
                "only when run by the tandem binary's launcher".to_string()
            },
        };
        vec![
            landlock(
                "Landlock: files",
                1,
                "writes only in the workspace and the temp directories",
            ),
            Wall {
                name: "Landlock: TCP",
                up: self.tcp() && self.namespaces.is_err(),
                detail: if self.namespaces.is_ok() {
                    "not needed: the network namespace walls TCP (and keeps the loopback usable)"
                        .to_string()
                } else if self.tcp() {
                    "no TCP connect or bind".to_string()
                } else {
                    format!(
                        "needs Landlock ABI 4, this kernel has {}; seccomp walls the network",
                        self.abi
                    )
                },
            },
            landlock(
                "Landlock: scopes",
                6,
                "no abstract Unix socket or signal outside the sandbox",
            ),
            ns(
                "mount namespace",
                "/ read-only (no chmod, chown, utime, xattr outside), private /tmp and /dev, \
                 every .git read-only",
            ),
            ns(
                "PID namespace",
                "own /proc (the sidecar invisible); the command's end kills all it started",
            ),
            ns(
                "network namespace",
                "loopback only (127.0.0.1 works inside): no UDP, DNS, MPTCP or any route out",
            ),
            launched(
                "seccomp",
                "no device nodes, mounts, modules, hostname, kernel log or terminal injection; \
                 while the network is off no IP socket outside the command's network namespace, \
                 no io_uring",
            ),
            launched(
                "capabilities",
                "none kept, root included: no_new_privs, every capability set emptied",
            ),
            launched(
                "session",
                "no controlling terminal (/dev/tty fails); leftovers swept without a PID namespace",
            ),
        ]
    }
}

/// One wall of [`SandboxSupport::walls`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wall {
    pub name: &'static str,
    pub up: bool,
    /// What it stops when up, why it is down otherwise.
    pub detail: String,
}

/// Why a command could not be confined.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "commands cannot be sandboxed: Landlock is not available ({0}); run them only with \
         the user's approval, or set the sandbox mode to off"
    )]
    Unsupported(String),
    #[error(
        "this kernel's Landlock (ABI {0}) cannot block network access (that needs ABI 4, Linux \
         6.7); allow the network in the sandbox policy, or run the command with the user's approval"
    )]
    NoNetworkRestriction(u32),
    #[error("could not build the sandbox rules for {path}: {message}")]
    Rules { path: String, message: String },
}

/// What [`confine`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confinement {
    /// Mode off: the command runs as it is.
    Unrestricted,
    /// The command will restrict itself before `exec`, with this Landlock ABI.
    Landlock { abi: u32 },
    /// The command runs through the launcher ([`crate::launch`]): Landlock with this ABI,
    /// seccomp, a new session, and namespaces when `namespaces`.
    Launcher { abi: u32, namespaces: bool },
    /// The command runs under `sandbox-exec` with a Seatbelt profile (macOS).
    Seatbelt,
}

/// What the running kernel supports; asked once per process (the namespaces by a probe run of
/// the launcher), then remembered.
pub fn status() -> SandboxSupport {
    static STATUS: std::sync::OnceLock<SandboxSupport> = std::sync::OnceLock::new();
    STATUS
        .get_or_init(|| {
            let mut support = imp::status();
            support.launcher = crate::launch::launcher().is_some();
            support.namespaces = crate::launch::probe_namespaces();
            support
        })
        .clone()
}

/// A command that runs `program` with `args` under `policy`: through the launcher when this
/// process is the `tandem` binary (see [`crate::launch::dispatch`]), otherwise confined in place
/// by [`confine`] (Landlock alone). With mode [`SandboxMode::Off`] it is the program as it is.
pub fn command(
    program: &std::ffi::OsStr,
    args: &[std::ffi::OsString],
    policy: &SandboxPolicy,
) -> Result<(std::process::Command, Confinement), SandboxError> {
    command_with_capture(program, args, policy, Vec::new())
        .map(|(c, confinement, _)| (c, confinement))
}

/// [`command`], with the writes to each capture's root caught in an overlay (see
/// [`crate::capture`]) where the launcher raises namespaces; the `bool` says whether they are
/// caught (else the command writes to the real roots). A capture whose root is no writable root
/// that exists is left out (nothing can be written there).
pub fn command_with_capture(
    program: &std::ffi::OsStr,
    args: &[std::ffi::OsString],
    policy: &SandboxPolicy,
    captures: Vec<crate::launch::CaptureMount>,
) -> Result<(std::process::Command, Confinement, bool), SandboxError> {
    let plain = || {
        let mut command = std::process::Command::new(program);
        command.args(args);
        command
    };
    if policy.mode == SandboxMode::Off {
        return Ok((plain(), Confinement::Unrestricted, false));
    }
    if status().seatbelt {
        return Ok((
            seatbelt_command(program, args, policy),
            Confinement::Seatbelt,
            false,
        ));
    }
    let Some(launcher) = crate::launch::launcher() else {
        let mut command = plain();
        let confinement = confine(&mut command, policy)?;
        return Ok((command, confinement, false));
    };
    let support = status();
    if support.coverage().files.is_empty() {
        return Err(SandboxError::Unsupported(support.describe()));
    }
    let options = crate::launch::LaunchOptions {
        network: policy.network,
        namespaces: support.namespaces.is_ok(),
        probe: false,
        writable: policy
            .writable_roots
            .iter()
            .filter(|p| !policy.temp_dirs.contains(p) && p.exists())
            .cloned()
            .collect(),
        temp: policy.temp_dirs.clone(),
        readonly: policy
            .readonly_roots
            .iter()
            .filter(|p| p.exists())
            .cloned()
            .collect(),
        captures: Vec::new(),
    };
    let mut options = options;
    if options.namespaces {
        options.captures = captures
            .into_iter()
            .filter(|c| options.writable.contains(&c.root))
            .collect();
    }
    let captured = !options.captures.is_empty();
    let mut command = std::process::Command::new(launcher);
    command
        .arg(crate::launch::SUBCOMMAND)
        .args(options.to_args())
        .arg(program)
        .args(args);
    Ok((
        command,
        Confinement::Launcher {
            abi: support.abi,
            namespaces: options.namespaces,
        },
        captured,
    ))
}

/// `program` with `args` run by `sandbox-exec` under the policy's Seatbelt profile (macOS).
pub fn seatbelt_command(
    program: &std::ffi::OsStr,
    args: &[std::ffi::OsString],
    policy: &SandboxPolicy,
) -> std::process::Command {
    let profile = crate::seatbelt::SeatbeltProfile::new(policy);
    let mut command = std::process::Command::new(crate::seatbelt::SANDBOX_EXEC);
    command.args(profile.command(std::path::Path::new(program), args));
    command
}

/// Arranges for `command` to run under `policy`: builds the Landlock rules now and adds a
/// `pre_exec` step that enforces them in the child. For a `tokio::process::Command`, pass
/// `command.as_std_mut()`. Each spawn of `command` is confined; the rules hold an open file
/// descriptor (close-on-exec) until `command` is dropped.
///
/// With mode [`SandboxMode::Off`] it does nothing. When the kernel cannot enforce the policy's
/// filesystem or network part it returns an error and leaves `command` untouched.
pub fn confine(
    command: &mut std::process::Command,
    policy: &SandboxPolicy,
) -> Result<Confinement, SandboxError> {
    if policy.mode == SandboxMode::Off {
        return Ok(Confinement::Unrestricted);
    }
    imp::confine(command, policy)
}

#[cfg(target_os = "linux")]
pub(crate) use imp::restrict_self;

/// What the launcher needs of Landlock (Linux's alone).
#[cfg(target_os = "linux")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// Landlock is the only wall around the files: its file rights must be enforced.
    Files,
    /// Another wall confines the files: Landlock adds what the kernel has, if anything.
    BestEffort,
}

#[cfg(target_os = "linux")]
mod imp {
    use std::os::unix::process::CommandExt;
    use std::path::Path;

    use landlock::{
        ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
        Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
    };

    use super::{Confinement, Need, SandboxError, SandboxPolicy, SandboxSupport};

    /// The newest ABI whose rights we ask for. Fixed, as the landlock crate advises: a newer
    /// kernel must not silently change what commands may do.
    const TARGET: ABI = ABI::V6;

    pub fn status() -> SandboxSupport {
        const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
        // SAFETY: with a null attribute pointer, size 0 and the VERSION flag the call only
        // returns the ABI version (or an error); it touches no memory of ours.
        let version = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        if version >= 1 {
            return SandboxSupport {
                abi: u32::try_from(version).unwrap_or(u32::MAX),
                missing: String::new(),
                namespaces: Ok(()),
                seatbelt: false,
                launcher: false,
            };
        }
        let missing = match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EOPNOTSUPP) => {
                "the kernel has Landlock but it is not enabled (add `landlock` to the `lsm=` boot \
                 parameter)"
            }
            Some(libc::ENOSYS) => {
                "the kernel was built without Landlock (Linux 5.13 or newer with CONFIG_SECURITY_LANDLOCK)"
            }
            Some(libc::EPERM) => {
                "a seccomp filter (e.g. a container runtime's) refuses the Landlock system calls"
            }
            _ => "the Landlock version query failed",
        };
        SandboxSupport {
            abi: 0,
            missing: missing.to_string(),
            namespaces: Ok(()),
            seatbelt: false,
            launcher: false,
        }
    }

    /// Refuses a policy that Landlock alone (confined in place, no launcher) can't enforce.
    pub fn check(support: &SandboxSupport, policy: &SandboxPolicy) -> Result<(), SandboxError> {
        if support.abi == 0 {
            return Err(SandboxError::Unsupported(support.missing.clone()));
        }
        if !policy.network && !support.tcp() {
            return Err(SandboxError::NoNetworkRestriction(support.abi));
        }
        Ok(())
    }

    /// Enforces `policy` on the calling (single-threaded) process: the launcher's way. With
    /// [`Need::Files`] Landlock must confine the files; with [`Need::BestEffort`] it adds what
    /// this kernel has, nothing when it has none. `namespaces`: `/dev` is the launcher's own, so
    /// its `/dev/pts` may be used, and the network namespace walls the network (the command's
    /// loopback stays usable).
    pub fn restrict_self(
        policy: &SandboxPolicy,
        need: Need,
        namespaces: bool,
    ) -> Result<(), SandboxError> {
        let status = build(policy, need, namespaces)?
            .restrict_self()
            .map_err(|e| SandboxError::Rules {
                path: "/".to_string(),
                message: e.to_string(),
            })?;
        if need == Need::Files && status.ruleset == RulesetStatus::NotEnforced {
            return Err(SandboxError::Unsupported(
                "the Landlock rules were not enforced".to_string(),
            ));
        }
        Ok(())
    }

    pub fn confine(
        command: &mut std::process::Command,
        policy: &SandboxPolicy,
    ) -> Result<Confinement, SandboxError> {
        let support = status();
        check(&support, policy)?;
        let mut ruleset = Some(build(policy, Need::Files, false)?);
        let pre_exec = move || {
            // In the child, between fork and exec: `restrict_self` makes two system calls
            // (prctl, landlock_restrict_self) and closes the ruleset; no allocation, no lock.
            let Some(ruleset) = ruleset.take() else {
                return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
            };
            match ruleset.restrict_self() {
                Ok(status) if status.ruleset != RulesetStatus::NotEnforced => Ok(()),
                Ok(_) => Err(std::io::Error::from_raw_os_error(libc::EPERM)),
                Err(_) => Err(std::io::Error::last_os_error()),
            }
        };
        // SAFETY: the closure is async-signal-safe (see above), and `take` only moves a value in
        // the child's own copy of the memory, so every spawn starts from the parent's `Some`.
        unsafe {
            command.pre_exec(pre_exec);
        }
        Ok(Confinement::Landlock { abi: support.abi })
    }

    /// The rules. Every right is asked best effort, so a kernel that lacks one (TCP before ABI 4,
    /// scopes before ABI 6) gets the others; only [`Need::Files`] makes the files' rights a
    /// requirement.
    fn build(
        policy: &SandboxPolicy,
        need: Need,
        namespaces: bool,
    ) -> Result<RulesetCreated, SandboxError> {
        let err = |path: &Path| {
            let path = path.display().to_string();
            move |e: landlock::RulesetError| SandboxError::Rules {
                path: path.clone(),
                message: e.to_string(),
            }
        };
        let root = Path::new("/");
        let files = match need {
            Need::Files => CompatLevel::HardRequirement,
            Need::BestEffort => CompatLevel::BestEffort,
        };
        let mut ruleset = Ruleset::default()
            .set_compatibility(files)
            .handle_access(AccessFs::from_all(ABI::V1))
            .and_then(|r| {
                r.set_compatibility(CompatLevel::BestEffort)
                    .handle_access(AccessFs::from_all(TARGET))
            })
            .map_err(err(root))?;
        if !policy.network && !namespaces {
            ruleset = ruleset
                .set_compatibility(CompatLevel::BestEffort)
                .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
                .and_then(|r| r.scope(Scope::AbstractUnixSocket))
                .map_err(err(root))?;
        }
        let mut created = ruleset
            .set_compatibility(CompatLevel::BestEffort)
            .scope(Scope::Signal)
            .and_then(|r| r.create())
            .map_err(err(root))?;

        // Reads everywhere but /dev (listing / and /dev is fine).
        created = add(created, root, AccessFs::ReadDir.into())?;
        let entries = std::fs::read_dir(root).map_err(|e| SandboxError::Rules {
            path: "/".to_string(),
            message: e.to_string(),
        })?;
        for entry in entries.flatten() {
            if entry.file_name() != "dev" {
                created = add(created, &entry.path(), AccessFs::from_read(TARGET))?;
            }
        }
        for path in &policy.writable_for(namespaces) {
            let access = if path.is_dir() {
                AccessFs::from_all(TARGET)
            } else {
                AccessFs::from_file(TARGET)
            };
            created = add(created, path, access)?;
        }
        let plain = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;
        for device in [
            "/dev/null",
            "/dev/zero",
            "/dev/full",
            "/dev/random",
            "/dev/urandom",
        ] {
            created = add(created, Path::new(device), plain | AccessFs::IoctlDev)?;
        }
        if namespaces {
            // The command's own pseudo-terminals (a new devpts instance), none of the user's.
            created = add(
                created,
                Path::new("/dev/pts"),
                plain | AccessFs::IoctlDev | AccessFs::ReadDir,
            )?;
        }
        Ok(created)
    }

    /// Adds one rule; a path that does not exist is left out (the command gets less, not more).
    fn add(
        created: RulesetCreated,
        path: &Path,
        access: BitFlags<AccessFs>,
    ) -> Result<RulesetCreated, SandboxError> {
        if !path.exists() {
            return Ok(created);
        }
        let rules_error = |message: String| SandboxError::Rules {
            path: path.display().to_string(),
            message,
        };
        let fd = PathFd::new(path).map_err(|e| rules_error(e.to_string()))?;
        created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|e| rules_error(e.to_string()))
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{Confinement, SandboxError, SandboxPolicy, SandboxSupport};

    pub fn status() -> SandboxSupport {
        SandboxSupport {
            abi: 0,
            missing: if cfg!(windows) {
                "Landlock exists only on Linux, and Tandem has no sandbox for Windows yet"
            } else if seatbelt() {
                ""
            } else {
                "Landlock exists only on Linux, and this system has no /usr/bin/sandbox-exec"
            }
            .to_string(),
            namespaces: Err("namespaces exist only on Linux".to_string()),
            seatbelt: seatbelt(),
            launcher: false,
        }
    }

    /// macOS with its `sandbox-exec`: commands can run under a Seatbelt profile.
    fn seatbelt() -> bool {
        cfg!(target_os = "macos") && std::path::Path::new(crate::seatbelt::SANDBOX_EXEC).is_file()
    }

    pub fn confine(
        _command: &mut std::process::Command,
        _policy: &SandboxPolicy,
    ) -> Result<Confinement, SandboxError> {
        Err(SandboxError::Unsupported(status().missing))
    }
}
