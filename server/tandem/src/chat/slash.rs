//! Slash commands: handled by the chat itself, never sent to the model.

/// A command the user typed at `you>`.
#[derive(Debug, PartialEq, Eq)]
pub enum Slash {
    Help,
    /// Show the model, or switch to this one.
    Model(Option<String>),
    Models,
    New,
    Sessions,
    /// Reopen a session: by id, or this workspace's latest when empty.
    Resume(String),
    /// Revert the last turn that changed files, or everything since this turn.
    Undo(Option<String>),
    /// A turn's changes as a diff: the last turn that changed files, or this one.
    Diff(Option<String>),
    /// Edit an earlier prompt (the last, or this turn's) and send it again in a fork of the
    /// session from before that turn.
    Rewind(Option<String>),
    /// Compact the conversation now.
    Compact,
    Rules,
    /// The MCP servers, their state and tools.
    Mcp,
    /// The user's hooks.
    Hooks,
    /// Switch the session's mode: `/plan` read-only, `/act` back to editing.
    Mode(tandem_agent::mode::Mode),
    Exit,
    /// A slash word the chat does not know: said so, not sent.
    Unknown(String),
}

/// The commands, for `/help` (and completion): name, arguments, what it does.
pub const COMMANDS: [(&str, &str, &str); 16] = [
    ("/help", "", "this list"),
    ("/model", "[NAME]", "show the model, or switch to NAME"),
    ("/models", "", "the models the server offers"),
    ("/new", "", "start a new session"),
    ("/sessions", "", "this workspace's saved sessions"),
    (
        "/resume",
        "[ID]",
        "reopen a session (the latest without ID)",
    ),
    (
        "/undo",
        "[TURN]",
        "revert the last turn's edits (or everything since TURN)",
    ),
    (
        "/diff",
        "[TURN]",
        "the last turn's changes, edits and commands (or TURN's)",
    ),
    (
        "/rewind",
        "[TURN]",
        "edit the last prompt (or TURN's) and resend it, in a new session from before it",
    ),
    (
        "/compact",
        "",
        "shrink the conversation now: old tool outputs, earlier turns summarized",
    ),
    ("/rules", "", "the rules files the model was given"),
    ("/mcp", "", "the MCP servers, their state and tools"),
    (
        "/hooks",
        "",
        "your hooks: event, matcher, command, sandboxed or not",
    ),
    (
        "/plan",
        "",
        "read-only: the model explores and plans, changes nothing",
    ),
    ("/act", "", "let the model edit and run commands again"),
    ("/exit", "", "quit (also /quit, Ctrl-D)"),
];

/// What a line is: a command (`Some`), or a prompt (`None`). A first word with a second slash
/// (`/etc/hosts: what is this?`) is a prompt; `//text` sends `/text` to the model.
pub fn parse(line: &str) -> Option<Slash> {
    let line = line.trim();
    let rest = line.strip_prefix('/')?;
    let (word, arg) = match rest.split_once(char::is_whitespace) {
        Some((word, arg)) => (word, arg.trim()),
        None => (rest, ""),
    };
    if word.is_empty() || word.contains('/') {
        return None;
    }
    let arg_opt = || Some(arg.to_string()).filter(|a| !a.is_empty());
    Some(match word {
        "help" | "?" => Slash::Help,
        "model" => Slash::Model(arg_opt()),
        "models" => Slash::Models,
        "new" => Slash::New,
        "sessions" => Slash::Sessions,
        "resume" => Slash::Resume(arg.to_string()),
        "undo" => Slash::Undo(arg_opt()),
        "diff" => Slash::Diff(arg_opt()),
        "rewind" => Slash::Rewind(arg_opt()),
        "compact" => Slash::Compact,
        "rules" => Slash::Rules,
        "mcp" => Slash::Mcp,
        "hooks" => Slash::Hooks,
        "plan" => Slash::Mode(tandem_agent::mode::Mode::Plan),
        "act" => Slash::Mode(tandem_agent::mode::Mode::Default),
        "exit" | "quit" => Slash::Exit,
        _ => Slash::Unknown(word.to_string()),
    })
}

/// A prompt as the model gets it: `//text` is `/text` typed on purpose.
pub fn prompt_text(line: &str) -> &str {
    let line = line.trim();
    line.strip_prefix("//").map_or(line, |_| &line[1..])
}

/// `/help`.
pub fn help() -> String {
    let width = COMMANDS
        .iter()
        .map(|(name, args, _)| name.len() + args.len() + 1)
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for (name, args, what) in COMMANDS {
        let usage = format!("{name} {args}");
        text.push_str(&format!("  {usage:width$}  {what}\n"));
    }
    text.push_str(
        "Anything else goes to the model (start with // to send a line that begins with /). \
         Ctrl-C stops a turn.\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_prompts_are_told_apart() {
        assert_eq!(parse("/help"), Some(Slash::Help));
        assert_eq!(
            parse("  /model  qwen3 "),
            Some(Slash::Model(Some("qwen3".into())))
        );
        assert_eq!(parse("/model"), Some(Slash::Model(None)));
        assert_eq!(parse("/resume"), Some(Slash::Resume(String::new())));
        assert_eq!(parse("/undo t3"), Some(Slash::Undo(Some("t3".into()))));
        assert_eq!(parse("/diff"), Some(Slash::Diff(None)));
        assert_eq!(parse("/diff 2"), Some(Slash::Diff(Some("2".into()))));
        assert_eq!(parse("/rewind"), Some(Slash::Rewind(None)));
        assert_eq!(parse("/rewind 2"), Some(Slash::Rewind(Some("2".into()))));
        assert_eq!(parse("/quit"), Some(Slash::Exit));
        assert_eq!(parse("/compact"), Some(Slash::Compact));
        assert_eq!(parse("/mcp"), Some(Slash::Mcp));
        assert_eq!(parse("/hooks"), Some(Slash::Hooks));
        assert_eq!(
            parse("/frobnicate x"),
            Some(Slash::Unknown("frobnicate".into()))
        );
        assert_eq!(parse("/etc/hosts: what is it?"), None);
        assert_eq!(parse("//help me"), None);
        assert_eq!(parse("fix /src"), None);
        assert_eq!(prompt_text("//help me"), "/help me");
        assert_eq!(prompt_text(" plain "), "plain");
    }

    #[test]
    fn help_lists_every_command() {
        let help = help();
        for (name, _, _) in COMMANDS {
            assert!(help.contains(name), "{name} missing:\n{help}");
        }
    }
}
