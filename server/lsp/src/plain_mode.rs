//! `tandem.setMode` (`workspace/executeCommand`) for plain clients: the current session's mode,
//! `default` or `plan` (read-only), as `tandem/setMode` sets it for the tandem protocol.

use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::lsp_types::{LSPAny, MessageType};

use super::{Backend, agent_error, invalid_params};
use tandem_agent::mode::Mode;

/// `tandem.setMode`: `["plan"]` or `["default"]`.
pub const SET_MODE: &str = "tandem.setMode";

impl Backend {
    pub(super) async fn plain_set_mode(&self, arguments: Vec<Value>) -> Result<Option<LSPAny>> {
        let ids: Vec<&str> = Mode::ALL.iter().map(|m| m.id()).collect();
        let mode = arguments
            .first()
            .and_then(Value::as_str)
            .and_then(Mode::from_id)
            .ok_or_else(|| {
                invalid_params(format!(
                    "tandem.setMode takes [mode]: one of {}",
                    ids.join(", ")
                ))
            })?;
        let session_id = self.current_session()?;
        let agent = &self.ready()?.agent;
        agent.set_mode(&session_id, mode).map_err(agent_error)?;
        let message = format!("Tandem: {}. {}", mode.name(), agent.mode_description(mode));
        self.client.show_message(MessageType::INFO, message).await;
        Ok(Some(json!({"sessionId": session_id, "mode": mode.id()})))
    }
}
