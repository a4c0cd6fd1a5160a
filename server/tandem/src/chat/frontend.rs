//! The face the chat shows the core: the answer as it streams, tool calls in a line each, and
//! approval questions put to the user.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use tandem_agent::approval::{ApprovalAction, ApprovalReply, ApprovalRequest, Decision};
use tandem_agent::events::{
    Event, StopReason, ToolCallEvent, ToolStatus, TurnErrorKind, retry_line,
};
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
    /// What the terminal shows now, so pieces of text get their `ai>` once.
    pub state: Mutex<Shown>,
    /// The last request's token counts, shown when the turn ends.
    /// The spinner and the line after each turn.
    pub status: Status,
    /// For the model's name in that line.
    pub agent: tandem_agent::Agent,
    /// Paths are shown relative to it.
    pub root: PathBuf,
    /// The user's config file, named in the first-run guide.
    pub config_file: Option<PathBuf>,
    /// On a terminal, the answer is rendered as Markdown a block at a time; elsewhere it is
    /// written as the model sends it.
    pub markdown: Option<Mutex<render::Blocks>>,
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
        let rest = lock(blocks).finish();
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
        let text = render::render(&rest, self.look());
        // The last block's blank line is not needed before what follows.
        out(&format!("{}\n", text.trim_end_matches('\n')));
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

impl Frontend for ChatFrontend {
    fn update(&self, _session_id: &SessionId, _turn_id: &TurnId, event: Event) {
        let s = self.style;
        match &event {
            Event::TurnStarted { .. } => self.status.turn_started(),
            Event::Usage { .. } | Event::TurnEnded { .. } => {}
            // Rendered a block at a time: the spinner stays (saying the answer comes) until one
            // is complete.
            Event::Text { delta } if self.markdown.is_some() => {
                self.status.answering(delta.chars().count())
            }
            Event::Text { .. } | Event::Reasoning { .. } => self.status.quiet(true),
            _ => self.status.quiet(false),
        }
        match event {
            Event::TurnStarted { .. } => {}
            Event::Text { delta } => {
                match &self.markdown {
                    // Each block once it is complete: nothing shown is redrawn.
                    Some(blocks) => {
                        let done = lock(blocks).push(&delta);
                        if !done.is_empty() {
                            self.status.quiet(true);
                            if self.switch_to(Shown::Text) {
                                out(&s.bold("ai> "));
                            }
                        }
                        if !done.is_empty() {
                            for block in done {
                                out(&render::render(&block, self.look()));
                            }
                            // On the line below the blocks shown: the speed, until the next.
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
                // The result goes back to the model: waiting again.
                self.status.wait();
            }
            Event::Usage {
                prompt_tokens,
                completion_tokens,
                context_window,
            } => {
                self.status
                    .usage(prompt_tokens, completion_tokens, context_window);
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
                        "  {}",
                        crate::display::compaction(
                            elided,
                            summarized,
                            tokens_before,
                            tokens_after,
                            context_window
                        )
                    ))
                ));
            }
            Event::Plan(plan) => {
                self.switch_to(Shown::Nothing);
                out(&format!(
                    "{}\n",
                    s.dim(&format!("plan {}", plan.progress()))
                ));
                for line in plan.checklist().lines() {
                    out(&format!("{}\n", s.dim(&format!("  {}", inert(line, true)))));
                }
            }
            Event::Notice { message } => {
                self.switch_to(Shown::Nothing);
                out(&format!("{}\n", s.dim(&format!("  note: {message}"))));
            }
            Event::Retrying(retry) => {
                self.switch_to(Shown::Nothing);
                out(&format!(
                    "{}\n",
                    s.dim(&format!("  {}", retry_line(&retry)))
                ));
                // Still waiting for the model: the spinner comes back under the line.
                self.status.wait();
            }
            Event::TurnEnded {
                stop_reason,
                error,
                error_kind,
            } => {
                self.switch_to(Shown::Nothing);
                if let Some(line) = self.status.summary(&self.agent.model()) {
                    out(&format!("{}\n", s.dim(&inert(&line, true))));
                }
                // No server at all: the guide, in place of a message written for editors too.
                let error = match error_kind {
                    Some(TurnErrorKind::NoServer) => Some(crate::first_run::no_server_guide(
                        self.config_file.as_deref(),
                    )),
                    _ => error,
                };
                let _ = self.ended.send((stop_reason, error));
            }
        }
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        let s = self.style;
        let input = self.input.clone();
        let root = self.root.clone();
        self.status.quiet(false);
        self.switch_to(Shown::Nothing);
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
                    "Run `{}` in {} OUTSIDE the sandbox (network, writes anywhere)? [y]es, [n]o: ",
                    inert(&command.command, true),
                    inert(&command.display_cwd, true)
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
                        "{} names the MCP server `{}`, which runs: {}\nStart it? [y]es this \
                         session, [n]o, [a]lways trust it in this project: ",
                        inert(&server.source.display().to_string(), true),
                        inert(&server.server, true),
                        inert(&server.target, true)
                    ),
                    Some(why) => format!(
                        "{} names the MCP server `{}`, which runs: {}\nIt can't be trusted for \
                         good, since {}.\nStart it? [y]es this session, [n]o: ",
                        inert(&server.source.display().to_string(), true),
                        inert(&server.server, true),
                        inert(&server.target, true),
                        inert(why, true)
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
        "Run `{}` in {}?{why}\n[y]es, [n]o{always}: ",
        inert(&command.command, true),
        inert(&command.display_cwd, true)
    )
}

#[cfg(test)]
mod tests {
    use super::command_question;
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
    }
}
