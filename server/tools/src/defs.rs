//! What the model is told about the tools (names, descriptions, JSON Schemas), and the short
//! titles the user sees for each call.

use serde_json::{Value, json};

use tandem_model::ToolDefinition;

const REPLACE_IN_FILE: &str = r#"Edit an existing file by replacing exact lines. `diff` holds one or more SEARCH/REPLACE blocks:

------- SEARCH
exact lines from the file
=======
the lines to put in their place
+++++++ REPLACE

Rules:
- SEARCH is whole lines copied exactly from the file (without read_file's `N | ` numbers), including indentation and comments. It must match exactly one place: include a few unchanged lines around the change to make it unique, but keep blocks short.
- REPLACE is the complete new text of those lines. An empty REPLACE deletes them.
- Several blocks may go in one call, one per place to change; they must not overlap. Either all blocks apply or none does.
- Never abbreviate with placeholders such as `// ... existing code ...`: every line in SEARCH must be in the file, and every line in REPLACE is written as is.
- To insert lines, SEARCH for the line next to the place and repeat it in REPLACE with the new lines.
- Use write_to_file to create a file or rewrite most of one.
If a block fails, the error names it and shows the closest lines of the file and how they differ; nothing is written. The edit is shown to the user for approval before it is written."#;

pub(crate) fn definitions() -> Vec<ToolDefinition> {
    vec![
        tool(
            "read_file",
            "Read a text file of the workspace. Each line comes as `N | text` (N is the line \
             number, not part of the file). At most 2,000 lines are shown per call (by default the \
             first ones); the output says when it stopped and which offset reads on. Binary files \
             and files over 10 MiB are refused.",
            json!({
                "path": string("File path, relative to the workspace root."),
                "offset": integer("First line to show, 1-based (default 1)."),
                "limit": integer("How many lines to show (default 2000)."),
            }),
            &["path"],
        ),
        tool(
            "list_files",
            "List files and directories (directories end in `/`), relative to the workspace \
             root, sorted. Files ignored by .gitignore/.ignore and hidden files are left out. At \
             most `limit` entries (default 1,000); the output says how many more there are.",
            json!({
                "path": string("Directory to list, relative to the workspace root (default: the root)."),
                "recursive": {"type": "boolean", "description": "List everything below the directory, not only its direct entries (default false)."},
                "limit": integer("Maximum number of entries (default 1000)."),
            }),
            &[],
        ),
        tool(
            "search_files",
            "Search file contents with a regular expression (Rust regex syntax, as ripgrep; one \
             line at a time). Results are `path:line: text`, sorted by path and line, at most \
             `limit` (default 200). Ignored, hidden and binary files are skipped. Case-insensitive \
             unless the regex has an uppercase letter or caseSensitive is given.",
            json!({
                "regex": string("The regular expression, e.g. `fn\\s+main` or `TODO|FIXME`."),
                "path": string("Directory (or file) to search, relative to the workspace root (default: the root)."),
                "glob": string("Only search files matching this glob, e.g. `*.rs`, `*.{ts,tsx}` or `src/**/*.py`."),
                "caseSensitive": {"type": "boolean", "description": "true: match case exactly; false: ignore case. Default: smart case."},
                "limit": integer("Maximum number of matching lines (default 200)."),
            }),
            &["regex"],
        ),
        tool(
            "write_to_file",
            "Create a file, or replace a file's whole content (missing directories are created). \
             `content` is the complete file: never abbreviate. To change part of an existing \
             file, prefer replace_in_file. The change is shown to the user for approval before it \
             is written.",
            json!({
                "path": string("File path, relative to the workspace root."),
                "content": string("The complete content of the file."),
            }),
            &["path", "content"],
        ),
        tool(
            "replace_in_file",
            REPLACE_IN_FILE,
            json!({
                "path": string("Path of the existing file, relative to the workspace root."),
                "diff": string("One or more SEARCH/REPLACE blocks, in the format described above."),
            }),
            &["path", "diff"],
        ),
        tool(
            "execute_command",
            "Run a shell command in the workspace (with the user's shell, `sh -c` style), after \
             the user approves it. stdin is closed, so interactive commands fail: pass flags that \
             avoid prompts. stdout and stderr come back together; of a long output the first and \
             last 100 lines are kept. The command is killed, with everything it started, after \
             timeoutSeconds (default 120). Commands run in a sandbox: they can write only inside \
             the workspace and the temp dirs, and have no network. If a command needs more (a \
             download, a write elsewhere), set outsideSandbox: the user is then always asked.",
            json!({
                "command": string("The command line, e.g. `cargo test -p core`."),
                "cwd": string("Working directory, relative to the workspace root (default: the root)."),
                "timeoutSeconds": {"type": "number", "description": "Seconds before the command is killed (default 120)."},
                "outsideSandbox": {"type": "boolean", "description": "Run without the sandbox (network, writes outside the workspace); always asks the user. Default false."},
            }),
            &["command"],
        ),
    ]
}

fn tool(name: &str, description: &str, properties: Value, required: &[&str]) -> ToolDefinition {
    ToolDefinition {
        name: name.to_string(),
        description: description.to_string(),
        parameters: json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        }),
    }
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn integer(description: &str) -> Value {
    json!({"type": "integer", "minimum": 1, "description": description})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_a_schema_naming_its_required_fields() {
        let defs = definitions();
        assert_eq!(
            defs.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(),
            crate::Tool::ALL.map(|t| t.name())
        );
        for d in &defs {
            let props = d.parameters["properties"].as_object().unwrap();
            for r in d.parameters["required"].as_array().unwrap() {
                assert!(props.contains_key(r.as_str().unwrap()), "{}", d.name);
            }
        }
        assert!(defs[4].description.contains("------- SEARCH"));
    }
}
