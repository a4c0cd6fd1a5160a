//! `write_to_file`: a new file, or a file's whole content replaced, once the user approves.

use serde_json::{Value, json};

use crate::registry::{Effect, PrepareFuture, Runs, ToolSpec, object_schema, string};
use crate::{Prepared, ToolContext, ToolKind, ToolTarget, args, write};

pub struct WriteToFile;

impl WriteToFile {
    pub const NAME: &'static str = super::WRITE_TO_FILE;
}

impl ToolSpec for WriteToFile {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> String {
        format!(
            "Create a file, or replace a file's whole content (missing directories are created). \
             `content` is the complete file: never abbreviate. To change part of an existing \
             file, prefer {}. The change is shown to the user for approval before it is written.",
            super::REPLACE_IN_FILE
        )
    }

    fn compact_description(&self) -> String {
        "Create or overwrite a whole file.".into()
    }

    fn parameters(&self) -> Value {
        object_schema(
            json!({
                "path": string("File path, relative to the workspace root."),
                "content": string("The complete content of the file."),
            }),
            &["path", "content"],
        )
    }

    fn effect(&self) -> Effect {
        Effect::ChangesWorkspace
    }

    fn runs(&self) -> Runs {
        Runs::Workspace
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn title(&self, args: &Value) -> Option<String> {
        super::field(args, "path", 60).map(|p| format!("Write {p}"))
    }

    fn target(&self, args: &Value) -> Option<ToolTarget> {
        super::file_target(args)
    }

    fn works_on_one_file(&self) -> bool {
        true
    }

    fn prepare<'a>(&'a self, ctx: &'a ToolContext<'a>, arguments: &'a str) -> PrepareFuture<'a> {
        Box::pin(async move {
            write::prepare(ctx, args::parse(Self::NAME, arguments)?).map(Prepared::Edit)
        })
    }
}
