//! `tandem chat`: the terminal face of the agent core.
//!
//! `you>` reads a prompt; the answer streams after `ai>`; tool calls show dimmed; edits and
//! commands are put to the user with the diff in color. Ctrl-C cancels a running turn (and quits
//! at the prompt). `/new`, `/sessions`, `/resume [ID]`, `/undo`, `/exit`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use serde_json::json;
use time::OffsetDateTime;
use tokio::sync::mpsc;

use tandem_agent::approval::{ApprovalAction, ApprovalReply, ApprovalRequest, Decision};
use tandem_agent::events::{Event, StopReason, ToolCallEvent, ToolStatus};
use tandem_agent::{Agent, Frontend};
use tandem_config::StartOptions;

pub struct ChatOptions {
    /// Reopen a saved session: its id, or empty for this workspace's latest.
    pub resume: Option<String>,
    pub start: StartOptions,
    pub root: Option<PathBuf>,
    pub prompt: Option<String>,
    pub json_log: Option<PathBuf>,
}

/// ANSI styles, or nothing when stdout is not a terminal (or NO_COLOR is set).
#[derive(Clone, Copy)]
struct Style {
    on: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
    fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }
    fn diff(&self, diff: &str) -> String {
        diff.lines()
            .map(|line| {
                let code = if line.starts_with("+++") || line.starts_with("---") {
                    "1"
                } else if line.starts_with('+') {
                    "32"
                } else if line.starts_with('-') {
                    "31"
                } else if line.starts_with("@@") {
                    "36"
                } else {
                    ""
                };
                if code.is_empty() {
                    line.to_string()
                } else {
                    self.paint(code, line)
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Lines typed by the user, shared by the prompt loop and approval questions.
type Lines = Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<String>>>;

struct ChatFrontend {
    style: Style,
    lines: Lines,
    ended: mpsc::UnboundedSender<(StopReason, Option<String>)>,
    /// What the terminal shows now, so pieces of text get their `ai>` once.
    state: Mutex<Shown>,
    /// The last request's token counts, shown when the turn ends.
    usage: Mutex<Option<String>>,
    /// Paths are shown relative to it.
    root: PathBuf,
}

use tandem_stdx::lock;

/// One line for a tool's result: a one-line output as it is; else its size, and the closing
/// status line a command's output ends with (`[exit code 0]`).
fn summary(output: &str) -> String {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    match lines.as_slice() {
        [] => "done".to_string(),
        [one] => one.to_string(),
        [.., last] if last.starts_with('[') => format!("{} lines, {last}", lines.len() - 1),
        _ => format!("{} lines", lines.len()),
    }
}

#[derive(Default, PartialEq)]
enum Shown {
    #[default]
    Nothing,
    Text,
    Reasoning,
    Output,
}

/// The model's text made inert for a terminal: control characters (escape sequences, carriage
/// returns, backspaces, ...) are shown escaped, so nothing the model writes can move the cursor,
/// recolour or overwrite what the user reads. Line feeds and tabs stay, unless `one_line`.
fn inert(text: &str, one_line: bool) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && !(!one_line && (c == '\n' || c == '\t'));
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !unsafe_char(c) => shown.push(c),
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            c => shown.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    std::borrow::Cow::Owned(shown)
}

fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

impl ChatFrontend {
    fn switch_to(&self, next: Shown) -> bool {
        let mut shown = lock(&self.state);
        let changed = *shown != next;
        if changed && *shown != Shown::Nothing {
            out("\n");
        }
        *shown = next;
        changed
    }
}

impl Frontend for ChatFrontend {
    fn update(&self, _session_id: &str, _turn_id: &str, event: Event) {
        let s = self.style;
        match event {
            Event::TurnStarted { .. } => {}
            Event::Text { delta } => {
                if self.switch_to(Shown::Text) {
                    out(&s.bold("ai> "));
                }
                out(&inert(&delta, false));
            }
            Event::Reasoning { delta } => {
                if self.switch_to(Shown::Reasoning) {
                    out(&s.dim("thinking: "));
                }
                out(&s.dim(&inert(&delta, false)));
            }
            Event::ToolCall(ToolCallEvent { title, .. }) => {
                self.switch_to(Shown::Nothing);
                out(&format!(
                    "{}\n",
                    s.dim(&format!("• {}", inert(&title, true)))
                ));
            }
            Event::ToolOutput { delta, .. } => {
                self.switch_to(Shown::Output);
                out(&s.dim(&inert(&delta, false)));
            }
            Event::ToolResult { status, output, .. } => {
                self.switch_to(Shown::Nothing);
                let mark = match status {
                    ToolStatus::Ok => "✓",
                    ToolStatus::Error => "✗",
                    ToolStatus::Rejected => "⊘",
                };
                out(&format!(
                    "{}\n",
                    s.dim(&format!("  {mark} {}", inert(&summary(&output), true)))
                ));
            }
            Event::Usage {
                prompt_tokens,
                completion_tokens,
                context_window,
            } => {
                let window = context_window
                    .map(|w| format!(" of {w}"))
                    .unwrap_or_default();
                *lock(&self.usage) = Some(format!(
                    "[{prompt_tokens}{window} tokens in, {completion_tokens} out]"
                ));
            }
            Event::Rules { files } => {
                self.switch_to(Shown::Nothing);
                let names: Vec<String> = files
                    .iter()
                    .map(|f| {
                        let name = tandem_stdx::display_relative(&f.path, &self.root);
                        if f.truncated {
                            format!("{name} (cut)")
                        } else {
                            name
                        }
                    })
                    .collect();
                out(&format!(
                    "{}\n",
                    s.dim(&format!("rules: {}", inert(&names.join(", "), true)))
                ));
            }
            Event::Compaction {
                elided,
                summarized,
                tokens_before,
                tokens_after,
                context_window,
            } => {
                self.switch_to(Shown::Nothing);
                out(&format!(
                    "{}\n",
                    s.dim(&format!(
                        "  [context compacted for the {context_window}-token window: {elided} \
                         outputs elided, {summarized} messages summarized, ~{tokens_before} → \
                         ~{tokens_after} tokens]"
                    ))
                ));
            }
            Event::Notice { message } => {
                self.switch_to(Shown::Nothing);
                out(&format!("{}\n", s.dim(&format!("  note: {message}"))));
            }
            Event::TurnEnded {
                stop_reason, error, ..
            } => {
                self.switch_to(Shown::Nothing);
                if let Some(usage) = lock(&self.usage).take() {
                    out(&format!("{}\n", s.dim(&usage)));
                }
                let _ = self.ended.send((stop_reason, error));
            }
        }
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        let s = self.style;
        let lines = self.lines.clone();
        let root = self.root.clone();
        self.switch_to(Shown::Nothing);
        Box::pin(async move {
            let question = match &request.action {
                ApprovalAction::Edit(edit) => {
                    out(&format!("{}\n", s.diff(&inert(&edit.diff.unified, false))));
                    format!(
                        "Apply this edit to {}? [y]es, [n]o, [a]lways this session: ",
                        inert(&tandem_stdx::display_relative(&edit.path, &root), true)
                    )
                }
                ApprovalAction::Command(command) if command.outside_sandbox => format!(
                    "Run `{}` in {} OUTSIDE the sandbox (network, writes anywhere)? [y]es, [n]o: ",
                    inert(&command.command, true),
                    inert(&command.display_cwd, true)
                ),
                ApprovalAction::Command(command) => format!(
                    "Run `{}` in {}? [y]es, [n]o, [a]lways this session: ",
                    inert(&command.command, true),
                    inert(&command.display_cwd, true)
                ),
                ApprovalAction::Mcp(call) => format!(
                    "Call the MCP tool `{}` of server `{}` with {}? [y]es, [n]o, [a]lways this \
                     tool this session: ",
                    inert(&call.tool, true),
                    inert(&call.server, true),
                    inert(
                        &tandem_stdx::truncated(&call.arguments.to_string(), 400, "…"),
                        true
                    )
                ),
                ApprovalAction::McpServer(server) => format!(
                    "{} names the MCP server `{}`, which runs: {}\nStart it? [y]es this \
                     session, [n]o, [a]lways trust it in this project: ",
                    inert(&server.source.display().to_string(), true),
                    inert(&server.server, true),
                    inert(&server.target, true)
                ),
            };
            let mut lines = lines.lock().await;
            // What was typed while the turn ran was meant for the prompt, not for this question:
            // only an answer typed after the question is shown counts.
            discard_type_ahead(&mut lines);
            out(&s.bold(&question));
            let answer = loop {
                let Some(answer) = lines.recv().await else {
                    out("\n");
                    return ApprovalReply::reject("No answer (input closed).");
                };
                let answer = answer.trim().to_ascii_lowercase();
                if matches!(answer.as_str(), "y" | "yes" | "n" | "no" | "a" | "always") {
                    break answer;
                }
                out(&s.bold("Please answer y, n or a: "));
            };
            match answer.as_str() {
                "y" | "yes" => ApprovalReply {
                    decision: Decision::Accept,
                    content: None,
                    feedback: None,
                    rejected_hunks: Vec::new(),
                },
                "a" | "always" => ApprovalReply {
                    decision: Decision::AcceptAlways,
                    content: None,
                    feedback: None,
                    rejected_hunks: Vec::new(),
                },
                _ => {
                    out(&s.bold("A note for the model (Enter for none): "));
                    let note = lines.recv().await.unwrap_or_default();
                    ApprovalReply {
                        decision: Decision::Reject,
                        content: None,
                        feedback: Some(note.trim().to_string()).filter(|n| !n.is_empty()),
                        rejected_hunks: Vec::new(),
                    }
                }
            }
        })
    }
}

/// Drops the lines typed before now: those queued, and (on a terminal) what sits unread in the
/// terminal's input, a half-typed line included.
fn discard_type_ahead(lines: &mut mpsc::UnboundedReceiver<String>) {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        // Piped input is a script of answers, typed ahead on purpose.
        return;
    }
    crate::terminal::discard_unread_input();
    while lines.try_recv().is_ok() {}
}

/// Reads stdin a line at a time on a thread of its own. Not tokio's stdin: its read runs on a
/// blocking thread that the runtime waits for when it shuts down, so `/exit` or Ctrl-C would
/// wait for (and swallow) one more line.
fn read_lines() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Runs the chat; returns the exit code (for `--prompt`: 0 when the turn ended normally).
pub async fn run(options: ChatOptions) -> Result<u8, String> {
    let style = Style {
        on: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let root = match options.root {
        Some(root) => root,
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    let mut start = options.start;
    start.workspace.get_or_insert_with(|| root.clone());
    let (agent, client) = start.start().map_err(|e| e.to_string())?;
    let (mut session, root) = match &options.resume {
        None => {
            let servers = tandem_config::project_mcp_servers(&root).map_err(|e| e.to_string())?;
            let info = agent
                .new_session_with(&root, servers)
                .map_err(|e| e.to_string())?;
            (info.session_id, info.root)
        }
        Some(wanted) => resume(&agent, wanted, &root).await?,
    };
    // The session's root is canonical; paths in approvals are made relative to it.

    let lines: Lines = Arc::new(tokio::sync::Mutex::new(read_lines()));
    let (ended_tx, mut ended) = mpsc::unbounded_channel();
    let frontend = Arc::new(ChatFrontend {
        style,
        lines: lines.clone(),
        ended: ended_tx,
        state: Mutex::new(Shown::Nothing),
        usage: Mutex::new(None),
        root: root.clone(),
    });
    let log = JsonLog {
        path: options.json_log,
    };

    if let Some(prompt) = options.prompt {
        let (reason, error) =
            run_turn(&agent, &session, prompt, frontend, &mut ended, &log).await?;
        if let Some(error) = error {
            eprintln!("{}", style.paint("31", &format!("error: {error}")));
        }
        return Ok(if reason == StopReason::EndTurn { 0 } else { 1 });
    }

    // Which model answers, and where: a wrong endpoint shows now, not after the first prompt.
    let model = match client.endpoint().await {
        Ok((url, model)) => format!("{model} at {url}"),
        Err(e) => format!("no model ({})", e.message),
    };
    out(&style.dim(&format!(
        "Tandem {} in {}, {}. /new starts over, /sessions lists the saved ones, /resume ID reopens one, /undo [TURN] reverts the last turn (or everything since TURN), /exit quits; Ctrl-C stops a turn.\n",
        env!("CARGO_PKG_VERSION"),
        inert(&root.display().to_string(), true),
        inert(&model, true),
    )));
    if options.resume.is_some() {
        out(&style.dim(&resumed_line(&agent, &session)));
    }
    loop {
        out(&style.bold("you> "));
        let line = tokio::select! {
            line = async { lines.lock().await.recv().await } => line,
            _ = tokio::signal::ctrl_c() => None,
        };
        let Some(line) = line else {
            out("\n");
            return Ok(0);
        };
        let text = line.trim();
        match text {
            "" => continue,
            "/exit" | "/quit" => return Ok(0),
            "/sessions" => out(&style.dim(&sessions_list(&agent, &root, &session))),
            resume_cmd if resume_cmd == "/resume" || resume_cmd.starts_with("/resume ") => {
                let wanted = resume_cmd["/resume".len()..].trim();
                match resume(&agent, wanted, &root).await {
                    Ok((id, _)) => {
                        session = id;
                        out(&style.dim(&resumed_line(&agent, &session)));
                    }
                    Err(e) => out(&style.paint("31", &format!("error: {e}\n"))),
                }
            }
            "/new" => {
                let servers =
                    tandem_config::project_mcp_servers(&root).map_err(|e| e.to_string())?;
                session = agent
                    .new_session_with(&root, servers)
                    .map_err(|e| e.to_string())?
                    .session_id;
                out(&style.dim("New session.\n"));
            }
            undo if undo == "/undo" || undo.starts_with("/undo ") => {
                // `/undo` reverts the last turn that changed files; `/undo t3` everything since t3.
                let turn = undo
                    .strip_prefix("/undo")
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string);
                let mut outcome = agent
                    .undo(&session, turn.clone(), false, frontend.as_ref())
                    .await;
                if let Ok(o) = &outcome
                    && o.needs_confirmation
                {
                    for c in &o.conflicts {
                        out(&format!(
                            "{} changed since the agent wrote it; restoring loses:\n{}\n",
                            inert(&c.path, true),
                            style.diff(&inert(&c.lost, false))
                        ));
                    }
                    out(&style.bold("Restore anyway and lose those changes? [y/N] "));
                    let answer = lines.lock().await.recv().await.unwrap_or_default();
                    if matches!(answer.trim(), "y" | "yes") {
                        outcome = agent.undo(&session, turn, true, frontend.as_ref()).await;
                    }
                }
                match outcome {
                    Ok(o) if o.needs_confirmation => {
                        out(&style.dim("Nothing restored; your changes are kept.\n"))
                    }
                    Ok(o) if o.restored.is_empty() => out(&style.dim("Nothing to undo.\n")),
                    Ok(o) => out(&style.dim(&format!("Restored: {}\n", o.restored.join(", ")))),
                    Err(e) => out(&style.paint("31", &format!("error: {e}\n"))),
                }
            }
            _ => {
                let (_, error) = run_turn(
                    &agent,
                    &session,
                    text.to_string(),
                    frontend.clone(),
                    &mut ended,
                    &log,
                )
                .await?;
                if let Some(error) = error {
                    out(&style.paint("31", &format!("error: {error}\n")));
                }
            }
        }
    }
}

/// The session to reopen: `wanted` by id, or (empty) the latest one of this workspace.
async fn resume(agent: &Agent, wanted: &str, root: &Path) -> Result<(String, PathBuf), String> {
    let id = if wanted.is_empty() {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        agent
            .list_sessions()
            .into_iter()
            .find(|s| s.root == root)
            .map(|s| s.session_id)
            .ok_or_else(|| format!("no saved session in {}", root.display()))?
    } else {
        wanted.to_string()
    };
    agent.load_session(&id).map_err(|e| e.to_string())?;
    let root = agent.session_root(&id).map_err(|e| e.to_string())?;
    // Its project's MCP servers, again (asked about at its next turn unless trusted).
    let servers = tandem_config::project_mcp_servers(&root).map_err(|e| e.to_string())?;
    agent
        .set_session_servers(&id, servers)
        .await
        .map_err(|e| e.to_string())?;
    Ok((id, root))
}

/// "Resumed …": the session, and its last prompt to remind the user where it was.
fn resumed_line(agent: &Agent, session: &str) -> String {
    let history = agent
        .load_session(session)
        .map(|l| l.history)
        .unwrap_or_default();
    let prompts: Vec<&str> = history
        .iter()
        .filter_map(|e| match &e.event {
            Event::TurnStarted { prompt, .. } => Some(prompt.as_str()),
            _ => None,
        })
        .collect();
    let last = prompts
        .last()
        .map(|p| {
            format!(
                "; last asked: {}",
                inert(p.lines().next().unwrap_or(""), true)
            )
        })
        .unwrap_or_default();
    format!(
        "Resumed session {session} ({} turn{}{last}).\n",
        prompts.len(),
        if prompts.len() == 1 { "" } else { "s" }
    )
}

/// `/sessions`: this workspace's saved sessions, newest first, the current one marked.
fn sessions_list(agent: &Agent, root: &Path, current: &str) -> String {
    let list: Vec<String> = agent
        .list_sessions()
        .into_iter()
        .filter(|s| s.root == root)
        .take(20)
        .map(|s| {
            let mark = if s.session_id == current { "*" } else { " " };
            let when = s
                .updated_at
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default();
            format!(
                "{mark} {}  {when}  {}\n",
                s.session_id,
                inert(&s.title, true)
            )
        })
        .collect();
    if list.is_empty() {
        return "No saved sessions here.\n".into();
    }
    format!("{}/resume ID reopens one.\n", list.concat())
}

/// Runs one turn to its end; Ctrl-C cancels it.
async fn run_turn(
    agent: &Agent,
    session: &str,
    prompt: String,
    frontend: Arc<ChatFrontend>,
    ended: &mut mpsc::UnboundedReceiver<(StopReason, Option<String>)>,
    log: &JsonLog,
) -> Result<(StopReason, Option<String>), String> {
    let turn = agent
        .prompt(session, prompt, Vec::new(), frontend)
        .map_err(|e| e.to_string())?;
    let result = loop {
        tokio::select! {
            r = ended.recv() => break r.unwrap_or((StopReason::Error, Some("the turn vanished".into()))),
            _ = tokio::signal::ctrl_c() => {
                out("\n^C cancelling…\n");
                let _ = agent.cancel(session);
            }
        }
    };
    log.write(agent, session, &turn);
    Ok(result)
}

/// `--json-log`: one line per turn with the messages it added to the conversation.
struct JsonLog {
    path: Option<PathBuf>,
}

impl JsonLog {
    fn write(&self, agent: &Agent, session: &str, turn: &str) {
        let Some(path) = &self.path else { return };
        let messages = agent.turn_messages(session, turn).unwrap_or_default();
        let line = json!({
            "turn": turn,
            "sessionId": session,
            "timestamp": OffsetDateTime::now_utc()
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
            "model": agent.model(),
            "messages": messages,
        });
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| writeln!(f, "{line}"));
        if let Err(e) = written {
            eprintln!("tandem: could not write {}: {e}", path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_summed_up_in_a_line() {
        assert_eq!(
            summary("Applied the edit to a.rs (+1 -1)."),
            "Applied the edit to a.rs (+1 -1)."
        );
        assert_eq!(summary("a\nb\n[exit code 0]"), "2 lines, [exit code 0]");
        assert_eq!(summary("1 | x\n2 | y\n3 | z"), "3 lines");
        assert_eq!(summary(""), "done");
    }

    #[test]
    fn the_models_control_characters_are_shown_not_obeyed() {
        // A command that would show as `ls` after the carriage return and the colour codes.
        let shown = inert("rm -rf ~ \r\x1b[2K\x1b[32mls", true);
        assert_eq!(shown, "rm -rf ~ \\r\\u{1b}[2K\\u{1b}[32mls");
        assert!(!shown.chars().any(char::is_control));
        assert_eq!(inert("a\nb\tc", false), "a\nb\tc");
        assert_eq!(inert("a\nb", true), "a\\nb");
        assert_eq!(inert("plain", true), "plain");
    }
}
