//! Custom commands over ACP: offered with `available_commands_update`, run when a prompt starts
//! with `/name`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, SessionUpdate,
    UnstructuredCommandInput,
};

use tandem_agent::commands::{CommandSource, Commands, CustomCommand};
use tandem_agent::{Agent, SessionId};
use tandem_stdx::lock;

/// What each session was last offered, so an unchanged list is not sent again.
#[derive(Default)]
pub struct Offered(Mutex<HashMap<SessionId, Vec<AvailableCommand>>>);

impl Offered {
    /// The session's commands as an update, read now; `None` when the client already has this
    /// list.
    pub fn update(&self, agent: &Agent, session_id: &SessionId) -> Option<SessionUpdate> {
        let root = agent.session_root(session_id).ok()?;
        let commands = available(&agent.commands(session_id).ok()?, &root);
        let mut offered = lock(&self.0);
        // Nothing sent yet stands for an empty list: a session without commands gets no update.
        let unchanged = offered
            .get(session_id)
            .map_or(commands.is_empty(), |last| *last == commands);
        if unchanged {
            return None;
        }
        offered.insert(session_id.clone(), commands.clone());
        Some(SessionUpdate::AvailableCommandsUpdate(
            AvailableCommandsUpdate::new(commands),
        ))
    }
}

/// The commands as ACP lists them: the description says where the file is.
pub fn available(commands: &Commands, root: &Path) -> Vec<AvailableCommand> {
    commands
        .commands
        .iter()
        .map(|c| {
            let command = AvailableCommand::new(c.name.clone(), description(c, root));
            match &c.argument_hint {
                Some(hint) => command.input(AvailableCommandInput::Unstructured(
                    UnstructuredCommandInput::new(hint.clone()),
                )),
                None => command,
            }
        })
        .collect()
}

/// The file's description, then where the command comes from (a project's is the
/// repository's text, and the user should know which they run).
fn description(command: &CustomCommand, root: &Path) -> String {
    let path = command.path.strip_prefix(root).unwrap_or(&command.path);
    let origin = match command.source {
        CommandSource::Project => format!("project command, {}", path.display()),
        CommandSource::User => format!("your command, {}", path.display()),
    };
    match &command.description {
        Some(d) if !d.trim().is_empty() => format!("{} ({origin})", d.trim()),
        _ => origin,
    }
}
