//! The parts of a turn that extend the agent: rules files and MCP servers' tools.

use serde_json::Value;

use super::approve::rejection;
use super::{Outcome, Turn};
use crate::approval::{
    ApprovalAction, ApprovalRequest, Decision, McpApproval, McpServerApproval, TrustSubject,
};
use crate::events::{Event, ToolCallEvent, ToolStatus};
use crate::mcp::describe_server;
use crate::rules;
use crate::trust::{Subject, TrustStore, Verdict};
use tandem_model::{Message, ToolCall, ToolCallId, ToolDefinition};
use tandem_tools::ToolKind;

/// How long one MCP tool call may take.
const MCP_CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

impl Turn {
    /// At a session's first turn: the rules files go into the conversation (after the fixed
    /// system prompt), the project's MCP servers are put to the user, and the session's own
    /// servers start.
    pub(super) async fn first_turn(&self, conversation: &mut Vec<Message>) {
        // Rules once per session (a reopened one has them in its history); servers once per
        // process, so a session reopened after a restart has its servers again.
        if self.session.take_rules_turn() {
            self.give_rules(conversation).await;
        }
        if self.session.mcp.take_start() {
            self.start_servers().await;
            self.ask_project_hooks().await;
            self.session_start_hooks(conversation).await;
        }
    }

    async fn give_rules(&self, conversation: &mut Vec<Message>) {
        let settings = &self.agent.inner.settings;
        let ws = self.session.workspace.clone();
        let user_file = settings.user_rules.clone();
        let found =
            tokio::task::spawn_blocking(move || rules::session_rules(&ws, user_file.as_deref()))
                .await
                .unwrap_or_default();
        for message in found.problems {
            self.emit(Event::Notice { message });
        }
        if !found.files.is_empty() {
            self.session.with_rules_seen(|seen| {
                seen.extend(found.files.iter().map(|f| f.path.clone()));
            });
            self.record_message(
                conversation,
                Message::System {
                    content: found.text,
                },
            );
            self.emit(Event::Rules { files: found.files });
        }
    }

    /// Puts the project's servers to the user, then starts the session's own.
    async fn start_servers(&self) {
        let settings = &self.agent.inner.settings;
        let root = self.session.workspace.root().to_path_buf();
        let store = TrustStore::new(&settings.data_dir);
        let mut allowed = Vec::new();
        for (config, file) in self.session.mcp.take_pending() {
            // A project's server starts in the project (its relative paths are the project's),
            // inside the walls commands run in.
            let config = in_root(config, &root, &settings.data_dir);
            // Hashing what the line names reads files (whole trees, large files): off the
            // async threads.
            let verdict = {
                let (store, root, config) = (store.clone(), root.clone(), config.clone());
                tokio::task::spawn_blocking(move || store.check(&root, &config)).await
            };
            let (changed, unbound) = match verdict {
                Ok(Verdict::Trusted) => {
                    allowed.push(config);
                    continue;
                }
                Ok(Verdict::Ask { changed, unbound }) => (changed, unbound),
                Err(e) => (
                    Vec::new(),
                    Some(format!("its files could not be checked ({e})")),
                ),
            };
            let question = TrustQuestion {
                subject: TrustSubject::McpServer,
                name: config.name().to_string(),
                target: describe_server(&config),
                file,
                tool_call_id: ToolCallId::from(format!("mcp-server-{}", config.name())),
                changed,
                unbound,
            };
            let remember = || store.trust(&root, &config);
            if self.ask_trust(question, remember).await {
                allowed.push(config);
            }
        }
        self.session
            .mcp
            .start_own(allowed, &root, &settings.data_dir, settings.key_var.clone())
            .await;
    }

    /// Puts the project's hooks to the user: those trusted for good (as they are now) and those
    /// the user accepts run in this session, always in the sandbox; the others never do.
    async fn ask_project_hooks(&self) {
        let settings = &self.agent.inner.settings;
        let Some(reader) = settings.project_hooks.clone() else {
            return;
        };
        let root = self.session.workspace.root().to_path_buf();
        let read = {
            let root = root.clone();
            tokio::task::spawn_blocking(move || reader.read(&root)).await
        };
        let hooks = match read {
            Ok(Ok(hooks)) => hooks,
            Ok(Err(e)) => {
                self.emit(Event::Notice {
                    message: format!("the project's hooks do not run: {e}"),
                });
                Vec::new()
            }
            Err(e) => {
                self.emit(Event::Notice {
                    message: format!("the project's hooks do not run: reading them failed ({e})"),
                });
                Vec::new()
            }
        };
        let store = TrustStore::new(&settings.data_dir);
        let mut allowed = Vec::new();
        for (i, mut hook) in hooks.into_iter().enumerate() {
            // A project can't lower the walls, whatever its file says.
            hook.sandbox = true;
            let checked = {
                let (store, root, hook) = (store.clone(), root.clone(), hook.clone());
                tokio::task::spawn_blocking(move || {
                    let subject = Subject::Hook(&hook);
                    (
                        store.check_subject(&root, subject),
                        TrustStore::snapshot(&root, subject),
                    )
                })
                .await
            };
            let (changed, unbound, snapshot) = match checked {
                Ok((Verdict::Trusted, snapshot)) => {
                    allowed.push((hook, snapshot));
                    continue;
                }
                Ok((Verdict::Ask { changed, unbound }, snapshot)) => (changed, unbound, snapshot),
                Err(e) => {
                    let why = format!("its files could not be checked ({e})");
                    (Vec::new(), Some(why), String::new())
                }
            };
            let question = TrustQuestion {
                subject: TrustSubject::Hook,
                name: crate::hooks::trust_name(&hook),
                target: hook.command.clone(),
                file: hook.source.path().to_path_buf(),
                tool_call_id: ToolCallId::from(format!("project-hook-{i}")),
                changed,
                unbound,
            };
            let remember = || store.trust_subject(&root, Subject::Hook(&hook));
            if self.ask_trust(question, remember).await && !snapshot.is_empty() {
                allowed.push((hook, snapshot));
            }
        }
        self.session.set_project_hooks(allowed);
    }

    /// Puts a project's server or hook to the user (never the policy's to answer: a project
    /// file must not run programs by itself), shown as a call of its own so every face has a
    /// place for the question. True when it may run; `remember` keeps an "always".
    pub(super) async fn ask_trust(
        &self,
        q: TrustQuestion,
        remember: impl FnOnce() -> std::io::Result<()>,
    ) -> bool {
        let (noun, verb) = (q.subject.noun(), q.subject.verb());
        let changed = if q.changed.is_empty() {
            String::new()
        } else {
            self.emit(Event::Notice {
                message: format!(
                    "{noun} `{}` of {} changed since you trusted it: {}; asking again",
                    q.name,
                    q.file.display(),
                    q.changed.join(", ")
                ),
            });
            format!(" It changed since you trusted it: {}", q.changed.join(", "))
        };
        self.emit(Event::ToolCall(ToolCallEvent {
            tool_call_id: q.tool_call_id.clone(),
            name: match q.subject {
                TrustSubject::McpServer => "start_mcp_server".into(),
                TrustSubject::Hook => "run_project_hook".into(),
            },
            arguments: serde_json::json!({
                q.subject.noun_key(): q.name, "source": q.file, "changed": q.changed,
                "whyNotAlways": q.unbound, "runs": q.target,
            }),
            title: format!("{verb} {noun} `{}`?{changed}", q.name),
            kind: ToolKind::Other,
            location: None,
        }));
        let request = ApprovalRequest {
            session_id: self.session.id.clone(),
            turn_id: self.turn_id.clone(),
            tool_call_id: q.tool_call_id.clone(),
            subagent: self.asking_subagent(),
            action: ApprovalAction::McpServer(McpServerApproval {
                subject: q.subject,
                server: q.name.clone(),
                target: q.target.clone(),
                source: q.file.clone(),
                why_not_always: q.unbound.clone(),
            }),
        };
        let reply = self.ask_always(request).await;
        let (status, output) = match (reply.decision, q.subject) {
            (Decision::Reject, TrustSubject::McpServer) => (ToolStatus::Rejected, "Not started."),
            (Decision::Reject, TrustSubject::Hook) => (ToolStatus::Rejected, "It does not run."),
            (_, TrustSubject::McpServer) => (ToolStatus::Ok, "Trusted; it starts now."),
            (_, TrustSubject::Hook) => (ToolStatus::Ok, "Trusted; it runs in the sandbox."),
        };
        self.emit(Event::ToolResult {
            tool_call_id: q.tool_call_id,
            status,
            output: output.into(),
            diff: None,
            error_kind: None,
        });
        match reply.decision {
            Decision::Accept => true,
            // "Always" was not offered: this session only (a face that offered it anyway
            // does not widen the trust).
            Decision::AcceptAlways if q.unbound.is_some() => {
                self.emit(Event::Notice {
                    message: format!(
                        "{noun} `{}` runs for this session only: it can't be trusted for good, \
                         since {}",
                        q.name,
                        q.unbound.as_deref().unwrap_or_default()
                    ),
                });
                true
            }
            Decision::AcceptAlways => {
                if let Err(e) = remember() {
                    self.emit(Event::Notice {
                        message: format!(
                            "could not remember that you trust {noun} `{}`: {e}",
                            q.name
                        ),
                    });
                }
                true
            }
            Decision::Reject => {
                self.emit(Event::Notice {
                    message: format!(
                        "{noun} `{}` of {} {}: you declined it (a new session asks again)",
                        q.name,
                        q.file.display(),
                        match q.subject {
                            TrustSubject::McpServer => "was not started",
                            TrustSubject::Hook => "does not run",
                        }
                    ),
                });
                false
            }
        }
    }

    /// The tools for the next request: `base` (the built-in ones), then every MCP server's.
    /// Servers that failed (or tools left out) are told to the user once. With a known context
    /// window, whole servers are left out (the last configured first) when all the tool
    /// definitions would take more than a quarter of it, and the user is told which.
    pub(super) async fn with_mcp_tools(
        &self,
        base: &[ToolDefinition],
        window: Option<u64>,
    ) -> Vec<ToolDefinition> {
        let mut tools = base.to_vec();
        let listing = tokio::select! {
            l = self.session.mcp.list() => l,
            () = self.cancel.cancelled() => return tools,
        };
        for message in listing.notices {
            self.emit(Event::Notice { message });
        }
        let mut mcp_tools = listing.definitions;
        if let Some(window) = window
            && !mcp_tools.is_empty()
        {
            let all: Vec<ToolDefinition> = tools.iter().chain(&mcp_tools).cloned().collect();
            let left_out = crate::mcp::servers_over_budget(&all, window / 4);
            if !left_out.is_empty() {
                mcp_tools.retain(|d| {
                    !left_out
                        .iter()
                        .any(|s| d.description.starts_with(&format!("[MCP server `{s}`")))
                });
                let names: Vec<String> = left_out.iter().map(|s| format!("`{s}`")).collect();
                let message = format!(
                    "the tools of MCP server {} were left out: with them the tool definitions \
                     would take more than a quarter of the model's {window}-token context window",
                    names.join(", ")
                );
                if self.session.mcp.tell_once(&message) {
                    self.emit(Event::Notice { message });
                }
            }
        }
        tools.extend(mcp_tools);
        tools
    }

    /// Runs a call to an MCP tool, if `call` names one: asks the user (unless the policy
    /// allow-lists that tool, or they chose "always" for it), calls it, and gives its result.
    pub(super) async fn run_mcp(&self, call: &ToolCall) -> Option<Outcome> {
        let tool = self.session.mcp.lookup(&call.name)?;
        let arguments = if call.arguments.trim().is_empty() {
            Value::Object(Default::default())
        } else {
            serde_json::from_str(&call.arguments)
                .unwrap_or_else(|_| Value::String(call.arguments.clone()))
        };
        self.emit(Event::ToolCall(ToolCallEvent {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            arguments: arguments.clone(),
            title: format!("{} · {}", tool.server, tool.tool),
            kind: ToolKind::Other,
            location: None,
        }));
        let auto = self
            .agent
            .inner
            .settings
            .policy
            .allows_mcp_tool(&tool.server, &tool.tool);
        let request = self.request(
            call,
            ApprovalAction::Mcp(McpApproval {
                server: tool.server.clone(),
                tool: tool.tool.clone(),
                arguments: arguments.clone(),
            }),
        );
        let reply = self.approve(request, auto).await;
        if reply.decision == Decision::Reject {
            return Some(Outcome::rejected(rejection("MCP tool call", &reply)));
        }
        let Some(hub) = self.session.mcp.hub_of(&call.name) else {
            return Some(Outcome::error(format!(
                "Error (mcp): MCP server `{}` is gone",
                tool.server
            )));
        };
        Some(
            match hub
                .call_tool(&call.name, arguments, MCP_CALL_TIMEOUT, &self.cancel)
                .await
            {
                Ok(result) => Outcome {
                    status: if result.is_error {
                        ToolStatus::Error
                    } else {
                        ToolStatus::Ok
                    },
                    output: result.text,
                    diff: None,
                    error_kind: None,
                    silent: false,
                },
                Err(e) => Outcome::error(format!("Error (mcp): {e}")),
            },
        )
    }

    /// The rules of the folders a built-in tool call just worked in, the first time; for the
    /// model, after the tool's result. The user is told with a `rules` update.
    pub(super) fn nested_rules(&self, call: &ToolCall) -> String {
        // A folder's rules are given once per session, to the parent (whose conversation
        // lasts); a subagent's reads don't use them up.
        if self.child.is_some() {
            return String::new();
        }
        let registry = &self.agent.inner.registry;
        if registry.get(&call.name).is_none() {
            return String::new();
        }
        let info = registry.describe(&call.name, &call.arguments);
        let Some(target) = info.target else {
            return String::new();
        };
        let ws = &self.session.workspace;
        let Ok(abs) = ws.resolve(&target.path) else {
            return String::new();
        };
        let mut seen = self.session.with_rules_seen(|seen| seen.clone());
        let found = rules::nested_rules(ws, &abs, &mut seen);
        self.session.with_rules_seen(|s| s.extend(seen));
        for message in found.problems {
            self.emit(Event::Notice { message });
        }
        if found.files.is_empty() {
            return String::new();
        }
        self.emit(Event::Rules { files: found.files });
        found.text
    }
}

/// A project's stdio server, set to start in the workspace root, walled (whatever its
/// `sandbox` says: a project can't lower the walls).
fn in_root(
    config: tandem_mcp::McpServerConfig,
    root: &std::path::Path,
    data_dir: &std::path::Path,
) -> tandem_mcp::McpServerConfig {
    match config {
        tandem_mcp::McpServerConfig::Stdio(mut s) => {
            s.cwd = Some(root.to_path_buf());
            s.wall(
                true,
                Some(root),
                &crate::mcp::cache_root(data_dir, Some(root)),
            );
            tandem_mcp::McpServerConfig::Stdio(s)
        }
        http => http,
    }
}

/// A project's server or hook, as the trust question puts it.
pub(super) struct TrustQuestion {
    pub subject: TrustSubject,
    /// The server's name; the hook's event and matcher.
    pub name: String,
    /// What runs: the command line (and environment), or the URL.
    pub target: String,
    /// The project file that names it.
    pub file: std::path::PathBuf,
    pub tool_call_id: ToolCallId,
    /// What changed since the user trusted it (empty: never trusted).
    pub changed: Vec<String>,
    /// Why "always" can't be offered, if it can't.
    pub unbound: Option<String>,
}
