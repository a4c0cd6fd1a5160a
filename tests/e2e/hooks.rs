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
