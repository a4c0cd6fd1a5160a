//! The context window: compaction in a long turn, a message that cannot fit, a refusal for size
//! refit once and never sent again unchanged.

use crate::support::*;
use mock_model::{ModelEntry, Reply, Scenario};
use serde_json::json;
use tandem_agent::events::{Event, StopReason, TurnErrorKind};

#[tokio::test]
async fn a_long_turn_in_a_4k_window_compacts_and_goes_on() {
    let mut replies = Vec::new();
    let names = ["a", "b", "c", "d", "e", "f"];
    for name in names {
        replies.push(Reply::tool(
            "read_file",
            json!({"path": format!("{name}.txt")}),
        ));
    }
    replies.push(Reply::text("All read."));
    let h = Harness::with(
        Scenario::new(replies),
        Setup {
            window: Some(4096),
            ..Setup::default()
        },
    );
    for name in names {
        h.write(
            &format!("{name}.txt"),
            &format!("{name} line with some words\n").repeat(150),
        );
    }
    let turn = h.turn("Read the six files.", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let compaction = turn.events.iter().find_map(|e| match e {
        Event::Compaction {
            elided,
            tokens_before,
            tokens_after,
            context_window,
            ..
        } => Some((*elided, *tokens_before, *tokens_after, *context_window)),
        _ => None,
    });
    let (elided, before, after, window) = compaction.expect("a compaction");
    assert!(elided > 0);
    assert!(after < before, "{before} -> {after}");
    assert_eq!(window, 4096);
    let requests = h.requests();
    assert_eq!(requests.len(), 7);
    for request in &requests {
        // Characters over 3 per token (the start ratio): every request within the window.
        let chars: usize = request
            .message_texts()
            .iter()
            .map(|t| t.chars().count())
            .sum();
        let tools = request.body["tools"].to_string().len();
        assert!((chars + tools) / 3 < 4096, "{} characters", chars + tools);
    }
    let last = requests.last().unwrap();
    assert!(
        last.message_texts()
            .iter()
            .any(|t| t.contains("[elided to save context: the output of read_file a.txt"))
    );
    // The full outputs stay in the transcript on disk.
    let transcript = h.transcripts();
    assert!(transcript.contains("\"type\":\"compaction\""));
    assert!(transcript.matches("a line with some words").count() >= 150);
}

#[tokio::test]
async fn a_message_that_cannot_fit_the_window_is_never_sent() {
    let h = Harness::with(
        Scenario::new([]),
        Setup {
            window: Some(2048),
            ..Setup::default()
        },
    );
    let turn = h.turn(&"apple ".repeat(4000), Vec::new()).await;
    let (reason, error, kind) = turn.ended();
    assert_eq!(reason, StopReason::Error, "{turn}");
    assert_eq!(kind, Some(TurnErrorKind::ContextOverflow));
    let error = error.unwrap();
    assert!(error.contains("2,048 tokens (your setting)"), "{error}");
    assert!(error.contains("your message is about"), "{error}");
    assert_eq!(h.mock.chat_requests().len(), 0);
}

/// llama-server's overflow: 400 `exceed_context_size_error` with its own count.
fn overflow(n_prompt_tokens: u64, n_ctx: u64) -> Reply {
    Reply::status(400).with_body(json!({"error": {"code": 400,
        "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error", "n_prompt_tokens": n_prompt_tokens, "n_ctx": n_ctx}}))
}

/// llama-server, with a loaded window of `n_ctx`.
fn llama_cpp(replies: Vec<Reply>, n_ctx: u64) -> Scenario {
    let mut scenario = Scenario::new(replies).with_models([ModelEntry {
        id: "mock-coder".into(),
        context_length: None,
        extra: None,
    }]);
    scenario.routes.insert(
        "GET /props".into(),
        json!({"default_generation_settings": {"n_ctx": n_ctx}, "total_slots": 1}),
    );
    scenario
}

/// Three reads that fit by the estimate, then `refusal` from a llama-server with a 2048 window,
/// then "Done.": the turn must end well, with the refused request refit smaller and sent once
/// more.
async fn three_reads_refused_then_refit(refusal: Reply) -> Turn {
    let h = Harness::new(llama_cpp(
        vec![
            Reply::tool("read_file", json!({"path": "a.txt"})),
            Reply::tool("read_file", json!({"path": "b.txt"})),
            Reply::tool("read_file", json!({"path": "c.txt"})),
            refusal,
            // The refit compacts the earlier steps (with one slot, without asking the model:
            // a summary request would evict the conversation's prompt cache), then asks again.
            Reply::text("Done."),
        ],
        2048,
    ));
    for f in ["a.txt", "b.txt", "c.txt"] {
        h.write(f, &"x = 1 # a line of code\n".repeat(60));
    }
    let turn = h.turn("Read a, b and c.", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let requests = h.requests();
    assert_eq!(requests.len(), 5, "refit and asked again once");
    let size = |i: usize| requests[i].body["messages"].to_string().len();
    assert!(
        size(4) < size(3),
        "refit: {} then {} bytes",
        size(3),
        size(4)
    );
    turn
}

#[tokio::test]
async fn a_refusal_for_size_is_refit_to_the_servers_count_and_retried_once() {
    // Three reads fit by the estimate; the server counts far more and refuses.
    let turn = three_reads_refused_then_refit(overflow(1900, 2048)).await;
    assert!(turn.count(|e| matches!(e, Event::Compaction { .. })) > 0);
}

#[tokio::test]
async fn a_request_refused_for_size_that_cannot_shrink_is_not_sent_again() {
    let h = Harness::new(llama_cpp(vec![overflow(2300, 2048)], 2048));
    let turn = h.turn(&"Summarize this. ".repeat(100), Vec::new()).await;
    let (reason, error, kind) = turn.ended();
    assert_eq!(reason, StopReason::Error, "{turn}");
    assert_eq!(kind, Some(TurnErrorKind::ContextOverflow));
    assert!(error.unwrap().contains("2,048"));
    assert_eq!(h.requests().len(), 1);
}

/// A server that takes the request and refuses it inside the stream, before any text (as
/// OpenRouter passes on an upstream's refusal): the provider calls it an overflow, so the turn
/// refits and asks again, as for a refusal by status; the label and the refit are one decision.
#[tokio::test]
async fn a_refusal_for_size_inside_the_stream_is_refit_and_retried_like_any_other() {
    let body = tempfile::Builder::new().suffix(".sse").tempfile().unwrap();
    std::fs::write(
        body.path(),
        "data: {\"error\":{\"message\":\"This endpoint's maximum context length is 2048 tokens. \
         However, you requested 1900 tokens (1890 in the messages, 10 in the completion).\",\
         \"code\":400}}\n\ndata: [DONE]\n\n",
    )
    .unwrap();
    three_reads_refused_then_refit(Reply::sse(body.path())).await;
}

/// Words about the window in an error the provider does not call an overflow (a refusal of a
/// setting that names the context length) are not an overflow: no refit ran, so the turn is not
/// labelled one.
#[tokio::test]
async fn an_error_that_only_names_the_context_length_is_not_labelled_an_overflow() {
    let h = Harness::new(Scenario::new([Reply::status(400).with_body(
        json!({"error": {"message": "invalid n_ctx: the context length must be a multiple of 256"}}),
    )]));
    let turn = h.turn("Hello", Vec::new()).await;
    let (reason, _, kind) = turn.ended();
    assert_eq!(reason, StopReason::Error, "{turn}");
    assert_eq!(kind, Some(TurnErrorKind::Other), "{turn}");
    assert_eq!(h.requests().len(), 1);
}
