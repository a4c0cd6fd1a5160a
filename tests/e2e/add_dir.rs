//! `--add-dir` on the terminal faces (`tandem exec`, `tandem chat`): a session of several
//! folders, as VS Code's multi-root windows open; and every face's session list names them.

use crate::exec::exec;
use crate::support::*;

/// The folders of `roots::elsewhere` with a secret beside the added one.
fn elsewhere() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let (dir, extra, sibling) = crate::roots::elsewhere();
    std::fs::write(sibling.join("secret.txt"), "keep out\n").unwrap();
    (dir, extra, sibling)
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
            .expect_tool_result_contains("from the extra root")
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
    let extra_arg = extra.display().to_string();
    let output = exec(
        &env,
        &mock,
        "Edit the other folder",
        &["--add-dir", &extra_arg, "--yes"],
        "",
    )
    .await;
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
    let missing = missing.display().to_string();
    let output = exec(&env, &mock, "Hi", &["--add-dir", &missing], "").await;
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
    let extra_arg = extra.display().to_string();
    let output = exec(
        &env,
        &mock,
        "Hi",
        &["--add-dir", &extra_arg, "--resume"],
        "",
    )
    .await;
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
        Reply::text("Read it.").expect_tool_result_contains("from the extra root"),
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
        let with = crate::roots::session_with(&tandem, &extra).await;
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
