//! The Landlock sandbox, with real processes. These need a kernel with Landlock ABI 6 or newer
//! and fail (with the reason) where it is missing.
// Landlock is Linux's; other OSes' walls have their own tests.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tandem_sandbox::{Confinement, SandboxMode, SandboxPolicy, confine, default_temp_dirs, status};

/// Directories outside every temp directory, so "outside the workspace" is really unwritable.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let real = dir.path().canonicalize().unwrap();
    for temp in default_temp_dirs() {
        assert!(
            !real.starts_with(&temp),
            "{} lies in the temp directory {}: the test could not tell",
            real.display(),
            temp.display()
        );
    }
    dir
}

fn require_landlock() {
    let support = status();
    assert!(
        support.enforces(&SandboxPolicy::workspace_write(Path::new("/nonexistent"))),
        "{}",
        support.describe()
    );
}

fn sh(script: &str, ws: &Path, home: &Path, policy: &SandboxPolicy) -> Output {
    let mut command = Command::new("/bin/sh");
    command
        .args(["-c", script])
        .current_dir(ws)
        .env("HOME", home);
    let confinement = confine(&mut command, policy).expect("confine");
    match policy.mode {
        SandboxMode::Off => assert_eq!(confinement, Confinement::Unrestricted),
        SandboxMode::WorkspaceWrite => {
            assert!(matches!(confinement, Confinement::Landlock { abi } if abi >= 6))
        }
    }
    command.output().expect("spawn")
}

#[test]
fn writes_outside_the_workspace_and_temp_dirs_fail() {
    require_landlock();
    let (ws, home) = (scratch(), scratch());
    let policy = SandboxPolicy::workspace_write(ws.path());
    let out = sh("echo x > \"$HOME/probe\"", ws.path(), home.path(), &policy);
    assert!(!out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Permission denied"),
        "{out:?}"
    );
    assert!(!home.path().join("probe").exists());
    for script in [
        "mkdir \"$HOME/d\"",
        "touch \"$HOME/t\"",
        "ln -s /etc/passwd \"$HOME/l\"",
    ] {
        let out = sh(script, ws.path(), home.path(), &policy);
        assert!(!out.status.success(), "{script}: {out:?}");
    }
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0);
}

#[test]
fn writes_inside_the_workspace_and_temp_dirs_work_and_reads_work_everywhere() {
    require_landlock();
    let (ws, home) = (scratch(), scratch());
    std::fs::write(home.path().join("readable"), "outside text").unwrap();
    let temp = tempfile::tempdir().unwrap();
    let policy = SandboxPolicy::workspace_write(ws.path());
    let script = format!(
        "set -e; mkdir -p sub/deep && echo in > sub/deep/file && mv sub/deep/file moved; \
         echo t > '{temp}/file'; echo n > /dev/null; cat \"$HOME/readable\"",
        temp = temp.path().display()
    );
    let out = sh(&script, ws.path(), home.path(), &policy);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "outside text");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("moved")).unwrap(),
        "in\n"
    );
    assert_eq!(
        std::fs::read_to_string(temp.path().join("file")).unwrap(),
        "t\n"
    );
}

#[test]
fn mode_off_does_not_restrict() {
    let (ws, home) = (scratch(), scratch());
    let out = sh(
        "echo x > \"$HOME/probe\"",
        ws.path(),
        home.path(),
        &SandboxPolicy::off(),
    );
    assert!(out.status.success(), "{out:?}");
    assert!(home.path().join("probe").exists());
}

/// Bash's `/dev/tcp`: a TCP connect with nothing but the shell.
fn connect(port: u16, network: bool) -> Output {
    let ws = scratch();
    let mut policy = SandboxPolicy::workspace_write(ws.path());
    policy.network = network;
    let mut command = Command::new("bash");
    command.args([
        "-c",
        &format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"),
    ]);
    confine(&mut command, &policy).expect("confine");
    command.output().expect("spawn bash")
}

#[test]
fn tcp_connect_is_blocked_unless_the_network_is_allowed() {
    require_landlock();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();

    let out = connect(port, false);
    assert!(!out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Permission denied"),
        "{out:?}"
    );
    assert!(listener.accept().is_err(), "a connection got through");

    let out = connect(port, true);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "connected\n");
    assert!(listener.accept().is_ok());
}

#[test]
fn binding_a_tcp_port_is_blocked_without_network() {
    require_landlock();
    let ws = scratch();
    let mut command = Command::new("python3");
    command.args([
        "-c",
        "import socket; socket.socket().bind(('127.0.0.1', 0)); print('bound')",
    ]);
    confine(&mut command, &SandboxPolicy::workspace_write(ws.path())).unwrap();
    let out = command.output().expect("spawn python3");
    assert!(!out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("PermissionError"));
}

#[test]
fn processes_outside_cannot_be_signalled() {
    require_landlock();
    let ws = scratch();
    let mut outside = Command::new("sleep").arg("30").spawn().unwrap();
    let script = format!("kill -0 {}", outside.id());
    let unconfined = Command::new("/bin/sh")
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(unconfined.success());
    let mut command = Command::new("/bin/sh");
    command.args(["-c", &script]);
    confine(&mut command, &SandboxPolicy::workspace_write(ws.path())).unwrap();
    let out = command.output().unwrap();
    outside.kill().unwrap();
    outside.wait().unwrap();
    assert!(!out.status.success(), "{out:?}");
}

/// The command runner spawns many times and adds its own `pre_exec` (PR_SET_PDEATHSIG); both
/// must keep working with the sandbox's.
#[test]
fn one_command_spawns_confined_repeatedly_alongside_other_pre_exec_steps() {
    require_landlock();
    let (ws, home) = (scratch(), scratch());
    let mut command = Command::new("/bin/sh");
    command
        .args([
            "-c",
            "echo ok > inside && ! echo x > \"$HOME/probe\" 2>/dev/null",
        ])
        .current_dir(ws.path())
        .env("HOME", home.path())
        .process_group(0);
    // SAFETY: prctl is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    confine(&mut command, &SandboxPolicy::workspace_write(ws.path())).unwrap();
    for _ in 0..3 {
        let out = command.output().unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    assert!(ws.path().join("inside").exists());
    assert!(!home.path().join("probe").exists());
}

#[test]
fn missing_writable_roots_are_left_out() {
    require_landlock();
    let ws = scratch();
    let mut policy = SandboxPolicy::workspace_write(ws.path());
    policy
        .writable_roots
        .push(PathBuf::from("/nonexistent/tandem"));
    let mut command = Command::new("/bin/sh");
    command.args(["-c", "echo ok > f"]).current_dir(ws.path());
    confine(&mut command, &policy).unwrap();
    assert!(command.status().unwrap().success());
}

#[test]
fn abstract_unix_sockets_outside_are_unreachable_without_network() {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};

    require_landlock();
    let name = format!("tandem-sandbox-test-{}", std::process::id());
    let listener =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap()).unwrap();
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0{name}'); print('connected')"
    );
    let run = |network: bool| {
        let ws = scratch();
        let mut policy = SandboxPolicy::workspace_write(ws.path());
        policy.network = network;
        let mut command = Command::new("python3");
        command.args(["-c", &script]);
        confine(&mut command, &policy).unwrap();
        command.output().expect("spawn python3")
    };
    let out = run(false);
    assert!(!out.status.success(), "{out:?}");
    assert!(listener.accept().is_err(), "a connection got through");
    let out = run(true);
    assert!(out.status.success(), "{out:?}");
    assert!(listener.accept().is_ok());
}

/// The runner's timeout and cancel paths signal the command's process group from outside; the
/// sandbox's signal scope only stops signals going out.
#[test]
fn the_runner_can_still_kill_a_confined_process_group() {
    require_landlock();
    let ws = scratch();
    let mut command = Command::new("/bin/sh");
    // It says when it runs, confined, with a child in its group.
    command
        .args(["-c", "sleep 30 & echo $!; sleep 30; wait"])
        .stdout(std::process::Stdio::piped())
        .process_group(0);
    confine(&mut command, &SandboxPolicy::workspace_write(ws.path())).unwrap();
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let background: i32 = line.trim().parse().unwrap_or_else(|_| panic!("{line:?}"));
    // SAFETY: killpg takes plain integers.
    assert_eq!(unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) }, 0);
    let status = child.wait().unwrap();
    assert!(!status.success());
    // The child in its group went too: its pid is gone or a zombie waiting to be reaped.
    // A bounded poll: the bound is a safety net, far above the time a kill takes.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{background}/stat")).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next());
        if matches!(state, None | Some("Z" | "X")) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the group's child {background} outlived the kill"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A machine as `status()` would report it: a Landlock ABI, namespaces up or why not, and
/// whether commands go through the launcher.
fn machine(abi: u32, namespaces: bool, launcher: bool) -> tandem_sandbox::SandboxSupport {
    tandem_sandbox::SandboxSupport {
        abi,
        missing: if abi == 0 {
            "not enabled".to_string()
        } else {
            String::new()
        },
        namespaces: if namespaces {
            Ok(())
        } else {
            Err("refused".to_string())
        },
        seatbelt: false,
        launcher,
    }
}

/// docs/security.md's wall table, row by row: which walls confine what, and whether allow-listed
/// commands run unasked, from what the kernel has. Each wall is decided on its own: a kernel
/// without Landlock TCP (before 6.7) still walls the network by namespace or seccomp, and one
/// without Landlock at all still walls the files by the mount namespace.
#[test]
fn the_walls_are_decided_one_by_one_from_what_the_kernel_has() {
    let policy = SandboxPolicy::workspace_write(Path::new("/ws"));
    let mut with_network = policy.clone();
    with_network.network = true;
    // (row, machine, files, network, processes, unasked)
    type Walls = &'static [&'static str];
    let rows: [(&str, _, Walls, Walls, Walls, bool); 8] = [
        (
            "6.12+, namespaces (this project's machines)",
            machine(7, true, true),
            &["mount namespace", "Landlock"],
            &["network namespace", "seccomp"],
            &["PID namespace"],
            true,
        ),
        (
            "6.1 (Debian 12), namespaces",
            machine(2, true, true),
            &["mount namespace", "Landlock"],
            &["network namespace", "seccomp"],
            &["PID namespace"],
            true,
        ),
        (
            "6.1 booted without Landlock, namespaces",
            machine(0, true, true),
            &["mount namespace"],
            &["network namespace", "seccomp"],
            &["PID namespace"],
            true,
        ),
        (
            "6.1, no user namespaces (container, sysctl, AppArmor)",
            machine(2, false, true),
            &["Landlock"],
            &["seccomp"],
            &["subreaper sweep"],
            true,
        ),
        (
            "6.8 (Ubuntu 24.04) under AppArmor's restriction",
            machine(4, false, true),
            &["Landlock"],
            &["seccomp", "Landlock TCP"],
            &["subreaper sweep"],
            true,
        ),
        (
            "no Landlock, no namespaces: nothing confines writes",
            machine(0, false, true),
            &[],
            &["seccomp"],
            &["subreaper sweep"],
            false,
        ),
        (
            "Landlock alone, no launcher (a library's in-place confine), ABI 2",
            machine(2, false, false),
            &["Landlock"],
            &[],
            &[],
            false,
        ),
        (
            "Landlock alone, no launcher, ABI 4",
            machine(4, false, false),
            &["Landlock"],
            &["Landlock TCP"],
            &[],
            true,
        ),
    ];
    for (row, support, files, network, processes, unasked) in rows {
        let coverage = support.coverage();
        assert_eq!(coverage.files, files, "{row}");
        assert_eq!(coverage.network, network, "{row}");
        assert_eq!(coverage.processes, processes, "{row}");
        assert_eq!(support.enforces(&policy), unasked, "{row}");
        assert_eq!(support.filesystem(), !files.is_empty(), "{row}");
        // With the network allowed only the files matter.
        assert_eq!(support.enforces(&with_network), !files.is_empty(), "{row}");
        let said = support.describe();
        if files.is_empty() {
            assert!(said.contains("Every command will ask"), "{row}: {said}");
        } else {
            assert!(
                said.contains(&format!("files by {}", files.join(" and "))),
                "{row}: {said}"
            );
        }
    }
    let mut off = policy.clone();
    off.mode = SandboxMode::Off;
    assert!(!machine(7, true, true).enforces(&off));
}

/// A read-only root (a workspace's additional root) under a temp directory: Landlock grants
/// trees, so that temp directory is not granted, and neither the root nor its temp directory can
/// be written, while the root is read and the workspace written.
#[test]
fn a_read_only_root_in_a_temp_dir_is_read_and_not_written() {
    require_landlock();
    let ws = scratch();
    let extra = tempfile::tempdir().unwrap();
    let extra_path = extra.path().canonicalize().unwrap();
    std::fs::write(extra_path.join("in.txt"), "readable\n").unwrap();
    let mut policy = SandboxPolicy::workspace_write(ws.path());
    policy.readonly_roots = vec![extra_path.clone()];
    let mut command = Command::new("/bin/sh");
    command
        .args([
            "-c",
            "cat \"$1/in.txt\"; echo x > \"$1/out.txt\" || echo refused; echo ok > f",
            "sh",
        ])
        .arg(&extra_path)
        .current_dir(ws.path());
    confine(&mut command, &policy).unwrap();
    let out = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("readable"), "{out:?}");
    assert!(stdout.contains("refused"), "{out:?}");
    assert!(!extra_path.join("out.txt").exists());
    assert!(ws.path().join("f").exists());
}

#[test]
fn a_tree_holding_a_read_only_root_is_not_granted_unless_private() {
    let mut policy = SandboxPolicy::workspace_write(Path::new("/w/main"));
    policy.temp_dirs = vec![PathBuf::from("/tmp")];
    policy.writable_roots = vec![PathBuf::from("/w/main"), PathBuf::from("/tmp")];
    policy.readonly_roots = vec![PathBuf::from("/tmp/extra"), PathBuf::from("/w")];
    // `/w` holds the workspace, which stays writable; `/tmp` holds `/tmp/extra`.
    assert_eq!(policy.writable_for(false), [PathBuf::from("/w/main")]);
    assert_eq!(
        policy.writable_for(true),
        [PathBuf::from("/w/main"), PathBuf::from("/tmp")]
    );
}
