//! A session's mode: `default` (every tool, edits and commands asked as the policy says) or
//! `plan` (read-only: the model explores and agrees on an approach before anything changes).

/// What a session lets the model do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    #[default]
    Default,
    /// Read-only: only reading, listing, searching, fetching and the plan are offered, and a call
    /// to anything else is refused without asking.
    Plan,
}

/// The tools plan mode offers: none of them changes the workspace or runs anything.
const PLAN_MODE_TOOLS: [&str; 5] = [
    "read_file",
    "list_files",
    "search_files",
    "fetch_url",
    crate::plan::TOOL_NAME,
];

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

    /// Whether the model may call `tool` (a built-in's name, or an MCP tool's `SERVER__TOOL`).
    pub fn allows(self, tool: &str) -> bool {
        match self {
            Mode::Default => true,
            Mode::Plan => PLAN_MODE_TOOLS.contains(&tool),
        }
    }

    /// What the model is told when it calls a tool the mode does not offer.
    pub fn refusal(self, tool: &str) -> String {
        format!(
            "Refused: the session is in {} mode, which is read-only; `{tool}` is not available. \
             Only {} can be used. Explore, then propose your plan (update_plan) and let the user \
             switch to default mode to carry it out.",
            self.id(),
            PLAN_MODE_TOOLS.join(", ")
        )
    }

    /// The note on a user message sent in this mode, so the model knows before it tries.
    pub fn note(self) -> Option<&'static str> {
        match self {
            Mode::Default => None,
            Mode::Plan => Some(
                "[Tandem] Plan mode (read-only): read, list, search and fetch to understand the \
                 task, then give a plan (update_plan) and wait for the user. Do not edit files \
                 or run commands: those tools are not offered.",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_mode_offers_only_reading_tools() {
        for tool in [
            "read_file",
            "list_files",
            "search_files",
            "fetch_url",
            "update_plan",
        ] {
            assert!(Mode::Plan.allows(tool), "{tool}");
        }
        for tool in [
            "write_to_file",
            "replace_in_file",
            "execute_command",
            "fs__write_file",
            "read_file_and_write",
            "",
        ] {
            assert!(!Mode::Plan.allows(tool), "{tool}");
            assert!(Mode::Default.allows(tool) || tool.is_empty());
        }
        assert!(Mode::Plan.refusal("execute_command").contains("read-only"));
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
