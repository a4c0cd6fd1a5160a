//! The agent's [`Frontend`] for an LSP client that declared `experimental.tandem`: updates become
//! `tandem/update` notifications, approvals `tandem/requestApproval` requests.

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::Client;

use crate::agent::approval::{ApprovalReply, ApprovalRequest, queued_reply};
use crate::agent::events::Event;
use crate::agent::{Diagnostic, Frontend};
use crate::protocol::{
    ClientCapabilities, GetDiagnostics, GetDiagnosticsParams, RequestApproval, Update, UpdateParams,
};

/// What goes to the client, in order.
enum Outgoing {
    Update(UpdateParams),
    Approval(ApprovalRequest, oneshot::Sender<ApprovalReply>),
}

pub struct LspFrontend {
    client: Client,
    capabilities: ClientCapabilities,
    queue: mpsc::UnboundedSender<Outgoing>,
}

impl LspFrontend {
    /// Starts the task that sends to the client; it ends when the frontend is dropped.
    pub fn start(client: Client, capabilities: ClientCapabilities) -> Arc<Self> {
        let (queue, rx) = mpsc::unbounded_channel();
        tokio::spawn(forward(client.clone(), rx));
        Arc::new(Self {
            client,
            capabilities,
            queue,
        })
    }
}

/// Sends updates in the order they happened. Text and reasoning pieces that queued up while the
/// client was slow go out merged, so a fast stream costs one message per batch, not per token.
/// An approval request goes out only after every update before it (the client has seen the tool
/// call it is about), and runs as its own task so updates keep flowing while the user decides.
async fn forward(client: Client, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
    let mut pending: Option<UpdateParams> = None;
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        while let Some(item) = next.take() {
            match item {
                Outgoing::Update(update) => {
                    let merged = pending.as_mut().is_some_and(|held| merge(held, &update));
                    if !merged && let Some(held) = pending.replace(update) {
                        client.send_notification::<Update>(held).await;
                    }
                }
                Outgoing::Approval(request, reply) => {
                    if let Some(held) = pending.take() {
                        client.send_notification::<Update>(held).await;
                    }
                    let client = client.clone();
                    tokio::spawn(async move {
                        let answer = match client.send_request::<RequestApproval>(request).await {
                            Ok(answer) => answer,
                            Err(e) => ApprovalReply::reject(format!(
                                "The editor could not ask the user ({}); nothing was done.",
                                e.message
                            )),
                        };
                        let _ = reply.send(answer);
                    });
                }
            }
            next = rx.try_recv().ok();
        }
        if let Some(held) = pending.take() {
            client.send_notification::<Update>(held).await;
        }
    }
}

/// Appends `next` to `held` when both are pieces of the same stream.
fn merge(held: &mut UpdateParams, next: &UpdateParams) -> bool {
    if held.session_id != next.session_id || held.turn_id != next.turn_id {
        return false;
    }
    match (&mut held.event, &next.event) {
        (Event::Text { delta: a }, Event::Text { delta: b })
        | (Event::Reasoning { delta: a }, Event::Reasoning { delta: b }) => {
            a.push_str(b);
            true
        }
        (
            Event::ToolOutput {
                tool_call_id: id_a,
                delta: a,
            },
            Event::ToolOutput {
                tool_call_id: id_b,
                delta: b,
            },
        ) if id_a == id_b => {
            a.push_str(b);
            true
        }
        _ => false,
    }
}

impl Frontend for LspFrontend {
    fn update(&self, session_id: &str, turn_id: &str, event: Event) {
        let _ = self.queue.send(Outgoing::Update(UpdateParams {
            session_id: session_id.to_string(),
            turn_id: turn_id.to_string(),
            event,
        }));
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        if !self.capabilities.approvals {
            return Box::pin(async {
                ApprovalReply::reject(
                    "This editor cannot show approval requests, and the approval policy does \
                     not allow this without asking; nothing was done.",
                )
            });
        }
        let (tx, rx) = oneshot::channel();
        let sent = self.queue.send(Outgoing::Approval(request, tx));
        queued_reply(sent, rx)
    }

    fn diagnostics(&self, paths: Vec<PathBuf>) -> BoxFuture<'static, Vec<Diagnostic>> {
        if !self.capabilities.diagnostics {
            return Box::pin(async { Vec::new() });
        }
        let client = self.client.clone();
        Box::pin(async move {
            let params = GetDiagnosticsParams {
                paths: paths.iter().map(|p| p.display().to_string()).collect(),
            };
            client
                .send_request::<GetDiagnostics>(params)
                .await
                .map(|r| r.diagnostics)
                .unwrap_or_default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(turn: &str, s: &str) -> UpdateParams {
        UpdateParams {
            session_id: "s".into(),
            turn_id: turn.into(),
            event: Event::Text { delta: s.into() },
        }
    }

    #[test]
    fn pieces_of_one_stream_merge() {
        let mut held = text("t1", "Hel");
        assert!(merge(&mut held, &text("t1", "lo")));
        assert_eq!(
            held.event,
            Event::Text {
                delta: "Hello".into()
            }
        );
        assert!(!merge(&mut held, &text("t2", "x")));
        let reasoning = UpdateParams {
            event: Event::Reasoning { delta: "r".into() },
            ..text("t1", "")
        };
        assert!(!merge(&mut held, &reasoning));
    }
}
