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
    use serde_json::{Value, json};
    use tandem_jsonrpc::transport::Framing;
    use tandem_jsonrpc::{INVALID_REQUEST, PARSE_ERROR};

    use super::*;

    /// The code and id a body is refused with; `None` when the library's types take it.
    fn refused(body: &str) -> Option<(i64, Value)> {
        let parsed =
            tandem_jsonrpc::refusal::parse(body.as_bytes(), parse, ContentLength::BATCH_HINT);
        parsed.err().map(|r| (r.code, r.id))
    }

    /// (What each kind of bad body is told is in tandem-jsonrpc's tests; this is the library's
    /// part: what its types take.)
    #[test]
    fn the_library_takes_messages_and_a_refused_request_keeps_its_id() {
        let requests =
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":null,"method":"x"}"#;
        for message in requests.split_inclusive('}').chain([
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}"#,
        ]) {
            assert_eq!(refused(message), None, "{message}");
        }
        let wrong_method = r#"{"jsonrpc":"2.0","id":7,"method":3}"#;
        assert_eq!(refused(wrong_method), Some((INVALID_REQUEST, json!(7))));
        let old = r#"{"jsonrpc":"1.0","id":"a","method":"x"}"#;
        assert_eq!(refused(old), Some((INVALID_REQUEST, json!("a"))));
        let float_id = r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#;
        assert_eq!(refused(float_id), Some((INVALID_REQUEST, Value::Null)));
        assert_eq!(refused(""), Some((PARSE_ERROR, Value::Null)));
    }
}
