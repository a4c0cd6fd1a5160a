//! Local models in numbers: `cargo bench -p tandem --bench local`.
//!
//! - the fixed part of every request (system prompt + tool definitions), in estimated tokens,
//!   with the full prompt and with the compact one small windows (16k or less) get;
//! - a scripted task of 20 `read_file` steps in a 4,096-token window against the mock model:
//!   how many requests it takes (compaction's summaries included), how many compactions, and
//!   the largest request as estimated (it must stay inside the window).

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use mock_model::{MockServer, Reply, Scenario};
use serde_json::{Value, json};
use tandem_agent::approval::{ApprovalReply, ApprovalRequest, Decision};
use tandem_agent::events::Event;
use tandem_agent::{Frontend, context, prompt};
use tandem_config::{ProviderOptions, StartOptions};
use tandem_provider::tokens;

struct Collect(Mutex<Vec<Event>>);

impl Frontend for Collect {
    fn update(&self, _session: &str, _turn: &str, event: Event) {
        tandem_stdx::lock(&self.0).push(event);
    }
    fn request_approval(&self, _request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        Box::pin(async {
            ApprovalReply {
                decision: Decision::Accept,
                content: None,
                feedback: None,
                rejected_hunks: Default::default(),
            }
        })
    }
}

fn fixed_prompt() {
    let root = Path::new("/home/user/project");
    let tools = tandem_tools::definitions();
    let compact = context::compact_tools(&tools);
    for (name, system, tools) in [
        ("full", prompt::system_prompt(root), &tools),
        (
            "compact (windows <= 16k)",
            prompt::compact_system_prompt(root),
            &compact,
        ),
    ] {
        let messages = [tandem_model::Message::System { content: system }];
        let at3 = tokens::estimate(&messages, tools, 3.0);
        let at4 = tokens::estimate(&messages, tools, 4.0);
        println!(
            "fixed prompt, {name}: ~{at4} tokens (at 4 chars/token), ~{at3} (at 3, the cautious start)"
        );
    }
}

/// Characters over 3 per token, the cautious estimate, of a request the mock received.
fn estimated(request: &Value) -> u64 {
    let messages = request["messages"].as_array().map_or(0, Vec::len) as u64;
    let text: usize = request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["content"].as_str().map_or(0, |c| c.chars().count()))
        .sum();
    let tools = request.get("tools").map_or(0, |t| t.to_string().len());
    ((text + tools) as f64 / 3.0) as u64 + messages * tokens::PER_MESSAGE
}

async fn scripted_task(steps: usize, file_bytes: usize, window: u64) {
    let dir = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut replies = Vec::new();
    for i in 0..steps {
        let line = format!("fn item_{i}() {{ /* some code of file {i} */ }}\n");
        std::fs::write(
            dir.path().join(format!("f{i}.rs")),
            line.repeat(file_bytes / line.len() + 1),
        )
        .unwrap();
        replies.push(Reply::tool(
            "read_file",
            json!({"path": format!("f{i}.rs")}),
        ));
    }
    replies.push(Reply::text("All files read."));
    let mock = MockServer::start(Scenario::new(replies));
    let (agent, _client) = StartOptions {
        provider: ProviderOptions {
            base_url: Some(mock.base_url()),
            model: Some("mock-coder".into()),
            context_window: Some(window),
            ..ProviderOptions::default()
        },
        data_dir: Some(data.path().to_path_buf()),
        max_steps: Some(steps as u32 + 5),
        ..StartOptions::default()
    }
    .start()
    .expect("start");
    let session = agent.new_session(dir.path()).unwrap();
    let frontend = Arc::new(Collect(Mutex::new(Vec::new())));
    let started = Instant::now();
    agent
        .prompt(
            &session.session_id,
            format!("Read f0.rs to f{}.rs.", steps - 1),
            Vec::new(),
            frontend.clone(),
        )
        .unwrap();
    let ended = loop {
        let done = tandem_stdx::lock(&frontend.0).iter().find_map(|e| match e {
            Event::TurnEnded {
                stop_reason, error, ..
            } => Some(format!("{stop_reason:?} {error:?}")),
            _ => None,
        });
        if let Some(done) = done {
            break done;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the task did not end"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let requests = mock.chat_requests();
    let compactions = tandem_stdx::lock(&frontend.0)
        .iter()
        .filter(|e| matches!(e, Event::Compaction { .. }))
        .count();
    let largest = requests
        .iter()
        .map(|r| estimated(&r.body))
        .max()
        .unwrap_or(0);
    println!(
        "{steps}-step task, {file_bytes}-byte files, {window}-token window: {} requests \
         ({} steps + 1 answer; the rest summaries), {compactions} compactions, largest request \
         ~{largest} tokens (<= {window}: {}), ended {ended}, {:.1} s",
        requests.len(),
        steps,
        largest <= window,
        started.elapsed().as_secs_f64()
    );
    assert!(largest <= window, "a request over the window");
}

fn main() {
    fixed_prompt();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(scripted_task(20, 2048, 4096));
    runtime.block_on(scripted_task(20, 8192, 4096));
}
