//! MCP servers' tools in a session: which servers, their tools as the model sees them, and the
//! project servers waiting for the user's trust.
//!
//! A session sees the agent's servers (the user's config file, the editor's
//! `initializationOptions.mcpServers`) and its own (ACP's `session/new` `mcpServers`, and the
//! project config's servers once the user trusts them). The hubs of `tandem_mcp` start them,
//! restart one that died (once) and list their tools again when a server says they changed:
//! the tools are listed before every request to the model.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use tandem_mcp::{HubOptions, McpHub, McpServerConfig, McpTool, ServerState};

use crate::on_demand::{McpServerState, McpServerView};
use tandem_model::ToolDefinition;
use tandem_stdx::lock;

/// A server a session runs, and whether it needs the user's word first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionServer {
    pub config: McpServerConfig,
    pub source: ServerSource,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerSource {
    /// The user or the editor named it (ACP's `session/new`): it starts without asking.
    Trusted,
    /// A project's config file names it: it starts only once the user trusts it (asked at the
    /// session's first turn, remembered per project and command line when they say "always").
    Project { file: PathBuf },
}

/// The MCP side of one session: the agent's hub, and the session's own state under one lock.
/// No await happens with the lock held: a hub is cloned out (it is a handle) before it is asked
/// anything, so a slow or hung server never blocks another caller on this lock.
pub(crate) struct SessionMcp {
    shared: Option<McpHub>,
    state: Mutex<State>,
}

struct State {
    /// The servers the session was given, as given (to tell a new list from the same one).
    given: Vec<SessionServer>,
    /// Bumped by each new list, so a start that overlapped it does not keep the old servers.
    generation: u64,
    /// Whether the session's own servers have been put to work in this process (at its first
    /// turn here; a session reopened after a restart starts them again).
    started: bool,
    /// This session's servers given as trusted.
    trusted: Vec<McpServerConfig>,
    /// Project servers not yet asked about (taken at the first turn).
    pending: Vec<(McpServerConfig, PathBuf)>,
    /// The session's own hub, once started.
    own: Option<McpHub>,
    /// The tools of the last listing: qualified name to (server, tool, which hub).
    tools: HashMap<String, (McpTool, Which)>,
    /// Problems already told to the user, so each is said once per session.
    told: HashSet<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Shared,
    Own,
}

/// What a listing gives the turn: tools for the request, news for the user.
pub(crate) struct Listing {
    pub definitions: Vec<ToolDefinition>,
    pub notices: Vec<String>,
}

impl SessionMcp {
    pub fn new(shared: Option<McpHub>, servers: Vec<SessionServer>) -> Self {
        let (trusted, pending) = split(&servers);
        Self {
            shared,
            state: Mutex::new(State {
                given: servers,
                generation: 0,
                started: false,
                trusted,
                pending,
                own: None,
                tools: HashMap::new(),
                told: HashSet::new(),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// The session's own servers, given again when it is reopened (ACP's `session/load`
    /// `mcpServers`, the project's file). The same list changes nothing; another one stops the
    /// servers running and takes effect at the next turn.
    pub async fn replace(&self, servers: Vec<SessionServer>) {
        let old = {
            let mut state = self.state();
            if state.given == servers {
                return;
            }
            (state.trusted, state.pending) = split(&servers);
            state.given = servers;
            state.generation += 1;
            state.started = false;
            state.own.take()
        };
        if let Some(hub) = old {
            hub.shutdown().await;
        }
    }

    /// True once per process and server list: the turn that gets it asks about the project's
    /// servers and starts the session's own.
    pub fn take_start(&self) -> bool {
        !std::mem::replace(&mut self.state().started, true)
    }

    /// The project servers to ask about, once.
    pub fn take_pending(&self) -> Vec<(McpServerConfig, PathBuf)> {
        std::mem::take(&mut self.state().pending)
    }

    /// Starts the session's own hub with its trusted servers (walled in `root` when they say
    /// `sandbox = true`) and the project servers the user allowed (walled already; nothing runs
    /// when there are none). Eager servers start now.
    pub async fn start_own(
        &self,
        allowed: Vec<McpServerConfig>,
        root: &Path,
        data_dir: &Path,
        key_var: Option<String>,
    ) {
        let (mut servers, generation) = {
            let state = self.state();
            (state.trusted.clone(), state.generation)
        };
        for config in &mut servers {
            if let McpServerConfig::Stdio(s) = config {
                s.wall(false, Some(root), &cache_root(data_dir, Some(root)));
            }
        }
        servers.extend(allowed);
        if servers.is_empty() {
            return;
        }
        let options = HubOptions {
            key_var,
            ..HubOptions::default()
        };
        let hub = McpHub::new(servers, options);
        // Failures come back from the next listing, with the others.
        let _ = hub.start_eager().await;
        let stale = {
            let mut state = self.state();
            if state.generation == generation {
                state.own.replace(hub)
            } else {
                // The list changed while these started: they are not the session's any more.
                Some(hub)
            }
        };
        if let Some(hub) = stale {
            hub.shutdown().await;
        }
    }

    /// The agent's hub or the session's own, if it runs: a handle, so the lock is not held
    /// while it is used.
    fn hub(&self, which: Which) -> Option<McpHub> {
        match which {
            Which::Shared => self.shared.clone(),
            Which::Own => self.state().own.clone(),
        }
    }

    /// Every server's tools (starting lazy ones, restarting one that died, listing again after
    /// `list_changed`), and the problems the user has not been told yet.
    pub async fn list(&self) -> Listing {
        let mut all = Vec::new();
        let mut problems = Vec::new();
        for which in [Which::Shared, Which::Own] {
            let Some(hub) = self.hub(which) else { continue };
            let list = hub.tools().await;
            all.extend(list.tools.into_iter().map(|t| (t, which)));
            problems.extend(list.problems.iter().map(ToString::to_string));
        }
        let mut map = HashMap::new();
        let mut definitions = Vec::new();
        for (tool, which) in all {
            if map.contains_key(&tool.qualified_name) {
                problems.push(format!(
                    "MCP tool `{}` of server `{}` left out: another server's tool has the same \
                     name (give the servers different names)",
                    tool.tool, tool.server
                ));
                continue;
            }
            definitions.push(ToolDefinition {
                name: tool.qualified_name.clone(),
                description: format!(
                    "[MCP server `{}`, tool `{}`] {}",
                    tool.server, tool.tool, tool.description
                ),
                parameters: tool.input_schema.clone(),
                example: None,
            });
            map.insert(tool.qualified_name.clone(), (tool, which));
        }
        let mut state = self.state();
        state.tools = map;
        let notices = problems
            .into_iter()
            .filter(|p| state.told.insert(p.clone()))
            .collect();
        Listing {
            definitions,
            notices,
        }
    }

    /// Every server the session can use, with its state and tools (for the user: `/mcp`).
    /// Starts the agent's servers and the session's running hub's as a listing does; the
    /// session's own servers wait for its next turn, a project's for the user's trust.
    pub async fn servers(&self) -> Vec<McpServerView> {
        let mut out = Vec::new();
        if let Some(hub) = &self.shared {
            out.extend(view(hub).await);
        }
        let (own, waiting) = {
            let state = self.state();
            let not_started = state.trusted.iter().map(|config| McpServerView {
                name: config.name().to_string(),
                target: config.target(),
                state: McpServerState::NotStarted,
                tools: Vec::new(),
            });
            let awaiting = state.pending.iter().map(|(config, file)| McpServerView {
                name: config.name().to_string(),
                target: config.target(),
                state: McpServerState::AwaitingTrust { file: file.clone() },
                tools: Vec::new(),
            });
            let own = state.own.clone();
            let mut waiting: Vec<McpServerView> = match own {
                Some(_) => Vec::new(),
                None => not_started.collect(),
            };
            waiting.extend(awaiting);
            (own, waiting)
        };
        if let Some(hub) = own {
            out.extend(view(&hub).await);
        }
        out.extend(waiting);
        out
    }

    /// Whether `message` is new to this session's user (then it is now told).
    pub fn tell_once(&self, message: &str) -> bool {
        self.state().told.insert(message.to_string())
    }

    /// The tool a model's call names, as of the last listing.
    pub fn lookup(&self, qualified_name: &str) -> Option<McpTool> {
        self.state()
            .tools
            .get(qualified_name)
            .map(|(t, _)| t.clone())
    }

    /// The hub that runs a tool.
    pub fn hub_of(&self, qualified_name: &str) -> Option<McpHub> {
        let which = self.state().tools.get(qualified_name)?.1;
        self.hub(which)
    }

    /// Stops the session's own servers (the shared ones are the agent's).
    pub async fn shutdown(&self) {
        let own = self.state().own.take();
        if let Some(hub) = own {
            hub.shutdown().await;
        }
    }
}

/// Where walled servers keep their caches: one directory per project (by its root's hash) and
/// server under the data dir, or `user` for the user's own servers; never the user's own caches
/// (a server could plant code there that the user's `npx` or `uvx` would run unwalled).
pub fn cache_root(data_dir: &Path, root: Option<&Path>) -> PathBuf {
    use sha2::Digest;
    let base = data_dir.join("mcp-cache");
    match root {
        Some(root) => {
            let digest = sha2::Sha256::digest(root.as_os_str().as_encoded_bytes());
            base.join(&crate::trust::hex(&digest)[..16])
        }
        None => base.join("user"),
    }
}

/// The trusted servers, and the project's ones with their file.
fn split(servers: &[SessionServer]) -> (Vec<McpServerConfig>, Vec<(McpServerConfig, PathBuf)>) {
    let mut trusted = Vec::new();
    let mut pending = Vec::new();
    for s in servers {
        match &s.source {
            ServerSource::Trusted => trusted.push(s.config.clone()),
            ServerSource::Project { file } => pending.push((s.config.clone(), file.clone())),
        }
    }
    (trusted, pending)
}

/// A hub's servers as the user sees them: listing their tools first starts those not started.
async fn view(hub: &McpHub) -> Vec<McpServerView> {
    let list = hub.tools().await;
    hub.status()
        .await
        .into_iter()
        .map(|status| {
            let tools = list
                .tools
                .iter()
                .filter(|t| t.server == status.name)
                .map(|t| t.tool.clone())
                .collect();
            let state = match status.state {
                ServerState::Running { pid, .. } => McpServerState::Running { pid },
                ServerState::NotStarted => McpServerState::NotStarted,
                ServerState::Down(e) => McpServerState::Down(e.to_string()),
                ServerState::ShutDown => McpServerState::ShutDown,
            };
            McpServerView {
                name: status.name,
                target: status.target,
                state,
                tools,
            }
        })
        .collect()
}

/// What the user is shown to decide whether to run a project's server: the command line and
/// the environment it sets, or the URL and the names of the headers it sends.
pub fn describe_server(config: &McpServerConfig) -> String {
    match config {
        McpServerConfig::Stdio(s) => {
            let env: Vec<String> = s
                .env
                .iter()
                .map(|e| format!("{}={}", e.name, e.value))
                .collect();
            let line = config.target();
            let line = if env.is_empty() {
                line
            } else {
                format!("{} {line}", env.join(" "))
            };
            match &s.walls {
                Some(walls) if walls.network => {
                    format!(
                        "{line} (in the sandbox: writes only to the workspace and its cache; network on)"
                    )
                }
                Some(_) => format!(
                    "{line} (in the sandbox: writes only to the workspace and its cache; no network)"
                ),
                None => line,
            }
        }
        McpServerConfig::Http(h) => {
            let headers: Vec<&str> = h.headers.iter().map(|h| h.name.as_str()).collect();
            if headers.is_empty() {
                h.url.clone()
            } else {
                format!("{} (headers: {})", h.url, headers.join(", "))
            }
        }
    }
}

/// Which servers' tools a model with `budget` tokens for tool definitions could not take: whole
/// servers are left out, the last listed first, until the rest fit. Tokens are estimated at
/// four bytes each (name, description and schema as JSON). For the local-model work's token
/// budget: the servers named here are left out and the user is told.
pub fn servers_over_budget(tools: &[ToolDefinition], budget: u64) -> Vec<String> {
    let estimate = |d: &ToolDefinition| {
        let bytes = d.name.len() + d.description.len() + d.parameters.to_string().len();
        (bytes as u64).div_ceil(4)
    };
    // Server of each MCP tool, by its description's prefix; built-in tools always stay.
    let server_of = |d: &ToolDefinition| -> Option<String> {
        let rest = d.description.strip_prefix("[MCP server `")?;
        Some(rest.split('`').next()?.to_string())
    };
    let mut servers: Vec<String> = Vec::new();
    let mut cost: HashMap<String, u64> = HashMap::new();
    let mut total = 0;
    for d in tools {
        let t = estimate(d);
        total += t;
        if let Some(s) = server_of(d) {
            if !servers.contains(&s) {
                servers.push(s.clone());
            }
            *cost.entry(s).or_default() += t;
        }
    }
    let mut left_out = Vec::new();
    while total > budget {
        let Some(server) = servers.pop() else { break };
        total -= cost[&server];
        left_out.push(server);
    }
    left_out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server(json: serde_json::Value) -> McpServerConfig {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn the_user_sees_the_environment_and_header_names() {
        let s = server(json!({"name": "a", "command": "node", "args": ["s.js"],
            "env": [{"name": "DEBUG", "value": "1"}]}));
        assert_eq!(describe_server(&s), "DEBUG=1 node s.js");
        let h = server(
            json!({"type": "http", "name": "h", "url": "http://127.0.0.1:1/mcp",
            "headers": [{"name": "Authorization", "value": "Bearer secret"}]}),
        );
        assert_eq!(
            describe_server(&h),
            "http://127.0.0.1:1/mcp (headers: Authorization)"
        );
    }

    #[test]
    fn whole_servers_are_left_out_last_first_until_the_tools_fit() {
        let def = |name: &str, server: Option<&str>, size: usize| ToolDefinition {
            name: name.into(),
            description: match server {
                Some(s) => format!("[MCP server `{s}`, tool `t`] {}", "d".repeat(size)),
                None => "d".repeat(size),
            },
            parameters: json!({}),
            example: None,
        };
        let tools = vec![
            def("read_file", None, 400),
            def("a__x", Some("a"), 400),
            def("b__y", Some("b"), 400),
            def("b__z", Some("b"), 400),
        ];
        assert!(servers_over_budget(&tools, 10_000).is_empty());
        assert_eq!(servers_over_budget(&tools, 300), vec!["b".to_string()]);
        assert_eq!(
            servers_over_budget(&tools, 150),
            vec!["b".to_string(), "a".to_string()]
        );
    }
}
