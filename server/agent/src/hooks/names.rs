//! Tandem's tools under Claude Code's names, with Claude's field names added to their input, so
//! that a matcher like `Edit|Write` and a script reading `.tool_input.file_path` or
//! `.tool_input.command` work unchanged. Tandem's own fields stay beside Claude's.

use std::path::Path;

use serde_json::{Map, Value};

/// The name Claude Code gives the tool Tandem calls `name`. An MCP server's tool (`SERVER__TOOL`
/// in Tandem) is `mcp__SERVER__TOOL`; a name of neither kind stays as it is.
pub fn claude_name(name: &str, mcp: bool) -> String {
    let known = match name {
        "execute_command" => "Bash",
        "read_file" => "Read",
        "write_to_file" => "Write",
        "replace_in_file" => "Edit",
        "search_files" => "Grep",
        "list_files" => "LS",
        "fetch_url" => "WebFetch",
        "update_plan" => "TodoWrite",
        _ if mcp => return format!("mcp__{name}"),
        _ => name,
    };
    known.to_string()
}

/// The call's arguments with Claude's fields added (`file_path` absolute, as Claude gives it;
/// `old_string`/`new_string` for an edit of one SEARCH/REPLACE block; `pattern` for a search).
/// Arguments that are not a JSON object are given as they are.
pub fn claude_input(name: &str, arguments: &str, root: &Path) -> Value {
    let parsed: Value =
        serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()));
    let Value::Object(mut fields) = parsed else {
        return parsed;
    };
    let text = |fields: &Map<String, Value>, key: &str| {
        fields.get(key).and_then(Value::as_str).map(str::to_owned)
    };
    let absolute = |p: &str| Value::String(root.join(p).to_string_lossy().into_owned());
    match name {
        "read_file" | "write_to_file" | "replace_in_file" => {
            if let Some(path) = text(&fields, "path") {
                fields.insert("file_path".into(), absolute(&path));
            }
        }
        "list_files" => {
            let path = text(&fields, "path").unwrap_or_else(|| ".".into());
            fields.insert("path".into(), absolute(&path));
        }
        "search_files" => {
            if let Some(regex) = text(&fields, "regex") {
                fields.insert("pattern".into(), Value::String(regex));
            }
        }
        _ => {}
    }
    if name == "replace_in_file"
        && let Some(diff) = text(&fields, "diff")
        && let Some(pairs) = tandem_tools::search_replace_pairs(&diff)
        && let [(old, new)] = pairs.as_slice()
    {
        fields.insert("old_string".into(), Value::String(old.clone()));
        fields.insert("new_string".into(), Value::String(new.clone()));
    }
    if name == "execute_command"
        && let Some(seconds) = fields.get("timeoutSeconds").and_then(Value::as_f64)
    {
        // Claude's Bash takes milliseconds.
        fields.insert("timeout".into(), Value::from((seconds * 1000.0) as u64));
    }
    Value::Object(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tandems_tools_get_claudes_names_and_fields() {
        let root = Path::new("/w");
        assert_eq!(claude_name("execute_command", false), "Bash");
        assert_eq!(
            claude_name("github__create_issue", true),
            "mcp__github__create_issue"
        );
        let bash = claude_input("execute_command", r#"{"command":"rm -rf /"}"#, root);
        assert_eq!(bash["command"], "rm -rf /");
        let edit = claude_input(
            "replace_in_file",
            &json!({"path": "src/a.rs", "diff": "------- SEARCH\nold\n=======\nnew\n+++++++ REPLACE"})
                .to_string(),
            root,
        );
        assert_eq!(edit["file_path"], "/w/src/a.rs");
        assert_eq!(
            (edit["old_string"].as_str(), edit["new_string"].as_str()),
            (Some("old"), Some("new"))
        );
        assert_eq!(
            claude_input("read_file", "not json", root),
            json!("not json")
        );
    }
}
