//! The seccomp filters every sandboxed command runs under (installed after `no_new_privs`):
//!
//! * **Privilege**: what only an administrator should do fails with `EPERM` even where the
//!   command is root and a capability survived (a container's root without namespaces): device
//!   nodes (`mknod` of a character or block device; FIFOs and sockets are fine), `sethostname`,
//!   `setdomainname`, `syslog`, kernel modules, every mount call, `pivot_root`, swap, reboot,
//!   `kexec`, setting the clock, process accounting, port I/O, and the terminal ioctls that type
//!   into or rewrite a console (`TIOCSTI`, `TIOCLINUX`).
//! * **Set-id bits**: no command makes a setuid or setgid file, in the workspace or anywhere it
//!   owns a file (as root without namespaces that is every root-owned file, since Landlock has no
//!   right for modes): `chmod`, `fchmod`, `fchmodat`, `fchmodat2`, and `open`/`openat`/`creat`
//!   with `O_CREAT`, whenever the mode asked for holds `S_ISUID` or `S_ISGID`. `openat2`, whose
//!   mode sits in a struct a filter can't read, answers `ENOSYS`, so callers fall back to
//!   `openat`. A build never needs these bits; a binary left setuid-root escalates.
//! * **Owners, as root without namespaces**: the `chown` family fails, since root owns what is
//!   outside the workspace and no file wall covers owners there.
//! * **Network** (only while the network is off): `io_uring`, whose requests could open sockets
//!   past the filter, and sockets of the families that reach outside. Inside the command's own
//!   network namespace (loopback alone) Unix, IP and netlink sockets are fine, so a test server on
//!   `127.0.0.1` works; without that namespace only Unix sockets are. Refused with `EACCES`.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

fn err(e: seccompiler::BackendError) -> String {
    format!("could not build the seccomp filter: {e}")
}

fn arch() -> Result<TargetArch, String> {
    TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|e| format!("no seccomp filter for this architecture: {e}"))
}

fn when(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(err)
}

fn compile(rules: Rules, errno: i32) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch()?,
    )
    .map_err(err)?;
    BpfProgram::try_from(filter).map_err(err)
}

/// The system calls refused to everyone inside (see the module's documentation).
pub(crate) fn privilege_program() -> Result<BpfProgram, String> {
    let mut rules: Rules = BTreeMap::new();
    // An empty rule list matches every call.
    for call in [
        libc::SYS_sethostname,
        libc::SYS_setdomainname,
        libc::SYS_syslog,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_reboot,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_settimeofday,
        libc::SYS_clock_settime,
        libc::SYS_acct,
    ] {
        rules.insert(call, Vec::new());
    }
    #[cfg(target_arch = "x86_64")]
    for call in [libc::SYS_iopl, libc::SYS_ioperm] {
        rules.insert(call, Vec::new());
    }
    // Device nodes: the mode's file type is a character or block device.
    rules.insert(libc::SYS_mknodat, device_nodes(2)?);
    #[cfg(target_arch = "x86_64")]
    rules.insert(libc::SYS_mknod, device_nodes(1)?);
    // Typing into a terminal, or rewriting a virtual console.
    let ioctls = [libc::TIOCSTI, libc::TIOCLINUX]
        .into_iter()
        .map(|request| {
            // The ioctl number's C type differs between libcs (an int on musl).
            #[allow(clippy::unnecessary_cast)]
            let request = request as u64;
            SeccompRule::new(vec![when(1, SeccompCmpOp::Eq, request)?]).map_err(err)
        })
        .collect::<Result<Vec<_>, String>>()?;
    rules.insert(libc::SYS_ioctl, ioctls);
    for (call, mode, flags) in set_id_calls() {
        rules.insert(call, set_id_modes(mode, flags)?);
    }
    compile(rules, libc::EPERM)
}

/// The calls that set a file's mode: the argument holding the mode, and for the `open` calls the
/// one holding the flags (the mode only counts when they create a file).
fn set_id_calls() -> Vec<(i64, u8, Option<u8>)> {
    let mut calls = vec![
        (libc::SYS_fchmod, 1, None),
        (libc::SYS_fchmodat, 2, None),
        (libc::SYS_fchmodat2, 2, None),
        (libc::SYS_openat, 3, Some(2)),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        (libc::SYS_chmod, 1, None),
        (libc::SYS_open, 2, Some(1)),
        (libc::SYS_creat, 1, None),
    ]);
    calls
}

/// Rules matching a mode (argument `mode`) that holds the setuid or the setgid bit, and where
/// `flags` is given, flags that create a file (`O_CREAT`, `O_TMPFILE`).
fn set_id_modes(mode: u8, flags: Option<u8>) -> Result<Vec<SeccompRule>, String> {
    let mut rules = Vec::new();
    for bit in [libc::S_ISUID, libc::S_ISGID] {
        let bit = u64::from(bit);
        let has_bit = || when(mode, SeccompCmpOp::MaskedEq(bit), bit);
        match flags {
            None => rules.push(SeccompRule::new(vec![has_bit()?]).map_err(err)?),
            Some(flags) => {
                for create in [libc::O_CREAT, libc::O_TMPFILE] {
                    let create = create as u64;
                    let creates = when(flags, SeccompCmpOp::MaskedEq(create), create)?;
                    rules.push(SeccompRule::new(vec![has_bit()?, creates]).map_err(err)?);
                }
            }
        }
    }
    Ok(rules)
}

/// `openat2`, answered `ENOSYS` (its mode is in a struct no filter can read), so callers use
/// `openat`, which the privilege filter reads.
fn openat2_program() -> Result<BpfProgram, String> {
    let mut rules: Rules = BTreeMap::new();
    rules.insert(libc::SYS_openat2, Vec::new());
    compile(rules, libc::ENOSYS)
}

/// The `chown` family, refused to root without namespaces: it owns the files outside the
/// workspace, and nothing else stops it giving them away.
fn owners_program() -> Result<BpfProgram, String> {
    let mut rules: Rules = BTreeMap::new();
    for call in [libc::SYS_fchown, libc::SYS_fchownat] {
        rules.insert(call, Vec::new());
    }
    #[cfg(target_arch = "x86_64")]
    for call in [libc::SYS_chown, libc::SYS_lchown] {
        rules.insert(call, Vec::new());
    }
    compile(rules, libc::EPERM)
}

/// Rules matching a `mknod` whose mode (argument `arg`) makes a character or block device.
fn device_nodes(arg: u8) -> Result<Vec<SeccompRule>, String> {
    [libc::S_IFCHR, libc::S_IFBLK]
        .into_iter()
        .map(|kind| {
            let condition = when(
                arg,
                SeccompCmpOp::MaskedEq(u64::from(libc::S_IFMT)),
                u64::from(kind),
            )?;
            SeccompRule::new(vec![condition]).map_err(err)
        })
        .collect()
}

/// The network filter, `None` when the network is allowed. `own_network`: the command has a
/// network namespace of its own (loopback alone), where IP sockets reach nothing outside.
pub(crate) fn network_program(
    network: bool,
    own_network: bool,
) -> Result<Option<BpfProgram>, String> {
    if network {
        return Ok(None);
    }
    let allowed: &[i32] = if own_network {
        &[
            libc::AF_UNIX,
            libc::AF_INET,
            libc::AF_INET6,
            libc::AF_NETLINK,
        ]
    } else {
        &[libc::AF_UNIX]
    };
    // One rule whose conditions all hold: the family is none of the allowed ones.
    let others = allowed
        .iter()
        .map(|family| when(0, SeccompCmpOp::Ne, *family as u64))
        .collect::<Result<Vec<_>, String>>()?;
    let mut rules: Rules = BTreeMap::new();
    rules.insert(
        libc::SYS_socket,
        vec![SeccompRule::new(others).map_err(err)?],
    );
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    compile(rules, libc::EACCES).map(Some)
}

/// Installs the filters on the calling thread (sets `no_new_privs` first if it isn't).
/// `namespaces`: the command has its own namespaces (and so its own network).
pub(crate) fn apply(network: bool, namespaces: bool) -> Result<(), String> {
    let install = |program: &BpfProgram| {
        seccompiler::apply_filter(program)
            .map_err(|e| format!("could not install the seccomp filter: {e}"))
    };
    install(&privilege_program()?)?;
    install(&openat2_program()?)?;
    // SAFETY: a plain integer call about this process alone.
    if !namespaces && unsafe { libc::geteuid() } == 0 {
        install(&owners_program()?)?;
    }
    if let Some(program) = network_program(network, namespaces)? {
        install(&program)?;
    }
    Ok(())
}
