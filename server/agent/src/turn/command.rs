//! A command in a turn: approved (always asked outside the sandbox), run within walls, its
//! output streamed to the face up to a cap.

use super::approve::rejection;
use super::{Outcome, Turn};
use crate::approval::{ApprovalAction, CommandApproval, Decision};
use crate::events::{Event, ToolStatus};
use crate::hooks::reply::Permission;
use tandem_model::ToolCall;
use tandem_tools as tools;
use tandem_tools::CommandProposal;

/// The most of one command's output streamed to the face as it runs.
const MAX_SHOWN_OUTPUT: usize = 1024 * 1024;

impl Turn {
    pub(super) async fn command(&self, call: &ToolCall, mut proposal: CommandProposal) -> Outcome {
        // Where nothing can confine writes (Windows; Linux with neither Landlock nor user
        // namespaces), the command runs outside the sandbox once the user approves it, and the
        // approval says so. It never runs unasked.
        let sandbox = self.agent.inner.sandbox().await;
        if proposal.sandboxed
            && self.agent.inner.settings.policy.sandbox
                == tandem_sandbox::SandboxMode::WorkspaceWrite
            && !sandbox.filesystem()
        {
            proposal.sandboxed = false;
        }
        let settings = &self.agent.inner.settings;
        let policy = &settings.policy;
        let root = self.session.workspace.root();
        let walls = crate::walls(settings, root).of_workspace(&self.session.workspace);
        // Unasked only inside a sandbox that holds: a command the model wants outside it always
        // asks (acceptAlways included), and where the kernel can't sandbox, so does every
        // allow-listed one.
        let walled = proposal.sandboxed && sandbox.enforces(&walls.policy());
        let place = tandem_sandbox::Place {
            cwd: proposal.cwd.clone(),
            workspace: root.to_path_buf(),
            writable: if walled {
                walls.policy().writable_roots
            } else {
                vec![root.to_path_buf()]
            },
        };
        let dialect = tandem_tools::shell_dialect();
        let rules = policy.command_rules(&self.session.always_commands(), walled);
        let judgement = tandem_sandbox::judge(&proposal.command, &rules, &place, dialect);
        if let tandem_sandbox::Judgement::Denied { part, rule } = &judgement {
            tracing::info!(rule = %rule, "a command matched a deny rule and was refused");
            return Outcome::rejected(format!(
                "Refused without asking: `{part}` matches the user's deny rule `{rule}` \
                 (approval.rules.deny). It is never run, whatever the approval; don't try to run \
                 it another way."
            ));
        }
        let reason = if !proposal.sandboxed {
            "the model asked to run it outside the sandbox (network, writes anywhere), which \
             always asks"
                .to_string()
        } else if !walled && policy.sandbox == tandem_sandbox::SandboxMode::Off {
            "the sandbox is off (sandbox = \"off\"), so every command asks".to_string()
        } else if !walled {
            "the sandbox can't be enforced here, so every command asks".to_string()
        } else {
            match &judgement {
                tandem_sandbox::Judgement::Ask(question) => question.to_string(),
                _ => String::new(),
            }
        };
        // "Always" adds the narrowest rules that would admit this line; only where rules can
        // admit anything (inside the walls).
        let always = if walled {
            tandem_sandbox::judge::always_patterns(&proposal.command, &rules, &place, dialect)
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let request = self.request(
            call,
            ApprovalAction::Command(CommandApproval {
                command: proposal.command.clone(),
                outside_sandbox: !proposal.sandboxed,
                cwd: proposal.cwd.clone(),
                display_cwd: proposal.display_cwd.clone(),
                reason,
                always,
            }),
        );
        let hooked = self.hook_permission(&call.id);
        // A hook's allow spares the question only where the walls hold (as an allow rule does);
        // its ask asks even what the policy would let run.
        let auto = proposal.sandboxed
            && (policy.auto_approve.command
                || (walled && (judgement.is_allowed() || hooked == Some(Permission::Allow))));
        let reply = if proposal.sandboxed && hooked != Some(Permission::Ask) {
            self.approve(request, auto).await
        } else {
            self.ask_always(request).await
        };
        if reply.decision == Decision::Reject {
            return Outcome::rejected(rejection("command", &reply));
        }
        let (session_id, turn_id) = (&self.session.id, &self.turn_id);
        // What goes to the editor is bounded: past the cap one note, then nothing (the tool
        // result keeps the output's head and tail, for the model and the user alike).
        let mut shown = 0usize;
        let mut noted = false;
        let mut whole =
            crate::output_file::OutputFile::new(&settings.data_dir, session_id, turn_id, &call.id);
        let mut on_output = |chunk: &str| {
            whole.write(chunk);
            if noted {
                return;
            }
            let mut delta = chunk.to_string();
            // The note goes with the first byte past the cap: output that fills the cap exactly
            // (reads of 16 KiB add up to 1 MiB) and then goes on gets it with its next chunk.
            if shown + delta.len() > MAX_SHOWN_OUTPUT {
                tandem_stdx::truncate_in_place(&mut delta, MAX_SHOWN_OUTPUT - shown);
                delta.push_str(&format!(
                    "\n[output beyond {} MiB is not shown here; the result shows how it ends]\n",
                    MAX_SHOWN_OUTPUT / (1024 * 1024)
                ));
                if let Some(path) = whole.path() {
                    delta.push_str(&format!("[The whole output: {}]\n", path.display()));
                }
                shown = MAX_SHOWN_OUTPUT;
                noted = true;
            } else {
                shown += delta.len();
            }
            self.tell(Event::ToolOutput {
                tool_call_id: call.id.clone(),
                delta,
            });
        };
        let known = crate::file_events::Known::before(&self.session.reads);
        let ran = tools::run_command(&proposal, &walls, &mut on_output, self.cancel.clone()).await;
        if !noted {
            whole.discard();
        }
        let ran = match ran {
            Ok(mut outcome) => {
                // Whatever ended it (exit, timeout, cancel), every process of it is gone: what
                // it wrote is applied now, never dropped.
                let review = policy.command_writes == crate::approval::CommandWrites::Review;
                let applied = match outcome.captured.take() {
                    Some(captured) if review => self.review_captured(call, captured).await,
                    Some(captured) => self.apply_captured(call, captured).await,
                    None => None,
                };
                Ok((outcome, applied))
            }
            Err(e) => Err(e),
        };
        self.report_deleted(known).await;
        match ran {
            Err(e) => Outcome::failed(e),
            Ok((outcome, applied)) => {
                let mut output = outcome.report();
                if let Some(summary) = applied.map(|a| a.summary()).filter(|s| !s.is_empty()) {
                    output.push('\n');
                    output.push_str(summary.trim_end());
                }
                Outcome {
                    status: if outcome.exit_code == Some(0)
                        && !outcome.timed_out
                        && !outcome.cancelled
                    {
                        ToolStatus::Ok
                    } else {
                        ToolStatus::Error
                    },
                    output,
                    diff: None,
                    error_kind: None,
                    silent: false,
                }
            }
        }
    }

    /// Applies a command's captured writes to the workspace (each saved in the undo log first),
    /// then tells the face which files changed, before the call's result.
    async fn apply_captured(
        &self,
        call: &ToolCall,
        captured: tools::capture::Captured,
    ) -> Option<tools::capture::Applied> {
        let session = self.session.clone();
        let turn = self.turn_id.clone();
        let by = tools::ChangedBy::new(tools::ChangeSource::Command, Some(call.id.as_str()));
        let kept = captured.dir().map(std::path::Path::to_path_buf);
        let applied = tokio::task::spawn_blocking(move || {
            tools::capture::apply(&captured, &session.workspace, &session.undo, &turn, &by)
        })
        .await;
        let applied = match applied {
            Ok(applied) => applied,
            Err(e) => {
                tracing::error!("applying a command's writes failed: {e}");
                return Some(tools::capture::Applied {
                    problems: vec![format!("applying the command's writes failed ({e})")],
                    kept,
                    ..Default::default()
                });
            }
        };
        self.report_applied(call, applied).await
    }

    /// Tells the face which files a command's writes changed, before the call's result.
    pub(super) async fn report_applied(
        &self,
        call: &ToolCall,
        applied: tools::capture::Applied,
    ) -> Option<tools::capture::Applied> {
        if !applied.problems.is_empty() {
            tracing::warn!(
                problems = applied.problems.len(),
                kept = ?applied.kept,
                "some of a command's writes were not applied"
            );
        }
        if !applied.changes.is_empty() {
            let changes = applied.changes.iter().map(file_change).collect();
            self.frontend.update(
                &self.session.id,
                &self.turn_id,
                Event::FilesChanged {
                    tool_call_id: call.id.clone(),
                    changes,
                },
            );
            self.report_files(&applied).await;
        }
        Some(applied)
    }

    /// Tells the editor which files applied writes changed on disk (it reloads them).
    pub(super) async fn report_files(&self, applied: &tools::capture::Applied) {
        if applied.changes.is_empty() {
            return;
        }
        let events: Vec<crate::events::FileEvent> = applied
            .changes
            .iter()
            .map(|c| crate::events::FileEvent {
                path: self.session.workspace.root().join(&c.path),
                kind: if c.kind == tools::capture::ChangeKind::Deleted {
                    crate::events::FileEventKind::Deleted
                } else {
                    crate::events::FileEventKind::Restored
                },
            })
            .collect();
        self.frontend.files_changed(&self.session.id, events).await;
    }
}

/// A change as the events carry it.
fn file_change(change: &tools::capture::AppliedChange) -> crate::events::FileChange {
    use crate::events::FileChangeKind as K;
    use tools::capture::ChangeKind;
    crate::events::FileChange {
        path: change.path.clone(),
        kind: match &change.kind {
            ChangeKind::Created => K::Created,
            ChangeKind::Modified => K::Modified,
            ChangeKind::Deleted => K::Deleted,
            ChangeKind::Renamed { from } => K::Renamed { from: from.clone() },
            ChangeKind::ModeChanged => K::ModeChanged,
        },
        added: u32::try_from(change.added).unwrap_or(u32::MAX),
        removed: u32::try_from(change.removed).unwrap_or(u32::MAX),
    }
}

impl Turn {
    /// Tells the face which files the model knew a command removed, so an editor drops them.
    async fn report_deleted(&self, known: crate::file_events::Known) {
        let gone = known.gone();
        crate::file_events::forget_deleted(&self.session.reads, &gone);
        if !gone.is_empty() {
            self.frontend.files_changed(&self.session.id, gone).await;
        }
    }
}
