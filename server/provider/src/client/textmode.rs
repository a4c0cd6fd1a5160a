//! Tool calls written as text (a layer around the backends): in text mode the tools are described
//! in the system prompt and calls and results go as text; in auto and text mode the markup of a
//! call is kept from the user while the answer streams, and the calls it meant are found in the
//! answer afterwards.

use tandem_model::{Completion, Delta, FinishReason, Message};

use crate::textcalls::{MarkupFilter, extract_meant, render_history};
use crate::{CompletionRequest, ServerKind};

/// `request` as it goes out: in text mode the tools are described in the system prompt and the
/// calls and results are text, in messages `rendered` holds.
pub(super) fn as_sent<'a>(
    request: CompletionRequest<'a>,
    text_mode: bool,
    rendered: &'a mut Vec<Message>,
) -> CompletionRequest<'a> {
    if !text_mode {
        return request;
    }
    *rendered = render_history(request.messages, request.tools);
    CompletionRequest {
        messages: rendered,
        tools: &[],
        ..request
    }
}

/// One answer's text calls: its markup held back while it streams (none held in native mode,
/// where written markup is never a call and is shown as it is).
pub(super) struct TextCalls {
    filter: Option<MarkupFilter>,
}

impl TextCalls {
    pub fn new(native: bool) -> Self {
        Self {
            filter: (!native).then(MarkupFilter::new),
        }
    }

    /// Relays a piece of the answer, its call markup held back.
    pub fn relay(&mut self, delta: Delta, on_delta: &mut (dyn FnMut(Delta) + Send)) {
        match (delta, self.filter.as_mut()) {
            (Delta::Text(text), Some(filter)) => {
                let shown = filter.push(&text);
                if !shown.is_empty() {
                    on_delta(Delta::Text(shown));
                }
            }
            (other, _) => on_delta(other),
        }
    }

    /// The whole answer: the calls its text meant become its tool calls (their markup out of its
    /// text), or, when it meant none, what was held back is shown after all.
    pub fn finish(
        self,
        completion: &mut Completion,
        request: CompletionRequest<'_>,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) {
        let native = self.filter.is_none();
        let mut found = Vec::new();
        if completion.tool_calls.is_empty() && !native {
            let (visible, calls) =
                extract_meant(&completion.text, request.tools, &read(request.messages));
            if !calls.is_empty() {
                completion.text = visible;
                found = calls;
            }
        }
        if found.is_empty() {
            let held = self.filter.map(MarkupFilter::finish).unwrap_or_default();
            if !held.is_empty() {
                on_delta(Delta::Text(held));
            }
        } else {
            completion.tool_calls = found;
            if matches!(completion.finish_reason, None | Some(FinishReason::Stop)) {
                completion.finish_reason = Some(FinishReason::ToolCalls);
            }
        }
    }
}

/// What the model was given to read in `messages`, where markup it copies is an echo, not a
/// call: tool results, the user's messages (attached files, summaries), and every system
/// message after the first, which hold text from the workspace (the rules files, `AGENTS.md`
/// and the like, which the model did not write and the user may not have read). The first is
/// Tandem's own prompt: a call it shows as an example may be made as written.
fn read(messages: &[Message]) -> Vec<&str> {
    messages
        .iter()
        .enumerate()
        .filter_map(|(i, m)| match m {
            Message::Tool { content, .. } | Message::User { content, .. } => Some(content.as_str()),
            Message::System { content } if i > 0 => Some(content.as_str()),
            _ => None,
        })
        .collect()
}

/// What the user hears when the server refused the tool definitions, with the fix for it.
pub(super) fn refused_tools_notice(kind: ServerKind, said: &str) -> String {
    let fix = match kind {
        ServerKind::LlamaCpp => {
            "for native tool calls start llama-server with --jinja (and a chat template that \
             takes tools, --chat-template-file)"
        }
        ServerKind::Ollama => "for native tool calls use a model whose template takes tools",
        _ => {
            "for native tool calls start the server with a chat template that takes tools \
             (llama.cpp: --jinja)"
        }
    };
    format!(
        "the model server refused the tool definitions ({}), so tools are described in the \
         prompt as text from now on, for this server and model in later sessions too; {fix}, \
         or set the tool mode to text (--tool-mode text, provider.toolMode) to skip the \
         native attempt",
        said.trim()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_and_results_are_read_the_fixed_prompt_is_not() {
        let messages = [
            Message::System {
                content: "prompt".into(),
            },
            Message::System {
                content: "rules".into(),
            },
            Message::user("task"),
            Message::Assistant {
                content: "mine".into(),
                reasoning: String::new(),
                tool_calls: Vec::new(),
            },
            Message::Tool {
                tool_call_id: "1".into(),
                content: "result".into(),
            },
        ];
        assert_eq!(read(&messages), ["rules", "task", "result"]);
    }
}
