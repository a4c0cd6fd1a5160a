//! Tandem's MCP client: runs the MCP servers the user configured and gives the agent their tools.
//!
//! - [`config`]: the servers, in the shape of ACP's `mcpServers` (JSON or TOML).
//! - [`McpHub`]: starts them, lists their tools under names providers accept, calls them with a
//!   timeout and cancellation, restarts one that died once, stops them all (also when we are
//!   killed: see `spawn`).
//! - [`McpCallResult`]: a result as bounded text for the model.
//!
//! Everything a server sends (tool names, descriptions, results, stderr) is untrusted: names are
//! sanitised, text is cut to bounds, control characters are dropped.
//!
//! Built on the official Rust SDK, `rmcp`. Unix only (process groups, `PR_SET_PDEATHSIG` on
//! Linux).

pub mod config;
mod connection;
mod error;
mod hub;
pub mod naming;
mod options;
mod os;
mod result;
mod shorten;
mod spawn;
mod stderr;
mod text;

pub use config::{
    CACHE_VARS, EnvVariable, HttpHeader, HttpServerConfig, McpServerConfig, Startup,
    StdioServerConfig, Walls,
};
pub use error::McpError;
pub use hub::{McpHub, McpTool, McpToolList, ServerState, ServerStatus};
pub use options::HubOptions;
pub use result::McpCallResult;
pub use spawn::policy as walls_policy;
pub use tokio_util::sync::CancellationToken;
