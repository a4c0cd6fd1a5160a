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
