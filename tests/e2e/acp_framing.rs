//! `tandem acp` on malformed input: each bad line gets a JSON-RPC error reply (parse error, or
//! invalid request with the request's id when it has a valid one), and the agent goes on: the
//! next request is answered and a prompt running at the time finishes. Only the end of stdin
//! ends it, with success.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use mock_model::{MockServer, Reply, Scenario};
use serde_json::{Value, json};

/// Only for a test that would otherwise hang.
const SAFETY_NET: Duration = Duration::from_secs(60);

struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Agent {
    fn spawn(base_url: &str, data_dir: &Path) -> Agent {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tandem"));
        command
            .args([
                "acp",
                "--base-url",
                base_url,
                "--model",
                "mock-coder",
                "--data-dir",
            ])
            .arg(data_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (name, _) in std::env::vars() {
            if name.starts_with("TANDEM_") || name.starts_with("OPENAI_") {
                command.env_remove(name);
            }
        }
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
        Agent {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 1,
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is closed");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(format!("{line}\n").as_bytes());
        id
    }

    fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(SAFETY_NET)
            .expect("no message from the agent (or it closed stdout)");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"))
    }

    /// Reads until a message satisfies `wanted`; returns it and the messages before it.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let message = self.recv();
            if wanted(&message) {
                return (message, before);
            }
            before.push(message);
        }
    }

    fn result(&mut self, id: u64) -> Value {
        let (response, _) = self.wait_for(|m| m.get("method").is_none() && m["id"] == id);
        assert!(response.get("error").is_none(), "request {id}: {response}");
        response["result"].clone()
    }

    fn initialize(&mut self) {
        let id = self.request(
            "initialize",
            json!({"protocolVersion": 1,
                   "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}}}),
        );
        self.result(id);
    }

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

impl Drop for Agent {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A malformed line (newline included) and the error code and id it must get.
fn cases() -> Vec<(&'static str, Vec<u8>, i64, Value)> {
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/list\",\"params\":{{\"x\":{}{}}}}}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    vec![
        (
            "not JSON",
            b"this is not json\n".to_vec(),
            -32700,
            Value::Null,
        ),
        (
            "invalid UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"session/\xff\xfe\"}\n".to_vec(),
            -32700,
            Value::Null,
        ),
        // Still JSON: the request's own id is read, so the client gets its answer.
        ("100k-deep nesting", deep.into_bytes(), -32700, json!(5)),
        (
            "an id that is an object",
            b"{\"jsonrpc\":\"2.0\",\"id\":{\"n\":1},\"method\":\"session/list\"}\n".to_vec(),
            -32600,
            Value::Null,
        ),
        (
            "a method that is not a string",
            b"{\"jsonrpc\":\"2.0\",\"id\":43,\"method\":7}\n".to_vec(),
            -32600,
            json!(43),
        ),
        (
            "a batch",
            b"[{\"jsonrpc\":\"2.0\",\"id\":44,\"method\":\"session/list\"}]\n".to_vec(),
            -32600,
            Value::Null,
        ),
    ]
}

fn is_error_reply(m: &Value) -> bool {
    m.get("method").is_none() && m.get("error").is_some()
}

#[test]
fn every_malformed_line_is_answered_and_the_agent_goes_on() {
    let data = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let mock = MockServer::start(Scenario::default());
    let mut agent = Agent::spawn(&mock.base_url(), data.path());
    agent.initialize();
    for (name, bytes, code, id) in cases() {
        agent.send_raw(&bytes);
        let (reply, before) = agent.wait_for(is_error_reply);
        assert!(before.is_empty(), "{name}: {before:#?}");
        assert_eq!(reply["error"]["code"], code, "{name}: {reply}");
        assert_eq!(reply["id"], id, "{name}: {reply}");
        let next = agent.request(
            "session/new",
            json!({"cwd": root.path().canonicalize().unwrap(), "mcpServers": []}),
        );
        let session = agent.result(next);
        assert!(session["sessionId"].is_string(), "after {name}: {session}");
        // The commands a new session is offered (the built-in /undo) follow its answer: read
        // them here, so nothing comes before the next case's error.
        agent.wait_for(|m| {
            m["params"]["sessionId"] == session["sessionId"]
                && m["params"]["update"]["sessionUpdate"] == "available_commands_update"
        });
    }
    agent.close();
}

#[test]
fn a_prompt_running_through_malformed_lines_finishes() {
    let data = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "one\n").unwrap();
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "a.txt", "content": "two\n"}),
        ),
        Reply::text("Done."),
    ]));
    let mut agent = Agent::spawn(&mock.base_url(), data.path());
    agent.initialize();
    let new = agent.request("session/new", json!({"cwd": root, "mcpServers": []}));
    let session = agent.result(new)["sessionId"].clone();
    let prompt = agent.request(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "Write two"}]}),
    );
    // The turn waits on the user's answer while the garbage comes in.
    let (asked, _) = agent.wait_for(|m| m["method"] == "session/request_permission");
    for (_, bytes, _, _) in cases() {
        agent.send_raw(&bytes);
    }
    for (name, _, code, _) in cases() {
        let (reply, _) = agent.wait_for(is_error_reply);
        assert_eq!(reply["error"]["code"], code, "{name}: {reply}");
    }
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"],
                        "result": {"outcome": {"outcome": "selected", "optionId": "allow_once"}}});
    agent.send_raw(format!("{answer}\n").as_bytes());
    assert_eq!(agent.result(prompt)["stopReason"], "end_turn");
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "two\n"
    );
    agent.close();
}
