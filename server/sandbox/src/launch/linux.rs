//! The launcher on Linux: namespaces and mounts, then a child that is the command.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::{LaunchOptions, SETUP_FAILED};
use crate::{SandboxMode, SandboxPolicy};

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;

pub fn run(options: &LaunchOptions, program: &[OsString]) -> i32 {
    // Re-executed as `/proc/self/exe`, the launcher would show as `exe` in process lists.
    // SAFETY: PR_SET_NAME reads a NUL-terminated name of at most 16 bytes; a failure only leaves
    // the old name.
    unsafe { libc::prctl(libc::PR_SET_NAME, c"tandem-sandbox".as_ptr()) };
    match raise_and_run(options, program) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tandem sandbox: {e}");
            SETUP_FAILED
        }
    }
}

fn raise_and_run(options: &LaunchOptions, program: &[OsString]) -> Result<i32, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?;
    let argv = program
        .iter()
        .map(|a| CString::new(a.as_bytes()).map_err(|_| format!("{a:?} holds a NUL byte")))
        .collect::<Result<Vec<_>, _>>()?;
    if options.namespaces {
        enter_namespaces(options)?;
    } else {
        // Orphans of the command become ours, so the sweep below finds every one of them.
        check(
            // SAFETY: a plain integer call about this process alone.
            unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) },
            "become a subreaper",
        )?;
    }
    // From here a stop signal is never lost: it stays pending until `wait_for` takes it.
    let signals = Signals::block()?;
    // The child watches this pipe: when its write end is closed, the launcher is gone.
    let alive = Pipe::new()?;
    // SAFETY: the launcher is single-threaded, so the child may run any code.
    let child = unsafe { libc::fork() };
    if child < 0 {
        return Err(format!("fork failed: {}", io::Error::last_os_error()));
    }
    if child == 0 {
        // SAFETY: our own descriptor, closed once.
        unsafe { libc::close(alive.write) };
        let e = become_the_command(options, &cwd, &argv, &signals, alive.read);
        eprintln!("tandem sandbox: {e}");
        // SAFETY: ends the child without running the parent's destructors twice.
        unsafe { libc::_exit(SETUP_FAILED) };
    }
    // SAFETY: our own descriptor, closed once; the write end stays open while we live.
    unsafe { libc::close(alive.read) };
    let status = wait_for(child, &signals);
    if !options.namespaces {
        sweep();
    }
    let status = status?;
    signals.restore();
    Ok(exit_like(status))
}

/// A pipe, both ends close-on-exec.
struct Pipe {
    read: libc::c_int,
    write: libc::c_int,
}

impl Pipe {
    fn new() -> Result<Pipe, String> {
        let mut fds = [0; 2];
        check(
            // SAFETY: pipe2 writes two descriptors into the array we pass.
            unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) },
            "make a pipe",
        )?;
        Ok(Pipe {
            read: fds[0],
            write: fds[1],
        })
    }
}

/// The stop signals (SIGTERM, SIGINT, SIGHUP: the sidecar cancelling, timing out or going away)
/// and SIGCHLD, blocked, so the launcher takes them one by one in [`wait_for`] instead of
/// racing a handler against `waitpid`.
struct Signals {
    set: libc::sigset_t,
    previous: libc::sigset_t,
}

impl Signals {
    fn block() -> Result<Signals, String> {
        // SAFETY: sigset_t is plain data, filled by sigemptyset before any use.
        let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        let mut previous: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: pointers to our own sets.
        let r = unsafe {
            libc::sigemptyset(&mut set);
            for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGCHLD] {
                libc::sigaddset(&mut set, signal);
            }
            libc::sigprocmask(libc::SIG_BLOCK, &set, &mut previous)
        };
        check(r, "block the stop signals")?;
        Ok(Signals { set, previous })
    }

    /// The mask as it was: the command starts with the signals its caller gave it.
    fn restore(&self) {
        // SAFETY: a set sigprocmask filled before.
        unsafe { libc::sigprocmask(libc::SIG_SETMASK, &self.previous, std::ptr::null_mut()) };
    }
}

/// In the child: the last walls, then `exec`. Returns only on failure.
fn become_the_command(
    options: &LaunchOptions,
    cwd: &Path,
    argv: &[CString],
    signals: &Signals,
    alive: libc::c_int,
) -> String {
    let result = (|| -> Result<(), String> {
        // If the launcher dies (the sidecar killed its group), so does the command, and with a
        // PID namespace everything the command started.
        check(
            // SAFETY: a plain integer call about this process alone.
            unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) },
            "set the parent-death signal",
        )?;
        // The launcher may have died before that call: then no signal comes, but its end of
        // the pipe is closed (a PID namespace's init can't ask getppid()).
        if launcher_gone(alive) {
            return Err("the launcher ended before the command started".to_string());
        }
        if options.namespaces {
            mount_proc()?;
            if !options.network {
                loopback_up()?;
            }
        }
        // No controlling terminal: `/dev/tty` fails, nothing can type into the user's shell.
        // SAFETY: takes no arguments; fails only if we already lead a process group.
        check(unsafe { libc::setsid() }, "start a new session")?;
        std::env::set_current_dir(cwd)
            .map_err(|e| format!("cannot enter {}: {e}", cwd.display()))?;
        let mut writable_roots = options.writable.clone();
        writable_roots.extend(options.temp.iter().cloned());
        let policy = SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            network: options.network,
            writable_roots,
            temp_dirs: options.temp.clone(),
            readonly_roots: options.readonly.clone(),
        };
        // With namespaces the mount namespace confines the files and Landlock adds what this
        // kernel has; without, Landlock is the files' only wall and must hold.
        let landlock = if options.namespaces {
            crate::confine::Need::BestEffort
        } else {
            crate::confine::Need::Files
        };
        crate::confine::restrict_self(&policy, landlock, options.namespaces)
            .map_err(|e| e.to_string())?;
        drop_capabilities()?;
        crate::seccomp::apply(options.network, options.namespaces)?;
        Ok(())
    })();
    if let Err(e) = result {
        return e;
    }
    if options.probe {
        // SAFETY: as above.
        unsafe { libc::_exit(0) };
    }
    signals.restore();
    let mut pointers: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    pointers.push(std::ptr::null());
    // SAFETY: NUL-terminated strings and a null-terminated array that outlive the call.
    unsafe { libc::execvp(pointers[0], pointers.as_ptr()) };
    format!(
        "cannot run {}: {}",
        argv[0].to_string_lossy(),
        io::Error::last_os_error()
    )
}

/// Whether every write end of the launcher's pipe is closed (the launcher is gone).
fn launcher_gone(alive: libc::c_int) -> bool {
    let mut poll = libc::pollfd {
        fd: alive,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one pollfd of ours; a zero timeout only asks.
    let r = unsafe { libc::poll(&mut poll, 1, 0) };
    // SAFETY: our own descriptor, closed once (it is close-on-exec as well).
    unsafe { libc::close(alive) };
    r > 0 && poll.revents & libc::POLLHUP != 0
}

/// A user namespace mapping only our own ids, and in it new mount, PID, IPC and (without the
/// network) network namespaces; then the mounts.
fn enter_namespaces(options: &LaunchOptions) -> Result<(), String> {
    // SAFETY: plain integer calls.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let mut flags =
        libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWIPC;
    if !options.network {
        flags |= libc::CLONE_NEWNET;
    }
    // SAFETY: the launcher is single-threaded, as unshare(CLONE_NEWUSER) requires; flags only.
    if unsafe { libc::unshare(flags) } != 0 {
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::EPERM) | Some(libc::EACCES) => {
                format!(
                    "the kernel refuses a user namespace ({e}): {}",
                    why_refused()
                )
            }
            Some(libc::ENOSPC) => {
                format!("no user namespace left (user.max_user_namespaces is 0 or reached): {e}")
            }
            Some(libc::EINVAL) | Some(libc::ENOSYS) => {
                format!("this kernel has no user namespaces ({e})")
            }
            _ => format!("could not create the namespaces: {e}"),
        });
    }
    in_new_user_namespace(options, uid, gid).map_err(|e| match apparmor_restricts() {
        true => format!(
            "{e}: Ubuntu's AppArmor restriction (kernel.apparmor_restrict_unprivileged_userns=1) \
             gives the namespace no capabilities; allow this tandem binary with the AppArmor \
             profile in docs/security.md"
        ),
        false => e,
    })
}

/// The rest of [`enter_namespaces`], inside the new user namespace.
fn in_new_user_namespace(options: &LaunchOptions, uid: u32, gid: u32) -> Result<(), String> {
    match std::fs::write("/proc/self/setgroups", "deny") {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            return Err(format!("could not write /proc/self/setgroups: {e}"));
        }
        _ => {}
    }
    for (file, id) in [("uid_map", uid), ("gid_map", gid)] {
        std::fs::write(format!("/proc/self/{file}"), format!("{id} {id} 1\n"))
            .map_err(|e| format!("could not write /proc/self/{file}: {e}"))?;
    }
    mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    )?;
    build_mounts(options)
}

/// Why the kernel refused an unprivileged user namespace, and the fix, as far as this machine
/// tells.
fn why_refused() -> String {
    let sysctl = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/{name}"))
            .ok()
            .map(|v| v.trim().to_string())
    };
    if sysctl("kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        return "kernel.unprivileged_userns_clone=0 (Debian's switch); `sysctl -w \
                kernel.unprivileged_userns_clone=1` allows them"
            .to_string();
    }
    if crate::launch::in_container() {
        return "this looks like a container whose seccomp profile refuses user namespaces \
                (Docker's and Podman's default); run it with `--security-opt \
                seccomp=unconfined` (or a profile that allows unshare and clone with \
                CLONE_NEWUSER), or keep the fallback"
            .to_string();
    }
    if apparmor_restricts() {
        return "Ubuntu's AppArmor restriction (kernel.apparmor_restrict_unprivileged_userns=1); \
                allow this tandem binary with the AppArmor profile in docs/security.md"
            .to_string();
    }
    "a security module or a seccomp filter of this machine refuses them".to_string()
}

/// Ubuntu 23.10 and later: unprivileged user namespaces are made but get no capabilities unless
/// an AppArmor profile allows the program.
fn apparmor_restricts() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
        .is_ok_and(|v| v.trim() == "1")
}

/// `/` read-only, a private `/dev` and temp directories, writable roots bound back, read-only
/// roots bound back read-only, every `.git` under the writable ones read-only, and the user's
/// runtime directory (D-Bus, systemd, Wayland sockets) hidden.
fn build_mounts(options: &LaunchOptions) -> Result<(), String> {
    // Opened before anything covers them: a workspace under /tmp is hidden by the private /tmp
    // and bound back from this handle.
    let mut roots: Vec<(PathBuf, File)> = Vec::new();
    for path in &options.writable {
        if let Ok(file) = open_path(path) {
            roots.push((path.clone(), file));
        }
    }
    let mut readonly: Vec<(PathBuf, File)> = Vec::new();
    for path in &options.readonly {
        if let Ok(file) = open_path(path) {
            readonly.push((path.clone(), file));
        }
    }
    // The real directories that pass through each overlay, opened before it covers them.
    let mut passthrough: Vec<(PathBuf, File)> = Vec::new();
    for capture in &options.captures {
        let mut through: Vec<(PathBuf, File)> = Vec::new();
        for path in &capture.passthrough {
            if let Ok(file) = open_path(path) {
                through.push((path.clone(), file));
            }
        }
        let Some((_, handle)) = roots.iter_mut().find(|(p, _)| *p == capture.root) else {
            return Err(format!(
                "the captured root {} is not a writable root",
                capture.root.display()
            ));
        };
        // Mounted while its upper dir's filesystem is still writable (the overlay keeps a
        // private clone of that mount); bound back below from a handle to the overlay itself.
        match mount_overlay(handle, &capture.root, &capture.dir) {
            Ok(()) => {
                *handle = open_path(&capture.root).map_err(|e| {
                    format!(
                        "could not open the overlay at {}: {e}",
                        capture.root.display()
                    )
                })?;
                passthrough.append(&mut through);
            }
            // The root's filesystem may refuse to be a lower layer (some FUSE or network
            // ones): that root is written as without capture, and the sidecar is told why.
            Err(e) => {
                std::fs::write(capture.dir.join(crate::capture::NOT_CAPTURED), &e)
                    .map_err(|w| format!("{e}; and could not say so: {w}"))?;
            }
        }
    }
    // The session bus there starts anything as the user, outside every wall (`systemd-run
    // --user`); a workspace inside it keeps its own bind below.
    let runtime = runtime_dir();
    set_readonly(Path::new("/"), true, true)?;
    private_dev()?;
    if let Some(runtime) = &runtime {
        mount(
            Some(Path::new("tmpfs")),
            runtime,
            Some("tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            Some("mode=700"),
        )?;
    }
    let mut temps: Vec<&PathBuf> = options
        .temp
        .iter()
        .filter(|t| !options.writable.contains(t) && t.is_dir())
        .collect();
    temps.sort_by_key(|t| t.as_os_str().len());
    let mut private: Vec<&PathBuf> = Vec::new();
    for temp in temps {
        if private.iter().any(|p| temp.starts_with(p)) {
            // $TMPDIR inside /tmp: it exists, empty, in the private /tmp.
            std::fs::create_dir_all(temp)
                .map_err(|e| format!("could not create {}: {e}", temp.display()))?;
            continue;
        }
        mount(
            Some(Path::new("tmpfs")),
            temp,
            Some("tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV,
            Some("mode=1777"),
        )?;
        private.push(temp);
    }
    // Before the writable roots, so one inside a read-only root is bound over it, writable.
    // One inside a writable root (Tandem's own config or data dir in a root the user opened)
    // is bound read-only after that root, below.
    let inside_writable = |path: &Path| options.writable.iter().any(|w| path.starts_with(w));
    for (path, handle) in &readonly {
        if inside_writable(path) {
            continue;
        }
        bind_back(path, handle)?;
        set_readonly(path, true, true)?;
    }
    for (path, handle) in &roots {
        let is_dir = bind_back(path, handle)?;
        set_readonly(path, false, false)?;
        for (inner, handle) in passthrough.iter().filter(|(p, _)| p.starts_with(path)) {
            // Ignored build and dependency dirs: the real ones, writes go straight through.
            let source = PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd()));
            mount(
                Some(&source),
                inner,
                None,
                libc::MS_BIND | libc::MS_REC,
                None,
            )?;
            set_readonly(inner, false, false)?;
        }
        if is_dir {
            // The user's own git (and the editor's) runs what a .git says, outside any sandbox:
            // every one under the root is bound read-only (a workspace's nested repositories and
            // submodules too).
            for git in crate::gitdirs::find(path).paths {
                mount(Some(&git), &git, None, libc::MS_BIND | libc::MS_REC, None)?;
                set_readonly(&git, true, true)?;
            }
        }
    }
    for (path, _) in readonly.iter().filter(|(p, _)| inside_writable(p)) {
        // The root's own view of it (the overlay's, where the root is captured), read-only.
        mount(Some(path), path, None, libc::MS_BIND | libc::MS_REC, None)?;
        set_readonly(path, true, true)?;
    }
    Ok(())
}

/// Binds `handle` (opened before the temp directories covered it) at `path`, making the mount
/// point in a private temp directory where it is missing; returns whether it is a directory.
fn bind_back(path: &Path, handle: &File) -> Result<bool, String> {
    let is_dir = handle.metadata().map(|m| m.is_dir()).unwrap_or(false);
    if !path.exists() {
        // Covered by a private temp dir: make the mount point there.
        if is_dir {
            std::fs::create_dir_all(path)
        } else {
            path.parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| File::create(path).map(drop))
        }
        .map_err(|e| format!("could not create {}: {e}", path.display()))?;
    }
    let source = PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd()));
    mount(
        Some(&source),
        path,
        None,
        libc::MS_BIND | libc::MS_REC,
        None,
    )?;
    Ok(is_dir)
}

/// An overlay at `root`: the real directory (`lower`, a handle to it) below, `dir/upper` and
/// `dir/work` above, with user extended attributes (`userxattr`: what an unprivileged user
/// namespace may use, Linux 5.11 and later).
fn mount_overlay(lower: &File, root: &Path, dir: &Path) -> Result<(), String> {
    let upper = dir.join(crate::capture::UPPER);
    let work = dir.join(crate::capture::WORK);
    let data = format!(
        "lowerdir={},upperdir={},workdir={},userxattr",
        overlay_escape(Path::new(&format!("/proc/self/fd/{}", lower.as_raw_fd()))),
        overlay_escape(&upper),
        overlay_escape(&work),
    );
    mount(
        Some(Path::new("overlay")),
        root,
        Some("overlay"),
        0,
        Some(&data),
    )
    .map_err(|e| {
        let loaded = std::fs::read_to_string("/proc/filesystems")
            .is_ok_and(|f| f.lines().any(|l| l.trim_end().ends_with("overlay")));
        if loaded {
            format!(
                "{e} (capturing a command's writes needs overlayfs in a user namespace: Linux \
                 5.11 or later)"
            )
        } else {
            format!("{e} (overlayfs is not loaded in this kernel: `modprobe overlay` loads it)")
        }
    })
}

/// A path as overlayfs's options take it: `,`, `:` and `\` escaped with a backslash.
fn overlay_escape(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        if matches!(c, ',' | ':' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `$XDG_RUNTIME_DIR` (or `/run/user/UID`) when it exists: the user's sockets to services that
/// run commands outside the sandbox.
fn runtime_dir() -> Option<PathBuf> {
    // SAFETY: a plain integer call.
    let uid = unsafe { libc::getuid() };
    let dir = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .unwrap_or_else(|| PathBuf::from(format!("/run/user/{uid}")));
    dir.canonicalize()
        .ok()
        .filter(|d| d.is_dir() && d != Path::new("/"))
}

/// The devices a command may use, in a `/dev` of its own: `null`, `zero`, `full`, `random`,
/// `urandom` and `tty` bound from the host, a new `devpts` instance (its own pseudo-terminals,
/// none of the user's), `shm` (a temp directory, made private below) and the `fd` links. No
/// disk, console, kernel log or other terminal is there.
fn private_dev() -> Result<(), String> {
    let dev = Path::new("/dev");
    let mut nodes = Vec::new();
    for name in ["null", "zero", "full", "random", "urandom", "tty"] {
        if let Ok(handle) = open_path(&dev.join(name)) {
            nodes.push((name, handle));
        }
    }
    mount(
        Some(Path::new("tmpfs")),
        dev,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some("mode=755"),
    )?;
    let made = |what: &Path, e: io::Error| format!("could not create {}: {e}", what.display());
    for (name, handle) in &nodes {
        let target = dev.join(name);
        File::create(&target).map_err(|e| made(&target, e))?;
        let source = PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd()));
        mount(Some(&source), &target, None, libc::MS_BIND, None)?;
    }
    for dir in ["pts", "shm"] {
        let path = dev.join(dir);
        std::fs::create_dir(&path).map_err(|e| made(&path, e))?;
    }
    // Without a devpts of its own the command simply has no pseudo-terminals.
    if mount(
        Some(Path::new("devpts")),
        &dev.join("pts"),
        Some("devpts"),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some("newinstance,ptmxmode=0666,mode=0620"),
    )
    .is_ok()
    {
        let _ = std::os::unix::fs::symlink("pts/ptmx", dev.join("ptmx"));
    }
    for (link, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        std::os::unix::fs::symlink(target, dev.join(link)).map_err(|e| made(&dev.join(link), e))?;
    }
    set_readonly(dev, true, false)
}

fn open_path(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
        .open(path)
}

/// Sets or clears the read-only flag of the mount at `path` (and, `recursive`, of those below).
fn set_readonly(path: &Path, readonly: bool, recursive: bool) -> Result<(), String> {
    let attr = MountAttr {
        attr_set: if readonly { MOUNT_ATTR_RDONLY } else { 0 },
        attr_clr: if readonly { 0 } else { MOUNT_ATTR_RDONLY },
        propagation: 0,
        userns_fd: 0,
    };
    let c_path = c_path(path)?;
    let flags = if recursive { libc::AT_RECURSIVE } else { 0 };
    // SAFETY: a valid path and a struct of the size passed.
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            c_path.as_ptr(),
            flags as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if r != 0 {
        let e = io::Error::last_os_error();
        let hint = if e.raw_os_error() == Some(libc::ENOSYS) {
            " (mount_setattr needs Linux 5.12)"
        } else {
            ""
        };
        return Err(format!(
            "could not make {} {}: {e}{hint}",
            path.display(),
            if readonly { "read-only" } else { "writable" }
        ));
    }
    Ok(())
}

fn mount(
    source: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> Result<(), String> {
    let c = |s: Option<&str>| s.map(|s| CString::new(s).unwrap_or_default());
    let (fstype_c, data_c) = (c(fstype), c(data));
    let source_c = source.map(c_path).transpose()?;
    let target_c = c_path(target)?;
    let ptr = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: NUL-terminated strings or null, as mount(2) takes them.
    let r = unsafe {
        libc::mount(
            ptr(&source_c),
            target_c.as_ptr(),
            ptr(&fstype_c),
            flags,
            ptr(&data_c).cast(),
        )
    };
    if r != 0 {
        return Err(format!(
            "could not mount {} on {}: {}",
            source.map_or("(none)".into(), |s| s.display().to_string()),
            target.display(),
            io::Error::last_os_error()
        ));
    }
    Ok(())
}

fn c_path(path: &Path) -> Result<CString, String> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| format!("{} holds a NUL byte", path.display()))
}

/// This PID namespace's own `/proc`, over the host's, read-only: no `/proc/sys` or
/// `/proc/sysrq-trigger` write, whoever the command is.
fn mount_proc() -> Result<(), String> {
    mount(
        Some(Path::new("proc")),
        Path::new("/proc"),
        Some("proc"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC | libc::MS_RDONLY,
        None,
    )
    .map_err(|e| format!("{e} (a container that masks parts of /proc forbids it)"))
}

/// The new network namespace's loopback, up: servers a command starts for its own tests work.
fn loopback_up() -> Result<(), String> {
    // SAFETY: a socket we close below, and an ifreq we own.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        check(fd, "open a socket for the loopback")?;
        let mut req: libc::ifreq = std::mem::zeroed();
        for (i, b) in b"lo".iter().enumerate() {
            req.ifr_name[i] = *b as libc::c_char;
        }
        let mut r = libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut req);
        if r == 0 {
            req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            r = libc::ioctl(fd, libc::SIOCSIFFLAGS, &mut req);
        }
        let e = io::Error::last_os_error();
        libc::close(fd);
        if r != 0 {
            return Err(format!("could not bring the loopback up: {e}"));
        }
    }
    Ok(())
}

/// The command keeps no capability, whoever starts it (root in a container without namespaces
/// included): `no_new_privs` (so an `exec` can't gain any back: not by setuid, file
/// capabilities or root's own rule), the bounding and ambient sets emptied where this process
/// may, then the effective, permitted and inheritable sets.
fn drop_capabilities() -> Result<(), String> {
    check(
        // SAFETY: plain integers about this process alone.
        unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) },
        "set no_new_privs",
    )?;
    for cap in 0..64 {
        // SAFETY: plain integers; EINVAL past the last capability this kernel knows, EPERM
        // without CAP_SETPCAP (nothing to drop then that no_new_privs doesn't already keep).
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap) } != 0 {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINVAL) | Some(libc::EPERM) => break,
                _ => return Err(format!("could not drop capability {cap}: {e}")),
            }
        }
    }
    // SAFETY: plain integers; fails only on kernels before 4.3, which have no ambient set.
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        )
    };
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    let header = Header {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
    ];
    // SAFETY: a v3 header and the two data structs it takes.
    let r = unsafe { libc::syscall(libc::SYS_capset, &header, data.as_ptr()) };
    check(r as libc::c_int, "drop the capabilities")
}

fn check(r: libc::c_int, what: &str) -> Result<(), String> {
    if r < 0 {
        return Err(format!("could not {what}: {}", io::Error::last_os_error()));
    }
    Ok(())
}

/// Waits for the command, taking the blocked signals one at a time: a stop signal kills the
/// command's session and the command; SIGCHLD looks again. A signal that comes at any moment
/// stays pending until taken, so none is lost between a look and the wait.
fn wait_for(pid: libc::pid_t, signals: &Signals) -> Result<libc::c_int, String> {
    let mut status = 0;
    let mut killed = false;
    loop {
        let flags = if killed { 0 } else { libc::WNOHANG };
        // SAFETY: a pointer to our own int.
        let r = unsafe { libc::waitpid(pid, &mut status, flags) };
        if r == pid {
            return Ok(status);
        }
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return Err(format!("lost track of the command (waitpid: {e})"));
        }
        // SAFETY: a set filled in `Signals::block`; no info wanted.
        let signal = unsafe { libc::sigwaitinfo(&signals.set, std::ptr::null_mut()) };
        if matches!(signal, libc::SIGTERM | libc::SIGINT | libc::SIGHUP) {
            // SAFETY: plain integers. The command's session (it called setsid) and the command.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
            killed = true;
        }
    }
}

/// Kills every process the command left behind: as their subreaper they all end up our
/// children, those whose parent we kill included.
fn sweep() {
    loop {
        let mut status = 0;
        // SAFETY: as in wait_for.
        let r = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if r > 0 {
            continue;
        }
        if r < 0 {
            return; // ECHILD: nothing left.
        }
        for pid in children() {
            // SAFETY: plain integers; a pid that is gone gives ESRCH.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        // SAFETY: as above; blocks until one of them is gone.
        unsafe { libc::waitpid(-1, &mut status, 0) };
    }
}

/// Our direct children, from `/proc` (their parent pid is ours).
fn children() -> Vec<libc::pid_t> {
    let me = std::process::id();
    let from_task = std::fs::read_to_string(format!("/proc/{me}/task/{me}/children"));
    if let Ok(list) = from_task {
        return list
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
    }
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse().ok()) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The parent pid is the second field after the command name, which ends at the last ')'.
        let parent = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if parent == Some(me) {
            found.push(pid);
        }
    }
    found
}

/// Ends the launcher as the command ended: the same exit code, or the same signal.
fn exit_like(status: libc::c_int) -> i32 {
    if libc::WIFEXITED(status) {
        return libc::WEXITSTATUS(status);
    }
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: plain integers; the default action ends this process as it ended the command.
        unsafe {
            let limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &limit);
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        return 128 + signal;
    }
    SETUP_FAILED
}
