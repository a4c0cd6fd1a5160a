//! The Emacs snippets beyond eglot: lsp-mode (the real one, Debian's 8.0, in Emacs 28) and
//! agent-shell (loaded with stand-ins, see snippet_agent_shell.el; the command it configures
//! started and driven here).

use mock_model::{MockServer, Reply, Scenario};
use serde_json::Value;

use super::{ANSWER, answering, check_acp_answers};
use crate::drive::{EnvBase, Launch, Sandbox};
use crate::emacs::{check_question_keys_and_progress, check_reopened, run_phase};
use crate::harness::{EMACS, LSP_MODE, Workspace, docs_snippet, scripts_dir};
use crate::story;

#[test]
fn lsp_mode_asks_about_a_region_and_cancels() {
    LSP_MODE.require();
    let ws = Workspace::new();
    ws.write(
        "hello.py",
        "def hello():\n    return 'hello'\n\nprint(hello())\n",
    );
    let mock = MockServer::start(Scenario::new([
        Reply::text(ANSWER).expect_messages_contain("lines=\"1-2\""),
        // A turn that never ends on its own: the user cancels it.
        Reply::text("Thinking it over").stall_after(3),
    ]));
    std::fs::write(&ws.setup, docs_snippet("lsp-mode")).unwrap();
    let script = scripts_dir().join("lsp_mode_ask.el");
    // Not -Q: Debian's elpa packages (lsp-mode) load from site-start. The model comes from the
    // wrapper's flags: the docs' setup leaves it to the command line and the environment.
    let run = ws.run_editor(
        &mock,
        "emacs",
        &["--batch", "-l", &script.display().to_string()],
    );
    run.assert_finished();
    assert_eq!(
        run.strings("/messages", None),
        [ANSWER, "Tandem: cancelled."],
        "{}",
        run.dump()
    );
    assert!(
        mock.failures().is_empty(),
        "{:#?}{}",
        mock.failures(),
        run.dump()
    );
    // lsp-mode reports a failure to handle one of Tandem's messages this way.
    assert!(
        !run.stderr.contains("Error processing message"),
        "{}",
        run.dump()
    );
}

#[test]
fn lsp_mode_questions_beside_the_diff_c_g_rejects_and_the_session_reopens() {
    let ws = story::workspace();
    let mock = MockServer::start(story::reopen_scenario());
    let lsp_mode = (&LSP_MODE, "lsp-mode", "lsp_mode_reopen.el");
    let run = run_phase(&ws, &mock, lsp_mode, "first");
    check_question_keys_and_progress(&run);
    let dump = run.dump();
    // lsp-mode opens no documents for the server: the question names the diff the setup shows.
    let questions = run.strings("/questions", None);
    assert!(
        questions[0]
            .starts_with("Tandem wants to edit answer.py at line 2 (+1 −1 lines). The diff: ")
            && questions[0].ends_with(".diff. Apply?"),
        "{questions:?}{dump}"
    );
    // The transcript command opens the whole conversation.
    let transcript = run.get("/transcript").as_str().unwrap_or_default();
    assert!(
        transcript.contains("## You\n\nTry again") && transcript.contains("A second paragraph."),
        "{transcript}{dump}"
    );
    assert!(!run.stderr.contains("Error processing message"), "{dump}");
    check_reopened(&run_phase(&ws, &mock, lsp_mode, "resume"), &mock);
}

#[test]
fn the_agent_shell_command_starts_a_working_agent() {
    EMACS.require();
    let ws = Workspace::new();
    let mock = answering(1);
    std::fs::write(&ws.setup, docs_snippet("agent-shell")).unwrap();
    let script = scripts_dir().join("snippet_agent_shell.el");
    let run = ws.run_editor(
        &mock,
        "emacs",
        &["--batch", "-l", &script.display().to_string()],
    );
    run.assert_finished();
    let dump = run.dump();
    assert_eq!(run.get("/interactive"), &Value::Bool(true), "{dump}");
    assert_eq!(run.get("/identifier"), "tandem", "{dump}");
    assert_eq!(run.get("/new_shell"), &Value::Bool(true), "{dump}");
    assert_eq!(
        run.get("/context_buffer_is_buffer"),
        &Value::Bool(true),
        "{dump}"
    );

    // acp.el starts `command` with `command-params`, its `environment-variables` put before
    // Emacs's own (so they win). Emacs here was started from a shell that set the model server
    // and another model, as "Before you start" says; the snippet's TANDEM_MODEL wins.
    let mut argv = vec![run.get("/command").clone()];
    argv.extend(
        run.get("/command_params")
            .as_array()
            .cloned()
            .unwrap_or_default(),
    );
    let mut launch = Launch::from_argv(&Value::Array(argv), EnvBase::Inherit)
        .with_env("TANDEM_BASE_URL", &mock.base_url())
        .with_env("TANDEM_MODEL", "model-from-the-shell");
    for pair in run.strings("/environment_variables", None) {
        let (name, value) = pair
            .split_once('=')
            .unwrap_or_else(|| panic!("not NAME=VALUE: {pair}"));
        launch = launch.with_env(name, value);
    }
    let sandbox = Sandbox::new();
    check_acp_answers(
        &sandbox,
        &launch,
        &mock,
        "agent-shell",
        "qwen2.5-coder-7b-instruct",
    );
}
