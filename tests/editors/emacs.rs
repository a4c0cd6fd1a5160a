//! Emacs (28, Debian's) with eglot (1.9) and the setup of docs/editors.md.

use mock_model::MockServer;

use crate::harness::{EMACS, Run, Workspace, docs_snippet, scripts_dir};
use crate::story;

/// Runs `script` in batch Emacs with the docs' setup, its model pointed at the mock.
fn emacs(ws: &Workspace, mock: &MockServer, script: &str) -> Run {
    EMACS.require();
    // The docs configure the model in `initializationOptions` (which win over the wrapper's
    // flags): the same setup, with the mock's address.
    let setup = docs_snippet("eglot")
        .replace("http://127.0.0.1:1234/v1", &mock.base_url())
        .replace("qwen2.5-coder-7b-instruct", crate::harness::MODEL);
    std::fs::write(&ws.setup, setup).unwrap();
    let script = scripts_dir().join(script);
    // Not -Q: Debian's elpa packages (eglot) load from site-start.
    ws.run_editor(
        mock,
        "emacs",
        &["--batch", "-l", &script.display().to_string()],
    )
}

#[test]
fn accepted_edits_land_in_the_buffer_and_a_rejected_one_does_not() {
    let ws = story::workspace();
    let mock = MockServer::start(story::scenario());
    let run = emacs(&ws, &mock, "eglot_accept_reject.el");
    story::check(&run, &ws, &mock);
}
