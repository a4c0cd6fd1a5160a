//! The sidecar's own costs, as a user feels them: `cargo bench -p tandem --bench lsp`.
//!
//! - cold `initialize`: spawn `tandem lsp`, send `initialize`, read the answer (median of runs),
//!   beside a bare spawn of `tandem --version` on the same machine (a loaded machine slows both);
//! - idle RSS after `initialize`, split into anonymous memory (the process's own) and file pages
//!   (the binary's and libraries' code and read-only data: shared between processes, and given
//!   back by the kernel under pressure), and how many of the functions `startup-order.txt` lists
//!   to be linked side by side this binary has (server/tandem/build.rs);
//! - relaying a long streamed answer from a model server to the client: deltas a second, and the
//!   latency each delta gains on its way through the sidecar (against the same stream read
//!   directly from the model server);
//! - reading from the editor: full-text `didChange`s of a large document, MB a second (each
//!   message framed, checked and parsed on its way in).
//!
//! The model server here is a few lines of raw HTTP that stamp each delta with the wall-clock
//! time it was written, so the client can tell how long it took to arrive.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

const TANDEM: &str = env!("CARGO_BIN_EXE_tandem");

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// "N of M": how many names `startup-order.txt` lists the binary has (by `nm`), or why unknown.
fn startup_order_found() -> String {
    let list = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/startup-order.txt"))
        .unwrap_or_default();
    let listed: Vec<&str> = list.lines().filter(|l| !l.starts_with('#')).collect();
    let Ok(out) = Command::new("nm").args(["--defined-only", TANDEM]).output() else {
        return "unknown (nm is not installed)".into();
    };
    let symbols: std::collections::HashSet<&str> = std::str::from_utf8(&out.stdout)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let found = listed.iter().filter(|n| symbols.contains(*n)).count();
    format!("{found} of the {} names listed", listed.len())
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[values.len() / 2]
}

// ---- a minimal LSP client ----

struct Lsp {
    child: Child,
    stdin: ChildStdin,
    next_id: u64,
    /// Each message with when it was read: a monotonic instant and wall-clock nanoseconds.
    messages: mpsc::Receiver<(Instant, u128, Value)>,
}

fn read_frame(reader: &mut BufReader<ChildStdout>) -> Option<Value> {
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            length = v.parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Lsp {
    fn spawn(data_dir: &std::path::Path) -> Self {
        let mut child = Command::new(TANDEM)
            .arg("lsp")
            .arg("--data-dir")
            .arg(data_dir)
            .env_remove("TANDEM_BASE_URL")
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn tandem lsp");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::with_capacity(1 << 16, child.stdout.take().unwrap());
        let (tx, messages) = mpsc::channel();
        thread::spawn(move || {
            while let Some(msg) = read_frame(&mut stdout) {
                if tx.send((Instant::now(), now_ns(), msg)).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            next_id: 0,
            messages,
        }
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let (_, _, msg) = self
                .messages
                .recv_timeout(Duration::from_secs(30))
                .expect("no answer");
            if msg["id"] == json!(id) && msg.get("method").is_none() {
                return msg;
            }
        }
    }

    fn initialize(&mut self, root: &std::path::Path, base_url: Option<&str>) -> Value {
        let mut options = json!({});
        if let Some(url) = base_url {
            options = json!({"provider": {"baseUrl": url, "model": "bench"}});
        }
        let result = self.request(
            "initialize",
            json!({"processId": null, "rootUri": format!("file://{}", root.display()),
                   "capabilities": {"experimental": {"tandem": {"approvals": true}}},
                   "initializationOptions": options}),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        result
    }

    /// A `/proc/PID/status` field in KiB (`VmRSS`, `RssAnon`, `RssFile`).
    fn status_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Lsp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---- a model server that stamps each delta ----

/// Serves every request with `count` text deltas, each `T<ns>;` (ns when written), written as
/// fast as the socket takes them, or every `pace` when given.
fn start_model(count: usize, pace: Option<Duration>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            thread::spawn(move || serve_model(stream, count, pace));
        }
    });
    url
}

fn serve_model(stream: TcpStream, count: usize, pace: Option<Duration>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0;
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap();
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stream);
    let _ = write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
    );
    let chunk = |content: &str| {
        format!(
            "data: {{\"id\":\"b\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"bench\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{content}\"}},\"finish_reason\":null}}]}}\n\n"
        )
    };
    for _ in 0..count {
        let _ = out.write_all(chunk(&format!("T{};", now_ns())).as_bytes());
        if let Some(pace) = pace {
            let _ = out.flush();
            let until = Instant::now() + pace;
            while Instant::now() < until {
                std::hint::spin_loop();
            }
        }
    }
    let _ = out.write_all(b"data: {\"id\":\"b\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    let _ = out.flush();
}

/// Latencies (µs) of every stamped delta in `text` received at `received_ns`.
fn latencies(text: &str, received_ns: u128, into: &mut Vec<f64>) -> usize {
    let mut n = 0;
    for stamp in text.split(';').filter_map(|t| t.strip_prefix('T')) {
        if let Ok(sent) = stamp.parse::<u128>() {
            into.push(received_ns.saturating_sub(sent) as f64 / 1000.0);
            n += 1;
        }
    }
    n
}

/// Runs one turn against a stamping model; returns (deltas received, seconds from the first
/// to the last, per-delta latencies in µs).
fn relay(count: usize, pace: Option<Duration>) -> (usize, f64, Vec<f64>) {
    let dir = tempfile::tempdir().unwrap();
    let url = start_model(count, pace);
    let mut lsp = Lsp::spawn(&dir.path().join("data"));
    lsp.initialize(dir.path(), Some(&url));
    let session = lsp.request("tandem/newSession", json!({"root": dir.path()}));
    let session_id = session["result"]["sessionId"].as_str().unwrap().to_string();
    lsp.request(
        "tandem/prompt",
        json!({"sessionId": session_id, "text": "go"}),
    );
    let mut lat = Vec::with_capacity(count);
    let mut received = 0;
    let (mut first, mut last) = (None, Instant::now());
    loop {
        let (at, ns, msg) = lsp
            .messages
            .recv_timeout(Duration::from_secs(60))
            .expect("turn stalled");
        let params = &msg["params"];
        match params["kind"].as_str() {
            Some("text") => {
                first.get_or_insert(at);
                last = at;
                received += latencies(params["delta"].as_str().unwrap(), ns, &mut lat);
            }
            Some("turnEnded") => break,
            _ => {}
        }
    }
    let secs = first.map(|f| (last - f).as_secs_f64()).unwrap_or(0.0);
    (received, secs, lat)
}

/// Sends `count` full-text `didChange`s of a `size`-byte document, then a request answered after
/// all of them; returns MB a second read by the sidecar.
fn inbound(count: usize, size: usize) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let mut lsp = Lsp::spawn(&dir.path().join("data"));
    lsp.initialize(dir.path(), None);
    let uri = format!("file://{}/a.txt", dir.path().display());
    let document = json!({"uri": uri, "languageId": "plaintext", "version": 0, "text": ""});
    lsp.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                    "params": {"textDocument": document}}));
    // Framed before the clock starts: what is timed is the sidecar's reading.
    let text = "fn main() { println!(\"é\"); }\n".repeat(size / 32);
    let mut frames = Vec::new();
    for version in 1..=count {
        let body = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}]}})
        .to_string();
        write!(frames, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    }
    let start = Instant::now();
    lsp.stdin.write_all(&frames).unwrap();
    lsp.request("shutdown", Value::Null);
    frames.len() as f64 / start.elapsed().as_secs_f64() / 1e6
}

/// The same stream read straight from the model server: the baseline a delta can't beat.
fn direct(count: usize, pace: Option<Duration>) -> Vec<f64> {
    let url = start_model(count, pace);
    let addr = url.trim_start_matches("http://").trim_end_matches("/v1");
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{{}}"
    )
    .unwrap();
    let mut reader = BufReader::new(stream);
    let mut lat = Vec::with_capacity(count);
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap_or(0) > 0 {
        let ns = now_ns();
        if let Some(data) = line.strip_prefix("data: ")
            && let Ok(v) = serde_json::from_str::<Value>(data.trim())
            && let Some(content) = v["choices"][0]["delta"]["content"].as_str()
        {
            latencies(content, ns, &mut lat);
        }
        line.clear();
    }
    lat
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to filter here.
    let dir = tempfile::tempdir().unwrap();

    let mut init_ms = Vec::new();
    let mut spawn_ms = Vec::new();
    let (mut rss, mut anon, mut file) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..25 {
        let start = Instant::now();
        Command::new(TANDEM)
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .expect("tandem --version");
        spawn_ms.push(start.elapsed().as_secs_f64() * 1000.0);
        let start = Instant::now();
        let mut lsp = Lsp::spawn(&dir.path().join("data"));
        let answer = lsp.initialize(dir.path(), None);
        init_ms.push(start.elapsed().as_secs_f64() * 1000.0);
        assert!(
            answer["result"]["serverInfo"]["name"] == "tandem",
            "{answer}"
        );
        thread::sleep(Duration::from_millis(100));
        let mib = |field| lsp.status_kib(field) as f64 / 1024.0;
        rss.push(mib("VmRSS"));
        anon.push(mib("RssAnon"));
        file.push(mib("RssFile"));
    }
    let (init, spawn) = (median(&mut init_ms), median(&mut spawn_ms));
    println!(
        "cold initialize round trip from spawn: median {init:.2} ms (goal < 3 ms); a bare spawn \
         of `tandem --version` {spawn:.2} ms, so initialize is {:.1}x a bare spawn",
        init / spawn
    );
    println!(
        "idle RSS after initialize: median {:.1} MiB (goal < 8 MiB): {:.1} MiB anonymous, \
         {:.1} MiB file pages (the binary's code and read-only data, shared and reclaimable)",
        median(&mut rss),
        median(&mut anon),
        median(&mut file)
    );
    println!(
        "startup order (functions linked side by side, server/tandem/build.rs): this binary has {}; \
         when few match, run scripts/startup-order.py",
        startup_order_found()
    );

    let count = 100_000;
    let (received, secs, _) = relay(count, None);
    assert_eq!(received, count, "deltas lost on the way");
    println!(
        "relay throughput: {count} deltas in {:.3} s = {:.0} deltas/s (goal > 20,000)",
        secs,
        count as f64 / secs
    );

    let mut rates: Vec<f64> = (0..5).map(|_| inbound(200, 256 << 10)).collect();
    println!(
        "reading didChange (256 KiB documents, 200 a run): median {:.0} MB/s",
        median(&mut rates)
    );

    // Paced at 5,000 deltas a second, so what is measured is latency, not queueing.
    let paced = 5_000;
    let pace = Some(Duration::from_micros(200));
    let (received, _, mut through) = relay(paced, pace);
    assert_eq!(received, paced, "deltas lost on the way");
    let mut baseline = direct(paced, pace);
    let (t, b) = (median(&mut through), median(&mut baseline));
    println!(
        "relay latency per delta: median {t:.0} µs through the sidecar, {b:.0} µs read directly: \
         {:.0} µs added (goal < 100 µs)",
        t - b
    );
}
