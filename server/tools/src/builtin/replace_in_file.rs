//! `replace_in_file`: SEARCH/REPLACE blocks applied to a file, once the user approves.

use serde_json::{Value, json};

use super::ReadFile;
use crate::registry::{Effect, PrepareFuture, Runs, ToolSpec, object_schema, string};
use crate::{Prepared, ToolContext, ToolKind, ToolTarget, args, edit};

pub struct ReplaceInFile;

impl ReplaceInFile {
    pub const NAME: &'static str = super::REPLACE_IN_FILE;
}

impl ToolSpec for ReplaceInFile {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> String {
        format!(
            r#"Edit an existing file by replacing exact lines. `diff` holds one or more SEARCH/REPLACE blocks:

------- SEARCH
exact lines from the file
=======
the lines to put in their place
+++++++ REPLACE

Rules:
- SEARCH is whole lines copied exactly from the file (without {read}'s `N | ` numbers), including indentation and comments. It must match exactly one place: include a few unchanged lines around the change to make it unique, but keep blocks short.
- REPLACE is the complete new text of those lines. An empty REPLACE deletes them.
- Several blocks may go in one call, one per place to change; they must not overlap. Either all blocks apply or none does.
- Never abbreviate with placeholders such as `// ... existing code ...`: every line in SEARCH must be in the file, and every line in REPLACE is written as is.
- To insert lines, SEARCH for the line next to the place and repeat it in REPLACE with the new lines.
- Use {write} to create a file or rewrite most of one.
If a block fails, the error names it and shows the closest lines of the file and how they differ; nothing is written. The edit is shown to the user for approval before it is written."#,
            read = ReadFile::NAME,
            write = super::WRITE_TO_FILE,
        )
    }

    /// The format's one essential line, a small model writes the blocks from it; in a sentence
    /// of its own, as text mode shows the first sentence and an example block instead.
    fn compact_description(&self) -> String {
        "Edit a file by SEARCH/REPLACE blocks. A block: `------- SEARCH`, exact whole lines of \
         the file, `=======`, the new lines, `+++++++ REPLACE`."
            .into()
    }

    fn parameters(&self) -> Value {
        object_schema(
            json!({
                "path": string("Path of the existing file, relative to the workspace root."),
                "diff": string("One or more SEARCH/REPLACE blocks, in the format described above."),
            }),
            &["path", "diff"],
        )
    }

    /// Shown in the text tool mode: the SEARCH/REPLACE block inside the JSON string.
    fn example(&self) -> Option<Value> {
        Some(
            json!({"path": "src/main.rs", "diff": "------- SEARCH\n    let x = 1;\n=======\n    let x = 2;\n+++++++ REPLACE"}),
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
        super::field(args, "path", 60).map(|p| format!("Edit {p}"))
    }

    fn target(&self, args: &Value) -> Option<ToolTarget> {
        super::file_target(args)
    }

    fn works_on_one_file(&self) -> bool {
        true
    }

    /// Its SEARCH texts find their place again in the file as it now is.
    fn rematches_when_stale(&self) -> bool {
        true
    }

    fn prepare<'a>(&'a self, ctx: &'a ToolContext<'a>, arguments: &'a str) -> PrepareFuture<'a> {
        Box::pin(async move {
            edit::prepare(ctx, args::parse(Self::NAME, arguments)?).map(Prepared::Edit)
        })
    }
}
