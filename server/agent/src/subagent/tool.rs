//! The `task` tool as the model sees it: Claude Code's name and arguments (`description`,
//! `prompt`, `subagent_type`), so a model trained on them calls it right. The agents on offer
//! are listed in its description at each request (they depend on the workspace).

use serde::Deserialize;
use serde_json::{Value, json};
use tandem_tools::{Effect, Runs, ToolKind, ToolSpec};

/// The tool: run by the agent (it starts a child turn), read-only itself (what the child does
/// goes through its own calls' approvals).
pub struct Task;

impl Task {
    pub const NAME: &'static str = "task";

    /// The description with the agents on offer, one line each.
    pub fn described(listing: &str, compact: bool) -> String {
        let head = if compact {
            Task.compact_description()
        } else {
            Task.description()
        };
        format!("{head}\nAgents:\n{listing}")
    }
}

/// A call's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskArgs {
    /// A short (3-5 word) summary, shown to the user.
    pub description: String,
    /// The job, self-contained: the child sees nothing else.
    pub prompt: String,
    /// The definition's name; `explore` when absent.
    #[serde(default)]
    pub subagent_type: Option<String>,
}

impl TaskArgs {
    pub fn parse(arguments: &str) -> Result<Self, String> {
        let de = &mut serde_json::Deserializer::from_str(arguments);
        serde_path_to_error::deserialize(de).map_err(|e| {
            format!("the arguments are not {{\"description\", \"prompt\", \"subagent_type\"}}: {e}")
        })
    }
}

impl ToolSpec for Task {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> String {
        "Run a subagent on a self-contained job in a fresh context; you get only its answer. \
         Use it to search or read many files without filling your context. The prompt must say \
         all it needs (it sees nothing else). Several calls in one answer run at once."
            .into()
    }

    fn compact_description(&self) -> String {
        "Delegate a self-contained job to a subagent; get its answer.".into()
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short (3-5 word) description of the job."},
                "prompt": {"type": "string", "description": "The job, self-contained, and what to report."},
                "subagent_type": {"type": "string", "description": "Which agent (default: explore)."}
            },
            "required": ["description", "prompt"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }

    fn runs(&self) -> Runs {
        Runs::Session
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn title(&self, args: &Value) -> Option<String> {
        let what = args.get("description").and_then(Value::as_str)?;
        let who = (args.get("subagent_type").and_then(Value::as_str)).unwrap_or("explore");
        Some(format!("{who}: {what}"))
    }
}
