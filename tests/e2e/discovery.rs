//! With no model configured anywhere, the sidecar looks for LM Studio and Ollama on this
//! machine, and says exactly what it tried when neither answers.

use crate::support::*;

/// Held by the tests that need the local servers' ports to stay as they are (this one opens
/// Ollama's; the chat's first-run test needs them all closed).
pub static LOCAL_PORTS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// One test, not two: the second half opens Ollama's port, which the first half needs closed.
#[tokio::test]
async fn with_nothing_configured_the_local_servers_are_tried() {
    let _ports = LOCAL_PORTS.lock().await;
    let env = Env::new();
    let tandem = Sidecar::spawn(&env);
    let uri = format!("file://{}", env.workspace.display());
    tandem
        .request(
            "initialize",
            json!({"processId": null, "rootUri": uri,
                   "capabilities": {"experimental": {"tandem": {"approvals": true}}},
                   "initializationOptions": {"dataDir": env.data_dir}}),
        )
        .await
        .expect("initialize without a provider must succeed: discovery waits for a prompt");
    tandem.rpc.notify("initialized", json!({})).await;
    let session = tandem.new_session().await;

    let turn = tandem.run_turn(&session, "Hello?").await;
    assert_eq!(turn.stop_reason(), "error", "{turn}");
    let error = turn.ended()["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    for needle in [
        "http://127.0.0.1:1234/v1",
        "http://127.0.0.1:11434/v1",
        "TANDEM_BASE_URL",
    ] {
        assert!(
            error.contains(needle),
            "the error should name {needle}: {error}"
        );
    }

    // Now "Ollama" answers: the next prompt finds it and uses the first model it lists.
    let ollama = MockServer::start_on(
        Scenario::new([Reply::text("Found you.")]).with_models([ModelEntry {
            id: "qwen2.5-coder:7b".into(),
            context_length: None,
            extra: None,
        }]),
        11434,
    )
    .expect("port 11434 (Ollama's) must be free for this test");
    let turn = tandem.run_turn(&session, "Hello again?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(turn.text(), "Found you.");
    let requests = model_requests(&ollama);
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].body["model"], "qwen2.5-coder:7b");
    assert!(
        !requests[0].headers.contains_key("authorization"),
        "no key is sent to a discovered local server"
    );
}

/// `tandem chat`'s start line with nothing configured, while `scenario` answers on LM Studio's
/// port (1234; llama.cpp's 8080 must be closed: it is tried first).
async fn start_line_with_lm_studios_port_taken_by(scenario: Scenario) -> String {
    let mock = MockServer::start_on(scenario, 1234)
        .expect("port 1234 (LM Studio's) must be free for this test");
    let env = Env::new();
    let mut command = env.command();
    command
        .arg("chat")
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir);
    let output = run_piped(command, "/exit\n").await;
    assert!(output.status.success(), "{}", show(&output));
    assert!(model_requests(&mock).is_empty(), "nothing was asked yet");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    stdout
        .lines()
        .find(|l| l.starts_with("Tandem "))
        .unwrap_or_else(|| panic!("no start line: {}", show(&output)))
        .to_string()
}

#[tokio::test]
async fn what_answers_on_a_local_port_is_checked_and_named() {
    let _ports = LOCAL_PORTS.lock().await;
    // A server with no LM Studio API on LM Studio's port is not taken for LM Studio.
    let line = start_line_with_lm_studios_port_taken_by(Scenario::new([])).await;
    assert!(
        line.contains(
            "mock-coder at http://127.0.0.1:1234/v1 (an OpenAI-compatible server on \
                       LM Studio's port, not LM Studio by its /api/v0/models, found on this \
                       machine)"
        ),
        "{line}"
    );
    // llama.cpp there (its /props) is named as what it is.
    let mut llama = Scenario::new([]);
    llama.routes.insert(
        "GET /props".into(),
        json!({"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1}),
    );
    let line = start_line_with_lm_studios_port_taken_by(llama).await;
    assert!(
        line.contains("(llama.cpp on LM Studio's port, found on this machine)"),
        "{line}"
    );
    // And LM Studio by its own API.
    let mut lm_studio = Scenario::new([]);
    lm_studio.routes.insert(
        "GET /api/v0/models".into(),
        json!({"data": [{"id": "mock-coder", "type": "llm", "loaded_context_length": 4096}]}),
    );
    let line = start_line_with_lm_studios_port_taken_by(lm_studio).await;
    assert!(
        line.contains("(LM Studio, found on this machine)"),
        "{line}"
    );
}

#[tokio::test]
async fn doctor_exits_0_when_a_model_server_answers_and_says_how_to_set_an_unknown_window() {
    let env = Env::new();
    // A server that answers but reports no window.
    let mock =
        MockServer::start(
            Scenario::new([Reply::text("unused")]).with_models([ModelEntry {
                id: "mock-coder".into(),
                context_length: None,
                extra: None,
            }]),
        );
    let out = env
        .command()
        .args(["doctor", "--base-url", &mock.base_url(), "--root"])
        .arg(&env.workspace)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stdout.contains("Endpoint: "), "{stdout}");
    assert!(!stdout.contains("Problem:"), "{stdout}");
    assert!(
        stdout.contains("set context_window under [provider] in config.toml, --context-window"),
        "{stdout}"
    );
    assert!(!stdout.contains("contextWindow"), "{stdout}");
}

/// A configured endpoint that doesn't answer is a problem the doctor names (exit 1, the fix on
/// its last line), even with the model given too, which needs no request to be known.
#[tokio::test]
async fn doctor_exits_1_when_the_configured_server_does_not_answer() {
    let env = Env::new();
    // A port nothing listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = env
        .command()
        .args([
            "doctor",
            "--base-url",
            &format!("http://127.0.0.1:{port}/v1"),
        ])
        .args(["--model", "qwen", "--root"])
        .arg(&env.workspace)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let last = stdout.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("Problem: the model server at http://127.0.0.1:")
            && last.contains("TANDEM_BASE_URL"),
        "{stdout}"
    );
}
