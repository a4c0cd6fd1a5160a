//! Neovim (0.7, Debian's) with the setup of docs/editors.md.

use mock_model::{MockServer, Reply, Scenario};
use serde_json::{Value, json};

use crate::harness::{NEOVIM, Run, Workspace, docs_snippet, scripts_dir};
use crate::story;

/// Runs `script` in headless Neovim with the docs' setup.
fn nvim(ws: &Workspace, mock: &MockServer, script: &str) -> Run {
    NEOVIM.require();
    std::fs::write(&ws.setup, docs_snippet("nvim-0.7")).unwrap();
    let luafile = format!("luafile {}", scripts_dir().join(script).display());
    ws.run_editor(
        mock,
        "nvim",
        &[
            "--headless",
            "-u",
            "NONE",
            "-i",
            "NONE",
            "-n",
            "-c",
            &luafile,
        ],
    )
}

#[test]
fn accepted_edits_land_in_the_buffer_and_a_rejected_one_does_not() {
    let ws = story::workspace();
    let mock = MockServer::start(story::scenario());
    let run = nvim(&ws, &mock, "nvim_accept_reject.lua");
    story::check(&run, &ws, &mock);

    // Neovim shows progress: one begin and one end per turn, the tools reported between.
    let kinds = run.strings("/progress", Some("kind"));
    let begins = kinds.iter().filter(|k| *k == "begin").count();
    let ends = kinds.iter().filter(|k| *k == "end").count();
    assert_eq!((begins, ends), (2, 2), "{}", run.dump());
    let titles = run.strings("/progress", Some("title"));
    assert_eq!(titles[0], "Tandem", "{}", run.dump());

    // tandem.undo puts the buffer back as it was before the turn (the user's own unsaved line
    // kept), through the editor: the file on disk is still untouched.
    let messages = run.strings("/messages", Some("message"));
    assert_eq!(
        messages.get(2).map(String::as_str),
        Some("Tandem: restored answer.py"),
        "{}",
        run.dump()
    );
    assert_eq!(
        run.get("/after_undo/lines"),
        &json!(["# The answer, unsaved.", "def answer():", "    return 41"]),
        "{}",
        run.dump()
    );
    assert_eq!(ws.read(story::FILE), story::ORIGINAL, "{}", run.dump());

    // The multi-line answer is in the docs' answer window, whole; each question was in the
    // question window, which is gone once answered.
    assert_eq!(
        run.get("/answer_window"),
        &json!([
            "Changing the answer.",
            "And the signature.",
            "The answer is now 42."
        ]),
        "{}",
        run.dump()
    );
    assert_eq!(
        run.get("/question_window_after"),
        &Value::Null,
        "{}",
        run.dump()
    );
    for q in run.get("/questions").as_array().unwrap() {
        assert_eq!(
            q["window"][2],
            "a: Accept   r or Enter: Reject   A: Always",
            "{}",
            run.dump()
        );
    }
}

#[test]
fn code_actions_the_transcript_and_cancel() {
    let ws = story::workspace();
    let mock = MockServer::start(Scenario::new([
        Reply::text("The code is fine.").expect_messages_contain("The editor reports:"),
        // A turn that never ends on its own: the user cancels it.
        Reply::text("Thinking it over").stall_after(3),
    ]));
    let run = nvim(&ws, &mock, "nvim_actions_transcript_cancel.lua");
    run.assert_finished();
    let dump = run.dump();

    // An empty selection gets no actions; a selection gets all three, in Neovim's menu.
    assert_eq!(run.get("/empty_selection"), &Value::Null, "{dump}");
    assert_eq!(
        run.strings("/menu", None),
        [
            "Tandem: Ask about this",
            "Tandem: Fix this",
            "Tandem: Edit selection…"
        ],
        "{dump}"
    );
    // "Fix this" asks about the selected lines, with the problems the editor reports.
    let failures = mock.failures();
    assert!(failures.is_empty(), "{failures:#?}{dump}");
    let requests = mock.chat_requests();
    let prompt = requests[0].message_texts().join("\n");
    for part in [
        "Fix the problems in this code.",
        "- line 2: error: the answer is 42",
        "lines=\"1-2\"",
    ] {
        assert!(prompt.contains(part), "{part:?} not in {prompt}{dump}");
    }

    // The transcript opens in a split; it is Markdown in the data dir, with the whole exchange.
    let path = run.get("/transcript/path").as_str().unwrap();
    assert!(
        path.starts_with(&ws.data_dir.join("transcripts").display().to_string())
            && path.ends_with(".md"),
        "{path}{dump}"
    );
    let shown = run.strings("/transcript/lines", None).join("\n");
    assert!(
        shown.contains("## You\n\nFix the problems in this code.")
            && shown.contains("## Tandem\n\nThe code is fine."),
        "{shown}{dump}"
    );
    assert_eq!(
        std::fs::read_to_string(path).unwrap().trim_end(),
        shown.trim_end()
    );

    // Cancelled from the key mapping: the turn ends with a warning.
    let messages = run.get("/messages");
    assert_eq!(messages[0]["message"], "The code is fine.", "{dump}");
    assert_eq!(
        messages[1],
        json!({"type": 2, "message": "Tandem: cancelled."}),
        "{dump}"
    );
}

#[test]
fn a_closed_question_rejects_the_cursor_comes_back_and_the_session_reopens_after_a_restart() {
    let ws = story::workspace();
    let mock = MockServer::start(story::reopen_scenario());
    let run = nvim(&ws, &mock, "nvim_close_question.lua");
    run.assert_finished();
    let dump = run.dump();

    // Closing the question window rejected the edit at once: the turn ended, the diff closed,
    // the cursor is back in the code.
    assert_eq!(run.get("/diff_open_when_asked"), true, "{dump}");
    let messages = run.strings("/messages", Some("message"));
    assert_eq!(messages[0], "Changing the answer.\nLeft at 41.", "{dump}");
    assert!(
        run.get("/after_close/current")
            .as_str()
            .unwrap()
            .ends_with(story::FILE),
        "{dump}"
    );
    assert_eq!(run.get("/after_close/diff_open"), false, "{dump}");
    assert_eq!(run.get("/after_close/question_open"), false, "{dump}");
    assert_eq!(
        run.get("/after_close/buffer/lines"),
        &json!(["def answer():", "    return 41"]),
        "{dump}"
    );
    // The next question: `a` in the question window accepts and puts the cursor back.
    assert!(
        run.get("/after_accept_key")
            .as_str()
            .unwrap()
            .ends_with(story::FILE),
        "the cursor stayed out of the code{dump}"
    );
    assert_eq!(
        run.get("/after_accept/lines"),
        &json!(["def answer():", "    return 42"]),
        "{dump}"
    );
    assert_eq!(
        run.get("/answer_window"),
        &json!(["Trying again.", "Now 42.", "", "A second paragraph."]),
        "{dump}"
    );

    // Progress: each turn's step, tool and tokens, shown by the docs' handler; gone at the end.
    let reports: Vec<String> = run
        .get("/progress")
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["kind"] == "report")
        .map(|v| v["message"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        reports
            .iter()
            .any(|r| r.starts_with("Step 1: Edit answer.py"))
            && reports
                .iter()
                .any(|r| r.starts_with("Step 2") && r.ends_with(" tokens")),
        "{reports:?}{dump}"
    );
    let shown = run.strings("/progress_shown", None);
    assert!(
        shown
            .iter()
            .any(|s| s.starts_with("Tandem: Step 1: Edit answer.py")),
        "{shown:?}{dump}"
    );
    assert_eq!(shown.last().map(String::as_str), Some(""), "{dump}");

    // Neovim restarts: the session is listed, reopened with its turns shown, and continued with
    // its history sent to the model.
    let run = nvim(&ws, &mock, "nvim_resume.lua");
    run.assert_finished();
    let dump = run.dump();
    let menu = run.strings("/menu", None);
    assert_eq!(menu.len(), 1, "{dump}");
    assert!(menu[0].contains("Make the answer 42"), "{dump}");
    story::check_resumed(&run.strings("/messages", Some("message")), &mock, &dump);
    let window = run.strings("/resumed_window", None);
    assert_eq!(
        window[0], "Tandem: resumed \"Make the answer 42\" (2 earlier turns):",
        "{dump}"
    );
}

/// After a turn whose command changed a file (answered in Neovim), the docs' `:TandemDiff`
/// (`tandem.diff`) opens the turn's change set: that file's change, by the command.
#[test]
fn a_commands_change_opens_with_tandem_diff() {
    let ws = story::workspace();
    ws.write("notes.txt", "first note\nsecond note\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "execute_command",
            json!({"command": "sed -i s/second/2nd/ notes.txt && echo done"}),
        ),
        Reply::text("Updated the notes.").expect_tool_result_contains("done"),
    ]));
    let run = nvim(&ws, &mock, "nvim_command_diff.lua");
    run.assert_finished();
    let dump = run.dump();
    assert_eq!(ws.read("notes.txt"), "first note\n2nd note\n", "{dump}");
    let questions = run.strings("/questions", Some("message"));
    assert_eq!(questions.len(), 1, "{dump}");
    let shown = run.get("/shown").as_array().unwrap();
    assert_eq!(shown.len(), 1, "{dump}");
    let path = shown[0]["path"].as_str().unwrap();
    assert!(path.ends_with(".diff"), "{path}{dump}");
    let lines = run.strings("/shown/0/lines", None);
    assert_eq!(lines[0], "# Turn t1: 1 file changed", "{dump}");
    assert!(
        lines[1].starts_with("# modified notes.txt by a command ("),
        "{dump}"
    );
    assert!(lines.contains(&"-second note".to_string()), "{dump}");
    assert!(lines.contains(&"+2nd note".to_string()), "{dump}");
    let failures = mock.failures();
    assert!(failures.is_empty(), "{failures:#?}{dump}");
}

#[test]
fn a_long_answer_shows_its_end() {
    let ws = story::workspace();
    let answer: Vec<String> = (1..=40)
        .map(|n| format!("Line {n} of the answer."))
        .collect();
    let mock = MockServer::start(Scenario::new([Reply::text(answer.join("\n"))]));
    let run = nvim(&ws, &mock, "nvim_long_answer.lua");
    run.assert_finished();
    let dump = run.dump();
    assert_eq!(run.get("/answer/lines"), 40, "{dump}");
    assert_eq!(run.get("/answer/last"), "Line 40 of the answer.", "{dump}");
    // The window (15 lines in Neovim's 24) shows the answer's last line.
    assert_eq!(run.get("/answer/bottom"), 40, "{dump}");
    assert_eq!(run.get("/answer/height"), 15, "{dump}");
}
