//! `tandem chat`'s slash commands run in the chat, never reach the model; `--resume` shows the
//! earlier conversation. Driven with piped stdin: each line is what the user types.

use crate::approvals::{EDIT, ORIGINAL, edit_then};
use crate::support::*;

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
    let output = chat_piped(
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
    let output = chat_piped(
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
    assert!(before.contains("No changes in this session."), "{stdout}");
    assert!(
        after.contains("-    41") && after.contains("+    42"),
        "{stdout}"
    );
    assert!(
        after.contains("Turn t1: 1 file changed\nmodified src/answer.rs  by an edit ("),
        "{stdout}"
    );
    assert_eq!(model_requests(&mock).len(), 2);

    // Reopened: the earlier conversation, one line each, before the prompt; no request made.
    let idle = MockServer::start(Scenario::new([]));
    let output = chat_piped(&env, &idle, &["--resume"], "/exit\n").await;
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

#[tokio::test]
async fn compact_shrinks_the_conversation_now_and_says_by_how_much() {
    let env = Env::new();
    let big = "a line of the notes that the model read once\n".repeat(60);
    env.write("notes.txt", &big);
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": "notes.txt"})),
        Reply::text("Read them."),
        Reply::text("Second answer."),
        // The summarizer's request: no tools, the earlier turn to summarize.
        Reply::text("SUMMARY-7: the user had notes.txt read.")
            .expect_messages_contain("Read the notes"),
        Reply::text("Third answer.").expect_messages_contain("SUMMARY-7"),
    ]));
    let output = chat_piped(
        &env,
        &mock,
        &[],
        "Read the notes\nAnd then?\n/compact\n/compact\nGo on\n/exit\n",
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Compacted: "))
        .unwrap_or_else(|| panic!("no report\n{}", show(&output)));
    assert!(
        line.starts_with("Compacted: 1 tool output elided, 4 messages summarized; ~"),
        "{line}"
    );
    // The numbers: fewer tokens after than before.
    let numbers: Vec<u64> = line
        .split('~')
        .skip(1)
        .map(|n| {
            n.chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',')
                .filter(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .unwrap()
        })
        .collect();
    assert!(numbers[0] > numbers[1] + 300, "{line}");
    // Twice in a row: nothing more to do, and said so.
    assert!(stdout.contains("Nothing to compact"), "{stdout}");
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 5, "{}", show(&output));
    let last = requests[4].message_texts().join("\n");
    assert!(!last.contains("a line of the notes"), "{last}");
    assert!(!last.contains("Read them."), "{last}");
    assert!(
        last.contains("Second answer."),
        "the latest exchange stays: {last}"
    );
}

#[tokio::test]
async fn mcp_lists_the_servers_their_state_and_tools() {
    let servers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp-servers");
    assert!(
        servers
            .join("node_modules/@modelcontextprotocol/sdk")
            .exists(),
        "run `npm ci --prefix tests/mcp-servers` from the repository root"
    );
    let env = Env::new();
    let config = env.data_dir.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[[mcp.servers]]\nname = \"t\"\ncommand = \"node\"\nargs = [\"{}\"]\n\n\
             [[mcp.servers]]\nname = \"broken\"\ncommand = \"/nonexistent/mcp-server\"\n",
            servers.join("test-server.mjs").display()
        ),
    )
    .unwrap();
    env.write(
        ".tandem/config.toml",
        "[[mcp.servers]]\nname = \"proj\"\ncommand = \"node\"\nargs = [\"tools/docs.js\"]\n",
    );
    let mock = MockServer::start(Scenario::new([]));
    let output = chat_piped(
        &env,
        &mock,
        &["--config", config.to_str().unwrap()],
        "/mcp\n/exit\n",
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let running = stdout
        .lines()
        // The first line of the answer follows the `you> ` it answers (piped: no newline).
        .find(|l| l.trim_start_matches("you> ").starts_with("t (node "))
        .unwrap_or_else(|| panic!("no line for t\n{}", show(&output)));
    assert!(running.contains(": running (pid "), "{running}");
    for needle in [
        "  5 tools: add-tool, flood, pid, spawn-child, hang\n",
        "broken (/nonexistent/mcp-server): down: ",
        "proj (node tools/docs.js): named by ",
        "you are asked at the next turn whether to start it",
    ] {
        assert!(
            stdout.contains(needle),
            "{needle:?} missing\n{}",
            show(&output)
        );
    }
    assert!(
        mock.chat_requests().is_empty(),
        "/mcp asks the model nothing"
    );
}

#[tokio::test]
async fn compaction_and_a_cut_answer_are_told_in_plain_text() {
    let env = Env::new();
    let mut replies = crate::local::six_reads(&env);
    replies.push(Reply::text("All **read**."));
    replies.push(Reply::text("A partial answer").finish_reason("length"));
    let mock = MockServer::start(Scenario::new(replies));
    let output = chat_piped(
        &env,
        &mock,
        &["--context-window", "4096"],
        "Read the six files.\nTell me everything\n/exit\n",
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("[context compacted for the 4096-token window: "),
        "no compaction notice\n{}",
        show(&output)
    );
    assert!(stdout.contains("A partial answer"), "{stdout}");
    assert!(
        stdout.contains("error: the answer was cut at "),
        "no cut notice\n{}",
        show(&output)
    );
    // Not a terminal: plain text, as the model wrote it, without escapes.
    assert!(stdout.contains("All **read**."), "{stdout}");
    assert!(!stdout.contains('\x1b'), "{stdout:?}");
}

#[tokio::test]
async fn undo_restores_the_turns_edit_and_new_starts_afresh() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "replace_in_file",
            json!({"path": "src/answer.rs", "diff": EDIT}),
        ),
        Reply::text("Done."),
        Reply::text("Fresh."),
    ]));
    let output = chat_piped(
        &env,
        &mock,
        &["--yes"],
        "Make the answer 42\n/undo\n/undo\n/new\nWhat is here?\n/exit\n",
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Restored: src/answer.rs"),
        "{}",
        show(&output)
    );
    assert!(stdout.contains("Nothing to undo."), "{}", show(&output));
    assert!(stdout.contains("New session."), "{}", show(&output));
    assert_eq!(env.read("src/answer.rs"), ORIGINAL);
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 3, "{}", show(&output));
    // The new session's first request knows nothing of the old one.
    let fresh = requests[2].message_texts().join("\n");
    assert!(fresh.contains("What is here?"), "{fresh}");
    assert!(!fresh.contains("Make the answer 42"), "{fresh}");
}

#[tokio::test]
async fn hooks_lists_the_users_hooks_and_the_projects() {
    let env = Env::new();
    let config = env.data_dir.join("config.toml");
    std::fs::write(
        &config,
        "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\nhooks = [{ type = \"command\", command = \
         \"python3 ~/check.py\", timeout = 5 }]\n\n[[hooks.Stop]]\nhooks = [{ type = \
         \"command\", command = \"notify-send done\", sandbox = false }]\n",
    )
    .unwrap();
    // A project's hook is listed too, not trusted until the user says so, and why.
    env.write(
        ".tandem/config.toml",
        "[[hooks.PostToolUse]]\nmatcher = \"Edit\"\nhooks = [{ type = \"command\", command = \
         \"sh .tandem/fmt.sh\" }]\n",
    );
    env.write(".tandem/fmt.sh", "exit 0\n");
    let mock = MockServer::start(Scenario::new([]));
    let output = chat_piped(
        &env,
        &mock,
        &["--config", config.to_str().unwrap()],
        "/hooks\n/exit\n",
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let file = config.display();
    let project = env.workspace.join(".tandem/config.toml");
    let project = project.display();
    for needle in [
        format!(
            "PreToolUse Bash: python3 ~/check.py (user {file}, trusted (your own config), \
             sandboxed, 5 s)"
        ),
        format!(
            "Stop *: notify-send done (user {file}, trusted (your own config), outside the \
             sandbox, 60 s)"
        ),
        format!(
            "PostToolUse Edit: sh .tandem/fmt.sh (project {project}, NOT trusted (asks before \
             it runs: never trusted for good in this project), sandboxed, 60 s)"
        ),
    ] {
        assert!(
            stdout.contains(&needle),
            "{needle:?} missing\n{}",
            show(&output)
        );
    }
    assert!(
        mock.chat_requests().is_empty(),
        "/hooks asks the model nothing"
    );
}
