//! A session's mode: `default` (every tool, edits and commands asked as the policy says) or
//! `plan` (read-only: the model explores and agrees on an approach before anything changes).
//! Which tools plan mode offers is each tool's own say ([`tandem_tools::Effect`]), asked of the
//! registry: no tool is named here.

use tandem_tools::Registry;

use crate::plan::UpdatePlan;

/// What a session lets the model do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    #[default]
    Default,
    /// Read-only: only the tools that change nothing (reading, listing, searching, fetching,
    /// the plan) are offered, and a call to anything else is refused without asking.
    Plan,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Default, Mode::Plan];

    /// The id faces and transcripts use.
    pub fn id(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::Plan => "plan",
        }
    }

    pub fn from_id(id: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.id() == id)
    }

    /// A name to show.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Default => "Default",
            Mode::Plan => "Plan (read-only)",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Mode::Default => "Reads, edits and runs commands; edits and commands ask first.",
            Mode::Plan => "Read-only: explores and plans; no edits, no commands, no MCP tools.",
        }
    }

    /// [`Mode::description`] with the tools the mode offers, by name (MCP servers' tools
    /// besides in the default mode).
    pub fn describe(self, tools: &Registry) -> String {
        let offered: Vec<&str> = tools
            .names()
            .into_iter()
            .filter(|name| self.allows(tools, name))
            .collect();
        let more = match self {
            Mode::Default => " and the MCP servers' tools",
            Mode::Plan => "",
        };
        format!(
            "{} Tools: {}{more}.",
            self.description(),
            offered.join(", ")
        )
    }

    /// Whether the model may call `tool` (a built-in's name, or an MCP tool's `SERVER__TOOL`):
    /// in plan mode only a tool of `tools` that changes nothing.
    pub fn allows(self, tools: &Registry, tool: &str) -> bool {
        match self {
            Mode::Default => true,
            Mode::Plan => tools
                .get(tool)
                .is_some_and(|t| t.effect() == tandem_tools::Effect::ReadOnly),
        }
    }

    /// What the model is told when it calls a tool the mode does not offer.
    pub fn refusal(self, tools: &Registry, tool: &str) -> String {
        format!(
            "Refused: the session is in {} mode, which is read-only; `{tool}` is not available. \
             Only {} can be used. Explore, then propose your plan ({}) and let the user switch \
             to default mode to carry it out.",
            self.id(),
            tools.read_only_names().join(", "),
            UpdatePlan::NAME,
        )
    }

    /// The note on a user message sent in this mode, so the model knows before it tries.
    pub fn note(self) -> Option<String> {
        match self {
            Mode::Default => None,
            Mode::Plan => Some(format!(
                "[Tandem] Plan mode (read-only): read, list, search and fetch to understand the \
                 task, then give a plan ({}) and wait for the user. Do not edit files or run \
                 commands: those tools are not offered.",
                UpdatePlan::NAME
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_tools::{
        ExecuteCommand, FetchUrl, ListFiles, ReadFile, ReplaceInFile, SearchFiles, ToolSpec,
        WriteToFile,
    };

    #[test]
    fn plan_mode_offers_only_reading_tools() {
        let tools = crate::builtin_tools();
        for tool in [
            ReadFile.name(),
            ListFiles.name(),
            SearchFiles.name(),
            FetchUrl.name(),
            UpdatePlan.name(),
        ] {
            assert!(Mode::Plan.allows(&tools, tool), "{tool}");
        }
        for tool in [
            WriteToFile.name(),
            ReplaceInFile.name(),
            ExecuteCommand.name(),
            "fs__write_file",
            "fs__read_file",
            "read_file_and_write",
            "",
        ] {
            assert!(!Mode::Plan.allows(&tools, tool), "{tool}");
            assert!(Mode::Default.allows(&tools, tool));
        }
        let refusal = Mode::Plan.refusal(&tools, ExecuteCommand::NAME);
        assert!(refusal.contains("read-only"), "{refusal}");
        assert!(refusal.contains(ReadFile::NAME) && !refusal.contains(WriteToFile::NAME));
        let described = Mode::Plan.describe(&tools);
        assert!(described.contains(FetchUrl::NAME), "{described}");
        assert!(!described.contains(ExecuteCommand::NAME), "{described}");
        assert!(
            Mode::Default
                .describe(&tools)
                .contains(ExecuteCommand::NAME)
        );
    }

    #[test]
    fn ids_round_trip() {
        for mode in Mode::ALL {
            assert_eq!(Mode::from_id(mode.id()), Some(mode));
        }
        assert_eq!(Mode::from_id("Plan"), None);
        assert_eq!(Mode::from_id("act"), None);
    }
}
