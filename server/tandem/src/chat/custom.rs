//! Custom commands in the chat: `/name args` runs a command file (`tandem_agent::commands`),
//! `/help` lists them, Tab completes them. A built-in command of the same name wins: the file's
//! command is listed as hidden.

use std::path::Path;

use rustyline::completion::Pair;
use tandem_agent::commands::{self, CommandSource, Commands};
use tandem_agent::{Agent, SessionId};

use super::slash::{self, Slash};
use crate::display::inert;

/// The prompt `/word rest` sends when `word` names a custom command; `None` when none has that
/// name (then it is an unknown command).
pub fn prompt(agent: &Agent, session: &SessionId, line: &str) -> Option<String> {
    let (name, arguments) = commands::invocation(line)?;
    let command = agent.command(session, name).ok()??;
    Some(command.expand(arguments))
}

/// A name the chat itself handles.
fn built_in(name: &str) -> bool {
    !matches!(slash::parse(&format!("/{name}")), Some(Slash::Unknown(_)))
}

/// The custom commands for `/help`: name, arguments, description, where from; those hidden by a
/// built-in, and the files that could not be used.
pub fn help(agent: &Agent, session: &SessionId, root: &Path) -> String {
    let Ok(found) = agent.commands(session) else {
        return String::new();
    };
    let mut text = String::new();
    for c in &found.commands {
        let usage = match &c.argument_hint {
            Some(hint) => format!("/{} {}", c.name, hint),
            None => format!("/{}", c.name),
        };
        let path = c
            .path
            .strip_prefix(root)
            .unwrap_or(&c.path)
            .display()
            .to_string();
        let from = match c.source {
            CommandSource::Project => format!("project, {path}"),
            CommandSource::User => format!("yours, {path}"),
        };
        let what = c.description.as_deref().unwrap_or("custom command");
        let line = if built_in(&c.name) {
            format!("(hidden by the built-in /{}: {from})", c.name)
        } else {
            format!("{what} ({from})")
        };
        text.push_str(&format!(
            "  {}  {}\n",
            inert(&usage, true),
            inert(&line, true)
        ));
    }
    for problem in &found.problems {
        text.push_str(&format!("  ! {}\n", inert(problem, true)));
    }
    if text.is_empty() {
        return text;
    }
    format!("Custom commands (their text is sent as your prompt):\n{text}")
}

/// Tab completion of `/word` from the command files under `root` and the user's folders, read
/// now (a new file completes without a restart).
pub fn complete(root: &Path, word: &str) -> Vec<Pair> {
    let Ok(ws) = tandem_tools::Workspace::new(root) else {
        return Vec::new();
    };
    let found: Commands = commands::discover(&ws, &commands::default_user_dirs());
    found
        .commands
        .into_iter()
        .map(|c| format!("/{}", c.name))
        .filter(|name| name.starts_with(word) && !built_in(&name[1..]))
        .map(|name| Pair {
            display: name.clone(),
            replacement: format!("{name} "),
        })
        .collect()
}
