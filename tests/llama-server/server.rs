//! llama.cpp's own `llama-server` for a test or a benchmark: started with the model
//! `tests/llama/server-setup.sh` fetched on a port it takes itself (`--port 0`; its log says
//! which), ready once `/health` answers, killed on drop.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A llama-server of this test's own; killed on drop.
pub struct LlamaServer {
    child: Child,
    port: u16,
    /// The API's base URL (`http://127.0.0.1:PORT/v1`).
    pub url: String,
    /// The server's stderr.
    pub log: PathBuf,
    _dir: tempfile::TempDir,
}

/// `TANDEM_LLAMA_SERVER` and `TANDEM_LLAMA_MODEL`: from the environment, else the paths.env the
/// setup script wrote.
pub fn paths() -> (PathBuf, PathBuf) {
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
    /// A server with a window of `n_ctx` and one slot (unless `extra` has `-np`).
    pub fn start(n_ctx: u32, extra: &[&str]) -> LlamaServer {
        let (server, model) = paths();
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("llama-server.log");
        let child = Command::new(&server)
            .args(["-m", model.to_str().unwrap(), "-c", &n_ctx.to_string()])
            // Port 0: the server binds a free port itself, so no other process can take the one
            // a test found free before the server starts.
            .args(["--host", "127.0.0.1", "--port", "0"])
            .args(["-t", "1", "-tb", "1", "--temp", "0"])
            // One slot unless the caller names how many.
            .args(if extra.contains(&"-np") {
                &[][..]
            } else {
                &["-np", "1"][..]
            })
            .args(extra)
            .env("LD_LIBRARY_PATH", server.parent().unwrap())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", server.display()));
        let mut server = LlamaServer {
            child,
            port: 0,
            url: String::new(),
            log,
            _dir: dir,
        };
        server.wait_ready();
        server
    }

    /// The port the server's log says it listens on (`listening on http://127.0.0.1:PORT`).
    fn listening_port(&self) -> Option<u16> {
        let log = self.log_text();
        let (_, rest) = log.split_once("listening on http://127.0.0.1:")?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    }

    /// Polls the log for the port, then `/health` until the model is loaded, the process exits,
    /// or 120 s pass.
    fn wait_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("llama-server exited ({status}): {}", self.log_text());
            }
            if self.port == 0
                && let Some(port) = self.listening_port()
            {
                self.port = port;
                self.url = format!("http://127.0.0.1:{port}/v1");
            }
            let port = self.port;
            let ok = port != 0
                && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok_and(|mut s| {
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

    /// `GET path` of the server, as JSON (`/slots`, `/props`).
    pub fn get_json(&self, path: &str) -> serde_json::Value {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(stream, "GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        serde_json::from_str(body).unwrap_or_else(|e| panic!("GET {path}: {e}: {answer}"))
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
