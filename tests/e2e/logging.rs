//! `--log-file` and `TANDEM_LOG`: the sidecar's own log, with a span per turn and per tool call,
//! and never a key in it, even at `trace` with every library's logs let through.

use serde_json::json;

use crate::support::*;

/// Starts `tandem --log-file LOG lsp` with `TANDEM_LOG=level`, initialized against `mock`.
async fn logging_sidecar(
    env: &Env,
    mock: &MockServer,
    log: &std::path::Path,
    level: &str,
) -> Sidecar {
    let sidecar = Sidecar::spawn_with(env, |c| {
        c.arg("--log-file").arg(log).env("TANDEM_LOG", level);
    });
    sidecar
        .request(
            "initialize",
            initialize_params(env, mock, Options::default()),
        )
        .await
        .expect("initialize failed");
    sidecar.rpc.notify("initialized", json!({})).await;
    sidecar
}

#[tokio::test]
async fn the_log_file_has_each_turn_and_tool_call_and_never_the_key() {
    let env = Env::new();
    env.write("notes.txt", "alpha\n");
    // A gateway that echoes the key back in its error: the turn's failure must not log it.
    let leak = format!("Incorrect API key provided: {API_KEY}.");
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": "notes.txt"})),
        Reply::text("It says alpha."),
        Reply::status(401)
            .with_body(json!({"error": {"message": leak, "code": "invalid_api_key"}})),
    ]));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tandem.log");
    let mut tandem = logging_sidecar(&env, &mock, &log, "trace").await;
    let session = tandem.new_session().await;
    let ok = tandem.run_turn(&session, "Read notes.txt").await;
    assert_eq!(ok.stop_reason(), "endTurn", "{ok}");
    let failed = tandem.run_turn(&session, "Again").await;
    assert_eq!(failed.stop_reason(), "error", "{failed}");
    tandem.shutdown().await;

    // The key really went out, so its absence from the log means something.
    assert!(
        mock.chat_requests()
            .iter()
            .all(|r| r.headers.get("authorization").map(String::as_str)
                == Some(&format!("Bearer {API_KEY}")))
    );
    let text = std::fs::read_to_string(&log).expect("the log file was written");
    assert!(!text.contains(API_KEY), "the key is in the log:\n{text}");
    // Each turn in a span with the session's and the turn's ids, each tool call in one of its own.
    let turn = |line: &&str| line.contains(&format!("turn{{session={session} turn="));
    let started: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("turn started"))
        .collect();
    assert_eq!(started.len(), 2, "{text}");
    assert!(
        started.iter().all(|l| turn(l) && l.contains(" INFO ")),
        "{text}"
    );
    let tool = text
        .lines()
        .find(|l| l.contains("tool call done"))
        .unwrap_or_else(|| panic!("no tool call in the log:\n{text}"));
    assert!(turn(&tool), "{tool}");
    assert!(tool.contains(":tool{name=read_file call="), "{tool}");
    assert!(tool.contains("status=Ok"), "{tool}");
    let ended: Vec<&str> = text.lines().filter(|l| l.contains("turn ended")).collect();
    assert!(ended[0].contains("stop_reason=EndTurn"), "{text}");
    assert!(ended[1].contains("error=true"), "{text}");
    // Each request to the model in a span of its own inside its turn: the server's kind and the
    // model, and at its end the tokens, the retries and how it ended.
    let done: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("model request done"))
        .collect();
    assert_eq!(done.len(), 2, "{text}");
    for line in &done {
        assert!(
            turn(line) && line.contains(":model_request{server="),
            "{line}"
        );
        assert!(line.contains("model=mock-coder"), "{line}");
        assert!(
            line.contains("tokens_in=") && line.contains("tokens_out="),
            "{line}"
        );
        assert!(
            line.contains("retries=0") && line.contains("status=\"ok\""),
            "{line}"
        );
    }
    let failed = text
        .lines()
        .find(|l| l.contains("model request failed"))
        .unwrap_or_else(|| panic!("no failed request in the log:\n{text}"));
    assert!(failed.contains("status=Status(401)"), "{failed}");
}

/// `tandem --log-file LOG lsp` with `TANDEM_LOG=level`, which must refuse to start: its stderr.
async fn refused(env: &Env, log: &std::path::Path, level: &str) -> String {
    let out = env
        .command()
        .arg("--log-file")
        .arg(log)
        .arg("lsp")
        .env("TANDEM_LOG", level)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    stderr
}

#[tokio::test]
async fn a_log_file_that_cannot_be_opened_or_a_bad_filter_is_a_clear_error() {
    let env = Env::new();
    let dir = tempfile::tempdir().unwrap();
    let stderr = refused(&env, &dir.path().join("no-such-dir/tandem.log"), "info").await;
    assert!(
        stderr.contains("cannot open the log file") && stderr.contains("no-such-dir"),
        "{stderr}"
    );
    let stderr = refused(&env, &dir.path().join("ok.log"), "tandem_agent=loud").await;
    assert!(
        stderr.contains("TANDEM_LOG=tandem_agent=loud is not a log filter"),
        "{stderr}"
    );
}
