//! What the user's sandboxed hooks wrote to the workspace, applied as a command's writes are:
//! caught by the walls, each file saved in the undo log before it is written, by
//! [`ChangeSource::Hook`] (with the call a tool's hook ran for), so the turn's changes list it and
//! undo takes it back. A hook outside the sandbox writes straight to the workspace, unrecorded.

use super::Turn;
use crate::events::Event;
use crate::hooks::HookEvent;
use tandem_model::ToolCall;
use tandem_tools::capture::{self, Applied, Captured};
use tandem_tools::{ChangeSource, ChangedBy};

impl Turn {
    /// Applies each hook's writes (never dropped, whatever ended the hook); the user is told what
    /// could not be applied. The workspace paths changed, for the model.
    pub(super) async fn apply_hook_writes(
        &self,
        event: HookEvent,
        call: Option<&ToolCall>,
        writes: Vec<Captured>,
    ) -> Vec<String> {
        let mut changed = Vec::new();
        for captured in writes {
            let (session, turn) = (self.session.clone(), self.turn_id.clone());
            let by = ChangedBy::new(ChangeSource::Hook, call.map(|c| c.id.as_str()));
            let kept = captured.dir().map(std::path::Path::to_path_buf);
            let applied = tokio::task::spawn_blocking(move || {
                capture::apply(&captured, &session.workspace, &session.undo, &turn, &by)
            })
            .await
            .unwrap_or_else(|e| Applied {
                problems: vec![format!("applying them failed ({e})")],
                kept,
                ..Applied::default()
            });
            if !applied.problems.is_empty() {
                let kept = (applied.kept.as_ref())
                    .map(|k| format!(" What was not applied is kept in {}.", k.display()))
                    .unwrap_or_default();
                self.emit(Event::Notice {
                    message: format!(
                        "Some of what a {} hook wrote was not applied: {}.{kept}",
                        event.name(),
                        applied.problems.join("; ")
                    ),
                });
            }
            changed.extend(applied.changes.iter().map(|c| c.path.clone()));
            match call {
                Some(call) => {
                    self.report_applied(call, applied).await;
                }
                None => self.report_files(&applied).await,
            }
        }
        changed
    }
}
