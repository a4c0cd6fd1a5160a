//! Pure translations between the agent core's vocabulary and ACP's: prompts in, events, approvals
//! and stop reasons out. No I/O here, so all of it is unit-tested.

use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Diff, EmbeddedResourceResource, PermissionOption,
    PermissionOptionKind, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus,
    RequestPermissionOutcome, SessionId, SessionMode, SessionModeState, SessionUpdate,
    StopReason as AcpStopReason, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use serde_json::Value;

use tandem_agent::approval::{
    ApprovalAction, ApprovalKind, ApprovalReply, ApprovalRequest, Decision,
};
use tandem_agent::changes::{ChangedFile, Content};
use tandem_agent::events::{Event, Location, StopReason, ToolStatus, TurnErrorKind, retry_line};
use tandem_agent::mode::Mode;
use tandem_agent::plan::{self as core_plan, StepStatus};
use tandem_agent::prompt::{ContextItem, ContextKind, Position, Range};
use tandem_agent::view::{Change, ToolState, TurnView};
use tandem_agent::{SessionId as CoreSessionId, ToolCallId as CoreCallId};
use tandem_tools::{FileDiff, ToolKind as CoreKind};

/// The permission options offered for every approval, by id.
pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_ALWAYS: &str = "allow_always";
pub const REJECT_ONCE: &str = "reject_once";

/// The core's id of the session a request names.
pub fn session_id(id: &SessionId) -> CoreSessionId {
    CoreSessionId::from(&*id.0)
}

/// A session's modes as ACP offers them, `current` selected, each described with the tools it
/// offers (the agent's registry says which).
pub fn modes(agent: &tandem_agent::Agent, current: Mode) -> SessionModeState {
    SessionModeState::new(
        current.id(),
        Mode::ALL
            .into_iter()
            .map(|m| SessionMode::new(m.id(), m.name()).description(agent.mode_description(m)))
            .collect(),
    )
}

/// The model's plan as ACP's `plan` update: every step, in order (ACP has no field for the
/// explanation: it goes before, as a thought). The plan is small: the core bounds it.
pub fn plan_updates(plan: core_plan::Plan) -> Vec<SessionUpdate> {
    let mut updates = Vec::new();
    if let Some(explanation) = plan.explanation {
        updates.push(SessionUpdate::AgentThoughtChunk(chunk(format!(
            "{explanation}\n"
        ))));
    }
    let entries = plan
        .steps
        .into_iter()
        .map(|s| {
            let status = match s.status {
                StepStatus::Pending => PlanEntryStatus::Pending,
                StepStatus::InProgress => PlanEntryStatus::InProgress,
                StepStatus::Completed => PlanEntryStatus::Completed,
            };
            // Codex's plans have no priorities: every step is as important as its order says.
            PlanEntry::new(s.step, PlanEntryPriority::Medium, status)
        })
        .collect();
    updates.push(SessionUpdate::Plan(Plan::new(entries)));
    updates
}

/// ACP's kind (the client's icon) from the core's.
pub fn tool_kind(kind: CoreKind) -> ToolKind {
    match kind {
        CoreKind::Read => ToolKind::Read,
        CoreKind::Search => ToolKind::Search,
        CoreKind::Edit => ToolKind::Edit,
        CoreKind::Execute => ToolKind::Execute,
        CoreKind::Fetch => ToolKind::Fetch,
        CoreKind::Other => ToolKind::Other,
    }
}

/// Where a tool call works, as the core resolved it.
fn locations(location: Option<Location>) -> Vec<ToolCallLocation> {
    location
        .map(|l| vec![ToolCallLocation::new(l.path).line(l.line)])
        .unwrap_or_default()
}

/// A text as a Markdown code block, fenced longer than any run of backticks inside it.
pub fn fenced(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}\n{body}\n{fence}")
}

fn text_content(text: impl Into<String>) -> ToolCallContent {
    ToolCallContent::from(ContentBlock::from(text.into()))
}

fn chunk(text: String) -> ContentChunk {
    ContentChunk::new(ContentBlock::from(text))
}

/// A file the user's message linked, as a `resource_link` block.
fn link_chunk(path: &Path) -> ContentChunk {
    let uri = url::Url::from_file_path(path)
        .map(String::from)
        .unwrap_or_else(|()| format!("file://{}", path.display()));
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    ContentChunk::new(ContentBlock::ResourceLink(
        agent_client_protocol::v1::schema::ResourceLink::new(name, uri),
    ))
}

fn status_update(id: &CoreCallId, fields: ToolCallUpdateFields) -> SessionUpdate {
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id.to_string(), fields))
}

/// A call's changes get diffs for this many files at most; the rest are listed.
const MAX_DIFF_FILES: usize = 50;
/// And this many bytes of text in all (each side counts), so a command that rewrote a tree of
/// large files does not send all of it to the client.
const MAX_DIFF_BYTES: usize = 4 * 1024 * 1024;

/// One changed file as an ACP diff of its whole texts (`old_text` absent for a file the turn
/// created, `new_text` empty for one it deleted); `None` when a side is binary or too large, or
/// the texts would go over what is left of `budget`.
fn whole_diff(root: &Path, file: &ChangedFile, budget: &mut usize) -> Option<Diff> {
    let before = file.before.text()?;
    let after = file.after.text()?;
    let size = before.len() + after.len();
    if size > *budget {
        return None;
    }
    *budget -= size;
    let old = (file.before != Content::Absent).then(|| before.to_string());
    Some(Diff::new(root.join(&file.path), after.to_string()).old_text(old))
}

/// A changed file in a line: what happened, its path, its counts.
fn file_change_line(c: &tandem_agent::events::FileChange) -> String {
    use tandem_agent::events::FileChangeKind as K;
    let what = match &c.kind {
        K::Created => format!("created {}", c.path),
        K::Modified => format!("modified {}", c.path),
        K::Deleted => format!("deleted {}", c.path),
        K::Renamed { from } => format!("renamed {from} → {}", c.path),
        K::ModeChanged => format!("mode changed {}", c.path),
    };
    format!("{what} (+{} -{})", c.added, c.removed)
}

/// The before and after of an edit, one ACP diff per hunk: used when no approval carried the
/// whole texts (an auto-approved edit, or a replayed one).
pub fn hunk_diffs(root: &Path, diff: &FileDiff) -> Vec<Diff> {
    let path = root.join(&diff.display_path);
    diff.hunks
        .iter()
        .map(|hunk| {
            let old = (!diff.created).then(|| hunk.old_text.clone());
            Diff::new(path.clone(), hunk.new_text.clone()).old_text(old)
        })
        .collect()
}

/// Turns one session's events into `session/update`s. What ACP needs across events (a command's
/// output so far, since ACP replaces content; an edit's texts from its approval, since a
/// `ToolResult` carries only the unified diff; which calls are over) is in the turn's view.
#[derive(Debug)]
pub struct Translator {
    root: PathBuf,
    /// Replaying history: the user's prompts are shown too, and errors as text.
    replay: bool,
    view: TurnView,
    /// A call's changed files with their texts before the turn and now, as the face read them
    /// when the call reported its changes (none in a replay: its files are only listed).
    call_files: std::collections::HashMap<CoreCallId, Vec<ChangedFile>>,
}

impl Translator {
    pub fn new(root: PathBuf, replay: bool) -> Self {
        Self {
            root,
            replay,
            view: TurnView::new(),
            call_files: std::collections::HashMap::new(),
        }
    }

    /// The texts of the files call `id` changed, for the `diff` content its changes get.
    pub fn files_read(&mut self, id: CoreCallId, files: Vec<ChangedFile>) {
        self.call_files.insert(id, files);
    }

    /// A call's changed files: an ACP diff each (whole file, before the turn and now) while
    /// the texts are known and within the caps, else a line naming the file and its counts.
    fn files_content(&self, id: &CoreCallId) -> Vec<ToolCallContent> {
        let Some(tool) = self.view.tool(id) else {
            return Vec::new();
        };
        let read = self.call_files.get(id);
        let mut budget = MAX_DIFF_BYTES;
        let mut content = Vec::new();
        let mut listed = Vec::new();
        for (i, change) in tool.files_changed.iter().enumerate() {
            let diff = read
                .and_then(|files| files.iter().find(|f| f.path == change.path))
                .filter(|_| i < MAX_DIFF_FILES)
                .and_then(|file| whole_diff(&self.root, file, &mut budget));
            match diff {
                Some(diff) => content.push(diff.into()),
                None => listed.push(file_change_line(change)),
            }
        }
        if !listed.is_empty() {
            content.push(text_content(fenced(&listed.join("\n"))));
        }
        content
    }

    pub fn event(&mut self, event: Event) -> Vec<SessionUpdate> {
        let changes = self.view.event(event);
        self.updates(changes)
    }

    fn updates(&self, changes: Vec<Change>) -> Vec<SessionUpdate> {
        changes
            .into_iter()
            .flat_map(|change| self.update(change))
            .collect()
    }

    fn update(&self, change: Change) -> Vec<SessionUpdate> {
        let view = &self.view;
        match change {
            Change::Started if self.replay => {
                // The user's message as they sent it: the text, then each file it linked.
                let mut updates = vec![SessionUpdate::UserMessageChunk(chunk(
                    view.prompt().to_string(),
                ))];
                for path in view.context() {
                    updates.push(SessionUpdate::UserMessageChunk(link_chunk(path)));
                }
                updates
            }
            Change::Started
            | Change::Usage(_)
            | Change::Said { .. }
            | Change::Writing { .. }
            | Change::Refused { .. } => Vec::new(),
            // The permission request itself says it (see `approval`).
            Change::Asked { .. } => Vec::new(),
            // ACP has no update for these: the rules in effect as a thought, a notice as text.
            Change::Rules(files) => vec![SessionUpdate::AgentThoughtChunk(chunk(format!(
                "Rules files in effect: {}\n",
                files
                    .iter()
                    .map(|f| tandem_stdx::display_relative(&f.path, &self.root))
                    .collect::<Vec<_>>()
                    .join(", ")
            )))],
            Change::Compaction(c) => vec![SessionUpdate::AgentThoughtChunk(chunk(format!(
                "[context compacted to fit the {}-token window: {} tool outputs elided, {} \
                 messages summarized; about {} → {} tokens]\n",
                c.context_window, c.elided, c.summarized, c.tokens_before, c.tokens_after
            )))],
            Change::Notice(message) => {
                vec![SessionUpdate::AgentThoughtChunk(chunk(format!(
                    "[{message}]\n"
                )))]
            }
            Change::Retrying(retry) => vec![SessionUpdate::AgentThoughtChunk(chunk(format!(
                "[{}]\n",
                retry_line(&retry)
            )))],
            Change::Plan => view.plan().cloned().map(plan_updates).unwrap_or_default(),
            Change::Text(delta) => vec![SessionUpdate::AgentMessageChunk(chunk(delta))],
            Change::Reasoning(delta) => vec![SessionUpdate::AgentThoughtChunk(chunk(delta))],
            Change::Called { id, .. } => {
                let Some(tool) = view.tool(&id) else {
                    return Vec::new();
                };
                let kind = tool_kind(tool.kind);
                // Edits, commands, fetches and MCP tools wait for approval (or the policy) before
                // they run.
                let status = match (tool.state, kind) {
                    (ToolState::Running, _) => ToolCallStatus::InProgress,
                    (_, ToolKind::Edit | ToolKind::Execute | ToolKind::Fetch | ToolKind::Other) => {
                        ToolCallStatus::Pending
                    }
                    _ => ToolCallStatus::InProgress,
                };
                let call = ToolCall::new(id.to_string(), tool.title.clone())
                    .kind(kind)
                    .status(status)
                    .locations(locations(tool.location.clone()))
                    .raw_input(tool.arguments.clone());
                vec![SessionUpdate::ToolCall(call)]
            }
            Change::Output { id, .. } => {
                let Some(tool) = view.tool(&id) else {
                    return Vec::new();
                };
                let fields = ToolCallUpdateFields::new()
                    .status(ToolCallStatus::InProgress)
                    .content(vec![text_content(fenced(&tool.output))]);
                vec![status_update(&id, fields)]
            }
            // A command's changes as `diff` content while it is still running; its result
            // keeps them.
            Change::FilesChanged { id } => {
                let fields = ToolCallUpdateFields::new()
                    .status(ToolCallStatus::InProgress)
                    .content(self.files_content(&id));
                vec![status_update(&id, fields)]
            }
            // A subagent's calls are the progress of its `task` call: its content, replaced at
            // each call and result, lists them.
            Change::Subagent { parent, change, .. } => match *change {
                Change::Called { .. } | Change::Finished { .. } | Change::Interrupted { .. } => {
                    self.subagent_progress(&parent).into_iter().collect()
                }
                _ => Vec::new(),
            },
            Change::Finished { id } => self.result(&id).into_iter().collect(),
            Change::Allowed { id } => vec![status_update(
                &id,
                ToolCallUpdateFields::new().status(ToolCallStatus::InProgress),
            )],
            // Calls that never got a result (the sidecar stopped mid-turn) end as failed, so the
            // client doesn't show them running forever.
            Change::Interrupted { ids } => ids
                .iter()
                .map(|id| {
                    let fields = ToolCallUpdateFields::new()
                        .status(ToolCallStatus::Failed)
                        .content(vec![text_content(
                            "Interrupted: this tool call did not finish.",
                        )]);
                    status_update(id, fields)
                })
                .collect(),
            Change::Ended => {
                let Some(end) = view.end() else {
                    return Vec::new();
                };
                // A live failure answers `session/prompt` with an error; a cut answer answers it
                // with `max_tokens`, which says nothing of the fix, so the message goes here.
                let said_here = self.replay || end.error_kind == Some(TurnErrorKind::AnswerCut);
                match &end.error {
                    Some(error) if said_here => vec![SessionUpdate::AgentMessageChunk(chunk(
                        format!("\n\nError: {error}"),
                    ))],
                    _ => Vec::new(),
                }
            }
        }
    }

    /// The `task` call `parent` while its subagent works: in progress, its content the
    /// subagent's calls so far, one line each. Never once the call is over (a finished call is
    /// not reported running again).
    fn subagent_progress(&self, parent: &CoreCallId) -> Option<SessionUpdate> {
        if self.view.tool(parent)?.state.is_over() {
            return None;
        }
        let sub = self.view.subagent(parent)?;
        let lines: Vec<String> = (sub.view.tools().iter())
            .map(|t| {
                let mark = match t.state {
                    ToolState::Done(ToolStatus::Ok) => "✓",
                    ToolState::Done(_) | ToolState::Interrupted => "✗",
                    _ => "…",
                };
                format!("{mark} {}", t.title)
            })
            .collect();
        let text = format!("Subagent {}:\n{}", sub.agent, lines.join("\n"));
        let fields = ToolCallUpdateFields::new()
            .status(ToolCallStatus::InProgress)
            .content(vec![text_content(text)]);
        Some(status_update(parent, fields))
    }

    fn result(&self, id: &CoreCallId) -> Option<SessionUpdate> {
        let tool = self.view.tool(id)?;
        let result = tool.result.as_ref()?;
        let status = result.status;
        // An edit's whole before and after, from its approval request.
        let approved = match &tool.approval {
            Some(ApprovalAction::Edit(edit)) => Some(
                Diff::new(edit.path.clone(), edit.proposed.clone()).old_text(edit.original.clone()),
            ),
            _ => None,
        };
        let mut content: Vec<ToolCallContent> = match (approved, &result.diff) {
            // An applied edit, or a rejected one: show what it was.
            (Some(diff), _) if status != ToolStatus::Error => vec![diff.into()],
            (_, Some(file_diff)) if status == ToolStatus::Ok => hunk_diffs(&self.root, file_diff)
                .into_iter()
                .map(Into::into)
                .collect(),
            _ => Vec::new(),
        };
        // An applied edit's diff says it all; anything else shows its output.
        if content.is_empty() || status != ToolStatus::Ok {
            let shown = if status == ToolStatus::Ok {
                fenced(&result.output)
            } else {
                result.output.clone()
            };
            content.push(text_content(shown));
        }
        // A command's changed files first: ACP's content replaces what the call showed.
        let mut files = self.files_content(id);
        if !files.is_empty() {
            files.append(&mut content);
            content = files;
        }
        let acp_status = match status {
            ToolStatus::Ok => ToolCallStatus::Completed,
            ToolStatus::Error | ToolStatus::Rejected => ToolCallStatus::Failed,
        };
        let fields = ToolCallUpdateFields::new()
            .status(acp_status)
            .content(content)
            .raw_output(Value::String(result.output.clone()));
        Some(status_update(id, fields))
    }

    /// The tool call as the permission request shows it: an edit with its diff, a command with
    /// its command line. The view keeps the edit's texts for the call's result.
    pub fn approval(&mut self, request: &ApprovalRequest) -> ToolCallUpdate {
        self.view.approval_asked(request);
        let content = match &request.action {
            ApprovalAction::Edit(edit) => {
                let diff = Diff::new(edit.path.clone(), edit.proposed.clone())
                    .old_text(edit.original.clone());
                vec![diff.into()]
            }
            ApprovalAction::Command(command) => {
                let mut shown = fenced(&command.command);
                shown.push_str(&format!("\n\nin `{}`", command.cwd.display()));
                if command.outside_sandbox {
                    shown.push_str(", **outside the sandbox** (network, writes anywhere)");
                }
                if !command.reason.is_empty() {
                    shown.push_str(&format!("\n\nAsked because {}.", command.reason));
                }
                vec![text_content(shown)]
            }
            ApprovalAction::Mcp(call) => vec![text_content(format!(
                "MCP server `{}`, tool `{}`, with:\n{}",
                call.server,
                call.tool,
                fenced(&serde_json::to_string_pretty(&call.arguments).unwrap_or_default())
            ))],
            ApprovalAction::McpServer(server) => vec![text_content(match &server.why_not_always {
                None => format!(
                    "{} names the {} `{}`. {} it? It runs:\n{}",
                    server.source.display(),
                    server.subject.noun(),
                    server.server,
                    server.subject.verb(),
                    fenced(&server.target)
                ),
                Some(why) => format!(
                    "{} names the {} `{}`. {} it for this session? It runs:\n{}\n\
                     It can't be trusted for good, since {why}.",
                    server.source.display(),
                    server.subject.noun(),
                    server.server,
                    server.subject.verb(),
                    fenced(&server.target)
                ),
            })],
            ApprovalAction::Fetch(fetch) => vec![text_content(match &fetch.redirected_from {
                Some(from) => format!("Fetch {} (redirected from {from})?", fetch.url),
                None => format!("Fetch {}?", fetch.url),
            })],
        };
        let mut fields = ToolCallUpdateFields::new()
            .status(ToolCallStatus::Pending)
            .content(content);
        if let ApprovalAction::McpServer(server) = &request.action {
            // Not a call the model made: the client has not seen it yet.
            fields = fields
                .title(format!(
                    "{} {} `{}`?",
                    server.subject.verb(),
                    server.subject.noun(),
                    server.server
                ))
                .kind(ToolKind::Other);
        }
        let Some(asker) = &request.subagent else {
            return ToolCallUpdate::new(request.tool_call_id.to_string(), fields);
        };
        // A subagent's calls are only the progress of its `task` call, so the client has not
        // seen this one: the title says which subagent asks and for what, and `_meta` names
        // the `task` call.
        let doing = (self.view.subagent(&asker.parent))
            .and_then(|sub| sub.view.tool(&request.tool_call_id))
            .map(|tool| tool.title.clone());
        let title = match doing {
            Some(doing) => format!("Subagent {} asks: {doing}", asker.agent),
            None => format!("Subagent {} asks", asker.agent),
        };
        let mut meta = serde_json::Map::new();
        meta.insert(
            "tandem".into(),
            serde_json::json!({"subagent": {"parentId": asker.parent, "agent": asker.agent}}),
        );
        ToolCallUpdate::new(request.tool_call_id.to_string(), fields.title(title)).meta(meta)
    }

    /// The user allowed the call: it runs now. `None` when the call is already over (the
    /// answer came after the turn was cancelled): a finished call never goes back to running.
    pub fn allowed(&mut self, tool_call_id: &CoreCallId) -> Option<SessionUpdate> {
        let changes = self.view.approval_decided(tool_call_id, Decision::Accept);
        self.updates(changes).into_iter().next()
    }

    /// Calls that never got a result (the history stopped mid-turn) end as failed.
    pub fn close_open(&mut self) -> Vec<SessionUpdate> {
        let changes = self.view.close_open();
        self.updates(changes)
    }
}

/// The options of every permission request. "Always" lasts for the session and the kind (edits
/// or commands), as the core keeps it.
/// A fetch has no "always": each host is asked about (the core would take it as once anyway);
/// nor has a project's MCP server whose trust can't be bound to what runs (the question says
/// why).
pub fn permission_options(request: &ApprovalRequest) -> Vec<PermissionOption> {
    let command_rules = match &request.action {
        ApprovalAction::Command(c) => c
            .always
            .iter()
            .map(|r| format!("`{r}`"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    };
    let always = match request.kind() {
        ApprovalKind::McpServer if matches!(&request.action, ApprovalAction::McpServer(s) if s.why_not_always.is_some()) => {
            None
        }
        // A command's "always" adds rules; with none to add it is not offered.
        ApprovalKind::Command if command_rules.is_empty() => None,
        ApprovalKind::Edit => Some("Always allow edits in this session".to_string()),
        ApprovalKind::Command => Some(format!(
            "Always allow {command_rules} (any further words but options that load code; saved \
             in your config)"
        )),
        ApprovalKind::Mcp => Some("Always allow this MCP tool in this session".to_string()),
        ApprovalKind::McpServer => Some("Always trust this server in this project".to_string()),
        ApprovalKind::Fetch => None,
    };
    let mut options = vec![PermissionOption::new(
        ALLOW_ONCE,
        "Allow",
        PermissionOptionKind::AllowOnce,
    )];
    if let Some(always) = always {
        options.push(PermissionOption::new(
            ALLOW_ALWAYS,
            always,
            PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(PermissionOption::new(
        REJECT_ONCE,
        "Reject",
        PermissionOptionKind::RejectOnce,
    ));
    options
}

/// The user's answer as the core takes it. A cancelled request (the prompt was cancelled) or an
/// option we did not offer is a rejection.
pub fn decision(outcome: &RequestPermissionOutcome) -> ApprovalReply {
    let decision = match outcome {
        RequestPermissionOutcome::Selected(selected) => match &*selected.option_id.0 {
            ALLOW_ONCE => Decision::Accept,
            ALLOW_ALWAYS => Decision::AcceptAlways,
            _ => Decision::Reject,
        },
        _ => Decision::Reject,
    };
    ApprovalReply {
        decision,
        content: None,
        feedback: None,
        rejected_hunks: Vec::new(),
    }
}

/// How a finished turn answers `session/prompt`: a stop reason, or the error's message.
pub fn stop_reason(
    reason: StopReason,
    error: Option<String>,
    kind: Option<TurnErrorKind>,
) -> Result<AcpStopReason, String> {
    match reason {
        StopReason::EndTurn => Ok(AcpStopReason::EndTurn),
        StopReason::Cancelled => Ok(AcpStopReason::Cancelled),
        StopReason::MaxSteps => Ok(AcpStopReason::MaxTurnRequests),
        StopReason::Error if kind == Some(TurnErrorKind::AnswerCut) => Ok(AcpStopReason::MaxTokens),
        StopReason::Error => Err(error.unwrap_or_else(|| "the turn failed".to_string())),
    }
}

/// A prompt's content blocks as the core's text and context. The text is the text blocks as
/// they are; a mentioned file or selection becomes a context item (with its text when the client
/// embedded it, so unsaved changes are what the model sees), never text glued onto the prompt.
/// Images go after the text, each checked (kind by its bytes, size); audio is refused: the agent
/// does not advertise it.
pub fn prompt_input(
    blocks: Vec<ContentBlock>,
    root: &Path,
) -> Result<(String, Vec<ContextItem>, Vec<tandem_model::Image>), String> {
    let mut images = Vec::new();
    let mut text = String::new();
    let mut context: Vec<ContextItem> = Vec::new();
    let mut attach = |item: ContextItem| {
        if !context
            .iter()
            .any(|c| c.path == item.path && c.range == item.range)
        {
            context.push(item);
        }
    };
    for block in blocks {
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            ContentBlock::ResourceLink(link) => match file_uri(&link.uri) {
                Some((path, range)) => attach(ContextItem {
                    kind: ContextKind::File,
                    path: display_path(&path, root),
                    text: None,
                    range,
                }),
                None => text.push_str(&format!("\n\n[link: {}]", link.uri)),
            },
            ContentBlock::Resource(resource) => match resource.resource {
                EmbeddedResourceResource::TextResourceContents(contents) => {
                    match file_uri(&contents.uri) {
                        // The client sent the text it means (a selection, or the buffer).
                        Some((path, _)) => attach(ContextItem {
                            kind: ContextKind::File,
                            path: display_path(&path, root),
                            text: Some(contents.text),
                            range: None,
                        }),
                        None => {
                            text.push_str(&format!(
                                "\n\n<resource uri=\"{}\">\n{}\n</resource>\n",
                                contents.uri, contents.text
                            ));
                        }
                    }
                }
                EmbeddedResourceResource::BlobResourceContents(blob) => {
                    return Err(format!(
                        "the prompt embeds binary data ({}); Tandem takes text only",
                        blob.uri
                    ));
                }
                _ => {}
            },
            ContentBlock::Image(image) => {
                let label = format!("image {}", images.len() + 1);
                images.push(
                    tandem_agent::images::from_base64(&label, &image.mime_type, &image.data)
                        .map_err(|e| e.0)?,
                );
            }
            ContentBlock::Audio(_) => {
                return Err("the prompt has audio, and Tandem does not take audio \
                            (promptCapabilities.audio is false)"
                    .to_string());
            }
            _ => {}
        }
    }
    if text.trim().is_empty() && !context.is_empty() {
        let names: Vec<&str> = context.iter().map(|c| c.path.as_str()).collect();
        text = format!("(attached: {})", names.join(", "));
    }
    Ok((text, context, images))
}

/// Relative to the root when inside it (what the model and the user read), else absolute.
fn display_path(path: &Path, root: &Path) -> String {
    tandem_stdx::display_relative(path, root)
}

/// A local `file://` URI as a path, with the lines of a `#L10:20` / `#L10-20` fragment
/// (one-based, inclusive, as Zed writes them for selections).
pub fn file_uri(uri: &str) -> Option<(PathBuf, Option<Range>)> {
    let url = url::Url::parse(uri).ok()?;
    if url.scheme() != "file" {
        return None;
    }
    // `file://host/path` names another machine; only a local file is a path here.
    if url
        .host_str()
        .is_some_and(|h| !h.is_empty() && h != "localhost")
    {
        return None;
    }
    let path = url.to_file_path().ok()?;
    Some((path, url.fragment().and_then(line_range)))
}

fn line_range(fragment: &str) -> Option<Range> {
    let lines = fragment.strip_prefix('L')?;
    let (start, end) = lines
        .split_once([':', '-'])
        .map_or((lines, lines), |(a, b)| (a, b.trim_start_matches('L')));
    let start: u32 = start.parse().ok()?;
    let end: u32 = end.parse().ok()?;
    if start == 0 || end < start {
        return None;
    }
    Some(Range {
        start: Position {
            line: start - 1,
            character: 0,
        },
        // End-exclusive: the line after the last one, at its start.
        end: Position {
            line: end,
            character: 0,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{
        EmbeddedResource, ResourceLink, SelectedPermissionOutcome, TextResourceContents,
    };
    use serde_json::json;
    use tandem_agent::events::ToolCallEvent;

    fn wire(update: &SessionUpdate) -> Value {
        serde_json::to_value(update).unwrap()
    }

    /// A tool call as the core reports it, kind and location worked out as the turn does.
    fn call(id: &str, name: &str, arguments: serde_json::Value, title: &str) -> Event {
        let info = tandem_tools::describe(name, &arguments.to_string());
        Event::ToolCall(ToolCallEvent {
            tool_call_id: id.into(),
            name: name.into(),
            arguments,
            title: title.into(),
            kind: info.kind,
            location: info.target.map(|t| Location {
                path: Path::new("/ws").join(t.path),
                line: t.line,
            }),
        })
    }

    fn edit_request(path: &str, original: Option<&str>, proposed: &str) -> ApprovalRequest {
        ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "e".into(),
            subagent: None,
            action: ApprovalAction::Edit(tandem_agent::approval::EditApproval {
                path: Path::new("/ws").join(path),
                original: original.map(str::to_string),
                proposed: proposed.into(),
                diff: FileDiff::new(path, original, proposed),
            }),
        }
    }

    #[test]
    fn kinds_come_from_the_core() {
        assert_eq!(tool_kind(CoreKind::Read), ToolKind::Read);
        assert_eq!(tool_kind(CoreKind::Search), ToolKind::Search);
        assert_eq!(tool_kind(CoreKind::Edit), ToolKind::Edit);
        assert_eq!(tool_kind(CoreKind::Execute), ToolKind::Execute);
        assert_eq!(tool_kind(CoreKind::Fetch), ToolKind::Fetch);
        assert_eq!(tool_kind(CoreKind::Other), ToolKind::Other);
    }

    #[test]
    fn tool_call_has_kind_status_input_and_absolute_location() {
        let mut t = Translator::new("/ws".into(), false);
        let updates = t.event(call(
            "c1",
            "replace_in_file",
            json!({"path": "src/a.rs", "diff": "x"}),
            "Edit src/a.rs",
        ));
        assert_eq!(
            wire(&updates[0]),
            json!({
                "sessionUpdate": "tool_call",
                "toolCallId": "c1",
                "title": "Edit src/a.rs",
                "kind": "edit",
                // Pending is ACP's default, so it goes without saying.
                "locations": [{"path": "/ws/src/a.rs"}],
                "rawInput": {"path": "src/a.rs", "diff": "x"},
            })
        );
        let read = t.event(call(
            "c2",
            "read_file",
            json!({"path": "a", "offset": 20}),
            "Read a",
        ));
        let read = wire(&read[0]);
        assert_eq!(read["status"], "in_progress");
        assert_eq!(read["locations"], json!([{"path": "/ws/a", "line": 20}]));
    }

    #[test]
    fn a_subagents_calls_are_the_progress_of_its_task_call() {
        let mut t = Translator::new("/ws".into(), false);
        t.event(call(
            "k",
            "task",
            json!({"description": "find"}),
            "explore: find",
        ));
        let sub = |event: Event| Event::Subagent {
            parent: "k".into(),
            agent: "explore".into(),
            event: Box::new(event),
        };
        // The subagent's own ids may repeat the parent's.
        let called = t.event(sub(call(
            "k",
            "read_file",
            json!({"path": "a.rs"}),
            "Read a.rs",
        )));
        let called = wire(&called[0]);
        assert_eq!(called["sessionUpdate"], "tool_call_update");
        assert_eq!(called["toolCallId"], "k");
        assert_eq!(called["status"], "in_progress");
        assert_eq!(
            called["content"][0]["content"]["text"],
            "Subagent explore:\n… Read a.rs"
        );
        let read = t.event(sub(Event::ToolResult {
            tool_call_id: "k".into(),
            status: ToolStatus::Ok,
            output: "fn alpha".into(),
            diff: None,
            error_kind: None,
        }));
        assert_eq!(
            wire(&read[0])["content"][0]["content"]["text"],
            "Subagent explore:\n✓ Read a.rs"
        );
        // Its text is no message of the parent's.
        assert!(
            t.event(sub(Event::Text {
                delta: "alpha".into()
            }))
            .is_empty()
        );
        let done = t.event(Event::ToolResult {
            tool_call_id: "k".into(),
            status: ToolStatus::Ok,
            output: "alpha is at a.rs:1".into(),
            diff: None,
            error_kind: None,
        });
        assert_eq!(wire(&done[0])["status"], "completed");
        // A late event of the subagent never reopens the finished call.
        let late = t.event(sub(call("k2", "list_files", json!({}), "List")));
        assert!(late.is_empty(), "{late:?}");
    }

    #[test]
    fn a_subagents_permission_request_names_it() {
        let mut t = Translator::new("/ws".into(), false);
        t.event(call("k", "task", json!({}), "explore: find"));
        t.event(Event::Subagent {
            parent: "k".into(),
            agent: "explore".into(),
            event: Box::new(call(
                "k/call_0",
                "fetch_url",
                json!({"url": "https://example.com/"}),
                "Fetch https://example.com/",
            )),
        });
        let request = ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "k/call_0".into(),
            subagent: Some(tandem_agent::approval::AskingSubagent {
                parent: "k".into(),
                agent: "explore".into(),
            }),
            action: ApprovalAction::Fetch(tandem_agent::approval::FetchApproval {
                url: "https://example.com/".into(),
                redirected_from: None,
            }),
        };
        let asked = serde_json::to_value(t.approval(&request)).unwrap();
        assert_eq!(asked["toolCallId"], "k/call_0");
        assert_eq!(
            asked["title"],
            "Subagent explore asks: Fetch https://example.com/"
        );
        assert_eq!(
            asked["_meta"]["tandem"]["subagent"],
            json!({"parentId": "k", "agent": "explore"})
        );
        // The main agent's own question has neither.
        let own = ApprovalRequest {
            tool_call_id: "f".into(),
            subagent: None,
            ..request
        };
        t.event(call("f", "fetch_url", json!({}), "Fetch"));
        let asked = serde_json::to_value(t.approval(&own)).unwrap();
        assert!(
            asked.get("title").is_none() && asked.get("_meta").is_none(),
            "{asked}"
        );
    }

    #[test]
    fn command_output_accumulates_then_completes() {
        let mut t = Translator::new("/ws".into(), false);
        t.event(call(
            "c",
            "execute_command",
            json!({"command": "make"}),
            "Run make",
        ));
        t.event(Event::ToolOutput {
            tool_call_id: "c".into(),
            delta: "one\n".into(),
        });
        let second = t.event(Event::ToolOutput {
            tool_call_id: "c".into(),
            delta: "two\n".into(),
        });
        let second = wire(&second[0]);
        assert_eq!(second["sessionUpdate"], "tool_call_update");
        assert_eq!(second["status"], "in_progress");
        assert_eq!(
            second["content"][0]["content"]["text"],
            "```\none\ntwo\n```"
        );
        let done = t.event(Event::ToolResult {
            tool_call_id: "c".into(),
            status: ToolStatus::Error,
            output: "one\ntwo\n[exit code 2]".into(),
            diff: None,
            error_kind: None,
        });
        let done = wire(&done[0]);
        assert_eq!(done["status"], "failed");
        assert_eq!(
            done["content"][0]["content"]["text"],
            "one\ntwo\n[exit code 2]"
        );
        // Nothing is left open at the end of the turn.
        assert!(t.close_open().is_empty());
    }

    /// A command's changes: a whole-file diff each while it runs and in its result, the texts as
    /// they are (the model wrote them: escapes and a fake diff header are data in a JSON string);
    /// a file over the cap, a binary one or one without texts (a replay) only listed, fenced.
    #[test]
    fn a_commands_changed_files_become_diff_content_capped() {
        use tandem_agent::changes::{ChangedKind, MAX_SIDE_BYTES};
        use tandem_agent::events::{FileChange, FileChangeKind as K};
        let mut t = Translator::new("/ws".into(), false);
        t.event(call(
            "c",
            "execute_command",
            json!({"command": "sed -i s/a/b/ *"}),
            "Run sed",
        ));
        let hostile = "\x1b]0;owned\x07--- a/x\n+++ b/x\n@@ -1 +1 @@\n";
        let change = |path: &str, kind, added, removed| FileChange {
            path: path.into(),
            kind,
            added,
            removed,
        };
        t.files_read(
            "c".into(),
            vec![
                ChangedFile {
                    path: "a.txt".into(),
                    kind: ChangedKind::Modified,
                    by: None,
                    before: Content::Text("a\n".into()),
                    after: Content::Text(hostile.into()),
                },
                ChangedFile {
                    path: "new.txt".into(),
                    kind: ChangedKind::Created,
                    by: None,
                    before: Content::Absent,
                    after: Content::Text("n\n".into()),
                },
                ChangedFile {
                    path: "big.log".into(),
                    kind: ChangedKind::Modified,
                    by: None,
                    before: Content::Text("x".into()),
                    after: Content::TooLarge {
                        bytes: 10 * MAX_SIDE_BYTES,
                    },
                },
            ],
        );
        let changes = vec![
            change("a.txt", K::Modified, 4, 1),
            change("big.log", K::Modified, 9, 0),
            change("new.txt", K::Created, 1, 0),
            change("``` gone.txt", K::Deleted, 0, 2),
        ];
        let shown = t.event(Event::FilesChanged {
            tool_call_id: "c".into(),
            changes: changes.clone(),
        });
        let shown = wire(&shown[0]);
        assert_eq!(shown["status"], "in_progress");
        let content = shown["content"].as_array().unwrap();
        assert_eq!(content.len(), 3, "{content:#?}");
        assert_eq!(
            content[0],
            json!({"type": "diff", "path": "/ws/a.txt", "oldText": "a\n", "newText": hostile})
        );
        assert_eq!(
            content[1],
            json!({"type": "diff", "path": "/ws/new.txt", "newText": "n\n"})
        );
        // The big file and the one without texts: listed inside a fence the name can't close.
        let listed = content[2]["content"]["text"].as_str().unwrap();
        assert_eq!(
            listed,
            "````\nmodified big.log (+9 -0)\ndeleted ``` gone.txt (+0 -2)\n````"
        );

        let done = t.event(Event::ToolResult {
            tool_call_id: "c".into(),
            status: ToolStatus::Ok,
            output: "[exit code 0]".into(),
            diff: None,
            error_kind: None,
        });
        let done = wire(&done[0]);
        assert_eq!(done["status"], "completed");
        let content = done["content"].as_array().unwrap();
        assert_eq!(content.len(), 4, "the files, then the output: {content:#?}");
        assert_eq!(content[0]["type"], "diff");
        assert_eq!(content[3]["content"]["text"], "```\n[exit code 0]\n```");

        // A replay has no texts: the files are listed.
        let mut replay = Translator::new("/ws".into(), true);
        replay.event(call(
            "c",
            "execute_command",
            json!({"command": "x"}),
            "Run x",
        ));
        let listed = replay.event(Event::FilesChanged {
            tool_call_id: "c".into(),
            changes,
        });
        let listed = wire(&listed[0]);
        assert_eq!(listed["content"].as_array().unwrap().len(), 1);
        assert!(
            listed["content"][0]["content"]["text"]
                .as_str()
                .unwrap()
                .contains("modified a.txt (+4 -1)")
        );
    }

    #[test]
    fn edit_result_carries_the_approved_texts_as_a_diff() {
        let mut t = Translator::new("/ws".into(), false);
        t.event(call(
            "e",
            "write_to_file",
            json!({"path": "a.txt"}),
            "Write a.txt",
        ));
        let request = edit_request("a.txt", Some("old\n"), "new\n");
        let asked = serde_json::to_value(t.approval(&request)).unwrap();
        let diff =
            json!({"type": "diff", "path": "/ws/a.txt", "oldText": "old\n", "newText": "new\n"});
        assert_eq!(asked["content"], json!([diff.clone()]));
        assert_eq!(asked["status"], "pending");
        assert_eq!(
            wire(&t.allowed(&"e".into()).unwrap())["status"],
            "in_progress"
        );
        let done = t.event(Event::ToolResult {
            tool_call_id: "e".into(),
            status: ToolStatus::Ok,
            output: "Applied the edit to a.txt (+1 -1).".into(),
            diff: Some(FileDiff::new("a.txt", Some("old\n"), "new\n")),
            error_kind: None,
        });
        let done = wire(&done[0]);
        assert_eq!(done["status"], "completed");
        assert_eq!(done["content"], json!([diff]));
    }

    #[test]
    fn rejected_edit_fails_with_the_message_and_keeps_the_diff() {
        let mut t = Translator::new("/ws".into(), false);
        let request = edit_request("new.txt", None, "hi\n");
        t.approval(&request);
        let done = t.event(Event::ToolResult {
            tool_call_id: "e".into(),
            status: ToolStatus::Rejected,
            output: "The user rejected this edit.".into(),
            diff: None,
            error_kind: None,
        });
        let done = wire(&done[0]);
        assert_eq!(done["status"], "failed");
        assert_eq!(done["content"][0]["type"], "diff");
        assert!(done["content"][0].get("oldText").is_none());
        assert_eq!(
            done["content"][1]["content"]["text"],
            "The user rejected this edit."
        );
        // An answer that comes after the call ended (a cancelled turn) never reopens it.
        assert!(t.allowed(&"e".into()).is_none());
        assert!(t.allowed(&"never-seen".into()).is_none());
    }

    #[test]
    fn an_auto_approved_edit_shows_one_diff_per_hunk() {
        let old: String = (1..=12).map(|i| format!("{i}\n")).collect();
        let new = old.replacen("2\n", "X\n", 1) + "13\n";
        let diffs = hunk_diffs(
            Path::new("/ws"),
            &FileDiff::new("src/a.rs", Some(&old), &new),
        );
        assert_eq!(diffs.len(), 2);
        assert_eq!(diffs[0].path, PathBuf::from("/ws/src/a.rs"));
        assert_eq!(diffs[0].old_text.as_deref(), Some("1\n2\n3\n4\n5\n"));
        assert_eq!(diffs[0].new_text, "1\nX\n3\n4\n5\n");
        assert_eq!(diffs[1].new_text, "10\n11\n12\n13\n");
        let created = hunk_diffs(Path::new("/ws"), &FileDiff::new("n.txt", None, "hi\n"));
        assert_eq!(created[0].old_text, None);
        assert_eq!(created[0].new_text, "hi\n");
    }

    #[test]
    fn replay_shows_prompts_errors_and_closes_interrupted_calls() {
        let mut t = Translator::new("/ws".into(), true);
        let prompt = t.event(Event::TurnStarted {
            prompt: "fix it".into(),
            context: vec!["/ws/a.py".into()],
        });
        assert_eq!(
            wire(&prompt[0]),
            json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "fix it"}})
        );
        assert_eq!(
            wire(&prompt[1])["content"],
            json!({"type": "resource_link", "uri": "file:///ws/a.py", "name": "a.py"})
        );
        t.event(call("c", "read_file", json!({"path": "a"}), "Read a"));
        let end = t.event(Event::TurnEnded {
            stop_reason: StopReason::Error,
            error: Some("boom".into()),
            error_kind: None,
        });
        assert_eq!(wire(&end[0])["status"], "failed");
        assert_eq!(wire(&end[1])["content"]["text"], "\n\nError: boom");
        // Live, the prompt is the client's own and is not echoed.
        let mut live = Translator::new("/ws".into(), false);
        assert!(
            live.event(Event::TurnStarted {
                prompt: "x".into(),
                context: Vec::new()
            })
            .is_empty()
        );
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fenced("a\n"), "```\na\n```");
        assert_eq!(fenced("x ```` y"), "`````\nx ```` y\n`````");
    }

    #[test]
    fn permission_outcomes() {
        let selected = |id: &str| {
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id.to_string()))
        };
        assert_eq!(decision(&selected(ALLOW_ONCE)).decision, Decision::Accept);
        assert_eq!(
            decision(&selected(ALLOW_ALWAYS)).decision,
            Decision::AcceptAlways
        );
        assert_eq!(decision(&selected(REJECT_ONCE)).decision, Decision::Reject);
        assert_eq!(decision(&selected("bogus")).decision, Decision::Reject);
        assert_eq!(
            decision(&RequestPermissionOutcome::Cancelled).decision,
            Decision::Reject
        );
        let request = |action: ApprovalAction| ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "c".into(),
            subagent: None,
            action,
        };
        let ids = |r: &ApprovalRequest| -> Vec<String> {
            permission_options(r)
                .iter()
                .map(|o| o.option_id.0.to_string())
                .collect()
        };
        let command = request(ApprovalAction::Command(
            tandem_agent::approval::CommandApproval {
                command: "make".into(),
                outside_sandbox: false,
                cwd: PathBuf::from("/ws"),
                display_cwd: ".".into(),
                reason: "`make`: no rule admits this command".into(),
                always: vec!["make".into()],
            },
        ));
        let always = &permission_options(&command)[1];
        assert_eq!(&*always.option_id.0, ALLOW_ALWAYS);
        assert_eq!(
            always.name,
            "Always allow `make` (any further words but options that load code; saved in your config)"
        );
        let mut no_rule = command.clone();
        if let ApprovalAction::Command(c) = &mut no_rule.action {
            c.always.clear();
        }
        assert_eq!(ids(&no_rule), [ALLOW_ONCE, REJECT_ONCE]);
        // A fetch is asked about host by host: no "always", so no second "Allow" either.
        let fetch = request(ApprovalAction::Fetch(
            tandem_agent::approval::FetchApproval {
                url: "https://x".into(),
                redirected_from: None,
            },
        ));
        assert_eq!(ids(&fetch), [ALLOW_ONCE, REJECT_ONCE]);
        // A project's server whose trust can't be bound: no "always", and the question says why.
        let server = |why: Option<&str>| {
            request(ApprovalAction::McpServer(
                tandem_agent::approval::McpServerApproval {
                    subject: Default::default(),
                    server: "dot".into(),
                    target: "node .".into(),
                    source: PathBuf::from("/ws/.tandem/config.toml"),
                    why_not_always: why.map(str::to_string),
                },
            ))
        };
        assert_eq!(ids(&server(None)), [ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE]);
        let unbound = server(Some("its command line names the workspace itself (`.`)"));
        assert_eq!(ids(&unbound), [ALLOW_ONCE, REJECT_ONCE]);
        let shown = wire(&SessionUpdate::ToolCallUpdate(
            Translator::new("/ws".into(), false).approval(&unbound),
        ));
        assert!(
            shown.to_string().contains(
                "can't be trusted for good, since its command line names the workspace itself"
            ),
            "{shown}"
        );
        // A project's hook: the same question, saying what it is and what it runs.
        let hook = request(ApprovalAction::McpServer(
            tandem_agent::approval::McpServerApproval {
                subject: tandem_agent::approval::TrustSubject::Hook,
                server: "PreToolUse Bash".into(),
                target: "sh .tandem/check.sh".into(),
                source: PathBuf::from("/ws/.tandem/config.toml"),
                why_not_always: None,
            },
        ));
        assert_eq!(ids(&hook), [ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE]);
        let shown = wire(&SessionUpdate::ToolCallUpdate(
            Translator::new("/ws".into(), false).approval(&hook),
        ))
        .to_string();
        assert!(shown.contains("Run hook `PreToolUse Bash`?"), "{shown}");
        assert!(
            shown.contains("names the hook `PreToolUse Bash`. Run it?"),
            "{shown}"
        );
        assert!(shown.contains("sh .tandem/check.sh"), "{shown}");
    }

    #[test]
    fn stop_reasons() {
        assert_eq!(
            stop_reason(StopReason::EndTurn, None, None),
            Ok(AcpStopReason::EndTurn)
        );
        assert_eq!(
            stop_reason(StopReason::Cancelled, None, None),
            Ok(AcpStopReason::Cancelled)
        );
        assert_eq!(
            stop_reason(StopReason::MaxSteps, None, None),
            Ok(AcpStopReason::MaxTurnRequests)
        );
        assert_eq!(
            stop_reason(
                StopReason::Error,
                Some("rate limited".into()),
                Some(TurnErrorKind::Other)
            ),
            Err("rate limited".into())
        );
        // A cut answer is ACP's own stop reason; its message went out as a chunk before.
        assert_eq!(
            stop_reason(
                StopReason::Error,
                Some("the answer was cut at 512 tokens".into()),
                Some(TurnErrorKind::AnswerCut)
            ),
            Ok(AcpStopReason::MaxTokens)
        );
    }

    #[test]
    fn prompt_blocks_become_text_and_context() {
        let blocks = vec![
            ContentBlock::from("Explain "),
            ContentBlock::ResourceLink(ResourceLink::new("a.rs", "file:///ws/src/my%20a.rs#L3:5")),
            ContentBlock::from(" and "),
            ContentBlock::Resource(EmbeddedResource::new(
                EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                    "unsaved text",
                    "file:///ws/b.rs",
                )),
            )),
        ];
        let (text, context, _) = prompt_input(blocks, Path::new("/ws")).unwrap();
        assert_eq!(text, "Explain  and ");
        assert_eq!(context.len(), 2);
        assert_eq!(context[0].path, "src/my a.rs");
        let range = context[0].range.unwrap();
        assert_eq!((range.start.line, range.end.line), (2, 5));
        assert_eq!(context[1].path, "b.rs");
        assert_eq!(context[1].text.as_deref(), Some("unsaved text"));
    }

    #[test]
    fn file_uris() {
        assert_eq!(
            file_uri("file:///tmp/x.rs").map(|(p, _)| p),
            Some(PathBuf::from("/tmp/x.rs"))
        );
        assert_eq!(file_uri("https://example.com/x"), None);
        assert_eq!(file_uri("file://server/share/x"), None);
        let (_, range) = file_uri("file:///a#L7").unwrap();
        let range = range.unwrap();
        assert_eq!((range.start.line, range.end.line), (6, 7));
        assert!(file_uri("file:///a#L0:2").unwrap().1.is_none());
        assert_eq!(
            file_uri("file:///ws/my%20a.rs").map(|(p, _)| p),
            Some(PathBuf::from("/ws/my a.rs"))
        );
    }

    #[test]
    fn links_are_context_not_text_and_images_are_refused() {
        // Zed sends the link and an embedded copy of the same file: one context item, and the
        // prompt text stays what the user typed.
        let blocks = vec![
            ContentBlock::from("explain the code"),
            ContentBlock::ResourceLink(ResourceLink::new("hello.py", "file:///ws/hello.py")),
            ContentBlock::ResourceLink(ResourceLink::new("hello.py", "file:///ws/hello.py")),
        ];
        let (text, context, _) = prompt_input(blocks, Path::new("/ws")).unwrap();
        assert_eq!(text, "explain the code");
        assert_eq!(context.len(), 1);
        let only_link = vec![ContentBlock::ResourceLink(ResourceLink::new(
            "a.rs",
            "file:///ws/a.rs",
        ))];
        assert_eq!(
            prompt_input(only_link, Path::new("/ws")).unwrap().0,
            "(attached: a.rs)"
        );
        // Bytes that are no image are refused, whatever the declared type.
        let image = vec![ContentBlock::Image(
            agent_client_protocol::v1::schema::ImageContent::new("AAAA", "image/png"),
        )];
        let refused = prompt_input(image, Path::new("/ws")).unwrap_err();
        assert!(refused.contains("image 1 is not a PNG"), "{refused}");
        // A 1x1 GIF is taken, after the text.
        let gif = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";
        let blocks = vec![
            ContentBlock::from("what is this?"),
            ContentBlock::Image(agent_client_protocol::v1::schema::ImageContent::new(
                gif,
                "image/gif",
            )),
        ];
        let (text, _, images) = prompt_input(blocks, Path::new("/ws")).unwrap();
        assert_eq!(text, "what is this?");
        assert_eq!(
            (images[0].kind, images[0].width, images[0].height),
            (tandem_model::ImageType::Gif, 1, 1)
        );
    }
}
