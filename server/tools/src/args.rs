//! The tools' arguments as the model sends them (raw JSON text), parsed strictly so that a typo in
//! a field name comes back as an error the model can act on instead of being silently ignored.

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::{ErrorKind, ToolError};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadFile {
    pub path: String,
    pub offset: Option<u64>,
    pub limit: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListFiles {
    pub path: Option<String>,
    pub recursive: Option<bool>,
    pub limit: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchFiles {
    pub regex: String,
    pub path: Option<String>,
    pub glob: Option<String>,
    #[serde(rename = "caseSensitive", alias = "case_sensitive")]
    pub case_sensitive: Option<bool>,
    pub limit: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WriteToFile {
    pub path: String,
    pub content: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReplaceInFile {
    pub path: String,
    pub diff: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExecuteCommand {
    pub command: String,
    pub cwd: Option<String>,
    #[serde(rename = "timeoutSeconds", alias = "timeout_seconds")]
    pub timeout_seconds: Option<f64>,
    /// Run without the sandbox's walls: the user is always asked.
    #[serde(default, rename = "outsideSandbox", alias = "outside_sandbox")]
    pub outside_sandbox: bool,
}

/// Parses `raw` for tool `tool`. An empty string counts as `{}` (some providers send that for a
/// call without arguments).
pub(crate) fn parse<T: DeserializeOwned>(tool: &str, raw: &str) -> Result<T, ToolError> {
    let raw = raw.trim();
    let raw = if raw.is_empty() { "{}" } else { raw };
    serde_json::from_str(raw).map_err(|e| {
        ToolError::new(
            ErrorKind::InvalidArguments,
            format!(
                "the arguments of {tool} are not valid: {e}. They must be one JSON object with the \
                 fields the tool's schema names."
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_arguments_are_an_empty_object() {
        let args: ListFiles = parse("list_files", "  ").unwrap();
        assert!(args.path.is_none());
    }

    #[test]
    fn unknown_and_missing_fields_are_named() {
        let err = parse::<ReadFile>("read_file", r#"{"file_path": "a"}"#).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArguments);
        assert!(err.message.contains("file_path"), "{}", err.message);
        let err = parse::<ReadFile>("read_file", "{}").unwrap_err();
        assert!(err.message.contains("path"), "{}", err.message);
        let err = parse::<ReadFile>("read_file", "{not json").unwrap_err();
        assert!(err.message.starts_with("the arguments of read_file"));
    }

    #[test]
    fn camel_case_names_and_snake_aliases() {
        let a: SearchFiles =
            parse("search_files", r#"{"regex":"x","caseSensitive":true}"#).unwrap();
        assert_eq!(a.case_sensitive, Some(true));
        let a: SearchFiles =
            parse("search_files", r#"{"regex":"x","case_sensitive":false}"#).unwrap();
        assert_eq!(a.case_sensitive, Some(false));
    }
}
