//! The sidecar's environment out of `/proc/PID/environ`.
//!
//! The kernel shows a process's *initial* environment block (the one `execve` received) to every
//! process of the same user, and to root, in `/proc/PID/environ` (on macOS, `ps eww` and
//! `KERN_PROCARGS2`). `std::env::remove_var` changes libc's copy, not that block. So, first thing
//! in `main`, before any thread starts, the process re-executes itself with an environment that
//! holds nothing but the number of a pipe, and the real environment (API keys included) travels on
//! that pipe; the new image reads it back into libc's copy, where `std::env` and child processes
//! find it, while the block the kernel shows stays empty. The process id, arguments and open
//! descriptors stay the same (`execve` in place, no fork).
//!
//! Windows: a process's environment is readable by another process only with
//! `PROCESS_VM_READ` on it, which a process of another user or a lower integrity level does not
//! get, and `SetEnvironmentVariable` changes the only copy there is; nothing is done there.

/// The variable that carries the pipe's descriptor to the re-executed image.
#[cfg(unix)]
const HANDOVER_FD: &str = "TANDEM_ENVIRONMENT_FD";

/// Moves the environment out of the block the kernel shows. Call first in `main`, while the
/// process has one thread. A failure is said on stderr and the process goes on as it was.
pub fn hide() {
    #[cfg(unix)]
    unix::hide();
}

#[cfg(unix)]
mod unix {
    use std::ffi::{CString, OsStr, OsString};
    use std::os::unix::ffi::{OsStrExt, OsStringExt};

    use super::HANDOVER_FD;

    pub fn hide() {
        if let Some(fd) = std::env::var_os(HANDOVER_FD)
            && restore(&fd)
        {
            return;
        }
        if let Err(e) = reexec() {
            eprintln!(
                "tandem: the environment stays readable in /proc/{}/environ ({e})",
                std::process::id()
            );
        }
    }

    /// `NAME=VALUE` pairs, each ended by a NUL.
    fn encode(vars: impl Iterator<Item = (OsString, OsString)>) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, value) in vars {
            out.extend_from_slice(name.as_bytes());
            out.push(b'=');
            out.extend_from_slice(value.as_bytes());
            out.push(0);
        }
        out
    }

    fn decode(bytes: &[u8]) -> impl Iterator<Item = (OsString, OsString)> + '_ {
        bytes.split(|&b| b == 0).filter_map(|pair| {
            let eq = pair.iter().position(|&b| b == b'=')?;
            (eq > 0).then(|| {
                (
                    OsString::from_vec(pair[..eq].to_vec()),
                    OsString::from_vec(pair[eq + 1..].to_vec()),
                )
            })
        })
    }

    fn reexec() -> std::io::Result<()> {
        let data = encode(std::env::vars_os());
        let (read, write) = pipe()?;
        // The whole environment must fit in the pipe before `execve`: nothing else will drain it.
        grow_pipe(write, data.len());
        // SAFETY: a write from our own buffer of the length given, to a descriptor we own.
        let written = unsafe { libc::write(write, data.as_ptr().cast(), data.len()) };
        // SAFETY: a descriptor this function owns and no one else uses.
        unsafe { libc::close(write) };
        if written < 0 || written as usize != data.len() {
            // SAFETY: a descriptor this function owns and no one else uses.
            unsafe { libc::close(read) };
            return Err(std::io::Error::other(format!(
                "the environment's {} bytes do not fit in a pipe",
                data.len()
            )));
        }
        let exe = executable()?;
        let args: Vec<CString> = std::env::args_os().map(|a| c_string(&a)).collect();
        let env = [c_string(OsStr::new(&format!("{HANDOVER_FD}={read}")))];
        let mut argv: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
        argv.push(std::ptr::null());
        let mut envp: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
        envp.push(std::ptr::null());
        // Only returns on failure.
        // SAFETY: NUL-terminated argv and envp arrays of CStrings that outlive the call.
        unsafe { libc::execve(exe.as_ptr(), argv.as_ptr(), envp.as_ptr()) };
        let e = std::io::Error::last_os_error();
        // SAFETY: a descriptor this function owns and no one else uses.
        unsafe { libc::close(read) };
        Err(std::io::Error::other(format!("re-exec failed: {e}")))
    }

    /// Reads the environment back from the pipe the previous image wrote; false when the
    /// variable names no pipe (it came from elsewhere, and is dropped).
    fn restore(fd: &OsStr) -> bool {
        let fd: Option<libc::c_int> = fd.to_str().and_then(|s| s.parse().ok());
        // SAFETY (for every `set_var`/`remove_var` below): this runs first in `main`, before any
        // thread exists, so nothing reads the environment concurrently.
        // SAFETY: first in `main`, before any thread exists: nothing reads the environment concurrently.
        unsafe { std::env::remove_var(HANDOVER_FD) };
        let Some(fd) = fd.filter(|&fd| is_pipe(fd)) else {
            return false;
        };
        let mut data = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            // SAFETY: a read into our own buffer of its length, from a descriptor we own.
            let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                data.extend_from_slice(&buf[..n as usize]);
            } else if n == 0
                || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
            {
                break;
            }
        }
        // SAFETY: a descriptor this function owns and no one else uses.
        unsafe { libc::close(fd) };
        for (name, value) in decode(&data) {
            // SAFETY: first in `main`, before any thread exists: nothing reads the environment concurrently.
            unsafe { std::env::set_var(name, value) };
        }
        true
    }

    fn is_pipe(fd: libc::c_int) -> bool {
        // SAFETY: `stat` is plain old data; all zeroes is a valid value.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstat fills the `stat` we pass.
        unsafe { libc::fstat(fd, &mut stat) == 0 && (stat.st_mode & libc::S_IFMT) == libc::S_IFIFO }
    }

    /// A pipe whose read end survives `execve` and whose write end does not.
    fn pipe() -> std::io::Result<(libc::c_int, libc::c_int)> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe writes two descriptors into the array we pass.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: fcntl on the descriptors pipe just gave us.
        unsafe {
            libc::fcntl(fds[1], libc::F_SETFD, libc::FD_CLOEXEC);
            // Never block `main` on a pipe nobody reads yet: a short write is an error instead.
            libc::fcntl(fds[1], libc::F_SETFL, libc::O_NONBLOCK);
        }
        Ok((fds[0], fds[1]))
    }

    /// Linux pipes hold 64 KiB by default; an unprivileged process may grow one to 1 MiB.
    #[cfg(target_os = "linux")]
    fn grow_pipe(fd: libc::c_int, len: usize) {
        if len > 60 * 1024 {
            let want = libc::c_int::try_from(len + 4096).unwrap_or(libc::c_int::MAX);
            // SAFETY: fcntl on a descriptor we own, integer arguments only.
            unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, want) };
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn grow_pipe(_fd: libc::c_int, _len: usize) {}

    /// The running image's file, by its own path: the process keeps its name (`ps`, `top` and the
    /// editor's process list show `tandem`, where exec'ing `/proc/self/exe` would show `exe`). Only
    /// when that path is gone (the file deleted since) is it the image itself, `/proc/self/exe`.
    fn executable() -> std::io::Result<CString> {
        let path = match std::env::current_exe() {
            Ok(path) if path.is_file() => path,
            #[cfg(target_os = "linux")]
            _ => std::path::PathBuf::from("/proc/self/exe"),
            #[cfg(not(target_os = "linux"))]
            Err(e) => return Err(e),
            #[cfg(not(target_os = "linux"))]
            Ok(path) => path,
        };
        Ok(c_string(path.as_os_str()))
    }

    /// Arguments and variables come from the kernel NUL-free; a NUL would end the string early.
    fn c_string(s: &OsStr) -> CString {
        let bytes: Vec<u8> = s
            .as_bytes()
            .iter()
            .copied()
            .take_while(|&b| b != 0)
            .collect();
        CString::new(bytes).unwrap_or_default()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn pairs_survive_the_round_trip() {
            let vars = vec![
                (OsString::from("A"), OsString::from("x=y")),
                (OsString::from("EMPTY"), OsString::from("")),
                (OsString::from("B"), OsString::from_vec(vec![0xff, b'z'])),
            ];
            let back: Vec<_> = decode(&encode(vars.clone().into_iter())).collect();
            assert_eq!(back, vars);
        }
    }
}
