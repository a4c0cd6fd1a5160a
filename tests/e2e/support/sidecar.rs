//! The real `tandem lsp`, spawned with a clean environment, a temp workspace and data dir, and
//! driven like an editor drives it.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};

use mock_model::MockServer;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};

use super::rpc::{Answer, Connection, Inbox, RpcError, SAFETY};
use super::turn::{Turn, TurnRef};

/// The key every test configures; it must never show up where a user or a log could see it.
pub const API_KEY: &str = "sk-test-SECRET";

/// A workspace and a data dir that outlive any one sidecar (for restarts).
pub struct Env {
    _dir: tempfile::TempDir,
    /// Canonical, as the sidecar reports paths.
    pub workspace: PathBuf,
    pub data_dir: PathBuf,
    home: PathBuf,
}

impl Env {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        let (workspace, data_dir, home) = (root.join("ws"), root.join("data"), root.join("home"));
        for d in [&workspace, &data_dir, &home] {
            std::fs::create_dir_all(d).expect("create dir");
        }
        Self {
            _dir: dir,
            workspace,
            data_dir,
            home,
        }
    }

    /// Writes a file in the workspace (creating folders).
    pub fn write(&self, path: &str, text: &str) {
        let path = self.workspace.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.workspace.join(path))
            .unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
    }

    /// The user's config dir as the sidecar sees it (`$XDG_CONFIG_HOME/tandem`).
    pub fn user_config_dir(&self) -> PathBuf {
        self.home.join(".config/tandem")
    }

    pub fn path(&self, path: &str) -> String {
        self.workspace.join(path).display().to_string()
    }

    /// A command for the `tandem` binary with no `TANDEM_*`/`OPENAI_*` variables and a temp
    /// home, so nothing from the machine running the tests leaks in.
    pub fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tandem"));
        for (name, _) in std::env::vars_os() {
            let name_str = name.to_string_lossy();
            if name_str.starts_with("TANDEM_") || name_str.starts_with("OPENAI_") {
                command.env_remove(&name);
            }
        }
        command
            .env("HOME", &self.home)
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("NO_COLOR", "1")
            .kill_on_drop(true);
        command
    }

    /// Every file under the data dir, with its text.
    pub fn data_files(&self) -> Vec<(PathBuf, String)> {
        fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default())
                        .into_owned();
                    out.push((path, text));
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.data_dir, &mut out);
        out
    }
}

/// How the sidecar is set up.
pub struct Options {
    /// `initializationOptions.approval`.
    pub approval: Value,
    /// Declare `experimental.tandem.approvals`.
    pub approvals: bool,
    /// Declare `experimental.tandem.diagnostics`.
    pub diagnostics: bool,
    /// `initializationOptions.maxSteps`.
    pub max_steps: Option<u32>,
    /// `initializationOptions.mcpServers`.
    pub mcp_servers: Value,
    /// More `initializationOptions.provider` fields (`contextWindow`, `toolMode`).
    pub provider: Value,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            approval: Value::Null,
            approvals: true,
            diagnostics: false,
            max_steps: None,
            mcp_servers: Value::Null,
            provider: Value::Null,
        }
    }
}

/// A directory's `file:` URI as VS Code writes it: on Windows `file:///c%3A/Users/...` (drive
/// letter lower-cased, its colon escaped, no `\\?\` prefix).
pub fn file_uri(path: &Path) -> String {
    let text = path.display().to_string();
    let text = text.strip_prefix(r"\\?\").unwrap_or(&text);
    let b = text.as_bytes();
    if b.len() >= 2 && b[1] == b':' {
        let rest = text[2..].replace('\\', "/");
        return format!("file:///{}%3A{rest}", text[..1].to_ascii_lowercase());
    }
    format!("file://{text}")
}

/// `initialize` params as an editor with Tandem support sends them.
pub fn initialize_params(env: &Env, mock: &MockServer, options: Options) -> Value {
    let uri = file_uri(&env.workspace);
    let mut init_options = json!({
        "provider": {"baseUrl": mock.base_url(), "model": "mock-coder", "apiKey": API_KEY},
        "dataDir": env.data_dir,
    });
    if !options.approval.is_null() {
        init_options["approval"] = options.approval;
    }
    if !options.mcp_servers.is_null() {
        init_options["mcpServers"] = options.mcp_servers;
    }
    if let Value::Object(extra) = options.provider {
        for (k, v) in extra {
            init_options["provider"][k] = v;
        }
    }
    if let Some(max_steps) = options.max_steps {
        init_options["maxSteps"] = json!(max_steps);
    }
    json!({
        "processId": std::process::id(),
        "rootUri": uri,
        "workspaceFolders": [{"uri": uri, "name": "ws"}],
        "capabilities": {"experimental": {"tandem": {
            "approvals": options.approvals, "diagnostics": options.diagnostics}}},
        "initializationOptions": init_options,
    })
}

pub struct Sidecar {
    child: Child,
    pub rpc: Connection,
    stderr: Arc<Mutex<String>>,
}

impl Sidecar {
    /// Spawns `tandem lsp` and initializes it against `mock`.
    pub async fn start(env: &Env, mock: &MockServer, options: Options) -> Sidecar {
        let sidecar = Self::spawn(env);
        let result = sidecar
            .request("initialize", initialize_params(env, mock, options))
            .await
            .expect("initialize failed");
        assert_eq!(result["serverInfo"]["name"], "tandem", "{result}");
        sidecar.rpc.notify("initialized", json!({})).await;
        sidecar
    }

    /// As [`Sidecar::start`], with the sandbox's namespaces on or (`false`) off: the Landlock
    /// and snapshot path a machine without user namespaces takes. Linux's walls only.
    #[cfg(target_os = "linux")]
    pub async fn start_walled(
        env: &Env,
        mock: &MockServer,
        options: Options,
        namespaces: bool,
    ) -> Sidecar {
        let sidecar = Self::spawn_with(env, |c| {
            if !namespaces {
                c.env("TANDEM_SANDBOX_NAMESPACES", "off");
            }
        });
        sidecar
            .request("initialize", initialize_params(env, mock, options))
            .await
            .expect("initialize failed");
        sidecar.rpc.notify("initialized", json!({})).await;
        sidecar
    }

    /// Spawns `tandem lsp`, not yet initialized.
    pub fn spawn(env: &Env) -> Sidecar {
        Self::spawn_with(env, |_| {})
    }

    /// Spawns `tandem lsp` with its command adjusted first (variables, flags), not yet
    /// initialized.
    pub fn spawn_with(env: &Env, adjust: impl FnOnce(&mut Command)) -> Sidecar {
        let mut command = env.command();
        adjust(&mut command);
        let mut child = command
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot spawn tandem");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err_pipe = child.stderr.take().unwrap();
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err_pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let shown = stderr.clone();
        let rpc = Connection::start(
            child.stdout.take().unwrap(),
            child.stdin.take().unwrap(),
            Box::new(move || format!("tandem stderr:\n{}", shown.lock().unwrap())),
        );
        Sidecar { child, rpc, stderr }
    }

    /// The sidecar's process id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("tandem is running")
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        self.rpc.request(method, params).await
    }

    /// A new session on the workspace folder.
    pub async fn new_session(&self) -> String {
        let result = self
            .request("tandem/newSession", json!({}))
            .await
            .expect("newSession failed");
        result["sessionId"]
            .as_str()
            .expect("a sessionId")
            .to_string()
    }

    pub async fn try_prompt(&self, session: &str, text: &str) -> Result<TurnRef, RpcError> {
        self.try_prompt_with(json!({"sessionId": session, "text": text}))
            .await
    }

    /// `tandem/prompt` with these params (e.g. with `context`).
    pub async fn try_prompt_with(&self, params: Value) -> Result<TurnRef, RpcError> {
        let result = self.request("tandem/prompt", params.clone()).await?;
        Ok(TurnRef {
            session_id: params["sessionId"].as_str().unwrap_or("").to_string(),
            turn_id: result["turnId"].as_str().expect("a turnId").to_string(),
        })
    }

    pub async fn prompt(&self, session: &str, text: &str) -> TurnRef {
        self.try_prompt(session, text)
            .await
            .unwrap_or_else(|e| panic!("prompt failed: {e:?}"))
    }

    pub async fn cancel(&self, session: &str) {
        self.request("tandem/cancel", json!({"sessionId": session}))
            .await
            .expect("cancel failed");
    }

    /// A prompt, run to its end.
    pub async fn run_turn(&self, session: &str, text: &str) -> Turn {
        let turn = self.prompt(session, text).await;
        self.wait_for_turn_end(&turn).await
    }

    /// Waits for the turn's `turnEnded`; returns the turn's updates.
    pub async fn wait_for_turn_end(&self, turn: &TurnRef) -> Turn {
        self.rpc
            .wait(&format!("the end of {turn:?}"), |inbox| {
                let updates = turn.updates_in(&inbox.updates);
                updates
                    .iter()
                    .any(|u| u["kind"] == "turnEnded")
                    .then(|| Turn::new(updates))
            })
            .await
    }

    /// Waits for an update of `turn` that `matches`.
    pub async fn wait_for_update(&self, turn: &TurnRef, matches: impl Fn(&Value) -> bool) -> Value {
        self.rpc
            .wait(&format!("an update of {turn:?}"), |inbox| {
                turn.updates_in(&inbox.updates)
                    .into_iter()
                    .find(|u| matches(u))
            })
            .await
    }

    /// Waits until `n` approval requests have come; returns them all.
    pub async fn wait_for_approvals(&self, n: usize) -> Vec<Value> {
        self.rpc
            .wait(&format!("{n} approval request(s)"), |inbox| {
                (inbox.approvals.len() >= n).then(|| inbox.approvals.clone())
            })
            .await
    }

    /// Queues replies to approval requests.
    pub async fn reply_approvals(&self, replies: impl IntoIterator<Item = impl Into<Answer>>) {
        self.rpc.reply_approvals(replies).await;
    }

    pub fn approvals(&self) -> Vec<Value> {
        self.rpc.inbox(|i| i.approvals.clone())
    }

    pub fn inbox<T>(&self, f: impl FnOnce(&Inbox) -> T) -> T {
        self.rpc.inbox(f)
    }

    /// `shutdown`, then `exit`, as an editor closes; returns how the process ended.
    pub async fn shutdown(&mut self) -> ExitStatus {
        self.request("shutdown", Value::Null)
            .await
            .expect("shutdown failed");
        self.rpc.notify("exit", Value::Null).await;
        self.wait_for_exit("exit").await
    }

    /// Closes the sidecar's stdin without a word, as a crashed editor; returns how it ended.
    pub async fn close_stdin(&mut self) -> ExitStatus {
        self.rpc.close().await;
        self.wait_for_exit("its stdin closed").await
    }

    async fn wait_for_exit(&mut self, after: &str) -> ExitStatus {
        match tokio::time::timeout(SAFETY, self.child.wait()).await {
            Ok(status) => status.expect("wait for tandem"),
            Err(_) => panic!("tandem did not exit after {after}\n{}", self.rpc.dump()),
        }
    }

    /// SIGKILL: no chance to clean up, as when an editor crashes.
    pub async fn kill(mut self) {
        self.child.kill().await.expect("kill tandem");
    }
}
