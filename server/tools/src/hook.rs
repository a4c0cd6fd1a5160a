//! Running one of the user's hook commands: the user's command line through the user's shell,
//! in the commands' walls unless the user said otherwise, with its input JSON on stdin only (the
//! line is the user's; nothing the model wrote is ever put into it), stdout and stderr kept apart
//! and each capped, and the whole process tree ended at the timeout or on cancel.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use super::command::Walls;
use super::process;
use super::{ErrorKind, ToolError};

/// The most of each stream (stdout, stderr) kept; the rest is read and dropped so the hook never
/// blocks on a full pipe.
pub const MAX_HOOK_OUTPUT: usize = 1024 * 1024;

/// Between terminate and kill.
const KILL_GRACE: Duration = Duration::from_millis(500);
/// After the shell exits, how long what it left in the background may still hold the pipes.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(250);

/// One hook to run.
#[derive(Clone, Debug)]
pub struct HookCommand {
    /// The user's command line, run by the user's shell as it is written.
    pub line: String,
    /// What goes on its stdin (the event's JSON).
    pub input: Vec<u8>,
    /// Where it runs (the workspace root).
    pub cwd: PathBuf,
    pub timeout: Duration,
    /// Inside the commands' walls (unless the sandbox is off altogether).
    pub sandboxed: bool,
    /// Variables set on top of the commands' environment (`CLAUDE_PROJECT_DIR`, …).
    pub env: Vec<(String, String)>,
}

/// How a hook ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookExit {
    /// `None`: killed by a signal (or at the timeout).
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub cancelled: bool,
    /// Bytes of stdout and stderr beyond [`MAX_HOOK_OUTPUT`], dropped.
    pub dropped_bytes: u64,
    /// What a sandboxed hook wrote to the workspace, held as a command's writes are, for the
    /// caller to apply with saves in the undo log ([`crate::capture::apply`]); `None` when the
    /// walls don't capture (`Walls::capture` unset, the hook outside the sandbox).
    pub captured: Option<super::capture::Captured>,
}

/// The shell running the hook's line, inside the walls when asked, its writes caught in
/// `capture`'s overlays when given; the `bool` says whether they are.
fn shell_command(
    hook: &HookCommand,
    walls: &Walls,
    capture: Vec<tandem_sandbox::launch::CaptureMount>,
) -> Result<(tokio::process::Command, bool), ToolError> {
    super::command::shell_in_walls(
        &hook.line,
        hook.sandboxed,
        walls,
        capture,
        "the hook was not run. Set `sandbox = false` on it in your config to run it outside the \
         sandbox",
    )
}

/// Runs a hook to its end, its timeout or a cancel.
pub async fn run_hook(
    hook: &HookCommand,
    walls: &Walls,
    cancel: CancellationToken,
) -> Result<HookExit, ToolError> {
    let spawn_error =
        |e: std::io::Error| ToolError::new(ErrorKind::Io, format!("could not start the hook: {e}"));
    let (mut command, captured) =
        super::command::captured_command(hook.sandboxed, walls, |mounts| {
            shell_command(hook, walls, mounts)
        })
        .await?;
    command
        .current_dir(&hook.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_clear()
        .envs(tandem_sandbox::command_env(
            std::env::vars_os(),
            walls.key_var.as_deref(),
            &walls.root,
        ))
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat")
        .envs(hook.env.iter().map(|(k, v)| (k, v)));
    process::prepare(&mut command);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            if let Some(c) = &captured {
                c.discard();
            }
            return Err(spawn_error(e));
        }
    };
    drop(command);
    let tree = match process::Tree::adopt(&child) {
        Ok(tree) => tree,
        Err(e) => {
            let _ = child.start_kill();
            return Err(spawn_error(e));
        }
    };
    // The input is written beside the reads: a hook that reads nothing (or exits first) just
    // closes the pipe, which is no error of the hook's.
    let stdin = child.stdin.take();
    let input = hook.input.clone();
    let writer = tokio::spawn(async move {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        }
    });
    let mut out = Capped::new(child.stdout.take());
    let mut err = Capped::new(child.stderr.take());
    let (mut timed_out, mut cancelled) = (false, false);
    let mut status = None;
    let deadline = tokio::time::sleep(hook.timeout);
    tokio::pin!(deadline);
    while status.is_none() || !out.eof || !err.eof {
        tokio::select! {
            () = out.read(), if !out.eof => {}
            () = err.read(), if !err.eof => {}
            exit = child.wait(), if status.is_none() => {
                status = Some(exit.map_err(spawn_error)?);
                deadline.as_mut().reset(tokio::time::Instant::now() + DRAIN_AFTER_EXIT);
            }
            () = &mut deadline => {
                timed_out = status.is_none();
                break;
            }
            () = cancel.cancelled(), if status.is_none() => { cancelled = true; break; }
        }
    }
    writer.abort();
    if timed_out || cancelled {
        tree.terminate();
        let grace = tokio::time::sleep(KILL_GRACE);
        tokio::pin!(grace);
        loop {
            tokio::select! {
                exit = child.wait(), if status.is_none() => status = exit.ok(),
                () = out.read(), if !out.eof => {}
                () = err.read(), if !err.eof => {}
                () = &mut grace => break,
            }
            if status.is_some() && out.eof && err.eof {
                break;
            }
        }
        tree.kill();
        if status.is_none() {
            status = child.wait().await.ok();
        }
    } else {
        tree.release();
    }
    Ok(HookExit {
        exit_code: if timed_out || cancelled {
            None
        } else {
            status.and_then(|s| s.code())
        },
        dropped_bytes: out.dropped + err.dropped,
        stdout: out.text(),
        stderr: err.text(),
        timed_out,
        cancelled,
        captured,
    })
}

/// One output stream, its first [`MAX_HOOK_OUTPUT`] bytes kept.
struct Capped<R> {
    reader: Option<R>,
    kept: Vec<u8>,
    dropped: u64,
    eof: bool,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> Capped<R> {
    fn new(reader: Option<R>) -> Self {
        Self {
            eof: reader.is_none(),
            reader,
            kept: Vec::new(),
            dropped: 0,
            buf: vec![0; 64 * 1024],
        }
    }

    /// Reads once (cancel-safe: a read that did not complete took nothing).
    async fn read(&mut self) {
        let Some(reader) = self.reader.as_mut() else {
            self.eof = true;
            return;
        };
        match reader.read(&mut self.buf).await {
            Ok(0) | Err(_) => self.eof = true,
            Ok(n) => {
                let room = MAX_HOOK_OUTPUT - self.kept.len();
                let take = n.min(room);
                self.kept.extend_from_slice(&self.buf[..take]);
                self.dropped += (n - take) as u64;
            }
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.kept).into_owned()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn walls(root: &std::path::Path) -> Walls {
        Walls {
            root: root.to_path_buf(),
            extra_roots: Vec::new(),
            protected: Vec::new(),
            mode: tandem_sandbox::SandboxMode::Off,
            network: false,
            key_var: None,
            capture: None,
        }
    }

    fn hook(root: &std::path::Path, line: &str, input: &[u8]) -> HookCommand {
        HookCommand {
            line: line.into(),
            input: input.to_vec(),
            cwd: root.to_path_buf(),
            timeout: Duration::from_secs(30),
            sandboxed: false,
            env: vec![("TANDEM_HOOK_TEST".into(), "yes".into())],
        }
    }

    #[tokio::test]
    async fn the_input_goes_on_stdin_and_the_streams_come_back_apart() {
        let dir = tempfile::tempdir().unwrap();
        let line = "cat; echo \"[$TANDEM_HOOK_TEST]\" >&2; exit 2";
        let exit = run_hook(
            &hook(dir.path(), line, b"{\"a\": \"$(touch pwned)\"}"),
            &walls(dir.path()),
            CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(exit.exit_code, Some(2));
        assert_eq!(exit.stdout, "{\"a\": \"$(touch pwned)\"}");
        assert_eq!(exit.stderr, "[yes]\n");
        assert!(!dir.path().join("pwned").exists());
    }

    #[tokio::test]
    async fn a_flood_of_output_is_capped_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        // 100 MiB of zeros on stdout.
        let line = "head -c 104857600 /dev/zero";
        let exit = run_hook(
            &hook(dir.path(), line, b""),
            &walls(dir.path()),
            CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(exit.exit_code, Some(0));
        assert_eq!(exit.stdout.len(), MAX_HOOK_OUTPUT);
        assert_eq!(exit.dropped_bytes, 104_857_600 - MAX_HOOK_OUTPUT as u64);
    }

    #[tokio::test]
    async fn a_hook_past_its_timeout_is_killed_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let mut h = hook(dir.path(), "sleep 1000 & sleep 1000", b"");
        h.timeout = Duration::from_millis(200);
        let exit = run_hook(&h, &walls(dir.path()), CancellationToken::new())
            .await
            .unwrap();
        assert!(exit.timed_out);
        assert_eq!(exit.exit_code, None);
    }

    #[tokio::test]
    async fn a_hook_that_reads_none_of_a_big_input_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        let input = vec![b'x'; 10 * 1024 * 1024];
        let exit = run_hook(
            &hook(dir.path(), "echo ok", &input),
            &walls(dir.path()),
            CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!((exit.exit_code, exit.stdout.as_str()), (Some(0), "ok\n"));
    }
}
