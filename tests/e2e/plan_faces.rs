//! The plan and plan mode through the faces beside `tandem/*` (tested in `plan.rs`): `tandem chat`
//! (`/plan`, `/act`, the plan as a compact list), `tandem exec --plan`, and plain LSP
//! (`tandem.setMode`).

use crate::support::*;

fn plan_and_write() -> Reply {
    Reply::tool(
        "update_plan",
        json!({"plan": [
            {"step": "Read notes.txt", "status": "completed"},
            {"step": "Change it", "status": "in_progress"},
        ]}),
    )
    .and_tool(
        "write_to_file",
        json!({"path": "notes.txt", "content": "gone\n"}),
    )
}

fn offered(request: &RecordedRequest) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn chat_plan_mode_refuses_writes_unasked_and_shows_the_plan() {
    let env = Env::new();
    env.write("notes.txt", "keep\n");
    let mock = MockServer::start(Scenario::new([
        plan_and_write(),
        Reply::text("Planned only.").expect_tool_result_contains("read-only"),
        Reply::text("Editing again."),
    ]));
    // Had a question been asked, it would have taken `/act` as its answer (and said `[y]es`).
    let typed = "/plan\nPlan the change\n/act\nGo on\n/exit\n";
    let output = chat_piped(&env, &mock, &[], typed).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    for needle in [
        "Plan (read-only): Read-only",
        "plan 1/2",
        "Read notes.txt",
        "Change it",
        "Planned only.",
        "Default: Reads, edits",
        "Editing again.",
    ] {
        assert!(
            stdout.contains(needle),
            "{needle:?} missing\n{}",
            show(&output)
        );
    }
    assert!(
        !stdout.contains("[y]es"),
        "nothing was asked\n{}",
        show(&output)
    );
    assert_eq!(env.read("notes.txt"), "keep\n");
    let requests = model_requests(&mock);
    assert!(!offered(&requests[0]).contains(&"write_to_file".to_string()));
    assert!(offered(&requests[2]).contains(&"write_to_file".to_string()));
}

/// `tandem exec "Plan the change" --plan` with `flag`, the model writing after its plan.
async fn exec_plan(env: &Env, flag: &str, after: Reply) -> (std::process::Output, MockServer) {
    let mock = MockServer::start(Scenario::new([plan_and_write(), after]));
    let mut command = env.command();
    command
        .args(["exec", "Plan the change", "--plan", flag])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir);
    (run_piped(command, "").await, mock)
}

#[tokio::test]
async fn exec_plan_offers_no_writes_and_refuses_them() {
    let env = Env::new();
    env.write("notes.txt", "keep\n");
    let after = Reply::text("Planned only.").expect_tool_result_contains("read-only");
    let (output, mock) = exec_plan(&env, "--yes", after).await;
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("Planned only."),
        "{}",
        show(&output)
    );
    // Even with --yes: plan mode takes the right away, and the refusal is one (docs/exec.md:
    // any refusal exits 4), told with what would have allowed it.
    assert_eq!(env.read("notes.txt"), "keep\n");
    assert_eq!(output.status.code(), Some(4), "{}", show(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("1 action the model asked for was refused (--plan is read-only"),
        "{stderr}"
    );
    let requests = model_requests(&mock);
    let tools = offered(&requests[0]);
    assert!(tools.contains(&"update_plan".to_string()), "{tools:?}");
    assert!(!tools.contains(&"write_to_file".to_string()), "{tools:?}");
    assert!(!tools.contains(&"execute_command".to_string()), "{tools:?}");

    // The JSON events count it too.
    let (output, _mock) = exec_plan(&env, "--json", Reply::text("Planned only.")).await;
    assert_eq!(output.status.code(), Some(4), "{}", show(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let end: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(end["type"], "turnEnded", "{end}");
    assert_eq!(end["rejectedActions"], 1, "{end}");
    assert_eq!(end["exitCode"], 4, "{end}");
}

#[tokio::test]
async fn plain_lsp_switches_the_mode_with_execute_command() {
    let env = Env::new();
    env.write("notes.txt", "keep\n");
    let mock = MockServer::start(Scenario::new([
        plan_and_write(),
        Reply::text("Planned only.").expect_tool_result_contains("read-only"),
    ]));
    let tandem = Sidecar::spawn(&env);
    let mut params = initialize_params(&env, &mock, Options::default());
    params["capabilities"] = json!({});
    let init = tandem.request("initialize", params).await.unwrap();
    assert!(
        init["capabilities"]["executeCommandProvider"]["commands"]
            .to_string()
            .contains("\"tandem.setMode\"")
    );
    tandem.rpc.notify("initialized", json!({})).await;
    let bad = tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.setMode", "arguments": ["yolo"]}),
        )
        .await
        .unwrap_err();
    assert!(bad.message.contains("one of default, plan"), "{bad:?}");
    let set = tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.setMode", "arguments": ["plan"]}),
        )
        .await
        .unwrap();
    assert_eq!(set["mode"], "plan");
    tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.ask", "arguments": ["Plan the change"]}),
        )
        .await
        .unwrap();
    tandem
        .rpc
        .wait("the turn's closing message", |inbox| {
            inbox
                .other
                .iter()
                .any(|m| {
                    m["method"] == "window/showMessage"
                        && m["params"]["message"]
                            .as_str()
                            .is_some_and(|t| t.contains("Planned only."))
                })
                .then_some(())
        })
        .await;
    // Nothing was asked (a plain client is asked with window/showMessageRequest).
    let asked = tandem.inbox(|inbox| {
        inbox
            .other
            .iter()
            .filter(|m| m["method"] == "window/showMessageRequest")
            .count()
    });
    assert_eq!(asked, 0);
    assert_eq!(env.read("notes.txt"), "keep\n");
    let tools = offered(&model_requests(&mock)[0]);
    assert!(!tools.contains(&"write_to_file".to_string()), "{tools:?}");
}
