//! `tandem.editSelection` (`workspace/executeCommand`, and the "Tandem: Edit selection…" code
//! action) for plain clients: an instruction for the selected lines becomes a turn with the
//! selection as context; the edit comes back as the usual question, then `workspace/applyEdit`.
//! LSP has no text input, so without an instruction in the arguments the user picks one of the
//! common ones with `window/showMessageRequest`; an editor that can prompt (Neovim's
//! `vim.ui.input`, Emacs' `read-string`) passes its own.

use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::lsp_types::{LSPAny, MessageActionItem, MessageType};

use super::plain_location::Location;

use super::{Backend, agent_error, invalid_params};

pub const EDIT_SELECTION: &str = "tandem.editSelection";

/// What a plain client is offered when it sent no instruction of its own.
pub const CHOICES: [&str; 4] = [
    "Simplify it",
    "Fix the problems in it",
    "Add error handling",
    "Add comments",
];

impl Backend {
    /// `[{"uri", "range"}, instruction?]`.
    pub(super) async fn plain_edit_selection(
        &self,
        arguments: Vec<Value>,
    ) -> Result<Option<LSPAny>> {
        let usage = || {
            invalid_params(
                "tandem.editSelection takes [{\"uri\", \"range\"}, instruction?]".to_string(),
            )
        };
        let location: Location =
            serde_json::from_value(arguments.first().cloned().ok_or_else(usage)?)
                .map_err(|e| invalid_params(format!("bad location: {e}")))?;
        let given = arguments
            .get(1)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        let instruction = match given {
            Some(text) => text,
            None => match self.pick_instruction().await {
                Some(text) => text,
                // Dismissed: nothing runs.
                None => return Ok(None),
            },
        };
        let context = vec![self.context_item(location)?];
        let ready = self.ready()?;
        let session_id = self.current_session()?;
        let text = tandem_agent::prompt::edit_selection(&instruction);
        let turn_id = ready
            .agent
            .prompt(&session_id, text, context, ready.frontend.clone())
            .map_err(agent_error)?;
        Ok(Some(json!({"sessionId": session_id, "turnId": turn_id})))
    }

    async fn pick_instruction(&self) -> Option<String> {
        let actions = CHOICES
            .map(|title| MessageActionItem {
                title: title.to_string(),
                properties: Default::default(),
            })
            .to_vec();
        let message = "Tandem: how should the selection change? (Your editor can pass its own \
                       words: tandem.editSelection [location, instruction].)";
        match self
            .client
            .show_message_request(MessageType::INFO, message, Some(actions))
            .await
        {
            Ok(Some(item)) => Some(item.title),
            _ => None,
        }
    }
}
