//! Starting a stdio server so that it can never outlive us.
//!
//! - Its own process group (process-wrap's `ProcessGroup`; a kill-on-close Job Object on
//!   Windows): stopping the server stops whatever it started too, and a Ctrl-C in a terminal
//!   reaches only us.
//! - `PR_SET_PDEATHSIG(SIGKILL)` (Linux): the kernel kills it when we die, even by SIGKILL, when
//!   no cleanup code of ours runs. Its own children are not covered by that; they get EOF on the
//!   stdin they share with it, which is how MCP stdio servers are told to exit.
//! - The death signal fires when the *thread* that forked the child ends, not the process. Tokio
//!   may fork from a blocking-pool thread that ends after a while idle, which would kill a
//!   healthy server; so every child is forked from one thread of ours that lives as long as the
//!   process.
//! - stderr is piped (to [`StderrTail`](crate::stderr::StderrTail)): our stdout is the JSON-RPC
//!   channel to the editor and nothing of the server's may reach it.

use std::io;
use std::path::Path;
use std::process::Stdio;
use std::sync::OnceLock;
use std::sync::mpsc;

use process_wrap::tokio::{ChildWrapper, CommandWrap};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

use crate::shorten::Shorten;

use crate::config::StdioServerConfig;

/// A started server: the transport rmcp talks over, its stderr, and its process group id.
pub struct Spawned {
    pub transport: ChildTransport,
    pub stderr: Option<ChildStderr>,
    pub pid: Option<u32>,
}

type Job = Box<dyn FnOnce() + Send>;

/// The long-lived thread children are forked from (see the module comment).
fn spawner() -> &'static mpsc::Sender<Job> {
    static SPAWNER: OnceLock<mpsc::Sender<Job>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("tandem-mcp-spawner".into())
            .spawn(move || {
                for job in rx {
                    job();
                }
            })
            .expect("cannot start a thread: the process is out of resources");
        tx
    })
}

pub async fn spawn(config: &StdioServerConfig) -> io::Result<Spawned> {
    let runtime = tokio::runtime::Handle::current();
    let config = config.clone();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        // tokio's child handling (the SIGCHLD reaper) needs the runtime's context.
        let _guard = runtime.enter();
        let _ = tx.send(spawn_here(&config));
    });
    spawner()
        .send(job)
        .map_err(|_| io::Error::other("the MCP spawner thread is gone"))?;
    rx.await
        .map_err(|_| io::Error::other("the MCP spawner thread dropped the request"))?
}

fn spawn_here(config: &StdioServerConfig) -> io::Result<Spawned> {
    // A relative path with a slash (`./tools/srv`) names a file of the directory it starts in,
    // made explicit here (how `Command` resolves it against `current_dir` is platform-specific).
    let program = match &config.cwd {
        Some(dir)
            if Path::new(&config.command).is_relative()
                && Path::new(&config.command).components().count() > 1 =>
        {
            dir.join(&config.command)
        }
        _ => config.command.clone().into(),
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(&config.args)
        .envs(config.env.iter().map(|e| (&e.name, &e.value)));
    if let Some(dir) = &config.cwd {
        command.current_dir(dir);
    }
    crate::os::die_with_us(&mut command);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut wrapped = CommandWrap::from(command);
    crate::os::contain(&mut wrapped);
    let mut child = wrapped.spawn()?;
    let missing = || io::Error::other("the server's stdio was not piped");
    let stdin = child.inner_mut().stdin().take().ok_or_else(missing)?;
    let stdout = child.inner_mut().stdout().take().ok_or_else(missing)?;
    let stderr = child.inner_mut().stderr().take();
    let pid = child.id();
    Ok(Spawned {
        transport: ChildTransport {
            io: AsyncRwTransport::new(Shorten::new(stdout), stdin),
            child: Some(child),
        },
        stderr,
        pid,
    })
}

/// rmcp's stdio transport over the server's output with its long strings cut
/// ([`Shorten`](crate::shorten::Shorten)), and the child it talks to.
pub struct ChildTransport {
    io: AsyncRwTransport<RoleClient, Shorten<ChildStdout>, ChildStdin>,
    child: Option<Box<dyn ChildWrapper>>,
}

/// How long a closing server gets after its stdin closes, then after SIGTERM.
const EXIT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

impl Transport<RoleClient> for ChildTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.io.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.io.receive()
    }

    /// MCP's stdio shutdown: close its stdin and wait for it to exit, then SIGTERM and wait,
    /// then kill.
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.io.close().await?;
        let Some(child) = self.child.as_mut() else {
            return Ok(());
        };
        if tokio::time::timeout(EXIT_WAIT, child.wait()).await.is_err() {
            #[cfg(unix)]
            let _ = child.signal(libc::SIGTERM);
            if tokio::time::timeout(EXIT_WAIT, child.wait()).await.is_err() {
                Box::into_pin(child.kill()).await?;
            }
        }
        self.child = None;
        Ok(())
    }
}

pub use crate::os::kill_group;
