//! One turn as every face shows it: a pure state machine over the turn's events and the approvals
//! around them. A face feeds it what the core tells it and renders the [`Change`]s it returns,
//! reading the facts (the answer so far, each tool call and its state, the plan, the tokens, the
//! end) from the [`TurnView`]; no face keeps its own account of them.
//!
//! It knows nothing of any face: no protocol, no terminal, no I/O. Events the core would never
//! send in that order (a result before its call, a call twice, anything after the end) change
//! what they can and never panic: the events come from the model's work, and a face must not
//! fall over because a model repeated an id.

use std::collections::HashMap;
use std::path::PathBuf;

use tandem_model::ToolCallId;
use tandem_tools::{ErrorKind, FileDiff, ToolKind};

use crate::approval::{ApprovalAction, ApprovalRequest, Decision};
use crate::events::{
    Event, Location, Retrying, RulesFile, StopReason, ToolCallEvent, ToolStatus, TurnErrorKind,
};
use crate::plan::Plan;

#[cfg(test)]
mod tests;

/// The most of a running command's output a view keeps (its tail): a chatty command must not
/// grow a face's memory without bound, and a face that repeats the whole output in each update
/// (ACP replaces a call's content) would cost quadratic bytes without it.
pub const OUTPUT_KEPT: usize = 64 * 1024;

/// What one input changed, in the order a face should render it. The details are in the view
/// (`view.tool(id)`, `view.plan()`, `view.usage()`, `view.end()`).
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A new turn began; the view was cleared (`view.prompt()`, `view.context()`).
    Started,
    /// The model began writing the answer of its `step`-th request (its first text or reasoning
    /// since the last request ended).
    Writing {
        step: u32,
    },
    /// A piece of the answer.
    Text(String),
    /// A piece of the model's reasoning.
    Reasoning(String),
    /// The reasoning and the text that came since the last change of another kind, whole, now
    /// that something else follows them. At least one is not empty.
    Said {
        reasoning: String,
        text: String,
    },
    /// The model called a tool. `preamble`: its text since the previous call (or the turn's
    /// start), which is not the answer since a call followed it.
    Called {
        id: ToolCallId,
        preamble: String,
    },
    /// A piece of a running call's output (`view.tool(id).output` holds its tail).
    Output {
        id: ToolCallId,
        delta: String,
    },
    /// A call changed files other than through an edit proposal (`view.tool(id).files_changed`).
    FilesChanged {
        id: ToolCallId,
    },
    /// A call finished (`view.tool(id).result`).
    Finished {
        id: ToolCallId,
    },
    /// The user is asked about a call (`view.tool(id).approval`).
    Asked {
        id: ToolCallId,
    },
    /// A call was allowed and runs now.
    Allowed {
        id: ToolCallId,
    },
    /// A call was refused; its result follows.
    Refused {
        id: ToolCallId,
    },
    /// Calls that will never finish (the turn ended, or another began, without their result),
    /// in the order they were made; they are now [`ToolState::Interrupted`].
    Interrupted {
        ids: Vec<ToolCallId>,
    },
    /// A model request ended with these counts (`view.usage()` has the turn's totals).
    Usage(RequestUsage),
    Rules(Vec<RulesFile>),
    /// The plan changed (`view.plan()`).
    Plan,
    Compaction(Compaction),
    Notice(String),
    /// The model request is tried again after a wait; transient (`view.activity()` says it
    /// until the model writes again).
    Retrying(Retrying),
    /// The turn is over (`view.end()`).
    Ended,
    /// A change in a subagent's part of the turn, under the parent's `task` call `parent`
    /// (`view.subagent(parent)` has its own view, where `change`'s ids are found).
    Subagent {
        parent: ToolCallId,
        agent: String,
        change: Box<Change>,
    },
}

/// A subagent's part of the turn: its name and its own view (its calls, its answer, its tokens).
#[derive(Clone, Debug, Default)]
pub struct SubagentView {
    pub agent: String,
    pub view: TurnView,
}

/// One model request's token counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub context_window: Option<u64>,
}

/// The turn's tokens so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Model requests that ended (usage reports seen).
    pub requests: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// The last request's counts.
    pub last: Option<RequestUsage>,
    /// The context window, as last reported.
    pub context_window: Option<u64>,
    /// Subagents' model requests that ended; their tokens are in the totals above (not in
    /// `last` or `requests`, which are the parent's own).
    pub subagent_requests: u32,
}

/// The conversation was compacted (see [`Event::Compaction`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compaction {
    pub elided: u32,
    pub summarized: u32,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub context_window: u64,
}

/// How the turn ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct End {
    pub stop_reason: StopReason,
    pub error: Option<String>,
    pub error_kind: Option<TurnErrorKind>,
}

/// Where a tool call stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolState {
    /// Made; it runs, or waits for the policy's or the user's decision.
    Called,
    /// The user is asked.
    Asking,
    /// Allowed, or its output is coming.
    Running,
    /// Refused; its result follows.
    Refused,
    /// Finished (`result` says how).
    Done(ToolStatus),
    /// Never finished: the turn ended without its result.
    Interrupted,
}

impl ToolState {
    /// Finished one way or another: nothing reopens it.
    pub fn is_over(self) -> bool {
        matches!(self, ToolState::Done(_) | ToolState::Interrupted)
    }
}

/// A finished call's result.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub status: ToolStatus,
    /// What the model gets.
    pub output: String,
    pub diff: Option<FileDiff>,
    pub error_kind: Option<ErrorKind>,
}

/// One tool call as faces show it.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolView {
    pub id: ToolCallId,
    /// The model's call was seen. `false`: the view heard of it only by its output, its approval
    /// or its result (then `name` and `title` are empty and `kind` is `Other`).
    pub announced: bool,
    pub name: String,
    pub title: String,
    pub kind: ToolKind,
    pub arguments: serde_json::Value,
    pub location: Option<Location>,
    pub state: ToolState,
    /// The streamed output so far: its tail, at most about [`OUTPUT_KEPT`] bytes.
    pub output: String,
    /// What the user was asked, when asked.
    pub approval: Option<ApprovalAction>,
    /// Refused at its approval (counted then, not again at its result).
    refused: bool,
    pub result: Option<ToolResult>,
    /// Files the call changed outside an edit proposal (a command's writes), as reported.
    pub files_changed: Vec<crate::events::FileChange>,
}

impl ToolView {
    fn unannounced(id: ToolCallId) -> ToolView {
        ToolView {
            id,
            announced: false,
            name: String::new(),
            title: String::new(),
            kind: ToolKind::Other,
            arguments: serde_json::Value::Null,
            location: None,
            state: ToolState::Called,
            output: String::new(),
            approval: None,
            refused: false,
            result: None,
            files_changed: Vec::new(),
        }
    }
}

/// What the turn is doing now, besides the model writing.
#[derive(Clone, Debug, PartialEq)]
pub enum Activity {
    /// Running (or about to run) this call.
    Tool(ToolCallId),
    Retrying(Retrying),
}

/// One turn, as far as its events went.
#[derive(Clone, Debug, Default)]
pub struct TurnView {
    started: bool,
    prompt: String,
    context: Vec<PathBuf>,
    /// All the turn's text, the text before each tool call ending a line of its own.
    answer: String,
    /// The text since the last tool call: the answer if the turn ended now.
    final_text: String,
    reasoning: String,
    /// Pieces not yet reported whole by [`Change::Said`].
    open_text: String,
    open_reasoning: String,
    /// In the order they were made; a reused id's earlier call stays, retired from `index`.
    tools: Vec<ToolView>,
    index: HashMap<ToolCallId, usize>,
    plan: Option<Plan>,
    usage: Usage,
    /// The model writes the answer of a request not yet ended.
    writing: bool,
    activity: Option<Activity>,
    rules: Vec<RulesFile>,
    notices: Vec<String>,
    rejected: u32,
    end: Option<End>,
    /// Each subagent's part, by the parent's `task` call, in the order they began.
    subagents: Vec<(ToolCallId, SubagentView)>,
}

impl TurnView {
    pub fn new() -> TurnView {
        TurnView::default()
    }

    /// The views of each turn in `events` (a saved session's history), in order.
    pub fn turns(events: impl IntoIterator<Item = Event>) -> Vec<TurnView> {
        let mut turns = Vec::new();
        let mut view = TurnView::new();
        for event in events {
            let next = match event {
                Event::TurnStarted { .. } => view.started,
                Event::TurnEnded { .. } => false,
                _ => view.end.is_some(),
            };
            if next {
                let done = std::mem::take(&mut view);
                if done.started {
                    turns.push(done);
                }
            }
            view.event(event);
        }
        if view.started {
            turns.push(view);
        }
        turns
    }

    /// Takes one event of the turn.
    pub fn event(&mut self, event: Event) -> Vec<Change> {
        let mut changes = Vec::new();
        if self.end.is_some() && !matches!(event, Event::TurnEnded { .. }) {
            // Anything after the end belongs to what comes next.
            *self = TurnView::new();
        }
        if !event.is_piece() {
            self.close_pieces(&mut changes);
        }
        match event {
            Event::TurnStarted { prompt, context } => {
                if self.started {
                    // The last turn never ended (a crash in a saved history).
                    changes.extend(self.close_open());
                }
                *self = TurnView {
                    started: true,
                    prompt,
                    context,
                    ..TurnView::new()
                };
                changes.push(Change::Started);
            }
            Event::Text { delta } => {
                self.model_writes(&mut changes);
                self.answer.push_str(&delta);
                self.final_text.push_str(&delta);
                self.open_text.push_str(&delta);
                changes.push(Change::Text(delta));
            }
            Event::Reasoning { delta } => {
                self.model_writes(&mut changes);
                self.reasoning.push_str(&delta);
                self.open_reasoning.push_str(&delta);
                changes.push(Change::Reasoning(delta));
            }
            Event::ToolCall(call) => self.called(call, &mut changes),
            Event::ToolOutput {
                tool_call_id,
                delta,
            } => {
                let tool = self.tool_entry(&tool_call_id);
                if !tool.state.is_over() {
                    tool.state = ToolState::Running;
                    tool.output.push_str(&delta);
                    keep_tail(&mut tool.output, OUTPUT_KEPT);
                    changes.push(Change::Output {
                        id: tool_call_id,
                        delta,
                    });
                }
            }
            Event::FilesChanged {
                tool_call_id,
                changes: files,
            } => {
                let tool = self.tool_entry(&tool_call_id);
                tool.files_changed.extend(files);
                changes.push(Change::FilesChanged { id: tool_call_id });
            }
            Event::ToolResult {
                tool_call_id,
                status,
                output,
                diff,
                error_kind,
            } => {
                let tool = self.tool_entry(&tool_call_id);
                if !tool.state.is_over() {
                    tool.state = ToolState::Done(status);
                    // A refusal that asked nobody (plan mode's) is a refusal too; one that was
                    // an approval was counted then.
                    let counted = status == ToolStatus::Rejected && !tool.refused;
                    tool.result = Some(ToolResult {
                        status,
                        output,
                        diff,
                        error_kind,
                    });
                    if counted {
                        self.rejected += 1;
                    }
                    changes.push(Change::Finished { id: tool_call_id });
                }
            }
            Event::Usage {
                prompt_tokens,
                completion_tokens,
                context_window,
            } => {
                let request = RequestUsage {
                    prompt_tokens,
                    completion_tokens,
                    context_window,
                };
                let usage = &mut self.usage;
                usage.requests += 1;
                usage.prompt_tokens += prompt_tokens;
                usage.completion_tokens += completion_tokens;
                usage.last = Some(request);
                usage.context_window = context_window.or(usage.context_window);
                self.writing = false;
                changes.push(Change::Usage(request));
            }
            Event::Rules { files } => {
                for file in &files {
                    if !self.rules.contains(file) {
                        self.rules.push(file.clone());
                    }
                }
                changes.push(Change::Rules(files));
            }
            Event::Plan(plan) => {
                self.plan = Some(plan);
                changes.push(Change::Plan);
            }
            Event::Compaction {
                elided,
                summarized,
                tokens_before,
                tokens_after,
                context_window,
            } => changes.push(Change::Compaction(Compaction {
                elided,
                summarized,
                tokens_before,
                tokens_after,
                context_window,
            })),
            Event::Notice { message } => {
                self.notices.push(message.clone());
                changes.push(Change::Notice(message));
            }
            Event::Retrying(retry) => {
                self.activity = Some(Activity::Retrying(retry.clone()));
                changes.push(Change::Retrying(retry));
            }
            Event::Subagent {
                parent,
                agent,
                event,
            } => self.subagent_event(parent, agent, *event, &mut changes),
            Event::TurnEnded {
                stop_reason,
                error,
                error_kind,
            } => {
                if self.end.is_none() {
                    changes.extend(self.close_open());
                    self.writing = false;
                    self.end = Some(End {
                        stop_reason,
                        error,
                        error_kind,
                    });
                    changes.push(Change::Ended);
                }
            }
        }
        changes
    }

    /// A subagent's event, into its own view; its tokens count in the turn's too. A turn's
    /// start or end, or a subagent's subagent, is not a subagent's to send: ignored.
    fn subagent_event(
        &mut self,
        parent: ToolCallId,
        agent: String,
        event: Event,
        changes: &mut Vec<Change>,
    ) {
        if matches!(
            event,
            Event::TurnStarted { .. } | Event::TurnEnded { .. } | Event::Subagent { .. }
        ) {
            return;
        }
        if let Event::Usage {
            prompt_tokens,
            completion_tokens,
            ..
        } = &event
        {
            self.usage.prompt_tokens += prompt_tokens;
            self.usage.completion_tokens += completion_tokens;
            self.usage.subagent_requests += 1;
        }
        let i = match self.subagents.iter().position(|(id, _)| *id == parent) {
            Some(i) => i,
            None => {
                let view = TurnView {
                    started: true,
                    ..TurnView::new()
                };
                let agent = agent.clone();
                self.subagents
                    .push((parent.clone(), SubagentView { agent, view }));
                self.subagents.len() - 1
            }
        };
        let inner = self.subagents[i].1.view.event(event);
        changes.extend(inner.into_iter().map(|change| Change::Subagent {
            parent: parent.clone(),
            agent: agent.clone(),
            change: Box::new(change),
        }));
    }

    /// The subagent whose view has this call, and its index.
    fn subagent_of(&self, id: &ToolCallId) -> Option<usize> {
        if self.index.contains_key(id) {
            return None;
        }
        self.subagents
            .iter()
            .position(|(_, s)| s.view.index.contains_key(id))
    }

    /// Wraps a subagent's changes under its `task` call.
    fn under(&self, i: usize, inner: Vec<Change>) -> Vec<Change> {
        let (parent, sub) = &self.subagents[i];
        inner
            .into_iter()
            .map(|change| Change::Subagent {
                parent: parent.clone(),
                agent: sub.agent.clone(),
                change: Box::new(change),
            })
            .collect()
    }

    /// The name of the subagent whose call this is (`None`: the turn's own, or unknown): what
    /// a face says when that call's approval is asked.
    pub fn subagent_asking(&self, id: &ToolCallId) -> Option<&str> {
        self.subagent_of(id)
            .map(|i| self.subagents[i].1.agent.as_str())
    }

    /// Each subagent's part, by the parent's `task` call, in the order they began.
    pub fn subagents(&self) -> &[(ToolCallId, SubagentView)] {
        &self.subagents
    }

    /// The subagent started by the `task` call `parent`.
    pub fn subagent(&self, parent: &ToolCallId) -> Option<&SubagentView> {
        self.subagents
            .iter()
            .find(|(id, _)| id == parent)
            .map(|(_, s)| s)
    }

    /// The user is asked about a call (before the answer comes). A subagent's call is asked
    /// about in its own view, the change under its `task` call (a face says which asks).
    pub fn approval_asked(&mut self, request: &ApprovalRequest) -> Vec<Change> {
        if let Some(i) = self.subagent_of(&request.tool_call_id) {
            let inner = self.subagents[i].1.view.approval_asked(request);
            return self.under(i, inner);
        }
        let mut changes = Vec::new();
        self.close_pieces(&mut changes);
        let tool = self.tool_entry(&request.tool_call_id);
        if !tool.state.is_over() {
            tool.state = ToolState::Asking;
            tool.approval = Some(request.action.clone());
            changes.push(Change::Asked {
                id: request.tool_call_id.clone(),
            });
        }
        changes
    }

    /// A call's approval was settled (by the user, a rule or the policy). A refusal counts
    /// whatever the call; a call already over is never reopened by a late answer.
    pub fn approval_decided(&mut self, id: &ToolCallId, decision: Decision) -> Vec<Change> {
        if let Some(i) = self.subagent_of(id) {
            let inner = self.subagents[i].1.view.approval_decided(id, decision);
            return self.under(i, inner);
        }
        let mut changes = Vec::new();
        self.close_pieces(&mut changes);
        if decision == Decision::Reject {
            self.rejected += 1;
        }
        // A call never heard of (a late answer after the turn ended) is not made up here.
        let Some(&i) = self.index.get(id) else {
            return changes;
        };
        let tool = &mut self.tools[i];
        if tool.state.is_over() {
            return changes;
        }
        let id = id.clone();
        if decision == Decision::Reject {
            tool.refused = true;
            tool.state = ToolState::Refused;
            changes.push(Change::Refused { id });
        } else {
            tool.state = ToolState::Running;
            changes.push(Change::Allowed { id });
        }
        changes
    }

    /// Ends the calls still open (the history stopped mid-turn): they will not finish.
    pub fn close_open(&mut self) -> Vec<Change> {
        let mut ids = Vec::new();
        for tool in &mut self.tools {
            if !tool.state.is_over() {
                tool.state = ToolState::Interrupted;
                ids.push(tool.id.clone());
            }
        }
        if ids.is_empty() {
            Vec::new()
        } else {
            vec![Change::Interrupted { ids }]
        }
    }

    fn called(&mut self, call: ToolCallEvent, changes: &mut Vec<Change>) {
        let id = call.tool_call_id.clone();
        if let Some(&i) = self.index.get(&id) {
            let known = &mut self.tools[i];
            if known.announced && !known.state.is_over() {
                // The same call told twice: nothing new.
                return;
            }
            if !known.announced {
                // Heard of before its call (an approval, a result): now it has its name.
                fill(known, call);
                self.after_call(id, changes);
                return;
            }
            // A finished call's id used again (models repeat ids): a new call; the old one
            // stays in the list as it was.
        }
        let mut tool = ToolView::unannounced(id.clone());
        fill(&mut tool, call);
        self.index.insert(id.clone(), self.tools.len());
        self.tools.push(tool);
        self.after_call(id, changes);
    }

    fn after_call(&mut self, id: ToolCallId, changes: &mut Vec<Change>) {
        // Text before a tool call is a line of its own: models rarely end it with a newline,
        // and the next step's text would be glued on.
        if !self.answer.is_empty() && !self.answer.ends_with('\n') {
            self.answer.push('\n');
        }
        let preamble = std::mem::take(&mut self.final_text);
        self.activity = Some(Activity::Tool(id.clone()));
        changes.push(Change::Called { id, preamble });
    }

    /// The call `id` names: the latest one of that id, or a new unannounced one.
    fn tool_entry(&mut self, id: &ToolCallId) -> &mut ToolView {
        let i = match self.index.get(id) {
            Some(&i) => i,
            None => {
                self.index.insert(id.clone(), self.tools.len());
                self.tools.push(ToolView::unannounced(id.clone()));
                self.tools.len() - 1
            }
        };
        &mut self.tools[i]
    }

    fn model_writes(&mut self, changes: &mut Vec<Change>) {
        if !self.writing {
            self.writing = true;
            self.activity = None;
            changes.push(Change::Writing { step: self.step() });
        }
    }

    fn close_pieces(&mut self, changes: &mut Vec<Change>) {
        let reasoning = std::mem::take(&mut self.open_reasoning);
        let text = std::mem::take(&mut self.open_text);
        if !reasoning.is_empty() || !text.is_empty() {
            changes.push(Change::Said { reasoning, text });
        }
    }

    /// A `TurnStarted` came.
    pub fn started(&self) -> bool {
        self.started
    }

    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// The files the prompt pointed at (absolute).
    pub fn context(&self) -> &[PathBuf] {
        &self.context
    }

    /// The answer so far: all the turn's text, the text before each tool call on lines of its
    /// own.
    pub fn answer(&self) -> &str {
        &self.answer
    }

    /// The text since the last tool call: the answer if the turn ends now.
    pub fn final_text(&self) -> &str {
        &self.final_text
    }

    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// The calls in the order they were made.
    pub fn tools(&self) -> &[ToolView] {
        &self.tools
    }

    /// The latest call with this id.
    pub fn tool(&self, id: &ToolCallId) -> Option<&ToolView> {
        self.index.get(id).map(|&i| &self.tools[i])
    }

    /// The calls whose question is open, in the order they were made.
    pub fn pending_approvals(&self) -> impl Iterator<Item = &ToolView> {
        self.tools.iter().filter(|t| t.state == ToolState::Asking)
    }

    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref()
    }

    pub fn usage(&self) -> &Usage {
        &self.usage
    }

    /// The model request under way, counting from 1: requests ended, plus the one whose answer
    /// is being written.
    pub fn step(&self) -> u32 {
        (self.usage.requests + u32::from(self.writing)).max(1)
    }

    /// The model is writing a request's answer.
    pub fn writing(&self) -> bool {
        self.writing
    }

    /// What the turn does now besides the model writing (the last call, a retry); cleared when
    /// the model writes again.
    pub fn activity(&self) -> Option<&Activity> {
        self.activity.as_ref()
    }

    /// Rules files given to the model in this turn, each once.
    pub fn rules(&self) -> &[RulesFile] {
        &self.rules
    }

    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// Actions the model asked for that were refused: at their approval, or by a rule that asked
    /// nobody (plan mode's, a subagent's grants), the turn's subagents' included (a refusal is
    /// one whoever asked: `tandem exec` exits 4 on it).
    pub fn rejected_actions(&self) -> u32 {
        let children: u32 = (self.subagents.iter())
            .map(|(_, s)| s.view.rejected_actions())
            .sum();
        self.rejected + children
    }

    pub fn end(&self) -> Option<&End> {
        self.end.as_ref()
    }
}

fn fill(tool: &mut ToolView, call: ToolCallEvent) {
    tool.announced = true;
    tool.name = call.name;
    tool.title = call.title;
    tool.kind = call.kind;
    tool.arguments = call.arguments;
    tool.location = call.location;
}

/// Drops the front of `text` (at a line start where possible) to keep it under about `max` bytes.
pub fn keep_tail(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let mut cut = tandem_stdx::ceil_char_boundary(text, text.len() - max);
    if let Some(nl) = text[cut..].find('\n') {
        cut += nl + 1;
    }
    text.replace_range(..cut, "[… earlier output not shown …]\n");
}
