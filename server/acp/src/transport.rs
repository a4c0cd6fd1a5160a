//! `tandem acp`'s end of the shared transport ([`tandem_jsonrpc::transport`]): the SDK is given
//! a [`Channel`] of messages already parsed (into its own [`RawJsonRpcMessage`]), so each line is
//! parsed once, and its messages go out through the one writer. Its `Lines` transport is not
//! used: it parses each line again, and a line that is not UTF-8 ends the connection.

use agent_client_protocol::{Channel, RawJsonRpcMessage, TransportFrame};
use futures_util::StreamExt;
use tandem_jsonrpc::stdio;
use tandem_jsonrpc::transport::{self, Lines, Relay};

fn parse(text: &str) -> serde_json::Result<RawJsonRpcMessage> {
    serde_json::from_str(text)
}

/// Starts relaying stdin and stdout; returns the channel to connect the SDK to.
pub fn connect() -> (Channel, Relay) {
    let (sdk, ours) = Channel::duplex();
    let (mut from_sdk, to_sdk) = ours.into_parts();
    let deliver = move |message| {
        let sent = to_sdk.unbounded_send(TransportFrame::Single(message));
        std::future::ready(sent.is_ok())
    };
    let (outbox, relay) = transport::start(
        Lines::default(),
        stdio::input(),
        stdio::output(),
        parse,
        deliver,
        "acp",
    );
    // Ends when the SDK is done (drops its end); the relay's finish waits for what it queued.
    tokio::spawn(async move {
        while let Some(frame) = from_sdk.next().await {
            // Only a proxy relays malformed input; an agent has none to send.
            if let TransportFrame::Single(message) = frame
                && !outbox.send(&message).await
            {
                return;
            }
        }
    });
    (sdk, relay)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use tandem_jsonrpc::INVALID_REQUEST;
    use tandem_jsonrpc::transport::Framing;

    use super::*;

    /// The SDK's own type decides what passes; a refused request keeps its id. (What each kind
    /// of bad line is told is in tandem-jsonrpc's tests.)
    #[test]
    fn the_sdk_takes_messages_and_a_refused_request_keeps_its_id() {
        let cases = [
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, None),
            (
                r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#,
                None,
            ),
            (r#"{"jsonrpc":"2.0","id":"a","result":{}}"#, None),
            (r#"{"id":"a","method":"x"}"#, Some(json!("a"))),
            (r#"{"jsonrpc":"2.0","id":7,"method":3}"#, Some(json!(7))),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
                Some(Value::Null),
            ),
            // A response's id is ours: never answered with it.
            (r#"{"jsonrpc":"2.0","id":9}"#, Some(Value::Null)),
        ];
        for (line, refused_with) in cases {
            let parsed = tandem_jsonrpc::refusal::parse(line.as_bytes(), parse, Lines::BATCH_HINT);
            let refusal = parsed.err().map(|r| (r.code, r.id));
            assert_eq!(
                refusal,
                refused_with.map(|id| (INVALID_REQUEST, id)),
                "{line}"
            );
        }
    }
}
