//! An edit in a turn: approved, written through the editor or to disk, checked against the file
//! as it is now, and followed by the problems the editor reports.

use std::path::Path;
use std::time::Duration;

use super::approve::rejection;
use super::{Outcome, Turn};
use crate::Diagnostic;
use crate::approval::{ApprovalAction, Decision, EditApproval};
use crate::events::ToolStatus;
use crate::hooks::reply::Permission;
use crate::prompt::ContextItem;
use tandem_model::ToolCall;
use tandem_tools as tools;
use tandem_tools::{
    AppliedEdit, EditProposal, EditorText, ErrorKind, FileDiff, Prepared, ToolContext, ToolError,
};

/// How long an Accept waits for the problems before the edit when they were not in yet.
const BEFORE_GRACE: Duration = Duration::from_millis(250);

/// How long the editor gets to report diagnostics after an edit.
const DIAGNOSTICS_WAIT: Duration = Duration::from_secs(5);

impl Turn {
    pub(super) async fn edit(
        &self,
        ctx: &ToolContext<'_>,
        call: &ToolCall,
        proposal: EditProposal,
    ) -> Outcome {
        let request = self.request(
            call,
            ApprovalAction::Edit(EditApproval {
                path: proposal.path.clone(),
                original: proposal.original.clone(),
                proposed: proposal.proposed.clone(),
                diff: proposal.diff.clone(),
            }),
        );
        let policy = &self.agent.inner.settings.policy;
        // The editor's problems before the edit are gathered while the user decides, so the
        // write follows an Accept at once.
        let before = tokio::spawn(tokio::time::timeout(
            DIAGNOSTICS_WAIT,
            self.frontend.diagnostics(vec![proposal.path.clone()]),
        ));
        // The user's PreToolUse hook may spare the question (as auto-approving edits does) or
        // ask it whatever the policy and "accept always" say.
        let reply = match self.hook_permission(&call.id) {
            Some(Permission::Ask) => self.ask_always(request).await,
            Some(Permission::Allow) => self.approve(request, true).await,
            _ => self.approve(request, policy.auto_approve.edit).await,
        };
        if reply.decision == Decision::Reject {
            before.abort();
            return Outcome::rejected(rejection("edit", &reply));
        }
        if self.cancel.is_cancelled() {
            before.abort();
            return Outcome::rejected("Cancelled by the user; nothing was written.".into());
        }
        // Not settled yet (an auto-approved edit, a very quick Accept): given a moment at most,
        // not the whole settling time; after the write it would see the new text, so then the
        // problems after are all reported.
        let before: Option<Vec<Diagnostic>> = match tokio::time::timeout(BEFORE_GRACE, before).await
        {
            Ok(Ok(Ok(diagnostics))) => Some(diagnostics),
            _ => None,
        };
        let edited = reply
            .content
            .as_ref()
            .is_some_and(|c| *c != proposal.proposed);
        let content = reply.content.as_deref().unwrap_or(&proposal.proposed);
        let applied = match self.write(ctx, &proposal, content).await {
            Ok(applied) => applied,
            // The file changed while the user decided (typing elsewhere in the buffer, most
            // often): a SEARCH/REPLACE edit whose SEARCH texts are each still there once is the
            // same edit, made against the text as it is now.
            Err(e)
                if e.kind == ErrorKind::Stale
                    && self
                        .agent
                        .inner
                        .registry
                        .get(&call.name)
                        .is_some_and(|t| t.rematches_when_stale())
                    && reply.content.is_none()
                    && reply.rejected_hunks.is_empty() =>
            {
                match self.rematch(ctx, call).await {
                    Some(fresh) => match self.write(ctx, &fresh, &fresh.proposed).await {
                        Ok(applied) => applied,
                        Err(e) => {
                            return Outcome::failed(e);
                        }
                    },
                    None => return Outcome::failed(e),
                }
            }
            Err(e) => return Outcome::failed(e),
        };
        let mut output = if edited {
            format!(
                "The user edited your proposal before accepting it. What was written to {} \
                 (diff against the file before the edit):\n{}",
                proposal.display_path, applied.diff.unified
            )
        } else {
            format!(
                "Applied the edit to {} (+{} -{}).",
                proposal.display_path, applied.diff.added, applied.diff.removed
            )
        };
        if !reply.rejected_hunks.is_empty() {
            output.push_str(&dropped_hunks(&proposal.diff, &reply.rejected_hunks));
        }
        if let Some(feedback) = reply.feedback.filter(|f| !f.trim().is_empty()) {
            output.push_str(&format!("\nThe user's note: {feedback}"));
        }
        // Accepted means written: a cancel now only skips the wait for the problems after.
        let after = self.diagnostics(&proposal).await;
        let new: Vec<&Diagnostic> = after
            .iter()
            .filter(|d| before.as_ref().is_none_or(|b| !b.contains(d)))
            .collect();
        if !new.is_empty() {
            output.push_str(if before.is_some() {
                "\n\nNew problems the editor reports after this edit:"
            } else {
                "\n\nProblems the editor reports in the file after this edit:"
            });
            for d in new {
                output.push_str(&format!(
                    "\n{}:{}: {}: {}",
                    d.path,
                    d.line,
                    d.severity.as_str(),
                    d.message
                ));
            }
        }
        Outcome {
            status: ToolStatus::Ok,
            output,
            diff: Some(applied.diff),
            error_kind: None,
            silent: false,
        }
    }

    /// The file's text as the editor holds it, when the face reads through the editor.
    pub(super) async fn editor_text(&self, path: &Path) -> Option<EditorText> {
        let read = self.frontend.read_text(path)?;
        let text = tokio::select! {
            r = read => r.ok()?,
            () = self.cancel.cancelled() => return None,
        };
        Some(EditorText {
            path: path.to_path_buf(),
            text,
        })
    }

    /// Writes an approved edit: through the editor when the face does that, else to disk. Either
    /// way the file is checked first against what the proposal was made from (the editor's text
    /// now, when it has one).
    pub(super) async fn write(
        &self,
        ctx: &ToolContext<'_>,
        proposal: &EditProposal,
        content: &str,
    ) -> Result<AppliedEdit, ToolError> {
        let fresh = self.editor_text(&proposal.path).await;
        let ctx = ToolContext {
            editor_text: fresh.as_ref(),
            tool_call_id: ctx.tool_call_id,
            ..ToolContext::new(ctx.workspace, ctx.reads)
        };
        // Checked and saved for undo before anything is written, whichever way it is written:
        // a face may send its write the moment it is asked.
        let path = tools::begin_edit(&ctx, proposal, &self.session.undo, &self.turn_id)?;
        match self
            .frontend
            .write_text(&path, proposal.original.as_deref(), content)
        {
            None => tools::write_to_disk(&ctx, &path, content)?,
            Some(write) => write.await.map_err(|why| {
                ToolError::new(
                    ErrorKind::Io,
                    format!(
                        "the editor did not apply the edit to {} ({why}); nothing was written",
                        proposal.display_path
                    ),
                )
            })?,
        }
        // For undo: so a later restore can tell whether someone changed the file since.
        if let Err(e) = self.session.undo.record_written(
            &self.turn_id,
            &proposal.display_path,
            content.as_bytes(),
        ) {
            tracing::warn!("{}", e.message);
        }
        Ok(tools::finish_edit(&ctx, proposal, &path, content))
    }

    /// Files the prompt points at without their text (a link, not a selection the face sent):
    /// read through the editor when the face does that, like the tools read them, so the model
    /// sees the unsaved buffer and not the disk. Only workspace files the tools may read; the rest
    /// are left to the prompt's own checks.
    pub(super) async fn read_linked_files(
        &self,
        mut context: Vec<ContextItem>,
    ) -> Vec<ContextItem> {
        for item in context.iter_mut().filter(|c| c.text.is_none()) {
            if let Ok(path) = self.session.workspace.resolve_for_read(&item.path)
                && let Some(read) = self.editor_text(&path).await
            {
                item.text = Some(read.text);
            }
        }
        context
    }

    /// The tool call prepared again, against the file as the editor (or the disk) holds it now.
    pub(super) async fn rematch(
        &self,
        ctx: &ToolContext<'_>,
        call: &ToolCall,
    ) -> Option<EditProposal> {
        let registry = &self.agent.inner.registry;
        let path = self
            .session
            .workspace
            .resolve(&registry.describe(&call.name, &call.arguments).target?.path)
            .ok()?;
        let fresh = self.editor_text(&path).await;
        let ctx = ToolContext {
            editor_text: fresh.as_ref(),
            tool_call_id: ctx.tool_call_id,
            ..ToolContext::new(ctx.workspace, ctx.reads)
        };
        match registry.prepare(&ctx, &call.name, &call.arguments).await {
            Ok(Prepared::Edit(proposal)) => Some(proposal),
            _ => None,
        }
    }

    /// The editor's diagnostics for the edited file, bounded in time (and none when cancelled).
    pub(super) async fn diagnostics(&self, proposal: &EditProposal) -> Vec<Diagnostic> {
        let wait = self.frontend.diagnostics(vec![proposal.path.clone()]);
        tokio::select! {
            r = tokio::time::timeout(DIAGNOSTICS_WAIT, wait) => r.unwrap_or_default(),
            () = self.cancel.cancelled() => Vec::new(),
        }
    }
}

/// What the model is told of the parts of its proposal the user dropped.
pub(super) fn dropped_hunks(diff: &FileDiff, dropped: &[usize]) -> String {
    let mut note = format!(
        "\nThe user dropped {} of the {} changes you proposed; they were not written:",
        dropped.len(),
        diff.hunks.len()
    );
    for &i in dropped {
        match diff.hunks.get(i) {
            Some(hunk) => {
                let lines = hunk.old_text.lines().count();
                note.push_str(&format!(
                    "\n- change {} (at line {}, {} line(s) of the file)",
                    i + 1,
                    hunk.old_start.max(1),
                    lines
                ));
            }
            None => note.push_str(&format!("\n- change {}", i + 1)),
        }
    }
    note
}
