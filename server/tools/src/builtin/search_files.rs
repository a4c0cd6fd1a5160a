//! `search_files`: a regular expression over the workspace's files, as ripgrep.

use serde_json::{Value, json};

use crate::registry::{
    Effect, PrepareFuture, Runs, ToolSpec, boolean, integer, object_schema, string,
};
use crate::{ToolContext, ToolKind, ToolTarget, args, on_tree, search};

pub struct SearchFiles;

impl SearchFiles {
    pub const NAME: &'static str = "search_files";
}

impl ToolSpec for SearchFiles {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> String {
        "Search file contents with a regular expression (Rust regex syntax, as ripgrep; one line \
         at a time). Results are `path:line: text`, sorted by path and line, at most `limit` \
         (default 200). Ignored, hidden and binary files are skipped. Case-insensitive unless \
         the regex has an uppercase letter or caseSensitive is given."
            .into()
    }

    fn compact_description(&self) -> String {
        "Regex search of file contents, as ripgrep.".into()
    }

    fn parameters(&self) -> Value {
        object_schema(
            json!({
                "regex": string("The regular expression, e.g. `fn\\s+main` or `TODO|FIXME`."),
                "path": string("Directory (or file) to search, relative to the workspace root (default: the root)."),
                "glob": string("Only search files matching this glob, e.g. `*.rs`, `*.{ts,tsx}` or `src/**/*.py`."),
                "caseSensitive": boolean("true: match case exactly; false: ignore case. Default: smart case."),
                "limit": integer("Maximum number of matching lines (default 200)."),
            }),
            &["regex"],
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
        let regex = super::field(args, "regex", 60)?;
        Some(match super::field(args, "path", 60) {
            Some(path) => format!("Search /{regex}/ in {path}"),
            None => format!("Search /{regex}/"),
        })
    }

    /// The folder searched: the root when the call names none.
    fn target(&self, args: &Value) -> Option<ToolTarget> {
        super::folder_target(args)
    }

    fn prepare<'a>(&'a self, ctx: &'a ToolContext<'a>, arguments: &'a str) -> PrepareFuture<'a> {
        Box::pin(async move {
            on_tree(
                ctx,
                args::parse(Self::NAME, arguments)?,
                search::search_files,
            )
            .await
        })
    }
}
