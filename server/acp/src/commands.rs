//! Commands over ACP: the built-in `/undo` and the custom ones, offered with
//! `available_commands_update`, run when a prompt starts with `/name`.

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
        let unchanged = offered.get(session_id) == Some(&commands);
        if unchanged {
            return None;
        }
        offered.insert(session_id.clone(), commands.clone());
        Some(SessionUpdate::AvailableCommandsUpdate(
            AvailableCommandsUpdate::new(commands),
        ))
    }
}

/// The commands as ACP lists them: the built-in `/undo`, then the custom ones, whose
/// descriptions say where the file is. A custom command named like the built-in is hidden by
/// it (as in the chat).
pub fn available(commands: &Commands, root: &Path) -> Vec<AvailableCommand> {
    let custom = commands
        .commands
        .iter()
        .filter(|c| c.name != super::undo::NAME)
        .map(|c| {
            let command = AvailableCommand::new(c.name.clone(), description(c, root));
            match &c.argument_hint {
                Some(hint) => command.input(AvailableCommandInput::Unstructured(
                    UnstructuredCommandInput::new(hint.clone()),
                )),
                None => command,
            }
        });
    std::iter::once(super::undo::command())
        .chain(custom)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn custom(name: &str) -> CustomCommand {
        CustomCommand {
            name: name.into(),
            description: None,
            argument_hint: None,
            source: CommandSource::Project,
            path: format!("/ws/.tandem/commands/{name}.md").into(),
            body: "text".into(),
        }
    }

    #[test]
    fn the_built_in_undo_comes_first_and_hides_a_file_of_its_name() {
        let commands = Commands {
            commands: vec![custom("review"), custom("undo")],
            problems: Vec::new(),
        };
        let listed = available(&commands, Path::new("/ws"));
        let names: Vec<&str> = listed.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["undo", "review"]);
        assert_eq!(listed[0], crate::undo::command());
        // With no files, the built-in alone.
        let names: Vec<String> = available(&Commands::default(), Path::new("/ws"))
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["undo"]);
    }
}
