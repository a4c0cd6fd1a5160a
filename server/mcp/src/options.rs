//! [`HubOptions`]: the hub's limits and timeouts, which the hub and each connection read.

use std::time::Duration;

/// Limits and timeouts; the defaults suit an agent talking to a few local servers.
#[derive(Clone, Debug)]
pub struct HubOptions {
    /// The largest tool result handed to the model; longer text is cut with a note.
    pub max_result_bytes: usize,
    /// The largest single message accepted from an HTTP server (stdio servers: rmcp's own
    /// 16 MiB line limit). Bounds what a flooding server can make us hold.
    pub max_message_bytes: usize,
    /// From spawn (or connect) to the end of the `initialize` handshake.
    pub start_timeout: Duration,
    /// For `tools/list` (all its pages).
    pub list_timeout: Duration,
    /// How long [`crate::McpHub::shutdown`] waits for each server to exit before killing it.
    pub stop_timeout: Duration,
    /// A tool description longer than this is cut.
    pub max_description_bytes: usize,
    /// A tool whose input schema is larger than this (as JSON) is left out.
    pub max_schema_bytes: usize,
    /// Tools past this many on one server are left out.
    pub max_tools_per_server: usize,
    /// How much of a stdio server's stderr is kept for error reports.
    pub stderr_tail_bytes: usize,
    /// How many times a server that died is started again before it is reported down.
    pub restarts: u32,
    /// Our name and version in the `initialize` handshake.
    pub client_name: String,
    pub client_version: String,
    /// The variable the provider key was read from, kept out of stdio servers' environment with
    /// the usual key names (`tandem_sandbox::without_secrets`).
    pub key_var: Option<String>,
}

impl Default for HubOptions {
    fn default() -> Self {
        Self {
            max_result_bytes: 100 * 1024,
            max_message_bytes: 16 * 1024 * 1024,
            start_timeout: Duration::from_secs(30),
            list_timeout: Duration::from_secs(30),
            stop_timeout: Duration::from_secs(5),
            max_description_bytes: 2048,
            max_schema_bytes: 64 * 1024,
            max_tools_per_server: 128,
            stderr_tail_bytes: 4096,
            restarts: 1,
            client_name: "tandem".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            key_var: None,
        }
    }
}
