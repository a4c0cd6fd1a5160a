//! Unix: a process group, and (Linux) the kernel's death signal.

use process_wrap::tokio::{CommandWrap, ProcessGroup};

/// Linux: `PR_SET_PDEATHSIG(SIGKILL)`, checked against a parent that died before it was set.
#[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
pub fn die_with_us(command: &mut tokio::process::Command) {
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id();
        // SAFETY: between fork and exec only async-signal-safe calls are allowed: prctl, getppid
        // and _exit are.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                ) == -1
                {
                    return Err(std::io::Error::last_os_error());
                }
                // We may have died between fork and prctl: then nobody would send the signal.
                if libc::getppid() as u32 != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
}

/// The server leads its own process group.
pub fn contain(wrapped: &mut CommandWrap) {
    wrapped.wrap(ProcessGroup::leader());
}

/// SIGKILL to a whole process group; for the last resort (drop, or after a graceful stop) so
/// that nothing the server started is left behind.
pub fn kill_group(pgid: u32) {
    if let Ok(pgid) = libc::pid_t::try_from(pgid)
        && pgid > 1
    {
        // SAFETY: a plain syscall; an already empty group gives ESRCH, which is fine.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}
