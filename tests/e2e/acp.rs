//! `tandem acp` end to end: the real binary, driven by a scripted ACP client written here by hand
//! (newline-delimited JSON-RPC), against the scripted mock model.
//!
//! The client plays an editor: it answers `fs/read_text_file` from in-memory "unsaved buffers"
//! (so a test can tell an editor read from a disk read), records `fs/write_text_file` without
//! touching the disk, and answers permission requests from a script. Nothing here depends on
//! timing: every wait is for a message, with a generous timeout only as a safety net.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use mock_model::{MockServer, Reply, Scenario};
use serde_json::{Value, json};

/// Only for a test that would otherwise hang: nothing waits this long when things work.
const SAFETY_NET: Duration = Duration::from_secs(60);

/// As a permission answer: leave the question open (the user hasn't decided yet).
const HOLD: &str = "hold";

struct AcpClient {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
    /// Every message from the agent, in order of arrival.
    log: Vec<Value>,
    /// The editor's unsaved text, by absolute path.
    buffers: HashMap<PathBuf, String>,
    /// Paths read through `fs/read_text_file`.
    reads: Vec<PathBuf>,
    /// `fs/write_text_file` calls: path and content.
    writes: Vec<(PathBuf, String)>,
    /// The options to pick, in order, for permission requests (or [`HOLD`]).
    answers: VecDeque<&'static str>,
    /// The ids of the permission requests left open.
    held: Vec<Value>,
}

impl AcpClient {
    fn spawn(base_url: &str, data_dir: &Path) -> AcpClient {
        Self::spawn_with(base_url, data_dir, |_| {})
    }

    /// Spawns with the command adjusted first (a temp home, say).
    fn spawn_with(base_url: &str, data_dir: &Path, adjust: impl FnOnce(&mut Command)) -> AcpClient {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tandem"));
        command
            .arg("acp")
            .arg("--base-url")
            .arg(base_url)
            .arg("--model")
            .arg("mock-coder")
            .arg("--data-dir")
            .arg(data_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (name, _) in std::env::vars() {
            if name.starts_with("TANDEM_") || name.starts_with("OPENAI_") {
                command.env_remove(name);
            }
        }
        adjust(&mut command);
        let mut child = command.spawn().expect("cannot start tandem acp");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        AcpClient {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 1,
            log: Vec::new(),
            buffers: HashMap::new(),
            reads: Vec::new(),
            writes: Vec::new(),
            answers: VecDeque::new(),
            held: Vec::new(),
        }
    }

    fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().expect("stdin is closed");
        let mut line = serde_json::to_string(&message).unwrap();
        line.push('\n');
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message from the agent, after answering it if it is a request to the editor.
    fn recv(&mut self) -> Value {
        let line = match self.lines.recv_timeout(SAFETY_NET) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                panic!("no message from the agent; got so far: {:#?}", self.log)
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the agent closed stdout; got so far: {:#?}", self.log)
            }
        };
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
        self.log.push(message.clone());
        if let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) {
            if method == "session/request_permission" && self.answers.front() == Some(&HOLD) {
                self.answers.pop_front();
                self.held.push(id.clone());
                return message;
            }
            let answer = self.answer(method, &message["params"]);
            let reply = match answer {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
            };
            self.send(reply);
        }
        message
    }

    /// What the editor says to the agent's requests.
    fn answer(&mut self, method: &str, params: &Value) -> Result<Value, Value> {
        match method {
            "fs/read_text_file" => {
                let path = PathBuf::from(params["path"].as_str().unwrap());
                self.reads.push(path.clone());
                let content = match self.buffers.get(&path) {
                    Some(text) => text.clone(),
                    None => std::fs::read_to_string(&path).map_err(
                        |e| json!({"code": -32002, "message": format!("{}: {e}", path.display())}),
                    )?,
                };
                Ok(json!({"content": content}))
            }
            "fs/write_text_file" => {
                let path = PathBuf::from(params["path"].as_str().unwrap());
                let content = params["content"].as_str().unwrap().to_string();
                self.buffers.insert(path.clone(), content.clone());
                self.writes.push((path, content));
                Ok(json!({}))
            }
            "session/request_permission" => {
                let choice = self
                    .answers
                    .pop_front()
                    .unwrap_or_else(|| panic!("unexpected permission request: {params}"));
                Ok(json!({"outcome": {"outcome": "selected", "optionId": choice}}))
            }
            _ => Err(json!({"code": -32601, "message": format!("no method {method}")})),
        }
    }

    /// Reads until the response to `id`; returns it whole (`result` or `error`).
    fn response(&mut self, id: u64) -> Value {
        loop {
            let message = self.recv();
            if message.get("method").is_none() && message["id"] == json!(id) {
                return message;
            }
        }
    }

    fn result(&mut self, id: u64) -> Value {
        let response = self.response(id);
        assert!(
            response.get("error").is_none(),
            "request {id} failed: {response}"
        );
        response["result"].clone()
    }

    /// Reads until a message satisfies `wanted`.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = self.recv();
            if wanted(&message) {
                return message;
            }
        }
    }

    fn initialize(&mut self, fs: bool) -> Value {
        let id = self.request(
            "initialize",
            json!({
                "protocolVersion": 1,
                "clientCapabilities": {"fs": {"readTextFile": fs, "writeTextFile": fs}, "terminal": false},
                "clientInfo": {"name": "scripted-test-client", "version": "0"},
            }),
        );
        self.result(id)
    }

    fn new_session(&mut self, cwd: &Path) -> String {
        let id = self.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
        self.result(id)["sessionId"].as_str().unwrap().to_string()
    }

    fn prompt(&mut self, session: &str, text: &str) -> u64 {
        self.request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
        )
    }

    /// The `session/update` payloads received so far for `session`, in order.
    fn updates(&self, session: &str) -> Vec<Value> {
        self.log
            .iter()
            .filter(|m| m["method"] == "session/update" && m["params"]["sessionId"] == session)
            .map(|m| m["params"]["update"].clone())
            .collect()
    }

    /// Where in the log the first message satisfying `wanted` is.
    fn position(&self, wanted: impl Fn(&Value) -> bool) -> usize {
        self.log
            .iter()
            .position(wanted)
            .unwrap_or_else(|| panic!("not in the log: {:#?}", self.log))
    }

    /// Closes stdin, as an editor does, and waits for the agent to exit.
    fn close(&mut self) {
        drop(self.stdin.take());
        for _ in 0..600 {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "tandem acp exited with {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("tandem acp did not exit after stdin closed");
    }
}

impl Drop for AcpClient {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The concatenated text of the updates of one kind.
fn chunks(updates: &[Value], kind: &str) -> String {
    updates
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .filter_map(|u| u["content"]["text"].as_str())
        .collect()
}

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    // Session roots are canonical, and so are the paths the agent sends.
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

/// A workspace, a data dir, the mock serving `replies`, and a client with a session on the
/// workspace (offering the editor's file methods when `fs`).
struct Fixture {
    _workspace: tempfile::TempDir,
    data: tempfile::TempDir,
    root: PathBuf,
    mock: MockServer,
    client: AcpClient,
    session: String,
}

fn fixture(replies: impl IntoIterator<Item = Reply>, fs: bool) -> Fixture {
    let (workspace, root) = workspace();
    let data = tempfile::tempdir().unwrap();
    let mock = MockServer::start(Scenario::new(replies));
    let mut client = AcpClient::spawn(&mock.base_url(), data.path());
    client.initialize(fs);
    let session = client.new_session(&root);
    Fixture {
        _workspace: workspace,
        data,
        root,
        mock,
        client,
        session,
    }
}

fn is_tool_call(message: &Value, title_word: &str) -> bool {
    let update = &message["params"]["update"];
    message["method"] == "session/update"
        && update["sessionUpdate"] == "tool_call"
        && update["title"]
            .as_str()
            .is_some_and(|t| t.contains(title_word))
}

#[test]
fn full_turn_reads_and_writes_through_the_editor_with_permission_and_diff() {
    let mut f = fixture(
        [
            Reply::tool("read_file", json!({"path": "a.txt"})).with_reasoning("Let me read it."),
            // The model saw the editor's unsaved text, not the disk's.
            Reply::tool(
                "write_to_file",
                json!({"path": "a.txt", "content": "one\nthree\n"}),
            )
            .expect_tool_result_contains("TWO unsaved"),
            Reply::text("Done: two is now three."),
        ],
        true,
    );
    let (root, session) = (f.root.clone(), f.session.clone());
    let (client, mock) = (&mut f.client, &f.mock);
    let init = client.log[0]["result"].clone();
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    assert_eq!(
        init["agentCapabilities"]["promptCapabilities"]["embeddedContext"],
        true
    );
    assert_eq!(init["agentInfo"]["name"], "tandem");

    let file = root.join("a.txt");
    std::fs::write(&file, "one\ntwo\n").unwrap();
    client
        .buffers
        .insert(file.clone(), "one\nTWO unsaved\n".into());
    client.answers.push_back("allow_once");
    let prompt = client.prompt(&session, "Change two to three in a.txt");
    assert_eq!(client.result(prompt)["stopReason"], "end_turn");
    assert_eq!(mock.failures(), Vec::<String>::new());

    // File access went through the editor, and the disk was left alone.
    assert!(client.reads.contains(&file), "reads: {:?}", client.reads);
    assert_eq!(
        client.writes,
        vec![(file.clone(), "one\nthree\n".to_string())]
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\ntwo\n");

    let updates = client.updates(&session);
    assert_eq!(chunks(&updates, "agent_thought_chunk"), "Let me read it.");
    assert_eq!(
        chunks(&updates, "agent_message_chunk"),
        "Done: two is now three."
    );
    let read = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call" && u["kind"] == "read")
        .expect("a read tool call");
    assert_eq!(read["locations"][0]["path"], json!(file));
    assert_eq!(read["status"], "in_progress");
    let edit = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call" && u["kind"] == "edit")
        .expect("an edit tool call");
    let edit_id = edit["toolCallId"].clone();
    assert_eq!(edit["rawInput"]["path"], "a.txt");
    assert_eq!(edit["locations"][0]["path"], json!(file));

    let diff = json!({
        "type": "diff",
        "path": file,
        "oldText": "one\nTWO unsaved\n",
        "newText": "one\nthree\n",
    });
    // Each request to the editor came after the tool call it serves.
    let read_at = client.position(|m| m["method"] == "fs/read_text_file");
    assert!(client.position(|m| is_tool_call(m, "a.txt")) < read_at);
    // The permission request came after the tool call it is about, and shows the diff.
    let asked_at = client.position(|m| m["method"] == "session/request_permission");
    let asked = client.log[asked_at]["params"].clone();
    assert!(
        client.position(|m| is_tool_call(m, "a.txt") && m["params"]["update"]["kind"] == "edit")
            < asked_at
    );
    assert_eq!(asked["sessionId"], session.as_str());
    assert_eq!(asked["toolCall"]["toolCallId"], edit_id);
    assert_eq!(asked["toolCall"]["content"], json!([diff.clone()]));
    let options: Vec<(&str, &str)> = asked["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["optionId"].as_str().unwrap(), o["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        options,
        [
            ("allow_once", "allow_once"),
            ("allow_always", "allow_always"),
            ("reject_once", "reject_once")
        ]
    );

    let finished: Vec<&Value> = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "tool_call_update" && u["toolCallId"] == edit_id)
        .collect();
    assert_eq!(finished.first().unwrap()["status"], "in_progress");
    let last = finished.last().unwrap();
    assert_eq!(last["status"], "completed");
    assert_eq!(last["content"], json!([diff]));

    // The answer to the prompt came after every update of the turn.
    let answered_at = client.position(|m| m["id"] == json!(prompt) && m.get("method").is_none());
    let last_update = client
        .log
        .iter()
        .rposition(|m| m["method"] == "session/update")
        .unwrap();
    assert!(last_update < answered_at);
    client.close();
}

#[test]
fn reject_then_allow_always() {
    let mut f = fixture(
        [
            Reply::tool(
                "write_to_file",
                json!({"path": "b.txt", "content": "nope\n"}),
            ),
            Reply::text("OK, leaving it.").expect_tool_result_contains("rejected"),
            Reply::tool("write_to_file", json!({"path": "c.txt", "content": "c\n"})),
            Reply::tool("write_to_file", json!({"path": "d.txt", "content": "d\n"})),
            Reply::text("Wrote both."),
        ],
        false,
    );
    let (root, session) = (f.root.clone(), f.session.clone());
    let (client, mock) = (&mut f.client, &f.mock);
    client.answers.push_back("reject_once");
    let first = client.prompt(&session, "Write b.txt");
    assert_eq!(client.result(first)["stopReason"], "end_turn");
    let updates = client.updates(&session);
    let rejected = updates
        .iter()
        .rfind(|u| u["sessionUpdate"] == "tool_call_update")
        .unwrap();
    assert_eq!(rejected["status"], "failed");
    let shown = rejected["content"].to_string();
    assert!(shown.contains("rejected"), "{shown}");
    assert!(!root.join("b.txt").exists());

    // "Always" covers the rest of the session's edits: one question for two edits.
    client.answers.push_back("allow_always");
    let second = client.prompt(&session, "Write c.txt and d.txt");
    assert_eq!(client.result(second)["stopReason"], "end_turn");
    assert!(client.answers.is_empty());
    let asked = client
        .log
        .iter()
        .filter(|m| m["method"] == "session/request_permission")
        .count();
    assert_eq!(asked, 2);
    assert_eq!(std::fs::read_to_string(root.join("c.txt")).unwrap(), "c\n");
    assert_eq!(std::fs::read_to_string(root.join("d.txt")).unwrap(), "d\n");
    assert_eq!(mock.failures(), Vec::<String>::new());
    client.close();
}

#[test]
fn command_output_streams_into_the_tool_call() {
    let mut f = fixture(
        [
            Reply::tool(
                "execute_command",
                // `touch` is on no rule, so the question is asked (printf alone runs unasked).
                json!({"command": "touch ran.txt && printf 'alpha\\nbeta\\n'"}),
            ),
            Reply::text("Ran it.").expect_tool_result_contains("beta"),
        ],
        false,
    );
    let session = f.session.clone();
    let (client, mock) = (&mut f.client, &f.mock);
    client.answers.push_back("allow_once");
    let prompt = client.prompt(&session, "Run it");
    assert_eq!(client.result(prompt)["stopReason"], "end_turn");
    assert_eq!(mock.failures(), Vec::<String>::new());

    let updates = client.updates(&session);
    let call = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call")
        .unwrap();
    assert_eq!(call["kind"], "execute");
    let asked = client.position(|m| m["method"] == "session/request_permission");
    let shown = client.log[asked]["params"]["toolCall"]["content"].to_string();
    assert!(shown.contains("printf"), "{shown}");
    let last = updates
        .iter()
        .rfind(|u| u["sessionUpdate"] == "tool_call_update")
        .unwrap();
    assert_eq!(last["status"], "completed");
    let content = last["content"].as_array().unwrap();
    let output = content
        .iter()
        .find_map(|c| c["content"]["text"].as_str())
        .unwrap_or_else(|| panic!("no output in {last}"));
    assert!(output.contains("alpha\nbeta"), "{output}");
    // What the command wrote, captured in its walls, is the call's diff.
    let diff = content
        .iter()
        .find(|c| c["type"] == "diff")
        .unwrap_or_else(|| panic!("no diff in {last}"));
    assert!(
        diff["path"].as_str().unwrap().ends_with("ran.txt"),
        "{diff}"
    );
    assert_eq!(diff["newText"], "", "{diff}");
    client.close();
}

/// A pipeline of read-only parts runs unasked inside the walls; a substitution of a command no
/// rule admits asks, and the request says which part and offers "always" for just that rule.
#[test]
fn pipelines_run_unasked_and_a_substitution_asks_saying_which_part() {
    let mut f = fixture(
        [
            Reply::tool(
                "execute_command",
                json!({"command": "printf 'one\\ntwo\\n' | wc -l && echo done"}),
            ),
            Reply::text("Counted.").expect_tool_result_contains("done"),
            Reply::tool(
                "execute_command",
                json!({"command": "echo $(touch made.txt)"}),
            ),
            Reply::text("Left it.").expect_tool_result_contains("rejected"),
        ],
        false,
    );
    let (root, session) = (f.root.clone(), f.session.clone());
    let (client, mock) = (&mut f.client, &f.mock);
    let first = client.prompt(&session, "Count");
    assert_eq!(client.result(first)["stopReason"], "end_turn");
    assert!(
        !client
            .log
            .iter()
            .any(|m| m["method"] == "session/request_permission"),
        "a pipeline of read-only parts asked"
    );
    client.answers.push_back("reject_once");
    let second = client.prompt(&session, "Touch");
    assert_eq!(client.result(second)["stopReason"], "end_turn");
    let asked = client.position(|m| m["method"] == "session/request_permission");
    let params = &client.log[asked]["params"];
    let shown = params["toolCall"]["content"].to_string();
    assert!(
        shown.contains("Asked because `touch made.txt` (in a substitution): no rule admits"),
        "{shown}"
    );
    let always = params["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "allow_always")
        .expect("an always option");
    assert!(
        always["name"]
            .as_str()
            .unwrap()
            .starts_with("Always allow `touch made.txt`"),
        "{always}"
    );
    assert!(!root.join("made.txt").exists());
    assert_eq!(mock.failures(), Vec::<String>::new());
    client.close();
}

#[test]
fn prompt_context_reaches_the_model() {
    let mut f = fixture(
        [Reply::text("Seen.")
            .expect_messages_contain("fn on_disk() {}")
            .expect_messages_contain("fn unsaved() {}")],
        false,
    );
    let (root, session) = (f.root.clone(), f.session.clone());
    let (client, mock) = (&mut f.client, &f.mock);
    std::fs::write(root.join("disk.rs"), "fn on_disk() {}\n").unwrap();
    let uri = |name: &str| format!("file://{}", root.join(name).display());
    let prompt = client.request(
        "session/prompt",
        json!({"sessionId": session, "prompt": [
            {"type": "text", "text": "Compare "},
            {"type": "resource_link", "name": "disk.rs", "uri": uri("disk.rs")},
            {"type": "text", "text": " with "},
            {"type": "resource", "resource": {"uri": uri("open.rs"), "text": "fn unsaved() {}\n"}},
        ]}),
    );
    assert_eq!(client.result(prompt)["stopReason"], "end_turn");
    assert_eq!(mock.failures(), Vec::<String>::new());
    client.close();
}

#[test]
fn cancel_mid_turn_answers_cancelled() {
    let mut f = fixture(
        [
            // One piece of text, then the stream stalls until the agent hangs up.
            Reply::text("Thinking about it for a long while").stall_after(2),
            Reply::text("Back again."),
        ],
        false,
    );
    let session = f.session.clone();
    let client = &mut f.client;
    let prompt = client.prompt(&session, "Think");
    client.wait_for(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk");
    client.notify("session/cancel", json!({"sessionId": session}));
    assert_eq!(client.result(prompt)["stopReason"], "cancelled");

    // The session goes on.
    let next = client.prompt(&session, "Again");
    assert_eq!(client.result(next)["stopReason"], "end_turn");
    assert!(chunks(&client.updates(&session), "agent_message_chunk").ends_with("Back again."));
    client.close();
}

#[test]
fn cancel_while_asking_rejects_and_answers_cancelled() {
    let mut f = fixture(
        [Reply::tool(
            "write_to_file",
            json!({"path": "b.txt", "content": "b\n"}),
        )],
        false,
    );
    let (root, session) = (f.root.clone(), f.session.clone());
    let client = &mut f.client;
    client.answers.push_back(HOLD);
    let prompt = client.prompt(&session, "Write b.txt");
    client.wait_for(|m| m["method"] == "session/request_permission");
    client.notify("session/cancel", json!({"sessionId": session}));
    assert_eq!(client.result(prompt)["stopReason"], "cancelled");
    let last = client
        .updates(&session)
        .into_iter()
        .rfind(|u| u["sessionUpdate"] == "tool_call_update")
        .unwrap();
    assert_eq!(last["status"], "failed");
    assert!(!root.join("b.txt").exists());
    // The editor withdraws its question, as ACP asks, once it sees the cancel.
    let held = client.held.pop().unwrap();
    client.send(
        json!({"jsonrpc": "2.0", "id": held, "result": {"outcome": {"outcome": "cancelled"}}}),
    );
    client.close();
}

#[test]
fn an_edit_whose_buffer_changed_while_asking_is_never_sent_to_the_editor() {
    let mut f = fixture(
        [
            Reply::tool(
                "write_to_file",
                json!({"path": "a.txt", "content": "from the model\n"}),
            ),
            Reply::text("I'll read it again.").expect_tool_result_contains("stale"),
        ],
        true,
    );
    let (root, session) = (f.root.clone(), f.session.clone());
    let (client, mock) = (&mut f.client, &f.mock);
    let file = root.join("a.txt");
    std::fs::write(&file, "on disk\n").unwrap();
    client.buffers.insert(file.clone(), "unsaved\n".into());
    client.answers.push_back(HOLD);
    let prompt = client.prompt(&session, "Rewrite a.txt");
    client.wait_for(|m| m["method"] == "session/request_permission");
    // While the question is open, the user types in the buffer; then allows the (now stale) edit.
    client
        .buffers
        .insert(file.clone(), "unsaved, and typed on\n".into());
    let held = client.held.pop().unwrap();
    client.send(json!({"jsonrpc": "2.0", "id": held,
                       "result": {"outcome": {"outcome": "selected", "optionId": "allow_once"}}}));
    assert_eq!(client.result(prompt)["stopReason"], "end_turn");
    assert_eq!(mock.failures(), Vec::<String>::new());
    assert_eq!(
        client.writes,
        Vec::<(PathBuf, String)>::new(),
        "a stale edit reached the editor"
    );
    assert_eq!(client.buffers[&file], "unsaved, and typed on\n");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "on disk\n");
    client.close();
}

#[test]
fn model_error_answers_the_prompt_with_an_error() {
    let mut f = fixture(
        [Reply::status(400).with_body(json!({"error": {"message": "no such model here"}}))],
        false,
    );
    let session = f.session.clone();
    let client = &mut f.client;
    let prompt = client.prompt(&session, "Hello");
    let response = client.response(prompt);
    assert_eq!(response["error"]["code"], -32603, "{response}");
    let message = response["error"]["message"].as_str().unwrap();
    assert!(message.contains("no such model here"), "{message}");
    client.close();
}

#[test]
fn load_after_restart_replays_history() {
    let mut f = fixture(
        [
            Reply::tool("read_file", json!({"path": "a.txt"})),
            Reply::text("It says one, two."),
        ],
        false,
    );
    let (root, session) = (f.root.clone(), f.session.clone());
    let client = &mut f.client;
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    let prompt = client.prompt(&session, "What is in a.txt?");
    assert_eq!(client.result(prompt)["stopReason"], "end_turn");
    client.close();

    // A new process on the same data dir.
    let mock = MockServer::start(Scenario::new([
        Reply::text("Still here.").expect_messages_contain("It says one, two.")
    ]));
    let mut client = AcpClient::spawn(&mock.base_url(), f.data.path());
    client.initialize(false);
    let listed = client.request("session/list", json!({"cwd": root}));
    let listed = client.result(listed);
    assert_eq!(listed["sessions"][0]["sessionId"], session.as_str());
    assert_eq!(listed["sessions"][0]["title"], "What is in a.txt?");

    let load = client.request(
        "session/load",
        json!({"sessionId": session, "cwd": root, "mcpServers": []}),
    );
    client.result(load);
    // Every update of the replay came before the answer.
    let updates = client.updates(&session);
    let kinds: Vec<&str> = updates
        .iter()
        .map(|u| u["sessionUpdate"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "user_message_chunk",
            "tool_call",
            "tool_call_update",
            "agent_message_chunk"
        ],
        "{updates:#?}"
    );
    assert_eq!(updates[0]["content"]["text"], "What is in a.txt?");
    assert_eq!(updates[1]["kind"], "read");
    assert_eq!(updates[2]["status"], "completed");
    assert_eq!(updates[3]["content"]["text"], "It says one, two.");

    // The loaded session goes on with its whole conversation.
    let prompt = client.prompt(&session, "And now?");
    assert_eq!(client.result(prompt)["stopReason"], "end_turn");
    assert_eq!(mock.failures(), Vec::<String>::new());
    client.close();
}

/// ACP's `session/new` `mcpServers` run for that session: their tools reach the model, each call
/// asks (`session/request_permission`), and the call shows as a `tool_call` of kind `other`.
#[test]
fn session_mcp_servers_are_honoured() {
    let everything = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp-servers/node_modules/.bin/mcp-server-everything");
    assert!(
        everything.exists(),
        "run `npm ci --prefix tests/mcp-servers` from the repository root"
    );
    let (_workspace, root) = workspace();
    let data = tempfile::tempdir().unwrap();
    let mock = MockServer::start(Scenario::new([
        Reply::tool("everything__echo", json!({"message": "via acp"})),
        Reply::text("Echoed.").expect_tool_result_contains("Echo: via acp"),
    ]));
    let mut client = AcpClient::spawn(&mock.base_url(), data.path());
    client.initialize(false);
    let id = client.request(
        "session/new",
        json!({"cwd": root, "mcpServers": [
            {"name": "everything", "command": everything, "args": ["stdio"], "env": []}
        ]}),
    );
    let session = client.result(id)["sessionId"].as_str().unwrap().to_string();
    client.answers.push_back("allow_once");
    let turn = client.prompt(&session, "Echo");
    assert_eq!(client.result(turn)["stopReason"], "end_turn");
    let updates = client.updates(&session);
    let call = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call")
        .expect("a tool_call");
    // Kind `other` is ACP's default, which the SDK leaves out of the message.
    assert!(
        call.get("kind").is_none() || call["kind"] == "other",
        "{call}"
    );
    assert_eq!(call["title"], "everything · echo");
    let asked: Vec<&Value> = client
        .log
        .iter()
        .filter(|m| m["method"] == "session/request_permission")
        .collect();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0]["params"]["toolCall"]["content"]
            .to_string()
            .contains("via acp")
    );
    assert_eq!(mock.failures(), Vec::<String>::new());
    client.close();

    // After a restart, `session/load` names the servers again: the reopened session has them.
    let mock = MockServer::start(Scenario::new([
        Reply::tool("everything__echo", json!({"message": "after load"})),
        Reply::text("Echoed again.").expect_tool_result_contains("Echo: after load"),
    ]));
    let mut client = AcpClient::spawn(&mock.base_url(), data.path());
    client.initialize(false);
    let load = client.request(
        "session/load",
        json!({"sessionId": session, "cwd": root, "mcpServers": [
            {"name": "everything", "command": everything, "args": ["stdio"], "env": []}
        ]}),
    );
    client.result(load);
    client.answers.push_back("allow_once");
    let turn = client.prompt(&session, "Echo again");
    assert_eq!(client.result(turn)["stopReason"], "end_turn");
    let offered = &mock.chat_requests()[0].body["tools"];
    assert!(
        offered.to_string().contains("everything__echo"),
        "the reloaded session's tools: {offered}"
    );
    assert_eq!(mock.failures(), Vec::<String>::new());
    client.close();
}

/// `available_commands_update` after `session/new`, again when a file is added, and `/name args`
/// run as the command's text.
#[test]
fn custom_commands_are_offered_and_run_with_their_arguments() {
    let (_workspace, root) = workspace();
    let home = tempfile::tempdir().unwrap();
    let user = home.path().join(".config/tandem/commands");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(user.join("mine.md"), "My own: $ARGUMENTS").unwrap();
    std::fs::create_dir_all(root.join(".tandem/commands")).unwrap();
    std::fs::write(
        root.join(".tandem/commands/review.md"),
        "---\ndescription: Review a file\nargument-hint: <file> <quality>\n---\nReview $1 for $2.",
    )
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let mock = MockServer::start(Scenario::new([
        Reply::text("Reviewed.").expect_messages_contain("Review src/a.rs for speed."),
        Reply::text("Later.").expect_messages_contain("Added while running: now"),
        Reply::text("As typed.").expect_messages_contain("/unknown x"),
    ]));
    let mut client = AcpClient::spawn_with(&mock.base_url(), data.path(), |c| {
        c.env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"));
    });
    client.initialize(false);
    let session = client.new_session(&root);
    let offered = client.wait_for(|m| {
        m["method"] == "session/update"
            && m["params"]["update"]["sessionUpdate"] == "available_commands_update"
    });
    let commands = &offered["params"]["update"]["availableCommands"];
    assert_eq!(commands.as_array().unwrap().len(), 3, "{commands:#}");
    // The built-in first, then the files'.
    assert_eq!(commands[0]["name"], "undo");
    let commands = &commands.as_array().unwrap()[1..];
    assert_eq!(commands[0]["name"], "mine");
    assert!(
        commands[0]["description"]
            .as_str()
            .unwrap()
            .starts_with("your command, "),
        "{commands:#?}"
    );
    assert_eq!(commands[1]["name"], "review");
    assert_eq!(
        commands[1]["description"],
        "Review a file (project command, .tandem/commands/review.md)"
    );
    assert_eq!(commands[1]["input"]["hint"], "<file> <quality>");

    let turn = client.prompt(&session, "/review src/a.rs speed");
    assert_eq!(client.result(turn)["stopReason"], "end_turn");

    // A new file: offered again before the next turn, and runnable at once.
    std::fs::create_dir_all(root.join(".claude/commands")).unwrap();
    std::fs::write(
        root.join(".claude/commands/later.md"),
        "Added while running: $ARGUMENTS",
    )
    .unwrap();
    let turn = client.prompt(&session, "/later now");
    assert_eq!(client.result(turn)["stopReason"], "end_turn");
    let updates: Vec<Value> = client
        .updates(&session)
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "available_commands_update")
        .collect();
    assert_eq!(updates.len(), 2, "{updates:#?}");
    let names: Vec<&str> = updates[1]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["undo", "later", "mine", "review"]);

    // Not a command: the text goes as typed, and the unchanged list is not sent again.
    let turn = client.prompt(&session, "/unknown x");
    assert_eq!(client.result(turn)["stopReason"], "end_turn");
    let count = client
        .updates(&session)
        .iter()
        .filter(|u| u["sessionUpdate"] == "available_commands_update")
        .count();
    assert_eq!(count, 2);
    assert_eq!(mock.failures(), Vec::<String>::new());
    assert_eq!(mock.chat_requests().len(), 3);
    client.close();
}

/// A page server on 127.0.0.1 for `fetch_url`: `/start` redirects to `localhost`, anything else
/// is HTML that sets a cookie. Each request's head is kept.
fn page_server() -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = heads.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { return };
            let mut buf = vec![0u8; 16384];
            let mut n = 0;
            while !buf[..n].windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf[n..]) {
                    Ok(0) | Err(_) => break,
                    Ok(k) => n += k,
                }
            }
            let head = String::from_utf8_lossy(&buf[..n]).into_owned();
            seen.lock().unwrap().push(head.clone());
            let body = "<h1>Release notes</h1><p>All <i>good</i>.</p>";
            let answer = if head.starts_with("GET /start") {
                format!(
                    "HTTP/1.1 302 Found\r\nLocation: http://localhost:{port}/page\r\n\
                     Content-Length: 0\r\nConnection: close\r\n\r\n"
                )
            } else {
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nSet-Cookie: sid=s3cret\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
            };
            let _ = s.write_all(answer.as_bytes());
        }
    });
    (port, heads)
}

/// `fetch_url` over ACP: a listed host read as Markdown without a question; a redirect to a new
/// host asked with Allow and Reject only; an unlisted loopback address refused without asking;
/// no key or cookie sent.
#[test]
fn fetch_asks_per_new_host_and_sends_nothing_of_the_users() {
    let (_workspace, root) = workspace();
    let data = tempfile::tempdir().unwrap();
    let (port, heads) = page_server();
    let url = |path: &str| format!("http://127.0.0.1:{port}{path}");
    let mock = MockServer::start(Scenario::new([
        Reply::tool("fetch_url", json!({"url": url("/page")})),
        Reply::tool("fetch_url", json!({"url": url("/start")})),
        Reply::tool("fetch_url", json!({"url": "http://127.0.0.2:9/admin"})),
        Reply::text("Done."),
    ]));
    let mut client = AcpClient::spawn_with(&mock.base_url(), data.path(), |c| {
        c.args(["--allow-fetch", "127.0.0.1", "--api-key", "sk-acp-SECRET"]);
    });
    client.initialize(false);
    let session = client.new_session(&root);
    client.answers.push_back("allow_once");
    let turn = client.prompt(&session, "Read the release notes");
    assert_eq!(client.result(turn)["stopReason"], "end_turn");

    let asked: Vec<&Value> = client
        .log
        .iter()
        .filter(|m| m["method"] == "session/request_permission")
        .collect();
    assert_eq!(asked.len(), 1, "{asked:#?}");
    let options: Vec<&str> = asked[0]["params"]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["optionId"].as_str().unwrap())
        .collect();
    assert_eq!(options, ["allow_once", "reject_once"]);
    let question = asked[0]["params"]["toolCall"].to_string();
    assert!(
        question.contains(&format!("http://localhost:{port}/page"))
            && question.contains(&format!("redirected from {}", url("/start"))),
        "{question}"
    );
    let updates = client.updates(&session);
    let calls: Vec<&Value> = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "tool_call")
        .collect();
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|c| c["kind"] == "fetch"), "{calls:#?}");
    let requests = mock.chat_requests();
    assert_eq!(requests.len(), 4);
    let page = requests[1].last_tool_result().unwrap();
    assert!(
        page.contains("# Release notes") && page.contains("All *good*."),
        "{page}"
    );
    // Allowed, but `localhost` is loopback and not listed by name.
    assert!(
        requests[2]
            .last_tool_result()
            .unwrap()
            .contains("Error (refused)")
    );
    // Not listed, and a loopback address: refused before any question.
    let refused = requests[3].last_tool_result().unwrap();
    assert!(
        refused.contains("127.0.0.2 is a private, loopback or local address"),
        "{refused}"
    );
    let heads = heads.lock().unwrap().clone();
    assert_eq!(heads.len(), 2, "{heads:#?}");
    for head in heads {
        let lower = head.to_ascii_lowercase();
        assert!(
            !lower.contains("cookie") && !lower.contains("authorization"),
            "{head}"
        );
        assert!(!head.contains("sk-acp-SECRET"), "{head}");
    }
    assert_eq!(mock.failures(), Vec::<String>::new());
    client.close();
}

#[test]
fn subagents_permission_request_names_the_subagent_and_its_task_call() {
    let mut task = Reply::tool(
        "task",
        json!({"description": "write", "prompt": "Put beta in notes.txt", "subagent_type": "writer"}),
    );
    task.tool_calls[0].id = Some("call_0".into());
    // The child numbers its calls from call_0 too.
    let mut write = Reply::tool(
        "write_to_file",
        json!({"path": "notes.txt", "content": "beta\n"}),
    );
    write.tool_calls[0].id = Some("call_0".into());
    let mut f = fixture(
        [
            task,
            write,
            Reply::text("Refused.").expect_tool_result_contains("rejected"),
            Reply::text("Not written.").expect_tool_result_contains("Refused."),
        ],
        false,
    );
    let (root, session) = (f.root.clone(), f.session.clone());
    std::fs::create_dir_all(root.join(".tandem/agents")).unwrap();
    std::fs::write(
        root.join(".tandem/agents/writer.md"),
        "---\ndescription: Writes\ntools: [Write]\n---\nWrite what is asked.\n",
    )
    .unwrap();
    let client = &mut f.client;
    client.answers.push_back("reject_once");
    let prompt = client.prompt(&session, "Delegate the write");
    assert_eq!(client.result(prompt)["stopReason"], "end_turn");
    let asked_at = client.position(|m| m["method"] == "session/request_permission");
    let asked = &client.log[asked_at]["params"]["toolCall"];
    assert_eq!(asked["toolCallId"], "call_0/call_0", "{asked}");
    assert_eq!(
        asked["title"], "Subagent writer asks: Write notes.txt",
        "{asked}"
    );
    assert_eq!(
        asked["_meta"]["tandem"]["subagent"],
        json!({"parentId": "call_0", "agent": "writer"}),
        "{asked}"
    );
    assert!(!root.join("notes.txt").exists());
    assert_eq!(f.mock.failures(), Vec::<String>::new());
    f.client.close();
}

/// A turn whose command (answered "allow") changes `a.txt`, creates `b.txt` and deletes the
/// binary `gone.bin`; the workspace before it. A project command file named `undo` is there too:
/// the built-in hides it.
fn command_turn() -> (Fixture, Vec<u8>) {
    command_turn_with(false)
}

/// [`command_turn`], the client offering its `fs` methods or not.
fn command_turn_with(fs: bool) -> (Fixture, Vec<u8>) {
    let f = fixture(
        [
            Reply::tool(
                "execute_command",
                json!({"command": "sed -i s/one/ONE/ a.txt && printf 'new\\n' > b.txt && rm gone.bin && echo done"}),
            ),
            Reply::text("Changed them.").expect_tool_result_contains("done"),
        ],
        fs,
    );
    std::fs::write(f.root.join("a.txt"), "one\ntwo\n").unwrap();
    let binary = vec![0u8, 0xff, 1, b'\n', 0x80];
    std::fs::write(f.root.join("gone.bin"), &binary).unwrap();
    std::fs::create_dir_all(f.root.join(".tandem/commands")).unwrap();
    std::fs::write(
        f.root.join(".tandem/commands/undo.md"),
        "Delete every file.",
    )
    .unwrap();
    let mut f = f;
    let session = f.session.clone();
    f.client.answers.push_back("allow_once");
    let turn = f.client.prompt(&session, "Change them");
    assert_eq!(f.client.result(turn)["stopReason"], "end_turn");
    assert!(f.client.answers.is_empty(), "the command did not ask");
    assert_eq!(f.mock.failures(), Vec::<String>::new());
    assert_eq!(
        std::fs::read_to_string(f.root.join("a.txt")).unwrap(),
        "ONE\ntwo\n"
    );
    assert!(f.root.join("b.txt").exists());
    assert!(!f.root.join("gone.bin").exists());
    (f, binary)
}

/// The text of the agent's messages after log position `from`.
fn said_since(client: &AcpClient, session: &str, from: usize) -> String {
    let updates: Vec<Value> = client.log[from..]
        .iter()
        .filter(|m| m["method"] == "session/update" && m["params"]["sessionId"] == session)
        .map(|m| m["params"]["update"].clone())
        .collect();
    chunks(&updates, "agent_message_chunk")
}

/// `/undo` is offered beside the custom commands (hiding a project file of that name) and puts
/// back every byte a command wrote, created and deleted, without a turn: the model is not asked.
#[test]
fn undo_puts_back_what_a_command_changed() {
    let (mut f, binary) = command_turn();
    let session = f.session.clone();
    let offered: Vec<Value> = f
        .client
        .updates(&session)
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "available_commands_update")
        .collect();
    let names: Vec<&str> = offered
        .last()
        .unwrap_or_else(|| panic!("no commands offered"))["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["undo"], "{offered:#?}");

    let from = f.client.log.len();
    let undo = f.client.prompt(&session, "/undo");
    assert_eq!(f.client.result(undo)["stopReason"], "end_turn");
    let said = said_since(&f.client, &session, from);
    assert!(said.starts_with("Restored 3 files: "), "{said}");
    for path in ["a.txt", "b.txt", "gone.bin"] {
        assert!(said.contains(path), "{said}");
    }
    assert_eq!(
        std::fs::read_to_string(f.root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert_eq!(std::fs::read(f.root.join("gone.bin")).unwrap(), binary);
    assert!(!f.root.join("b.txt").exists());
    assert!(
        !f.client.log[from..]
            .iter()
            .any(|m| m["method"] == "session/request_permission"),
        "nothing to ask about"
    );
    assert_eq!(f.mock.chat_requests().len(), 2, "the model was asked");

    // Nothing left: said so.
    let from = f.client.log.len();
    let again = f.client.prompt(&session, "/undo");
    assert_eq!(f.client.result(again)["stopReason"], "end_turn");
    assert_eq!(said_since(&f.client, &session, from), "Nothing to undo.");
    f.client.close();
}

/// With the client's `fs` methods, a text file the command changed goes back through the editor
/// (`fs/write_text_file`, so an open buffer gets it, as edits came); what it created and the
/// binary it deleted are put back on disk.
#[test]
fn undo_with_the_clients_fs_puts_text_back_through_the_editor() {
    let (mut f, binary) = command_turn_with(true);
    let session = f.session.clone();
    let written = f.client.writes.len();
    let from = f.client.log.len();
    let undo = f.client.prompt(&session, "/undo");
    assert_eq!(f.client.result(undo)["stopReason"], "end_turn");
    let said = said_since(&f.client, &session, from);
    assert!(said.starts_with("Restored 3 files: "), "{said}");
    let through_editor: Vec<&(PathBuf, String)> = f.client.writes[written..].iter().collect();
    assert!(
        through_editor
            .iter()
            .any(|(path, text)| path.ends_with("a.txt") && text == "one\ntwo\n"),
        "{through_editor:?}"
    );
    assert_eq!(std::fs::read(f.root.join("gone.bin")).unwrap(), binary);
    assert!(!f.root.join("b.txt").exists());
    f.client.close();
}

/// A file the user changed after the turn: `/undo` asks on a tool call of its own, showing what
/// would be lost; "keep" keeps it (and restores nothing), a later "restore" puts all back.
#[test]
fn undo_asks_before_overwriting_a_file_the_user_changed_and_keep_keeps_it() {
    let (mut f, binary) = command_turn();
    let session = f.session.clone();
    std::fs::write(f.root.join("a.txt"), "mine\n").unwrap();

    f.client.answers.push_back("keep");
    let from = f.client.log.len();
    let undo = f.client.prompt(&session, "/undo");
    assert_eq!(f.client.result(undo)["stopReason"], "end_turn");
    assert!(f.client.answers.is_empty(), "it did not ask");
    let asked = from
        + f.client.log[from..]
            .iter()
            .position(|m| m["method"] == "session/request_permission")
            .unwrap();
    let question = &f.client.log[asked]["params"];
    let options: Vec<&str> = question["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["optionId"].as_str().unwrap())
        .collect();
    assert_eq!(options, ["restore", "keep"], "{question}");
    // The call it is about came first and shows what restoring would lose.
    let call_id = &question["toolCall"]["toolCallId"];
    let shown = f.client.log[from..asked]
        .iter()
        .find(|m| {
            m["params"]["update"]["sessionUpdate"] == "tool_call"
                && m["params"]["update"]["toolCallId"] == *call_id
        })
        .unwrap_or_else(|| panic!("no tool call {call_id} before the question"));
    let content = shown["params"]["update"]["content"].to_string();
    assert!(
        content.contains("a.txt") && content.contains("-mine"),
        "{content}"
    );
    let said = said_since(&f.client, &session, from);
    assert!(said.starts_with("Nothing restored"), "{said}");
    assert!(said.contains("a.txt") && said.contains("kept"), "{said}");
    assert_eq!(
        std::fs::read_to_string(f.root.join("a.txt")).unwrap(),
        "mine\n"
    );
    assert!(f.root.join("b.txt").exists(), "restored without asking");
    assert!(!f.root.join("gone.bin").exists(), "restored without asking");
    let closed = f
        .client
        .updates(&session)
        .into_iter()
        .rfind(|u| u["sessionUpdate"] == "tool_call_update" && u["toolCallId"] == *call_id);
    assert_eq!(closed.unwrap()["status"], "failed");

    // Asked again, "restore" overwrites the user's change with the turn's before.
    f.client.answers.push_back("restore");
    let from = f.client.log.len();
    let undo = f.client.prompt(&session, "/undo");
    assert_eq!(f.client.result(undo)["stopReason"], "end_turn");
    assert!(f.client.answers.is_empty(), "it did not ask");
    let said = said_since(&f.client, &session, from);
    assert!(said.starts_with("Restored 3 files"), "{said}");
    assert_eq!(
        std::fs::read_to_string(f.root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert!(!f.root.join("b.txt").exists());
    assert_eq!(std::fs::read(f.root.join("gone.bin")).unwrap(), binary);
    assert_eq!(f.mock.chat_requests().len(), 2, "the model was asked");
    f.client.close();
}

/// `session/new`'s `additionalDirectories` (advertised in `sessionCapabilities`): the model reads
/// a file there by absolute path; a folder beside it stays outside; a relative one is refused.
#[test]
fn additional_directories_are_roots_of_the_session() {
    let (_workspace, root) = workspace();
    let (_elsewhere, other) = workspace();
    std::fs::create_dir(other.join("extra")).unwrap();
    std::fs::create_dir(other.join("sibling")).unwrap();
    std::fs::write(other.join("extra/lib.txt"), "in the extra root\n").unwrap();
    std::fs::write(other.join("sibling/secret.txt"), "keep out\n").unwrap();
    let data = tempfile::tempdir().unwrap();
    let mock = MockServer::start(Scenario::new([
        Reply::tool("read_file", json!({"path": other.join("extra/lib.txt")})),
        Reply::tool(
            "read_file",
            json!({"path": other.join("sibling/secret.txt")}),
        )
        .expect_tool_result_contains("in the extra root"),
        Reply::text("Read.").expect_tool_result_contains("outside the workspace"),
    ]));
    let mut client = AcpClient::spawn(&mock.base_url(), data.path());
    let init = client.initialize(false);
    assert_eq!(
        init["agentCapabilities"]["sessionCapabilities"]["additionalDirectories"],
        json!({}),
        "{init}"
    );
    let relative = client.request(
        "session/new",
        json!({"cwd": root, "mcpServers": [], "additionalDirectories": ["extra"]}),
    );
    let refused = client.response(relative);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let id = client.request(
        "session/new",
        json!({"cwd": root, "mcpServers": [], "additionalDirectories": [other.join("extra")]}),
    );
    let session = client.result(id)["sessionId"].as_str().unwrap().to_string();
    let turn = client.prompt(&session, "Read it");
    assert_eq!(client.result(turn)["stopReason"], "end_turn");
    assert_eq!(mock.failures(), Vec::<String>::new());
    // session/list reports the session's additional roots, as the schema's `SessionInfo` has them.
    let list = client.request("session/list", json!({"cwd": root}));
    let sessions = client.result(list)["sessions"].clone();
    let listed = sessions
        .as_array()
        .and_then(|s| s.iter().find(|s| s["sessionId"] == session.as_str()))
        .unwrap_or_else(|| panic!("{session} is not listed: {sessions}"));
    assert_eq!(
        listed["additionalDirectories"],
        json!([other.join("extra").canonicalize().unwrap()]),
        "{listed}"
    );
    client.close();
}
