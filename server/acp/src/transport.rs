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
    use serde_json::Value;
    use tandem_jsonrpc::INVALID_REQUEST;
    use tandem_jsonrpc::transport::Framing;

    use super::*;

    /// The error reply to a line, or `None` when the SDK's type takes it.
    fn refusal(line: &[u8]) -> Option<Value> {
        tandem_jsonrpc::refusal::parse(line, parse, Lines::BATCH_HINT)
            .err()
            .map(|r| r.reply())
    }

    #[test]
    fn the_sdk_takes_requests_notifications_and_responses() {
        for message in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":{}}"#,
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
                r#"{"id":"a","method":"x"}"#,
                INVALID_REQUEST,
                "a".into(),
                "jsonrpc",
            ),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#,
                INVALID_REQUEST,
                Value::Null,
                "own line",
            ),
            (
                r#"{"jsonrpc":"2.0","id":9}"#,
                INVALID_REQUEST,
                Value::Null,
                "neither",
            ),
        ];
        for (line, code, id, mentions) in cases {
            let reply = refusal(line.as_bytes()).unwrap_or_else(|| panic!("{line} passed"));
            assert_eq!(reply["error"]["code"], code, "{line}: {reply}");
            assert_eq!(reply["id"], id, "{line}: {reply}");
            let text = reply["error"]["message"].as_str().unwrap();
            assert!(text.contains(mentions), "{line}: {text}");
        }
    }
}
