//! What llama.cpp's server (and llama-cpp-python's) offers beyond the OpenAI-compatible API,
//! asked over the transport: its slots, each with a prompt cache of its own (a conversation is
//! pinned to one, requests beside it go to another), its tokenizer, and its chat template
//! (`/apply-template`), with which a whole request is counted as the server will read it.
//! Its window and modalities come from `/props`.

use serde_json::{Value, json};

use crate::Purpose;
use crate::transport::Transport;

/// llama.cpp `GET /props`: the loaded `n_ctx`.
pub(crate) fn window_of_props(body: &Value) -> Option<u64> {
    ["/default_generation_settings/n_ctx", "/n_ctx"]
        .iter()
        .find_map(|p| body.pointer(p).and_then(Value::as_u64))
        .filter(|&n| n > 0)
}

/// llama.cpp `GET /props`: `modalities.vision` (servers since mid-2025 say; older ones don't).
pub(crate) fn vision_of_props(props: &Value) -> Option<bool> {
    props.pointer("/modalities/vision")?.as_bool()
}

/// `/props` `total_slots`: the slots the server runs, each with a prompt cache of its own.
pub(crate) fn slots_of(props: &Value) -> Option<u64> {
    props
        .get("total_slots")
        .and_then(Value::as_u64)
        .filter(|&n| n > 0)
}

/// Whether `/apply-template` answers (older builds have none: a request is then counted by its
/// parts).
pub(crate) async fn has_apply_template(transport: &Transport) -> bool {
    transport
        .post_json(
            &format!("{}/apply-template", transport.root()),
            &json!({"messages": [{"role": "user", "content": "hi"}]}),
        )
        .await
        .is_some_and(|a| a.get("prompt").is_some_and(Value::is_string))
}

/// Tokens of `text` by llama.cpp's `POST /tokenize {"content"}`.
pub(crate) async fn count_tokens(transport: &Transport, text: &str) -> Option<u64> {
    let answer = transport
        .post_json(
            &format!("{}/tokenize", transport.root()),
            &json!({"content": text}),
        )
        .await?;
    answer.get("tokens")?.as_array().map(|t| t.len() as u64)
}

/// Tokens of `text` by llama-cpp-python's `POST /extras/tokenize/count {"input"}`, which is also
/// how that server is told from others (it says nothing else of itself).
pub(crate) async fn python_count_tokens(transport: &Transport, text: &str) -> Option<u64> {
    let answer = transport
        .post_json(
            &format!("{}/extras/tokenize/count", transport.root()),
            &json!({"input": text}),
        )
        .await?;
    answer.get("count")?.as_u64()
}

/// A whole request body (OpenAI's shape) as the server reads it: rendered with its own chat
/// template (`/apply-template`), then tokenized as the completion does (the model's start token,
/// the template's markers parsed).
pub(crate) async fn count_request(transport: &Transport, body: &Value) -> Option<u64> {
    let root = transport.root();
    let prompt = transport
        .post_json(&format!("{root}/apply-template"), body)
        .await?;
    let prompt = prompt.get("prompt")?.as_str()?;
    let answer = transport
        .post_json(
            &format!("{root}/tokenize"),
            &json!({"content": prompt, "add_special": true, "parse_special": true}),
        )
        .await?;
    answer.get("tokens")?.as_array().map(|t| t.len() as u64)
}

/// The prompt tokens each slot holds (`/slots` `n_prompt_tokens`; none for a slot never used),
/// by slot id. `None` where `/slots` is off (`--no-slots`).
pub(crate) async fn held_by_slot(transport: &Transport) -> Option<Vec<(u64, u64)>> {
    let slots = transport
        .get_json(&format!("{}/slots", transport.root()))
        .await?;
    let held = slots
        .as_array()?
        .iter()
        .filter_map(|s| {
            let id = s.get("id")?.as_u64()?;
            Some((
                id,
                s.get("n_prompt_tokens")
                    .and_then(Value::as_u64)
                    .unwrap_or(0),
            ))
        })
        .collect();
    Some(held)
}

/// Whether a conversation's slot (any but `aside`'s) held fewer tokens `after` a request beside
/// the conversations than `before` it: the slots share one cache, and the request evicted it.
pub(crate) fn evicted(before: &[(u64, u64)], after: &[(u64, u64)], aside: u64) -> bool {
    before
        .iter()
        .any(|&(id, held)| id != aside && after.iter().any(|&(i, now)| i == id && now < held))
}

/// Conversations pinned to llama.cpp slots. With `n` slots the last is kept for requests beside
/// a conversation (summaries), and conversations take the others, the least recently used first
/// when there are more conversations than slots.
#[derive(Debug, Default)]
pub(crate) struct SlotTable {
    /// (conversation key, slot), most recently used last.
    pinned: Vec<(u64, u64)>,
}

impl SlotTable {
    /// The slot for a request of `purpose` on a server with `slots` slots.
    pub(crate) fn slot(&mut self, purpose: Purpose, slots: u64) -> u64 {
        let conversation_slots = if slots >= 2 { slots - 1 } else { 1 };
        let key = match purpose {
            Purpose::Aside => return slots.saturating_sub(1),
            Purpose::Conversation(key) => key,
        };
        let slot = match self.pinned.iter().position(|(k, _)| *k == key) {
            Some(i) => self.pinned.remove(i).1,
            None => {
                let free =
                    (0..conversation_slots).find(|s| self.pinned.iter().all(|(_, p)| p != s));
                match free {
                    Some(s) => s,
                    // Every slot has a conversation: the least recently used one gives way.
                    None => self.pinned.remove(0).1,
                }
            }
        };
        self.pinned.push((key, slot));
        slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversations_keep_their_slots_and_asides_get_the_last() {
        let mut table = SlotTable::default();
        let (a, b, c) = (
            Purpose::Conversation(10),
            Purpose::Conversation(20),
            Purpose::Conversation(30),
        );
        // Four slots: three for conversations, the last for summaries.
        assert_eq!(table.slot(a, 4), 0);
        assert_eq!(table.slot(b, 4), 1);
        assert_eq!(table.slot(Purpose::Aside, 4), 3);
        assert_eq!(table.slot(a, 4), 0);
        assert_eq!(table.slot(c, 4), 2);
        // A fourth conversation takes the slot used least recently (b's).
        assert_eq!(table.slot(Purpose::Conversation(40), 4), 1);
        assert_eq!(table.slot(a, 4), 0);
        // One slot: everything shares it.
        let mut one = SlotTable::default();
        assert_eq!(one.slot(a, 1), 0);
        assert_eq!(one.slot(b, 1), 0);
        assert_eq!(one.slot(Purpose::Aside, 1), 0);
    }

    #[test]
    fn props_say_the_window() {
        assert_eq!(
            window_of_props(
                &json!({"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1})
            ),
            Some(4096)
        );
    }

    #[test]
    fn a_conversation_slot_that_shrank_was_evicted() {
        let before = [(0, 900), (1, 0), (3, 0)];
        assert!(evicted(&before, &[(0, 12), (1, 0), (3, 40)], 3));
        assert!(!evicted(&before, &[(0, 950), (1, 0), (3, 40)], 3));
    }
}
