//! Local models in numbers: `cargo bench -p tandem --bench local`.
//!
//! - the fixed part of every request (system prompt + tool definitions), in estimated tokens,
//!   with the full prompt and with the compact one small windows (16k or less) get; and the
//!   compact one with "Say hello." as llama-server counts it (its `/apply-template` with
//!   Qwen2.5's template, `tests/fixtures/templates/qwen2.5.jinja`, and SmolLM2's tokenizer),
//!   with native tools and with tools as text;
//! - a scripted task of 20 `read_file` steps in a 4,096-token window against the mock model:
//!   how many requests it takes (compaction's summaries included), how many compactions, and
//!   the largest request as estimated (it must stay inside the window);
//! - a 12-turn session against llama.cpp's own `llama-server` serving SmolLM2-135M (built by
//!   `tests/llama/server-setup.sh`; skipped, saying so, without it) at `--ctx-size 4096`, each
//!   turn two file reads and an answer: per step the prompt tokens the server read, how many
//!   came from its prompt cache and how many it evaluated, and the seconds; with one slot and
//!   with the server's default slots. The two reads of each turn are put into the real model's
//!   answers (a 135M model does not call tools reliably): the server still reads every prompt,
//!   so its cache numbers are real. Three servers: one slot; the default slots (`-np -1`: 4
//!   sharing one KV cache); 4 slots of their own (`-np 4 -c 16384`: 4,096 tokens each).
//!   `TANDEM_BENCH_SERVERS=1,default,4` picks some of them (all when unset);
//! - a task needing a fact from each of 10 files (2 KiB each) in a 4,096-token window against the
//!   mock model, done by the main agent alone and then through the `explore` subagent: the main
//!   agent's peak request and its compactions, and the subagent's (scripted choices, real sizes).

#[path = "../../../tests/llama-server/server.rs"]
#[allow(dead_code)]
mod llama_server;
#[path = "../../../tests/llama-server/scripted.rs"]
#[allow(dead_code)]
mod scripted;

use std::path::Path;
use std::time::{Duration, Instant};

use mock_model::{MockServer, Reply, Scenario};
use scripted::{Collect, Recorder, Request};
use serde_json::{Value, json};
use tandem_agent::events::Event;
use tandem_agent::{Agent, prompt};
use tandem_config::{ProviderOptions, StartOptions};
use tandem_provider::{LazyClient, ToolMode, tokens};

fn fixed_prompt() {
    let root = Path::new("/home/user/project");
    let registry = tandem_agent::builtin_tools();
    let tools = registry.definitions();
    let compact = registry.compact_definitions();
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

/// The fixed prompt of a small window as llama-server counts it: the compact system prompt, every
/// built-in tool and "Say hello.", rendered by the server's chat template (`/apply-template`:
/// Qwen2.5's, which renders tool definitions, as a Qwen2.5 model's server would) and tokenized by
/// its tokenizer (SmolLM2's), native and with tools as text. The goal: under 800 and 450.
async fn fixed_prompt_counted() {
    let template = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/templates/qwen2.5.jinja"
    );
    let server =
        llama_server::LlamaServer::start(4096, &["--jinja", "--chat-template-file", template]);
    let messages = [
        tandem_model::Message::System {
            content: prompt::compact_system_prompt(Path::new("/home/user/project")),
        },
        tandem_model::Message::user("Say hello."),
    ];
    let tools = tandem_agent::builtin_tools().compact_definitions();
    for (name, mode, goal) in [
        ("native", ToolMode::Native, 800),
        ("text", ToolMode::Text, 450),
    ] {
        let client = LazyClient::new(
            ProviderOptions {
                base_url: Some(server.url.clone()),
                model: Some("smollm2".into()),
                tool_mode: Some(mode),
                ..ProviderOptions::default()
            },
            tandem_provider::Limits::default(),
        );
        let request = tandem_provider::CompletionRequest::conversation(&messages, &tools, 1);
        match tandem_provider::ModelClient::count_request(&client, request).await {
            Some(n) => println!(
                "fixed prompt, compact, {name} tools, counted by llama-server (Qwen2.5 template, \
                 SmolLM2 tokenizer) with \"Say hello.\": {n} tokens (goal: under {goal})"
            ),
            None => println!("fixed prompt, {name} tools: llama-server did not count the request"),
        }
        // The floor no shorter wording can go under: the same tools with every description
        // (the tools' and their parameters') and the system prompt empty.
        let bare = [
            tandem_model::Message::System {
                content: String::new(),
            },
            tandem_model::Message::user("Say hello."),
        ];
        let bare_tools = without_descriptions(&tools);
        let request = tandem_provider::CompletionRequest::conversation(&bare, &bare_tools, 1);
        if let Some(n) = tandem_provider::ModelClient::count_request(&client, request).await {
            println!(
                "  floor, {name}: {n} tokens with every description and the system prompt empty \
                 ({} tools)",
                tools.len()
            );
        }
    }
}

/// The tools with their descriptions emptied, parameters' included: their structure alone.
fn without_descriptions(
    tools: &[tandem_model::ToolDefinition],
) -> Vec<tandem_model::ToolDefinition> {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    match v {
                        Value::String(s) if key == "description" => s.clear(),
                        _ => strip(v),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    tools
        .iter()
        .map(|tool| {
            let mut tool = tool.clone();
            tool.description.clear();
            strip(&mut tool.parameters);
            tool.example = None;
            tool
        })
        .collect()
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
    // A compaction's summary is asked aside: answered apart, so the steps keep their replies.
    let mock = MockServer::start(Scenario::new(replies).with_aside(
        "You compress a coding assistant's conversation",
        Reply::text("The task: read the files. Read so far: some of f0.rs to f19.rs."),
    ));
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
    let frontend = Collect::new();
    let started = Instant::now();
    agent
        .prompt(
            &session.session_id,
            format!("Read f0.rs to f{}.rs.", steps - 1),
            Vec::new(),
            frontend.clone(),
        )
        .unwrap();
    let ended = frontend.turn_ended(1, Duration::from_secs(120)).await;
    let requests = mock.chat_requests();
    let compactions = frontend
        .events()
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

/// Whether a request the mock received is a subagent's (its system prompt says so).
fn is_subagents(request: &Value) -> bool {
    request["messages"][0]["content"]
        .as_str()
        .is_some_and(|c| c.contains("subagent of Tandem"))
}

/// A task that needs one fact from each of `files` files in a `window`-token window: the main
/// agent reading them itself, or handing the search to the built-in `explore` subagent (one
/// `task` call; the subagent reads them in its own window and answers with the facts). Scripted:
/// the model's choices are the mock's; the files, the requests, the fitting and the compactions
/// are Tandem's own. Prints the main agent's peak request (estimated, as the largest the mock got)
/// and the compactions in each context.
async fn delegation(files: usize, file_bytes: usize, window: u64, delegate: bool) {
    let dir = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut replies = Vec::new();
    if delegate {
        replies.push(Reply::tool(
            "task",
            json!({
                "description": "find the items",
                "prompt": format!("Read f0.rs to f{}.rs and report where each item_N function is, as path:line.", files - 1),
                "subagent_type": "explore",
            }),
        ));
    }
    let mut facts = String::new();
    for i in 0..files {
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
        facts.push_str(&format!("item_{i}: f{i}.rs:1\n"));
    }
    if delegate {
        replies.push(Reply::text(facts.clone()));
    }
    replies.push(Reply::text(format!("The items:\n{facts}")));
    let mock = MockServer::start(Scenario::new(replies));
    let (agent, _client) = StartOptions {
        provider: ProviderOptions {
            base_url: Some(mock.base_url()),
            model: Some("mock-coder".into()),
            context_window: Some(window),
            ..ProviderOptions::default()
        },
        data_dir: Some(data.path().to_path_buf()),
        max_steps: Some(files as u32 + 5),
        ..StartOptions::default()
    }
    .start()
    .expect("start");
    let session = agent.new_session(dir.path()).unwrap();
    let frontend = Collect::new();
    agent
        .prompt(
            &session.session_id,
            format!(
                "Where is each item_N function of f0.rs to f{}.rs?",
                files - 1
            ),
            Vec::new(),
            frontend.clone(),
        )
        .unwrap();
    let ended = frontend.turn_ended(1, Duration::from_secs(120)).await;
    let requests = mock.chat_requests();
    let events = frontend.events();
    let main_compactions = (events.iter())
        .filter(|e| matches!(e, Event::Compaction { .. }))
        .count();
    let sub_compactions = (events.iter())
        .filter(|e| matches!(e, Event::Subagent { event, .. } if matches!(**event, Event::Compaction { .. })))
        .count();
    let peak = |sub: bool| {
        (requests.iter())
            .filter(|r| is_subagents(&r.body) == sub)
            .map(|r| estimated(&r.body))
            .max()
            .unwrap_or(0)
    };
    let main_requests = requests.iter().filter(|r| !is_subagents(&r.body)).count();
    let how = if delegate {
        "with explore"
    } else {
        "without subagent"
    };
    println!(
        "facts from {files} files of {file_bytes} bytes, {window}-token window, {how}: main agent \
         peak request ~{} tokens, {main_compactions} compactions, {main_requests} requests; \
         subagent peak ~{} tokens, {sub_compactions} compactions, {} requests; ended {ended}",
        peak(false),
        peak(true),
        requests.len() - main_requests,
    );
}

const TURNS: usize = 12;

/// The 12-turn session against a real llama-server of `n_ctx` started with `extra` flags.
async fn real_session(label: &str, n_ctx: u32, extra: &[&str]) {
    let server = llama_server::LlamaServer::start(n_ctx, extra);
    let dir = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    for i in 0..TURNS * 2 {
        let text: String = (0..24)
            .map(|l| format!("pub fn part_{i}_{l}(x: u32) -> u32 {{ x + {l} }}\n"))
            .collect();
        std::fs::write(dir.path().join(format!("f{i}.rs")), text).unwrap();
    }
    let resolved = StartOptions {
        provider: ProviderOptions {
            base_url: Some(server.url.clone()),
            model: Some("smollm2".into()),
            // SmolLM2's template drops tool definitions: text mode, without the probe.
            tool_mode: Some(ToolMode::Text),
            // Short answers: the bench measures the prompt, not a tiny model's rambling.
            max_output_tokens: Some(48),
            ..ProviderOptions::default()
        },
        data_dir: Some(data.path().to_path_buf()),
        max_steps: Some(10),
        ..StartOptions::default()
    }
    .resolve()
    .expect("settings");
    let recorder = Recorder::new(LazyClient::new(resolved.provider, resolved.limits));
    let agent = Agent::new(resolved.settings, recorder.clone());
    let session = agent.new_session(dir.path()).unwrap();
    let frontend = Collect::new();
    let started = Instant::now();
    for turn in 1..=TURNS {
        let (a, b) = (
            format!("f{}.rs", 2 * turn - 2),
            format!("f{}.rs", 2 * turn - 1),
        );
        recorder.script_reads(turn, &[&a, &b]);
        agent
            .prompt(
                &session.session_id,
                format!("Read {a} and {b}, then say in one line what they define."),
                Vec::new(),
                frontend.clone(),
            )
            .unwrap();
        frontend.turn_ended(turn, Duration::from_secs(900)).await;
    }
    let total = started.elapsed().as_secs_f64();
    let requests = tandem_stdx::lock(&recorder.requests);
    let compactions = frontend
        .events()
        .iter()
        .filter(|e| matches!(e, Event::Compaction { .. }))
        .count();
    let notices: Vec<String> = frontend
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::Notice { message } => Some(message.clone()),
            _ => None,
        })
        .collect();
    println!("\nllama-server, SmolLM2-135M, 4,096-token window, {label}:");
    for notice in notices {
        println!("  notice: {notice}");
    }
    println!("  turn  request   prompt  cached  evaluated  seconds");
    for (i, r) in requests.iter().enumerate() {
        let cached = r.cached.unwrap_or(0);
        println!(
            "  {:>4}  {:>7}  {:>7}  {:>6}  {:>9}  {:>7.2}",
            r.turn,
            if r.aside {
                "summary".to_string()
            } else {
                format!("step {}", i + 1)
            },
            r.prompt,
            cached,
            r.prompt.saturating_sub(cached),
            r.seconds
        );
    }
    let steps: Vec<&Request> = requests.iter().filter(|r| !r.aside).collect();
    let later = steps.get(1..).unwrap_or_default();
    let prompt: u64 = later.iter().map(|r| r.prompt).sum();
    let cached: u64 = later.iter().map(|r| r.cached.unwrap_or(0)).sum();
    // What the server had seen before each step: at most the previous step's prompt and answer.
    // A new tool output can't come from any cache; a rewritten or evicted prefix could have.
    let seen: u64 = steps
        .windows(2)
        .map(|pair| pair[1].prompt.min(pair[0].prompt + pair[0].completion))
        .sum();
    let reused: u64 = steps
        .windows(2)
        .map(|pair| {
            let most = pair[1].prompt.min(pair[0].prompt + pair[0].completion);
            pair[1].cached.unwrap_or(0).min(most)
        })
        .sum();
    println!(
        "  prefix kept: of the {seen} tokens the steps after the first could have had from the \
         cache (each at most the previous step's prompt and answer; new tool outputs can't be), \
         {reused} came from it ({:.0}%); compactions and evictions are the misses",
        100.0 * reused as f64 / seen.max(1) as f64
    );
    println!(
        "  {TURNS} turns: {} requests ({:.1} a turn; {} summaries), {compactions} compactions; \
         steps after the first: {cached} of {prompt} prompt tokens from the cache ({:.0}%; aim \
         90%, before this bench 40% was measured), {} evaluated; {:.2} s a request, {:.0} s in all",
        requests.len(),
        requests.len() as f64 / TURNS as f64,
        requests.len() - steps.len(),
        100.0 * cached as f64 / prompt.max(1) as f64,
        prompt - cached,
        requests.iter().map(|r| r.seconds).sum::<f64>() / requests.len().max(1) as f64,
        total
    );
}

fn main() {
    // The process-wide TLS crypto provider, chosen once as `tandem`'s main chooses it.
    tandem_test_support::install_crypto_provider();
    fixed_prompt();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(scripted_task(20, 2048, 4096));
    runtime.block_on(scripted_task(20, 8192, 4096));
    for delegate in [false, true] {
        runtime.block_on(delegation(10, 2048, 4096, delegate));
    }
    if std::panic::catch_unwind(llama_server::paths).is_err() {
        println!(
            "\nllama-server: skipped (run tests/llama/server-setup.sh to build it and fetch the \
             model)"
        );
        return;
    }
    runtime.block_on(fixed_prompt_counted());
    let chosen = std::env::var("TANDEM_BENCH_SERVERS").unwrap_or_else(|_| "1,default,4".into());
    let chosen: Vec<&str> = chosen.split(',').map(str::trim).collect();
    if chosen.contains(&"1") {
        runtime.block_on(real_session("one slot (-np 1)", 4096, &[]));
    }
    if chosen.contains(&"default") {
        runtime.block_on(real_session(
            "the server's default slots (-np -1: 4 sharing one KV cache)",
            4096,
            &["-np", "-1"],
        ));
    }
    if chosen.contains(&"4") {
        runtime.block_on(real_session(
            "4 slots of their own (-np 4 -c 16384: 4,096 tokens each)",
            16384,
            &["-np", "4"],
        ));
    }
}
