//! A scripted OpenAI-compatible model server for Tandem's tests.
//!
//! [`MockServer::start`] serves a [`Scenario`] on `127.0.0.1`: each `POST /v1/chat/completions`
//! (or `/chat/completions`) gets the next scripted [`Reply`], streamed the way real
//! OpenAI-compatible servers stream. `GET /v1/models` lists the scenario's models;
//! `GET /__mock/requests` returns every request received, `GET /__mock/failures` every check
//! that failed. The server runs on its own thread, so it serves whatever the test thread does,
//! and stops when the [`MockServer`] is dropped.

mod http;
mod render;
mod scenario;

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use scenario::{Aside, ModelEntry, Reply, Scenario, ToolCallSpec, UsageSpec};

/// A request as the mock received it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Lower-case names.
    pub headers: BTreeMap<String, String>,
    /// The parsed JSON body (a string when it was not JSON, null when empty).
    pub body: Value,
}

impl RecordedRequest {
    /// The chat messages sent.
    pub fn messages(&self) -> &[Value] {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The messages with this role.
    pub fn messages_with_role(&self, role: &str) -> Vec<&Value> {
        self.messages()
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some(role))
            .collect()
    }

    /// The text of each message's content (a string, or the text parts of a list).
    pub fn message_texts(&self) -> Vec<String> {
        self.messages().iter().map(render::message_text).collect()
    }

    /// The content of the last `role: tool` message.
    pub fn last_tool_result(&self) -> Option<String> {
        self.messages_with_role("tool")
            .last()
            .map(|m| render::message_text(m))
    }
}

/// Where a stream is holding back: the events sent so far, and why nothing more comes yet.
/// Reported once those events are written, so a test can tell "silent" from "not yet sent"
/// without waiting for a while and assuming.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// Pausing (`delayMs`) before the next event.
    Paused { sent: usize },
    /// Stalled (`stallAfterChunks`): nothing more until the client hangs up.
    Stalled { sent: usize },
}

/// What the server threads share.
pub(crate) struct Shared {
    scenario: Scenario,
    state: Mutex<State>,
    /// The latest stream hold, for [`MockServer::hold`].
    hold: tokio::sync::watch::Sender<Option<Hold>>,
}

#[derive(Default)]
struct State {
    requests: Vec<RecordedRequest>,
    replies: VecDeque<Reply>,
    chat_requests: usize,
    failures: Vec<String>,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn log(&self, request: RecordedRequest) {
        self.state().requests.push(request);
    }

    /// The next chat request's number (1-based) and its reply, if one is left: an aside's when
    /// the request's system message names one, else the next of the sequence.
    fn next_reply(&self, body: &Value) -> (usize, Option<Reply>) {
        let system = body["messages"][0]
            .get("content")
            .filter(|_| body["messages"][0]["role"] == "system")
            .map(|c| c.as_str().map_or_else(|| c.to_string(), String::from))
            .unwrap_or_default();
        if let Some(aside) = self
            .scenario
            .asides
            .iter()
            .find(|a| system.contains(&a.system_contains))
        {
            return (self.state().chat_requests, Some(aside.reply.clone()));
        }
        let mut state = self.state();
        state.chat_requests += 1;
        (state.chat_requests, state.replies.pop_front())
    }

    /// The answer of `route_states` for `key`, as the chat requests so far make it.
    fn route_state(&self, key: &str) -> Option<Value> {
        let states = self.scenario.route_states.get(key)?;
        let n = self.state().chat_requests;
        states.get(n).or(states.last()).cloned()
    }

    fn fail(&self, message: String) {
        self.state().failures.push(message);
    }

    fn requests(&self) -> Vec<RecordedRequest> {
        self.state().requests.clone()
    }

    pub(crate) fn holding(&self, hold: Hold) {
        self.hold.send_replace(Some(hold));
    }

    fn failures(&self) -> Vec<String> {
        self.state().failures.clone()
    }
}

/// A running mock. Dropping it stops the server and closes its connections.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MockServer {
    /// Serves `scenario` on a free port.
    pub fn start(scenario: Scenario) -> MockServer {
        Self::start_on(scenario, 0).expect("mock-model: cannot start")
    }

    /// Serves `scenario` on `port` (0: any free one).
    pub fn start_on(scenario: Scenario, port: u16) -> std::io::Result<MockServer> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                replies: scenario.responses.iter().cloned().collect(),
                ..State::default()
            }),
            scenario,
            hold: tokio::sync::watch::Sender::new(None),
        });
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let serving = shared.clone();
        let thread = std::thread::Builder::new()
            .name("mock-model".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => return eprintln!("mock-model: {e}"),
                    };
                    tokio::pin!(stopped);
                    loop {
                        tokio::select! {
                            _ = &mut stopped => break,
                            accepted = listener.accept() => {
                                if let Ok((stream, _)) = accepted {
                                    tokio::spawn(http::serve(stream, serving.clone()));
                                }
                            }
                        }
                    }
                });
                // Dropping the runtime here ends every connection task.
            })?;
        Ok(MockServer {
            addr,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT/v1`
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received, in order (chat requests, model lists, anything else).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests()
    }

    /// The chat completion requests, in order.
    pub fn chat_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
            .collect()
    }

    /// Expectations that failed and requests that found no scripted reply.
    pub fn failures(&self) -> Vec<String> {
        self.shared.failures()
    }

    /// Waits until a stream holds as `done` accepts (the latest hold reported), and returns it.
    /// The events it counts are written by then: what the client has not read of them is on its
    /// way, and nothing else is sent before the hold ends.
    pub async fn hold(&self, mut done: impl FnMut(Hold) -> bool) -> Hold {
        let mut seen = self.shared.hold.subscribe();
        let hold = *seen
            .wait_for(|hold| hold.is_some_and(&mut done))
            .await
            .expect("the mock's state outlives its server");
        hold.expect("accepted above")
    }

    /// How many scripted replies are still unused.
    pub fn replies_left(&self) -> usize {
        self.shared.state().replies.len()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
