//! `execute_command`: a shell command in the workspace, inside the sandbox's walls, once the
//! user approves (or the allow-list lets it run).

use serde_json::{Value, json};

use crate::registry::{Cut, Effect, PrepareFuture, Runs, ToolSpec, boolean, object_schema, string};
use crate::{Prepared, ToolContext, ToolKind, args, command};

pub struct ExecuteCommand;

impl ExecuteCommand {
    pub const NAME: &'static str = "execute_command";
}

impl ToolSpec for ExecuteCommand {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> String {
        "Run a shell command in the workspace (with the user's shell, `sh -c` style), after the \
         user approves it. stdin is closed, so interactive commands fail: pass flags that avoid \
         prompts. stdout and stderr come back together; of a long output the first and last 100 \
         lines are kept. The command is killed, with everything it started, after timeoutSeconds \
         (default 120). Commands run in a sandbox: they can write only inside the workspace and \
         the temp dirs, and have no network. If a command needs more (a download, a write \
         elsewhere), set outsideSandbox: the user is then always asked."
            .into()
    }

    fn compact_description(&self) -> String {
        "Run a shell command (sandboxed: no network, unless outsideSandbox).".into()
    }

    fn parameters(&self) -> Value {
        object_schema(
            json!({
                "command": string("The command line, e.g. `cargo test -p core`."),
                "cwd": string("Working directory, relative to the workspace root (default: the root)."),
                "timeoutSeconds": {"type": "number", "description": "Seconds before the command is killed (default 120)."},
                "outsideSandbox": boolean("Run without the sandbox (network, writes outside the workspace); always asks the user. Default false."),
            }),
            &["command"],
        )
    }

    fn effect(&self) -> Effect {
        Effect::ChangesWorkspace
    }

    fn runs(&self) -> Runs {
        Runs::Workspace
    }

    /// The end of an output holds the errors and the summary.
    fn cut(&self) -> Cut {
        Cut::HeadAndTail
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    fn title(&self, args: &Value) -> Option<String> {
        super::field(args, "command", 60).map(|c| format!("Run {c}"))
    }

    fn prepare<'a>(&'a self, ctx: &'a ToolContext<'a>, arguments: &'a str) -> PrepareFuture<'a> {
        Box::pin(async move {
            command::prepare(ctx.workspace, args::parse(Self::NAME, arguments)?)
                .map(Prepared::Command)
        })
    }
}
