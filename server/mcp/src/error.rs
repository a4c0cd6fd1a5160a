//! What can go wrong, as values that name the server and say what happened.

use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// The server could not be started or did not finish the MCP handshake.
    #[error(
        "MCP server `{server}` ({target}) did not start: {reason}{}",
        stderr_note(stderr)
    )]
    StartFailed {
        server: String,
        /// The command line, or the URL.
        target: String,
        reason: String,
        /// The last lines it wrote to stderr (stdio servers).
        stderr: String,
    },
    /// The server failed to start, or died more often than the hub restarts it; its tools are
    /// gone until the hub is made again.
    #[error("MCP server `{server}` is down: {reason}")]
    Down { server: String, reason: String },
    /// The server stopped (exited, was killed, closed the connection) while a call was running.
    #[error(
        "MCP server `{server}` stopped during the call to `{tool}`{}{}",
        if *will_restart { " (it will be restarted for the next call)" } else { " (it is now down)" },
        stderr_note(stderr)
    )]
    Crashed {
        server: String,
        tool: String,
        will_restart: bool,
        stderr: String,
    },
    #[error("no MCP tool is named `{0}` (the tool list may have changed: list the tools again)")]
    UnknownTool(String),
    #[error("MCP tool `{tool}` on `{server}`: the arguments must be a JSON object, not {got}")]
    BadArguments {
        server: String,
        tool: String,
        got: String,
    },
    #[error(
        "MCP tool `{tool}` on `{server}` gave no answer within {}s; the call was cancelled",
        after.as_secs_f32()
    )]
    Timeout {
        server: String,
        tool: String,
        after: Duration,
    },
    #[error("the call to MCP tool `{tool}` on `{server}` was cancelled")]
    Cancelled { server: String, tool: String },
    /// The server answered with a JSON-RPC error (unknown tool, invalid arguments...), or the
    /// request could not be sent.
    #[error("MCP server `{server}` refused the call to `{tool}`: {message}")]
    Refused {
        server: String,
        tool: String,
        message: String,
    },
    /// The server listed a tool the hub leaves out (name too long, schema too large, too many).
    #[error("MCP server `{server}`: tool `{tool}` left out: {reason}")]
    ToolSkipped {
        server: String,
        tool: String,
        reason: String,
    },
    #[error("the MCP servers were shut down")]
    ShutDown,
}

fn stderr_note(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("\n--- its stderr (last lines) ---\n{stderr}")
    }
}
