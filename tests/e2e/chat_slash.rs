//! `tandem chat`'s slash commands run in the chat, never reach the model; `--resume` shows the
//! earlier conversation. Driven with piped stdin: each line is what the user types.

use std::process::Output;

use crate::approvals::{ORIGINAL, edit_then};
use crate::support::*;

async fn chat(env: &Env, mock: &MockServer, args: &[&str], typed: &str) -> Output {
    let mut command = env.command();
    command
        .arg("chat")
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir)
        .args(args);
    let output = run_piped(command, typed).await;
    assert!(output.status.success(), "{}", show(&output));
    output
}

#[tokio::test]
async fn slash_commands_stay_in_the_chat() {
    let env = Env::new();
    let mock = MockServer::start(
        Scenario::new([Reply::text("Hi there.").expect_messages_contain("/help me")]).with_models(
            [
                ModelEntry {
                    id: "mock-coder".into(),
                    context_length: None,
                    extra: None,
                },
                ModelEntry {
                    id: "other-model".into(),
                    context_length: None,
                    extra: None,
                },
            ],
        ),
    );
    let output = chat(
        &env,
        &mock,
        &[],
        "/help\n/frobnicate now\n/models\n/model other-model\n/model\n//help me\n/rules\n/exit\n",
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    for needle in [
        "/undo [TURN]",
        "/diff",
        "Unknown command /frobnicate",
        "* mock-coder",
        "  other-model",
        "Model: other-model from now on.",
        "Model: other-model\n",
        "Hi there.",
        "No rules files so far",
    ] {
        assert!(
            stdout.contains(needle),
            "{needle:?} missing\n{}",
            show(&output)
        );
    }
    // One request: the `//` line, as `/help me`, to the model picked with /model.
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 1, "{}", show(&output));
    assert_eq!(requests[0].body["model"], "other-model");
    let texts = requests[0].message_texts().join("\n");
    assert!(!texts.contains("frobnicate"), "{texts}");
}

#[tokio::test]
async fn diff_shows_the_sessions_edits_and_resume_shows_the_earlier_turns() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(edit_then(Reply::text(
        "The answer is now 42.\nSecond line of the answer.",
    )));
    let output = chat(
        &env,
        &mock,
        &["--yes"],
        "/diff\nMake the answer 42\n/diff\n/exit\n",
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let (before, after) = stdout
        .split_once("Second line of the answer.")
        .unwrap_or_else(|| panic!("no answer\n{}", show(&output)));
    assert!(before.contains("No edits in this session."), "{stdout}");
    assert!(
        after.contains("-    41") && after.contains("+    42"),
        "{stdout}"
    );
    assert_eq!(model_requests(&mock).len(), 2);

    // Reopened: the earlier conversation, one line each, before the prompt; no request made.
    let idle = MockServer::start(Scenario::new([]));
    let output = chat(&env, &idle, &["--resume"], "/exit\n").await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let replay: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("you> M") || l.starts_with("ai> ") || l.starts_with("  • "))
        .collect();
    assert_eq!(replay.len(), 4, "{}", show(&output));
    assert_eq!(replay[0], "you> Make the answer 42");
    assert_eq!(replay[1], "ai> Changing the answer.");
    assert!(replay[2].starts_with("  • "), "{replay:?}");
    assert_eq!(replay[3], "ai> The answer is now 42. …");
    assert!(stdout.contains("Resumed session"), "{stdout}");
    assert!(idle.chat_requests().is_empty());
}
