//! The Neovim snippets beyond the 0.7 setup: the `window/logMessage` entry (in a real Neovim 0.7
//! client), the 0.11 and 0.10 setups, CodeCompanion and avante.nvim (loaded in Neovim 0.7 with
//! stand-ins, see snippet_standins.lua; the command they configure started and driven here).

use std::path::Path;

use mock_model::MockServer;
use serde_json::{Value, json};

use super::{ANSWER, answering, check_acp_answers, check_lsp_answers};
use crate::drive::{EnvBase, Launch, Sandbox, file_uri, models_asked};
use crate::harness::{NEOVIM, Run, Workspace, docs_snippet, scripts_dir};

const HELLO: &str = "def hello():\n    return 'hello'\n\nprint(hello())\n";

/// The model the user's shell names in TANDEM_MODEL, where a test sets one.
const SHELL_MODEL: &str = "model-from-the-shell";

/// Headless Neovim 0.7 running `script` from this folder with `setup` as the snippet.
fn nvim(ws: &Workspace, mock: &MockServer, script: &str, setup: &str, env: &[(&str, &str)]) -> Run {
    NEOVIM.require();
    std::fs::write(&ws.setup, setup).unwrap();
    let luafile = format!("luafile {}", scripts_dir().join(script).display());
    let args = [
        "--headless",
        "-u",
        "NONE",
        "-i",
        "NONE",
        "-n",
        "-c",
        &luafile,
    ];
    ws.run_editor_with(mock, "nvim", &args, env)
}

/// The snippet marked `name` loaded with the stand-ins; `append` is added to its end.
fn with_standins(
    name: &str,
    append: &str,
    mock: &MockServer,
    env: &[(&str, &str)],
) -> (Workspace, Run) {
    let ws = Workspace::new();
    ws.write("src/hello.py", HELLO);
    std::fs::create_dir_all(ws.path(".git")).unwrap();
    let mut env = env.to_vec();
    env.push(("TANDEM_TEST_SNIPPET", name));
    let setup = docs_snippet(name) + append;
    let run = nvim(&ws, mock, "snippet_standins.lua", &setup, &env);
    let finished = run.status.is_some_and(|s| s.success())
        && run.results["error"].is_null()
        && run.results["finished"] == true;
    assert!(finished, "the snippet did not load and run{}", run.dump());
    (ws, run)
}

fn same_dir(a: &str, b: &Path) -> bool {
    Path::new(a).canonicalize().ok().as_deref() == b.canonicalize().ok().as_deref()
}

#[test]
fn the_log_handler_shows_the_streamed_answer() {
    let ws = Workspace::new();
    ws.write("hello.py", HELLO);
    let mock = answering(1);
    let run = nvim(
        &ws,
        &mock,
        "snippet_log_handler.lua",
        &docs_snippet("nvim-log-handler"),
        &[],
    );
    run.assert_finished();
    assert_eq!(run.strings("/messages", None), [ANSWER], "{}", run.dump());
    // The answer was streamed to the log as it came, and the docs' handler echoed it.
    assert!(run.stderr.contains(ANSWER), "not echoed{}", run.dump());
}

#[test]
fn the_neovim_0_11_setup_starts_a_working_server() {
    let mock = answering(2);
    let (ws, run) = with_standins("nvim-0.11", "", &mock, &[]);
    let dump = run.dump();
    assert_eq!(run.get("/enabled"), &json!(["tandem"]), "{dump}");
    let config = run.get("/configs/tandem");
    // root_dir finds the project by its .git from a file in a subfolder.
    let root = config["root"].as_str().unwrap_or_default();
    assert!(same_dir(root, &ws.root), "root {root:?}{dump}");
    for command in [
        "TandemAsk",
        "TandemCancel",
        "TandemUndo",
        "TandemNew",
        "TandemTranscript",
    ] {
        assert!(
            run.strings("/commands", None).iter().any(|c| c == command),
            "{command}{dump}"
        );
    }
    // What :TandemAsk (whole project, then lines 1-2) and :TandemCancel sent.
    let sent = run.get("/sent").as_array().unwrap().clone();
    assert_eq!(sent.len(), 3, "{dump}");
    assert_eq!(
        (&sent[0]["command"], &sent[0]["arguments"]),
        (&json!("tandem.ask"), &json!(["Say hello"])),
        "{dump}"
    );
    let location = &sent[1]["arguments"][1];
    assert_eq!(sent[1]["arguments"][0], "Explain these lines", "{dump}");
    assert!(
        location["uri"]
            .as_str()
            .unwrap_or_default()
            .ends_with("/src/hello.py"),
        "{dump}"
    );
    assert_eq!(
        location["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}),
        "{dump}"
    );
    assert_eq!(
        (&sent[2]["command"], &sent[2]["arguments"]),
        (&json!("tandem.cancel"), &Value::Null),
        "{dump}"
    );

    // The configured command, the model in the environment as "Before you start" says.
    let sandbox = Sandbox::new();
    sandbox.write("src/hello.py", HELLO);
    let launch = Launch::from_argv(&config["cmd"], EnvBase::Inherit)
        .with_env("TANDEM_BASE_URL", &mock.base_url())
        .with_env("TANDEM_MODEL", SHELL_MODEL);
    let mut client = check_lsp_answers(
        &sandbox,
        &launch,
        config["init_options"].clone(),
        sent[0]["arguments"].clone(),
    );
    // The ranged ask as sent, its file moved to the sandbox's copy of the project.
    let mut arguments = sent[1]["arguments"].clone();
    arguments[1]["uri"] = json!(file_uri(&sandbox.root.join("src/hello.py")));
    client.call(
        "workspace/executeCommand",
        json!({"command": "tandem.ask", "arguments": arguments}),
    );
    assert_eq!(client.next_message(), ANSWER, "{}", client.story());
    let prompt = mock.chat_requests()[1].message_texts().join("\n");
    assert!(
        prompt.contains("lines=\"1-2\""),
        "{prompt}{}",
        client.story()
    );
    assert_eq!(models_asked(&mock), [SHELL_MODEL, SHELL_MODEL]);
    assert_eq!(client.shut_down(), Some(0));
}

#[test]
fn the_neovim_0_10_setup_starts_a_working_server() {
    let mock = answering(1);
    // The snippet's `tandem` helper is local to it: returning it lets the script call it.
    let (ws, run) = with_standins("nvim-0.10", "return tandem\n", &mock, &[]);
    let dump = run.dump();
    // Started once, for the file opened, in the project its .git marks.
    let started = run.get("/started").as_array().unwrap().clone();
    assert_eq!(started.len(), 1, "{dump}");
    assert_eq!(started[0]["name"], "tandem", "{dump}");
    let root = started[0]["root_dir"].as_str().unwrap_or_default();
    assert!(same_dir(root, &ws.root), "root {root:?}{dump}");
    let sent = run.get("/sent/0");
    assert_eq!(sent["via"], "request", "{dump}");
    assert_eq!(sent["method"], "workspace/executeCommand", "{dump}");
    assert_eq!(sent["command"], "tandem.ask", "{dump}");

    let sandbox = Sandbox::new();
    let launch = Launch::from_argv(&started[0]["cmd"], EnvBase::Inherit)
        .with_env("TANDEM_BASE_URL", &mock.base_url())
        .with_env("TANDEM_MODEL", SHELL_MODEL);
    let client = check_lsp_answers(
        &sandbox,
        &launch,
        started[0]["init_options"].clone(),
        sent["arguments"].clone(),
    );
    assert_eq!(models_asked(&mock), [SHELL_MODEL]);
    assert_eq!(client.shut_down(), Some(0));
}

/// The fields of a CodeCompanion ACP adapter (lua/codecompanion/adapters/acp/init.lua): an
/// option outside these would be ignored by the real plugin.
const CODECOMPANION_ADAPTER_FIELDS: &[&str] = &[
    "name",
    "formatted_name",
    "type",
    "roles",
    "opts",
    "commands",
    "defaults",
    "env",
    "parameters",
    "handlers",
    "model",
];

#[test]
fn the_codecompanion_adapter_starts_a_working_agent() {
    let mock = answering(1);
    let (_ws, run) = with_standins("codecompanion", "", &mock, &[]);
    let dump = run.dump();
    let adapter = run.get("/codecompanion/acp/tandem");
    // Built on one of CodeCompanion's own ACP adapters, and the chat uses it.
    assert_eq!(adapter["extends"], "gemini_cli", "{dump}");
    assert_eq!(
        run.get("/codecompanion/interactions/chat/adapter"),
        "tandem",
        "{dump}"
    );
    let opts = &adapter["opts"];
    for key in opts.as_object().unwrap().keys() {
        assert!(
            CODECOMPANION_ADAPTER_FIELDS.contains(&key.as_str()),
            "{key} is no adapter field{dump}"
        );
    }

    // `extend` deep-merges the options into gemini_cli's, lists index by index: a command of
    // fewer words than gemini_cli's `{ 'gemini', '--experimental-acp' }` would keep its tail.
    let words = opts["commands"]["default"].as_array().map_or(0, Vec::len);
    assert!(
        words >= 2,
        "the command would keep gemini_cli's last words{dump}"
    );

    // CodeCompanion starts `commands.default` with `env` over Neovim's environment. The snippet
    // names LM Studio's URL: here the mock answers there instead.
    let sandbox = Sandbox::new();
    let mut launch = Launch::from_argv(&opts["commands"]["default"], EnvBase::Inherit)
        .with_env_object(&opts["env"]);
    assert_eq!(launch.point_at(&mock.base_url()), 1, "{launch:?}");
    let turn = check_acp_answers(
        &sandbox,
        &launch,
        &mock,
        "CodeCompanion.nvim",
        "qwen2.5-coder-7b-instruct",
    );
    // The adapter inherits gemini_cli's `auth_method`; CodeCompanion would fail on it if Tandem
    // listed auth methods (it authenticates only when the agent lists some).
    let methods = &turn.initialize["authMethods"];
    assert!(
        methods.as_array().is_none_or(Vec::is_empty),
        "{}",
        turn.initialize
    );
}

#[test]
fn the_avante_provider_starts_a_working_agent() {
    let mock = answering(1);
    // The snippet takes the model from Neovim's environment, set as "Before you start" says.
    let url = mock.base_url();
    let env = [
        ("TANDEM_BASE_URL", url.as_str()),
        ("TANDEM_MODEL", SHELL_MODEL),
        ("TANDEM_API_KEY", "key-from-the-shell"),
    ];
    let (_ws, run) = with_standins("avante", "", &mock, &env);
    let dump = run.dump();
    let avante = run.get("/avante");
    let provider = avante["provider"].as_str().unwrap_or_default();
    let entry = &avante["acp_providers"][provider];
    assert!(
        entry.is_object(),
        "provider {provider:?} is not among acp_providers{dump}"
    );
    // The fields avante.nvim reads from an ACP provider (lua/avante/libs/acp_client.lua).
    for key in entry.as_object().unwrap().keys() {
        assert!(
            ["command", "args", "env", "auth_method"].contains(&key.as_str()),
            "{key}{dump}"
        );
    }

    // avante starts `command` with `args` and an environment of PATH and `env` only.
    let mut argv = vec![entry["command"].clone()];
    argv.extend(entry["args"].as_array().cloned().unwrap_or_default());
    let launch =
        Launch::from_argv(&Value::Array(argv), EnvBase::PathOnly).with_env_object(&entry["env"]);
    assert_eq!(
        launch.var("TANDEM_BASE_URL"),
        Some(url.as_str()),
        "{launch:?}"
    );
    let sandbox = Sandbox::new();
    check_acp_answers(&sandbox, &launch, &mock, "avante.nvim", SHELL_MODEL);
    // The key reached the model server, though avante passes no other variable.
    let sent = mock.chat_requests()[0]
        .headers
        .get("authorization")
        .cloned();
    assert_eq!(sent.as_deref(), Some("Bearer key-from-the-shell"));
}
