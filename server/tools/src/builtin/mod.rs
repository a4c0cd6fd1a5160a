//! The workspace's tools, each a type of its own: its name, schema, descriptions, effect, how a
//! call is shown and how it runs. The work itself is in the crate's modules (`read`, `list`,
//! `search`, `write`, `edit`, `command`).

mod execute_command;
mod list_files;
mod read_file;
mod replace_in_file;
mod search_files;
mod write_to_file;

/// The two edit tools' names, here because each one's description names the other (each
/// tool's `NAME` is its constant).
const WRITE_TO_FILE: &str = "write_to_file";
const REPLACE_IN_FILE: &str = "replace_in_file";

pub use execute_command::ExecuteCommand;
pub use list_files::ListFiles;
pub use read_file::ReadFile;
pub use replace_in_file::ReplaceInFile;
pub use search_files::SearchFiles;
pub use write_to_file::WriteToFile;

use serde_json::Value;

use crate::ToolTarget;

/// A string argument, its first line cut to `max` characters.
pub(crate) fn field(args: &Value, key: &str, max: usize) -> Option<String> {
    args.get(key)
        .and_then(Value::as_str)
        .map(|s| crate::tool::short(s, max))
}

/// The `path` argument, as the model wrote it.
pub(crate) fn path(args: &Value) -> Option<String> {
    args.get("path").and_then(Value::as_str).map(str::to_string)
}

/// The file a call names by its `path`.
pub(crate) fn file_target(args: &Value) -> Option<ToolTarget> {
    Some(ToolTarget {
        path: path(args)?,
        line: None,
    })
}

/// The folder a call walks: its `path`, the root when it names none.
pub(crate) fn folder_target(args: &Value) -> Option<ToolTarget> {
    Some(ToolTarget {
        path: path(args).unwrap_or_else(|| ".".to_string()),
        line: None,
    })
}
