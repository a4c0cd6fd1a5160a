//! What Tandem reads for itself and whom it trusts: special files in settings, project MCP
//! servers whose code changed, a project's model, an MCP server's flood.

use crate::support::rpc::RpcError;
use crate::support::*;

/// A named pipe where a file is expected (`mkfifo`).
fn mkfifo(path: &std::path::Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// `initialize` on a fresh sidecar, which must fail: its error.
async fn initialize_error(env: &Env, mock: &MockServer) -> RpcError {
    let tandem = Sidecar::spawn(env);
    tandem
        .request(
            "initialize",
            initialize_params(env, mock, Options::default()),
        )
        .await
        .expect_err("initialize should have failed")
}

#[tokio::test]
async fn a_fifo_as_the_project_config_is_a_clear_error_not_a_hang() {
    let env = Env::new();
    mkfifo(&env.workspace.join(".tandem/config.toml"));
    let mock = MockServer::start(Scenario::new([Reply::text("Hi.")]));
    let e = initialize_error(&env, &mock).await;
    assert!(
        e.message.contains(".tandem/config.toml") && e.message.contains("named pipe (FIFO)"),
        "{e:?}"
    );
}

#[tokio::test]
async fn a_device_or_a_huge_project_config_is_refused_with_the_cap_named() {
    let env = Env::new();
    let path = env.workspace.join(".tandem/config.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    // A link out of the workspace (here to a device) is not even opened: the session starts
    // without it (tandem-config's tests check a device met by its own path is refused).
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let mock = MockServer::start(Scenario::new([Reply::text("Hi.")]));
    let tandem = Sidecar::spawn(&env);
    tandem
        .request(
            "initialize",
            initialize_params(&env, &mock, Options::default()),
        )
        .await
        .expect("a project config linking out is left unread, not an error");
    drop(tandem);

    std::fs::remove_file(&path).unwrap();
    std::fs::File::create(&path)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let e = initialize_error(&env, &mock).await;
    assert!(
        e.message
            .contains("2147483648 bytes, over the cap of 1048576 bytes"),
        "{e:?}"
    );
}

fn tiny_server() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp-servers/tiny_server.py")
}

fn offered_tools(mock: &MockServer) -> Vec<String> {
    model_requests(mock)
        .first()
        .and_then(|r| r.body["tools"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect()
}

/// A project's server, trusted for good, whose script a command then rewrote: the next session
/// asks again and names the file; unchanged, it starts unasked, in the workspace root (its
/// relative script path is the project's).
#[tokio::test]
async fn a_trusted_project_server_whose_script_changed_asks_again() {
    let env = Env::new();
    let script = std::fs::read_to_string(tiny_server()).unwrap();
    env.write("tools/server.py", &script);
    env.write(
        ".tandem/config.toml",
        "[[mcp.servers]]\nname = \"proj\"\ncommand = \"python3\"\nargs = [\"tools/server.py\"]\n",
    );
    let run = |replies: Vec<Reply>| async {
        let mock = MockServer::start(Scenario::new(replies));
        let tandem = Sidecar::start(&env, &mock, Options::default()).await;
        (mock, tandem)
    };

    // Trusted for good; it runs from the workspace root.
    let (mock, tandem) = run(vec![
        Reply::tool("proj__hello", json!({})),
        Reply::text("Done.").expect_tool_result_contains("hello from tools/server.py"),
    ])
    .await;
    tandem
        .reply_approvals([reply::accept_always(), reply::accept()])
        .await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Hi").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert!(
        offered_tools(&mock).contains(&"proj__hello".to_string()),
        "{turn}"
    );
    drop(tandem);

    // Unchanged: not asked.
    let (mock, tandem) = run(vec![Reply::text("Fine.")]).await;
    let session = tandem.new_session().await;
    tandem.run_turn(&session, "Hi").await;
    assert!(
        tandem.approvals().is_empty(),
        "unchanged and trusted: not asked"
    );
    assert!(offered_tools(&mock).contains(&"proj__hello".to_string()));
    drop(tandem);

    // What a sandboxed command can do: rewrite the script in the workspace.
    env.write("tools/server.py", &format!("{script}\n# planted\n"));
    let (mock, tandem) = run(vec![Reply::text("Fine.")]).await;
    tandem.reply_approvals([reply::reject("no")]).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Hi").await;
    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 1, "the changed server must ask: {turn}");
    assert_eq!(approvals[0]["kind"], "mcpServer");
    let notices: Vec<String> = turn
        .of_kind("modelNotice")
        .iter()
        .filter_map(|n| n["message"].as_str().map(str::to_string))
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("changed since you trusted it: tools/server.py (content)")),
        "{notices:?}"
    );
    assert!(!offered_tools(&mock).iter().any(|t| t.starts_with("proj__")));
}

/// Starts a sidecar on `env` with `replies`, answering its approvals with `answers`, runs one
/// turn: the approvals asked, the tools offered, the notices.
async fn one_session(
    env: &Env,
    replies: Vec<Reply>,
    answers: Vec<Value>,
) -> (Vec<Value>, Vec<String>, Vec<String>) {
    let mock = MockServer::start(Scenario::new(replies));
    let tandem = Sidecar::start(env, &mock, Options::default()).await;
    tandem.reply_approvals(answers).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Hi").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let notices = turn
        .of_kind("modelNotice")
        .iter()
        .filter_map(|n| n["message"].as_str().map(str::to_string))
        .collect();
    (tandem.approvals(), offered_tools(&mock), notices)
}

/// A line that names a directory: its tree is bound, so a file changed in it asks again (it
/// used to be recorded as `directory` alone, and the changed code ran unasked).
#[tokio::test]
async fn a_trusted_server_that_names_a_directory_asks_again_when_a_file_in_it_changed() {
    let env = Env::new();
    let script = std::fs::read_to_string(tiny_server()).unwrap();
    // `python3 DIR` runs DIR/__main__.py.
    env.write("tools/srv/__main__.py", &script);
    env.write(
        ".tandem/config.toml",
        "[[mcp.servers]]\nname = \"proj\"\ncommand = \"python3\"\nargs = [\"tools/srv\"]\n",
    );
    let (approvals, tools, _) = one_session(
        &env,
        vec![Reply::text("Fine.")],
        vec![reply::accept_always()],
    )
    .await;
    assert_eq!(approvals.len(), 1);
    assert!(approvals[0].get("whyNotAlways").is_none(), "{approvals:?}");
    assert!(tools.contains(&"proj__hello".to_string()), "{tools:?}");
    let (approvals, tools, _) = one_session(&env, vec![Reply::text("Fine.")], vec![]).await;
    assert!(approvals.is_empty(), "unchanged and trusted: not asked");
    assert!(tools.contains(&"proj__hello".to_string()), "{tools:?}");

    env.write("tools/srv/__main__.py", &format!("{script}\n# planted\n"));
    let (approvals, tools, notices) =
        one_session(&env, vec![Reply::text("Fine.")], vec![reply::reject("no")]).await;
    assert_eq!(approvals.len(), 1, "the changed server must ask");
    assert!(
        notices
            .iter()
            .any(|n| n.contains("changed since you trusted it: tools/srv (content)")),
        "{notices:?}"
    );
    assert!(!tools.iter().any(|t| t.starts_with("proj__")), "{tools:?}");
}

/// A line that names the workspace itself, or runs code given inline, can't be bound: the
/// question says so and offers no "always", and an "always" sent anyway starts it for this
/// session only, so the next session asks again (it used to be trusted for good, and whatever
/// the workspace or the code's files held then ran unasked).
#[tokio::test]
async fn a_server_whose_trust_cant_be_bound_is_never_trusted_for_good() {
    let script = std::fs::read_to_string(tiny_server()).unwrap();
    for (args, why) in [
        (r#"["tools/server.py", "."]"#, "names the workspace itself"),
        (
            r#"["-c", "exec(open('tools/server.py').read())"]"#,
            "runs code given inline",
        ),
    ] {
        let env = Env::new();
        env.write("tools/server.py", &script);
        env.write(
            ".tandem/config.toml",
            &format!("[[mcp.servers]]\nname = \"proj\"\ncommand = \"python3\"\nargs = {args}\n"),
        );
        let (approvals, tools, notices) = one_session(
            &env,
            vec![Reply::text("Fine.")],
            vec![reply::accept_always()],
        )
        .await;
        assert_eq!(approvals.len(), 1, "{args}");
        let reason = approvals[0]["whyNotAlways"].as_str().unwrap_or_default();
        assert!(reason.contains(why), "{args}: {approvals:?}");
        assert!(
            tools.contains(&"proj__hello".to_string()),
            "{args}: {tools:?}"
        );
        assert!(
            notices.iter().any(|n| n.contains("for this session only")),
            "{args}: {notices:?}"
        );
        // What a command in the workspace can do; the next session asks.
        env.write("tools/server.py", &format!("{script}\n# planted\n"));
        let (approvals, tools, _) =
            one_session(&env, vec![Reply::text("Fine.")], vec![reply::reject("no")]).await;
        assert_eq!(approvals.len(), 1, "{args}: must ask again");
        assert!(!tools.iter().any(|t| t.starts_with("proj__")), "{args}");
    }
}

/// A project's server runs inside the walls: it writes the workspace, not beyond it, can't
/// connect out, and its tools work.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_project_server_runs_inside_the_walls() {
    let env = Env::new();
    env.write(
        "tools/server.py",
        &std::fs::read_to_string(tiny_server()).unwrap(),
    );
    env.write(
        ".tandem/config.toml",
        "[[mcp.servers]]\nname = \"proj\"\ncommand = \"python3\"\nargs = [\"tools/server.py\"]\n",
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let outside = env.data_dir.join("../home/planted.txt");
    let inside = env.workspace.join("in.txt");
    let mock = MockServer::start(Scenario::new([
        Reply::tool("proj__write", json!({"path": inside, "text": "x"})),
        Reply::tool("proj__write", json!({"path": outside, "text": "x"})),
        Reply::tool("proj__connect", json!({"port": port})),
        Reply::tool("proj__env", json!({"name": "TANDEM_API_KEY"})),
        Reply::text("Done."),
    ]));
    let options = Options {
        approval: json!({"allowMcpTools": ["proj/*"]}),
        ..Options::default()
    };
    // A key in the sidecar's environment stays out of the server's.
    let tandem = Sidecar::spawn_with(&env, |c| {
        c.env("TANDEM_API_KEY", "sk-e2e-secret");
    });
    tandem
        .request("initialize", initialize_params(&env, &mock, options))
        .await
        .expect("initialize failed");
    tandem.rpc.notify("initialized", json!({})).await;
    tandem.reply_approvals([reply::accept()]).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Go").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let outputs: Vec<String> = turn
        .of_kind("toolResult")
        .iter()
        .filter_map(|r| r["output"].as_str().map(str::to_string))
        .collect();
    assert_eq!(outputs.len(), 5, "{outputs:?}");
    assert!(outputs[1].starts_with("wrote "), "{outputs:?}");
    assert!(outputs[2].starts_with("refused:"), "{outputs:?}");
    assert!(!outside.exists());
    assert!(outputs[3].starts_with("refused:"), "{outputs:?}");
    assert_eq!(outputs[4], "(unset)", "{outputs:?}");
}

/// A result past rmcp's 16 MiB line limit used to be dropped unseen, and the call waited for its
/// 5-minute timeout; then it came back cut, its size misnamed; now it is a tool error that names
/// the sizes and what to do.
#[tokio::test]
async fn a_20_mib_mcp_result_is_an_error_that_names_the_sizes_not_waited_for() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::tool("tiny__big", json!({"mib": 20})),
        Reply::text("Done.").expect_tool_result_contains("too large"),
        Reply::tool("tiny__controls", json!({})),
        Reply::text("Done."),
    ]));
    let options = Options {
        mcp_servers: json!([{"name": "tiny", "command": "python3",
            "args": [tiny_server().display().to_string()]}]),
        approval: json!({"allowMcpTools": ["tiny/*"]}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Get it").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let result = turn.tool_result();
    let output = result["output"].as_str().unwrap().to_string();
    assert_eq!(result["status"], "error", "{result}");
    assert!(
        output.contains("a string of 20971520 bytes (20 MiB)")
            && output.contains("Ask the tool for less"),
        "{}",
        &output[..output.len().min(600)]
    );
    assert!(!output.contains("xxxx"), "a piece of it reached the model");

    // Escapes and carriage returns from a server never reach the model or the user.
    let turn = tandem.run_turn(&session, "Again").await;
    let output = turn.tool_result()["output"].as_str().unwrap().to_string();
    assert!(output.contains("Run `git status`?"), "{output}");
    assert!(
        !output.contains('\u{1b}') && !output.contains('\r') && !output.contains('\u{7}'),
        "{output:?}"
    );
}
