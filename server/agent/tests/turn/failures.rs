//! The model server misbehaving: retried errors, a broken stream, a refused key, an answer cut
//! at the output limit.

use crate::support::*;
use mock_model::{Reply, Scenario};
use serde_json::json;
use tandem_agent::events::{StopReason, TurnErrorKind};

#[tokio::test]
async fn rate_limits_and_outages_are_retried_with_the_same_request() {
    let h = Harness::new(Scenario::new([
        Reply::status(429)
            .header("Retry-After", "0")
            .with_body(json!({"error": {"message": "Rate limit reached"}})),
        Reply::status(503),
        Reply::text("Back."),
    ]));
    let turn = h.turn("Hello?", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(turn.text(), "Back.");
    let requests = h.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[1].body, requests[0].body);
    assert_eq!(requests[2].body, requests[0].body);
}

#[tokio::test]
async fn a_stream_cut_mid_answer_ends_the_turn_and_is_not_retried() {
    let h = Harness::new(Scenario::new([
        Reply::text("partial answer that gets cut")
            .chunk_size(8)
            .cut_after(2),
        Reply::text("Recovered."),
    ]));
    let turn = h.turn("Tell me", Vec::new()).await;
    let (reason, error, kind) = turn.ended();
    assert_eq!(reason, StopReason::Error, "{turn}");
    assert_eq!(kind, Some(TurnErrorKind::Connection), "{error:?}");
    assert_eq!(turn.text(), "partial ");
    let next = h.turn("Again", Vec::new()).await;
    assert_eq!(next.text(), "Recovered.");
    assert_eq!(h.requests().len(), 2, "text was shown: no retry");
}

#[tokio::test]
async fn a_refused_key_is_an_auth_error() {
    let h =
        Harness::new(Scenario::new([Reply::status(401).with_body(
            json!({"error": {"message": "Incorrect API key provided"}}),
        )]));
    let turn = h.turn("Hello?", Vec::new()).await;
    let (reason, error, kind) = turn.ended();
    assert_eq!(reason, StopReason::Error, "{turn}");
    assert_eq!(kind, Some(TurnErrorKind::Auth), "{error:?}");
    assert_eq!(h.requests().len(), 1, "a refused key is not retried");
}

#[tokio::test]
async fn an_answer_cut_at_the_output_limit_is_an_error_that_says_so() {
    let h = Harness::new(Scenario::new([
        Reply::text("Once upon a").finish_reason("length")
    ]));
    let turn = h.turn("Tell me a story", Vec::new()).await;
    let (reason, error, kind) = turn.ended();
    assert_eq!(reason, StopReason::Error, "{turn}");
    assert_eq!(kind, Some(TurnErrorKind::AnswerCut));
    assert!(error.unwrap().contains("limit"));
    assert_eq!(turn.text(), "Once upon a");
}
