//! One live MCP session with one server: start it (stdio or HTTP), list its tools, call one,
//! stop it.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation, Tool,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use tokio::sync::watch;

use crate::config::{HttpServerConfig, McpServerConfig};
use crate::error::McpError;
use crate::options::HubOptions;
use crate::spawn;
use crate::stderr::StderrTail;

/// Our side of the session: who we are, and what to do when the server's tools change.
struct Handler {
    info: ClientConfig,
    tools_changed: Arc<AtomicBool>,
    changes: watch::Sender<u64>,
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.store(true, Ordering::SeqCst);
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}

pub struct Connection {
    service: RunningService<RoleClient, Handler>,
    /// Set by the server's `notifications/tools/list_changed`; the hub lists again.
    pub tools_changed: Arc<AtomicBool>,
    /// The stdio server's pid, which is also its process group id.
    pub pid: Option<u32>,
    pub stderr: Option<StderrTail>,
}

impl Connection {
    pub async fn start(
        config: &McpServerConfig,
        options: &HubOptions,
        changes: watch::Sender<u64>,
    ) -> Result<Connection, McpError> {
        let tools_changed = Arc::new(AtomicBool::new(false));
        let handler = Handler {
            info: ClientConfig::new(
                ClientCapabilities::default(),
                Implementation::new(options.client_name.clone(), options.client_version.clone()),
            ),
            tools_changed: tools_changed.clone(),
            changes,
        };
        // A walled server without the network that fails to start may have wanted it.
        let hint = match config {
            McpServerConfig::Stdio(s) if s.walls.as_ref().is_some_and(|w| !w.network) => {
                " (it runs in the sandbox without the network; a server that fetches its code \
                 or talks to a service, e.g. started with `npx` or `uvx`, needs `network = true` \
                 in its config)"
            }
            _ => "",
        };
        let failed = |reason: String, stderr: &Option<StderrTail>| McpError::StartFailed {
            server: config.name().to_owned(),
            target: config.target(),
            reason: format!("{reason}{hint}"),
            stderr: stderr.as_ref().map(StderrTail::text).unwrap_or_default(),
        };
        match config {
            McpServerConfig::Stdio(stdio) => {
                let spawned = spawn::spawn(stdio, options.key_var.as_deref())
                    .await
                    .map_err(|e| {
                        failed(format!("could not run `{}`: {e}", stdio.command), &None)
                    })?;
                let stderr = spawned.stderr.map(|stream| {
                    let tail = StderrTail::new(options.stderr_tail_bytes);
                    tail.drain(stream);
                    tail
                });
                let pid = spawned.pid;
                let served =
                    tokio::time::timeout(options.start_timeout, handler.serve(spawned.transport))
                        .await;
                let service = match served {
                    Ok(Ok(service)) => service,
                    Ok(Err(e)) => {
                        // The server most likely exited: give its last words a moment to arrive.
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        if let Some(pid) = pid {
                            spawn::kill_group(pid);
                        }
                        return Err(failed(
                            format!("the MCP handshake failed: {}", tidy(&e)),
                            &stderr,
                        ));
                    }
                    Err(_) => {
                        if let Some(pid) = pid {
                            spawn::kill_group(pid);
                        }
                        return Err(failed(
                            format!(
                                "no answer to `initialize` within {}s",
                                options.start_timeout.as_secs_f32()
                            ),
                            &stderr,
                        ));
                    }
                };
                Ok(Connection {
                    service,
                    tools_changed,
                    pid,
                    stderr,
                })
            }
            McpServerConfig::Http(http) => {
                let transport = StreamableHttpClientTransport::from_config(
                    http_config(http, options).map_err(|e| failed(e, &None))?,
                );
                let service =
                    match tokio::time::timeout(options.start_timeout, handler.serve(transport))
                        .await
                    {
                        Ok(Ok(service)) => service,
                        Ok(Err(e)) => {
                            return Err(failed(
                                format!("the MCP handshake failed: {}", tidy(&e)),
                                &None,
                            ));
                        }
                        Err(_) => {
                            return Err(failed(
                                format!(
                                    "no answer to `initialize` within {}s",
                                    options.start_timeout.as_secs_f32()
                                ),
                                &None,
                            ));
                        }
                    };
                Ok(Connection {
                    service,
                    tools_changed,
                    pid: None,
                    stderr: None,
                })
            }
        }
    }

    /// Whether the session has ended (the process exited, the connection closed).
    pub fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }

    pub fn stderr_text(&self) -> String {
        self.stderr
            .as_ref()
            .map(StderrTail::text)
            .unwrap_or_default()
    }

    pub async fn list_tools(&self, timeout: Duration) -> Result<Vec<Tool>, String> {
        self.tools_changed.store(false, Ordering::SeqCst);
        match tokio::time::timeout(timeout, self.service.peer().list_all_tools()).await {
            Ok(Ok(tools)) => Ok(tools),
            Ok(Err(e)) => Err(format!("`tools/list` failed: {e}")),
            Err(_) => Err(format!(
                "no answer to `tools/list` within {}s",
                timeout.as_secs_f32()
            )),
        }
    }

    /// A handle to make calls with, without holding the hub's lock on this connection.
    pub fn caller(&self) -> Caller {
        let peer = self.service.peer().clone();
        let lists_may_change = peer
            .peer_info()
            .and_then(|info| info.capabilities.tools.as_ref()?.list_changed)
            .unwrap_or(false);
        Caller {
            peer,
            tools_changed: lists_may_change.then(|| self.tools_changed.clone()),
        }
    }

    /// Closes the session: for stdio, closes its stdin and waits for it to exit (then SIGTERM,
    /// then SIGKILL, as the MCP spec says), bounded by `timeout`; then kills what is left of its
    /// process group.
    pub async fn stop(mut self, timeout: Duration) {
        let _ = self.service.close_with_timeout(timeout).await;
        if let Some(pid) = self.pid {
            spawn::kill_group(pid);
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        // rmcp kills the child in a task of its own; this works even with no runtime left.
        if let Some(pid) = self.pid {
            spawn::kill_group(pid);
        }
    }
}

pub struct Caller {
    peer: rmcp::Peer<RoleClient>,
    /// For a server that says its tools can change: marked after each call.
    tools_changed: Option<Arc<AtomicBool>>,
}

/// How a call ended, before the hub names the server and tool.
pub enum CallFailure {
    /// The connection closed: the server died.
    Closed,
    /// A JSON-RPC error, or a reply that was not a result.
    Refused(String),
}

impl Caller {
    /// Calls a tool. Dropping the future sends `notifications/cancelled` to the server.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<CallToolResult, CallFailure> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = arguments;
        match self.peer.call_tool(params).await {
            Ok(result) => {
                // A call that changes the tools sends `list_changed` before its answer, but
                // rmcp handles notifications on tasks of their own: the answer can come first,
                // and the next request to the model would go with the old tools. Listing again
                // after a call to such a server can't miss it.
                if let Some(changed) = &self.tools_changed {
                    changed.store(true, Ordering::SeqCst);
                }
                Ok(result)
            }
            Err(ServiceError::TransportClosed) | Err(ServiceError::TransportSend(_)) => {
                Err(CallFailure::Closed)
            }
            Err(ServiceError::McpError(e)) => Err(CallFailure::Refused(e.message.to_string())),
            Err(e) => Err(CallFailure::Refused(e.to_string())),
        }
    }
}

fn http_config(
    http: &HttpServerConfig,
    options: &HubOptions,
) -> Result<StreamableHttpClientTransportConfig, String> {
    // reqwest is built without a TLS crypto provider of its own (see Cargo.toml): the client
    // takes the process's, which the binary installed at start-up.
    let mut headers = HashMap::new();
    for h in &http.headers {
        let name = http::HeaderName::from_bytes(h.name.as_bytes())
            .map_err(|e| format!("header name `{}` is not valid: {e}", h.name))?;
        let value = http::HeaderValue::from_str(&h.value)
            .map_err(|e| format!("the value of header `{}` is not valid: {e}", h.name))?;
        headers.insert(name, value);
    }
    Ok(
        StreamableHttpClientTransportConfig::with_uri(http.url.clone())
            .custom_headers(headers)
            .max_json_response_size(options.max_message_bytes)
            .max_sse_event_size(options.max_message_bytes),
    )
}

/// rmcp's transport errors name the transport's Rust type in brackets
/// (`Transport [rmcp::transport::worker::WorkerTransport<...>] error: ...`); a person needs only
/// the rest.
fn tidy(error: &dyn std::fmt::Display) -> String {
    let text = error.to_string();
    match (text.find(" [rmcp::"), text.find("] ")) {
        (Some(start), Some(end)) if end > start => {
            format!("{}{}", &text[..start], &text[end + 1..])
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tidy_drops_the_transport_type() {
        let raw = "Send message error Transport [rmcp::transport::worker::WorkerTransport<X<Y>>] error: refused";
        assert_eq!(
            super::tidy(&raw),
            "Send message error Transport error: refused"
        );
        assert_eq!(super::tidy(&"plain [a] b"), "plain [a] b");
    }
}
