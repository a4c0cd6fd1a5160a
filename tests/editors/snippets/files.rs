//! The snippets that are configuration files: the `initializationOptions` example, Helix's
//! `languages.toml` and `config.toml`, Zed's `settings.json`. Parsed as the editor parses them;
//! the command they configure started and driven as the editor would (not Helix's own
//! `config.toml`, which starts nothing).

use mock_model::{MockServer, Reply, Scenario};
use serde_json::{Value, json};

use super::{ANSWER, answering, check_acp_answers, check_lsp_answer, check_lsp_answers};
use crate::drive::{EnvBase, LM_STUDIO_URL, Launch, Sandbox, models_asked, point_at};
use crate::harness::docs_snippet;

fn toml_snippet(name: &str) -> Value {
    let table: toml::Table = toml::from_str(&docs_snippet(name))
        .unwrap_or_else(|e| panic!("the {name} snippet is not TOML: {e}"));
    serde_json::to_value(table).expect("TOML as JSON")
}

fn json_snippet(name: &str) -> Value {
    serde_json::from_str(&docs_snippet(name))
        .unwrap_or_else(|e| panic!("the {name} snippet is not JSON: {e}"))
}

#[test]
fn the_initialization_options_example_reaches_the_model() {
    let mut options = json_snippet("init-options");
    let mock = answering(1);
    // The example names LM Studio: the mock answers there instead.
    assert_eq!(point_at(&mut options, &mock.base_url()), 1, "{options}");
    let sandbox = Sandbox::new();
    let launch = Launch::from_argv(&json!(["tandem", "lsp"]), EnvBase::Inherit);
    let client = check_lsp_answers(&sandbox, &launch, options.clone(), json!(["Say hello"]));
    assert_eq!(
        models_asked(&mock),
        [options["provider"]["model"].as_str().unwrap()]
    );
    let key = options["provider"]["apiKey"].as_str().unwrap();
    let sent = mock.chat_requests()[0]
        .headers
        .get("authorization")
        .cloned();
    assert_eq!(sent, Some(format!("Bearer {key}")), "{}", client.story());
    assert_eq!(client.shut_down(), Some(0));
}

#[test]
fn the_helix_server_applies_edits_without_asking() {
    let languages = toml_snippet("helix-languages");
    let server = &languages["language-server"]["tandem"];
    // The language list keeps its own server first and adds Tandem's.
    let rust = languages["language"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["name"] == "rust"))
        .unwrap_or_else(|| panic!("no [[language]] rust: {languages}"));
    assert_eq!(rust["language-servers"], json!(["rust-analyzer", "tandem"]));

    // Helix starts `command` with `args`, `environment` over its own; `config` is the
    // initializationOptions. It names LM Studio: the mock answers there instead.
    let mut argv = vec![server["command"].clone()];
    argv.extend(server["args"].as_array().cloned().unwrap_or_default());
    let launch = Launch::from_argv(&Value::Array(argv), EnvBase::Inherit)
        .with_env_object(&server["environment"]);
    let mut options = server["config"].clone();
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "replace_in_file",
            json!({"path": "src/main.rs",
                   "diff": "------- SEARCH\nfn main() {}\n=======\nfn main() {\n    println!(\"hi\");\n}\n+++++++ REPLACE"}),
        )
        .with_text("Editing."),
        Reply::text(ANSWER).expect_tool_result_contains("Applied the edit"),
    ]));
    assert_eq!(point_at(&mut options, &mock.base_url()), 1, "{options}");
    let sandbox = Sandbox::new();
    sandbox.write("src/main.rs", "fn main() {}\n");
    let answer = format!("Editing.\n{ANSWER}");
    let client = check_lsp_answer(&sandbox, &launch, options, json!(["Print hi"]), &answer);
    // Helix can't answer questions: with the snippet's autoApprove, none is asked and the edit
    // goes to the editor.
    let methods: Vec<&str> = client.requests.iter().map(|(m, _)| m.as_str()).collect();
    assert!(
        !methods.contains(&"window/showMessageRequest"),
        "{methods:?}{}",
        client.story()
    );
    assert!(
        methods.contains(&"workspace/applyEdit"),
        "{methods:?}{}",
        client.story()
    );
    assert!(
        mock.failures().is_empty(),
        "{:#?}{}",
        mock.failures(),
        client.story()
    );
    assert_eq!(client.shut_down(), Some(0));
}

#[test]
fn the_helix_editor_config_parses() {
    let config = toml_snippet("helix-config");
    // Helix's [editor.lsp] switches for the answer and the progress (book: editor.md).
    assert_eq!(config["editor"]["lsp"]["display-messages"], true);
    assert_eq!(config["editor"]["lsp"]["display-progress-messages"], true);
}

#[test]
fn the_zed_agent_server_answers() {
    let settings = json_snippet("zed");
    let server = &settings["agent_servers"]["Tandem"];
    assert_eq!(server["type"], "custom", "{settings}");
    // Zed starts `command` with `args` and `env` over its environment. The snippet names LM
    // Studio: the mock answers there instead.
    let mut argv = vec![server["command"].clone()];
    argv.extend(server["args"].as_array().cloned().unwrap_or_default());
    let mut launch =
        Launch::from_argv(&Value::Array(argv), EnvBase::Inherit).with_env_object(&server["env"]);
    let mock = answering(1);
    assert_eq!(launch.var("TANDEM_BASE_URL"), Some(LM_STUDIO_URL));
    assert_eq!(launch.point_at(&mock.base_url()), 1);
    let sandbox = Sandbox::new();
    let model = launch
        .var("TANDEM_MODEL")
        .unwrap_or_else(|| panic!("Zed's env names no TANDEM_MODEL: {settings}"))
        .to_string();
    check_acp_answers(&sandbox, &launch, &mock, "zed", &model);
}
