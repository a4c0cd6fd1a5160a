//! Custom commands (`tandem_agent::commands`) over LSP: `tandem/listCommands` and
//! `tandem/runCommand` for the tandem protocol, `tandem.listCommands` and `tandem.runCommand`
//! (`workspace/executeCommand`) for plain clients.

use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::lsp_types::LSPAny;

use super::{Backend, agent_error, invalid_params};
use crate::convert::{IntoCore, IntoWire};
use tandem_agent::SessionId;
use tandem_protocol::{ListCommandsParams, ListCommandsResult, PromptResult, RunCommandParams};

/// `tandem.runCommand`: `[name, arguments?]`.
pub const RUN: &str = "tandem.runCommand";
/// `tandem.listCommands`: the current session's commands.
pub const LIST: &str = "tandem.listCommands";
/// What plain clients may call, besides `plain::COMMANDS`.
pub const PLAIN_COMMANDS: [&str; 2] = [RUN, LIST];

impl Backend {
    /// `tandem/listCommands`: a session's, or those a session on `root` would offer.
    pub(super) async fn list_commands(
        &self,
        params: ListCommandsParams,
    ) -> Result<ListCommandsResult> {
        let agent = &self.ready()?.agent;
        let commands = match (params.session_id, params.root) {
            (Some(session), _) => agent.commands(&session.into_core()),
            (None, Some(root)) => agent.commands_at(&super::to_path(&root)?),
            (None, None) => {
                return Err(invalid_params(
                    "tandem/listCommands takes {\"sessionId\"} or {\"root\"}".into(),
                ));
            }
        };
        Ok(commands.map_err(agent_error)?.into_wire())
    }

    /// `tandem/runCommand`: the command's text is the prompt.
    pub(super) async fn run_custom_command(
        &self,
        params: RunCommandParams,
    ) -> Result<PromptResult> {
        let ready = self.ready()?;
        let session_id = params.session_id.into_core();
        let text = self.expand(&session_id, &params.name, params.arguments.as_deref())?;
        let context = params.context.unwrap_or_default();
        let turn_id = ready
            .agent
            .prompt(
                &session_id,
                text,
                context.into_iter().map(IntoCore::into_core).collect(),
                ready.frontend.clone(),
            )
            .map_err(agent_error)?;
        Ok(PromptResult {
            turn_id: turn_id.into_wire(),
        })
    }

    /// `tandem.runCommand` and `tandem.listCommands` from a plain client, in its session.
    pub(super) async fn plain_custom_command(
        &self,
        command: &str,
        arguments: Vec<Value>,
    ) -> Result<Option<LSPAny>> {
        let session_id = self.current_session()?;
        if command == LIST {
            let list: ListCommandsResult = self
                .ready()?
                .agent
                .commands(&session_id)
                .map_err(agent_error)?
                .into_wire();
            return Ok(Some(json!(list)));
        }
        let usage = || invalid_params("tandem.runCommand takes [name, arguments?]".into());
        let name = arguments
            .first()
            .and_then(Value::as_str)
            .ok_or_else(usage)?;
        let args = match arguments.get(1) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => return Err(usage()),
        };
        let text = self.expand(&session_id, name.trim_start_matches('/'), args)?;
        let ready = self.ready()?;
        let turn_id = ready
            .agent
            .prompt(&session_id, text, Vec::new(), ready.frontend.clone())
            .map_err(agent_error)?;
        Ok(Some(json!({"sessionId": session_id, "turnId": turn_id})))
    }

    /// The prompt command `name` sends with `arguments`; an unknown name says which there are.
    fn expand(
        &self,
        session_id: &SessionId,
        name: &str,
        arguments: Option<&str>,
    ) -> Result<String> {
        let agent = &self.ready()?.agent;
        match agent.command(session_id, name).map_err(agent_error)? {
            Some(command) => Ok(command.expand(arguments.unwrap_or_default())),
            None => {
                let names: Vec<String> = agent
                    .commands(session_id)
                    .map_err(agent_error)?
                    .commands
                    .into_iter()
                    .map(|c| format!("/{}", c.name))
                    .collect();
                let known = if names.is_empty() {
                    "this workspace has none (add Markdown files to .tandem/commands/)".to_string()
                } else {
                    format!("there are {}", names.join(", "))
                };
                Err(invalid_params(format!(
                    "no custom command /{name}: {known}"
                )))
            }
        }
    }
}
