//! Where Tandem's settings come from, and the agent built from them. The order, first found
//! wins (field by field): the editor's options or the command line, then the environment, then
//! discovery of a local model server (in `tandem_provider`).

mod env;
mod start;

pub use env::{EnvProvider, parse_tool_mode, provider_from_env};
pub use start::StartOptions;
pub use tandem_provider::{LazyClient, ProviderOptions};
