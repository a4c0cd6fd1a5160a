//! A tool is defined in one place: a dummy tool registered with the agent (and nowhere else) is
//! offered or refused by plan mode as its effect says, described in the compact prompt of a small
//! window, listed in the mode descriptions every face shows, shown with its own kind and title,
//! and run.

use crate::support::*;
use mock_model::{Reply, Scenario};
use serde_json::{Value, json};
use tandem_agent::events::{Event, StopReason, ToolStatus};
use tandem_agent::mode::Mode;
use tandem_tools::registry::{PrepareFuture, object_schema, string};
use tandem_tools::{
    Effect, ExecuteCommand, Prepared, ReadFile, Runs, ToolContext, ToolKind, ToolSpec, ToolTarget,
};

/// Counts the lines of a workspace file: read-only or not as the test says.
struct CountLines(Effect);

const NAME: &str = "count_lines";

impl ToolSpec for CountLines {
    fn name(&self) -> &'static str {
        NAME
    }
    fn description(&self) -> String {
        "Count the lines of a file of the workspace. The count is exact.".into()
    }
    fn compact_description(&self) -> String {
        "Count a file's lines.".into()
    }
    fn parameters(&self) -> Value {
        object_schema(json!({"path": string("The file.")}), &["path"])
    }
    fn effect(&self) -> Effect {
        self.0
    }
    fn runs(&self) -> Runs {
        Runs::Workspace
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn title(&self, args: &Value) -> Option<String> {
        Some(format!("Count {}", args.get("path")?.as_str()?))
    }
    fn target(&self, args: &Value) -> Option<ToolTarget> {
        Some(ToolTarget {
            path: args.get("path")?.as_str()?.to_string(),
            line: None,
        })
    }
    fn prepare<'a>(&'a self, ctx: &'a ToolContext<'a>, arguments: &'a str) -> PrepareFuture<'a> {
        Box::pin(async move {
            let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
            let path = args.get("path").and_then(Value::as_str).unwrap_or("");
            // Through the workspace's own checks, as every tool.
            let text = tandem_tools::read_text(ctx.workspace, path)?;
            Ok(Prepared::Done(format!("{} lines", text.lines().count())))
        })
    }
}

/// A turn in plan mode in a small window (the compact prompt and tool definitions), the agent's
/// tools with `count_lines` added, the model answering `replies`.
async fn plan_turn(effect: Effect, replies: Vec<Reply>) -> (Harness, Turn) {
    let h = Harness::with(
        Scenario::new(replies),
        Setup {
            window: Some(8192),
            tools: tandem_agent::builtin_tools().with(CountLines(effect)),
            ..Setup::default()
        },
    );
    h.write("a.txt", "one\ntwo\nthree\n");
    h.agent.set_mode(&h.session, Mode::Plan).unwrap();
    let turn = h.turn("How long is a.txt?", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    (h, turn)
}

/// The tools a request offered, by name, and their descriptions.
fn offered(body: &Value) -> Vec<(String, String)> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["function"]["name"].as_str().unwrap_or("").to_string(),
                t["function"]["description"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_read_only_tool_registered_once_is_offered_in_plan_mode_described_listed_and_run() {
    let (h, turn) = plan_turn(
        Effect::ReadOnly,
        vec![
            Reply::tool(NAME, json!({"path": "a.txt"})),
            Reply::text("Three.").expect_tool_result_contains("3 lines"),
        ],
    )
    .await;

    // Plan mode offers it (and no tool that changes the workspace), compact in a small window.
    let requests = h.requests();
    let tools = offered(&requests[0].body);
    assert!(
        tools.contains(&(NAME.to_string(), "Count a file's lines.".to_string())),
        "{tools:?}"
    );
    assert!(!tools.iter().any(|(n, _)| n == ExecuteCommand::NAME));
    assert!(tools.iter().any(|(n, _)| n == ReadFile::NAME));
    // What every face shows of it: the call with its own kind, title and file, its result.
    let call = turn
        .events
        .iter()
        .find_map(|e| match e {
            Event::ToolCall(c) => Some(c.clone()),
            _ => None,
        })
        .expect("the call is shown");
    assert_eq!(
        (call.kind, call.title.as_str()),
        (ToolKind::Read, "Count a.txt")
    );
    assert!(call.location.unwrap().path.ends_with("a.txt"));
    assert_eq!(turn.results(), [(ToolStatus::Ok, "3 lines".to_string())]);
    // The modes as the faces list them (ACP's session modes, `tandem.setMode`, `/plan`).
    assert!(h.agent.mode_description(Mode::Plan).contains(NAME));
    assert!(h.agent.mode_description(Mode::Default).contains(NAME));
    assert!(h.agent.tools().read_only_names().contains(&NAME));
}

#[tokio::test]
async fn a_tool_that_changes_the_workspace_is_withheld_and_refused_in_plan_mode() {
    let (h, turn) = plan_turn(
        Effect::ChangesWorkspace,
        vec![
            Reply::tool(NAME, json!({"path": "a.txt"})),
            Reply::text("I may not.").expect_tool_result_contains("read-only"),
            Reply::tool(NAME, json!({"path": "a.txt"})),
            Reply::text("Three.").expect_tool_result_contains("3 lines"),
        ],
    )
    .await;
    let (status, refusal) = &turn.results()[0];
    assert_eq!(*status, ToolStatus::Rejected, "{turn}");
    // The refusal names what plan mode does offer, which this tool is not.
    assert!(refusal.contains(ReadFile::NAME), "{refusal}");
    assert!(!refusal.contains(&format!("{NAME},")), "{refusal}");
    assert!(!h.agent.mode_description(Mode::Plan).contains(NAME));
    assert!(h.agent.mode_description(Mode::Default).contains(NAME));

    // In the default mode the same registration is offered and runs.
    h.agent.set_mode(&h.session, Mode::Default).unwrap();
    let turn = h.turn("And now?", Vec::new()).await;
    assert_eq!(turn.results(), [(ToolStatus::Ok, "3 lines".to_string())]);
    let requests = h.requests();
    assert!(!offered(&requests[0].body).iter().any(|(n, _)| n == NAME));
    assert!(offered(&requests[2].body).iter().any(|(n, _)| n == NAME));
}
