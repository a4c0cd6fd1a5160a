//! The face the chat shows the core: the answer as it streams, tool calls in a line each, and
//! approval questions put to the user.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use tandem_agent::approval::{ApprovalAction, ApprovalReply, ApprovalRequest, Decision};
use tandem_agent::events::{Event, StopReason, ToolStatus, TurnErrorKind, retry_line};
use tandem_agent::view::{Change, TurnView};
use tandem_agent::{Frontend, SessionId, TurnId};
use tandem_stdx::lock;

use std::sync::Arc;

use super::input::Input;
use super::render;
use super::status::Status;
use super::style::{Style, out};
use crate::display::{inert, summary};

pub struct ChatFrontend {
    pub style: Style,
    pub input: Arc<Input>,
    pub ended: mpsc::UnboundedSender<(StopReason, Option<String>)>,
    /// The turn as far as it went (the facts the lines are made of).
    pub view: Mutex<TurnView>,
    /// What the terminal shows now, so pieces of text get their `ai>` once.
    pub state: Mutex<Shown>,
    /// The spinner and the line after each turn.
    pub status: Status,
    /// For the model's name in that line.
    pub agent: tandem_agent::Agent,
    /// Paths are shown relative to it.
    pub root: PathBuf,
    /// The user's config file, named in the first-run guide.
    pub config_file: Option<PathBuf>,
    /// On a terminal, the answer is rendered as Markdown a line at a time; elsewhere it is
    /// written as the model sends it.
    pub markdown: Option<Mutex<render::Lines>>,
}

#[derive(Default, PartialEq)]
pub enum Shown {
    #[default]
    Nothing,
    Text,
    Reasoning,
    Output,
}

impl ChatFrontend {
    /// The width to wrap at (less the `ai> ` the answer starts after), and colours.
    fn look(&self) -> render::Look {
        render::Look {
            width: render::terminal_width().saturating_sub(4).max(20),
            color: self.style.on,
        }
    }

    /// The rest of a rendered answer, if any (called with `shown` locked).
    fn render_rest(&self, shown: &mut Shown) {
        let Some(blocks) = &self.markdown else { return };
        let rest = lock(blocks).finish(self.look());
        let answering = *shown == Shown::Text;
        if answering {
            // Rendered blocks end their lines.
            *shown = Shown::Nothing;
        }
        let Some(rest) = rest else { return };
        if *shown != Shown::Nothing {
            out("\n");
        }
        self.status.quiet(true);
        if !answering {
            out(&self.style.bold("ai> "));
        }
        // The last block's blank line is not needed before what follows.
        out(&format!("{}\n", rest.trim_end_matches('\n')));
        *shown = Shown::Nothing;
    }

    fn switch_to(&self, next: Shown) -> bool {
        let mut shown = lock(&self.state);
        if next != Shown::Text {
            // The rest of a rendered answer; it ends its own line.
            self.render_rest(&mut shown);
        }
        let changed = *shown != next;
        if changed && *shown != Shown::Nothing {
            out("\n");
        }
        *shown = next;
        changed
    }
}

/// What the terminal does not show: the whole text again, the step, the approvals (the question
/// is asked and answered on the terminal itself), calls a turn left open.
fn unshown(change: &Change) -> bool {
    matches!(
        change,
        Change::Said { .. }
            | Change::Writing { .. }
            | Change::Asked { .. }
            | Change::Allowed { .. }
            | Change::Refused { .. }
            | Change::Interrupted { .. }
    )
}

impl ChatFrontend {
    /// Renders what the view says changed.
    fn render(&self, view: &TurnView, change: Change) {
        let s = self.style;
        match &change {
            Change::Started => self.status.turn_started(),
            // Rendered a line at a time: the spinner stays (saying the answer comes) until one
            // is complete.
            Change::Text(delta) if self.markdown.is_some() => {
                self.status.answering(delta.chars().count())
            }
            Change::Text(_) | Change::Reasoning(_) => self.status.quiet(true),
            // Nothing shown for these: the spinner stays.
            Change::Usage(_) | Change::Ended => {}
            change if unshown(change) => {}
            _ => self.status.quiet(false),
        }
        if matches!(change, Change::Started) || unshown(&change) {
            return;
        }
        match change {
            Change::Text(delta) => {
                match &self.markdown {
                    // Each line once it is complete: nothing shown is redrawn.
                    Some(lines) => {
                        let done = lock(lines).push(&delta, self.look());
                        if !done.is_empty() {
                            self.status.quiet(true);
                            if self.switch_to(Shown::Text) {
                                out(&s.bold("ai> "));
                            }
                            out(&done);
                            // On the line below the lines shown: the speed, until the next.
                            self.status.answering(0);
                        }
                    }
                    None => {
                        if self.switch_to(Shown::Text) {
                            out(&s.bold("ai> "));
                        }
                        out(&inert(&delta, false));
                    }
                }
            }
            Change::Reasoning(delta) => {
                if self.switch_to(Shown::Reasoning) {
                    out(&s.dim("thinking: "));
                }
                out(&s.dim(&inert(&delta, false)));
            }
            Change::Called { id, .. } => {
                let title = view.tool(&id).map_or("", |t| &t.title);
                self.switch_to(Shown::Nothing);
                out(&format!(
                    "{}\n",
                    s.dim(&format!("• {}", inert(title, true)))
                ));
            }
            Change::Output { delta, .. } => {
                self.switch_to(Shown::Output);
                out(&s.dim(&inert(&delta, false)));
            }
            Change::Finished { id } => {
                let Some(result) = view.tool(&id).and_then(|t| t.result.as_ref()) else {
                    return;
                };
                self.switch_to(Shown::Nothing);
                let mark = match result.status {
                    ToolStatus::Ok => "✓",
                    ToolStatus::Error => "✗",
                    ToolStatus::Rejected => "⊘",
                };
                out(&format!(
                    "{}\n",
                    s.dim(&format!(
                        "  {mark} {}",
                        inert(&summary(&result.output), true)
                    ))
                ));
                // The result goes back to the model: waiting again.
                self.status.wait();
            }
            Change::FilesChanged { id } => {
                let Some(call) = view.tool(&id) else { return };
                self.switch_to(Shown::Nothing);
                for line in crate::display::files_changed_lines(&call.files_changed) {
                    out(&format!("{}\n", s.dim(&line)));
                }
            }
            Change::Usage(_) => self.status.request_done(),
            Change::Rules(files) => {
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
            Change::Compaction(c) => {
                self.switch_to(Shown::Nothing);
                out(&format!(
                    "{}\n",
                    s.dim(&format!(
                        "  {}",
                        crate::display::compaction(
                            c.elided,
                            c.summarized,
                            c.tokens_before,
                            c.tokens_after,
                            c.context_window
                        )
                    ))
                ));
            }
            Change::Plan => {
                let Some(plan) = view.plan() else { return };
                self.switch_to(Shown::Nothing);
                out(&format!(
                    "{}\n",
                    s.dim(&format!("plan {}", plan.progress()))
                ));
                for line in plan.checklist().lines() {
                    out(&format!("{}\n", s.dim(&format!("  {}", inert(line, true)))));
                }
            }
            Change::Notice(message) => {
                self.switch_to(Shown::Nothing);
                out(&notice_line(s, &message));
            }
            Change::Retrying(retry) => {
                self.switch_to(Shown::Nothing);
                out(&format!(
                    "{}\n",
                    s.dim(&format!("  {}", retry_line(&retry)))
                ));
                // Still waiting for the model: the spinner comes back under the line.
                self.status.wait();
            }
            Change::Ended => {
                let Some(end) = view.end() else { return };
                self.switch_to(Shown::Nothing);
                if let Some(line) = self.status.summary(&self.agent.model(), view.usage()) {
                    let line = crate::display::wrap_for_stdout(&inert(&line, true));
                    out(&format!("{}\n", s.dim(&line)));
                }
                // No server at all: the guide, in place of a message written for editors too.
                let error = match end.error_kind {
                    Some(TurnErrorKind::NoServer) => Some(crate::first_run::no_server_guide(
                        self.config_file.as_deref(),
                    )),
                    _ => end.error.clone(),
                };
                let _ = self.ended.send((end.stop_reason, error));
            }
            // A subagent's calls and results, indented under its `task` call (its text is its
            // answer, shown as the call's result).
            Change::Subagent {
                parent,
                agent,
                change,
            } => {
                let Some(sub) = view.subagent(&parent) else {
                    return;
                };
                let line = match *change {
                    Change::Called { id, .. } => sub
                        .view
                        .tool(&id)
                        .map(|t| format!("• {}", inert(&t.title, true))),
                    Change::Finished { id } => {
                        sub.view.tool(&id).and_then(|t| t.result.as_ref()).map(|r| {
                            let mark = match r.status {
                                ToolStatus::Ok => "✓",
                                ToolStatus::Error => "✗",
                                ToolStatus::Rejected => "⊘",
                            };
                            format!("  {mark} {}", inert(&summary(&r.output), true))
                        })
                    }
                    _ => None,
                };
                if let Some(line) = line {
                    self.switch_to(Shown::Nothing);
                    let agent = inert(&agent, true);
                    out(&format!("{}\n", s.dim(&format!("    │ {agent}: {line}"))));
                }
            }
            _ => {}
        }
    }
}

impl Frontend for ChatFrontend {
    fn update(&self, _session_id: &SessionId, _turn_id: &TurnId, event: Event) {
        let mut view = lock(&self.view);
        for change in view.event(event) {
            self.render(&view, change);
        }
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        let s = self.style;
        let input = self.input.clone();
        let root = self.root.clone();
        self.status.quiet(false);
        self.switch_to(Shown::Nothing);
        // A subagent's question says whose it is.
        if let Some(agent) = lock(&self.view).subagent_asking(&request.tool_call_id) {
            out(&format!(
                "{}\n",
                s.dim(&format!("    │ subagent {} asks:", inert(agent, true)))
            ));
        }
        Box::pin(async move {
            // A project's server whose trust can't be bound to what runs, or a command with no
            // rule that would admit it: no "always".
            let always = match &request.action {
                ApprovalAction::McpServer(s) => s.why_not_always.is_none(),
                ApprovalAction::Command(c) => !c.always.is_empty(),
                _ => true,
            };
            let question = match &request.action {
                ApprovalAction::Edit(edit) => {
                    out(&format!("{}\n", s.diff(&inert(&edit.diff.unified, false))));
                    format!(
                        "Apply this edit to {}? [y]es, [n]o, [a]lways this session: ",
                        inert(&tandem_stdx::display_relative(&edit.path, &root), true)
                    )
                }
                ApprovalAction::Command(command) if command.outside_sandbox => format!(
                    "Run `{}` {} OUTSIDE the sandbox (network, writes anywhere)? [y]es, [n]o: ",
                    inert(&command.command, true),
                    place(&command.display_cwd)
                ),
                ApprovalAction::Command(command) => command_question(command),
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
                ApprovalAction::McpServer(server) => match &server.why_not_always {
                    None => format!(
                        "{} names the {} `{}`, which runs: {}\n{} it? [y]es this session, \
                         [n]o, [a]lways trust it in this project: ",
                        inert(&server.source.display().to_string(), true),
                        server.subject.noun(),
                        inert(&server.server, true),
                        inert(&server.target, true),
                        server.subject.verb()
                    ),
                    Some(why) => format!(
                        "{} names the {} `{}`, which runs: {}\nIt can't be trusted for good, \
                         since {}.\n{} it? [y]es this session, [n]o: ",
                        inert(&server.source.display().to_string(), true),
                        server.subject.noun(),
                        inert(&server.server, true),
                        inert(&server.target, true),
                        inert(why, true),
                        server.subject.verb()
                    ),
                },
                ApprovalAction::Fetch(fetch) => format!(
                    "Fetch {}{}? [y]es, [n]o: ",
                    inert(&fetch.url, true),
                    fetch
                        .redirected_from
                        .as_ref()
                        .map_or(String::new(), |f| format!(
                            " (redirected from {})",
                            inert(f, true)
                        ))
                ),
            };
            // What was typed while the turn ran was meant for the prompt, not for this question:
            // only an answer typed after the question is shown counts.
            discard_type_ahead();
            let mut asking = question;
            let answer = loop {
                let Some(answer) = input.read(&asking, false).await else {
                    out("\n");
                    return ApprovalReply::reject("No answer (input closed).");
                };
                let answer = answer.trim().to_ascii_lowercase();
                if matches!(answer.as_str(), "y" | "yes" | "n" | "no")
                    || always && matches!(answer.as_str(), "a" | "always")
                {
                    break answer;
                }
                asking = if always {
                    "Please answer y, n or a: "
                } else {
                    "Please answer y or n: "
                }
                .to_string();
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
                    let note = input
                        .read("A note for the model (Enter for none): ", false)
                        .await
                        .unwrap_or_default();
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

/// Drops what was typed before now (on a terminal): what sits unread in the terminal's input, a
/// half-typed line included.
fn discard_type_ahead() {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        // Piped input is a script of answers, typed ahead on purpose.
        return;
    }
    crate::terminal::discard_unread_input();
}

/// A sandboxed command's question: the line, why it asks, and what "always" would allow.
fn command_question(command: &tandem_agent::approval::CommandApproval) -> String {
    let why = if command.reason.is_empty() {
        String::new()
    } else {
        format!("\n  asked because {}", inert(&command.reason, true))
    };
    let always = if command.always.is_empty() {
        String::new()
    } else {
        let rules: Vec<String> = command
            .always
            .iter()
            .map(|r| format!("`{}`", inert(r, true)))
            .collect();
        format!(
            ", [a]lways allow {} (with any further words but options that load code; saved in \
             your config)",
            rules.join(", ")
        )
    };
    format!(
        "Run `{}` {}?{why}\n[y]es, [n]o{always}: ",
        inert(&command.command, true),
        place(&command.display_cwd)
    )
}

/// Where a command runs, as the question says it: "in the workspace" for its root (not "in ."),
/// else the folder.
fn place(display_cwd: &str) -> String {
    match display_cwd {
        "" | "." | "./" => "in the workspace".to_string(),
        cwd => format!("in {}", inert(cwd, true)),
    }
}

/// A notice's line. It may carry a hook's stderr or `systemMessage`: a repository's script must
/// not repaint the terminal any more than the model may.
fn notice_line(s: Style, message: &str) -> String {
    format!("{}\n", s.dim(&format!("  note: {}", inert(message, false))))
}

#[cfg(test)]
mod tests {
    use super::{Style, command_question, notice_line};

    #[test]
    fn a_notice_reaches_the_terminal_inert() {
        // What a hook printed to fake a question over the chat.
        let printed = "done\u{1b}[2J\u{1b}[HRun `rm -rf ~`? [y]es";
        let line = notice_line(Style { on: false }, printed);
        assert!(!line.contains('\u{1b}'), "{line:?}");
        assert!(line.contains("\\u{1b}[2J"), "shown escaped: {line:?}");
    }
    use tandem_agent::approval::CommandApproval;

    #[test]
    fn a_command_question_says_why_and_what_always_allows() {
        let mut command = CommandApproval {
            command: "echo $(curl x)\u{1b}[2J".into(),
            outside_sandbox: false,
            cwd: "/w".into(),
            display_cwd: ".".into(),
            reason: "`curl x` (in a substitution): no rule admits this command".into(),
            always: vec!["curl x".into()],
        };
        let asked = command_question(&command);
        assert!(
            asked.contains("\n  asked because `curl x` (in a substitution): no rule admits"),
            "{asked}"
        );
        assert!(
            asked.contains("[a]lways allow `curl x` (with any further words"),
            "{asked}"
        );
        // The model's control characters never reach the terminal raw.
        assert!(!asked.contains('\u{1b}'), "{asked}");
        command.always.clear();
        assert!(command_question(&command).ends_with("[y]es, [n]o: "));
        // The root is named as such, a folder by its path.
        assert!(asked.starts_with("Run `echo $(curl x)"), "{asked}");
        assert!(asked.contains("` in the workspace?"), "{asked}");
        command.display_cwd = "src/app".into();
        assert!(command_question(&command).contains("` in src/app?"));
    }
}
