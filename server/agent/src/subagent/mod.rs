//! Subagents: the `task` tool runs a child agent on a self-contained job in a fresh context (its
//! own system prompt, the definition's prompt and the job; nothing of the parent's conversation)
//! and gives its final answer back as the call's result.
//!
//! What it lets the model do: start a child with the same model, approvals, sandbox and rules as
//! the parent, whose tools are the read-only ones (or what its definition grants, each call still
//! approved as the parent's would be). A child can't start children of its own (`task` is never
//! granted), runs at most its step cap, and at most [`SubagentSettings::concurrency`] run at once
//! per agent; a cancel of the turn cancels them all.

pub mod definitions;
mod tool;

use std::path::PathBuf;

pub use definitions::{Definition, Definitions, Source, discover};
pub use tool::{Task, TaskArgs};

use tandem_model::ToolCallId;
use tandem_tools::{Effect, Registry, Runs};

/// The longest answer a child gives back (characters); the rest is cut, and the parent is told.
pub const MAX_ANSWER_CHARS: usize = 16 * 1024;
/// A child's step cap when its definition names none.
pub const DEFAULT_MAX_STEPS: u32 = 20;

/// How subagents run, fixed at start.
#[derive(Clone, Debug)]
pub struct SubagentSettings {
    /// The most children running at once in this process; the others wait their turn.
    pub concurrency: usize,
    /// The user's definition folders, in order (see [`definitions::default_user_dirs`]).
    pub user_dirs: Vec<PathBuf>,
}

impl Default for SubagentSettings {
    fn default() -> Self {
        Self {
            concurrency: 3,
            user_dirs: Vec::new(),
        }
    }
}

/// What a child turn has of its own: the call that started it, its tools and its step cap (its
/// conversation is the `task` call's local).
pub(crate) struct ChildScope {
    /// The parent's `task` call.
    pub parent: ToolCallId,
    /// The definition's name.
    pub agent: String,
    /// The tools it may call, by name.
    pub granted: Vec<String>,
    pub max_steps: u32,
    /// The client of the model its definition names; `None`: the session's.
    pub client: Option<std::sync::Arc<dyn tandem_provider::ModelClient>>,
}

impl ChildScope {
    pub fn grants(&self, name: &str) -> bool {
        self.granted.iter().any(|g| g == name)
    }

    /// A child's call's id, under its parent's: local models number their calls from `call_0`
    /// in every conversation, so a child's own ids would collide with the parent's (and a
    /// sibling's) in approvals, the view and the transcript.
    pub fn call_id(&self, model_id: &ToolCallId) -> ToolCallId {
        ToolCallId::from(format!("{}/{model_id}", self.parent))
    }

    /// What a child is told when it calls a tool it isn't granted (nothing ran).
    pub fn refusal(&self, name: &str) -> String {
        format!(
            "not granted: {name}. The subagent {} may use only: {}.",
            self.agent,
            self.granted.join(", ")
        )
    }
}

/// The read-only tools a child gets by default: reading, listing, searching, fetching; never the
/// session's own (the plan, `task`).
pub fn read_only_tools(registry: &Registry) -> Vec<String> {
    registry
        .iter()
        .filter(|t| t.effect() == Effect::ReadOnly && t.runs() != Runs::Session)
        .map(|t| t.name().to_string())
        .collect()
}

/// The tools a definition gets: what it names that the registry has (never `task` or the plan:
/// no recursion, and the parent's plan is the parent's), or the read-only ones. MCP tools
/// (`SERVER__TOOL`) are kept by name; they are offered only if a server has them.
pub fn granted_tools(definition: &Definition, registry: &Registry) -> Vec<String> {
    match &definition.tools {
        None => read_only_tools(registry),
        Some(names) => names
            .iter()
            .filter(|n| match registry.get(n) {
                Some(tool) => tool.runs() != Runs::Session,
                None => n.contains("__"),
            })
            .cloned()
            .collect(),
    }
}

/// The child's system prompt: what it is, then its definition's own text.
pub fn system_prompt(ws: &tandem_tools::Workspace, definition: &Definition) -> String {
    let prompt = format!(
        "You are a subagent of Tandem, a coding agent, working in the folder {}. The main agent \
         gave you one self-contained job; it sees only your final answer, not your tool calls. \
         Use the tools to find what the job needs, then answer with the facts it asked for, \
         citing file paths and line numbers (path:line). Be brief. Nobody will answer questions: \
         do the job with what you can find.",
        ws.root().display()
    );
    let mut prompt = crate::prompt::with_additional_roots(prompt, ws, " ");
    let own = definition.prompt.trim();
    if !own.is_empty() {
        prompt.push_str("\n\n");
        prompt.push_str(own);
    }
    prompt
}

/// The answer as the parent reads it, cut at [`MAX_ANSWER_CHARS`] with a note saying so.
pub fn capped_answer(answer: &str) -> String {
    let total = answer.chars().count();
    if total <= MAX_ANSWER_CHARS {
        return answer.to_string();
    }
    let kept: String = answer.chars().take(MAX_ANSWER_CHARS).collect();
    format!(
        "{kept}\n\n[cut: the subagent's answer was {total} characters; the first \
         {MAX_ANSWER_CHARS} are kept]"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_answer_is_cut_and_says_so() {
        let long = "x".repeat(MAX_ANSWER_CHARS + 10);
        let cut = capped_answer(&long);
        assert!(cut.contains(&format!("was {} characters", MAX_ANSWER_CHARS + 10)));
        assert_eq!(capped_answer("short"), "short");
    }

    #[test]
    fn the_default_tools_are_read_only_and_never_the_sessions() {
        let registry = crate::builtin_tools();
        let tools = read_only_tools(&registry);
        for name in ["read_file", "list_files", "search_files", "fetch_url"] {
            assert!(tools.iter().any(|t| t == name), "{name} in {tools:?}");
        }
        for name in [
            "write_to_file",
            "replace_in_file",
            "execute_command",
            "update_plan",
            "task",
        ] {
            assert!(!tools.iter().any(|t| t == name), "{name} in {tools:?}");
        }
    }
}
