//! Where Tandem's settings come from, and the agent built from them. The order, first found
//! wins (field by field): the editor's options or the command line, then the environment, then
//! the project's `.tandem/config.toml` (model, max steps), then the user's config file, then
//! discovery of a local model server (in `tandem_provider`). See docs/configuration.md.

mod env;
pub mod file;
pub mod hooks;
mod policy;
pub mod rules;
mod schema;
pub use schema::config_schema;
mod start;

pub use env::{EnvProvider, parse_tool_mode, provider_from_env};
pub use file::ConfigError;
pub use policy::PolicyOptions;
pub use start::{Resolved, StartOptions, project_hooks, project_mcp_servers};
pub use tandem_provider::{LazyClient, ProviderOptions};
