//! `read_file`: a text file of the workspace, its lines numbered.

use serde_json::{Value, json};

use crate::registry::{Effect, PrepareFuture, Runs, ToolSpec, integer, object_schema, string};
use crate::{Prepared, ToolContext, ToolKind, ToolTarget, args, read};

pub struct ReadFile;

impl ReadFile {
    pub const NAME: &'static str = "read_file";
}

impl ToolSpec for ReadFile {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> String {
        "Read a text file of the workspace. Each line comes as `N | text` (N is the line number, \
         not part of the file). At most 2,000 lines are shown per call (by default the first \
         ones); the output says when it stopped and which offset reads on. Binary files and \
         files over 10 MiB are refused."
            .into()
    }

    fn compact_description(&self) -> String {
        "Read a text file (lines as `N | text`, 2000 a call).".into()
    }

    fn parameters(&self) -> Value {
        object_schema(
            json!({
                "path": string("File path, relative to the workspace root."),
                "offset": integer("First line to show, 1-based (default 1)."),
                "limit": integer("How many lines to show (default 2000)."),
            }),
            &["path"],
        )
    }

    /// Shown in the text tool mode: the shape of every call.
    fn example(&self) -> Option<Value> {
        Some(json!({"path": "src/main.rs"}))
    }

    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }

    fn runs(&self) -> Runs {
        Runs::Workspace
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn title(&self, args: &Value) -> Option<String> {
        let path = super::field(args, "path", 60)?;
        Some(match args.get("offset").and_then(Value::as_u64) {
            Some(offset) if offset > 1 => format!("Read {path} from line {offset}"),
            _ => format!("Read {path}"),
        })
    }

    fn target(&self, args: &Value) -> Option<ToolTarget> {
        Some(ToolTarget {
            path: super::path(args)?,
            line: args
                .get("offset")
                .and_then(Value::as_u64)
                .and_then(|l| u32::try_from(l).ok()),
        })
    }

    fn works_on_one_file(&self) -> bool {
        true
    }

    fn prepare<'a>(&'a self, ctx: &'a ToolContext<'a>, arguments: &'a str) -> PrepareFuture<'a> {
        Box::pin(async move {
            read::read_file(ctx, args::parse(Self::NAME, arguments)?).map(Prepared::Done)
        })
    }
}
