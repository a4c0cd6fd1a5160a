//! Every code block of docs/editors.md is run by a test, as far as this machine allows.
//!
//! A block carries `<!-- test: NAME -->` on the line before its fence, and the test that runs it
//! reads it out of the doc by that name ([`docs_snippet`]). [`TESTED`] lists every name and what
//! runs it; a block without a marker, or with a name not listed, fails
//! [`every_code_block_is_marked_and_run`], so a new snippet can't go untested.
//!
//! How far each goes:
//! - real editors with the snippet loaded and used: Neovim 0.7 (`nvim-0.7`, in neovim.rs; and
//!   the `window/logMessage` entry), eglot (`eglot`, in emacs.rs), lsp-mode (Debian's 8.0);
//! - snippets for what can't be installed here (Neovim 0.10/0.11's API, CodeCompanion,
//!   avante.nvim, agent-shell): loaded in real Neovim 0.7 / Emacs 28 with stand-ins that record
//!   what the snippet configures; the test then starts that command with that environment and
//!   speaks ACP or LSP to it, as the plugin would, until the mock model's answer arrives;
//! - configuration files (Helix, Zed, the `initializationOptions` example): parsed, and the
//!   command they name started and driven the same way; Helix's `config.toml` is only parsed.

mod emacs;
mod files;
mod neovim;

use mock_model::{MockServer, Reply, Scenario};
use serde_json::{Value, json};

use crate::drive::{AcpTurn, Launch, LspClient, Sandbox, acp_turn, models_asked};
use crate::harness::doc_blocks;

/// Every `<!-- test: NAME -->` of docs/editors.md, and the test that runs its block.
const TESTED: &[(&str, &str)] = &[
    (
        "init-options",
        "snippets::files::the_initialization_options_example_reaches_the_model",
    ),
    ("nvim-0.7", "neovim::* (the whole setup, in Neovim 0.7)"),
    (
        "nvim-log-handler",
        "snippets::neovim::the_log_handler_shows_the_streamed_answer",
    ),
    (
        "nvim-0.11",
        "snippets::neovim::the_neovim_0_11_setup_starts_a_working_server",
    ),
    (
        "nvim-0.10",
        "snippets::neovim::the_neovim_0_10_setup_starts_a_working_server",
    ),
    (
        "eglot",
        "emacs::* (the whole setup, in Emacs 28 with eglot)",
    ),
    (
        "lsp-mode",
        "snippets::emacs::lsp_mode_* (the whole setup, in Emacs 28 with lsp-mode 8.0)",
    ),
    (
        "helix-languages",
        "snippets::files::the_helix_server_applies_edits_without_asking",
    ),
    (
        "helix-config",
        "snippets::files::the_helix_editor_config_parses (parsed only)",
    ),
    (
        "codecompanion",
        "snippets::neovim::the_codecompanion_adapter_starts_a_working_agent",
    ),
    (
        "avante",
        "snippets::neovim::the_avante_provider_starts_a_working_agent",
    ),
    (
        "agent-shell",
        "snippets::emacs::the_agent_shell_command_starts_a_working_agent",
    ),
    ("zed", "snippets::files::the_zed_agent_server_answers"),
];

#[test]
fn every_code_block_is_marked_and_run() {
    let blocks = doc_blocks();
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for block in &blocks {
        match &block.marker {
            None => problems.push(format!(
                "docs/editors.md:{}: a ```{} block without a <!-- test: NAME --> marker on the line \
                 before it; add one and a test that runs the block (list it in TESTED)",
                block.line, block.lang
            )),
            Some(name) if !TESTED.iter().any(|(n, _)| n == name) => problems.push(format!(
                "docs/editors.md:{}: <!-- test: {name} --> is run by no test listed in TESTED",
                block.line
            )),
            Some(name) if seen.contains(name) => problems.push(format!(
                "docs/editors.md:{}: <!-- test: {name} --> marks a second block",
                block.line
            )),
            Some(name) => seen.push(name.clone()),
        }
    }
    for (name, _) in TESTED {
        if !seen.iter().any(|s| s == name) {
            problems.push(format!("no block of docs/editors.md is marked {name}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(blocks.len() >= TESTED.len());
}

/// What the mock answers a one-question turn.
const ANSWER: &str = "Hello from the mock model.";

/// The mock, answering `turns` plain questions.
fn answering(turns: usize) -> MockServer {
    MockServer::start(Scenario::new((0..turns).map(|_| Reply::text(ANSWER))))
}

/// ACP `initialize` params as a client that reads and writes the editor's files sends them.
fn acp_initialize(client: &str) -> Value {
    json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}},
        "clientInfo": {"name": client, "version": "1.0.0"},
    })
}

/// Starts `launch` as an ACP agent, prompts it once, and checks the mock's answer came back
/// whole from a model named `model`, and that Tandem kept its files in the sandbox.
fn check_acp_answers(
    sandbox: &Sandbox,
    launch: &Launch,
    mock: &MockServer,
    client: &str,
    model: &str,
) -> AcpTurn {
    let turn = acp_turn(sandbox, launch, acp_initialize(client), "Say hello");
    let story = format!("{launch:?}\n--- tandem stderr:\n{}", sandbox.stderr());
    assert_eq!(turn.stop_reason, "end_turn", "{story}");
    assert_eq!(turn.answer, ANSWER, "{story}");
    assert_eq!(models_asked(mock), [model], "{story}");
    assert!(mock.failures().is_empty(), "{:#?}{story}", mock.failures());
    assert_eq!(turn.exit_code, Some(0), "{story}");
    assert!(
        sandbox.data_dir().is_dir(),
        "tandem kept nothing under the sandbox's {}{story}",
        sandbox.data_dir().display()
    );
    turn
}

/// Starts `launch` as a language server with `options`, runs `tandem.ask` with `arguments`
/// (as the snippet sends it), and checks the answer arrives as `window/showMessage`.
fn check_lsp_answers(
    sandbox: &Sandbox,
    launch: &Launch,
    options: Value,
    arguments: Value,
) -> LspClient {
    check_lsp_answer(sandbox, launch, options, arguments, ANSWER)
}

/// [`check_lsp_answers`] for a turn whose whole answer is `answer`.
fn check_lsp_answer(
    sandbox: &Sandbox,
    launch: &Launch,
    options: Value,
    arguments: Value,
    answer: &str,
) -> LspClient {
    let (mut client, init) = LspClient::start(sandbox, launch, options);
    let commands = &init["capabilities"]["executeCommandProvider"]["commands"];
    assert!(
        commands
            .as_array()
            .is_some_and(|c| c.contains(&json!("tandem.ask"))),
        "tandem.ask is not among the server's commands: {init}{}",
        client.story()
    );
    let started = client.call(
        "workspace/executeCommand",
        json!({"command": "tandem.ask", "arguments": arguments}),
    );
    assert!(
        started["sessionId"].is_string(),
        "{started}{}",
        client.story()
    );
    let message = client.next_message();
    assert_eq!(message, answer, "{}", client.story());
    client
}
