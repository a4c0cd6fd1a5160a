//! The story every editor plays, and what the user must see in it.
//!
//! `answer.py` is open; the user types a line above it (unsaved) and asks, with the three lines
//! selected, to make the answer 42. The model edits the file twice in that turn; the user accepts
//! both. Then the user asks to make it 43, and rejects that edit. The second turn's SEARCH text
//! (`return 42`) is only in the editor's buffer, never on disk: the agent must read the buffer.

use mock_model::{MockServer, Reply, Scenario};
use serde_json::{Value, json};

use crate::harness::{Run, Workspace};

pub const FILE: &str = "answer.py";
/// The file on disk, before and after: edits go to the buffer only.
pub const ORIGINAL: &str = "def answer():\n    return 41\n";
pub const FIRST_PROMPT: &str = "Make the answer 42";
pub const SECOND_PROMPT: &str = "Now make it 43";
/// The buffer after the accepted edits (and after the rejected one).
pub const ACCEPTED: [&str; 3] = [
    "# The answer, unsaved.",
    "def answer() -> int:",
    "    return 42",
];

/// The model's replies: what each turn's final message must show.
const FIRST_ANSWER: &str = "Changing the answer.\nAnd the signature.\nThe answer is now 42.";
const SECOND_ANSWER: &str = "Changing it again.\nLeaving it at 42.";

fn edit(search: &str, replace: &str) -> Value {
    json!({"path": FILE,
           "diff": format!("------- SEARCH\n{search}\n=======\n{replace}\n+++++++ REPLACE")})
}

pub fn scenario() -> Scenario {
    // The texts before the tool calls have no newline at the end, as models write them.
    Scenario::new([
        Reply::tool("replace_in_file", edit("    return 41", "    return 42"))
            .with_text("Changing the answer."),
        Reply::tool(
            "replace_in_file",
            edit("def answer():", "def answer() -> int:"),
        )
        .with_text("And the signature.")
        .expect_tool_result_contains("Applied the edit"),
        Reply::text("The answer is now 42.").expect_tool_result_contains("Applied the edit"),
        Reply::tool("replace_in_file", edit("    return 42", "    return 43"))
            .with_text("Changing it again."),
        Reply::text("Leaving it at 42.").expect_tool_result_contains("The user rejected this edit"),
    ])
}

pub fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write(FILE, ORIGINAL);
    ws
}

/// What every editor must show: the questions, the buffer, the disk, the messages, the log, and
/// what the model was sent.
pub fn check(run: &Run, ws: &Workspace, mock: &MockServer) {
    run.assert_finished();
    let dump = run.dump();

    let questions = run.get("/questions").as_array().unwrap();
    let answers: Vec<&Value> = questions.iter().map(|q| &q["answer"]).collect();
    assert_eq!(answers, ["Accept", "Accept", "Reject"], "{dump}");
    // Each question names the file and the line it changes (in the buffer, the user's unsaved
    // line counted); Reject comes first, the default of any client that has one.
    let lines = [3, 2, 3];
    for (q, line) in questions.iter().zip(lines) {
        assert_eq!(
            q["message"],
            format!("Tandem wants to edit answer.py at line {line} (+1 −1 lines). Apply?"),
            "{dump}"
        );
        assert_eq!(
            q["actions"],
            json!(["Reject", "Accept", "Always"]),
            "{dump}"
        );
    }
    // Before each question, the proposed diff was shown beside the code, the cursor left where
    // it was.
    let shown = run.get("/shown").as_array().unwrap();
    assert!(shown.len() >= 3, "{dump}");
    let proposals = ws.data_dir.join("proposals").display().to_string();
    for (doc, (old, new)) in shown.iter().zip([
        ("-    return 41", "+    return 42"),
        ("-def answer():", "+def answer() -> int:"),
        ("-    return 42", "+    return 43"),
    ]) {
        let path = doc["path"].as_str().unwrap_or_default();
        assert!(
            path.starts_with(&proposals) && path.ends_with(".diff"),
            "{path}{dump}"
        );
        assert_eq!(doc["takeFocus"], false, "{dump}");
        let text: Vec<&str> = doc["lines"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|l| l.as_str())
            .collect();
        assert!(text.contains(&old) && text.contains(&new), "{text:?}{dump}");
        assert!(
            doc["current"].as_str().unwrap_or_default().ends_with(FILE),
            "the diff took the focus{dump}"
        );
    }

    // Accepted: the edits are in the buffer, beside the user's unsaved line, and only there.
    assert_eq!(run.get("/after_accept/lines"), &json!(ACCEPTED), "{dump}");
    assert_eq!(run.get("/after_accept/modified"), &json!(true), "{dump}");
    // Rejected: nothing changed.
    assert_eq!(run.get("/after_reject/lines"), &json!(ACCEPTED), "{dump}");
    assert_eq!(
        ws.read(FILE),
        ORIGINAL,
        "the file was written behind the editor's back{dump}"
    );

    // The answer comes at the end of each turn; the log has it line by line, with the tools.
    let messages = run.strings("/messages", Some("message"));
    assert_eq!(messages[..2], [FIRST_ANSWER, SECOND_ANSWER], "{dump}");
    let log = run.strings("/log", Some("message"));
    let expected_log = [
        "Changing the answer.",
        "Tandem: Edit answer.py",
        "Tandem: done: Applied the edit to answer.py (+1 -1).",
        "And the signature.",
        "Tandem: Edit answer.py",
        "Tandem: done: Applied the edit to answer.py (+1 -1).",
        "The answer is now 42.",
        "Changing it again.",
        "Tandem: Edit answer.py",
        "Tandem: rejected: The user rejected this edit.",
        "Leaving it at 42.",
    ];
    assert_eq!(log, expected_log, "{dump}");

    // The model saw the selection as the buffer had it.
    let failures = mock.failures();
    assert!(
        failures.is_empty(),
        "the mock model reported {failures:#?}{dump}"
    );
    let requests = mock.chat_requests();
    assert_eq!(requests.len(), 5, "{dump}");
    let first = requests[0].message_texts().join("\n");
    assert!(
        first.contains(FIRST_PROMPT)
            && first.contains("lines=\"1-3\"")
            && first.contains("# The answer, unsaved.\ndef answer():\n    return 41"),
        "the first prompt lacks the selection as the buffer had it: {first}{dump}"
    );
    let second = requests[3].message_texts().join("\n");
    assert!(second.contains(SECOND_PROMPT), "{second}{dump}");
}

/// The second story: the user asks to make the answer 42 and rejects the edit (by closing the
/// question, or C-g), asks again and accepts (answered in two paragraphs); then the editor
/// restarts, the session is reopened, and one more question continues it.
pub fn reopen_scenario() -> Scenario {
    let edit = || {
        json!({"path": FILE,
               "diff": "------- SEARCH\n    return 41\n=======\n    return 42\n+++++++ REPLACE"})
    };
    Scenario::new([
        Reply::tool("replace_in_file", edit()).with_text("Changing the answer."),
        Reply::text("Left at 41.").expect_tool_result_contains("The user rejected this edit"),
        Reply::tool("replace_in_file", edit()).with_text("Trying again."),
        Reply::text("Now 42.\n\nA second paragraph.")
            .expect_tool_result_contains("Applied the edit"),
        // After the restart: the model is given the earlier turns.
        Reply::text("Still 42.")
            .expect_messages_contain("Make the answer 42")
            .expect_messages_contain("A second paragraph.")
            .expect_messages_contain("What is it now?"),
    ])
}

/// What the reopened session shows and what the model was sent: its earlier turns, then the
/// new question's answer. `messages` are the answers the editor was shown after the restart.
pub fn check_resumed(messages: &[String], mock: &MockServer, dump: &str) {
    let resumed = messages.first().map(String::as_str).unwrap_or_default();
    assert!(
        resumed.starts_with("Tandem: resumed \"Make the answer 42\" (2 earlier turns):")
            && resumed.contains("> Make the answer 42\n\nChanging the answer.\nLeft at 41.")
            && resumed.contains("> Try again\n\nTrying again.\nNow 42.\n\nA second paragraph."),
        "{resumed}{dump}"
    );
    assert_eq!(
        messages.get(1).map(String::as_str),
        Some("Still 42."),
        "{dump}"
    );
    // The model's requests: the last one holds the earlier turns (checked by the scenario).
    let failures = mock.failures();
    assert!(failures.is_empty(), "{failures:#?}{dump}");
    assert_eq!(mock.chat_requests().len(), 5, "{dump}");
}
