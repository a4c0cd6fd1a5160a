//! Emacs (28, Debian's) with eglot (1.9) and the setup of docs/editors.md.

use mock_model::{MockServer, Reply, Scenario};
use serde_json::json;

use crate::harness::{EMACS, Editor, Run, Workspace, docs_snippet, scripts_dir};
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
                && window.contains("a: Accept   r, RET or C-g: Reject   A: Always"),
            "{window}{}",
            run.dump()
        );
    }
}

#[test]
fn the_echo_area_marks_tandems_messages_once_and_a_new_session_says_so() {
    let ws = story::workspace();
    let mock = MockServer::start(Scenario::new([Reply::text("Looked at it.\nAll fine.")]));
    let run = emacs(&ws, &mock, "eglot_messages.el");
    run.assert_finished();
    // The answer's first line gets the mark; Tandem's notes carry it already, once.
    assert_eq!(
        run.strings("/echoed", None),
        [
            "Tandem: Looked at it.",
            "Tandem: nothing to undo.",
            "Tandem: new session started; earlier ones can be resumed."
        ],
        "{}",
        run.dump()
    );
}

/// The first run of the reopen story (eglot_reopen.el, lsp_mode_reopen.el record the same):
/// the diff and the question each in a window, C-g rejecting at once and closing the diff, `a`
/// accepting and the cursor back in the code, the answers shown from the latest, the progress.
pub(crate) fn check_question_keys_and_progress(run: &Run) {
    run.assert_finished();
    let dump = run.dump();
    let diff = run
        .get("/diff_window_when_asked")
        .as_str()
        .unwrap_or_default();
    assert!(
        diff.ends_with(".diff"),
        "the diff had no window of its own{dump}"
    );
    let asked = run.strings("/asked/all", None);
    assert!(
        asked.iter().any(|b| b == "*tandem question*") && asked.iter().any(|b| b == diff),
        "{asked:?}{dump}"
    );
    assert_eq!(
        run.get("/asked/selected"),
        "answer.py",
        "the question took the focus{dump}"
    );
    // C-g in the question: rejected at once (the turn ended with the model told), the question
    // and the diff closed, the cursor back in the code.
    assert_eq!(run.get("/after_cg/selected"), "answer.py", "{dump}");
    let after = run.strings("/after_cg/all", None);
    assert!(
        !after.iter().any(|b| b == "*tandem question*"),
        "{after:?}{dump}"
    );
    assert_eq!(run.get("/diff_open_after_cg"), false, "{dump}");
    let messages = run.strings("/messages", None);
    assert_eq!(messages[0], "Changing the answer.\nLeft at 41.", "{dump}");
    assert_eq!(
        run.get("/buffer_after_reject"),
        &json!(["def answer():", "    return 41"]),
        "{dump}"
    );
    assert_eq!(run.get("/after_accept/selected"), "answer.py", "{dump}");
    assert_eq!(
        run.get("/buffer_after_accept"),
        &json!(["def answer():", "    return 42"]),
        "{dump}"
    );
    // The *tandem* window shows the latest answer from its start, both paragraphs.
    let shown = run.get("/answers_shown").as_str().unwrap_or_default();
    assert!(
        shown.starts_with("Trying again.\nNow 42.\n\nA second paragraph."),
        "{shown:?}{dump}"
    );
    // Progress came for both turns and showed in the mode line, the step and tool first.
    let progress = run.get("/progress").as_array().unwrap();
    let kinds: Vec<&str> = progress.iter().filter_map(|p| p["kind"].as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "begin").count(), 2, "{dump}");
    assert_eq!(kinds.iter().filter(|k| **k == "end").count(), 2, "{dump}");
    let mode_line = run.strings("/mode_line", None);
    assert!(
        mode_line
            .iter()
            .any(|m| m.contains("Step 1: Edit answer.py")),
        "{mode_line:?}{dump}"
    );
    assert!(
        mode_line
            .iter()
            .any(|m| m.contains("Step 2") && m.contains(" tokens")),
        "{mode_line:?}{dump}"
    );
    assert_eq!(mode_line.last().map(String::as_str), Some(""), "{dump}");
}

/// Runs `script` in batch Emacs with the docs' `snippet` setup, `phase` in TANDEM_TEST_PHASE
/// (`first`, or `resume` after the first run's restart).
pub(crate) fn run_phase(
    ws: &Workspace,
    mock: &MockServer,
    (editor, snippet, script): (&Editor, &str, &str),
    phase: &str,
) -> Run {
    editor.require();
    std::fs::write(&ws.setup, docs_snippet(snippet)).unwrap();
    let script = scripts_dir().join(script);
    ws.run_editor_with(
        mock,
        "emacs",
        &["--batch", "-l", &script.display().to_string()],
        &[("TANDEM_TEST_PHASE", phase)],
    )
}

/// After the restart: the session offered, reopened with its turns shown, and continued.
pub(crate) fn check_reopened(run: &Run, mock: &MockServer) {
    run.assert_finished();
    let dump = run.dump();
    let menu = run.strings("/menu", None);
    assert!(
        menu.len() == 1 && menu[0].contains("Make the answer 42"),
        "{menu:?}{dump}"
    );
    story::check_resumed(&run.strings("/messages", None), mock, &dump);
    let shown = run.get("/answers_shown").as_str().unwrap_or_default();
    assert!(shown.starts_with("Still 42."), "{shown:?}{dump}");
}

#[test]
fn c_g_rejects_at_once_progress_shows_and_the_session_reopens_after_a_restart() {
    let ws = story::workspace();
    let mock = MockServer::start(story::reopen_scenario());
    let eglot = (&EMACS, "eglot", "eglot_reopen.el");
    check_question_keys_and_progress(&run_phase(&ws, &mock, eglot, "first"));
    check_reopened(&run_phase(&ws, &mock, eglot, "resume"), &mock);
}
