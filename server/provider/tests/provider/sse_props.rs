//! The SSE decoder on arbitrary input: it never panics, and the events it decodes do not depend
//! on how the body was cut into chunks (a network may cut it anywhere).

use proptest::prelude::*;
use tandem_provider::sse::{SseDecoder, SseEvent};

/// Decodes `body` fed in the pieces between `cuts` into (event, data) pairs.
fn decode(body: &[u8], cuts: &[usize]) -> Vec<(String, String)> {
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    let mut collect = |e: SseEvent<'_>| -> Result<(), ()> {
        events.push((e.event.to_owned(), e.data.to_owned()));
        Ok(())
    };
    let mut at = 0;
    for &cut in cuts.iter().chain([&body.len()]) {
        let cut = cut.clamp(at, body.len());
        decoder.feed(&body[at..cut], &mut collect).unwrap();
        at = cut;
    }
    decoder.finish(&mut collect).unwrap();
    events
}

/// Bodies made of the pieces that matter (field names, colons, every line end, a byte order
/// mark, multi-byte characters) mixed with arbitrary bytes.
fn body() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data:".to_vec()),
        Just(b"data: ".to_vec()),
        Just(b"event: ".to_vec()),
        Just(b": comment".to_vec()),
        Just(b"id: 3".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just("😊’".as_bytes().to_vec()),
        "[a-z{}\":]{0,8}".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..12),
    ];
    prop::collection::vec(piece, 0..60).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_chunking_decodes_the_same_events(
        body in prop_oneof![body(), prop::collection::vec(any::<u8>(), 0..600)],
        mut cuts in prop::collection::vec(0usize..600, 0..30),
    ) {
        cuts.sort_unstable();
        let whole = decode(&body, &[]);
        let chunked = decode(&body, &cuts);
        prop_assert_eq!(&whole, &chunked);
        let bytewise: Vec<usize> = (0..body.len()).collect();
        prop_assert_eq!(&whole, &decode(&body, &bytewise));
    }

    /// Events written in the format come back as written, however the body is cut.
    #[test]
    fn written_events_come_back(
        events in prop::collection::vec(("[a-z]{1,8}", prop::collection::vec("[^\r\n]{0,20}", 1..4)), 0..6),
        mut cuts in prop::collection::vec(0usize..800, 0..30),
    ) {
        let mut body = String::new();
        for (name, lines) in &events {
            body.push_str(&format!("event: {name}\r\n"));
            for line in lines {
                body.push_str(&format!("data: {line}\n"));
            }
            body.push('\n');
        }
        cuts.sort_unstable();
        let expected: Vec<(String, String)> = events
            .iter()
            .map(|(name, lines)| (name.clone(), lines.join("\n")))
            .collect();
        prop_assert_eq!(decode(body.as_bytes(), &cuts), expected);
    }
}
