//! The harness: a scripted model ([`mock_model`]), the real sidecar ([`Sidecar`]) and an
//! editor-like client ([`rpc::Connection`]).

pub mod rpc;
mod sidecar;
mod turn;

pub use mock_model::{MockServer, ModelEntry, RecordedRequest, Reply, Scenario};
pub use rpc::{Answer, SAFETY};
pub use serde_json::{Value, json};
pub use sidecar::{API_KEY, Env, Options, Sidecar, initialize_params};
pub use tandem_protocol::ApprovalAction;
pub use turn::{Turn, TurnRef, typed_approval};

/// Polls `done` until it holds; fails the test when the safety net runs out first.
pub async fn wait_until(what: &str, done: impl FnMut() -> bool) {
    tandem_test_support::wait::wait_until(what, SAFETY, done).await
}

/// The kinds of a turn where the model says something, calls one tool, then answers.
pub const ONE_TOOL_TURN: [&str; 8] = [
    "turnStarted",
    "text",
    "usage",
    "toolCall",
    "toolResult",
    "text",
    "usage",
    "turnEnded",
];

/// The roles of a request's messages, in order.
pub fn roles(request: &RecordedRequest) -> Vec<String> {
    request
        .messages()
        .iter()
        .map(|m| m["role"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// The scripted model answering as Ollama does: `/api/version`, and `/api/show` with these
/// capabilities and an 8,192-token context.
pub fn as_ollama(mut scenario: Scenario, capabilities: Value) -> Scenario {
    scenario
        .routes
        .insert("GET /api/version".into(), json!({"version": "0.9.0"}));
    scenario.routes.insert(
        "POST /api/show".into(),
        json!({"model_info": {"general.architecture": "llama", "llama.context_length": 8192}, "capabilities": capabilities}),
    );
    scenario
}

/// `tests/scenarios/NAME.json`.
pub fn scenario(name: &str) -> Scenario {
    let path = format!(
        "{}/../../tests/scenarios/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Approval replies, as an editor sends them.
pub mod reply {
    use super::{Value, json};

    pub fn accept() -> Value {
        json!({"decision": "accept"})
    }

    pub fn accept_always() -> Value {
        json!({"decision": "acceptAlways"})
    }

    /// Accept the user's own version of the file.
    pub fn accept_edited(content: &str) -> Value {
        json!({"decision": "accept", "content": content})
    }

    pub fn reject(feedback: &str) -> Value {
        json!({"decision": "reject", "feedback": feedback})
    }
}

/// The chat requests the mock got; fails the test when the mock itself reported a problem
/// (a request with no reply left, an expectation not met).
pub fn model_requests(mock: &MockServer) -> Vec<RecordedRequest> {
    let failures = mock.failures();
    assert!(
        failures.is_empty(),
        "the mock model reported: {failures:#?}"
    );
    mock.chat_requests()
}

/// The `role: tool` message answering `call_id` in a request.
pub fn tool_message(request: &RecordedRequest, call_id: &str) -> String {
    request
        .messages_with_role("tool")
        .into_iter()
        .find(|m| m["tool_call_id"] == call_id)
        .and_then(|m| m["content"].as_str().map(str::to_string))
        .unwrap_or_else(|| {
            panic!(
                "no tool message for {call_id} in {:#}",
                Value::Array(request.messages().to_vec())
            )
        })
}

/// Runs a `tandem` command line with `stdin` written to its standard input (then closed), its
/// output captured; fails the test if it runs past [`SAFETY`].
pub async fn run_piped(mut command: tokio::process::Command, stdin: &str) -> std::process::Output {
    use std::process::Stdio;
    use tokio::io::AsyncWriteExt;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run tandem");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.as_bytes())
        .await
        .expect("write stdin");
    drop(input);
    tokio::time::timeout(SAFETY, child.wait_with_output())
        .await
        .expect("tandem hung")
        .expect("tandem failed to run")
}

/// `tandem chat` against the mock with `typed` on stdin (not a terminal); it must exit cleanly.
pub async fn chat_piped(
    env: &Env,
    mock: &MockServer,
    args: &[&str],
    typed: &str,
) -> std::process::Output {
    let mut command = env.command();
    command
        .arg("chat")
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir)
        .args(args);
    let output = run_piped(command, typed).await;
    assert!(output.status.success(), "{}", show(&output));
    output
}

/// A finished command's exit status and output, for a failing assertion's message.
pub fn show(output: &std::process::Output) -> String {
    format!(
        "exit {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
