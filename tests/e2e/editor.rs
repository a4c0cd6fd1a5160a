//! The VS Code face (`experimental.tandem`) works on what the editor holds: open documents are
//! read from text document sync and edited through `workspace/applyEdit`, never behind a dirty
//! buffer; an Accept writes at once; a command's output is bounded on its way to the editor; a
//! restore never loses what the user changed since without asking.

use crate::support::*;

pub(crate) fn uri(env: &Env, path: &str) -> String {
    format!("file://{}", env.path(path))
}

/// A tandem client that declares `workspace.applyEdit` (as vscode-languageclient does).
async fn editor_client(env: &Env, mock: &MockServer, options: Options) -> Sidecar {
    let tandem = Sidecar::spawn(env);
    let mut params = initialize_params(env, mock, options);
    params["capabilities"]["workspace"] = json!({"applyEdit": true,
        "workspaceEdit": {"documentChanges": true}});
    let result = tandem.request("initialize", params).await.unwrap();
    assert_eq!(
        result["capabilities"]["textDocumentSync"], 1,
        "full text sync is offered to tandem clients too: {result}"
    );
    tandem.rpc.notify("initialized", json!({})).await;
    tandem
}

pub(crate) async fn open(tandem: &Sidecar, env: &Env, path: &str, text: &str) {
    tandem
        .rpc
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(env, path), "languageId": "plaintext",
                   "version": 1, "text": text}}),
        )
        .await;
}

#[tokio::test]
async fn an_open_documents_unsaved_text_is_read_and_edited_in_the_editor() {
    let env = Env::new();
    env.write("notes.txt", "saved on disk\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": "notes.txt"})),
        Reply::tool(
            "replace_in_file",
            json!({"path": "notes.txt", "diff":
                "------- SEARCH\nunsaved in the editor\n=======\nedited by the agent\n+++++++ REPLACE\n"}),
        )
        .expect_tool_result_contains("unsaved in the editor"),
        Reply::text("Done."),
    ]));
    let tandem = editor_client(&env, &mock, Options::default()).await;
    open(&tandem, &env, "notes.txt", "unsaved in the editor\n").await;
    let edits = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = edits.clone();
    tandem.rpc.on_request(
        "workspace/applyEdit",
        Box::new(move |params| {
            seen.lock().unwrap().push(params.clone());
            json!({"applied": true}).into()
        }),
    );
    tandem.reply_approvals([reply::accept()]).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Edit the notes").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let edits = edits.lock().unwrap().clone();
    assert_eq!(
        edits.len(),
        1,
        "the edit goes through the editor: {edits:#?}"
    );
    assert!(
        edits[0].to_string().contains("edited by the agent"),
        "{edits:#?}"
    );
    assert_eq!(
        env.read("notes.txt"),
        "saved on disk\n",
        "nothing is written behind the editor's buffer"
    );
    let results: Vec<&Value> = turn
        .updates
        .iter()
        .filter(|u| u["kind"] == "toolResult")
        .collect();
    assert_eq!(results[1]["status"], "ok", "{turn}");
}

#[tokio::test]
async fn a_file_not_open_in_the_editor_is_written_on_disk() {
    let env = Env::new();
    env.write("closed.txt", "old\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "closed.txt", "content": "new\n"}),
        ),
        Reply::text("Done."),
    ]));
    let tandem = editor_client(&env, &mock, Options::default()).await;
    tandem.reply_approvals([reply::accept()]).await;
    let session = tandem.new_session().await;
    tandem.run_turn(&session, "Rewrite it").await;
    assert_eq!(env.read("closed.txt"), "new\n");
    let asked = tandem.inbox(|i| {
        i.other
            .iter()
            .filter(|m| m["method"] == "workspace/applyEdit")
            .count()
    });
    assert_eq!(asked, 0);
}

#[tokio::test]
async fn an_accepted_edit_is_written_at_once_however_slow_the_diagnostics() {
    let env = Env::new();
    env.write("a.rs", "fn a() {}\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "a.rs", "content": "fn b() {}\n"}),
        ),
        Reply::text("Done."),
    ]));
    let options = Options {
        diagnostics: true,
        ..Options::default()
    };
    let tandem = editor_client(&env, &mock, options).await;
    // The editor holds its answer about the problems before the edit (a language server still
    // settling) until the test has seen the file written.
    let (settled, gate) = tokio::sync::watch::channel(false);
    let mut first = Some(gate);
    tandem.rpc.on_request(
        "tandem/getDiagnostics",
        Box::new(move |_| {
            let answer = json!({"diagnostics": []}).into();
            match first.take() {
                Some(gate) => crate::support::rpc::Answer::Held(gate, Box::new(answer)),
                None => answer,
            }
        }),
    );
    let session = tandem.new_session().await;
    let turn = tandem.prompt(&session, "Rename a to b").await;
    tandem.wait_for_approvals(1).await;
    tandem.reply_approvals([reply::accept()]).await;
    // Written while the answer is still held: the write did not wait for it.
    wait_until("the edit to be written", || {
        env.read("a.rs") == "fn b() {}\n"
    })
    .await;
    assert!(!*settled.borrow());
    settled.send_replace(true);
    let ended = tandem.wait_for_turn_end(&turn).await;
    assert_eq!(ended.stop_reason(), "endTurn", "{ended}");
}

#[tokio::test]
async fn a_commands_output_to_the_editor_is_capped() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "execute_command",
            json!({"command": "yes xxxxxxxxxxxxxxxxxxxxxxxx | head -c 3000000; echo; echo end"}),
        ),
        Reply::text("Done."),
    ]));
    let options = Options {
        approval: json!({"autoApprove": {"command": true}}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Print a lot").await;
    let shown: String = turn
        .updates
        .iter()
        .filter(|u| u["kind"] == "toolOutput")
        .map(|u| u["delta"].as_str().unwrap())
        .collect();
    assert!(
        shown.len() < 1024 * 1024 + 200,
        "{} bytes sent",
        shown.len()
    );
    let result = turn.tool_result()["output"].as_str().unwrap().to_string();
    assert!(
        shown.contains("is not shown here"),
        "no note of the cut in {} bytes; result: {}",
        shown.len(),
        &result[result.len().saturating_sub(300)..]
    );
    assert!(result.contains("end"), "the result keeps the output's end");
}

#[tokio::test]
async fn restoring_files_the_user_changed_since_asks_first_and_the_model_is_told() {
    let env = Env::new();
    env.write("a.txt", "one\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "a.txt", "content": "two\n"}),
        ),
        Reply::tool(
            "write_to_file",
            json!({"path": "new.txt", "content": "created\n"}),
        ),
        Reply::text("Done."),
        Reply::text("OK, I will read them again.")
            .expect_messages_contain("The user restored these files"),
    ]));
    let options = Options {
        approval: json!({"autoApprove": {"edit": true}}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Edit").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    // The user goes on working on both files.
    env.write("a.txt", "two\nthe user's line\n");
    env.write("new.txt", "created\nmine too\n");

    let asked = tandem
        .request("tandem/undo", json!({"sessionId": session, "turnId": "t1"}))
        .await
        .unwrap();
    assert_eq!(asked["needsConfirmation"], true, "{asked}");
    assert_eq!(asked["restored"], json!([]));
    let conflicts = asked["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 2, "{asked}");
    assert!(
        conflicts
            .iter()
            .all(|c| c["lost"].as_str().unwrap().contains("-the user's line")
                || c["lost"].as_str().unwrap().contains("-mine too")),
        "{asked}"
    );
    assert_eq!(
        env.read("a.txt"),
        "two\nthe user's line\n",
        "nothing restored yet"
    );
    assert!(env.workspace.join("new.txt").exists());

    let done = tandem
        .request(
            "tandem/undo",
            json!({"sessionId": session, "turnId": "t1", "confirm": true}),
        )
        .await
        .unwrap();
    assert_eq!(done["needsConfirmation"], false, "{done}");
    assert_eq!(done["restored"], json!(["a.txt", "new.txt"]));
    assert_eq!(env.read("a.txt"), "one\n");
    assert!(!env.workspace.join("new.txt").exists());

    let next = tandem.run_turn(&session, "What now?").await;
    assert_eq!(next.stop_reason(), "endTurn", "{next}");
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
}

#[tokio::test]
async fn an_untouched_file_restores_without_asking() {
    let env = Env::new();
    env.write("a.txt", "one\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "a.txt", "content": "two\n"}),
        ),
        Reply::text("Done."),
    ]));
    let options = Options {
        approval: json!({"autoApprove": {"edit": true}}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    tandem.run_turn(&session, "Edit").await;
    let done = tandem
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(done["needsConfirmation"], false, "{done}");
    assert_eq!(done["restored"], json!(["a.txt"]));
    assert_eq!(env.read("a.txt"), "one\n");
}

/// `tandem/turnChanges`: a turn's files, by call, before and now; the model's text comes back as
/// data (escapes, a fake diff header), a 10 MB file is measured, not sent; an undone turn is gone.
#[tokio::test]
async fn a_turns_change_set_lists_its_files_by_call_with_texts_capped() {
    let env = Env::new();
    env.write("a.txt", "one\n");
    let big = format!("{}\nend\n", "x".repeat(10_000_000 - 5));
    env.write("big.txt", &big);
    let hostile = "\u{1b}]0;owned\u{7}\u{1b}[2J--- a/x\n+++ b/x\n@@ -1 +1 @@\n-safe\n+rm -rf ~\n";
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "a.txt", "content": hostile}),
        ),
        Reply::tool(
            "replace_in_file",
            json!({"path": "big.txt", "diff": "------- SEARCH\nend\n=======\nEND\n+++++++ REPLACE"}),
        ),
        Reply::tool(
            "write_to_file",
            json!({"path": "new.txt", "content": "created\n"}),
        ),
        Reply::text("Done."),
    ]));
    let options = Options {
        approval: json!({"autoApprove": {"edit": true}}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Edit").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let calls: Vec<String> = turn
        .updates
        .iter()
        .filter(|u| u["kind"] == "toolCall")
        .map(|u| u["toolCallId"].as_str().unwrap().to_string())
        .collect();

    let set = tandem
        .request("tandem/turnChanges", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(set["turnId"], "t1", "{set}");
    let files = set["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["a.txt", "big.txt", "new.txt"]);
    assert_eq!(files[0]["kind"], "modified");
    assert_eq!(
        files[0]["by"],
        json!({"source": "edit", "toolCallId": calls[0]})
    );
    assert_eq!(files[0]["before"], json!({"kind": "text", "text": "one\n"}));
    assert_eq!(files[0]["after"], json!({"kind": "text", "text": hostile}));
    assert_eq!(
        files[1]["before"],
        json!({"kind": "tooLarge", "bytes": 10_000_000})
    );
    assert_eq!(
        files[1]["after"],
        json!({"kind": "tooLarge", "bytes": 10_000_000})
    );
    assert_eq!(files[1]["by"]["toolCallId"], calls[1].as_str());
    assert_eq!(files[2]["kind"], "created");
    assert_eq!(files[2]["before"], json!({"kind": "absent"}));
    assert!(
        set.to_string().len() < 64 * 1024,
        "the answer carries no big text"
    );

    // Undone, the turn is gone from the set.
    tandem
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    let none = tandem
        .request("tandem/turnChanges", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(none["files"], json!([]), "{none}");
    assert!(none.get("turnId").is_none(), "{none}");
    let unknown = tandem
        .request("tandem/turnChanges", json!({"sessionId": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(unknown.code, 1001, "{unknown:?}");
}
