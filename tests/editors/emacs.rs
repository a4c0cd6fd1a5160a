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
fn accepted_edits_land_in_the_buffer_a_rejected_one_does_not_and_the_transcript_opens() {
    let ws = story::workspace();
    let mock = MockServer::start(story::scenario());
    let run = emacs(&ws, &mock, "eglot_accept_reject.el");
    story::check(&run, &ws, &mock);

    // eglot 1.9 can't open the transcript for the server: the docs' command opens the path the
    // command returns, and the server says where it is.
    let path = run.get("/transcript/path").as_str().unwrap();
    assert!(
        path.starts_with(&ws.data_dir.join("transcripts").display().to_string()),
        "{path}{}",
        run.dump()
    );
    let text = run.get("/transcript/text").as_str().unwrap();
    assert!(
        text.contains("## You\n\nMake the answer 42") && text.contains("Leaving it at 42."),
        "{text}{}",
        run.dump()
    );
    let messages = run.strings("/messages", Some("message"));
    assert_eq!(
        messages[2..],
        [format!("Tandem: the transcript is in {path}")],
        "{}",
        run.dump()
    );
}
