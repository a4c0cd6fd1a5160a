//! Malformed input on the wire: each bad frame gets a JSON-RPC error reply (parse error or
//! invalid request), and the sidecar goes on: the next request is answered and a turn running
//! at the time finishes. Only the end of stdin ends it.

use crate::support::*;

fn frame(body: &[u8]) -> Vec<u8> {
    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn deep(depth: usize) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":"deep-5","method":"tandem/listSessions","params":{{"x":{}{}}}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    )
    .into_bytes()
}

/// A malformed message and the error it must get: its code and id.
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    code: i64,
    id: Value,
}

fn cases() -> Vec<Case> {
    let listed = br#"{"jsonrpc":"2.0","id":41,"method":"tandem/listSessions"}"#;
    let mut no_length = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n".to_vec();
    no_length.extend_from_slice(listed);
    vec![
        Case {
            name: "no Content-Length header",
            bytes: no_length,
            code: -32700,
            id: Value::Null,
        },
        Case {
            name: "a body that is not JSON",
            bytes: frame(b"this is not json"),
            code: -32700,
            id: Value::Null,
        },
        Case {
            name: "invalid UTF-8 in the body",
            bytes: frame(b"{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tandem/\xff\xfe\"}"),
            code: -32700,
            id: Value::Null,
        },
        Case {
            name: "an id that is an object",
            bytes: frame(br#"{"jsonrpc":"2.0","id":{"n":1},"method":"tandem/listSessions"}"#),
            code: -32600,
            id: Value::Null,
        },
        Case {
            name: "100k-deep nesting",
            bytes: frame(&deep(100_000)),
            code: -32700,
            // Still JSON: the request's own id is read, so the client gets its answer.
            id: json!("deep-5"),
        },
        Case {
            name: "a batch",
            bytes: frame(format!("[{}]", String::from_utf8_lossy(listed)).as_bytes()),
            code: -32600,
            id: Value::Null,
        },
        Case {
            name: "a method that is not a string",
            // A string id: the harness files answers to numeric ids as its own.
            bytes: frame(br#"{"jsonrpc":"2.0","id":"bad-43","method":7}"#),
            code: -32600,
            id: json!("bad-43"),
        },
        Case {
            name: "a bad Content-Length",
            bytes: b"Content-Length: lots\r\n\r\n{}".to_vec(),
            code: -32700,
            id: Value::Null,
        },
    ]
}

/// The error replies (answers with an id that is not one of the client's numbers) so far.
fn error_replies(tandem: &Sidecar) -> Vec<Value> {
    tandem.inbox(|i| {
        i.other
            .iter()
            .filter(|m| m.get("method").is_none() && m.get("error").is_some())
            .cloned()
            .collect()
    })
}

#[tokio::test]
async fn every_malformed_frame_is_answered_and_the_sidecar_goes_on() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::default());
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let mut seen = 0;
    for case in cases() {
        tandem.rpc.send_raw(&case.bytes).await;
        let replies = tandem
            .rpc
            .wait(&format!("the error reply to {}", case.name), |inbox| {
                let errors: Vec<Value> = inbox
                    .other
                    .iter()
                    .filter(|m| m.get("error").is_some())
                    .cloned()
                    .collect();
                (errors.len() > seen).then_some(errors)
            })
            .await;
        assert_eq!(replies.len(), seen + 1, "{}: {replies:#?}", case.name);
        let reply = &replies[seen];
        seen += 1;
        assert_eq!(reply["error"]["code"], case.code, "{}: {reply}", case.name);
        assert_eq!(reply["id"], case.id, "{}: {reply}", case.name);
        let sessions = tandem
            .request("tandem/listSessions", Value::Null)
            .await
            .unwrap_or_else(|e| panic!("after {}: {e:?}", case.name));
        assert_eq!(sessions, json!({"sessions": []}), "after {}", case.name);
    }
    // A notification with params of the wrong shape is dropped without a word.
    tandem
        .rpc
        .notify("textDocument/didOpen", json!({"textDocument": 42}))
        .await;
    let models = tandem.request("tandem/listModels", Value::Null).await;
    assert!(models.is_ok(), "{models:?}");
    assert_eq!(error_replies(&tandem).len(), seen);
    assert!(
        tandem.stderr().contains("refused a message"),
        "{}",
        tandem.stderr()
    );
}

#[tokio::test]
async fn a_turn_running_through_malformed_frames_finishes() {
    let env = Env::new();
    env.write("src/answer.rs", "pub fn answer() -> u32 {\n    41\n}\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "replace_in_file",
            json!({"path": "src/answer.rs",
                   "diff": "------- SEARCH\n    41\n=======\n    42\n+++++++ REPLACE"}),
        ),
        Reply::text("Done."),
    ]));
    let mut tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.prompt(&session, "Make it 42").await;
    // The turn waits on the user's answer while the garbage comes in.
    tandem.wait_for_approvals(1).await;
    for case in cases() {
        tandem.rpc.send_raw(&case.bytes).await;
    }
    let count = cases().len();
    tandem
        .rpc
        .wait("an error reply to each bad frame", |inbox| {
            (inbox
                .other
                .iter()
                .filter(|m| m.get("error").is_some())
                .count()
                >= count)
                .then_some(())
        })
        .await;
    tandem.reply_approvals([reply::accept()]).await;
    let ended = tandem.wait_for_turn_end(&turn).await;
    assert_eq!(ended.stop_reason(), "endTurn", "{ended}");
    assert_eq!(ended.text(), "Done.");
    assert!(env.read("src/answer.rs").contains("42"));
    // The bad frames ended nothing: a shutdown then exit ends it, with code 0.
    let status = tandem.shutdown().await;
    assert!(status.success(), "{status:?}");
}
