//! The second wall under the network namespace (and the only one without it): a seccomp filter
//! that, when the network is off, refuses sockets of every family but `AF_UNIX` (so MPTCP, UDP,
//! raw and netlink sockets are never created) and `io_uring`, whose requests could open sockets
//! past the filter. Both fail with `EACCES`, as a refused permission.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The filter for a command, `None` when there is nothing to refuse (network allowed).
pub(crate) fn program(network: bool) -> Result<Option<BpfProgram>, String> {
    if network {
        return Ok(None);
    }
    let err = |e: seccompiler::BackendError| format!("could not build the seccomp filter: {e}");
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|e| format!("no seccomp filter for this architecture: {e}"))?;
    let not_unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        libc::AF_UNIX as u64,
    )
    .map_err(err)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(
        libc::SYS_socket,
        vec![SeccompRule::new(vec![not_unix]).map_err(err)?],
    );
    // An empty rule list matches every call.
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(err)?;
    BpfProgram::try_from(filter).map_err(err).map(Some)
}

/// Installs the filter on the calling thread (after `no_new_privs`, which Landlock set).
pub(crate) fn apply(network: bool) -> Result<(), String> {
    if let Some(program) = program(network)? {
        seccompiler::apply_filter(&program)
            .map_err(|e| format!("could not install the seccomp filter: {e}"))?;
    }
    Ok(())
}
