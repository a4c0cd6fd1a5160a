//! Making a conversation smaller, oldest first: tool outputs elided to a stub the model can act
//! on (read again), then the oldest turns or steps replaced by a summary. The system prompt, the
//! current user message and the latest tool results are kept whole.

use tandem_model::{Message, ToolCall, ToolCallId};

/// Where the parts of the conversation are.
pub(crate) struct Layout {
    /// The current user message (the last `User`).
    pub current: usize,
    /// Where the latest step's results begin: after the last assistant message.
    pub latest: usize,
}

pub(crate) fn layout(conversation: &[Message]) -> Layout {
    let current = conversation
        .iter()
        .rposition(|m| matches!(m, Message::User { .. }))
        .unwrap_or(conversation.len().min(1));
    let latest = conversation
        .iter()
        .rposition(|m| matches!(m, Message::Assistant { .. }))
        .map_or(conversation.len(), |i| i + 1)
        .max(current + 1);
    Layout { current, latest }
}

/// The one-line stub that stands for an elided tool output.
pub(crate) fn stub(call: Option<&ToolCall>, chars: usize) -> String {
    let (name, target) = match call {
        Some(call) => {
            let args: serde_json::Value = serde_json::from_str(&call.arguments).unwrap_or_default();
            let target = ["path", "regex", "command"]
                .iter()
                .find_map(|k| args.get(k).and_then(|v| v.as_str()))
                .map(|t| format!(" {t}"))
                .unwrap_or_default();
            (call.name.as_str(), target)
        }
        None => ("a tool", String::new()),
    };
    format!(
        "[elided to save context: the output of {name}{target} ({chars} characters); call the \
         tool again if you need it]"
    )
}

/// Whether a tool message is already a stub.
pub(crate) fn is_stub(content: &str) -> bool {
    content.starts_with("[elided to save context:")
}

/// The indices of the tool outputs that may be elided, oldest first: every result before the
/// latest step that is longer than its stub would be.
pub(crate) fn elidable(conversation: &[Message]) -> Vec<usize> {
    let latest = layout(conversation).latest;
    conversation[..latest]
        .iter()
        .enumerate()
        .filter_map(|(i, m)| match m {
            Message::Tool { content, .. } if !is_stub(content) && content.len() > 200 => Some(i),
            _ => None,
        })
        .collect()
}

/// Replaces tool output `index` by its stub.
pub(crate) fn elide(conversation: &mut [Message], index: usize) {
    let call = match &conversation[index] {
        Message::Tool { tool_call_id, .. } => find_call(conversation, tool_call_id).cloned(),
        _ => return,
    };
    if let Message::Tool { content, .. } = &mut conversation[index] {
        *content = stub(call.as_ref(), content.chars().count());
    }
}

fn find_call<'a>(conversation: &'a [Message], id: &ToolCallId) -> Option<&'a ToolCall> {
    conversation.iter().find_map(|m| match m {
        Message::Assistant { tool_calls, .. } => tool_calls.iter().find(|c| c.id == *id),
        _ => None,
    })
}

/// The span to summarize: the turns before the current one (after the system prompt and any
/// earlier summary), else the steps of this turn before the latest one. `None` when there is
/// nothing but what must stay whole.
pub(crate) fn summarizable(conversation: &[Message]) -> Option<std::ops::Range<usize>> {
    let Layout { current, latest } = layout(conversation);
    let start = 1;
    if current > start + 1 || (current > start && !is_summary(&conversation[start])) {
        return Some(start..current);
    }
    // Steps of this turn: from the first assistant after the user message to the last one.
    let last_assistant = latest.checked_sub(1)?;
    (last_assistant > current + 1).then_some(current + 1..last_assistant)
}

pub(crate) const SUMMARY_HEAD: &str = "[Summary of the earlier conversation, made to save context]";
pub(crate) const STEPS_HEAD: &str =
    "[Summary of my earlier steps in this task, made to save context]";

fn is_summary(message: &Message) -> bool {
    matches!(message, Message::User { content, .. } if content.starts_with(SUMMARY_HEAD))
}

/// Puts `summary` in place of `range`: earlier turns become one user message; steps of the
/// current turn are folded into the content of the next assistant message, so roles still
/// alternate as every chat template wants.
pub(crate) fn replace_with_summary(
    conversation: &mut Vec<Message>,
    range: std::ops::Range<usize>,
    summary: &str,
) {
    let current = layout(conversation).current;
    if range.end <= current {
        let text = format!("{SUMMARY_HEAD}\n{summary}");
        conversation.splice(range, [Message::user(text)]);
        return;
    }
    let end = range.end;
    if let Some(Message::Assistant { content, .. }) = conversation.get_mut(end) {
        *content = if content.is_empty() {
            format!("{STEPS_HEAD}\n{summary}")
        } else {
            format!("{STEPS_HEAD}\n{summary}\n\n{content}")
        };
    }
    conversation.drain(range);
}

/// The span as plain text for the summarizer, each message cut to `per_message` characters.
pub(crate) fn render_for_summary(messages: &[Message], per_message: usize) -> String {
    let cut = |s: &str| -> String {
        if s.chars().count() <= per_message {
            s.to_string()
        } else {
            let head: String = s.chars().take(per_message).collect();
            format!("{head} [...]")
        }
    };
    let mut out = String::new();
    for m in messages {
        let line = match m {
            Message::System { content } => format!("SYSTEM: {}", cut(content)),
            Message::User { content, images } if !images.is_empty() => {
                format!("USER: {} [with {} image(s)]", cut(content), images.len())
            }
            Message::User { content, .. } => format!("USER: {}", cut(content)),
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                let calls: Vec<String> = tool_calls
                    .iter()
                    .map(|c| format!("{}({})", c.name, cut(&c.arguments)))
                    .collect();
                if calls.is_empty() {
                    format!("ASSISTANT: {}", cut(content))
                } else {
                    format!("ASSISTANT: {} [called {}]", cut(content), calls.join(", "))
                }
            }
            Message::Tool { content, .. } => format!("TOOL RESULT: {}", cut(content)),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// A summary made without the model (asking it failed, or would evict the conversation from
/// the server's prompt cache): an earlier summary in the span word for word, then the requests,
/// the calls made and the files they named. Summaries so nest without losing what was kept.
pub(crate) fn mechanical_summary(messages: &[Message]) -> String {
    let mut earlier = Vec::new();
    let mut asks = Vec::new();
    let mut calls = Vec::new();
    for m in messages {
        match m {
            // Earlier summaries are kept as they were, word for word, at the start.
            Message::User { content, .. } if is_summary(m) => {
                earlier.push(content[SUMMARY_HEAD.len()..].trim().to_string());
            }
            Message::User { content, .. } => {
                asks.push(content.lines().next().unwrap_or("").to_string())
            }
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                if let Some(steps) = content.strip_prefix(STEPS_HEAD) {
                    earlier.push(steps.trim().to_string());
                }
                for c in tool_calls {
                    let args: serde_json::Value =
                        serde_json::from_str(&c.arguments).unwrap_or_default();
                    let target = args.get("path").and_then(|v| v.as_str()).unwrap_or("");
                    calls.push(format!("{} {target}", c.name).trim().to_string());
                }
            }
            _ => {}
        }
    }
    let mut out = String::new();
    for text in earlier.iter().filter(|t| !t.is_empty()) {
        out.push_str(text);
        out.push('\n');
    }
    if !asks.is_empty() {
        out.push_str(&format!("The user asked: {}.\n", asks.join("; ")));
    }
    if !calls.is_empty() {
        out.push_str(&format!("Tools used: {}.\n", calls.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str) -> Message {
        Message::Assistant {
            content: String::new(),
            reasoning: String::new(),
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: "read_file".into(),
                arguments: format!("{{\"path\":\"{id}.txt\"}}"),
            }],
        }
    }

    fn result(id: &str) -> Message {
        Message::Tool {
            tool_call_id: id.into(),
            content: "x".repeat(1000),
        }
    }

    fn user(s: &str) -> Message {
        Message::user(s)
    }

    #[test]
    fn old_outputs_become_stubs_the_latest_stay() {
        let mut c = vec![
            Message::System {
                content: "S".into(),
            },
            user("task"),
            call("a"),
            result("a"),
            call("b"),
            result("b"),
        ];
        assert_eq!(elidable(&c), vec![3]);
        elide(&mut c, 3);
        let Message::Tool { content, .. } = &c[3] else {
            panic!()
        };
        assert!(
            content.contains("read_file a.txt") && content.contains("1000 characters"),
            "{content}"
        );
        assert!(elidable(&c).is_empty());
    }

    #[test]
    fn a_mechanical_summary_keeps_the_earlier_one_word_for_word() {
        let mut c = vec![
            Message::System {
                content: "S".into(),
            },
            user("first task"),
            call("a"),
            result("a"),
            user("second task"),
            call("b"),
            result("b"),
            user("third"),
        ];
        let first = mechanical_summary(&c[1..4]);
        replace_with_summary(&mut c, 1..4, &first);
        assert_eq!(summarizable(&c), Some(1..5));
        let second = mechanical_summary(&c[1..5]);
        assert!(second.starts_with(&first), "{second}");
        assert!(second.contains("second task") && second.contains("read_file b.txt"));
        assert!(!second.contains(SUMMARY_HEAD), "{second}");
    }

    #[test]
    fn summaries_keep_roles_alternating() {
        let mut c = vec![
            Message::System {
                content: "S".into(),
            },
            user("first"),
            call("a"),
            result("a"),
            user("second"),
            call("b"),
            result("b"),
            call("c"),
            result("c"),
        ];
        assert_eq!(summarizable(&c), Some(1..4));
        replace_with_summary(&mut c, 1..4, "did a");
        assert_eq!(c.len(), 7);
        assert!(matches!(&c[1], Message::User { content, .. } if content.contains("did a")));
        // Now the steps of the current turn: b's call and result fold into c's call.
        assert_eq!(summarizable(&c), Some(3..5));
        replace_with_summary(&mut c, 3..5, "read b");
        assert_eq!(c.len(), 5);
        assert!(
            matches!(&c[3], Message::Assistant { content, tool_calls, .. } if content.contains("read b") && tool_calls[0].id == "c")
        );
        assert_eq!(summarizable(&c), None);
    }
}
