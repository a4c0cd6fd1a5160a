//! The wire types of the custom commands: `tandem/listCommands` and `tandem/runCommand`.

use serde::{Deserialize, Serialize};

use crate::ids::SessionId;
use crate::types::ContextItem;

/// `tandem/listCommands`'s params: a session, or (before the first prompt made one) the
/// workspace root a session would have.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListCommandsParams {
    #[serde(default)]
    pub session_id: Option<SessionId>,
    #[serde(default)]
    pub root: Option<String>,
}

/// `tandem/listCommands`'s result: a session's custom commands, read from their files now.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListCommandsResult {
    /// By name.
    pub commands: Vec<CustomCommand>,
    /// Files left out (unreadable, too large, bad front matter) and names hidden by another
    /// file, each in a sentence for the user.
    pub problems: Vec<String>,
}

/// A custom command: a Markdown prompt file, run as `/name`.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomCommand {
    pub name: String,
    /// From the file's front matter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What the arguments are, from the front matter (`argument-hint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
    pub source: CommandSource,
    /// The file, absolute.
    pub path: String,
}

/// Where a command comes from: the user's own folders, or the workspace (the repository's text).
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CommandSource {
    User,
    Project,
}

/// `tandem/runCommand`'s params: the command's text, with `arguments` put in, is sent as the
/// prompt (the result is `tandem/prompt`'s).
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunCommandParams {
    pub session_id: SessionId,
    pub name: String,
    /// What the user typed after the name.
    #[serde(default)]
    pub arguments: Option<String>,
    #[serde(default)]
    pub context: Option<Vec<ContextItem>>,
}
