//! `--add-dir` on the terminal faces (`tandem exec`, `tandem chat`): a session of several
//! folders, as VS Code's multi-root windows open; and every face's session list names them.

use crate::support::*;

/// A folder outside the workspace with the folder to add (`extra`, holding `in.txt`) and a
/// `sibling` that is never added.
fn elsewhere() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let extra = dir.path().join("extra");
    let sibling = dir.path().join("sibling");
    std::fs::create_dir(&extra).unwrap();
    std::fs::create_dir(&sibling).unwrap();
    std::fs::write(extra.join("in.txt"), "from the added folder\n").unwrap();
    std::fs::write(sibling.join("secret.txt"), "keep out\n").unwrap();
    (
        dir,
        extra.canonicalize().unwrap(),
        sibling.canonicalize().unwrap(),
    )
}

fn exec_command(env: &Env, mock: &MockServer, prompt: &str) -> tokio::process::Command {
    let mut command = env.command();
    command
        .args(["exec", prompt])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir)
        .args(["--approval-timeout", "100000"]);
    command
}

/// The model reads and edits the added folder by absolute path (`--yes` approves the edit), and
/// gets the folder's `AGENTS.md` with its first read there; the folder beside it stays outside,
/// for reading and for writing, and its rules never come.
#[tokio::test]
async fn exec_with_add_dir_reads_and_edits_the_added_folder_and_not_its_sibling() {
    let env = Env::new();
    let (_dir, extra, sibling) = elsewhere();
    let added = extra.join("in.txt").display().to_string();
    let secret = sibling.join("secret.txt").display().to_string();
    std::fs::write(extra.join("AGENTS.md"), "EXTRA-RULE: tabs, never spaces\n").unwrap();
    std::fs::write(sibling.join("AGENTS.md"), "SIBLING-RULE\n").unwrap();
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": added})),
        Reply::tool("read_file", json!({"path": secret}))
            .expect_tool_result_contains("from the added folder")
            .expect_messages_contain("EXTRA-RULE: tabs, never spaces"),
        Reply::tool(
            "write_to_file",
            json!({"path": secret, "content": "pwned\n"}),
        )
        .expect_tool_result_contains("outside the workspace"),
        Reply::tool(
            "write_to_file",
            json!({"path": added, "content": "edited\n"}),
        )
        .expect_tool_result_contains("outside the workspace"),
        Reply::text("Done.").expect_tool_result_contains("Applied the edit"),
    ]));
    let mut command = exec_command(&env, &mock, "Edit the other folder");
    command.arg("--add-dir").arg(&extra).arg("--yes");
    let output = run_piped(command, "").await;
    assert!(output.status.success(), "{}", show(&output));
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
    assert_eq!(
        std::fs::read_to_string(extra.join("in.txt")).unwrap(),
        "edited\n"
    );
    assert_eq!(
        std::fs::read_to_string(sibling.join("secret.txt")).unwrap(),
        "keep out\n"
    );
    let sent = serde_json::to_string(&model_requests(&mock).last().unwrap().body).unwrap();
    assert!(
        !sent.contains("SIBLING-RULE"),
        "a sibling's rules reached the model"
    );
    // The system prompt names the added folder, so the model knows it may go there.
    let requests = model_requests(&mock);
    let system = requests[0].body["messages"][0]["content"]
        .as_str()
        .unwrap_or("");
    assert!(
        system.contains(&extra.display().to_string()),
        "the added folder is not in the system prompt: {system}"
    );
}

/// A folder that can't be opened is refused before anything runs, by name (exit 2).
#[tokio::test]
async fn exec_with_a_missing_add_dir_is_refused_by_name() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::text("unreached")]));
    let missing = env.workspace.parent().unwrap().join("no-such-folder");
    let mut command = exec_command(&env, &mock, "Hi");
    command.arg("--add-dir").arg(&missing);
    let output = run_piped(command, "").await;
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no-such-folder"), "{}", show(&output));
    assert!(model_requests(&mock).is_empty());
}

/// A resumed session keeps its own folders: `--add-dir` with `--resume` is a usage error that
/// says why and what to do, not a silent drop of the folder.
#[tokio::test]
async fn add_dir_with_resume_is_a_usage_error() {
    let env = Env::new();
    let (_dir, extra, _sibling) = elsewhere();
    let mock = MockServer::start(Scenario::new([Reply::text("unreached")]));
    let mut command = exec_command(&env, &mock, "Hi");
    command.arg("--add-dir").arg(&extra).arg("--resume");
    let output = run_piped(command, "").await;
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--add-dir can't be used with --resume"),
        "{}",
        show(&output)
    );
    assert!(model_requests(&mock).is_empty());
}

/// `tandem chat --add-dir`: the banner names both folders, `/sessions` marks the session's extra
/// folder, and `/new` opens the next session with the same folders.
#[tokio::test]
async fn chat_with_add_dir_names_the_folders_and_new_keeps_them() {
    let env = Env::new();
    let (_dir, extra, _sibling) = elsewhere();
    let added = extra.join("in.txt").display().to_string();
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": added})),
        Reply::text("Read it.").expect_tool_result_contains("from the added folder"),
    ]));
    let extra_arg = extra.display().to_string();
    let output = chat_piped(
        &env,
        &mock,
        &["--add-dir", &extra_arg],
        "/new\n/sessions\nRead the other folder\n/exit\n",
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let root = env.workspace.canonicalize().unwrap();
    assert!(
        stdout.contains(&format!("{} + {}", root.display(), extra.display())),
        "the banner does not name both folders\n{}",
        show(&output)
    );
    assert!(stdout.contains("Read it."), "{}", show(&output));
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
    // Both sessions (the first, and the one `/new` opened) have the folder.
    assert_eq!(
        stdout.matches("(+1 folder)").count(),
        2,
        "/sessions should mark both sessions\n{}",
        show(&output)
    );
}

/// `tandem/listSessions` gives each session's additional roots, from memory and, after a
/// restart, from its transcript.
#[tokio::test]
async fn list_sessions_names_the_additional_roots() {
    let env = Env::new();
    let (_dir, extra, _sibling) = elsewhere();
    let mock = MockServer::start(Scenario::new([Reply::text("unused")]));
    let listed = |sessions: &Value, id: &str| -> Value {
        sessions["sessions"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["sessionId"] == id).cloned())
            .unwrap_or_else(|| panic!("{id} is not listed: {sessions}"))
    };
    let (with, without) = {
        let tandem = Sidecar::start(&env, &mock, Options::default()).await;
        let with = tandem
            .request(
                "tandem/newSession",
                json!({"additionalRoots": [extra.display().to_string()]}),
            )
            .await
            .unwrap()["sessionId"]
            .as_str()
            .unwrap()
            .to_string();
        let without = tandem
            .request("tandem/newSession", json!({}))
            .await
            .unwrap()["sessionId"]
            .as_str()
            .unwrap()
            .to_string();
        let sessions = tandem
            .request("tandem/listSessions", json!({}))
            .await
            .unwrap();
        assert_eq!(
            listed(&sessions, &with)["additionalRoots"],
            json!([extra.display().to_string()])
        );
        assert_eq!(listed(&sessions, &without)["additionalRoots"], json!([]));
        (with, without)
    };
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let sessions = tandem
        .request("tandem/listSessions", json!({}))
        .await
        .unwrap();
    assert_eq!(
        listed(&sessions, &with)["additionalRoots"],
        json!([extra.display().to_string()]),
        "read back from the transcript"
    );
    assert_eq!(listed(&sessions, &without)["additionalRoots"], json!([]));
}
