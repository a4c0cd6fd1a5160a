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

/// `tandem chat --prompt` and `tandem exec`: an `@path` of an image in the workspace attaches
/// it (sent as an `image_url` part after the text); one outside the workspace, or a file that
/// is no image, is refused before anything is sent.
#[tokio::test]
async fn an_image_named_with_at_reaches_the_model_and_a_bad_one_is_refused() {
    use base64::Engine;
    let env = Env::new();
    let shot = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/images/shot.png"
    ))
    .unwrap();
    std::fs::create_dir_all(env.workspace.join("ui")).unwrap();
    std::fs::write(env.workspace.join("ui/shot.png"), &shot).unwrap();
    env.write("notes.png", "not an image\n");
    std::fs::write(env.workspace.parent().unwrap().join("outside.png"), &shot).unwrap();
    let mock = MockServer::start(Scenario::new([
        Reply::text("A gradient."),
        Reply::text("Still a gradient."),
    ]));
    let run = |command: &str, prompt: &str| {
        let mut cmd = env.command();
        match command {
            "chat" => cmd.args(["chat", "--prompt", prompt]),
            _ => cmd.args(["exec", prompt]),
        };
        cmd.args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
            .arg("--root")
            .arg(&env.workspace)
            .arg("--data-dir")
            .arg(&env.data_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
    };
    let url = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&shot)
    );
    for (n, command) in ["chat", "exec"].into_iter().enumerate() {
        let output = tokio::time::timeout(SAFETY, run(command, "What is wrong in @ui/shot.png?"))
            .await
            .expect("hung")
            .expect("cannot run tandem");
        assert!(output.status.success(), "{command}: {}", show(&output));
        let requests = model_requests(&mock);
        let user = requests[n]
            .messages_with_role("user")
            .last()
            .cloned()
            .unwrap()
            .clone();
        assert_eq!(
            user["content"],
            json!([
                {"type": "text", "text": "What is wrong in @ui/shot.png?"},
                {"type": "image_url", "image_url": {"url": url}},
            ]),
            "{command}"
        );
    }
    for (prompt, why) in [
        ("Look at @../outside.png", "outside the workspace"),
        (
            "Look at @notes.png",
            "notes.png is not a PNG, JPEG, WebP or GIF",
        ),
        ("Look at @missing.gif", "missing.gif can't be attached"),
    ] {
        for command in ["chat", "exec"] {
            let output = tokio::time::timeout(SAFETY, run(command, prompt))
                .await
                .expect("hung")
                .expect("cannot run tandem");
            assert!(
                !output.status.success(),
                "{command} {prompt}: {}",
                show(&output)
            );
            let stderr = String::from_utf8_lossy(&output.stderr);
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                stderr.contains(why) || stdout.contains(why),
                "{command} {prompt}: {}",
                show(&output)
            );
        }
    }
    assert_eq!(model_requests(&mock).len(), 2, "a refused prompt was sent");
}
