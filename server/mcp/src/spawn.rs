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
//! - Its environment is ours without the provider keys (`tandem_sandbox::without_secrets`, and
//!   the hub's `key_var`), then what its config sets (kept, even a key the user put there).
//! - With [`Walls`](crate::config::Walls) (a project's server, or `sandbox = true`), it runs
//!   through `tandem_sandbox::command`, inside the walls commands run in: writes only to the
//!   workspace, the temp directories and its own cache, the network only with `network = true`.
//!   The launcher it runs under is the process group's leader, so the group kill still reaches
//!   it, and the launcher takes the server (its session, its PID namespace) down with it.

use std::ffi::{OsStr, OsString};
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

use crate::config::{CACHE_VARS, StdioServerConfig, Walls};

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

pub async fn spawn(config: &StdioServerConfig, key_var: Option<&str>) -> io::Result<Spawned> {
    let runtime = tokio::runtime::Handle::current();
    let config = config.clone();
    let key_var = key_var.map(str::to_owned);
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        // tokio's child handling (the SIGCHLD reaper) needs the runtime's context.
        let _guard = runtime.enter();
        let _ = tx.send(spawn_here(&config, key_var.as_deref()));
    });
    spawner()
        .send(job)
        .map_err(|_| io::Error::other("the MCP spawner thread is gone"))?;
    rx.await
        .map_err(|_| io::Error::other("the MCP spawner thread dropped the request"))?
}

/// The sandbox policy of a walled server: the workspace (if any), the temp directories and its
/// cache writable; the network as it says.
pub fn policy(walls: &Walls) -> tandem_sandbox::SandboxPolicy {
    let mut policy = tandem_sandbox::SandboxPolicy::workspace_write(
        walls.workspace.as_deref().unwrap_or(&walls.cache),
    );
    policy.network = walls.network;
    if walls.workspace.is_some() {
        policy.writable_roots.push(walls.cache.clone());
    }
    policy
}

/// The environment a server starts with: ours without the provider keys, its caches pointed
/// into its own directory when walled, then what its config sets.
fn environment(config: &StdioServerConfig, key_var: Option<&str>) -> Vec<(OsString, OsString)> {
    let mut vars = tandem_sandbox::without_secrets(std::env::vars_os(), key_var);
    if let Some(walls) = &config.walls {
        for (name, dir) in CACHE_VARS {
            vars.retain(|(n, _)| n.as_os_str() != OsStr::new(name));
            vars.push(((*name).into(), walls.cache.join(dir).into_os_string()));
        }
    }
    for e in &config.env {
        vars.retain(|(n, _)| n.as_os_str() != OsStr::new(&e.name));
        vars.push((e.name.clone().into(), e.value.clone().into()));
    }
    vars
}

fn spawn_here(config: &StdioServerConfig, key_var: Option<&str>) -> io::Result<Spawned> {
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
    let mut command = match &config.walls {
        None => {
            let mut command = std::process::Command::new(program);
            command.args(&config.args);
            tokio::process::Command::from(command)
        }
        Some(walls) => {
            std::fs::create_dir_all(&walls.cache)?;
            let args: Vec<OsString> = config.args.iter().map(OsString::from).collect();
            let (command, _) = tandem_sandbox::command(program.as_os_str(), &args, &policy(walls))
                .map_err(|e| io::Error::other(format!("its sandbox could not be set up: {e}")))?;
            tokio::process::Command::from(command)
        }
    };
    command.env_clear().envs(environment(config, key_var));
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
