//! The JSON Schema of `config.toml` (`extension/schemas/config.schema.json`), generated from the
//! file's types, so an editor (Taplo, VS Code's Even Better TOML) completes and checks the file
//! as the sidecar reads it. The `config_schema` test fails when the committed schema drifts;
//! `TANDEM_UPDATE_SCHEMA=1 cargo test -p tandem-config config_schema` writes it again.

use schemars::JsonSchema;

use crate::file::ConfigFile;

/// The schema of the user's `config.toml` (a project's `.tandem/config.toml` takes a part of it;
/// the sidecar's error names any key a project may not set).
pub fn config_schema() -> serde_json::Value {
    let mut schema =
        serde_json::to_value(schemars::schema_for!(ConfigFile)).expect("a schema is JSON");
    without_null(&mut schema);
    // Keys sorted whatever serde_json's `preserve_order` (a feature another crate of the build
    // may turn on), so the committed file is the same from any build.
    sort_keys(&mut schema);
    schema["title"] = "Tandem config.toml".into();
    schema
}

/// TOML has no null (an optional key is one left out), so `null` goes from every `type` list and
/// `anyOf`, which an editor would otherwise offer.
fn without_null(value: &mut serde_json::Value) {
    use serde_json::Value;
    let Value::Object(map) = value else {
        if let Value::Array(items) = value {
            items.iter_mut().for_each(without_null);
        }
        return;
    };
    if map.get("default") == Some(&Value::Null) {
        map.remove("default");
    }
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(any)) = map.get_mut("anyOf") {
        any.retain(|s| s.get("type").is_none_or(|t| t != "null"));
        if any.len() == 1 {
            let Some(Value::Object(only)) = any.pop() else {
                unreachable!("a schema is an object")
            };
            map.remove("anyOf");
            map.extend(only);
        }
    }
    map.values_mut().for_each(without_null);
}

fn sort_keys(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (key, mut value) in entries {
                sort_keys(&mut value);
                map.insert(key, value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

/// One MCP server as the file writes it: the shape `tandem_mcp::McpServerConfig` reads (ACP's
/// `mcpServers`, with Tandem's `startup`, `sandbox` and `network`). For the schema only; the
/// `mcp_server_fields_are_the_ones_read` test keeps the two in step.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
pub(crate) struct McpServer {
    /// `"http"` for a server already running; absent (or `"stdio"`) for one Tandem starts.
    #[serde(rename = "type")]
    kind: Option<ServerKind>,
    /// The server's name; its tools are offered as `NAME__TOOL`.
    name: String,
    /// A stdio server's program.
    command: Option<String>,
    /// A stdio server's arguments.
    args: Option<Vec<String>>,
    /// Environment variables added for a stdio server.
    env: Option<Vec<NameValue>>,
    /// An HTTP server's URL (Streamable HTTP).
    url: Option<String>,
    /// Headers sent to an HTTP server.
    headers: Option<Vec<NameValue>>,
    /// `"lazy"` (the default: at the first request to the model) or `"eager"` (when the
    /// sidecar starts).
    startup: Option<Startup>,
    /// Run a stdio server inside the commands' sandbox (a project's server always is).
    sandbox: Option<bool>,
    /// A sandboxed server may use the network.
    network: Option<bool>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum ServerKind {
    Stdio,
    Http,
}

#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Startup {
    Lazy,
    Eager,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct NameValue {
    name: String,
    value: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA_PATH: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../extension/schemas/config.schema.json"
    );

    fn generated() -> String {
        let mut text = serde_json::to_string_pretty(&config_schema()).unwrap();
        text.push('\n');
        text
    }

    #[test]
    fn config_schema_matches_the_rust_types() {
        let generated = generated();
        if std::env::var_os("TANDEM_UPDATE_SCHEMA").is_some() {
            std::fs::create_dir_all(std::path::Path::new(SCHEMA_PATH).parent().unwrap()).unwrap();
            std::fs::write(SCHEMA_PATH, &generated).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(SCHEMA_PATH).unwrap_or_default();
        assert!(
            committed == generated,
            "extension/schemas/config.schema.json is out of date with the config file's Rust \
             types (server/config/src/file.rs). Regenerate it with \
             `TANDEM_UPDATE_SCHEMA=1 cargo test -p tandem-config config_schema` and commit it."
        );
    }

    fn validator() -> jsonschema::Validator {
        jsonschema::validator_for(&config_schema()).expect("a valid schema")
    }

    /// Every TOML example in docs/configuration.md is valid by the schema and read by the
    /// sidecar: the two agree on what a file may hold.
    #[test]
    fn the_documented_examples_pass_the_schema_and_the_reader() {
        let doc = include_str!("../../../docs/configuration.md");
        let validator = validator();
        let mut checked = 0;
        for block in doc.split("```toml").skip(1) {
            let text = block.split("```").next().unwrap();
            let value: toml::Value = toml::from_str(text).unwrap();
            let json = serde_json::to_value(&value).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&json)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{errors:?} in\n{text}");
            let read: Result<ConfigFile, _> = toml::from_str(text);
            assert!(read.is_ok(), "{read:?}");
            checked += 1;
        }
        assert!(checked >= 3, "only {checked} examples");
    }

    /// What the schema refuses, the reader refuses too: a typo, a wrong type, a server field
    /// that does not exist.
    #[test]
    fn typos_and_wrong_types_are_refused_by_both() {
        let validator = validator();
        for text in [
            "max_step = 3",
            "max_steps = \"many\"",
            "[approval]\nsandbox = \"none\"",
            "[[mcp.servers]]\nname = \"fs\"\ncomand = \"npx\"",
        ] {
            let value: toml::Value = toml::from_str(text).unwrap();
            let json = serde_json::to_value(&value).unwrap();
            assert!(!validator.is_valid(&json), "the schema took {text:?}");
            assert!(
                toml::from_str::<ConfigFile>(text).is_err(),
                "the reader took {text:?}"
            );
        }
    }

    /// Every field the schema offers for a server is one the MCP config reads.
    #[test]
    fn mcp_server_fields_are_the_ones_read() {
        let stdio = serde_json::json!({"type": "stdio", "name": "a", "command": "x", "args": ["1"],
            "env": [{"name": "K", "value": "V"}], "startup": "eager", "sandbox": true, "network": false});
        let http = serde_json::json!({"type": "http", "name": "b", "url": "http://127.0.0.1:1/mcp",
            "headers": [{"name": "A", "value": "B"}], "startup": "lazy"});
        let validator = validator();
        for server in [stdio, http] {
            let file = serde_json::json!({"mcp": {"servers": [server.clone()]}});
            assert!(validator.is_valid(&file), "{server}");
            serde_json::from_value::<tandem_mcp::McpServerConfig>(server.clone())
                .unwrap_or_else(|e| panic!("{server}: {e}"));
        }
    }
}
