//! Windows: the command runs in a Job Object with kill-on-close, so ending the job (or the
//! sidecar: its handle closes with it) ends every process the command started. The shell is
//! created suspended and only resumed once it is in the job, so nothing it starts escapes.

use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use windows_sys::Win32::Foundation::{
    CloseHandle, ERROR_ACCESS_DENIED, GetLastError, HANDLE, INVALID_HANDLE_VALUE, STILL_ACTIVE,
};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NO_WINDOW, CREATE_SUSPENDED, GetExitCodeProcess, OpenProcess, OpenThread,
    PROCESS_QUERY_LIMITED_INFORMATION, ResumeThread, THREAD_SUSPEND_RESUME,
};

use super::{Shell, ShellKind};

/// PowerShell (7, then Windows PowerShell) if on `PATH`, else `%ComSpec%` (`cmd.exe`).
pub(crate) fn shell() -> Shell {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["pwsh.exe", "powershell.exe"] {
        if let Some(program) = std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
        {
            return Shell {
                program,
                args: [
                    "-NoLogo",
                    "-NoProfile",
                    "-NonInteractive",
                    "-EncodedCommand",
                ]
                .map(String::from)
                .to_vec(),
                kind: ShellKind::PowerShell,
            };
        }
    }
    let program = std::env::var_os("ComSpec")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("cmd.exe"));
    Shell {
        program,
        args: vec!["/d".to_string()],
        kind: ShellKind::Cmd,
    }
}

pub(super) fn push_line(command: &mut tokio::process::Command, kind: ShellKind, line: &str) {
    match kind {
        // The line as UTF-16LE base64: no quoting rule of PowerShell's command line applies.
        ShellKind::PowerShell => {
            let utf16: Vec<u8> = line.encode_utf16().flat_map(u16::to_le_bytes).collect();
            command.arg(base64(&utf16));
        }
        // cmd.exe reads its command line itself: `/s /c "line"` takes everything between the
        // first and the last quote as is. Rust's argument quoting would garble it.
        ShellKind::Cmd => {
            command.raw_arg(format!("/s /c \"{line}\""));
        }
        ShellKind::Posix => {
            command.arg(line);
        }
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The pipe's read end. Windows' anonymous pipes can't be read asynchronously: a thread reads
/// and hands the chunks over.
pub(crate) struct OutputReader {
    chunks: tokio::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    pending: Vec<u8>,
}

impl AsyncRead for OutputReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        while self.pending.is_empty() {
            match self.chunks.poll_recv(cx) {
                Poll::Pending => return Poll::Pending,
                // The thread ended: every write end is closed.
                Poll::Ready(None) => return Poll::Ready(Ok(())),
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(e)),
                Poll::Ready(Some(Ok(chunk))) => self.pending = chunk,
            }
        }
        let n = self.pending.len().min(buf.remaining());
        buf.put_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Poll::Ready(Ok(()))
    }
}

pub(crate) fn output_pipe() -> io::Result<(OutputReader, Stdio, Stdio)> {
    use std::io::Read;
    let (mut reader, writer) = std::io::pipe()?;
    let writer_too = writer.try_clone()?;
    let (sender, chunks) = tokio::sync::mpsc::channel(16);
    std::thread::Builder::new()
        .name("tandem-command-output".to_string())
        .spawn(move || {
            let mut buf = vec![0u8; 16 * 1024];
            loop {
                let chunk = match reader.read(&mut buf) {
                    Ok(0) => break,
                    // A broken pipe is how Windows says every writer has gone.
                    Err(e) if e.kind() == io::ErrorKind::BrokenPipe => break,
                    Ok(n) => Ok(buf[..n].to_vec()),
                    Err(e) => Err(e),
                };
                let failed = chunk.is_err();
                // The runner gave up on the output: stop reading.
                if sender.blocking_send(chunk).is_err() || failed {
                    break;
                }
            }
        })?;
    Ok((
        OutputReader {
            chunks,
            pending: Vec::new(),
        },
        Stdio::from(writer),
        Stdio::from(writer_too),
    ))
}

/// Created suspended (resumed by [`Tree::adopt`] once in the job), without a console window.
pub(crate) fn prepare(command: &mut tokio::process::Command) {
    command.creation_flags(CREATE_SUSPENDED | CREATE_NO_WINDOW);
}

/// A spawned command's Job Object. Dropping it closes the job, which kills what is in it.
pub(crate) struct Tree(HANDLE);

// SAFETY: a job handle may be used and closed from any thread.
unsafe impl Send for Tree {}
// SAFETY: as above; the Job Object calls made through `&Tree` are thread-safe.
unsafe impl Sync for Tree {}

impl Tree {
    /// Puts the (suspended) child in a new kill-on-close job, then lets it run. On an error the
    /// caller must kill the child, which is still suspended.
    pub(crate) fn adopt(child: &tokio::process::Child) -> io::Result<Tree> {
        let (Some(process), Some(pid)) = (child.raw_handle(), child.id()) else {
            return Err(io::Error::other("the command exited before it was started"));
        };
        // SAFETY: plain Win32 calls on handles we own; the structure is fully initialised.
        unsafe {
            let job = CreateJobObjectW(std::ptr::null(), std::ptr::null());
            if job.is_null() {
                return Err(io::Error::last_os_error());
            }
            let tree = Tree(job);
            tree.set_kill_on_close(true)?;
            if AssignProcessToJobObject(job, process as HANDLE) == 0 {
                return Err(io::Error::last_os_error());
            }
            resume_threads(pid)?;
            Ok(tree)
        }
    }

    /// Windows has no polite signal for a tree without a console: the same as [`Tree::kill`].
    pub(crate) fn terminate(&self) {
        self.kill();
    }

    pub(crate) fn kill(&self) {
        // SAFETY: the handle is ours until drop.
        unsafe {
            TerminateJobObject(self.0, 1);
        }
    }

    /// The command ended by itself: what it left in the background keeps running, as on Unix.
    pub(crate) fn release(self) {
        let _ = self.set_kill_on_close(false);
    }

    fn set_kill_on_close(&self, on: bool) -> io::Result<()> {
        // SAFETY: a zeroed limit structure is valid (no limits); the size is the structure's.
        unsafe {
            let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
            if on {
                limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
            }
            let ok = SetInformationJobObject(
                self.0,
                JobObjectExtendedLimitInformation,
                (&raw const limits).cast(),
                size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            );
            if ok == 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        // SAFETY: closed once, here.
        unsafe {
            CloseHandle(self.0);
        }
    }
}

/// Resumes the threads of a process created suspended (its one main thread).
unsafe fn resume_threads(pid: u32) -> io::Result<()> {
    // SAFETY: the snapshot handle is closed below; the entry's size is set before use.
    unsafe {
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
        if snapshot == INVALID_HANDLE_VALUE {
            return Err(io::Error::last_os_error());
        }
        let mut entry: THREADENTRY32 = std::mem::zeroed();
        entry.dwSize = size_of::<THREADENTRY32>() as u32;
        let mut resumed = 0;
        let mut more = Thread32First(snapshot, &mut entry) != 0;
        while more {
            if entry.th32OwnerProcessID == pid {
                let thread = OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID);
                if !thread.is_null() {
                    if ResumeThread(thread) != u32::MAX {
                        resumed += 1;
                    }
                    CloseHandle(thread);
                }
            }
            more = Thread32Next(snapshot, &mut entry) != 0;
        }
        CloseHandle(snapshot);
        if resumed == 0 {
            return Err(io::Error::other(
                "could not resume the command's main thread",
            ));
        }
    }
    Ok(())
}

/// Whether a process with this id is still running.
pub(crate) fn process_alive(pid: u32) -> bool {
    // SAFETY: the handle, if any, is closed before returning.
    unsafe {
        let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if process.is_null() {
            return GetLastError() == ERROR_ACCESS_DENIED;
        }
        let mut code = 0u32;
        let alive = GetExitCodeProcess(process, &mut code) != 0 && code == STILL_ACTIVE as u32;
        CloseHandle(process);
        alive
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_the_standard_alphabet() {
        assert_eq!(super::base64(b""), "");
        assert_eq!(super::base64(b"f"), "Zg==");
        assert_eq!(super::base64(b"fo"), "Zm8=");
        assert_eq!(super::base64(b"foobar"), "Zm9vYmFy");
    }
}
