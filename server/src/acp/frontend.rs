//! The agent's [`Frontend`] for an ACP client: events become `session/update` notifications,
//! approvals `session/request_permission` requests, and file access goes through the client's
//! `fs/*` methods when it offers them.
//!
//! Everything the client must see in order goes through one queue and one forwarding task, which
//! also answers `session/prompt` when the turn ends and `session/load` after its replay, so a
//! response never overtakes the updates before it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    LoadSessionResponse, PromptResponse, ReadTextFileRequest, RequestPermissionRequest,
    SessionNotification, SessionUpdate, WriteTextFileRequest,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error, ErrorCode, JsonRpcRequest};
use futures_util::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};

use super::convert::{self, Translator};
use crate::agent::approval::{ApprovalReply, ApprovalRequest, Decision, queued_reply};
use crate::agent::events::Event;
use crate::agent::{Frontend, HistoryEntry};

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A session as the face knows it.
#[derive(Debug)]
pub struct SessionRef {
    pub id: String,
    /// Tool paths are relative to it; ACP wants absolute ones.
    pub root: PathBuf,
}

/// What the client offered in `initialize`.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsCapabilities {
    pub read_text_file: bool,
    pub write_text_file: bool,
}

/// What the client must see in order.
enum Outgoing {
    Event(Arc<SessionRef>, Event),
    Approval(
        Arc<SessionRef>,
        ApprovalRequest,
        oneshot::Sender<ApprovalReply>,
    ),
    /// The user allowed a tool call: it is running now.
    Allowed(Arc<SessionRef>, String),
    Replay(
        Arc<SessionRef>,
        Vec<HistoryEntry>,
        Responder<LoadSessionResponse>,
    ),
    /// A file request: sent in turn, so the client has seen the tool call it serves.
    Request(SendRequest),
}

/// Sends one request on the connection (and hands its answer on).
type SendRequest = Box<dyn FnOnce(&ConnectionTo<Client>) + Send>;

/// What the connection's handlers and the forwarding task share.
struct Shared {
    cx: ConnectionTo<Client>,
    /// The `session/prompt` waiting for its turn to end, by session.
    prompts: Mutex<HashMap<String, Responder<PromptResponse>>>,
}

/// The connection's side of the queue: one per client, made at `initialize`.
pub struct Outbox {
    shared: Arc<Shared>,
    fs: FsCapabilities,
    queue: mpsc::UnboundedSender<Outgoing>,
}

impl Outbox {
    /// Starts the forwarding task; it ends when the outbox and every session frontend are gone.
    pub fn start(cx: ConnectionTo<Client>, fs: FsCapabilities) -> Self {
        let shared = Arc::new(Shared {
            cx,
            prompts: Mutex::new(HashMap::new()),
        });
        let (queue, rx) = mpsc::unbounded_channel();
        let forwarder = Forwarder {
            shared: shared.clone(),
            queue: queue.downgrade(),
            sessions: HashMap::new(),
            held: None,
        };
        tokio::spawn(forwarder.run(rx));
        Self { shared, fs, queue }
    }

    /// The frontend a turn reports to, bound to its session (made for each prompt): ACP's file
    /// requests name the session, and [`Frontend::read_text`] does not.
    pub fn frontend(&self, session: SessionRef) -> Arc<SessionFrontend> {
        Arc::new(SessionFrontend {
            session: Arc::new(session),
            fs: self.fs,
            queue: self.queue.clone(),
        })
    }

    /// Keeps the `session/prompt` responder until the session's turn ends. Gives it back when
    /// the session already has one waiting (a turn is running).
    #[must_use]
    pub fn hold_prompt(
        &self,
        session_id: &str,
        responder: Responder<PromptResponse>,
    ) -> Option<Responder<PromptResponse>> {
        let mut prompts = lock(&self.shared.prompts);
        if prompts.contains_key(session_id) {
            return Some(responder);
        }
        prompts.insert(session_id.to_string(), responder);
        None
    }

    /// The held responder back, when the turn could not start.
    pub fn release_prompt(&self, session_id: &str) -> Option<Responder<PromptResponse>> {
        lock(&self.shared.prompts).remove(session_id)
    }

    /// Sends the history as updates, then answers `session/load`.
    pub fn replay(
        &self,
        session: SessionRef,
        history: Vec<HistoryEntry>,
        responder: Responder<LoadSessionResponse>,
    ) {
        let _ = self
            .queue
            .send(Outgoing::Replay(Arc::new(session), history, responder));
    }
}

pub struct SessionFrontend {
    session: Arc<SessionRef>,
    fs: FsCapabilities,
    queue: mpsc::UnboundedSender<Outgoing>,
}

impl Frontend for SessionFrontend {
    fn update(&self, _session_id: &str, _turn_id: &str, event: Event) {
        let _ = self
            .queue
            .send(Outgoing::Event(self.session.clone(), event));
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        let (tx, rx) = oneshot::channel();
        let sent = self
            .queue
            .send(Outgoing::Approval(self.session.clone(), request, tx));
        queued_reply(sent, rx)
    }

    /// Reads through the client: its buffer, unsaved changes included.
    fn read_text(&self, path: &Path) -> Option<BoxFuture<'static, Result<String, String>>> {
        // A file that isn't on disk has no buffer to read either (clients answer with an error):
        // let the core report it as missing.
        if !self.fs.read_text_file || !path.is_file() {
            return None;
        }
        let request = ReadTextFileRequest::new(self.session.id.clone(), path);
        Some(self.ask_client(request, |r| r.content))
    }

    /// The core has just read the buffer through [`Self::read_text`] and checked it still holds
    /// what the edit was proposed against, so the write itself needs no precondition.
    fn write_text(
        &self,
        path: &Path,
        _original: Option<&str>,
        content: &str,
    ) -> Option<BoxFuture<'static, Result<(), String>>> {
        if !self.fs.write_text_file {
            return None;
        }
        let request = WriteTextFileRequest::new(self.session.id.clone(), path, content);
        Some(self.ask_client(request, |_| ()))
    }
}

impl SessionFrontend {
    /// Sends `request` through the queue and waits for the client's answer.
    fn ask_client<R, T>(
        &self,
        request: R,
        answer: impl FnOnce(R::Response) -> T + Send + 'static,
    ) -> BoxFuture<'static, Result<T, String>>
    where
        R: JsonRpcRequest + Send + 'static,
        T: Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let send = move |cx: &ConnectionTo<Client>| {
            let sent = cx.send_request(request);
            tokio::spawn(async move {
                let _ = tx.send(sent.block_task().await.map(answer).map_err(|e| e.message));
            });
        };
        let queued = self.queue.send(Outgoing::Request(Box::new(send)));
        Box::pin(async move {
            if queued.is_err() {
                return Err("the editor connection is closed".to_string());
            }
            rx.await
                .unwrap_or_else(|_| Err("the editor connection is closed".to_string()))
        })
    }
}

/// Sends what the queue holds, in order. Text pieces that queued up while it was busy go out
/// merged. It never waits for the client: requests are awaited by tasks of their own.
struct Forwarder {
    shared: Arc<Shared>,
    /// For answers to approvals, which must queue behind what came before them. Weak, so the
    /// task ends when the connection's senders are gone.
    queue: mpsc::WeakUnboundedSender<Outgoing>,
    sessions: HashMap<String, Translator>,
    /// A text, reasoning or output piece, held to merge with the next.
    held: Option<(Arc<SessionRef>, Event)>,
}

impl Forwarder {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
        while let Some(first) = rx.recv().await {
            let mut next = Some(first);
            while let Some(item) = next.take() {
                self.handle(item);
                next = rx.try_recv().ok();
            }
            self.flush();
        }
    }

    fn handle(&mut self, item: Outgoing) {
        match item {
            Outgoing::Event(session, event) => {
                if let Some((held_session, held)) = &mut self.held
                    && held_session.id == session.id
                    && merge(held, &event)
                {
                    return;
                }
                self.flush();
                if is_piece(&event) {
                    self.held = Some((session, event));
                } else {
                    self.event(&session, event);
                }
            }
            Outgoing::Approval(session, request, reply) => {
                self.flush();
                self.ask(session, request, reply);
            }
            Outgoing::Allowed(session, tool_call_id) => {
                self.flush();
                let update = self.translator(&session).allowed(&tool_call_id);
                self.notify(&session.id, update);
            }
            Outgoing::Request(send) => {
                self.flush();
                send(&self.shared.cx);
            }
            Outgoing::Replay(session, history, responder) => {
                self.flush();
                let mut replay = Translator::new(session.root.clone(), true);
                for entry in history {
                    for update in replay.event(entry.event) {
                        self.notify(&session.id, update);
                    }
                }
                for update in replay.close_open() {
                    self.notify(&session.id, update);
                }
                let _ = responder.respond(LoadSessionResponse::new());
            }
        }
    }

    fn flush(&mut self) {
        if let Some((session, event)) = self.held.take() {
            self.event(&session, event);
        }
    }

    fn translator(&mut self, session: &SessionRef) -> &mut Translator {
        self.sessions
            .entry(session.id.clone())
            .or_insert_with(|| Translator::new(session.root.clone(), false))
    }

    fn notify(&self, session_id: &str, update: SessionUpdate) {
        // Fails only when the connection is gone; the turn then ends on its own.
        let _ = self
            .shared
            .cx
            .send_notification(SessionNotification::new(session_id.to_string(), update));
    }

    fn event(&mut self, session: &SessionRef, event: Event) {
        let ended = match &event {
            Event::TurnEnded { stop_reason, error } => Some((*stop_reason, error.clone())),
            _ => None,
        };
        for update in self.translator(session).event(event) {
            self.notify(&session.id, update);
        }
        if let Some((stop_reason, error)) = ended {
            self.sessions.remove(&session.id);
            let responder = lock(&self.shared.prompts).remove(&session.id);
            if let Some(responder) = responder {
                let _ = match convert::stop_reason(stop_reason, error) {
                    Ok(reason) => responder.respond(PromptResponse::new(reason)),
                    Err(message) => {
                        responder.respond_with_error(Error::new(ErrorCode::INTERNAL_ERROR, message))
                    }
                };
            }
        }
    }

    /// Sends `session/request_permission` now (after every update before it), and waits for the
    /// answer in a task of its own so updates keep flowing while the user decides.
    fn ask(
        &mut self,
        session: Arc<SessionRef>,
        request: ApprovalRequest,
        reply: oneshot::Sender<ApprovalReply>,
    ) {
        let tool_call = self.translator(&session).approval(&request);
        let options = convert::permission_options(request.kind);
        let asked = self.shared.cx.send_request(RequestPermissionRequest::new(
            session.id.clone(),
            tool_call,
            options,
        ));
        let queue = self.queue.clone();
        tokio::spawn(async move {
            let answer = match asked.block_task().await {
                Ok(response) => convert::decision(&response.outcome),
                Err(e) => ApprovalReply::reject(format!(
                    "The editor could not ask the user ({}); nothing was done.",
                    e.message
                )),
            };
            // Queued before the core hears the answer, so "running" precedes what the call does.
            if answer.decision != Decision::Reject
                && let Some(queue) = queue.upgrade()
            {
                let _ = queue.send(Outgoing::Allowed(session, request.tool_call_id));
            }
            let _ = reply.send(answer);
        });
    }
}

/// A streamed piece, worth holding to merge with the next.
fn is_piece(event: &Event) -> bool {
    matches!(
        event,
        Event::Text { .. } | Event::Reasoning { .. } | Event::ToolOutput { .. }
    )
}

/// Appends `next` to `held` when both are pieces of the same stream.
fn merge(held: &mut Event, next: &Event) -> bool {
    match (held, next) {
        (Event::Text { delta: a }, Event::Text { delta: b })
        | (Event::Reasoning { delta: a }, Event::Reasoning { delta: b }) => {
            a.push_str(b);
            true
        }
        (
            Event::ToolOutput {
                tool_call_id: a_id,
                delta: a,
            },
            Event::ToolOutput {
                tool_call_id: b_id,
                delta: b,
            },
        ) if a_id == b_id => {
            a.push_str(b);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_of_one_stream_merge() {
        let mut held = Event::Text {
            delta: "Hel".into(),
        };
        assert!(merge(&mut held, &Event::Text { delta: "lo".into() }));
        assert_eq!(
            held,
            Event::Text {
                delta: "Hello".into()
            }
        );
        assert!(!merge(&mut held, &Event::Reasoning { delta: "r".into() }));
        let mut out = Event::ToolOutput {
            tool_call_id: "a".into(),
            delta: "1".into(),
        };
        let other = Event::ToolOutput {
            tool_call_id: "b".into(),
            delta: "2".into(),
        };
        assert!(!merge(&mut out, &other));
    }
}
