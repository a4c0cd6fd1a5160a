//! The user's hooks through the real binary: a `PreToolUse` hook from the user's config file
//! refuses `rm` inside the sandbox's walls (the launcher of the `tandem` binary), the model reads
//! why, the file stays; `tandem doctor --json` lists the hook.

use crate::support::*;

/// The hook's command line, as a user's config would hold it: no script file (the walls give the
/// hook a private /tmp, where the test's files are).
const DENY_RM: &str = r#"grep -q '\"command\":\"rm ' && { echo 'rm is refused by policy: move the file to trash/ instead' >&2; exit 2; }; exit 0"#;

/// The user's config file with one `PreToolUse` hook for `Bash` running `line`.
fn config(env: &Env, line: &str) -> std::path::PathBuf {
    let file = env.workspace.parent().unwrap().join("config.toml");
    let hooks = format!(
        "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\nhooks = [{{ type = \"command\", command = {}, \
         timeout = 20 }}]\n",
        toml_string(line)
    );
    std::fs::write(&file, hooks).unwrap();
    file
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

#[tokio::test]
async fn a_users_pre_tool_use_hook_refuses_rm_in_exec() {
    let env = Env::new();
    env.write("precious.txt", "keep me");
    let file = config(&env, DENY_RM);
    let mock = MockServer::start(Scenario::new([
        Reply::tool("execute_command", json!({"command": "rm precious.txt"})),
        Reply::text("I left it.").expect_tool_result_contains("move the file to trash/"),
    ]));
    let mut command = env.command();
    command
        .args(["exec", "Delete precious.txt", "--yes"])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--config")
        .arg(&file)
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir);
    let output = run_piped(command, "").await;
    // 4: the model finished, but an action it asked for was refused.
    assert_eq!(output.status.code(), Some(4), "{}", show(&output));
    assert_eq!(env.read("precious.txt"), "keep me");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "I left it.\n");
    assert_eq!(model_requests(&mock).len(), 2);

    let mut doctor = env.command();
    doctor
        .args(["doctor", "--json", "--config"])
        .arg(&file)
        .arg("--root")
        .arg(&env.workspace);
    let output = run_piped(doctor, "").await;
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", show(&output)));
    let hooks = report["hooks"].as_array().expect("hooks listed");
    assert_eq!(hooks.len(), 1, "{report}");
    assert_eq!(hooks[0]["event"], "PreToolUse");
    assert_eq!(hooks[0]["matcher"], "Bash");
    assert_eq!(hooks[0]["source"], "user");
    assert_eq!(hooks[0]["sandboxed"], true);
    assert_eq!(hooks[0]["trusted"], true);
}

/// The project's `.tandem/config.toml` with a `UserPromptSubmit` hook running its script, whose
/// words the model sees when it runs.
fn project_hook(env: &Env, says: &str) {
    env.write(
        ".tandem/config.toml",
        "[[hooks.UserPromptSubmit]]\nhooks = [{ type = \"command\", command = \"sh .tandem/say.sh\" }]\n",
    );
    env.write(".tandem/say.sh", &format!("echo {says}\n"));
}

/// `tandem exec "Hi"` in the workspace: its output, and whether the model saw `marker` with the
/// prompt.
async fn exec_sees(env: &Env, marker: &str) -> (std::process::Output, bool) {
    let mock = MockServer::start(Scenario::new([Reply::text("Hi.")]));
    let mut command = env.command();
    command
        .args(["exec", "Hi", "--yes"])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir);
    let output = run_piped(command, "").await;
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 1, "{}", show(&output));
    let last = requests[0].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    (output, last.contains(marker))
}

/// A project's hook through the real binary: `tandem exec` never runs it untrusted (even with
/// `--yes`: only the user trusts a project's commands) and says so; the editor face puts it to
/// the user as the project-MCP-server question, and "always" lets the next `exec` run it; a
/// rewritten script is not run by `exec` until trusted again; `tandem doctor --json` says
/// whether it is trusted and why.
#[tokio::test]
async fn a_project_hook_runs_only_once_the_user_trusts_it() {
    let env = Env::new();
    project_hook(&env, "HOOK-SAYS-v1");

    let (output, ran) = exec_sees(&env, "HOOK-SAYS").await;
    assert!(!ran, "untrusted, it must not run: {}", show(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("hook `UserPromptSubmit *` is not trusted yet"),
        "{}",
        show(&output)
    );

    // The editor face: asked, trusted for good, it runs.
    let mock = MockServer::start(Scenario::new([
        Reply::text("Noted.").expect_messages_contain("HOOK-SAYS-v1")
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem.reply_approvals([reply::accept_always()]).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Hi").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 1, "{turn}");
    assert_eq!(approvals[0]["kind"], "mcpServer", "{approvals:?}");
    assert_eq!(approvals[0]["subject"], "hook", "{approvals:?}");
    assert_eq!(approvals[0]["target"], "sh .tandem/say.sh");
    model_requests(&mock);
    drop(tandem);

    let doctor = |env: &Env| {
        let mut doctor = env.command();
        doctor
            .args(["doctor", "--json", "--root"])
            .arg(&env.workspace)
            .arg("--data-dir")
            .arg(&env.data_dir);
        doctor
    };
    let output = run_piped(doctor(&env), "").await;
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", show(&output)));
    let hooks = report["hooks"].as_array().expect("hooks listed");
    let project: Vec<&Value> = hooks.iter().filter(|h| h["source"] == "project").collect();
    assert_eq!(project.len(), 1, "{report}");
    assert_eq!(project[0]["trusted"], true, "{report}");

    let (output, ran) = exec_sees(&env, "HOOK-SAYS-v1").await;
    assert!(ran, "trusted, it runs: {}", show(&output));

    // Rewritten: exec does not run it, and doctor says why.
    env.write(".tandem/say.sh", "echo HOOK-SAYS-v2\n");
    let (output, ran) = exec_sees(&env, "HOOK-SAYS").await;
    assert!(!ran, "changed, it must not run: {}", show(&output));
    let output = run_piped(doctor(&env), "").await;
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let project: Vec<&Value> = report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["source"] == "project")
        .collect();
    assert_eq!(project[0]["trusted"], false, "{report}");
    assert!(
        project[0]["why"]
            .as_str()
            .unwrap()
            .contains(".tandem/say.sh (content)"),
        "{report}"
    );
}
