//! The parts of a turn that extend the agent: rules files and MCP servers' tools.

use serde_json::Value;

use super::approve::rejection;
use super::{Outcome, Turn};
use crate::approval::{ApprovalAction, ApprovalRequest, Decision, McpApproval, McpServerApproval};
use crate::events::{Event, ToolCallEvent, ToolStatus};
use crate::mcp::describe_server;
use crate::rules;
use crate::trust::{TrustStore, Verdict};
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
            if !changed.is_empty() {
                self.emit(Event::Notice {
                    message: format!(
                        "MCP server `{}` of {} changed since you trusted it: {}; asking again",
                        config.name(),
                        file.display(),
                        changed.join(", ")
                    ),
                });
            }
            let title = if changed.is_empty() {
                format!("Start MCP server `{}`?", config.name())
            } else {
                format!(
                    "Start MCP server `{}`? It changed since you trusted it: {}",
                    config.name(),
                    changed.join(", ")
                )
            };
            // Shown as a call of its own, so every face has a place for the question.
            let tool_call_id = ToolCallId::from(format!("mcp-server-{}", config.name()));
            self.emit(Event::ToolCall(ToolCallEvent {
                tool_call_id: tool_call_id.clone(),
                name: "start_mcp_server".into(),
                arguments: serde_json::json!({
                    "server": config.name(), "source": file, "changed": changed,
                    "whyNotAlways": unbound,
                }),
                title,
                kind: ToolKind::Other,
                location: None,
            }));
            let request = ApprovalRequest {
                session_id: self.session.id.clone(),
                turn_id: self.turn_id.clone(),
                tool_call_id: tool_call_id.clone(),
                subagent: self.asking_subagent(),
                action: ApprovalAction::McpServer(McpServerApproval {
                    server: config.name().to_string(),
                    target: describe_server(&config),
                    source: file.clone(),
                    why_not_always: unbound.clone(),
                }),
            };
            // Never the policy's to answer: a project file must not start programs by itself.
            let reply = self.ask_always(request).await;
            let (status, output) = match reply.decision {
                Decision::Reject => (ToolStatus::Rejected, "Not started."),
                _ => (ToolStatus::Ok, "Trusted; it starts now."),
            };
            self.emit(Event::ToolResult {
                tool_call_id,
                status,
                output: output.into(),
                diff: None,
                error_kind: None,
            });
            match reply.decision {
                Decision::Accept => allowed.push(config),
                // "Always" was not offered: this session only (a face that offered it anyway
                // does not widen the trust).
                Decision::AcceptAlways if unbound.is_some() => {
                    self.emit(Event::Notice {
                        message: format!(
                            "MCP server `{}` starts for this session only: it can't be trusted \
                             for good, since {}",
                            config.name(),
                            unbound.as_deref().unwrap_or_default()
                        ),
                    });
                    allowed.push(config);
                }
                Decision::AcceptAlways => {
                    if let Err(e) = store.trust(&root, &config) {
                        self.emit(Event::Notice {
                            message: format!(
                                "could not remember that you trust MCP server `{}`: {e}",
                                config.name()
                            ),
                        });
                    }
                    allowed.push(config);
                }
                Decision::Reject => self.emit(Event::Notice {
                    message: format!(
                        "MCP server `{}` of {} was not started: you declined it (a new session \
                         asks again)",
                        config.name(),
                        file.display()
                    ),
                }),
            }
        }
        self.session
            .mcp
            .start_own(allowed, &root, &settings.data_dir, settings.key_var.clone())
            .await;
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
