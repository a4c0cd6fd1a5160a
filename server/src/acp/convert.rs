//! Pure translations between the agent core's vocabulary and ACP's: prompts in, events, approvals
//! and stop reasons out. No I/O here, so all of it is unit-tested.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Diff, EmbeddedResourceResource, PermissionOption,
    PermissionOptionKind, RequestPermissionOutcome, SessionUpdate, StopReason as AcpStopReason,
    ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind,
};
use serde_json::Value;

use crate::agent::approval::{ApprovalKind, ApprovalReply, ApprovalRequest, Decision};
use crate::agent::events::{Event, StopReason, ToolStatus};
use crate::agent::prompt::{ContextItem, Position, Range};

/// The permission options offered for every approval, by id.
pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_ALWAYS: &str = "allow_always";
pub const REJECT_ONCE: &str = "reject_once";

/// The most of a running command's output repeated in each update: ACP replaces a tool call's
/// content on every update, so without a bound a chatty command would cost quadratic bytes.
const MAX_SHOWN_OUTPUT: usize = 64 * 1024;

/// ACP's kind (the client's icon) from our tool's name.
pub fn tool_kind(name: &str) -> ToolKind {
    let name = name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| name.contains(w));
    if has(&["write", "edit", "replace", "patch", "create_file"]) {
        ToolKind::Edit
    } else if has(&["exec", "command", "shell", "bash", "run"]) {
        ToolKind::Execute
    } else if has(&["fetch", "http", "web", "url"]) {
        ToolKind::Fetch
    } else if has(&["search", "grep", "find", "glob", "list"]) {
        ToolKind::Search
    } else if has(&["read", "view", "open"]) {
        ToolKind::Read
    } else {
        ToolKind::Other
    }
}

/// Where a tool call works: its `path` argument, made absolute against the session root, with
/// the first line shown when it reads from an offset.
pub fn locations(arguments: &Value, root: &Path) -> Vec<ToolCallLocation> {
    let Some(path) = arguments.get("path").and_then(Value::as_str) else {
        return Vec::new();
    };
    let line = arguments
        .get("offset")
        .and_then(Value::as_u64)
        .and_then(|l| u32::try_from(l).ok());
    vec![ToolCallLocation::new(root.join(path)).line(line)]
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

fn status_update(id: &str, fields: ToolCallUpdateFields) -> SessionUpdate {
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id.to_string(), fields))
}

/// The before and after of an edit, per hunk, from a unified diff: used when no approval carried
/// the whole texts (an auto-approved edit, or a replayed one). Each hunk's old side is its context
/// and removed lines, its new side the context and added lines.
pub fn diffs_from_unified(root: &Path, unified: &str) -> Vec<Diff> {
    let mut path: Option<PathBuf> = None;
    let mut created = false;
    let mut diffs = Vec::new();
    let mut hunk: Option<(String, String)> = None;
    let mut finish =
        |hunk: &mut Option<(String, String)>, path: &Option<PathBuf>, created: bool| {
            if let (Some((old, new)), Some(path)) = (hunk.take(), path) {
                let old = (!created).then_some(old);
                diffs.push(Diff::new(path.clone(), new).old_text(old));
            }
        };
    for line in unified.lines() {
        if let Some(old) = line.strip_prefix("--- ") {
            finish(&mut hunk, &path, created);
            created = old.trim() == "/dev/null";
        } else if let Some(new) = line.strip_prefix("+++ ") {
            let new = new.trim();
            let relative = new.strip_prefix("b/").unwrap_or(new);
            path = Some(root.join(relative));
        } else if line.starts_with("@@") {
            finish(&mut hunk, &path, created);
            hunk = Some((String::new(), String::new()));
        } else if let Some((old, new)) = hunk.as_mut() {
            match line.split_at_checked(1) {
                Some(("+", rest)) => push_line(new, rest),
                Some(("-", rest)) => push_line(old, rest),
                Some((" ", rest)) => {
                    push_line(old, rest);
                    push_line(new, rest);
                }
                // `\ No newline at end of file`, or an empty context line some tools write bare.
                Some(("\\", _)) => {}
                _ => {
                    push_line(old, "");
                    push_line(new, "");
                }
            }
        }
    }
    finish(&mut hunk, &path, created);
    diffs
}

fn push_line(side: &mut String, line: &str) {
    side.push_str(line);
    side.push('\n');
}

/// What we know of one tool call while it runs.
#[derive(Debug, Default)]
struct Call {
    /// The output streamed so far (its tail, when long).
    output: String,
    /// An edit's whole before and after, from its approval request.
    diff: Option<Diff>,
    /// The call got its final status.
    done: bool,
}

/// Turns one session's events into `session/update`s, remembering what ACP needs across events:
/// a command's output so far (ACP replaces content) and an edit's texts from its approval (a
/// `ToolResult` carries only the unified diff).
#[derive(Debug)]
pub struct Translator {
    root: PathBuf,
    /// Replaying history: the user's prompts are shown too, and errors as text.
    replay: bool,
    calls: HashMap<String, Call>,
}

impl Translator {
    pub fn new(root: PathBuf, replay: bool) -> Self {
        Self {
            root,
            replay,
            calls: HashMap::new(),
        }
    }

    pub fn event(&mut self, event: Event) -> Vec<SessionUpdate> {
        match event {
            Event::TurnStarted { prompt } if self.replay => {
                vec![SessionUpdate::UserMessageChunk(chunk(prompt))]
            }
            Event::TurnStarted { .. } | Event::Usage { .. } => Vec::new(),
            Event::Text { delta } => vec![SessionUpdate::AgentMessageChunk(chunk(delta))],
            Event::Reasoning { delta } => vec![SessionUpdate::AgentThoughtChunk(chunk(delta))],
            Event::ToolCall {
                tool_call_id,
                name,
                arguments,
                title,
            } => {
                let kind = tool_kind(&name);
                // Edits and commands wait for approval (or the policy) before they run.
                let status = match kind {
                    ToolKind::Edit | ToolKind::Execute => ToolCallStatus::Pending,
                    _ => ToolCallStatus::InProgress,
                };
                let call = ToolCall::new(tool_call_id.clone(), title)
                    .kind(kind)
                    .status(status)
                    .locations(locations(&arguments, &self.root))
                    .raw_input(arguments);
                self.calls.insert(tool_call_id, Call::default());
                vec![SessionUpdate::ToolCall(call)]
            }
            Event::ToolOutput {
                tool_call_id,
                delta,
            } => {
                let call = self.calls.entry(tool_call_id.clone()).or_default();
                call.output.push_str(&delta);
                keep_tail(&mut call.output, MAX_SHOWN_OUTPUT);
                let fields = ToolCallUpdateFields::new()
                    .status(ToolCallStatus::InProgress)
                    .content(vec![text_content(fenced(&call.output))]);
                vec![status_update(&tool_call_id, fields)]
            }
            Event::ToolResult {
                tool_call_id,
                status,
                output,
                diff,
            } => vec![self.result(&tool_call_id, status, &output, diff.as_deref())],
            Event::TurnEnded { error, .. } => {
                let mut updates = self.close_open();
                if self.replay
                    && let Some(error) = error
                {
                    updates.push(SessionUpdate::AgentMessageChunk(chunk(format!(
                        "\n\nError: {error}"
                    ))));
                }
                updates
            }
        }
    }

    fn result(
        &mut self,
        id: &str,
        status: ToolStatus,
        output: &str,
        unified: Option<&str>,
    ) -> SessionUpdate {
        let call = self.calls.entry(id.to_string()).or_default();
        call.done = true;
        let mut content: Vec<ToolCallContent> = match (&call.diff, unified) {
            // An applied edit, or a rejected one: show what it was.
            (Some(diff), _) if status != ToolStatus::Error => vec![diff.clone().into()],
            (_, Some(unified)) if status == ToolStatus::Ok => {
                diffs_from_unified(&self.root, unified)
                    .into_iter()
                    .map(Into::into)
                    .collect()
            }
            _ => Vec::new(),
        };
        // An applied edit's diff says it all; anything else shows its output.
        if content.is_empty() || status != ToolStatus::Ok {
            let shown = if status == ToolStatus::Ok {
                fenced(output)
            } else {
                output.to_string()
            };
            content.push(text_content(shown));
        }
        let acp_status = match status {
            ToolStatus::Ok => ToolCallStatus::Completed,
            ToolStatus::Error | ToolStatus::Rejected => ToolCallStatus::Failed,
        };
        let fields = ToolCallUpdateFields::new()
            .status(acp_status)
            .content(content)
            .raw_output(Value::String(output.to_string()));
        status_update(id, fields)
    }

    /// The tool call as the permission request shows it: an edit with its diff, a command with
    /// its command line. The diff is kept for the call's result.
    pub fn approval(&mut self, request: &ApprovalRequest) -> ToolCallUpdate {
        let content = match request.kind {
            ApprovalKind::Edit => {
                let path = request.path.as_deref().map(PathBuf::from);
                match (path, &request.proposed) {
                    (Some(path), Some(proposed)) => {
                        let diff =
                            Diff::new(path, proposed.clone()).old_text(request.original.clone());
                        self.calls
                            .entry(request.tool_call_id.clone())
                            .or_default()
                            .diff = Some(diff.clone());
                        vec![diff.into()]
                    }
                    _ => Vec::new(),
                }
            }
            ApprovalKind::Command => {
                let mut shown = fenced(request.command.as_deref().unwrap_or(""));
                if let Some(cwd) = &request.cwd {
                    shown.push_str(&format!("\n\nin `{cwd}`"));
                }
                vec![text_content(shown)]
            }
        };
        let fields = ToolCallUpdateFields::new()
            .status(ToolCallStatus::Pending)
            .content(content);
        ToolCallUpdate::new(request.tool_call_id.clone(), fields)
    }

    /// The user allowed the call: it runs now.
    pub fn allowed(&self, tool_call_id: &str) -> SessionUpdate {
        status_update(
            tool_call_id,
            ToolCallUpdateFields::new().status(ToolCallStatus::InProgress),
        )
    }

    /// Calls that never got a result (the sidecar stopped mid-turn) end as failed, so the
    /// client doesn't show them running forever. The turn's calls are then forgotten.
    pub fn close_open(&mut self) -> Vec<SessionUpdate> {
        let mut open: Vec<String> = self
            .calls
            .drain()
            .filter(|(_, call)| !call.done)
            .map(|(id, _)| id)
            .collect();
        open.sort();
        open.iter()
            .map(|id| {
                let fields = ToolCallUpdateFields::new()
                    .status(ToolCallStatus::Failed)
                    .content(vec![text_content(
                        "Interrupted: this tool call did not finish.",
                    )]);
                status_update(id, fields)
            })
            .collect()
    }
}

/// Drops the front of `text` (at a line start where possible) to keep it under about `max` bytes.
fn keep_tail(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let mut cut = text.len() - max;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    if let Some(nl) = text[cut..].find('\n') {
        cut += nl + 1;
    }
    text.replace_range(..cut, "[… earlier output not shown …]\n");
}

/// The options of every permission request. "Always" lasts for the session and the kind (edits
/// or commands), as the core keeps it.
pub fn permission_options(kind: ApprovalKind) -> Vec<PermissionOption> {
    let always = match kind {
        ApprovalKind::Edit => "Always allow edits in this session",
        ApprovalKind::Command => "Always allow commands in this session",
    };
    vec![
        PermissionOption::new(ALLOW_ONCE, "Allow", PermissionOptionKind::AllowOnce),
        PermissionOption::new(ALLOW_ALWAYS, always, PermissionOptionKind::AllowAlways),
        PermissionOption::new(REJECT_ONCE, "Reject", PermissionOptionKind::RejectOnce),
    ]
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
    }
}

/// How a finished turn answers `session/prompt`: a stop reason, or the error's message.
pub fn stop_reason(reason: StopReason, error: Option<String>) -> Result<AcpStopReason, String> {
    match reason {
        StopReason::EndTurn => Ok(AcpStopReason::EndTurn),
        StopReason::Cancelled => Ok(AcpStopReason::Cancelled),
        StopReason::MaxSteps => Ok(AcpStopReason::MaxTurnRequests),
        StopReason::Error => Err(error.unwrap_or_else(|| "the turn failed".to_string())),
    }
}

/// A prompt's content blocks as the core's text and context. Text blocks are joined as they
/// are; a mentioned file or selection is named in the text (`@path`) and attached as context,
/// with its text when the client embedded it (so unsaved changes are what the model sees).
pub fn prompt_input(blocks: Vec<ContentBlock>, root: &Path) -> (String, Vec<ContextItem>) {
    let mut text = String::new();
    let mut context = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            ContentBlock::ResourceLink(link) => match file_uri(&link.uri) {
                Some((path, range)) => {
                    let path = display_path(&path, root);
                    text.push_str(&format!("@{path}"));
                    context.push(ContextItem {
                        path,
                        text: None,
                        range,
                    });
                }
                None => text.push_str(&link.uri),
            },
            ContentBlock::Resource(resource) => match resource.resource {
                EmbeddedResourceResource::TextResourceContents(contents) => {
                    match file_uri(&contents.uri) {
                        Some((path, _)) => {
                            let path = display_path(&path, root);
                            text.push_str(&format!("@{path}"));
                            // The client sent the text it means (a selection, or the buffer).
                            context.push(ContextItem {
                                path,
                                text: Some(contents.text),
                                range: None,
                            });
                        }
                        None => {
                            text.push_str(&format!(
                                "\n\n<resource uri=\"{}\">\n{}\n</resource>\n",
                                contents.uri, contents.text
                            ));
                        }
                    }
                }
                EmbeddedResourceResource::BlobResourceContents(blob) => {
                    text.push_str(&format!("[binary resource not shown: {}]", blob.uri))
                }
                _ => {}
            },
            ContentBlock::Image(_) => text.push_str("[an image was attached; it is not shown]"),
            ContentBlock::Audio(_) => text.push_str("[audio was attached; it is not shown]"),
            _ => {}
        }
    }
    (text, context)
}

/// Relative to the root when inside it (what the model and the user read), else absolute.
fn display_path(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// A `file://` URI as a path, with the lines of a `#L10:20` / `#L10-20` fragment (one-based,
/// inclusive, as Zed writes them for selections).
pub fn file_uri(uri: &str) -> Option<(PathBuf, Option<Range>)> {
    let rest = uri.strip_prefix("file://")?;
    let (rest, fragment) = match rest.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (rest, None),
    };
    let rest = rest.split('?').next().unwrap_or(rest);
    // `file://host/path` names a host; only the local form (`file:///path`) is a path here.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_decode(path)?;
    #[cfg(windows)]
    let decoded = decoded.trim_start_matches('/').to_string();
    Some((PathBuf::from(decoded), fragment.and_then(line_range)))
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

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{
        EmbeddedResource, ResourceLink, SelectedPermissionOutcome, TextResourceContents,
    };
    use serde_json::json;

    fn wire(update: &SessionUpdate) -> Value {
        serde_json::to_value(update).unwrap()
    }

    #[test]
    fn kinds_from_tool_names() {
        assert_eq!(tool_kind("read_file"), ToolKind::Read);
        assert_eq!(tool_kind("list_files"), ToolKind::Search);
        assert_eq!(tool_kind("search_files"), ToolKind::Search);
        assert_eq!(tool_kind("write_to_file"), ToolKind::Edit);
        assert_eq!(tool_kind("replace_in_file"), ToolKind::Edit);
        assert_eq!(tool_kind("execute_command"), ToolKind::Execute);
        assert_eq!(tool_kind("web_fetch"), ToolKind::Fetch);
        assert_eq!(tool_kind("think"), ToolKind::Other);
    }

    #[test]
    fn tool_call_has_kind_status_input_and_absolute_location() {
        let mut t = Translator::new("/ws".into(), false);
        let updates = t.event(Event::ToolCall {
            tool_call_id: "c1".into(),
            name: "replace_in_file".into(),
            arguments: json!({"path": "src/a.rs", "diff": "x"}),
            title: "Edit src/a.rs".into(),
        });
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
        let read = t.event(Event::ToolCall {
            tool_call_id: "c2".into(),
            name: "read_file".into(),
            arguments: json!({"path": "a", "offset": 20}),
            title: "Read a".into(),
        });
        let read = wire(&read[0]);
        assert_eq!(read["status"], "in_progress");
        assert_eq!(read["locations"], json!([{"path": "/ws/a", "line": 20}]));
    }

    #[test]
    fn command_output_accumulates_then_completes() {
        let mut t = Translator::new("/ws".into(), false);
        t.event(Event::ToolCall {
            tool_call_id: "c".into(),
            name: "execute_command".into(),
            arguments: json!({"command": "make"}),
            title: "Run make".into(),
        });
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

    #[test]
    fn edit_result_carries_the_approved_texts_as_a_diff() {
        let mut t = Translator::new("/ws".into(), false);
        t.event(Event::ToolCall {
            tool_call_id: "e".into(),
            name: "write_to_file".into(),
            arguments: json!({"path": "a.txt"}),
            title: "Write a.txt".into(),
        });
        let request = ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "e".into(),
            kind: ApprovalKind::Edit,
            path: Some("/ws/a.txt".into()),
            original: Some("old\n".into()),
            proposed: Some("new\n".into()),
            diff: Some("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n".into()),
            command: None,
            cwd: None,
        };
        let asked = serde_json::to_value(t.approval(&request)).unwrap();
        let diff =
            json!({"type": "diff", "path": "/ws/a.txt", "oldText": "old\n", "newText": "new\n"});
        assert_eq!(asked["content"], json!([diff.clone()]));
        assert_eq!(asked["status"], "pending");
        assert_eq!(wire(&t.allowed("e"))["status"], "in_progress");
        let done = t.event(Event::ToolResult {
            tool_call_id: "e".into(),
            status: ToolStatus::Ok,
            output: "Applied the edit to a.txt (+1 -1).".into(),
            diff: request.diff.clone(),
        });
        let done = wire(&done[0]);
        assert_eq!(done["status"], "completed");
        assert_eq!(done["content"], json!([diff]));
    }

    #[test]
    fn rejected_edit_fails_with_the_message_and_keeps_the_diff() {
        let mut t = Translator::new("/ws".into(), false);
        let request = ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "e".into(),
            kind: ApprovalKind::Edit,
            path: Some("/ws/new.txt".into()),
            original: None,
            proposed: Some("hi\n".into()),
            diff: None,
            command: None,
            cwd: None,
        };
        t.approval(&request);
        let done = t.event(Event::ToolResult {
            tool_call_id: "e".into(),
            status: ToolStatus::Rejected,
            output: "The user rejected this edit.".into(),
            diff: None,
        });
        let done = wire(&done[0]);
        assert_eq!(done["status"], "failed");
        assert_eq!(done["content"][0]["type"], "diff");
        assert!(done["content"][0].get("oldText").is_none());
        assert_eq!(
            done["content"][1]["content"]["text"],
            "The user rejected this edit."
        );
    }

    #[test]
    fn unified_diff_becomes_one_diff_per_hunk() {
        let unified = "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n@@ -9,2 +9,3 @@\n 9\n 10\n+11\n\\ No newline at end of file\n";
        let diffs = diffs_from_unified(Path::new("/ws"), unified);
        assert_eq!(diffs.len(), 2);
        assert_eq!(diffs[0].path, PathBuf::from("/ws/src/a.rs"));
        assert_eq!(diffs[0].old_text.as_deref(), Some("1\n2\n3\n"));
        assert_eq!(diffs[0].new_text, "1\nX\n3\n");
        assert_eq!(diffs[1].old_text.as_deref(), Some("9\n10\n"));
        assert_eq!(diffs[1].new_text, "9\n10\n11\n");
        let created = diffs_from_unified(
            Path::new("/ws"),
            "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n",
        );
        assert_eq!(created[0].old_text, None);
        assert_eq!(created[0].new_text, "hi\n");
    }

    #[test]
    fn replay_shows_prompts_errors_and_closes_interrupted_calls() {
        let mut t = Translator::new("/ws".into(), true);
        let prompt = t.event(Event::TurnStarted {
            prompt: "fix it".into(),
        });
        assert_eq!(
            wire(&prompt[0]),
            json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "fix it"}})
        );
        t.event(Event::ToolCall {
            tool_call_id: "c".into(),
            name: "read_file".into(),
            arguments: json!({"path": "a"}),
            title: "Read a".into(),
        });
        let end = t.event(Event::TurnEnded {
            stop_reason: StopReason::Error,
            error: Some("boom".into()),
        });
        assert_eq!(wire(&end[0])["status"], "failed");
        assert_eq!(wire(&end[1])["content"]["text"], "\n\nError: boom");
        // Live, the prompt is the client's own and is not echoed.
        let mut live = Translator::new("/ws".into(), false);
        assert!(
            live.event(Event::TurnStarted { prompt: "x".into() })
                .is_empty()
        );
    }

    #[test]
    fn long_output_keeps_its_tail() {
        let mut s: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
        keep_tail(&mut s, 1000);
        assert!(s.len() < 1100, "{}", s.len());
        assert!(s.starts_with("[… earlier output not shown …]\nline "));
        assert!(s.ends_with("line 9999\n"));
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
        let always = &permission_options(ApprovalKind::Command)[1];
        assert_eq!(&*always.option_id.0, ALLOW_ALWAYS);
        assert_eq!(always.name, "Always allow commands in this session");
    }

    #[test]
    fn stop_reasons() {
        assert_eq!(
            stop_reason(StopReason::EndTurn, None),
            Ok(AcpStopReason::EndTurn)
        );
        assert_eq!(
            stop_reason(StopReason::Cancelled, None),
            Ok(AcpStopReason::Cancelled)
        );
        assert_eq!(
            stop_reason(StopReason::MaxSteps, None),
            Ok(AcpStopReason::MaxTurnRequests)
        );
        assert_eq!(
            stop_reason(StopReason::Error, Some("rate limited".into())),
            Err("rate limited".into())
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
        let (text, context) = prompt_input(blocks, Path::new("/ws"));
        assert_eq!(text, "Explain @src/my a.rs and @b.rs");
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
    }
}
