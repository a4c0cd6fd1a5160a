//! Tandem: a coding agent sidecar.
//!
//! Layers, from the inside out (see `docs/architecture.md`):
//! - [`model`]: the conversation vocabulary (messages, tool calls, usage).
//! - [`provider`]: talks to the model over HTTP; knows nothing of tools or editors.
//! - [`tools`]: what the agent can do to the workspace; knows nothing of models or editors.
//! - [`agent`]: sessions, turns, approvals, transcripts; knows nothing of JSON-RPC or editors.
//! - faces: [`lsp`] (JSON-RPC over stdio), [`acp`] (Agent Client Protocol), [`chat`] (terminal), [`tool_cli`] (`tandem tool`),
//!   translating between the outside world and the agent core. Their wire types live in [`protocol`].

pub mod acp;
pub mod agent;
pub mod chat;
pub mod config;
pub mod lsp;
pub mod model;
pub mod protocol;
#[cfg(test)]
mod protocol_ts;
pub mod provider;
pub mod tool_cli;
pub mod tools;
