//! The set of configured servers: starts them (eagerly or at the first tool listing), names their
//! tools for the model, routes calls, restarts a server that died once, and stops them all.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::future::join_all;
use rmcp::model::Tool;
use serde_json::Value;
use tokio::sync::{Mutex, watch};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::config::{McpServerConfig, Startup};
use crate::connection::{CallFailure, Connection};
use crate::error::McpError;
use crate::naming::{self, ToolRef};
use crate::options::HubOptions;
use crate::result::{McpCallResult, render};
use crate::text::clean;

/// A tool as the model sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct McpTool {
    /// The configured name of the server.
    pub server: String,
    /// The server's name for the tool, control characters removed (for showing to the user).
    pub tool: String,
    /// The name to give the model and to call it by: `SERVER__TOOL`, `^[a-zA-Z0-9_-]{1,64}$`.
    pub qualified_name: String,
    /// Untrusted text from the server, control characters removed, cut to a bound.
    pub description: String,
    /// The JSON schema of its arguments (an object schema), as the server gave it.
    pub input_schema: Value,
}

/// The tools of every server that runs, and what went wrong with the others.
#[derive(Clone, Debug, Default)]
pub struct McpToolList {
    pub tools: Vec<McpTool>,
    /// Servers that failed to start or are down, tools left out; for the user, not the model.
    pub problems: Vec<McpError>,
}

/// Where one server is.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerState {
    NotStarted,
    Running {
        /// A stdio server's pid (also its process group id).
        pid: Option<u32>,
        tools: usize,
    },
    Down(McpError),
    ShutDown,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ServerStatus {
    pub name: String,
    /// The command line, or the URL.
    pub target: String,
    pub state: ServerState,
}

/// The MCP servers of one sidecar. Cheap to clone (all clones share the servers). Dropping the
/// last clone kills every server's process group; [`McpHub::shutdown`] stops them gracefully.
#[derive(Clone)]
pub struct McpHub {
    inner: Arc<Inner>,
}

struct Inner {
    slots: Vec<Slot>,
    options: HubOptions,
    changes: watch::Sender<u64>,
    /// Qualified name -> (slot, the server's own tool name), as of the last listing.
    names: std::sync::Mutex<HashMap<String, (usize, String)>>,
}

struct Slot {
    config: McpServerConfig,
    state: Mutex<SlotState>,
}

struct SlotState {
    phase: Phase,
    tools: Vec<Tool>,
    restarts_left: u32,
    /// Counts starts, so a failed call knows whether its connection is still the current one.
    generation: u64,
}

enum Phase {
    NotStarted,
    Running(Connection),
    Down(McpError),
    ShutDown,
}

impl McpHub {
    /// A hub for these servers; starts nothing (see [`McpHub::start_eager`] and
    /// [`McpHub::tools`]).
    pub fn new(servers: Vec<McpServerConfig>, options: HubOptions) -> Self {
        let slots = servers
            .into_iter()
            .map(|config| Slot {
                config,
                state: Mutex::new(SlotState {
                    phase: Phase::NotStarted,
                    tools: Vec::new(),
                    restarts_left: options.restarts,
                    generation: 0,
                }),
            })
            .collect();
        Self {
            inner: Arc::new(Inner {
                slots,
                options,
                changes: watch::channel(0).0,
                names: std::sync::Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Starts the servers configured `startup = "eager"` (all at once), for the sidecar to call
    /// when it starts; returns the ones that failed (the others go on).
    pub async fn start_eager(&self) -> Vec<McpError> {
        let eager = self
            .inner
            .slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.config.startup() == Startup::Eager);
        join_all(eager.map(|(i, _)| async move {
            let mut state = self.inner.slots[i].state.lock().await;
            self.ready(i, &mut state).await.err()
        }))
        .await
        .into_iter()
        .flatten()
        .collect()
    }

    /// Every running server's tools, with their qualified names; starts the servers not started
    /// yet (the lazy ones, on the first call), restarts a server that died (once), and lists
    /// again the tools of a server that said they changed. Servers are handled all at once; one
    /// that fails is reported in `problems` and the others' tools are there.
    pub async fn tools(&self) -> McpToolList {
        let per_slot = join_all(
            self.inner
                .slots
                .iter()
                .enumerate()
                .map(|(i, slot)| async move {
                    let mut state = slot.state.lock().await;
                    match self.ready(i, &mut state).await {
                        Ok(()) => Ok(state.tools.clone()),
                        Err(e) => Err(e),
                    }
                }),
        )
        .await;

        let options = &self.inner.options;
        let mut list = McpToolList::default();
        let mut kept: Vec<(usize, Tool)> = Vec::new();
        for (i, result) in per_slot.into_iter().enumerate() {
            let server = self.inner.slots[i].config.name();
            let tools = match result {
                Ok(tools) => tools,
                Err(e) => {
                    list.problems.push(e);
                    continue;
                }
            };
            if tools.len() > options.max_tools_per_server {
                list.problems.push(McpError::ToolSkipped {
                    server: server.to_owned(),
                    tool: format!("{} tools", tools.len() - options.max_tools_per_server),
                    reason: format!(
                        "the server lists {} tools; the first {} are kept",
                        tools.len(),
                        options.max_tools_per_server
                    ),
                });
            }
            for tool in tools.into_iter().take(options.max_tools_per_server) {
                match check_tool(&tool, options) {
                    Ok(()) => kept.push((i, tool)),
                    Err(reason) => list.problems.push(McpError::ToolSkipped {
                        server: server.to_owned(),
                        tool: clean(&tool.name, 80),
                        reason,
                    }),
                }
            }
        }

        let refs: Vec<ToolRef<'_>> = kept
            .iter()
            .map(|(i, tool)| ToolRef {
                server_index: *i,
                server: self.inner.slots[*i].config.name(),
                tool: &tool.name,
            })
            .collect();
        let qualified = naming::qualify(&refs);
        let mut names = HashMap::new();
        for ((i, tool), qualified_name) in kept.into_iter().zip(qualified) {
            names.insert(qualified_name.clone(), (i, tool.name.to_string()));
            list.tools.push(McpTool {
                server: self.inner.slots[i].config.name().to_owned(),
                tool: clean(&tool.name, naming::MAX_NAME_LEN * 4),
                qualified_name,
                description: clean(
                    tool.description.as_deref().unwrap_or_default(),
                    options.max_description_bytes,
                ),
                input_schema: Value::Object((*tool.input_schema).clone()),
            });
        }
        if let Ok(mut map) = self.inner.names.lock() {
            *map = names;
        }
        list
    }

    /// Calls a tool by its qualified name. `arguments` must be a JSON object (or null for none).
    /// Ends with [`McpError::Timeout`] after `timeout` and [`McpError::Cancelled`] when `cancel`
    /// fires; either way the server is told (`notifications/cancelled`). `timeout` covers the
    /// call itself; starting (or restarting) the server first is bounded by
    /// [`HubOptions::start_timeout`], and `cancel` covers both.
    pub async fn call_tool(
        &self,
        qualified_name: &str,
        arguments: Value,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<McpCallResult, McpError> {
        let (slot_index, tool) = match self.lookup(qualified_name) {
            Some(found) => found,
            None => {
                // Called before any listing (or after a change): list, then look again.
                tokio::select! {
                    _ = cancel.cancelled() => return Err(McpError::Cancelled {
                        server: String::new(),
                        tool: qualified_name.to_owned(),
                    }),
                    _ = self.tools() => {}
                }
                self.lookup(qualified_name)
                    .ok_or_else(|| McpError::UnknownTool(clean(qualified_name, 200)))?
            }
        };
        let slot = &self.inner.slots[slot_index];
        let server = slot.config.name().to_owned();
        let arguments = match arguments {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return Err(McpError::BadArguments {
                    server,
                    tool,
                    got: json_kind(&other).into(),
                });
            }
        };
        let span = tracing::info_span!("mcp_call", server = %server, tool = %tool);
        let started = std::time::Instant::now();
        let result = self
            .call_ready(slot_index, server, tool, arguments, timeout, cancel)
            .instrument(span.clone())
            .await;
        let ms = started.elapsed().as_millis() as u64;
        span.in_scope(|| match &result {
            Ok(_) => tracing::info!(ms, "MCP tool call done"),
            Err(error) => tracing::info!(ms, "MCP tool call failed: {error}"),
        });
        result
    }

    /// A call to a tool found on slot `slot_index`: the server made ready, the call bounded.
    async fn call_ready(
        &self,
        slot_index: usize,
        server: String,
        tool: String,
        arguments: Option<serde_json::Map<String, Value>>,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<McpCallResult, McpError> {
        let slot = &self.inner.slots[slot_index];
        let cancelled = || McpError::Cancelled {
            server: server.clone(),
            tool: tool.clone(),
        };

        let (caller, generation) = tokio::select! {
            _ = cancel.cancelled() => return Err(cancelled()),
            ready = async {
                let mut state = slot.state.lock().await;
                self.ready(slot_index, &mut state).await?;
                match &state.phase {
                    Phase::Running(connection) => Ok((connection.caller(), state.generation)),
                    _ => Err(McpError::Down { server: server.clone(), reason: "not running".into() }),
                }
            } => ready?,
        };

        let outcome = tokio::select! {
            _ = cancel.cancelled() => return Err(cancelled()),
            outcome = tokio::time::timeout(timeout, caller.call(&tool, arguments)) => outcome,
        };
        match outcome {
            Err(_) => Err(McpError::Timeout {
                server,
                tool,
                after: timeout,
            }),
            Ok(Ok(result)) => Ok(render(&result, self.inner.options.max_result_bytes)),
            Ok(Err(failure)) => {
                let mut state = slot.state.lock().await;
                let closed = match &state.phase {
                    Phase::Running(c) => state.generation != generation || c.is_closed(),
                    _ => true,
                };
                match failure {
                    CallFailure::Refused(message) if !closed => Err(McpError::Refused {
                        server,
                        tool,
                        message: clean(&message, 2000),
                    }),
                    _ => {
                        let stderr = match &state.phase {
                            Phase::Running(c) if state.generation == generation => {
                                // Let the last lines it wrote arrive.
                                tokio::time::sleep(Duration::from_millis(100)).await;
                                c.stderr_text()
                            }
                            _ => String::new(),
                        };
                        let will_restart =
                            state.restarts_left > 0 || state.generation != generation;
                        if !will_restart {
                            self.mark_down(&mut state, slot_index, &stderr);
                        }
                        Err(McpError::Crashed {
                            server,
                            tool,
                            will_restart,
                            stderr,
                        })
                    }
                }
            }
        }
    }

    /// Where each server is, in configuration order.
    pub async fn status(&self) -> Vec<ServerStatus> {
        let mut out = Vec::with_capacity(self.inner.slots.len());
        for slot in &self.inner.slots {
            let state = slot.state.lock().await;
            out.push(ServerStatus {
                name: slot.config.name().to_owned(),
                target: slot.config.target(),
                state: match &state.phase {
                    Phase::NotStarted => ServerState::NotStarted,
                    Phase::Running(c) => ServerState::Running {
                        pid: c.pid,
                        tools: state.tools.len(),
                    },
                    Phase::Down(e) => ServerState::Down(e.clone()),
                    Phase::ShutDown => ServerState::ShutDown,
                },
            });
        }
        out
    }

    /// Changes whenever a server says its tools changed (`notifications/tools/list_changed`):
    /// the agent then lists the tools again before its next request to the model.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Stops every server: closes its stdin and waits for it to exit (then SIGTERM, then
    /// SIGKILL, within [`HubOptions::stop_timeout`]), then kills what is left of its process
    /// group. Later calls get [`McpError::ShutDown`].
    pub async fn shutdown(&self) {
        join_all(self.inner.slots.iter().map(|slot| async move {
            let mut state = slot.state.lock().await;
            if let Phase::Running(connection) = std::mem::replace(&mut state.phase, Phase::ShutDown)
            {
                connection.stop(self.inner.options.stop_timeout).await;
                tracing::info!(server = slot.config.name(), "MCP server stopped");
            }
            state.tools.clear();
        }))
        .await;
    }

    fn lookup(&self, qualified_name: &str) -> Option<(usize, String)> {
        self.inner.names.lock().ok()?.get(qualified_name).cloned()
    }

    /// Brings a slot to a usable state: starts it, restarts it if it died (while restarts are
    /// left), lists its tools again if they changed.
    async fn ready(&self, index: usize, state: &mut SlotState) -> Result<(), McpError> {
        let options = &self.inner.options;
        let config = &self.inner.slots[index].config;
        match &state.phase {
            Phase::ShutDown => return Err(McpError::ShutDown),
            Phase::Down(e) => return Err(e.clone()),
            Phase::Running(c) if c.is_closed() => {
                if state.restarts_left == 0 {
                    let stderr = c.stderr_text();
                    return Err(self.mark_down(state, index, &stderr));
                }
                state.restarts_left -= 1;
                tracing::info!(
                    server = config.name(),
                    restarts_left = state.restarts_left,
                    "MCP server exited; starting it again"
                );
                // Dropping the old connection kills what is left of its process group.
                state.phase = Phase::NotStarted;
            }
            Phase::Running(c) => {
                if c.tools_changed.load(Ordering::SeqCst) {
                    match c.list_tools(options.list_timeout).await {
                        Ok(tools) => state.tools = tools,
                        // Keep the old list; the next listing tries again.
                        Err(_) => c.tools_changed.store(true, Ordering::SeqCst),
                    }
                }
                return Ok(());
            }
            Phase::NotStarted => {}
        }

        state.generation += 1;
        let started = match Connection::start(config, options, self.inner.changes.clone()).await {
            Ok(connection) => match connection.list_tools(options.list_timeout).await {
                Ok(tools) => Ok((connection, tools)),
                Err(reason) => {
                    let stderr = connection.stderr_text();
                    connection.stop(options.stop_timeout).await;
                    Err(McpError::StartFailed {
                        server: config.name().to_owned(),
                        target: config.target(),
                        reason,
                        stderr,
                    })
                }
            },
            Err(e) => Err(e),
        };
        match started {
            Ok((connection, tools)) => {
                tracing::info!(
                    server = config.name(),
                    tools = tools.len(),
                    start = state.generation,
                    "MCP server started"
                );
                state.phase = Phase::Running(connection);
                state.tools = tools;
                // Its tools may differ from before a restart.
                self.inner.changes.send_modify(|n| *n = n.wrapping_add(1));
                Ok(())
            }
            Err(e) => {
                tracing::warn!(server = config.name(), "MCP server did not start: {e}");
                state.phase = Phase::Down(e.clone());
                state.tools.clear();
                Err(e)
            }
        }
    }

    fn mark_down(&self, state: &mut SlotState, index: usize, stderr: &str) -> McpError {
        let restarts = self.inner.options.restarts;
        let mut reason = format!(
            "it stopped after being restarted {restarts} time{}",
            if restarts == 1 { "" } else { "s" }
        );
        if !stderr.is_empty() {
            reason.push_str(&format!("\n--- its stderr (last lines) ---\n{stderr}"));
        }
        let error = McpError::Down {
            server: self.inner.slots[index].config.name().to_owned(),
            reason,
        };
        tracing::warn!(
            server = self.inner.slots[index].config.name(),
            "MCP server is down: it stopped after its restarts"
        );
        state.phase = Phase::Down(error.clone());
        state.tools.clear();
        error
    }
}

fn check_tool(tool: &Tool, options: &HubOptions) -> Result<(), String> {
    if tool.name.len() > naming::MAX_NAME_LEN * 4 {
        return Err(format!("its name is {} bytes long", tool.name.len()));
    }
    let schema_len = serde_json::to_string(&*tool.input_schema)
        .map(|s| s.len())
        .unwrap_or(usize::MAX);
    if schema_len > options.max_schema_bytes {
        return Err(format!(
            "its input schema is {schema_len} bytes (the limit is {})",
            options.max_schema_bytes
        ));
    }
    Ok(())
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
