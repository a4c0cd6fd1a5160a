//! `tandem chat --prompt`: one turn from the command line, for scripts.

use std::process::Stdio;

use crate::approvals::{ORIGINAL, PROPOSED, edit_then};
use crate::support::*;

#[tokio::test]
async fn one_shot_chat_edits_answers_and_logs_the_turn() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(edit_then(Reply::text("The answer is now 42.")));
    let log = env.data_dir.join("turns.jsonl");
    let run = env
        .command()
        .arg("chat")
        .args(["--prompt", "Make the answer 42", "--yes"])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir)
        .arg("--json-log")
        .arg(&log)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output();
    let output = tokio::time::timeout(SAFETY, run)
        .await
        .expect("tandem chat hung")
        .expect("cannot run tandem chat");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    assert!(stdout.contains("The answer is now 42."), "{stdout}");
    assert!(
        !stdout.contains('\x1b'),
        "no colors when not a terminal: {stdout:?}"
    );
    assert_eq!(env.read("src/answer.rs"), PROPOSED);
    assert_eq!(model_requests(&mock).len(), 2);

    let log = std::fs::read_to_string(&log).expect("the JSON log was written");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 1, "{log}");
    let entry: Value = serde_json::from_str(lines[0]).expect("a JSON line");
    assert!(
        entry["turn"].as_str().is_some_and(|t| !t.is_empty()),
        "{entry:#}"
    );
    assert!(
        entry["timestamp"]
            .as_str()
            .is_some_and(|t| t.starts_with("20") && t.contains('T')),
        "{entry:#}"
    );
    assert_eq!(entry["model"], "mock-coder");
    let messages = entry["messages"].as_array().expect("messages");
    let text = Value::Array(messages.clone()).to_string();
    for needle in [
        "Make the answer 42",
        "replace_in_file",
        "The answer is now 42.",
    ] {
        assert!(text.contains(needle), "{needle:?} not logged: {entry:#}");
    }
}
