//! The wire contract of docs/protocol.md, where it is about the messages themselves.

use crate::support::*;

#[tokio::test]
async fn methods_without_params_accept_none() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::default());
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let sessions = tandem
        .request("tandem/listSessions", Value::Null)
        .await
        .unwrap();
    assert_eq!(sessions, json!({"sessions": []}));
    let models = tandem
        .request("tandem/listModels", Value::Null)
        .await
        .unwrap();
    assert_eq!(models["current"], "mock-coder");
}

/// docs/protocol.md gives `{}` as the params of `tandem/listSessions` and `tandem/listModels`,
/// as clients send for "no params" (vscode-jsonrpc with `{}`, many Lua and Python clients).
#[tokio::test]
async fn methods_without_params_accept_the_documented_empty_object() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::default());
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    for method in ["tandem/listSessions", "tandem/listModels"] {
        let answer = tandem.request(method, json!({})).await;
        assert!(answer.is_ok(), "{method} with {{}}: {answer:?}");
    }
}

#[tokio::test]
async fn requests_before_initialize_are_refused() {
    let env = Env::new();
    let tandem = Sidecar::spawn(&env);
    let error = tandem
        .request("tandem/newSession", json!({}))
        .await
        .expect_err("not initialized yet");
    assert_eq!(error.code, -32002, "{error:?}");
}

#[tokio::test]
async fn bad_initialization_options_name_the_field() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::default());
    let tandem = Sidecar::spawn(&env);
    let mut params = initialize_params(&env, &mock, Options::default());
    params["initializationOptions"]["maxSteps"] = json!("many");
    let error = tandem
        .request("initialize", params)
        .await
        .expect_err("a string maxSteps must be refused");
    assert_eq!(error.code, -32602, "{error:?}");
    assert!(error.message.contains("maxSteps"), "{error:?}");
}

#[tokio::test]
async fn a_malformed_tandem_capability_fails_initialize() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::default());
    let tandem = Sidecar::spawn(&env);
    let mut params = initialize_params(&env, &mock, Options::default());
    params["capabilities"]["experimental"]["tandem"]["approvals"] = json!("yes");
    let error = tandem
        .request("initialize", params)
        .await
        .expect_err("a string where a bool belongs must be refused, not dropped");
    assert_eq!(error.code, -32602, "{error:?}");
    assert!(
        error.message.contains("experimental.tandem.approvals"),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_empty_prompt_is_invalid_params() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::default());
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let error = tandem
        .try_prompt(&session, "   ")
        .await
        .expect_err("an empty prompt");
    assert_eq!(error.code, -32602, "{error:?}");
    let root = env.workspace.join("missing");
    let error = tandem
        .request("tandem/newSession", json!({"root": root}))
        .await
        .expect_err("a missing root");
    assert_eq!(error.code, 1004, "{error:?}");
    assert!(mock.chat_requests().is_empty());
}
