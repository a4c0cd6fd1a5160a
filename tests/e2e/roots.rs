//! A session with an additional root (`tandem/newSession`'s `additionalRoots`): the model reads
//! and edits there by absolute path; a sandboxed command reads it and cannot write it (no capture
//! records writes there, so it is read-only inside the walls, with a line saying so), with and
//! without namespaces; a folder beside it stays out.

use crate::support::*;

/// A folder outside the workspace holding the additional root `extra` (with `in.txt`) and a
/// `sibling` folder that is no root. Under the temp dir, as a user's checkout may be: with
/// namespaces the command's `/tmp` is private, so the root must be bound back into it.
pub(crate) fn elsewhere() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let extra = dir.path().join("extra");
    let sibling = dir.path().join("sibling");
    std::fs::create_dir(&extra).unwrap();
    std::fs::create_dir(&sibling).unwrap();
    std::fs::write(extra.join("in.txt"), "from the extra root\n").unwrap();
    let extra = extra.canonicalize().unwrap();
    let sibling = sibling.canonicalize().unwrap();
    (dir, extra, sibling)
}

pub(crate) async fn session_with(tandem: &Sidecar, extra: &std::path::Path) -> String {
    let result = tandem
        .request(
            "tandem/newSession",
            json!({"additionalRoots": [format!("file://{}", extra.display())]}),
        )
        .await
        .expect("newSession with an additional root");
    result["sessionId"].as_str().unwrap().to_string()
}

async fn a_command_reads_an_additional_root_and_cannot_write_it(namespaces: bool) {
    let env = Env::new();
    if namespaces {
        crate::walls::require_namespaces(&env).await;
    }
    let (_dir, extra, _sibling) = elsewhere();
    let e = extra.display();
    let command = format!(
        "cat {e}/in.txt; echo x > {e}/out.txt; echo mine > mine.txt; cd {e} && touch new.txt; \
         echo end"
    );
    let mock = MockServer::start(Scenario::new([
        Reply::tool("execute_command", json!({"command": command})),
        Reply::text("Done.")
            .expect_tool_result_contains("from the extra root")
            .expect_tool_result_contains("is an additional root of the workspace: read-only"),
    ]));
    let tandem = Sidecar::start_walled(
        &env,
        &mock,
        Options {
            approval: json!({"autoApprove": {"command": true}}),
            ..Options::default()
        },
        namespaces,
    )
    .await;
    let session = session_with(&tandem, &extra).await;
    let turn = tandem.run_turn(&session, "Try it").await;
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
    let output = turn.tool_result()["output"].as_str().unwrap().to_string();
    assert!(output.contains("from the extra root"), "{output}");
    assert!(output.contains("end"), "{output}");
    assert!(!extra.join("out.txt").exists(), "{output}");
    assert!(!extra.join("new.txt").exists(), "{output}");
    // The root's own write still lands (and is recorded, as ever).
    assert_eq!(env.read("mine.txt"), "mine\n");
    assert!(
        output.contains("mine.txt (created"),
        "the root's write is recorded: {output}"
    );
}

#[tokio::test]
async fn a_command_reads_an_additional_root_and_cannot_write_it_with_namespaces() {
    a_command_reads_an_additional_root_and_cannot_write_it(true).await;
}

#[tokio::test]
async fn a_command_reads_an_additional_root_and_cannot_write_it_without_namespaces() {
    a_command_reads_an_additional_root_and_cannot_write_it(false).await;
}

#[tokio::test]
async fn the_model_edits_an_additional_root_by_absolute_path_and_not_a_sibling() {
    let env = Env::new();
    let (_dir, extra, sibling) = elsewhere();
    let target = extra.join("in.txt").display().to_string();
    let secret = sibling.join("secret.txt");
    std::fs::write(&secret, "keep out\n").unwrap();
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": target, "content": "edited\n"}),
        ),
        Reply::tool(
            "write_to_file",
            json!({"path": secret.display().to_string(), "content": "pwned\n"}),
        )
        .expect_tool_result_contains("Applied the edit"),
        Reply::text("Done.").expect_tool_result_contains("outside the workspace"),
    ]));
    let tandem = Sidecar::start(
        &env,
        &mock,
        Options {
            approval: json!({"autoApprove": {"edit": true}}),
            ..Options::default()
        },
    )
    .await;
    let session = session_with(&tandem, &extra).await;
    tandem.run_turn(&session, "Edit it").await;
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
    assert_eq!(
        std::fs::read_to_string(extra.join("in.txt")).unwrap(),
        "edited\n"
    );
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "keep out\n");
    let done = tandem
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(done["restored"], json!([target]), "{done}");
    assert_eq!(
        std::fs::read_to_string(extra.join("in.txt")).unwrap(),
        "from the extra root\n"
    );
}

#[tokio::test]
async fn a_missing_additional_root_is_refused_by_name() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let missing = env.workspace.parent().unwrap().join("no-such-folder");
    let err = tandem
        .request(
            "tandem/newSession",
            json!({"additionalRoots": [missing.display().to_string()]}),
        )
        .await
        .unwrap_err();
    assert!(err.message.contains("no-such-folder"), "{err:?}");
}

/// A plain LSP client (no `tandem/*` methods) with two workspace folders: `tandem.ask`'s session
/// has the second one as an additional root.
#[tokio::test]
async fn a_plain_clients_other_workspace_folders_are_additional_roots() {
    let env = Env::new();
    let (_dir, extra, _sibling) = elsewhere();
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "read_file",
            json!({"path": extra.join("in.txt").display().to_string()}),
        ),
        Reply::text("Read it.").expect_tool_result_contains("from the extra root"),
    ]));
    let tandem = Sidecar::spawn(&env);
    let mut params = initialize_params(&env, &mock, Options::default());
    params["capabilities"] = json!({});
    params["workspaceFolders"] = json!([
        {"uri": format!("file://{}", env.workspace.display()), "name": "ws"},
        {"uri": format!("file://{}", extra.display()), "name": "extra"},
    ]);
    tandem.request("initialize", params).await.unwrap();
    tandem.rpc.notify("initialized", json!({})).await;
    tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.ask", "arguments": ["Read the other folder's file"]}),
        )
        .await
        .unwrap();
    let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let done = tandem.inbox(|i| {
            i.other.iter().any(|m| {
                m["method"] == "window/showMessage"
                    && m["params"]["message"]
                        .as_str()
                        .is_some_and(|t| t.contains("Read it."))
            })
        });
        if done {
            break;
        }
        assert!(
            std::time::Instant::now() < end,
            "the turn did not end: {:?}",
            mock.failures()
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
}
