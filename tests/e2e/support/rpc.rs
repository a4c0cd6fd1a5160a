//! A small JSON-RPC client with LSP framing, as an editor would be: it sends requests, routes
//! responses by id, keeps every notification, and answers the server's requests (approvals
//! from a scripted queue).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::watch;

/// How long any wait may take before the test fails: a net against hangs, not a speed check.
pub const SAFETY: Duration = Duration::from_secs(30);

/// A JSON-RPC error the server answered with.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

/// What the client answers to a server request.
#[derive(Clone, Debug)]
pub enum Answer {
    Result(Value),
    /// A JSON-RPC error (as when the editor fails to show the question).
    Error(i64, String),
    /// The answer once the test opens the gate (sends `true`): an editor still busy; the client
    /// goes on reading meanwhile.
    Held(tokio::sync::watch::Receiver<bool>, Box<Answer>),
}

impl From<Value> for Answer {
    fn from(result: Value) -> Self {
        Answer::Result(result)
    }
}

/// Answers one kind of server request (other than approvals), given its params.
pub type Handler = Box<dyn FnMut(&Value) -> Answer + Send>;

/// Everything the server sent, as the client saw it.
#[derive(Default)]
pub struct Inbox {
    responses: HashMap<i64, Value>,
    /// The params of each `tandem/update`, in order.
    pub updates: Vec<Value>,
    /// The params of each `tandem/requestApproval`, in order.
    pub approvals: Vec<Value>,
    /// Any other message from the server.
    pub other: Vec<Value>,
    /// Scripted answers to approval requests, used in order.
    replies: VecDeque<Answer>,
    /// Answers to other server requests, by method.
    handlers: HashMap<String, Handler>,
    /// Approval requests (their ids) that came when no reply was scripted.
    held: VecDeque<Value>,
    /// Every notification and request from the server, in the order they came.
    pub log: Vec<Value>,
    /// The server closed its output.
    pub closed: bool,
}

/// The server's input; `None` once the client closed it.
type Writer = Arc<tokio::sync::Mutex<Option<Box<dyn AsyncWrite + Send + Unpin>>>>;

pub struct Connection {
    writer: Writer,
    inbox: Arc<Mutex<Inbox>>,
    changed: watch::Receiver<u64>,
    next_id: AtomicI64,
    /// What else to show when a wait fails (e.g. the server's stderr).
    context: Box<dyn Fn() -> String + Send + Sync>,
}

async fn write_frame(writer: &Writer, message: &Value) -> std::io::Result<()> {
    let body = message.to_string();
    let mut guard = writer.lock().await;
    let Some(w) = guard.as_mut() else {
        return Err(std::io::Error::other(
            "the client closed the server's input",
        ));
    };
    w.write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
        .await?;
    w.flush().await
}

/// Reads one framed message; `None` at the end of the stream.
async fn read_frame<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length.expect("a frame without Content-Length")];
    reader.read_exact(&mut body).await.ok()?;
    Some(serde_json::from_slice(&body).expect("a frame that is not JSON"))
}

impl Connection {
    pub fn start(
        output: impl AsyncRead + Send + Unpin + 'static,
        input: impl AsyncWrite + Send + Unpin + 'static,
        context: Box<dyn Fn() -> String + Send + Sync>,
    ) -> Self {
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(Some(Box::new(input))));
        let inbox = Arc::new(Mutex::new(Inbox::default()));
        let (tx, changed) = watch::channel(0u64);
        tokio::spawn(read_loop(
            BufReader::new(output),
            writer.clone(),
            inbox.clone(),
            tx,
        ));
        Self {
            writer,
            inbox,
            changed,
            next_id: AtomicI64::new(1),
            context,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inbox> {
        self.inbox.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A look at what came so far.
    pub fn inbox<T>(&self, f: impl FnOnce(&Inbox) -> T) -> T {
        f(&self.lock())
    }

    pub async fn notify(&self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        write_frame(&self.writer, &message)
            .await
            .unwrap_or_else(|e| panic!("cannot send {method}: {e}"));
    }

    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        // No params is sent as none, as editors do for methods that take none.
        if !params.is_null() {
            message["params"] = params;
        }
        write_frame(&self.writer, &message)
            .await
            .unwrap_or_else(|e| panic!("cannot send {method}: {e}"));
        let response = self
            .wait(&format!("the answer to {method}"), |inbox| {
                inbox.responses.remove(&id)
            })
            .await;
        match response.get("error") {
            Some(error) => Err(RpcError {
                code: error["code"].as_i64().unwrap_or(0),
                message: error["message"].as_str().unwrap_or("").to_string(),
            }),
            None => Ok(response.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    /// Queues answers to approval requests; one waiting already is answered at once.
    pub async fn reply_approvals(&self, replies: impl IntoIterator<Item = impl Into<Answer>>) {
        let ready: Vec<(Value, Answer)> = {
            let mut inbox = self.lock();
            inbox.replies.extend(replies.into_iter().map(Into::into));
            let mut ready = Vec::new();
            while !inbox.held.is_empty() && !inbox.replies.is_empty() {
                let id = inbox.held.pop_front().unwrap();
                ready.push((id, inbox.replies.pop_front().unwrap()));
            }
            ready
        };
        for (id, reply) in ready {
            answer(&self.writer, id, reply).await;
        }
    }

    /// Waits until `check` finds what it looks for in the inbox, or fails the test after
    /// [`SAFETY`] with everything received so far.
    pub async fn wait<T>(&self, what: &str, mut check: impl FnMut(&mut Inbox) -> Option<T>) -> T {
        let mut changed = self.changed.clone();
        let deadline = tokio::time::Instant::now() + SAFETY;
        loop {
            changed.borrow_and_update();
            let closed = {
                let mut inbox = self.lock();
                if let Some(found) = check(&mut inbox) {
                    return found;
                }
                inbox.closed
            };
            let timed_out = closed
                || tokio::time::timeout_at(deadline, changed.changed())
                    .await
                    .is_err();
            if timed_out {
                let why = if closed {
                    "the server closed its output"
                } else {
                    "timed out"
                };
                panic!("waiting for {what}: {why}.\n{}", self.dump());
            }
        }
    }

    /// Everything received so far, for a failure message.
    pub fn dump(&self) -> String {
        let inbox = self.lock();
        let lines = |items: &[Value]| {
            items
                .iter()
                .map(|v| format!("  {v}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        format!(
            "updates:\n{}\napproval requests:\n{}\nunanswered approval requests: {}\nother messages:\n{}\n{}",
            lines(&inbox.updates),
            lines(&inbox.approvals),
            inbox.held.len(),
            lines(&inbox.other),
            (self.context)()
        )
    }

    /// Writes bytes to the server's input as they are, framed or not (for malformed input).
    pub async fn send_raw(&self, bytes: &[u8]) {
        let mut guard = self.writer.lock().await;
        let w = guard
            .as_mut()
            .expect("the client closed the server's input");
        w.write_all(bytes)
            .await
            .expect("cannot write to the server");
        w.flush().await.expect("cannot write to the server");
    }

    /// Closes the server's input, as an editor that goes away without `shutdown`.
    pub async fn close(&self) {
        self.writer.lock().await.take();
    }

    /// Answers the server's `method` requests with `handler` from now on.
    pub fn on_request(&self, method: &str, handler: Handler) {
        self.lock().handlers.insert(method.to_string(), handler);
    }
}

async fn answer(writer: &Writer, id: Value, answer: Answer) {
    let (gates, message) = reply_message(id, answer);
    if gates.is_empty() {
        // The server may be gone (a test that kills it); nothing to do then.
        let _ = write_frame(writer, &message).await;
        return;
    }
    let writer = writer.clone();
    tokio::spawn(async move {
        for mut gate in gates {
            // A dropped sender opens the gate too: the test is over.
            let _ = gate.wait_for(|open| *open).await;
        }
        let _ = write_frame(&writer, &message).await;
    });
}

/// The response to send, and the gates to wait for before sending it.
fn reply_message(id: Value, answer: Answer) -> (Vec<tokio::sync::watch::Receiver<bool>>, Value) {
    match answer {
        Answer::Result(result) => (
            Vec::new(),
            json!({"jsonrpc": "2.0", "id": id, "result": result}),
        ),
        Answer::Error(code, message) => (
            Vec::new(),
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
        ),
        Answer::Held(gate, answer) => {
            let (mut gates, message) = reply_message(id, *answer);
            gates.push(gate);
            (gates, message)
        }
    }
}

async fn read_loop<R: AsyncRead + Unpin>(
    mut reader: BufReader<R>,
    writer: Writer,
    inbox: Arc<Mutex<Inbox>>,
    changed: watch::Sender<u64>,
) {
    let lock = || inbox.lock().unwrap_or_else(|e| e.into_inner());
    while let Some(message) = read_frame(&mut reader).await {
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").cloned();
        if method.is_some() {
            lock().log.push(message.clone());
        }
        match (method, id) {
            (None, Some(id)) => {
                match id.as_i64() {
                    Some(id) => lock().responses.insert(id, message),
                    // Not an id of ours (e.g. null, in the answer to a malformed message).
                    None => {
                        lock().other.push(message);
                        None
                    }
                };
            }
            (Some("tandem/update"), None) => lock().updates.push(message["params"].clone()),
            (Some("tandem/requestApproval"), Some(id)) => {
                let reply = {
                    let mut inbox = lock();
                    inbox.approvals.push(message["params"].clone());
                    let reply = inbox.replies.pop_front();
                    if reply.is_none() {
                        inbox.held.push_back(id.clone());
                    }
                    reply
                };
                if let Some(reply) = reply {
                    answer(&writer, id, reply).await;
                }
            }
            (Some(method), Some(id)) => {
                let reply = {
                    let mut inbox = lock();
                    inbox.other.push(message.clone());
                    match inbox.handlers.get_mut(method) {
                        Some(handler) => handler(&message["params"]),
                        None => Answer::Error(-32601, format!("the test client has no {method}")),
                    }
                };
                answer(&writer, id, reply).await;
            }
            (Some(_), None) => lock().other.push(message),
            (None, None) => lock().other.push(message),
        }
        changed.send_modify(|n| *n += 1);
    }
    lock().closed = true;
    changed.send_modify(|n| *n += 1);
}
