//! The model endpoint misbehaving: retried errors, a broken stream, a rejected key.

use crate::support::*;

#[tokio::test]
async fn rate_limits_and_outages_are_retried() {
    let env = Env::new();
    let mock = MockServer::start(scenario("retry"));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;

    let turn = tandem.run_turn(&session, "Hello?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(turn.text(), "Hello after the rate limit.");
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].body, requests[0].body,
        "the retry sends the same request"
    );

    let turn = tandem.run_turn(&session, "Again?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(turn.text(), "Hello after the outage.");
    assert_eq!(model_requests(&mock).len(), 4);
}

#[tokio::test]
async fn each_retry_is_told_as_it_happens_and_not_kept_in_the_history() {
    let env = Env::new();
    let mock = MockServer::start(scenario("retry-500"));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;

    let turn = tandem.run_turn(&session, "Hello?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(
        turn.kinds(),
        [
            "turnStarted",
            "retrying",
            "retrying",
            "text",
            "usage",
            "turnEnded"
        ],
        "{turn}"
    );
    for (n, retry) in turn.of_kind("retrying").into_iter().enumerate() {
        assert_eq!(retry["retry"], n + 1, "{retry}");
        assert_eq!(retry["maxRetries"], 4, "the default policy: {retry}");
        assert_eq!(retry["status"], 500, "{retry}");
        let error = retry["error"].as_str().unwrap_or("");
        assert!(error.contains("The model crashed while loading"), "{retry}");
        assert!(retry["waitMs"].as_u64().is_some_and(|ms| ms > 0), "{retry}");
    }
    assert_eq!(turn.text(), "Hello after two failures.");
    assert_eq!(model_requests(&mock).len(), 3);

    let loaded = tandem
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .expect("loadSession");
    let kinds: Vec<&str> = loaded["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert!(!kinds.contains(&"retrying"), "{kinds:?}");
    assert!(kinds.contains(&"text"), "{kinds:?}");
}

#[tokio::test]
async fn a_stream_cut_mid_answer_ends_the_turn_with_an_error_and_the_sidecar_goes_on() {
    let env = Env::new();
    let mock = MockServer::start(scenario("stream-cut"));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;

    let turn = tandem.run_turn(&session, "Tell me something").await;
    assert_eq!(turn.stop_reason(), "error", "{turn}");
    let error = turn.ended()["error"].as_str().unwrap_or("");
    assert!(
        error.contains("model server") && !error.contains("panicked"),
        "the error should say the model server's answer broke: {error:?}"
    );
    // What streamed before the cut was shown, and not repeated by a retry.
    assert_eq!(turn.text(), "partial ", "{turn}");

    let next = tandem.run_turn(&session, "Try again").await;
    assert_eq!(next.stop_reason(), "endTurn", "{next}");
    assert_eq!(next.text(), "Recovered.");
    assert_eq!(
        model_requests(&mock).len(),
        2,
        "a stream that already showed text must not be retried"
    );
}

#[tokio::test]
async fn the_api_key_never_leaks_to_the_client_or_the_data_dir() {
    let env = Env::new();
    env.write("notes.txt", "alpha\n");
    let leak = format!(
        "Incorrect API key provided: {API_KEY}. You can find your API key at https://platform.openai.com/account/api-keys."
    );
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": "notes.txt"})),
        Reply::text("It says alpha."),
        // A server that echoes the key back in its error, as some gateways do.
        Reply::status(401).with_body(json!({"error": {"message": leak,
            "type": "invalid_request_error", "code": "invalid_api_key"}})),
    ]));
    let mut tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let ok = tandem.run_turn(&session, "Read notes.txt").await;
    assert_eq!(ok.stop_reason(), "endTurn", "{ok}");
    let failed = tandem.run_turn(&session, "Again").await;
    assert_eq!(failed.stop_reason(), "error", "{failed}");
    let error = failed.ended()["error"].as_str().unwrap_or("");
    assert!(
        error.contains("401") || error.to_lowercase().contains("api key"),
        "the error should say the key was refused: {error:?}"
    );

    // The key really was sent (so its absence below means something).
    let requests = mock.chat_requests();
    assert_eq!(requests.len(), 3);
    assert!(requests.iter().all(
        |r| r.headers.get("authorization").map(String::as_str) == Some("Bearer sk-test-SECRET")
    ));

    let sessions = tandem
        .request("tandem/listSessions", Value::Null)
        .await
        .unwrap();
    let history = tandem
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .unwrap();
    let models = tandem.request("tandem/listModels", Value::Null).await;
    let seen = tandem.inbox(|i| format!("{:?}{:?}{:?}", i.updates, i.approvals, i.other));
    let everything = format!("{seen}{sessions}{history}{models:?}");
    assert!(
        !everything.contains(API_KEY),
        "the key reached the client: {everything}"
    );
    let stderr = tandem.stderr();
    assert!(!stderr.contains(API_KEY), "the key is in stderr: {stderr}");
    tandem.shutdown().await;

    let files = env.data_files();
    assert!(
        files
            .iter()
            .any(|(p, _)| p.extension().is_some_and(|e| e == "jsonl")),
        "no transcript written: {files:?}"
    );
    for (path, text) in files {
        assert!(
            !text.contains(API_KEY),
            "the key is in {}:\n{text}",
            path.display()
        );
    }
}
