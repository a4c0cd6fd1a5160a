//! The relay end to end, on in-memory pipes: what the library is given, what the client reads.

use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::sync::oneshot;

use super::*;

/// A stand-in for a library's message type: a call with a string method.
#[derive(Debug, Deserialize, PartialEq)]
struct Call {
    id: Option<i64>,
    method: String,
}

fn parse(text: &str) -> serde_json::Result<Call> {
    serde_json::from_str(text)
}

/// The library's side: what it was given, as it was given.
type Given = Arc<Mutex<Vec<Call>>>;

/// A relay under test: the client's ends of stdin and stdout, and the library's side.
struct Test {
    client: DuplexStream,
    editor: DuplexStream,
    outbox: Outbox,
    relay: Relay,
    given: Given,
    /// Closed when the relay stops reading (its reader drops the library's `deliver`).
    read_all: oneshot::Receiver<()>,
}

/// Starts a relay whose stdin the test writes to (through a pipe of `pipe` bytes, so reads are
/// at most that long) and whose stdout it reads; every message is given to the library.
fn relay<F: Framing>(framing: F, pipe: usize) -> Test {
    let (client, stdin) = tokio::io::duplex(pipe);
    let (stdout, editor) = tokio::io::duplex(1 << 20);
    let given = Given::default();
    let (reading, read_all) = oneshot::channel::<()>();
    let sink = given.clone();
    let deliver = move |call| {
        let _reading = &reading;
        sink.lock().unwrap().push(call);
        std::future::ready(true)
    };
    let (outbox, relay) = start(
        framing,
        Box::pin(stdin),
        Box::pin(stdout),
        parse,
        deliver,
        "test",
    );
    Test {
        client,
        editor,
        outbox,
        relay,
        given,
        read_all,
    }
}

/// Everything the client reads until the relay ends, cut by `framing`.
async fn client_reads<F: Framing>(mut editor: DuplexStream, mut framing: F) -> Vec<Value> {
    let mut out = Vec::new();
    editor.read_to_end(&mut out).await.unwrap();
    framing.feed(&out);
    std::iter::from_fn(|| framing.next_frame())
        .map(|frame| match frame {
            Frame::Body(body) => serde_json::from_slice(&body).unwrap(),
            other => panic!("the relay wrote a bad frame: {other:?}"),
        })
        .collect()
}

fn call(id: i64) -> Call {
    Call {
        id: Some(id),
        method: "m".into(),
    }
}

fn error(reply: &Value) -> (i64, Value) {
    (
        reply["error"]["code"].as_i64().unwrap(),
        reply["id"].clone(),
    )
}

fn framed(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    ContentLength::encode(body, &mut out);
    out
}

#[tokio::test]
async fn every_kind_of_bad_frame_is_answered_and_every_good_one_given_once_parsed() {
    let Test {
        mut client,
        editor,
        outbox,
        relay,
        given,
        read_all,
    } = relay(ContentLength::new(1000), 7);
    let good = |id: i64| framed(format!(r#"{{"id":{id},"method":"m"}}"#).as_bytes());
    let mut input = good(1);
    input.extend(framed(b"\xff not UTF-8"));
    input.extend(good(2));
    input.extend(b"Content-Type: x\r\n\r\n"); // no Content-Length
    input.extend(good(3));
    input.extend(format!("X-Huge: {}\r\n", "a".repeat(20_000)).as_bytes());
    input.extend(good(4));
    input.extend(framed(&[b' '; 1001])); // over the limit
    input.extend(good(5));
    input.extend(framed(br#"{"id":6,"method":7}"#)); // the wrong shape: its id is kept
    input.extend(framed(b"[1,2]"));
    input.extend(good(7));
    client.write_all(&input).await.unwrap();
    drop(client);
    // The library answers after the end of the input: its message comes after the errors.
    assert!(read_all.await.is_err());
    assert!(outbox.send(&json!({"id": 1, "result": "ok"})).await);
    drop(outbox);
    relay.finish().await.unwrap();
    let given = given.lock().unwrap();
    assert_eq!(*given, [1, 2, 3, 4, 5, 7].map(call));
    let out = client_reads(editor, ContentLength::default()).await;
    let errors: Vec<(i64, Value)> = out[..out.len() - 1].iter().map(error).collect();
    assert_eq!(
        errors,
        [
            (PARSE_ERROR, Value::Null),
            (PARSE_ERROR, Value::Null),
            (PARSE_ERROR, Value::Null),
            (PARSE_ERROR, Value::Null),
            (crate::INVALID_REQUEST, json!(6)),
            (crate::INVALID_REQUEST, Value::Null),
        ]
    );
    assert!(
        out[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("UTF-8")
    );
    assert!(
        out[5]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("own frame")
    );
    assert_eq!(out.last(), Some(&json!({"id": 1, "result": "ok"})));
}

#[tokio::test]
async fn a_line_over_the_limit_in_many_reads_costs_one_error_and_the_next_line_is_read() {
    let Test {
        mut client,
        editor,
        outbox,
        relay,
        given,
        read_all,
    } = relay(Lines::new(100), 3);
    let mut input = vec![b'x'; 5000];
    input.extend(b"\n\xc3\x28\n{\"id\":1,\"method\":\"m\"}\r\n\n");
    client.write_all(&input).await.unwrap();
    drop(client);
    assert!(read_all.await.is_err());
    drop(outbox);
    relay.finish().await.unwrap();
    assert_eq!(*given.lock().unwrap(), [call(1)]);
    let out = client_reads(editor, Lines::default()).await;
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(
        out[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("limit of 100")
    );
    assert!(
        out[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("UTF-8")
    );
}

#[tokio::test]
async fn the_library_and_the_refusals_never_interleave_inside_a_frame() {
    let Test {
        mut client,
        editor,
        outbox,
        relay,
        read_all,
        ..
    } = relay(Lines::default(), 1 << 16);
    let writers: Vec<_> = (0..4)
        .map(|n| {
            let outbox = outbox.clone();
            tokio::spawn(async move {
                for i in 0..200 {
                    let message = json!({"from": n, "i": i, "pad": "y".repeat(i * 2)});
                    assert!(outbox.send(&message).await);
                }
            })
        })
        .collect();
    for _ in 0..200 {
        client.write_all(b"nonsense\n").await.unwrap();
    }
    drop(client);
    for writer in writers {
        writer.await.unwrap();
    }
    assert!(read_all.await.is_err());
    drop(outbox);
    relay.finish().await.unwrap();
    let out = client_reads(editor, Lines::default()).await;
    assert_eq!(out.len(), 4 * 200 + 200);
    for n in 0..4 {
        let order: Vec<u64> = out
            .iter()
            .filter(|m| m["from"] == n)
            .map(|m| m["i"].as_u64().unwrap())
            .collect();
        assert_eq!(
            order,
            (0..200).collect::<Vec<_>>(),
            "each sender's messages in order"
        );
    }
}

#[tokio::test]
async fn a_library_that_stops_taking_messages_stops_the_reading() {
    let (mut client, stdin) = tokio::io::duplex(1 << 16);
    let (stdout, editor) = tokio::io::duplex(1 << 16);
    let deliver = |call: Call| std::future::ready(call.method != "exit");
    let (outbox, relay) = start(
        Lines::default(),
        Box::pin(stdin),
        Box::pin(stdout),
        parse,
        deliver,
        "test",
    );
    client
        .write_all(b"{\"method\":\"exit\"}\nnonsense\n")
        .await
        .unwrap();
    // The client keeps its end open: the relay ends by itself, with nothing said of `nonsense`.
    drop(outbox);
    relay.finish().await.unwrap();
    assert_eq!(
        client_reads(editor, Lines::default()).await,
        Vec::<Value>::new()
    );
    drop(client);
}

/// Stdin that fails.
struct Broken;

impl AsyncRead for Broken {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        _: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::task::Poll::Ready(Err(io::Error::other("the pipe broke")))
    }
}

#[tokio::test]
async fn a_read_error_ends_the_input_and_is_told_at_the_finish() {
    let (stdout, _editor) = tokio::io::duplex(1 << 16);
    let (closed_tx, closed) = tokio::sync::oneshot::channel::<()>();
    let mut closed_tx = Some(closed_tx);
    let deliver = move |_: Call| {
        closed_tx.take();
        std::future::ready(true)
    };
    let (outbox, relay) = start(
        Lines::default(),
        Box::pin(Broken),
        Box::pin(stdout),
        parse,
        deliver,
        "test",
    );
    // The reader ended: it dropped `deliver`, and with it the sender.
    assert!(closed.await.is_err());
    drop(outbox);
    let error = relay.finish().await.expect_err("the read error");
    assert_eq!(error.to_string(), "the pipe broke");
}
