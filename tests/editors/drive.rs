//! Starting Tandem the way a snippet of docs/editors.md says, and talking to it as the editor
//! would: an ACP client (newline-delimited JSON-RPC) and an LSP client (Content-Length frames),
//! both small and synchronous, written for these tests.
//!
//! The snippets for plugins and editors this machine cannot run (CodeCompanion, avante.nvim,
//! agent-shell, Neovim 0.10/0.11, Helix, Zed) only *configure* a command; what the user gets is
//! what that command does when the editor starts it. So the tests take the command, arguments and
//! environment out of the snippet and start exactly that, with `tandem` found on the PATH as the
//! editor would find it (the binary under test), in a sandbox whose home and data dir are temp
//! folders so the user's own config never leaks in.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{Value, json};

/// A net against hangs, not a speed check: a turn against the mock takes well under a second.
const SAFETY: Duration = Duration::from_secs(60);

/// The URL the snippets name (LM Studio's). The tests point whatever carries it at the mock, as a
/// user with LM Studio running would have it answer.
pub const LM_STUDIO_URL: &str = "http://127.0.0.1:1234/v1";

/// Replaces every string equal to [`LM_STUDIO_URL`] in `value` by `url`; returns how many.
pub fn point_at(value: &mut Value, url: &str) -> usize {
    match value {
        Value::String(s) if s == LM_STUDIO_URL => {
            *s = url.to_string();
            1
        }
        Value::Array(items) => items.iter_mut().map(|v| point_at(v, url)).sum(),
        Value::Object(map) => map.values_mut().map(|v| point_at(v, url)).sum(),
        _ => 0,
    }
}

/// The environment the editor starts the command with, before the snippet's own variables.
#[derive(Clone, Copy, Debug)]
pub enum EnvBase {
    /// The editor's whole environment (Neovim's `vim.system`, Emacs's `process-environment`,
    /// Helix, Zed): here the test's, without any `TANDEM_*`/`OPENAI_*` of the machine.
    Inherit,
    /// Only `PATH` (avante.nvim builds the agent's environment from `PATH` and its `env`).
    PathOnly,
}

/// What a snippet tells the editor to start.
#[derive(Clone, Debug)]
pub struct Launch {
    pub command: String,
    pub args: Vec<String>,
    pub base: EnvBase,
    /// Set on top of the base, in order (a later one wins).
    pub env: Vec<(String, String)>,
}

impl Launch {
    /// `command` and `args` from a JSON list (`cmd = { 'tandem', 'lsp' }`).
    pub fn from_argv(argv: &Value, base: EnvBase) -> Launch {
        let argv: Vec<String> = argv
            .as_array()
            .unwrap_or_else(|| panic!("a command should be a list of strings, not {argv}"))
            .iter()
            .map(|a| a.as_str().expect("a command word is a string").to_string())
            .collect();
        let (command, args) = argv.split_first().expect("an empty command");
        Launch {
            command: command.clone(),
            args: args.to_vec(),
            base,
            env: Vec::new(),
        }
    }

    /// Adds the variables of a JSON object (`env = { ... }`).
    pub fn with_env_object(mut self, env: &Value) -> Launch {
        if let Some(map) = env.as_object() {
            for (k, v) in map {
                let v = v
                    .as_str()
                    .unwrap_or_else(|| panic!("{k} should be a string, not {v}"));
                self.env.push((k.clone(), v.to_string()));
            }
        }
        self
    }

    pub fn with_env(mut self, name: &str, value: &str) -> Launch {
        self.env.push((name.to_string(), value.to_string()));
        self
    }

    /// The snippet's variables that carry [`LM_STUDIO_URL`] now carry `url`; returns how many.
    pub fn point_at(&mut self, url: &str) -> usize {
        let mut n = 0;
        for (_, v) in &mut self.env {
            if v == LM_STUDIO_URL {
                *v = url.to_string();
                n += 1;
            }
        }
        n
    }

    /// The value the started process sees for `name` (the snippet's, else the base's).
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A temp home, a project and a PATH with `tandem` on it: where a launched command runs.
pub struct Sandbox {
    _dir: tempfile::TempDir,
    /// The project (canonical): the process's working directory and the workspace root.
    pub root: PathBuf,
    pub home: PathBuf,
    bin: PathBuf,
    /// The started process's stderr.
    pub log: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().canonicalize().expect("canonical temp dir");
        let (root, home, bin) = (base.join("project"), base.join("home"), base.join("bin"));
        for d in [&root, &home, &bin] {
            std::fs::create_dir_all(d).expect("create dir");
        }
        // `tandem` on the PATH is the binary under test, as `cargo install` would put it there.
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_tandem"), bin.join("tandem"))
            .expect("link tandem into the sandbox's bin");
        Sandbox {
            _dir: dir,
            root,
            home,
            bin,
            log: base.join("agent.log"),
        }
    }

    /// Tandem's data dir as the sandbox's environment makes it (`$XDG_DATA_HOME/tandem`).
    pub fn data_dir(&self) -> PathBuf {
        self.home.join(".local/share/tandem")
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Starts `launch` in the project, its standard streams piped.
    fn spawn(&self, launch: &Launch) -> Child {
        assert_eq!(
            launch.command, "tandem",
            "the snippet should start `tandem` (found on the PATH), not {:?}",
            launch.command
        );
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new(&launch.command);
        command.env_clear();
        if let EnvBase::Inherit = launch.base {
            for (name, value) in std::env::vars_os() {
                let n = name.to_string_lossy();
                if !(n.starts_with("TANDEM_") || n.starts_with("OPENAI_")) {
                    command.env(&name, value);
                }
            }
        }
        // Isolation, whatever the base: without HOME, Tandem would find the real home through
        // the password database and read the user's config file and sessions there.
        command
            .env("PATH", path)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("XDG_STATE_HOME", self.home.join(".local/state"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"));
        for (k, v) in &launch.env {
            command.env(k, v);
        }
        let log = std::fs::File::create(&self.log).expect("create the agent log");
        command
            .args(&launch.args)
            .current_dir(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log);
        command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {launch:?}: {e}"))
    }
}

/// Reads the child's stdout on a thread, one message at a time.
fn reader<T: Send + 'static>(
    stdout: impl Read + Send + 'static,
    mut next: impl FnMut(&mut BufReader<Box<dyn Read + Send>>) -> Option<T> + Send + 'static,
) -> Receiver<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut input = BufReader::new(Box::new(stdout) as Box<dyn Read + Send>);
        while let Some(message) = next(&mut input) {
            if tx.send(message).is_err() {
                break;
            }
        }
    });
    rx
}

/// What both clients share: the process, its input, what came so far, the next request id.
struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    log: Vec<Value>,
    next_id: u64,
    framed: bool,
    stderr: PathBuf,
}

impl Peer {
    fn start(sandbox: &Sandbox, launch: &Launch, framed: bool) -> Peer {
        let mut child = sandbox.spawn(launch);
        let stdout = child.stdout.take().unwrap();
        let messages = if framed {
            reader(stdout, read_frame)
        } else {
            reader(stdout, |input| {
                let mut line = String::new();
                if input.read_line(&mut line).ok()? == 0 {
                    return None;
                }
                Some(serde_json::from_str(&line).unwrap_or_else(
                    |e| json!({"not JSON": line.trim_end(), "error": e.to_string()}),
                ))
            })
        };
        Peer {
            stdin: child.stdin.take(),
            child,
            messages,
            log: Vec::new(),
            next_id: 1,
            framed,
            stderr: sandbox.log.clone(),
        }
    }

    fn story(&self) -> String {
        format!(
            "\n--- messages so far:\n{:#?}\n--- tandem stderr:\n{}",
            self.log,
            std::fs::read_to_string(&self.stderr).unwrap_or_default()
        )
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        let bytes = if self.framed {
            format!("Content-Length: {}\r\n\r\n{body}", body.len())
        } else {
            format!("{body}\n")
        };
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes.as_bytes()).expect("write to tandem");
        stdin.flush().expect("flush to tandem");
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

    fn recv(&mut self) -> Value {
        match self.messages.recv_timeout(SAFETY) {
            Ok(message) => {
                self.log.push(message.clone());
                message
            }
            Err(RecvTimeoutError::Timeout) => {
                panic!("nothing from tandem in {SAFETY:?}{}", self.story())
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("tandem closed its output{}", self.story())
            }
        }
    }

    /// Closes stdin (after `last`, if any) and waits for the exit; returns its code.
    fn finish(&mut self, last: Option<(&str, Value)>) -> Option<i32> {
        if let Some((method, params)) = last {
            self.notify(method, params);
        }
        drop(self.stdin.take());
        for _ in 0..300 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("tandem did not exit after its input closed{}", self.story())
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn read_frame(input: &mut BufReader<Box<dyn Read + Send>>) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
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
    let mut body = vec![0; length?];
    input.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).unwrap_or_else(
        |e| json!({"not JSON": String::from_utf8_lossy(&body), "error": e.to_string()}),
    ))
}

/// What an ACP conversation of one prompt gave.
pub struct AcpTurn {
    pub initialize: Value,
    pub stop_reason: String,
    /// The `agent_message_chunk` texts, joined.
    pub answer: String,
    pub exit_code: Option<i32>,
}

/// Starts `launch` as an ACP agent, sends `initialize` (with `init`: the client's capabilities
/// and info, as the plugin sends them), `session/new` in the project and one `session/prompt`,
/// and closes it.
pub fn acp_turn(sandbox: &Sandbox, launch: &Launch, init: Value, prompt: &str) -> AcpTurn {
    let mut peer = Peer::start(sandbox, launch, false);
    let initialize = acp_result(&mut peer, "initialize", init);
    let session = acp_result(
        &mut peer,
        "session/new",
        json!({"cwd": sandbox.root, "mcpServers": []}),
    );
    let session_id = session["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("no sessionId in {session}{}", peer.story()))
        .to_string();
    let result = acp_result(
        &mut peer,
        "session/prompt",
        json!({"sessionId": session_id, "prompt": [{"type": "text", "text": prompt}]}),
    );
    let answer = peer
        .log
        .iter()
        .filter(|m| m["method"] == "session/update" && m["params"]["sessionId"] == session_id)
        .filter(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|m| m["params"]["update"]["content"]["text"].as_str())
        .collect();
    AcpTurn {
        initialize,

        stop_reason: result["stopReason"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        answer,
        exit_code: peer.finish(None),
    }
}

/// Sends a request and reads until its response, answering the agent's requests meanwhile.
fn acp_result(peer: &mut Peer, method: &str, params: Value) -> Value {
    let id = peer.request(method, params);
    loop {
        let message = peer.recv();
        if let (Some(request_id), Some(m)) = (message.get("id"), message["method"].as_str()) {
            // A text-only turn asks for nothing; a file read is answered from the disk.
            let reply = match m {
                "fs/read_text_file" => {
                    let path = message["params"]["path"].as_str().unwrap_or_default();
                    match std::fs::read_to_string(path) {
                        Ok(content) => json!({"result": {"content": content}}),
                        Err(e) => json!({"error": {"code": -32002, "message": e.to_string()}}),
                    }
                }
                _ => json!({"error": {"code": -32601, "message": format!("not here: {m}")}}),
            };
            let mut reply = reply;
            reply["jsonrpc"] = json!("2.0");
            reply["id"] = request_id.clone();
            peer.send(reply);
            continue;
        }
        if message.get("method").is_none() && message["id"] == json!(id) {
            if let Some(error) = message.get("error") {
                panic!("{method} failed: {error}{}", peer.story());
            }
            return message["result"].clone();
        }
    }
}

/// A plain LSP client that declares what Helix, Neovim and friends declare, minus questions:
/// it answers `workspace/applyEdit` (applied) and records every request and notification.
pub struct LspClient {
    peer: Peer,
    /// The server's requests other than progress bookkeeping, in order: (method, params).
    pub requests: Vec<(String, Value)>,
    /// `window/showMessage` params, in order.
    pub messages: VecDeque<Value>,
}

impl LspClient {
    /// Starts `launch` and initializes it on the project with `options` as
    /// `initializationOptions` (null: none).
    pub fn start(sandbox: &Sandbox, launch: &Launch, options: Value) -> (LspClient, Value) {
        let mut client = LspClient {
            peer: Peer::start(sandbox, launch, true),
            requests: Vec::new(),
            messages: VecDeque::new(),
        };
        let uri = file_uri(&sandbox.root);
        let mut params = json!({
            "processId": std::process::id(),
            "rootUri": uri,
            "workspaceFolders": [{"uri": uri, "name": "project"}],
            "capabilities": {
                "workspace": {"applyEdit": true, "workspaceEdit": {"documentChanges": true}},
                "window": {"workDoneProgress": true},
            },
            "clientInfo": {"name": "snippet-test-client"},
        });
        if !options.is_null() {
            params["initializationOptions"] = options;
        }
        let result = client.call("initialize", params);
        client.peer.notify("initialized", json!({}));
        (client, result)
    }

    /// Sends a request and reads until its response (`Err`: the error object).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        match self.try_call(method, params) {
            Ok(result) => result,
            Err(error) => panic!("{method} failed: {error}{}", self.peer.story()),
        }
    }

    pub fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.peer.request(method, params);
        loop {
            let message = self.next();
            if message.get("method").is_none() && message["id"] == json!(id) {
                return match message.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(message["result"].clone()),
                };
            }
        }
    }

    /// Waits for the next `window/showMessage` and returns its text.
    pub fn next_message(&mut self) -> String {
        loop {
            if let Some(m) = self.messages.pop_front() {
                return m["message"].as_str().unwrap_or_default().to_string();
            }
            self.next();
        }
    }

    /// Reads one message, answering it when it is a request.
    fn next(&mut self) -> Value {
        let message = self.peer.recv();
        let method = message["method"].as_str().unwrap_or_default().to_string();
        match (message.get("id"), method.as_str()) {
            (None, "window/showMessage") => self.messages.push_back(message["params"].clone()),
            (None, _) => {}
            (Some(id), _) if !method.is_empty() => {
                let result = match method.as_str() {
                    "workspace/applyEdit" => json!({"applied": true}),
                    "workspace/configuration" => {
                        let n = message["params"]["items"].as_array().map_or(0, Vec::len);
                        Value::Array(vec![Value::Null; n])
                    }
                    // Progress bookkeeping, and a question (answered "dismissed").
                    _ => Value::Null,
                };
                if method != "window/workDoneProgress/create" {
                    self.requests.push((method, message["params"].clone()));
                }
                let id = id.clone();
                self.peer
                    .send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
            }
            _ => {}
        }
        message
    }

    pub fn story(&self) -> String {
        self.peer.story()
    }

    /// `shutdown`, `exit`; returns the exit code.
    pub fn shut_down(mut self) -> Option<i32> {
        self.call("shutdown", Value::Null);
        self.peer.finish(Some(("exit", Value::Null)))
    }
}

pub fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The model each chat request asked the mock for.
pub fn models_asked(mock: &mock_model::MockServer) -> Vec<String> {
    mock.chat_requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_string())
        .collect()
}
