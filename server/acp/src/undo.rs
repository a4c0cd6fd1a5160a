//! `/undo` over ACP: a built-in command, offered beside the custom ones, that puts back every
//! file the session's last turn changed (by its edits and by its commands' writes) through the
//! agent core's undo, as `tandem/undo` and the chat's `/undo` do. It runs no turn: the outcome
//! is the agent's message text, then the prompt ends.
//!
//! A file the user changed since the turn is never overwritten unasked: the question is a
//! `session/request_permission` on a tool call of its own, showing what restoring would lose;
//! anything but "restore" (a cancelled question too) keeps the user's changes.

use std::sync::atomic::{AtomicU64, Ordering};

use agent_client_protocol::v1::schema::{
    AvailableCommand, ContentBlock, ContentChunk, PermissionOption, PermissionOptionKind,
    PromptResponse, RequestPermissionOutcome, RequestPermissionRequest, SessionUpdate, StopReason,
    ToolCall, ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};

use super::convert::fenced;
use super::frontend::{Outbox, SessionRef};
use tandem_agent::commands::invocation;
use tandem_agent::{Agent, UndoConflict, UndoOutcome};

/// The command's name; a custom command of this name is hidden by it.
pub const NAME: &str = "undo";
/// The permission options' ids.
pub const RESTORE: &str = "restore";
pub const KEEP: &str = "keep";

/// At most this many paths are named in the message; the rest are counted.
const NAMED: usize = 20;

/// How `available_commands_update` lists it.
pub fn command() -> AvailableCommand {
    AvailableCommand::new(
        NAME,
        "Put back the files the last turn changed, by edits and by commands (built in; asks \
         before overwriting a file you changed since)",
    )
}

/// What follows `/undo` when the prompt's text is that command.
pub fn invoked(text: &str) -> Option<&str> {
    match invocation(text) {
        Some((NAME, arguments)) => Some(arguments),
        _ => None,
    }
}

/// Runs `/undo` for the session whose prompt the outbox holds, then answers that prompt.
pub async fn run(agent: Agent, outbox: Outbox, session: SessionRef, arguments: String) {
    let id = session.id.clone();
    let answer = undo(&agent, &outbox, session, &arguments).await;
    let answer = answer.map(|text| {
        let chunk = ContentChunk::new(ContentBlock::from(text));
        outbox.notify(&id, SessionUpdate::AgentMessageChunk(chunk));
        PromptResponse::new(StopReason::EndTurn)
    });
    outbox.finish_prompt(&id, answer);
}

/// The message that tells the user what was done.
async fn undo(
    agent: &Agent,
    outbox: &Outbox,
    session: SessionRef,
    arguments: &str,
) -> Result<String, agent_client_protocol::Error> {
    if !arguments.is_empty() {
        return Ok(format!(
            "Nothing restored: /undo takes no arguments (it puts back what the last turn \
             changed), and was given `{arguments}`."
        ));
    }
    let id = session.id.clone();
    // Files the client holds are judged and restored through it, as edits came.
    let frontend = outbox.frontend(session, agent.clone());
    let first = agent
        .undo(&id, None, false, frontend.as_ref())
        .await
        .map_err(super::agent_error)?;
    if !first.needs_confirmation {
        return Ok(restored_message(&first));
    }
    if !ask(outbox, &id, &first.conflicts).await {
        let paths: Vec<&str> = first.conflicts.iter().map(|c| c.path.as_str()).collect();
        return Ok(format!(
            "Nothing restored: you changed {} since the turn, and your changes are kept.",
            named(&paths)
        ));
    }
    let done = agent
        .undo(&id, None, true, frontend.as_ref())
        .await
        .map_err(super::agent_error)?;
    Ok(restored_message(&done))
}

fn restored_message(outcome: &UndoOutcome) -> String {
    if outcome.restored.is_empty() {
        return "Nothing to undo.".to_string();
    }
    let paths: Vec<&str> = outcome.restored.iter().map(String::as_str).collect();
    let n = paths.len();
    format!(
        "Restored {n} file{}: {}.",
        if n == 1 { "" } else { "s" },
        named(&paths)
    )
}

/// `a, b, c` or `a, …, t and 5 more`.
fn named(paths: &[&str]) -> String {
    let shown = paths[..paths.len().min(NAMED)].join(", ");
    match paths.len().checked_sub(NAMED) {
        Some(more) if more > 0 => format!("{shown} and {more} more"),
        _ => shown,
    }
}

/// Asks whether to overwrite the files the user changed: a tool call of its own (pending, what
/// each restore would lose), the question on it, then the call closed with the answer. True
/// only for "restore".
async fn ask(outbox: &Outbox, id: &tandem_agent::SessionId, conflicts: &[UndoConflict]) -> bool {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let call_id = format!("undo-{}", NEXT.fetch_add(1, Ordering::Relaxed));
    let content: Vec<ToolCallContent> = conflicts
        .iter()
        .map(|c| {
            ToolCallContent::from(ContentBlock::from(format!(
                "`{}` changed since the turn; restoring it loses:\n{}",
                c.path,
                fenced(&c.lost)
            )))
        })
        .collect();
    let title = "Undo: overwrite the files you changed since the turn?";
    outbox.notify(
        id,
        SessionUpdate::ToolCall(
            ToolCall::new(call_id.clone(), title)
                .kind(ToolKind::Edit)
                .status(ToolCallStatus::Pending)
                .content(content),
        ),
    );
    let options = vec![
        PermissionOption::new(
            RESTORE,
            "Restore anyway (lose my changes)",
            PermissionOptionKind::AllowOnce,
        ),
        PermissionOption::new(KEEP, "Keep my changes", PermissionOptionKind::RejectOnce),
    ];
    let question = RequestPermissionRequest::new(
        id.to_string(),
        ToolCallUpdate::new(call_id.clone(), ToolCallUpdateFields::new()),
        options,
    );
    let answer = outbox.ask(question, |r| r.outcome).await;
    let restore = matches!(
        &answer,
        Ok(RequestPermissionOutcome::Selected(s)) if &*s.option_id.0 == RESTORE
    );
    if let Err(e) = &answer {
        tracing::warn!("the undo's question got no answer ({e}); the user's changes are kept");
    }
    let status = if restore {
        ToolCallStatus::Completed
    } else {
        ToolCallStatus::Failed
    };
    outbox.notify(
        id,
        SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            call_id,
            ToolCallUpdateFields::new().status(status),
        )),
    );
    restore
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_undo_is_the_command() {
        assert_eq!(invoked("/undo"), Some(""));
        assert_eq!(invoked("  /undo  t3 "), Some("t3"));
        assert_eq!(invoked("/undone"), None);
        assert_eq!(invoked("undo"), None);
        assert_eq!(invoked("please /undo"), None);
    }

    #[test]
    fn long_lists_are_counted() {
        let paths: Vec<String> = (0..23).map(|i| format!("f{i}")).collect();
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let text = named(&refs);
        assert!(text.starts_with("f0, f1, "), "{text}");
        assert!(text.ends_with("f19 and 3 more"), "{text}");
        assert_eq!(named(&["a", "b"]), "a, b");
    }
}
