//! Emacs (28, Debian's) with eglot (1.9) and the setup of docs/editors.md.

use mock_model::MockServer;

use crate::harness::{EMACS, Run, Workspace, docs_snippet, scripts_dir};
use crate::story;

/// Runs `script` in batch Emacs with the docs' setup, its model pointed at the mock.
fn emacs(ws: &Workspace, mock: &MockServer, script: &str) -> Run {
    EMACS.require();
    // The setup as the docs have it: it leaves the model to the environment (here, the wrapper's
    // flags); had it sent a provider of its own, every turn would go to port 1234 and fail.
    std::fs::write(&ws.setup, docs_snippet("eglot")).unwrap();
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

    // The transcript opens (the docs' setup lets eglot 1.9 show documents).
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
    // Shown, so the server needs not say where it is.
    let messages = run.strings("/messages", Some("message"));
    assert_eq!(messages.len(), 2, "{}", run.dump());
    // The answers are in the *tandem* buffer, whole.
    let answers = run.get("/answers_buffer").as_str().unwrap();
    assert!(
        answers.contains("Changing the answer.\nAnd the signature.\nThe answer is now 42.")
            && answers.contains("Leaving it at 42."),
        "{answers}{}",
        run.dump()
    );
    // Each question was in the question buffer, with the keys to answer it.
    for q in run.get("/questions").as_array().unwrap() {
        let window = q["window"].as_str().unwrap_or_default();
        assert!(
            window.starts_with("Tandem wants to edit answer.py at line")
                && window.contains("a: Accept   r or RET: Reject   A: Always"),
            "{window}{}",
            run.dump()
        );
    }
}
