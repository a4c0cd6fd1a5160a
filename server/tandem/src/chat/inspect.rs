//! What `/compact` did and what `/mcp` finds, as the chat prints them.

use std::path::Path;

use tandem_agent::context::group;
use tandem_agent::{CompactOutcome, McpServerState, McpServerView};

use crate::display::inert;

/// `/compact`'s answer, with the numbers.
pub fn compacted(o: &CompactOutcome) -> String {
    let window = o
        .context_window
        .map(|w| format!(" of the {}-token window", group(w)))
        .unwrap_or_default();
    if o.elided + o.summarized == 0 {
        return format!(
            "Nothing to compact: the conversation is the system prompt and the latest exchange \
             (~{} tokens{window}).\n",
            group(o.tokens_after)
        );
    }
    format!(
        "Compacted: {} tool output{} elided, {} message{} summarized; ~{} → ~{} tokens{window}.\n",
        o.elided,
        if o.elided == 1 { "" } else { "s" },
        o.summarized,
        if o.summarized == 1 { "" } else { "s" },
        group(o.tokens_before),
        group(o.tokens_after),
    )
}

/// `/hooks`'s answer: each hook on a line; how to add one when there is none.
pub fn hooks_list(
    hooks: &[tandem_agent::hooks::HookListing],
    config_file: Option<&Path>,
) -> String {
    if hooks.is_empty() {
        let file = config_file.map_or("the config file".to_string(), |p| p.display().to_string());
        return format!(
            "No hooks. Add one in {} (see docs/hooks.md):\n  [[hooks.PostToolUse]]\n  matcher \
             = \"Edit|Write\"\n  hooks = [{{ type = \"command\", command = \"~/bin/format.sh\" }}]\n",
            inert(&file, true)
        );
    }
    let mut text = String::new();
    for hook in hooks {
        text.push_str(&inert(&hook.line(), true));
        text.push('\n');
    }
    text
}

/// `/mcp`'s answer: each server, its state and its tools; how to add one when there is none.
pub fn mcp_list(servers: &[McpServerView], config_file: Option<&Path>) -> String {
    if servers.is_empty() {
        let file = config_file.map_or("the config file".to_string(), |p| p.display().to_string());
        return format!(
            "No MCP servers. Add one in {} (or .tandem/config.toml in the project):\n  \
             [[mcp.servers]]\n  name = \"files\"\n  command = \"npx\"\n  args = [\"-y\", \
             \"@modelcontextprotocol/server-filesystem\", \".\"]\n",
            inert(&file, true)
        );
    }
    let mut text = String::new();
    for server in servers {
        let state = match &server.state {
            McpServerState::Running { pid: Some(pid) } => format!("running (pid {pid})"),
            McpServerState::Running { pid: None } => "running".to_string(),
            McpServerState::NotStarted => "not started: starts at the next turn".to_string(),
            McpServerState::Down(why) => format!("down: {}", inert(why, true)),
            McpServerState::ShutDown => "shut down".to_string(),
            McpServerState::AwaitingTrust { file } => format!(
                "named by {}: you are asked at the next turn whether to start it",
                inert(&file.display().to_string(), true)
            ),
        };
        text.push_str(&format!(
            "{} ({}): {state}\n",
            inert(&server.name, true),
            inert(&server.target, true)
        ));
        if matches!(server.state, McpServerState::Running { .. }) {
            let tools = if server.tools.is_empty() {
                "no tools".to_string()
            } else {
                let names: Vec<String> = server
                    .tools
                    .iter()
                    .map(|t| inert(t, true).into_owned())
                    .collect();
                format!(
                    "{} tool{}: {}",
                    names.len(),
                    if names.len() == 1 { "" } else { "s" },
                    names.join(", ")
                )
            };
            text.push_str(&format!("  {tools}\n"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_is_told_with_its_numbers() {
        let done = CompactOutcome {
            elided: 3,
            summarized: 1,
            tokens_before: 12_400,
            tokens_after: 2_100,
            context_window: Some(32_768),
        };
        assert_eq!(
            compacted(&done),
            "Compacted: 3 tool outputs elided, 1 message summarized; ~12,400 → ~2,100 tokens of \
             the 32,768-token window.\n"
        );
        let nothing = CompactOutcome {
            elided: 0,
            summarized: 0,
            tokens_before: 900,
            tokens_after: 900,
            context_window: None,
        };
        assert!(compacted(&nothing).starts_with("Nothing to compact"));
    }

    #[test]
    fn servers_show_their_state_and_tools() {
        let servers = [
            McpServerView {
                name: "files".into(),
                target: "npx server-filesystem .".into(),
                state: McpServerState::Running { pid: Some(42) },
                tools: vec!["read_file".into(), "list\u{1b}[2J".into()],
            },
            McpServerView {
                name: "web".into(),
                target: "http://127.0.0.1:9/mcp".into(),
                state: McpServerState::Down("connection refused".into()),
                tools: Vec::new(),
            },
        ];
        let text = mcp_list(&servers, None);
        assert!(
            text.contains(
                "files (npx server-filesystem .): running (pid 42)\n  2 tools: read_file, list"
            ),
            "{text}"
        );
        assert!(
            !text.contains('\u{1b}'),
            "a server's names are shown, not obeyed: {text:?}"
        );
        assert!(
            text.contains("web (http://127.0.0.1:9/mcp): down: connection refused\n"),
            "{text}"
        );
        assert!(
            mcp_list(&[], Some(Path::new("/h/.config/tandem/config.toml")))
                .contains("[[mcp.servers]]")
        );
    }
}
