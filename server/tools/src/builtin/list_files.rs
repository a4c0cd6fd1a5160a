//! `list_files`: a directory's entries, ignored and hidden files left out.

use serde_json::{Value, json};

use crate::registry::{
    Effect, PrepareFuture, Runs, ToolSpec, boolean, integer, object_schema, string,
};
use crate::{ToolContext, ToolKind, ToolTarget, args, list, on_tree};

pub struct ListFiles;

impl ListFiles {
    pub const NAME: &'static str = "list_files";
}

impl ToolSpec for ListFiles {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> String {
        "List files and directories (directories end in `/`), relative to the workspace root, \
         sorted. Files ignored by .gitignore/.ignore and hidden files are left out. At most \
         `limit` entries (default 1,000); the output says how many more there are."
            .into()
    }

    fn compact_description(&self) -> String {
        "List a directory (folders end in `/`).".into()
    }

    fn parameters(&self) -> Value {
        object_schema(
            json!({
                "path": string("Directory to list, relative to the workspace root (default: the root)."),
                "recursive": boolean("List everything below the directory, not only its direct entries (default false)."),
                "limit": integer("Maximum number of entries (default 1000)."),
            }),
            &[],
        )
    }

    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }

    fn runs(&self) -> Runs {
        Runs::Workspace
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Search
    }

    fn title(&self, args: &Value) -> Option<String> {
        let dir = super::field(args, "path", 60).unwrap_or_else(|| ".".to_string());
        Some(
            if args.get("recursive").and_then(Value::as_bool) == Some(true) {
                format!("List {dir} (recursive)")
            } else {
                format!("List {dir}")
            },
        )
    }

    /// The folder listed: the root when the call names none.
    fn target(&self, args: &Value) -> Option<ToolTarget> {
        super::folder_target(args)
    }

    fn prepare<'a>(&'a self, ctx: &'a ToolContext<'a>, arguments: &'a str) -> PrepareFuture<'a> {
        Box::pin(async move {
            on_tree(ctx, args::parse(Self::NAME, arguments)?, list::list_files).await
        })
    }
}
