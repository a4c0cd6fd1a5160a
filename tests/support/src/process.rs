//! Processes as Linux's `/proc` shows them.

/// Whether a process exists and is not a zombie (a zombie is dead: it only waits to be reaped).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat_field(&stat, 0).is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// Live processes whose process group is `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let live = stat_field(&stat, 0).is_some_and(|s| s != "Z" && s != "X");
            live && stat_field(&stat, 2).and_then(|s| s.parse::<u32>().ok()) == Some(pgid)
        })
        .collect()
}

/// Sends SIGKILL to `pid`.
pub fn kill(pid: u32) {
    // SAFETY: a plain syscall on a number; a gone process gives ESRCH, which is fine here.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
}

/// The TCP ports process `pid` listens on (IPv4 and IPv6).
pub fn listening_ports(pid: u32) -> Vec<u16> {
    let sockets: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .filter_map(|target| {
                    let target = target.to_string_lossy().into_owned();
                    let inode = target.strip_prefix("socket:[")?.strip_suffix(']')?;
                    Some(inode.to_owned())
                })
                .collect()
        })
        .unwrap_or_default();
    let mut ports = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
        for fields in text
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
        {
            let (Some(local), Some(state), Some(inode)) =
                (fields.get(1), fields.get(3), fields.get(9))
            else {
                continue;
            };
            const LISTEN: &str = "0A";
            if *state == LISTEN && sockets.iter().any(|s| s == inode) {
                let port = local
                    .rsplit_once(':')
                    .and_then(|(_, p)| u16::from_str_radix(p, 16).ok());
                ports.extend(port);
            }
        }
    }
    ports
}

/// Fields of /proc/PID/stat after the command name (which may hold spaces): 0 is the state,
/// 1 the parent, 2 the process group.
fn stat_field(stat: &str, index: usize) -> Option<&str> {
    stat.rsplit_once(')')?.1.split_whitespace().nth(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_in_its_group() {
        let me = std::process::id();
        assert!(alive(me));
        // SAFETY: getpgrp has no preconditions.
        let group = unsafe { libc::getpgrp() } as u32;
        assert!(group_members(group).contains(&me));
    }

    #[test]
    fn a_reaped_child_is_not_alive() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!alive(pid));
    }
}
