//! A session with an additional root (`tandem/newSession`'s `additionalRoots`): the model reads
//! and edits there by absolute path; a sandboxed command writes there, its writes captured as the
//! root's are (in the turn's changes, undone by `tandem/undo`), with and without namespaces; a
//! folder beside it, its `.git` and a link out of it stay out.

use crate::support::*;

/// A folder outside the workspace holding the additional root `extra` (with `in.txt`, a `.git`
/// and `out`, a link to the sibling) and a `sibling` folder that is no root, in `parent`.
fn elsewhere_in(
    parent: &std::path::Path,
) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    std::fs::create_dir_all(parent).unwrap();
    let dir = tempfile::tempdir_in(parent).unwrap();
    let extra = dir.path().join("extra");
    let sibling = dir.path().join("sibling");
    std::fs::create_dir_all(extra.join(".git")).unwrap();
    std::fs::create_dir(&sibling).unwrap();
    std::fs::write(extra.join("in.txt"), "from the extra root\n").unwrap();
    std::fs::write(extra.join(".git/config"), "[core]\n").unwrap();
    std::os::unix::fs::symlink(&sibling, extra.join("out")).unwrap();
    let extra = extra.canonicalize().unwrap();
    let sibling = sibling.canonicalize().unwrap();
    (dir, extra, sibling)
}

/// [`elsewhere_in`] the temp dir, as a user's checkout may be: with namespaces the command's
/// `/tmp` is private, so the root must be bound back into it.
pub(crate) fn elsewhere() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    elsewhere_in(&std::env::temp_dir())
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

async fn a_commands_writes_in_an_additional_root_are_recorded_and_undone(namespaces: bool) {
    let env = Env::new();
    if namespaces {
        crate::walls::require_namespaces(&env).await;
    }
    // Without namespaces the temp dirs are writable to every command: a sibling there would
    // prove nothing, so the folders are made where only the roots are writable.
    let (_dir, extra, sibling) = match namespaces {
        true => elsewhere(),
        false => elsewhere_in(std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))),
    };
    let (e, s) = (extra.display(), sibling.display());
    let command = format!(
        "cat {e}/in.txt; echo changed > {e}/in.txt; cd {e} && echo new > new.txt; cd -; \
         echo mine > mine.txt; echo planted > {s}/planted.txt; echo escaped > {e}/out/escaped.txt; \
         echo '[core] fsmonitor = evil' >> {e}/.git/config; echo end"
    );
    let mock = MockServer::start(Scenario::new([
        Reply::tool("execute_command", json!({"command": command})),
        Reply::text("Done.").expect_tool_result_contains("from the extra root"),
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
    assert!(output.contains("end"), "{output}");

    // Written, and told by the paths the tools use.
    let read = |name: &str| std::fs::read_to_string(extra.join(name)).unwrap();
    assert_eq!(read("in.txt"), "changed\n", "{output}");
    assert_eq!(read("new.txt"), "new\n", "{output}");
    assert_eq!(env.read("mine.txt"), "mine\n");
    for told in [
        format!("{e}/in.txt (modified +1 -1)"),
        format!("{e}/new.txt (created +1"),
        "mine.txt (created".to_string(),
    ] {
        assert!(output.contains(&told), "{told} in {output}");
    }

    // Nothing outside the roots, through a link or not, nor the extra root's repository.
    assert!(!sibling.join("planted.txt").exists(), "{output}");
    assert!(!sibling.join("escaped.txt").exists(), "{output}");
    if namespaces {
        assert_eq!(read(".git/config"), "[core]\n", "{output}");
    } else {
        // Landlock grants whole trees, `.git` too, as in the root: the change is told.
        assert!(
            output.contains(&format!("changed the git repository at {e}/.git")),
            "{output}"
        );
    }

    // In the turn's changes.
    let changes = tandem
        .request("tandem/turnChanges", json!({"sessionId": session}))
        .await
        .unwrap();
    let mut files: Vec<(String, String)> = changes["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            (format!("{e}/in.txt"), "modified".to_string()),
            (format!("{e}/new.txt"), "created".to_string()),
            ("mine.txt".to_string(), "created".to_string()),
        ],
        "{changes}"
    );

    // And undone.
    let done = tandem
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    let mut restored: Vec<String> = done["restored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    restored.sort();
    assert_eq!(
        restored,
        [
            format!("{e}/in.txt"),
            format!("{e}/new.txt"),
            "mine.txt".to_string()
        ],
        "{done}"
    );
    assert_eq!(read("in.txt"), "from the extra root\n");
    assert!(!extra.join("new.txt").exists());
}

#[tokio::test]
async fn a_commands_writes_in_an_additional_root_are_recorded_and_undone_with_namespaces() {
    a_commands_writes_in_an_additional_root_are_recorded_and_undone(true).await;
}

#[tokio::test]
async fn a_commands_writes_in_an_additional_root_are_recorded_and_undone_without_namespaces() {
    a_commands_writes_in_an_additional_root_are_recorded_and_undone(false).await;
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
