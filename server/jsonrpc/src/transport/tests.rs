//! The relay end to end, on in-memory pipes: what the library is given, what the client reads.
//! Also what the framings' own tests share.

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

fn call(id: i64) -> Call {
    let method = "m".into();
    Call {
        id: Some(id),
        method,
    }
}

/// A relay under test, with the client's ends of stdin and stdout.
struct Test<F> {
    client: DuplexStream,
    editor: DuplexStream,
    outbox: Outbox,
    relay: Relay,
    /// What the library was given, in order.
    given: Arc<Mutex<Vec<Call>>>,
    /// Closed when the relay stops reading (its reader drops the library's `deliver`).
    read_all: oneshot::Receiver<()>,
    framing: std::marker::PhantomData<F>,
}

/// Starts a relay whose stdin the test writes to (through a pipe of `pipe` bytes, so reads are
/// at most that long) and whose stdout it reads; the library takes every message.
fn relay<F: Framing>(framing: F, pipe: usize) -> Test<F> {
    let (client, stdin) = tokio::io::duplex(pipe);
    let (stdout, editor) = tokio::io::duplex(1 << 20);
    let given = Arc::new(Mutex::new(Vec::new()));
    let (reading, read_all) = oneshot::channel::<()>();
    let sink = given.clone();
    let deliver = move |call| {
        let _reading = &reading;
        sink.lock().unwrap().push(call);
        std::future::ready(true)
    };
    let stdio = (Box::pin(stdin), Box::pin(stdout));
    let (outbox, relay) = start(framing, stdio.0, stdio.1, parse, deliver, "test");
    let framing = std::marker::PhantomData;
    Test {
        client,
        editor,
        outbox,
        relay,
        given,
        read_all,
        framing,
    }
}

impl<F: Framing + Default> Test<F> {
    /// Sends `input` and closes stdin; once all of it was read, the library sends `answer` and
    /// ends. What the library was given, and every message the client read.
    async fn run(mut self, input: &[u8], answer: Option<Value>) -> (Vec<Call>, Vec<Value>) {
        self.client.write_all(input).await.unwrap();
        drop(self.client);
        assert!(self.read_all.await.is_err());
        if let Some(answer) = answer {
            assert!(self.outbox.send(&answer).await);
        }
        drop(self.outbox);
        self.relay.finish().await.unwrap();
        let given = std::mem::take(&mut *self.given.lock().unwrap());
        (given, client_reads::<F>(self.editor).await)
    }
}

/// Everything the client reads until the relay ends.
async fn client_reads<F: Framing + Default>(mut editor: DuplexStream) -> Vec<Value> {
    let mut out = Vec::new();
    editor.read_to_end(&mut out).await.unwrap();
    let mut framing = F::default();
    framing.feed(&out);
    std::iter::from_fn(|| framing.next_frame())
        .map(|frame| match frame {
            Frame::Body(body) => serde_json::from_slice(&body).unwrap(),
            other => panic!("the relay wrote a bad frame: {other:?}"),
        })
        .collect()
}

/// The error code and id of a reply, and whether its message says `what`.
fn error(reply: &Value, what: &str) -> (i64, Value, bool) {
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    let code = reply["error"]["code"].as_i64().unwrap_or_default();
    (code, reply["id"].clone(), message.contains(what))
}

fn framed(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    ContentLength::encode(body, &mut out);
    out
}

#[tokio::test]
async fn every_kind_of_bad_frame_is_answered_and_every_good_one_given_once_parsed() {
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
    let answer = json!({"id": 1, "result": "ok"});
    let test = relay(ContentLength::new(1000), 7);
    let (given, out) = test.run(&input, Some(answer.clone())).await;
    assert_eq!(given, [1, 2, 3, 4, 5, 7].map(call));
    // The library answered after the end of the input: its message comes after the errors.
    assert_eq!(out.last(), Some(&answer));
    let errors = out[..out.len() - 1].iter().zip([
        "not UTF-8",
        "no Content-Length",
        "no end of the header block",
        "1001 bytes is over the limit of 1000",
        "\"jsonrpc\" must be \"2.0\"",
        "in its own frame",
    ]);
    let errors: Vec<_> = errors.map(|(reply, says)| error(reply, says)).collect();
    let parse_error = (PARSE_ERROR, Value::Null, true);
    let invalid = |id| (crate::INVALID_REQUEST, id, true);
    let want = [
        parse_error.clone(),
        parse_error.clone(),
        parse_error.clone(),
        parse_error,
    ];
    assert_eq!(errors[..4], want);
    assert_eq!(errors[4..], [invalid(json!(6)), invalid(Value::Null)]);
}

#[tokio::test]
async fn a_line_over_the_limit_in_many_reads_costs_one_error_and_the_next_line_is_read() {
    let mut input = vec![b'x'; 5000];
    input.extend(b"\n\xc3\x28\n{\"id\":1,\"method\":\"m\"}\r\n\n");
    let (given, out) = relay(Lines::new(100), 3).run(&input, None).await;
    assert_eq!(given, [call(1)]);
    let said = out.iter().zip(["limit of 100", "UTF-8"]);
    let said: Vec<_> = said.map(|(reply, says)| error(reply, says)).collect();
    assert_eq!(
        said,
        [
            (PARSE_ERROR, Value::Null, true),
            (PARSE_ERROR, Value::Null, true)
        ]
    );
    assert_eq!(out.len(), 2, "{out:?}");
}

#[tokio::test]
async fn the_library_and_the_refusals_never_interleave_inside_a_frame() {
    let test = relay(Lines::default(), 1 << 16);
    let writers: Vec<_> = (0..4)
        .map(|n| {
            let outbox = test.outbox.clone();
            tokio::spawn(async move {
                for i in 0..200 {
                    let message = json!({"from": n, "i": i, "pad": "y".repeat(i * 2)});
                    assert!(outbox.send(&message).await);
                }
            })
        })
        .collect();
    let (_, out) = test.run(&b"nonsense\n".repeat(200), None).await;
    for writer in writers {
        writer.await.unwrap();
    }
    assert_eq!(out.len(), 4 * 200 + 200);
    for n in 0..4 {
        let from_n = out.iter().filter(|m| m["from"] == n);
        let order: Vec<u64> = from_n.map(|m| m["i"].as_u64().unwrap()).collect();
        assert_eq!(
            order,
            (0..200).collect::<Vec<_>>(),
            "each sender's in order"
        );
    }
}

#[tokio::test]
async fn a_library_that_stops_taking_messages_stops_the_reading() {
    let (mut client, stdin) = tokio::io::duplex(1 << 16);
    let (stdout, editor) = tokio::io::duplex(1 << 16);
    let deliver = |call: Call| std::future::ready(call.method != "exit");
    let stdio = (Box::pin(stdin), Box::pin(stdout));
    let (outbox, relay) = start(Lines::default(), stdio.0, stdio.1, parse, deliver, "test");
    let input = b"{\"method\":\"exit\"}\nnonsense\n";
    client.write_all(input).await.unwrap();
    // The client keeps its end open: the relay ends by itself, with nothing said of `nonsense`.
    drop(outbox);
    relay.finish().await.unwrap();
    assert_eq!(client_reads::<Lines>(editor).await, Vec::<Value>::new());
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
    let (reading, read_all) = oneshot::channel::<()>();
    let deliver = move |_: Call| {
        let _reading = &reading;
        std::future::ready(true)
    };
    let stdin = Box::pin(Broken);
    let (outbox, relay) = start(
        Lines::default(),
        stdin,
        Box::pin(stdout),
        parse,
        deliver,
        "test",
    );
    assert!(read_all.await.is_err());
    drop(outbox);
    let error = relay.finish().await.expect_err("the read error");
    assert_eq!(error.to_string(), "the pipe broke");
}

/// Feeds `input` to a framing cut at `cuts` and takes the frames after each piece; the framing
/// never holds more than `bound` bytes beyond the piece just fed.
fn decode_in<F: Framing>(mut framing: F, input: &[u8], cuts: &[usize], bound: usize) -> Vec<Frame> {
    let (mut out, mut at) = (Vec::new(), 0);
    for &cut in cuts.iter().chain([&input.len()]) {
        let cut = cut.clamp(at, input.len());
        framing.feed(&input[at..cut]);
        let piece = cut - at;
        at = cut;
        out.extend(std::iter::from_fn(|| framing.next_frame()));
        let held = framing.buffered();
        assert!(held <= bound + piece, "holds {held} bytes");
    }
    out
}

/// The frames of `input` fed whole, which must be the frames of it fed cut at `cuts`: they do
/// not depend on the chunking. Checks the bound of [`decode_in`] too.
pub(super) fn frames_in_any_chunks<F: Framing>(
    new: impl Fn() -> F,
    input: &[u8],
    mut cuts: Vec<usize>,
    bound: usize,
) -> Vec<Frame> {
    cuts.sort_unstable();
    let whole = decode_in(new(), input, &[], bound);
    assert_eq!(whole, decode_in(new(), input, &cuts, bound));
    whole
}
