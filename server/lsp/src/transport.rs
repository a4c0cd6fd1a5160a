//! `tandem lsp`'s end of the shared transport ([`tandem_jsonrpc::transport`]): each frame is
//! parsed once, into the library's own request and response types, and served by the library's
//! service directly. The library's `Server` is not used: it takes bytes only, parses each
//! frame again, and ends the connection at the first malformed one.

use std::fmt::Display;

use futures_util::{SinkExt, StreamExt, future, stream};
use serde::Deserialize;
use tandem_jsonrpc::stdio;
use tandem_jsonrpc::transport::{self, ContentLength, Outbox};
use tokio::sync::mpsc;
use tower::Service;
use tower_lsp_server::ClientSocket;
use tower_lsp_server::jsonrpc::{Request, Response};

/// A message as the library reads it (its own `Message` is private): a response or a request.
#[derive(Deserialize)]
#[serde(untagged)]
enum Incoming {
    Response(Response),
    Request(Request),
}

fn parse(text: &str) -> serde_json::Result<Incoming> {
    serde_json::from_str(text)
}

/// Requests worked on at once, and queued before reading waits: the library's `Server`'s.
const CONCURRENCY: usize = 4;
const QUEUE: usize = 100;

/// Serves `service` on stdin/stdout until the client sends `exit` or closes stdin.
pub async fn serve<S>(service: S, socket: ClientSocket)
where
    S: Service<Request, Response = Option<Response>>,
    S::Error: Display,
{
    let (incoming, received) = mpsc::channel(QUEUE);
    let deliver = move |message| {
        let incoming = incoming.clone();
        async move { incoming.send(message).await.is_ok() }
    };
    let (outbox, relay) = transport::start(
        ContentLength::default(),
        stdio::input(),
        stdio::output(),
        parse,
        deliver,
        "lsp",
    );
    dispatch(service, socket, received, outbox).await;
    // A read error was logged by the relay; like the end of stdin, it ends the session.
    let _ = relay.finish().await;
}

/// What the library's `Server` does with parsed messages: requests to the service (up to
/// [`CONCURRENCY`] at once), its answers and its own requests to the client out, the client's
/// answers back to it; reading stops at `exit`.
async fn dispatch<S>(
    mut service: S,
    socket: ClientSocket,
    mut received: mpsc::Receiver<Incoming>,
    outbox: Outbox,
) where
    S: Service<Request, Response = Option<Response>>,
    S::Error: Display,
{
    let (to_client, mut from_client) = socket.split();
    let (to_client, stop_asking) = stream::abortable(to_client);
    let (tasks, queued) = mpsc::channel(QUEUE);
    let answer = stream::unfold(queued, |mut queued| async {
        queued.recv().await.map(|task| (task, queued))
    })
    .buffer_unordered(CONCURRENCY)
    .for_each(|answered: Result<Option<Response>, S::Error>| {
        let outbox = &outbox;
        async move {
            match answered {
                Ok(Some(response)) => _ = outbox.send(&response).await,
                Ok(None) => {}
                Err(e) => tracing::error!("lsp: {e}"),
            }
        }
    });
    let ask = to_client.for_each(|request| {
        let outbox = &outbox;
        async move { _ = outbox.send(&request).await }
    });
    let read = async move {
        while let Some(message) = received.recv().await {
            match message {
                Incoming::Request(request) => {
                    if let Err(e) = future::poll_fn(|cx| service.poll_ready(cx)).await {
                        tracing::error!("lsp: {e}");
                        break;
                    }
                    // The client may keep stdin open after `exit`: stop reading at once.
                    let exit = request.method() == "exit";
                    if tasks.send(service.call(request)).await.is_err() || exit {
                        break;
                    }
                }
                Incoming::Response(response) => {
                    if from_client.send(response).await.is_err() {
                        break;
                    }
                }
            }
        }
        // The running requests are still answered; the service asks the client nothing more.
        drop(tasks);
        stop_asking.abort();
    };
    futures_util::join!(answer, ask, read);
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use tandem_jsonrpc::transport::Framing;
    use tandem_jsonrpc::{INVALID_REQUEST, PARSE_ERROR};

    use super::*;

    /// The error reply to a body, or `None` when the library's types take it.
    fn refusal(body: &[u8]) -> Option<Value> {
        tandem_jsonrpc::refusal::parse(body, parse, ContentLength::BATCH_HINT)
            .err()
            .map(|r| r.reply())
    }

    #[test]
    fn the_library_takes_requests_notifications_and_responses() {
        for message in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
        ] {
            assert_eq!(refusal(message.as_bytes()), None, "{message}");
        }
    }

    #[test]
    fn what_it_would_not_take_is_refused_with_the_id_when_there_is_one() {
        // (Every kind of bad body is in tandem-jsonrpc's tests; these depend on the library.)
        let cases: [(&str, i64, Value, &str); 5] = [
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
                INVALID_REQUEST,
                Value::Null,
                "\"id\"",
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":3}"#,
                INVALID_REQUEST,
                7.into(),
                "\"method\"",
            ),
            (
                r#"{"jsonrpc":"1.0","id":"a","method":"x"}"#,
                INVALID_REQUEST,
                "a".into(),
                "jsonrpc",
            ),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#,
                INVALID_REQUEST,
                Value::Null,
                "own frame",
            ),
            ("", PARSE_ERROR, Value::Null, "not JSON"),
        ];
        for (body, code, id, mentions) in cases {
            let reply = refusal(body.as_bytes()).unwrap_or_else(|| panic!("{body} passed"));
            assert_eq!(reply["error"]["code"], code, "{body}: {reply}");
            assert_eq!(reply["id"], id, "{body}: {reply}");
            let text = reply["error"]["message"].as_str().unwrap();
            assert!(text.contains(mentions), "{body}: {text}");
        }
    }
}
