//! Running the tool calls of an answer, in order: each call (the mode's say first, then the plan,
//! fetch, MCP and built-in tools), its result shown and given to the model within the window's
//! budget, and the rest skipped after a cancel (or a hook's `continue: false`). The user's
//! `PreToolUse` and `PostToolUse` hooks run around every call here, so no tool escapes them.

use tracing::Instrument;

use super::stop::Ended;
use super::{Outcome, Turn};
use crate::context::{self, Sizing};
use crate::events::{Event, Location, StopReason, ToolCallEvent};
use crate::plan;
use crate::subagent::Task;
use std::collections::HashMap;
use tandem_model::{Message, ToolCall};
use tandem_tools as tools;
use tandem_tools::{ErrorKind, Prepared, Runs, ToolContext, ToolError};

impl Turn {
    /// Runs an answer's tool calls and puts each result into the conversation. After a cancel
    /// the calls not yet run are answered "not run" (the model's calls each need a result) and
    /// the turn ends.
    pub(super) async fn run_calls(
        &self,
        conversation: &mut Vec<Message>,
        tool_calls: &[ToolCall],
        sizing: Option<&Sizing>,
    ) -> Option<Ended> {
        // The answer's `task` calls run first, together (each waits for a subagent slot);
        // their results go in at their places below.
        let mut delegated = self.run_tasks(tool_calls).await;
        for (i, call) in tool_calls.iter().enumerate() {
            let halted = self.halted_by_hook();
            if self.cancel.is_cancelled() || halted.is_some() {
                let why = match &halted {
                    Some(_) => "Not run: a hook of the user's stopped the turn.",
                    None => "Not run: the user cancelled the turn.",
                };
                for (j, skipped) in tool_calls.iter().enumerate().skip(i) {
                    // A subagent that ran already has its answer.
                    match delegated.remove(&j) {
                        Some(outcome) => {
                            self.put_result(conversation, skipped, outcome, None).await
                        }
                        None => self.record_message(
                            conversation,
                            Message::Tool {
                                tool_call_id: skipped.id.clone(),
                                content: why.into(),
                            },
                        ),
                    }
                }
                return Some(match halted {
                    Some(_) => (StopReason::EndTurn, None),
                    None => (StopReason::Cancelled, None),
                });
            }
            let outcome = match delegated.remove(&i) {
                Some(outcome) => outcome,
                None => self.run_tool(call).await,
            };
            self.put_result(conversation, call, outcome, sizing).await;
        }
        // A hook's `continue: false` after the last call: the model is not asked again.
        self.halted_by_hook().map(|_| (StopReason::EndTurn, None))
    }

    /// Runs the `task` calls of an answer at once (a subagent's own answer has none it may
    /// run): each call's outcome by its index.
    async fn run_tasks(&self, tool_calls: &[ToolCall]) -> HashMap<usize, Outcome> {
        if self.child.is_some() {
            return HashMap::new();
        }
        let tasks = tool_calls
            .iter()
            .enumerate()
            .filter(|(_, call)| call.name == Task::NAME)
            .map(|(i, call)| async move { (i, self.run_tool(call).await) });
        futures_util::future::join_all(tasks)
            .await
            .into_iter()
            .collect()
    }

    /// Shows a call's result and puts it into the conversation, within the window's budget.
    async fn put_result(
        &self,
        conversation: &mut Vec<Message>,
        call: &ToolCall,
        outcome: Outcome,
        sizing: Option<&Sizing>,
    ) {
        {
            let for_model = match sizing {
                Some(sizing) => {
                    let ratio = tandem_stdx::lock(&self.agent.inner.counter).ratio;
                    let client = self.client().as_ref();
                    // MCP tools' results keep their beginning.
                    let cut = (self.agent.inner.registry.get(&call.name))
                        .map_or(tools::Cut::Head, |t| t.cut());
                    let window = sizing.window.tokens;
                    context::cap_tool_output(client, &outcome.output, window, ratio, cut).await
                }
                None => outcome.output.clone(),
            };
            // A folder's own rules come with the first result from under it (the model's
            // copy only: the user was shown them as a `rules` update).
            let for_model = for_model + &self.nested_rules(call);
            if !outcome.silent {
                self.emit(Event::ToolResult {
                    tool_call_id: call.id.clone(),
                    status: outcome.status,
                    output: outcome.output,
                    diff: outcome.diff,
                    error_kind: outcome.error_kind,
                });
            }
            self.record_message(
                conversation,
                Message::Tool {
                    tool_call_id: call.id.clone(),
                    content: for_model,
                },
            );
        }
    }

    /// One tool call, in a span of its own (its name and id; never its arguments, which may
    /// hold anything the model read).
    pub(super) async fn run_tool(&self, call: &ToolCall) -> Outcome {
        let span = tracing::info_span!("tool", name = %call.name, call = %call.id);
        async {
            let mut outcome = self.run_tool_unlogged(call).await;
            self.post_tool_hooks(call, &mut outcome).await;
            tracing::info!(status = ?outcome.status, "tool call done");
            outcome
        }
        .instrument(span)
        .await
    }

    pub(super) async fn run_tool_unlogged(&self, call: &ToolCall) -> Outcome {
        // Judged before anything else: a mode's refusal asks nobody and runs nothing.
        let registry = &self.agent.inner.registry;
        // A subagent calls only what it was granted; nothing else runs or is asked.
        if let Some(child) = &self.child
            && !child.grants(&call.name)
        {
            self.show_call(call);
            return Outcome::rejected(child.refusal(&call.name));
        }
        let mode = self.session.mode();
        if !mode.allows(registry, &call.name) {
            self.show_call(call);
            return Outcome::rejected(mode.refusal(registry, &call.name));
        }
        if let Some(refused) = self.pre_tool_hooks(call).await {
            self.show_call(call);
            return refused;
        }
        let Some(tool) = registry.get(&call.name) else {
            // Not a built-in: an MCP server's tool, or one the model made up (then the
            // registry's answer names the tools there are).
            if let Some(outcome) = self.run_mcp(call).await {
                return outcome;
            }
            self.show_call(call);
            return Outcome::failed(registry.unknown(&call.name));
        };
        match tool.runs() {
            Runs::Session if call.name == Task::NAME => return self.task(call).await,
            Runs::Session => return self.update_plan(call),
            Runs::Network => return self.fetch(call).await,
            Runs::Workspace => {}
        }
        let info = self.show_call(call);
        let editor_text = match info.target {
            Some(target) if tool.works_on_one_file() => {
                match self.session.workspace.resolve(&target.path) {
                    Ok(abs) => self.editor_text(&abs).await,
                    Err(_) => None,
                }
            }
            _ => None,
        };
        let ctx = ToolContext {
            editor_text: editor_text.as_ref(),
            // Recorded with the undo log's saves: who changed a file.
            tool_call_id: Some(call.id.as_str()),
            ..ToolContext::new(&self.session.workspace, &self.session.reads)
        };
        let prepared = tokio::select! {
            r = tool.prepare(&ctx, &call.arguments) => r,
            () = self.cancel.cancelled() => return Outcome::rejected("Cancelled by the user.".into()),
        };
        match prepared {
            Err(e) => Outcome::failed(e),
            Ok(Prepared::Done(output)) => Outcome::ok(output),
            Ok(Prepared::Edit(proposal)) => self.edit(&ctx, call, proposal).await,
            Ok(Prepared::Command(proposal)) => self.command(call, proposal).await,
        }
    }

    /// Shows the user a built-in tool call (or a call to a tool that doesn't exist).
    pub(super) fn show_call(&self, call: &ToolCall) -> tools::CallInfo {
        let arguments = serde_json::from_str(&call.arguments)
            .unwrap_or_else(|_| serde_json::Value::String(call.arguments.clone()));
        let info = self
            .agent
            .inner
            .registry
            .describe(&call.name, &call.arguments);
        let root = self.session.workspace.root();
        self.emit(Event::ToolCall(ToolCallEvent {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            arguments,
            title: info.title.clone(),
            kind: info.kind,
            location: info.target.as_ref().map(|t| Location {
                path: root.join(&t.path),
                line: t.line,
            }),
        }));
        info
    }

    /// `update_plan`: a valid plan becomes the session's and is shown as a plan (not as a tool
    /// call); a bad one is shown as a failed call and the model told what is wrong.
    pub(super) fn update_plan(&self, call: &ToolCall) -> Outcome {
        match plan::parse(&call.arguments) {
            Ok(plan) => {
                let ack = plan.acknowledgement();
                self.session.set_plan(plan.clone());
                self.emit(Event::Plan(plan));
                Outcome {
                    silent: true,
                    ..Outcome::ok(ack)
                }
            }
            Err(why) => {
                self.show_call(call);
                Outcome::failed(ToolError::new(ErrorKind::InvalidArguments, why))
            }
        }
    }
}
