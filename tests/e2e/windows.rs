//! Windows, through `tandem.exe lsp` (run under Wine on Linux CI): a turn that reads and edits a
//! CRLF file at a `C:\` path and runs a command through `cmd.exe`, which asks first because
//! Windows has no sandbox Tandem can use.

use crate::support::*;

#[tokio::test]
async fn a_turn_edits_a_crlf_file_and_runs_cmd_after_asking() {
    let env = Env::new();
    env.write("notes.txt", "one\r\ntwo\r\nthree\r\n");
    let edit = "------- SEARCH\ntwo\n=======\nTWO\n+++++++ REPLACE";
    let command = "type notes.txt& echo done& exit /b 0";
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": "notes.txt"})),
        Reply::tool(
            "replace_in_file",
            json!({"path": "notes.txt", "diff": edit}),
        )
        .expect_tool_result_contains("two"),
        Reply::tool("execute_command", json!({"command": command})),
        Reply::text("Done.").expect_tool_result_contains("TWO"),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem
        .reply_approvals([reply::accept(), reply::accept()])
        .await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Shout the second line").await;

    assert_eq!(
        std::fs::read(env.workspace.join("notes.txt")).unwrap(),
        b"one\r\nTWO\r\nthree\r\n",
        "the edit must keep CRLF line endings: {turn}"
    );
    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 2, "{approvals:#?}");
    assert_eq!(approvals[1]["kind"], "command");
    assert_eq!(approvals[1]["command"], command);
    // A plain drive path, without the `\\?\` prefix Windows' canonical paths carry.
    let cwd = approvals[1]["cwd"].as_str().unwrap();
    assert!(
        cwd.as_bytes().get(1) == Some(&b':'),
        "not a drive path: {cwd}"
    );
    let results = turn.tool_results();
    let output = results.last().unwrap()["output"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        output.contains("TWO") && output.contains("done") && output.contains("exit code 0"),
        "{output}"
    );
}

#[test]
fn tandem_tool_reads_a_windows_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\r\nbeta\r\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["tool", "read_file", r#"{"path": "a.txt"}"#, "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["ok"], true, "{json}");
    assert!(json["output"].as_str().unwrap().contains("beta"), "{json}");
}
