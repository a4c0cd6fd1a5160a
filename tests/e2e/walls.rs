//! The sandbox's kernel walls, one attack each, as a prompt-injected model would try them: a
//! command the user let run unasked (auto-approved, so sandboxed) reaches for the network, the
//! files outside, the sidecar's memory, the terminal, or tries to outlive its turn. The
//! workspace (and the home) lie under /tmp here, as in a clone under /tmp.
//!
//! The `*_without_namespaces` tests run the same attacks with `TANDEM_SANDBOX_NAMESPACES=off`,
//! the fallback where the kernel refuses user namespaces: Landlock, seccomp and the sweep.

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::os::fd::OwnedFd;

use crate::support::*;

/// Runs `cmd` once as an auto-approved (sandboxed) command and returns what it printed.
async fn run_sandboxed(env: &Env, cmd: &str, namespaces: bool, vars: &[(&str, &str)]) -> String {
    if namespaces {
        require_namespaces(env).await;
    }
    let mock = MockServer::start(Scenario::new([
        Reply::tool("execute_command", json!({"command": cmd})),
        Reply::text("Done."),
    ]));
    let tandem = Sidecar::spawn_with(env, |c| {
        if !namespaces {
            c.env("TANDEM_SANDBOX_NAMESPACES", "off");
        }
        for (k, v) in vars {
            c.env(k, v);
        }
    });
    let params = initialize_params(
        env,
        &mock,
        Options {
            approval: json!({"autoApprove": {"command": true}}),
            ..Options::default()
        },
    );
    tandem.request("initialize", params).await.unwrap();
    tandem.rpc.notify("initialized", json!({})).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Run it").await;
    assert!(
        tandem.approvals().is_empty(),
        "the command asked: the test would not be sandboxed"
    );
    turn.tool_result()["output"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Fails with the kernel's reason where this machine refuses the sandbox's namespaces (the
/// launcher's own probe), rather than with a wall that seems to leak.
pub(crate) async fn require_namespaces(env: &Env) {
    let out = env
        .command()
        .args(["__sandbox-launch", "--probe", "--temp", "/tmp", "--"])
        .current_dir("/")
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "this machine refuses the sandbox's namespaces: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn python(script: &str) -> String {
    format!("python3 -c '{script}' 2>&1; echo end")
}

/// A TCP listener the command tries to reach with `proto` (262 is MPTCP).
async fn tcp_attack(proto: u32, namespaces: bool) {
    let env = Env::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let output = run_sandboxed(
        &env,
        &python(&format!(
            "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, {proto}); \
             s.connect((\"127.0.0.1\", {port})); print(\"CONNECTED\")"
        )),
        namespaces,
        &[],
    )
    .await;
    assert!(output.contains("end"), "the command did not run: {output}");
    assert!(!output.contains("CONNECTED"), "{output}");
    // A loopback connect is complete when connect returns: it would be queued now.
    assert_eq!(
        listener.accept().map(|_| ()).map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock),
        "the listener got a connection: {output}"
    );
}

/// A UDP socket the command sends `payload` to.
async fn udp_attack(payload_py: &str, namespaces: bool) {
    let env = Env::new();
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_nonblocking(true).unwrap();
    let port = socket.local_addr().unwrap().port();
    let output = run_sandboxed(
        &env,
        &python(&format!(
            "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); \
             s.sendto({payload_py}, (\"127.0.0.1\", {port})); print(\"SENT\")"
        )),
        namespaces,
        &[],
    )
    .await;
    assert!(output.contains("end"), "the command did not run: {output}");
    if !namespaces {
        // In its own network namespace the command may send to its own loopback; without one
        // it can't even make the socket.
        assert!(!output.contains("SENT"), "{output}");
    }
    // Loopback datagrams are queued by the time sendto returns.
    let mut buf = [0u8; 512];
    assert_eq!(
        socket.recv(&mut buf).map(|_| ()).map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock),
        "a datagram arrived: {output}"
    );
}

/// A DNS query for a name carrying the secret, as an exfiltration through the resolver.
const DNS_QUERY: &str = "b\"\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x06secret\\x07example\\x00\\x00\\x01\\x00\\x01\"";

#[tokio::test]
async fn mptcp_reaches_nothing_with_the_network_off() {
    tcp_attack(262, true).await;
}

#[tokio::test]
async fn tcp_reaches_nothing_with_the_network_off() {
    tcp_attack(0, true).await;
}

#[tokio::test]
async fn udp_reaches_nothing_with_the_network_off() {
    udp_attack("b\"leak\"", true).await;
}

#[tokio::test]
async fn dns_reaches_nothing_with_the_network_off() {
    udp_attack(DNS_QUERY, true).await;
}

#[tokio::test]
async fn mptcp_and_udp_reach_nothing_without_namespaces() {
    tcp_attack(262, false).await;
    udp_attack("b\"leak\"", false).await;
}

#[tokio::test]
async fn chmod_outside_the_workspace_fails() {
    let env = Env::new();
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let file = outside.path().join("bashrc");
    std::fs::write(&file, "x").unwrap();
    let mode = |f: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(f).unwrap().permissions().mode() & 0o7777
    };
    let before = mode(&file);
    let output = run_sandboxed(
        &env,
        &format!(
            "chmod 6777 '{0}'; chmod 777 '{1}'; touch -d 2001-01-01 '{0}'; echo end",
            file.display(),
            outside.path().display()
        ),
        true,
        &[],
    )
    .await;
    assert!(output.contains("end"), "{output}");
    assert_eq!(mode(&file), before, "{output}");
    assert!(output.contains("Read-only file system"), "{output}");
}

/// Whether a process whose command line is exactly `cmdline` is alive on this machine.
fn alive(cmdline: &str) -> bool {
    let want: Vec<u8> = cmdline.replace(' ', "\0").into_bytes();
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        std::fs::read(e.path().join("cmdline"))
            .map(|c| c.strip_suffix(b"\0").unwrap_or(&c) == want.as_slice())
            .unwrap_or(false)
    })
}

/// Sleep lengths no other run of these tests uses at the same time (they name the processes).
fn unique_seconds(offset: u32) -> u32 {
    1_000_000 + (std::process::id() % 100_000) * 10 + offset
}

async fn leftovers_attack(namespaces: bool, seconds: u32) {
    let env = Env::new();
    let (a, b, c) = (seconds, seconds + 1, seconds + 2);
    let output = run_sandboxed(
        &env,
        &format!(
            "setsid sleep {a} > /dev/null 2>&1 & nohup sleep {b} > /dev/null 2>&1 & \
             (sleep {c} > /dev/null 2>&1 &) ; echo started"
        ),
        namespaces,
        &[],
    )
    .await;
    assert!(output.contains("started"), "{output}");
    for n in [a, b, c] {
        // The launcher kills them before it exits, and the turn ends after it exits.
        assert!(
            !alive(&format!("sleep {n}")),
            "sleep {n} outlived its command"
        );
    }
}

#[tokio::test]
async fn nothing_a_command_starts_outlives_it() {
    leftovers_attack(true, unique_seconds(0)).await;
}

#[tokio::test]
async fn nothing_a_command_starts_outlives_it_without_namespaces() {
    leftovers_attack(false, unique_seconds(5)).await;
}

#[tokio::test]
async fn the_sidecars_environment_is_out_of_reach() {
    let env = Env::new();
    let output = run_sandboxed(
        &env,
        "cat /proc/$PPID/environ; for p in /proc/[0-9]*; do cat $p/environ; ls $p/fd; done \
         2>/dev/null | tr '\\0' '\\n'; echo end",
        true,
        &[("TANDEM_API_KEY", "walls-secret-7")],
    )
    .await;
    assert!(output.contains("end"), "{output}");
    assert!(!output.contains("walls-secret-7"), "{output}");
}

#[tokio::test]
async fn git_config_and_hooks_cannot_be_planted() {
    let env = Env::new();
    env.write(".git/config", "[core]\n");
    env.write(".git/hooks/README", "hooks\n");
    let output = run_sandboxed(
        &env,
        "echo '[core] fsmonitor = ./evil.sh' >> .git/config; \
         printf '#!/bin/sh\\ntouch PWNED\\n' > .git/hooks/pre-commit; \
         chmod +x .git/hooks/pre-commit; echo y > inside.txt; echo end",
        true,
        &[],
    )
    .await;
    assert!(output.contains("end"), "{output}");
    assert_eq!(env.read(".git/config"), "[core]\n", "{output}");
    assert!(
        !env.workspace.join(".git/hooks/pre-commit").exists(),
        "{output}"
    );
    assert!(output.contains("Read-only file system"), "{output}");
    assert!(
        output.contains("outsideSandbox"),
        "no way out was named: {output}"
    );
    // The rest of the workspace stays writable.
    assert_eq!(env.read("inside.txt"), "y\n", "{output}");
}

#[tokio::test]
async fn temp_dirs_are_private_and_the_home_under_tmp_unwritable() {
    let env = Env::new();
    // Env's home lies under /tmp, which commands used to share with the host.
    let home = env.workspace.parent().unwrap().join("home");
    let probe = home.join("probe");
    let shared = std::env::temp_dir().join(format!("tandem-walls-{}", std::process::id()));
    let output = run_sandboxed(
        &env,
        &format!(
            "echo x > '{}'; echo x > '{}'; echo y > inside.txt; echo end",
            probe.display(),
            shared.display()
        ),
        true,
        &[],
    )
    .await;
    assert!(output.contains("end"), "{output}");
    assert!(!probe.exists(), "the command wrote the home: {output}");
    assert!(
        !shared.exists(),
        "the command wrote the shared /tmp: {output}"
    );
    assert_eq!(env.read("inside.txt"), "y\n", "{output}");
}

/// A pseudo-terminal made the sidecar's controlling terminal, as when `tandem chat` runs in a
/// terminal; the test keeps the master side (closing it would hang the sidecar up).
fn controlling_terminal() -> (std::os::fd::OwnedFd, std::os::fd::OwnedFd) {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two descriptors into the integers we pass; no other memory.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here alone.
    unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

#[tokio::test]
async fn the_terminal_is_out_of_reach() {
    use std::os::fd::AsRawFd;
    for namespaces in [true, false] {
        let env = Env::new();
        let (_master, slave) = controlling_terminal();
        let slave_fd = slave.as_raw_fd();
        let mock = MockServer::start(Scenario::new([
            Reply::tool(
                "execute_command",
                json!({"command": "echo hi > /dev/tty && echo WROTE; \
                    for t in /dev/pts/[0-9]* /dev/console /dev/tty0 /dev/ttyS0; do \
                    printf '\\033]11;#000000\\007' > $t && echo WROTE $t; done; echo end"}),
            ),
            Reply::text("Done."),
        ]));
        let tandem = Sidecar::spawn_with(&env, |c| {
            if !namespaces {
                c.env("TANDEM_SANDBOX_NAMESPACES", "off");
            }
            // SAFETY: setsid and ioctl are async-signal-safe and touch only the child.
            unsafe {
                c.pre_exec(move || {
                    if libc::setsid() < 0 || libc::ioctl(slave_fd, libc::TIOCSCTTY, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        });
        let params = initialize_params(
            &env,
            &mock,
            Options {
                approval: json!({"autoApprove": {"command": true}}),
                ..Options::default()
            },
        );
        tandem.request("initialize", params).await.unwrap();
        tandem.rpc.notify("initialized", json!({})).await;
        let session = tandem.new_session().await;
        let turn = tandem.run_turn(&session, "Run it").await;
        let output = turn.tool_result()["output"].as_str().unwrap().to_string();
        assert!(output.contains("end"), "{output}");
        assert!(
            !output.contains("WROTE"),
            "namespaces {namespaces}: {output}"
        );
    }
}

/// `tandem doctor` with the sidecar's environment; its stdout.
async fn doctor(env: &Env, namespaces: bool) -> String {
    let mut command = env.command();
    if !namespaces {
        command.env("TANDEM_SANDBOX_NAMESPACES", "off");
    }
    let out = command
        .args(["doctor", "--base-url", "http://127.0.0.1:9/v1", "--root"])
        .arg(&env.workspace)
        .output()
        .await
        .unwrap();
    // Nothing answers at that address: a problem, named last, and exit 1.
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.trim_end().ends_with(
            "Problem: no model server answered: start one, or set base_url under [provider] in \
             config.toml (--base-url, TANDEM_BASE_URL)"
        ),
        "{stdout}"
    );
    stdout
}

#[tokio::test]
async fn doctor_names_each_wall_up_or_down_with_the_reason() {
    let env = Env::new();
    env.write("AGENTS.md", "Be brief.\n");
    let up = doctor(&env, true).await;
    for wall in [
        "mount namespace",
        "PID namespace",
        "network namespace",
        "seccomp",
    ] {
        assert!(up.contains(&format!("up   {wall}:")), "{wall}: {up}");
    }
    assert!(up.contains("Endpoint: none ("), "{up}");
    assert!(up.contains("AGENTS.md"), "{up}");
    let down = doctor(&env, false).await;
    assert!(
        down.contains("DOWN PID namespace: TANDEM_SANDBOX_NAMESPACES=off"),
        "{down}"
    );
    assert!(down.contains("up   seccomp:"), "{down}");
}

/// The command's view of its own capabilities, `Cap* HEX` lines, with and without namespaces
/// (the fallback a container gets, where the sidecar may well be root).
#[tokio::test]
async fn no_capability_is_kept_root_or_not() {
    // SAFETY: a plain integer call.
    let root = unsafe { libc::geteuid() } == 0;
    for namespaces in [true, false] {
        let env = Env::new();
        let output = run_sandboxed(
            &env,
            "grep ^Cap /proc/self/status; echo end",
            namespaces,
            &[],
        )
        .await;
        assert!(output.contains("end"), "{output}");
        for set in ["CapInh", "CapPrm", "CapEff", "CapAmb"] {
            assert!(
                output.contains(&format!("{set}:\t0000000000000000")),
                "namespaces {namespaces}, {set}: {output}"
            );
        }
        if root || namespaces {
            assert!(
                output.contains("CapBnd:\t0000000000000000"),
                "namespaces {namespaces}: {output}"
            );
        }
    }
}

/// What an administrator does, from a command: a block device node (to write a disk past every
/// file wall), the host name, the kernel log. Refused by seccomp and the capability drop, root
/// or not, namespaces or not.
#[tokio::test]
async fn device_nodes_hostname_and_the_kernel_log_are_refused() {
    for namespaces in [true, false] {
        let env = Env::new();
        let output = run_sandboxed(
            &env,
            &format!(
                "mknod blk b 7 0 && echo MADE-BLOCK; mknod chr c 1 3 && echo MADE-CHAR; \
                 mkfifo fifo && echo MADE-FIFO; {}; echo x > /dev/kmsg && echo WROTE-KMSG; \
                 dmesg > /dev/null 2>&1 && echo READ-LOG; echo end",
                python("import socket; socket.sethostname(\"pwned\"); print(\"RENAMED\")")
            ),
            namespaces,
            &[],
        )
        .await;
        assert!(output.contains("end"), "{output}");
        for done in [
            "MADE-BLOCK",
            "MADE-CHAR",
            "RENAMED",
            "WROTE-KMSG",
            "READ-LOG",
        ] {
            assert!(
                !output.contains(done),
                "namespaces {namespaces}: {done}: {output}"
            );
        }
        assert!(!env.workspace.join("blk").exists(), "{output}");
        // A FIFO is no device: tools that make one keep working.
        assert!(output.contains("MADE-FIFO"), "{output}");
    }
}

/// With the network off, a command's own network namespace still has a working loopback: a
/// test suite's local server is reachable from inside, nothing outside is.
#[tokio::test]
async fn loopback_works_inside_the_commands_own_network() {
    let env = Env::new();
    let output = run_sandboxed(
        &env,
        &python(
            "import socket\ns = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)\n\
             c = socket.create_connection(s.getsockname()); a, _ = s.accept()\n\
             c.sendall(b\"ping\"); print(\"GOT\", a.recv(4).decode())",
        ),
        true,
        &[],
    )
    .await;
    assert!(output.contains("GOT ping"), "{output}");
}

/// A nested repository is as read-only as the root's, and one a command makes is told to the
/// model and the user with what in it would run (here `core.fsmonitor`). Without namespaces
/// nothing makes it read-only, so the change is told.
#[tokio::test]
async fn every_git_is_read_only_and_a_new_one_is_told() {
    for namespaces in [true, false] {
        let env = Env::new();
        env.write("sub/.git/config", "[core]\n");
        let output = run_sandboxed(
            &env,
            "echo '[core] fsmonitor = ./evil.sh' >> sub/.git/config; \
             mkdir -p new/.git && printf '[core]\\n\\tfsmonitor = ./evil.sh\\n' > new/.git/config; \
             echo end",
            namespaces,
            &[],
        )
        .await;
        assert!(output.contains("end"), "{output}");
        if namespaces {
            // The command's writes are captured: its new repository never reaches the
            // workspace, and the model is told.
            assert!(
                output.contains("[not applied: new/.git/config is inside a .git directory"),
                "{output}"
            );
            assert!(!env.workspace.join("new/.git").exists(), "{output}");
        } else {
            assert!(
                output.contains(
                    "created a git repository at new/.git, which runs programs when anyone (an \
                     editor too) runs git there: core.fsmonitor = ./evil.sh"
                ),
                "namespaces {namespaces}: {output}"
            );
        }
        if namespaces {
            assert_eq!(env.read("sub/.git/config"), "[core]\n", "{output}");
            assert!(!output.contains("repository at sub/.git"), "{output}");
        } else {
            assert!(
                output.contains("changed the git repository at sub/.git")
                    && output.contains("core.fsmonitor = ./evil.sh"),
                "{output}"
            );
        }
    }
}

/// The launcher's stop: a SIGTERM at any moment of its life ends it and the command, never
/// waits for a SIGKILL (the signal used to be lost between a flag check and `waitpid`).
#[tokio::test]
async fn a_stop_signal_at_any_moment_ends_the_launcher_and_its_command() {
    let env = Env::new();
    for namespaces in [true, false] {
        let seconds = unique_seconds(if namespaces { 20 } else { 60 });
        for attempt in 0..30u64 {
            let mut command = env.command();
            command.args(["__sandbox-launch", "--temp", "/tmp"]);
            if !namespaces {
                command.arg("--no-namespaces");
            }
            let mut child = command
                .args(["--", "sleep", &seconds.to_string()])
                .current_dir(&env.workspace)
                .stdin(std::process::Stdio::null())
                .spawn()
                .unwrap();
            // Spread over the launcher's start: before, while and after it raises the walls.
            tokio::time::sleep(std::time::Duration::from_micros(attempt * 700)).await;
            let pid = child.id().unwrap() as libc::pid_t;
            // SAFETY: a plain integer call on our own child.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            let status = tokio::time::timeout(std::time::Duration::from_secs(60), child.wait())
                .await
                .unwrap_or_else(|_| {
                    panic!(
                        "attempt {attempt}: the launcher ignored SIGTERM (namespaces {namespaces})"
                    )
                })
                .unwrap();
            assert!(!status.success(), "attempt {attempt}: {status:?}");
            assert!(
                !alive(&format!("sleep {seconds}")),
                "attempt {attempt}: the command outlived its launcher"
            );
        }
    }
}

#[tokio::test]
async fn doctor_json_says_which_walls_confine_what() {
    let env = Env::new();
    let json = |namespaces: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tandem"));
        if !namespaces {
            command.env("TANDEM_SANDBOX_NAMESPACES", "off");
        }
        let out = command
            .args(["doctor", "--json", "--root"])
            .arg(&env.workspace)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["sandbox"].clone()
    };
    let up = json(true);
    assert_eq!(up["files"], json!(["mount namespace", "Landlock"]), "{up}");
    assert_eq!(up["processes"], json!(["PID namespace"]), "{up}");
    assert_eq!(up["unasked"], json!(true), "{up}");
    assert!(up["namespaces"].is_null(), "{up}");
    let down = json(false);
    assert_eq!(down["files"], json!(["Landlock"]), "{down}");
    assert_eq!(down["processes"], json!(["subreaper sweep"]), "{down}");
    assert_eq!(down["unasked"], json!(true), "{down}");
    assert_eq!(
        down["namespaces"],
        json!("TANDEM_SANDBOX_NAMESPACES=off"),
        "{down}"
    );
    assert!(
        down["walls"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["name"] == "capabilities" && w["up"] == json!(true)),
        "{down}"
    );
}

/// Docker's and Podman's default seccomp profiles refuse `unshare(CLONE_NEWUSER)` (`EPERM`), and
/// dev containers run as root: the sidecar falls back to Landlock, seccomp and the capability
/// drop, allow-listed commands still run unasked, and `tandem doctor` names the container and
/// the fix. The profile is imitated by a filter on the sidecar itself.
#[tokio::test]
async fn a_containers_seccomp_profile_falls_back_and_is_named() {
    use std::collections::BTreeMap;
    use std::os::unix::process::CommandExt;

    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule,
    };
    let new_user = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::MaskedEq(libc::CLONE_NEWUSER as u64),
        libc::CLONE_NEWUSER as u64,
    )
    .unwrap();
    let mut rules = BTreeMap::new();
    rules.insert(
        libc::SYS_unshare,
        vec![SeccompRule::new(vec![new_user]).unwrap()],
    );
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        std::env::consts::ARCH.try_into().unwrap(),
    )
    .unwrap();
    let program: BpfProgram = filter.try_into().unwrap();

    let env = Env::new();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tandem"));
    command
        .args(["doctor", "--json", "--root"])
        .arg(&env.workspace)
        .env("container", "docker");
    // SAFETY: prctl and seccomp are plain system calls on a program built before the fork.
    unsafe {
        command
            .pre_exec(move || seccompiler::apply_filter(&program).map_err(std::io::Error::other));
    }
    let out = command.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sandbox = &json["sandbox"];
    assert_eq!(sandbox["files"], json!(["Landlock"]), "{sandbox}");
    assert_eq!(
        sandbox["processes"],
        json!(["subreaper sweep"]),
        "{sandbox}"
    );
    assert_eq!(sandbox["unasked"], json!(true), "{sandbox}");
    let why = sandbox["namespaces"].as_str().unwrap_or_default();
    assert!(
        why.contains("container whose seccomp profile refuses user namespaces")
            && why.contains("--security-opt seccomp=unconfined"),
        "{sandbox}"
    );
}
