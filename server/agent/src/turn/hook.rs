//! The user's hooks at the turn's points: before and after every tool call (built-in or MCP,
//! whoever's turn it is), when the prompt is sent, when the turn ends, when a session starts in
//! this process. Every notice a hook earns (a failure, a timeout, its `systemMessage`) is shown
//! to the user; the turn goes on unless a hook says `continue: false`.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Value, json};

use super::stop::Ended;
use super::{Outcome, Turn};
use crate::events::{Event, StopReason, ToolStatus};
use crate::hooks::reply::{Permission, Reply};
use crate::hooks::{HookEvent, HookSpec, input, names, run};
use crate::mode::Mode;
use crate::session_start::Source;
use crate::trust::{Subject, TrustStore};
use tandem_model::{Message, ToolCall, ToolCallId};
use tandem_tools::{Effect, Runs};

/// What the turn's hooks have said so far.
#[derive(Default)]
pub(crate) struct HookState {
    /// `PreToolUse`'s allow or ask for a call, read when its approval is decided.
    permissions: Mutex<HashMap<ToolCallId, Permission>>,
    /// A hook said `continue: false`, and why.
    halted: Mutex<Option<String>>,
}

impl Turn {
    /// Runs the hooks `event` picks (for `call`, a tool known by `tool_names`), applies and
    /// records what they wrote, shows what they earned the user, and returns what they said.
    async fn fire(
        &self,
        event: HookEvent,
        call: Option<&ToolCall>,
        tool_names: &[&str],
        fields: Value,
    ) -> Reply {
        self.fire_from(event, call, tool_names, fields, true).await
    }

    /// [`Turn::fire`], the user's own hooks left out unless `users`.
    async fn fire_from(
        &self,
        event: HookEvent,
        call: Option<&ToolCall>,
        tool_names: &[&str],
        fields: Value,
        users: bool,
    ) -> Reply {
        let mut hooks = Vec::new();
        if users {
            hooks.extend(self.agent.inner.settings.hooks.iter().cloned());
        }
        hooks.extend(self.project_hooks_unchanged(event, tool_names).await);
        let picked: Vec<_> = run::picked(&hooks, event, tool_names).collect();
        if picked.is_empty() {
            return Reply::default();
        }
        let root = self.session.workspace.root();
        let session_id = self.session.id.to_string();
        let common = input::Common {
            session_id: &session_id,
            transcript_path: self.session.transcript.path(),
            cwd: root,
            permission_mode: match self.session.mode() {
                Mode::Plan => "plan",
                Mode::Default => "default",
            },
        };
        let input = input::input(&common, event, fields);
        let walls =
            crate::walls(&self.agent.inner.settings, root).of_workspace(&self.session.workspace);
        let (mut reply, writes) = run::run(&picked, &input, root, &walls, &self.cancel).await;
        let changed = self.apply_hook_writes(event, call, writes).await;
        if event == HookEvent::PostToolUse && !changed.is_empty() {
            reply.context.push(format!(
                "The hook changed these files after the tool ran: {}",
                changed.join(", ")
            ));
        }
        self.show(event, &reply);
        reply
    }

    /// Shows the user what an event's hooks earned: their notices, and a stop they asked for.
    fn show(&self, event: HookEvent, reply: &Reply) {
        for message in &reply.notices {
            self.emit(Event::Notice {
                message: message.clone(),
            });
        }
        if let Some(why) = &reply.halt {
            self.emit(Event::Notice {
                message: format!("A {} hook stopped the turn: {why}", event.name()),
            });
            tandem_stdx::lock(&self.hooks.halted).get_or_insert_with(|| why.clone());
        }
    }

    /// The project's trusted hooks `event` picks that still run what they ran when trusted. One
    /// whose line's files changed since (the model, or a command, rewrote its script) stops
    /// running for the session, and the user is told once: a new session asks again.
    async fn project_hooks_unchanged(
        &self,
        event: HookEvent,
        tool_names: &[&str],
    ) -> Vec<HookSpec> {
        let trusted = self.session.project_hooks();
        let picked: Vec<(HookSpec, String)> = trusted
            .into_iter()
            .filter(|(h, _)| {
                run::picked(std::slice::from_ref(h), event, tool_names)
                    .next()
                    .is_some()
            })
            .collect();
        if picked.is_empty() {
            return Vec::new();
        }
        let root = self.session.workspace.root().to_path_buf();
        let checked = tokio::task::spawn_blocking(move || {
            picked
                .into_iter()
                .map(|(hook, was)| {
                    let same = TrustStore::snapshot(&root, Subject::Hook(&hook)) == was;
                    (hook, same)
                })
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        let mut hooks = Vec::new();
        for (hook, same) in checked {
            if same {
                hooks.push(hook);
                continue;
            }
            self.session.drop_project_hook(&hook);
            self.emit(Event::Notice {
                message: format!(
                    "hook `{}` of {} no longer runs in this session: what its command line names \
                     changed since you trusted it (a new session asks again)",
                    crate::hooks::trust_name(&hook),
                    hook.source.path().display()
                ),
            });
        }
        hooks
    }

    /// `PreToolUse`: `Some` when a hook refused the call (the model reads why). An allow or an
    /// ask is kept for the call's approval ([`Turn::hook_permission`]).
    pub(super) async fn pre_tool_hooks(&self, call: &ToolCall) -> Option<Outcome> {
        let registry = &self.agent.inner.registry;
        let tool = registry.get(&call.name);
        let claude = names::claude_name(&call.name, tool.is_none());
        let root = self.session.workspace.root();
        let fields = json!({
            "tool_name": claude,
            "tool_input": names::claude_input(&call.name, &call.arguments, root),
            "tool_use_id": call.id.to_string(),
        });
        let reply = self
            .fire(
                HookEvent::PreToolUse,
                Some(call),
                &[&claude, &call.name],
                fields,
            )
            .await;
        let (permission, why) = reply.permission?;
        let because = if why.is_empty() {
            String::new()
        } else {
            format!(" Its reason: {why}")
        };
        // Only edits and commands have a question a hook can ask for; anything else it wants
        // asked about is not run (failing closed).
        let asks_itself = tool
            .is_some_and(|t| t.runs() == Runs::Workspace && t.effect() == Effect::ChangesWorkspace);
        match permission {
            Permission::Deny => Some(Outcome::rejected(format!(
                "Refused by the user's PreToolUse hook; it was not run.{because}"
            ))),
            Permission::Ask if !asks_itself => Some(Outcome::rejected(format!(
                "The user's PreToolUse hook wants the user asked about this call, and Tandem \
                 asks that way only for edits and commands; it was not run.{because}"
            ))),
            permission => {
                tandem_stdx::lock(&self.hooks.permissions).insert(call.id.clone(), permission);
                None
            }
        }
    }

    /// What the `PreToolUse` hooks said of this call's approval: `Allow` spares the question
    /// where the policy could, `Ask` asks where the policy would not.
    pub(super) fn hook_permission(&self, call: &ToolCallId) -> Option<Permission> {
        tandem_stdx::lock(&self.hooks.permissions)
            .get(call)
            .copied()
    }

    /// `PostToolUse`, after a call that succeeded: what the hooks say for the model (a blocking
    /// reason, their context) is added to its result.
    pub(super) async fn post_tool_hooks(&self, call: &ToolCall, outcome: &mut Outcome) {
        if outcome.status != ToolStatus::Ok || outcome.silent {
            return;
        }
        let registry = &self.agent.inner.registry;
        let mcp = registry.get(&call.name).is_none();
        let claude = names::claude_name(&call.name, mcp);
        let root = self.session.workspace.root();
        let tool_input = names::claude_input(&call.name, &call.arguments, root);
        let mut response = json!({"success": true, "output": outcome.output});
        if let Some(path) = tool_input.get("file_path") {
            response["filePath"] = path.clone();
        }
        let fields = json!({
            "tool_name": claude,
            "tool_input": tool_input,
            "tool_response": response,
            "tool_use_id": call.id.to_string(),
        });
        let reply = self
            .fire(
                HookEvent::PostToolUse,
                Some(call),
                &[&claude, &call.name],
                fields,
            )
            .await;
        if let Some(why) = reply.block {
            outcome
                .output
                .push_str(&format!("\n\n[The user's PostToolUse hook says:]\n{why}"));
        }
        for context in reply.context {
            outcome.output.push_str(&format!(
                "\n\n[Context from the user's PostToolUse hook:]\n{context}"
            ));
        }
    }

    /// Why a hook stopped the turn, once one did.
    pub(super) fn halted_by_hook(&self) -> Option<String> {
        tandem_stdx::lock(&self.hooks.halted).clone()
    }

    /// `UserPromptSubmit`: `Err` when a hook refused the prompt (it goes nowhere, the user is
    /// told why); otherwise the hooks' context for the model, if any.
    pub(super) async fn prompt_hooks(&self, prompt: &str) -> Result<Option<String>, Ended> {
        let reply = self
            .fire(
                HookEvent::UserPromptSubmit,
                None,
                &[],
                json!({"prompt": prompt}),
            )
            .await;
        if let Some(why) = reply.block {
            self.emit(Event::Notice {
                message: format!(
                    "Your UserPromptSubmit hook refused this prompt, so it was not sent to the \
                     model: {why}"
                ),
            });
            return Err((StopReason::EndTurn, None));
        }
        if self.halted_by_hook().is_some() {
            return Err((StopReason::EndTurn, None));
        }
        Ok(context_block("UserPromptSubmit", reply.context))
    }

    /// `SessionStart`, at the session's first turn in this process: what the user's hooks,
    /// started when the session opened ([`crate::session_start`]), said, and the project's
    /// trusted hooks, which could not run before the user's word; their context joins the
    /// conversation (and so every later request of the session).
    pub(super) async fn session_start_hooks(&self, conversation: &mut Vec<Message>) {
        let started = self.session.take_started();
        let source = started.as_ref().map_or(Source::Resume, |s| s.source);
        let fields = json!({"source": source.name()});
        let mut reply = Reply::default();
        let users = match started.map(|s| s.run) {
            Some(Some(run)) => {
                reply = run.await.unwrap_or_else(|e| Reply {
                    notices: vec![format!(
                        "The SessionStart hooks stopped before they finished ({e}); they \
                         decided nothing."
                    )],
                    ..Reply::default()
                });
                self.show(HookEvent::SessionStart, &reply);
                false
            }
            // Not started with the session (there was no runtime to start them on): now.
            Some(None) => true,
            // They ran when the session opened in this process, and a new list of servers
            // made this turn its first again: only the project's, asked about again, run.
            None => false,
        };
        reply.merge(
            self.fire_from(HookEvent::SessionStart, None, &[], fields, users)
                .await,
        );
        if let Some(content) = context_block("SessionStart", reply.context) {
            self.record_message(conversation, Message::System { content });
        }
    }

    /// `Stop`, when the turn ends by itself (not on a cancel); `active` when a `Stop` hook
    /// already kept it going. `Some(reason)` when a hook says the turn is not over and it may go
    /// on: it ended with the model's answer (not an error or the step cap) and no hook stopped it.
    pub(super) async fn stop_hooks(&self, ended: &Ended, active: bool) -> Option<String> {
        let reason_name = match ended.0 {
            StopReason::EndTurn => "end_turn",
            StopReason::MaxSteps => "max_steps",
            StopReason::Error => "error",
            StopReason::Cancelled => return None,
        };
        let fields = json!({"stop_hook_active": active, "stop_reason": reason_name});
        let reply = self.fire(HookEvent::Stop, None, &[], fields).await;
        let why = reply.block?;
        let may_go_on = ended.0 == StopReason::EndTurn
            && ended.1.is_none()
            && self.halted_by_hook().is_none()
            && !self.cancel.is_cancelled();
        if !may_go_on {
            self.emit(Event::Notice {
                message: format!(
                    "Your Stop hook asked the model to go on ({why}); the turn ended {}, so \
                     Tandem ends it anyway: send a prompt to continue.",
                    match ended.0 {
                        StopReason::MaxSteps => "at its step cap",
                        StopReason::Error => "with an error",
                        _ => "as a hook said",
                    }
                ),
            });
            return None;
        }
        Some(why)
    }
}

/// The hooks' texts for the model as one block, or `None`.
fn context_block(event: &str, context: Vec<String>) -> Option<String> {
    if context.is_empty() {
        return None;
    }
    Some(format!(
        "[Context from the user's {event} hook:]\n{}",
        context.join("\n\n")
    ))
}
