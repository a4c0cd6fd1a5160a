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
use std::process::Stdio;
use std::sync::OnceLock;
use std::sync::mpsc;

use process_wrap::tokio::CommandWrap;
use rmcp::transport::TokioChildProcess;
use tokio::process::ChildStderr;

use crate::config::StdioServerConfig;

/// A started server: the transport rmcp talks over, its stderr, and its process group id.
pub struct Spawned {
    pub transport: TokioChildProcess,
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
    let mut command = tokio::process::Command::new(&config.command);
    command
        .args(&config.args)
        .envs(config.env.iter().map(|e| (&e.name, &e.value)));
    crate::os::die_with_us(&mut command);
    let mut wrapped = CommandWrap::from(command);
    crate::os::contain(&mut wrapped);
    let (transport, stderr) = TokioChildProcess::builder(wrapped)
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = transport.id();
    Ok(Spawned {
        transport,
        stderr,
        pid,
    })
}

pub use crate::os::kill_group;
