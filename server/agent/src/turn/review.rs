//! `approval.command_writes = "review"`: a command's captured writes held, and each changed file
//! proposed to the user through the edit approval (so every face shows it as it shows an edit);
//! written only when accepted, saved for undo by the command's call.
//!
//! How each change is asked:
//! * a text file, new or changed: an edit from its text before to the command's (the user may
//!   change the proposal or drop hunks, as with an edit);
//! * a deleted text file: an edit to the empty text; accepted as it is, the file is deleted (an
//!   edited proposal is written instead);
//! * a binary file or a change of mode alone, which a text edit can't show: not asked, applied
//!   as under `"apply"` (saved for undo, so undo takes it back) and listed apart for the model
//!   and the user. Holding it back instead would lose it on the snapshot path, where the command's
//!   version exists only in memory.

use super::Turn;
use crate::approval::{ApprovalAction, Decision, EditApproval};
use tandem_model::ToolCall;
use tandem_tools as tools;
use tandem_tools::FileDiff;

impl Turn {
    /// Holds a finished command's writes and asks about each changed file; writes what is
    /// accepted, then tells the face which files changed.
    pub(super) async fn review_captured(
        &self,
        call: &ToolCall,
        captured: tools::capture::Captured,
    ) -> Option<tools::capture::Applied> {
        let ws = self.session.workspace.clone();
        let held =
            match tokio::task::spawn_blocking(move || tools::capture::held::hold(&captured, &ws))
                .await
            {
                Ok(held) => held,
                Err(e) => {
                    tracing::error!("holding a command's writes failed: {e}");
                    return Some(tools::capture::Applied {
                        problems: vec![format!("holding the command's writes failed ({e})")],
                        ..Default::default()
                    });
                }
            };
        let by = tools::ChangedBy::new(tools::ChangeSource::Command, Some(call.id.as_str()));
        let mut applied = held.applied.clone();
        let auto = self.agent.inner.settings.policy.auto_approve.edit;
        for file in &held.files {
            let Some((original, proposed)) = file.as_text() else {
                let (session, turn) = (&self.session, &self.turn_id);
                match held.write(file, None, &session.workspace, &session.undo, turn, &by) {
                    Ok(change) => {
                        applied.unreviewed.push(file.path.clone());
                        applied.changes.push(change);
                    }
                    Err(e) => applied.problems.push(e),
                }
                continue;
            };
            let proposed = proposed.unwrap_or_default();
            let path = self.session.workspace.root().join(&file.path);
            let request = self.request(
                call,
                ApprovalAction::Edit(EditApproval {
                    diff: FileDiff::new(&file.path, original.as_deref(), &proposed),
                    path,
                    original,
                    proposed,
                }),
            );
            let reply = self.approve(request, auto).await;
            if reply.decision == Decision::Reject || self.cancel.is_cancelled() {
                applied.rejected.push(file.path.clone());
                continue;
            }
            let content = reply.content.map(String::into_bytes);
            let (session, turn) = (&self.session, &self.turn_id);
            let written = held.write(
                file,
                content.as_deref(),
                &session.workspace,
                &session.undo,
                turn,
                &by,
            );
            match written {
                Ok(change) => applied.changes.push(change),
                Err(e) => applied.problems.push(e),
            }
        }
        applied.changes.sort_by(|a, b| a.path.cmp(&b.path));
        held.finish(&mut applied);
        self.report_applied(call, applied).await
    }
}
