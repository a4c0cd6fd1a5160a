//! Files the sidecar deletes or puts back itself (an undo, a command) reach the editor: a tandem
//! client gets `tandem/filesChanged`, a plain client that takes resource operations a
//! `DeleteFile` for each open buffer of a deleted file, and the agent stops reading the editor's
//! copy of a file that is gone (the ghost file of issue 19).

use std::time::{Duration, Instant};

use crate::editor::{open, uri};
use crate::support::*;

/// The messages of `method` the sidecar sent so far.
fn sent(tandem: &Sidecar, method: &str) -> Vec<Value> {
    tandem.inbox(|i| {
        i.other
            .iter()
            .filter(|m| m["method"] == method)
            .cloned()
            .collect()
    })
}

/// Starts `tandem lsp` with `capabilities` as the client's (beside `experimental.tandem` unless
/// `plain`), edits and commands approved by the policy.
async fn client(env: &Env, mock: &MockServer, plain: bool, workspace: Value) -> Sidecar {
    let tandem = Sidecar::spawn(env);
    let options = Options {
        approval: json!({"autoApprove": {"edit": true, "command": true}}),
        ..Options::default()
    };
    let mut params = initialize_params(env, mock, options);
    if plain {
        params["capabilities"] = json!({});
    }
    params["capabilities"]["workspace"] = workspace;
    tandem.request("initialize", params).await.unwrap();
    tandem.rpc.notify("initialized", json!({})).await;
    tandem
}

/// Waits (bounded) until the inbox holds a message `matches` accepts; returns it.
async fn wait_for_message(tandem: &Sidecar, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(m) = tandem.inbox(|i| i.other.iter().find(|m| matches(m)).cloned()) {
            return m;
        }
        assert!(Instant::now() < end, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn undoing_a_created_file_tells_the_editor_and_the_agent_stops_seeing_its_buffer() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "ghost.txt", "content": "boo\n"}),
        ),
        Reply::text("Created."),
        Reply::tool("read_file", json!({"path": "ghost.txt"}))
            .expect_messages_contain("ghost.txt (deleted: you had created it)"),
        // Before the fix the editor's stale copy answered both: the read returned "boo" and
        // this write was refused as "already holds exactly this content".
        Reply::tool(
            "write_to_file",
            json!({"path": "ghost.txt", "content": "boo\n"}),
        )
        .expect_tool_result_contains("ghost.txt does not exist"),
        Reply::text("Created again."),
    ]));
    let tandem = client(
        &env,
        &mock,
        false,
        json!({"applyEdit": true, "workspaceEdit": {"documentChanges": true,
               "resourceOperations": ["create", "rename", "delete"]}}),
    )
    .await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Create ghost.txt").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(env.read("ghost.txt"), "boo\n");
    // VS Code opens the new file (its editor, or an extension reading it): it is synced.
    open(&tandem, &env, "ghost.txt", "boo\n").await;

    let done = tandem
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(done["restored"], json!(["ghost.txt"]), "{done}");
    assert!(!env.workspace.join("ghost.txt").exists());
    let note = wait_for_message(&tandem, "tandem/filesChanged", |m| {
        m["method"] == "tandem/filesChanged"
    })
    .await;
    let params = &note["params"];
    assert_eq!(params["sessionId"], session.as_str(), "{params}");
    let files = params["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{params}");
    assert_eq!(files[0]["kind"], "deleted", "{params}");
    let path = files[0]["path"].as_str().unwrap();
    assert!(
        std::path::Path::new(path).is_absolute() && path.ends_with("ghost.txt"),
        "{params}"
    );

    // The editor still holds the document (VS Code keeps it a while): the agent no longer
    // reads it, and creating the file again works.
    let again = tandem
        .run_turn(&session, "Read ghost.txt, create it again")
        .await;
    assert_eq!(again.stop_reason(), "endTurn", "{again}");
    let results: Vec<&Value> = again
        .updates
        .iter()
        .filter(|u| u["kind"] == "toolResult")
        .collect();
    assert_eq!(
        sent(&tandem, "tandem/filesChanged").len(),
        1,
        "one notification"
    );
    assert_eq!(results[0]["status"], "error", "{again}");
    assert_eq!(results[1]["status"], "ok", "{again}");
    assert_eq!(env.read("ghost.txt"), "boo\n");
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
}

#[tokio::test]
async fn an_undo_that_changes_nothing_sends_no_notification() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("Nothing to do."),
        Reply::text("Still nothing."),
    ]));
    let tandem = client(&env, &mock, false, json!({"applyEdit": true})).await;
    let session = tandem.new_session().await;
    tandem.run_turn(&session, "Hi").await;
    let done = tandem
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(done["restored"], json!([]), "{done}");
    // A turn after it has come and gone: a notification queued by the undo would be in by now.
    tandem.run_turn(&session, "Hi again").await;
    assert_eq!(sent(&tandem, "tandem/filesChanged").len(), 0);
}

#[tokio::test]
async fn a_command_that_deletes_an_open_file_closes_it_in_a_plain_editor() {
    let env = Env::new();
    env.write("old.txt", "old\n");
    env.write("kept.txt", "kept\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": "old.txt"})),
        Reply::tool("read_file", json!({"path": "kept.txt"})),
        Reply::tool("execute_command", json!({"command": "rm old.txt"})),
        Reply::text("Removed."),
        Reply::tool("read_file", json!({"path": "old.txt"})),
        Reply::text("It is gone.").expect_tool_result_contains("old.txt does not exist"),
    ]));
    let tandem = client(
        &env,
        &mock,
        true,
        json!({"applyEdit": true, "workspaceEdit": {"documentChanges": true,
               "resourceOperations": ["create", "delete"]}}),
    )
    .await;
    tandem.rpc.on_request(
        "workspace/applyEdit",
        Box::new(|_| json!({"applied": true}).into()),
    );
    open(&tandem, &env, "old.txt", "old\n").await;
    open(&tandem, &env, "kept.txt", "kept\n").await;
    tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.ask", "arguments": ["Remove old.txt"]}),
        )
        .await
        .unwrap();
    let edit = wait_for_message(&tandem, "the DeleteFile", |m| {
        m["method"] == "workspace/applyEdit"
    })
    .await;
    let ops = edit["params"]["edit"]["documentChanges"]
        .as_array()
        .unwrap();
    assert_eq!(ops.len(), 1, "only the deleted file: {edit}");
    assert_eq!(ops[0]["kind"], "delete", "{edit}");
    assert_eq!(ops[0]["uri"], uri(&env, "old.txt"), "{edit}");
    assert_eq!(ops[0]["options"]["ignoreIfNotExists"], true, "{edit}");
    wait_for_message(&tandem, "the turn's end", |m| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains("Removed."))
    })
    .await;

    // The buffer is still open in the editor, but the agent reads the disk now.
    tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.ask", "arguments": ["Is old.txt there?"]}),
        )
        .await
        .unwrap();
    wait_for_message(&tandem, "the second turn's end", |m| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains("It is gone."))
    })
    .await;
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
}

/// `tandem.diff` on a plain client: nothing to show before a turn; after one, the turn's change
/// set as a diff document in the data dir, opened with `window/showDocument`.
#[tokio::test]
async fn tandem_diff_opens_the_last_turns_change_set_in_a_plain_editor() {
    let env = Env::new();
    env.write("a.txt", "one\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "a.txt", "content": "two\n++ b/fake\n"}),
        ),
        Reply::text("Edited."),
    ]));
    let tandem = client(&env, &mock, true, json!({})).await;
    tandem.rpc.on_request(
        "window/showDocument",
        Box::new(|_| json!({"success": true}).into()),
    );
    let nothing = tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.diff", "arguments": []}),
        )
        .await
        .unwrap();
    assert_eq!(nothing, json!({"files": []}));
    tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.ask", "arguments": ["Edit a.txt"]}),
        )
        .await
        .unwrap();
    wait_for_message(&tandem, "the turn's end", |m| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains("Edited."))
    })
    .await;
    let shown = tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.diff", "arguments": ["t1"]}),
        )
        .await
        .unwrap();
    assert_eq!(shown["turnId"], "t1", "{shown}");
    assert_eq!(shown["files"], json!(["a.txt"]), "{shown}");
    assert_eq!(shown["shown"], true, "{shown}");
    let path = std::path::PathBuf::from(shown["path"].as_str().unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("# Turn t1: 1 file changed\n# modified a.txt by an edit ("),
        "{text}"
    );
    assert!(text.contains("\n-one\n+two\n+++ b/fake\n"), "{text}");
    let asked = sent(&tandem, "window/showDocument");
    assert!(
        asked.iter().any(|m| m["params"]["uri"]
            .as_str()
            .is_some_and(|u| u.ends_with("-t1.diff"))),
        "{asked:?}"
    );
}
