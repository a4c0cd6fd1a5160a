//! `tandem exec`: one task with nobody at a terminal. The answer on stdout, events that follow
//! the documented schema, approvals refused at once, and an exit code for each ending.

use std::process::Output;

use crate::approvals::{ORIGINAL, PROPOSED, edit_then};
use crate::support::*;

/// `tandem exec` against `mock` in `env`, with `args` after the prompt; `stdin` is written to
/// its standard input (then closed).
pub(crate) async fn exec(
    env: &Env,
    mock: &MockServer,
    prompt: &str,
    args: &[&str],
    stdin: &str,
) -> Output {
    let mut command = env.command();
    command
        .args(["exec", prompt])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir)
        // A question that waited would hang the test until SAFETY: exec must never wait.
        .args(["--approval-timeout", "100000"])
        .args(args);
    run_piped(command, stdin).await
}

/// The `--json` lines, each checked against docs/exec-events.schema.json.
fn events(output: &Output) -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/exec-events.schema.json"
    );
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the schema")).expect("JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let events: Vec<Value> = stdout
        .lines()
        .map(|line| {
            let event: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}\n{}", show(output)));
            let errors: Vec<String> = validator
                .iter_errors(&event)
                .map(|e| format!("{e} at {}", e.instance_path()))
                .collect();
            assert!(
                errors.is_empty(),
                "{line}\ndoes not follow the schema: {errors:#?}"
            );
            event
        })
        .collect();
    assert!(!events.is_empty(), "no events\n{}", show(output));
    assert_eq!(events[0]["type"], "sessionStarted", "{events:#?}");
    assert_eq!(events.last().unwrap()["type"], "turnEnded", "{events:#?}");
    events
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

#[test]
fn the_schema_rejects_what_it_should() {
    // The schema must be able to fail: an unknown event, a missing field, a wrong enum.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/exec-events.schema.json"
    );
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&json!({"type": "notice", "message": "hi"})));
    for bad in [
        json!({"type": "party"}),
        json!({"type": "notice"}),
        json!({"type": "toolResult", "toolCallId": "c", "status": "fine", "output": "", "diff": null}),
        json!({"type": "sessionStarted", "version": 2, "sessionId": "s", "root": "/", "model": "m", "resumed": false}),
    ] {
        assert!(!validator.is_valid(&bad), "{bad} passed");
    }
}

#[tokio::test]
async fn the_answer_goes_to_stdout_and_progress_to_stderr() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(edit_then(Reply::text("The answer is now 42.")));
    let last = env.data_dir.join("last.txt");
    let output = exec(
        &env,
        &mock,
        "Make the answer 42",
        &["--yes", "--output-last-message", last.to_str().unwrap()],
        "",
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    // Only the answer: not the text before the tool call, no decorations.
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "The answer is now 42.\n"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    for needle in ["Changing the answer.", "• ", "✓ ", "session: "] {
        assert!(stderr.contains(needle), "{needle:?} missing\n{stderr}");
    }
    assert_eq!(env.read("src/answer.rs"), PROPOSED);
    assert_eq!(
        std::fs::read_to_string(&last).unwrap(),
        "The answer is now 42."
    );
    assert_eq!(model_requests(&mock).len(), 2);
}

#[tokio::test]
async fn json_events_follow_the_schema_and_say_who_approved() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(edit_then(Reply::text("The answer is now 42.")));
    let output = exec(&env, &mock, "Make the answer 42", &["--yes", "--json"], "").await;
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    let events = events(&output);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "sessionStarted",
            "turnStarted",
            "message",
            "usage",
            "toolCall",
            "approval",
            "toolResult",
            "message",
            "usage",
            "turnEnded"
        ],
        "{events:#?}"
    );
    assert_eq!(events[0]["version"], 1);
    assert_eq!(events[0]["model"], "mock-coder");
    assert_eq!(events[1]["prompt"], "Make the answer 42");
    let approval = of_type(&events, "approval")[0];
    assert_eq!(approval["action"], "edit");
    assert_eq!(approval["decision"], "accept");
    assert_eq!(approval["decidedBy"], "policy");
    assert_eq!(approval["target"], env.path("src/answer.rs"));
    let call = of_type(&events, "toolCall")[0];
    assert_eq!(call["name"], "replace_in_file");
    assert_eq!(approval["toolCallId"], call["toolCallId"]);
    let result = of_type(&events, "toolResult")[0];
    assert_eq!(result["status"], "ok");
    assert!(
        result["diff"].as_str().unwrap().contains("+    42"),
        "{result}"
    );
    let end = events.last().unwrap();
    assert_eq!(end["stopReason"], "endTurn");
    assert_eq!(end["exitCode"], 0);
    assert_eq!(end["usage"]["requests"], 2);
    assert_eq!(
        of_type(&events, "message").last().unwrap()["text"],
        "The answer is now 42."
    );
}

#[tokio::test]
async fn an_edit_without_yes_is_refused_at_once_and_exits_4() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(edit_then(
        Reply::text("I could not edit it.").expect_tool_result_contains("non-interactive"),
    ));
    let output = exec(&env, &mock, "Make the answer 42", &["--json"], "").await;
    assert_eq!(output.status.code(), Some(4), "{}", show(&output));
    let events = events(&output);
    let approval = of_type(&events, "approval")[0];
    assert_eq!(approval["decision"], "reject");
    assert_eq!(approval["decidedBy"], "exec");
    assert!(
        approval["note"].as_str().unwrap().contains("--yes"),
        "{approval}"
    );
    assert_eq!(of_type(&events, "toolResult")[0]["status"], "rejected");
    let end = events.last().unwrap();
    assert_eq!(end["rejectedActions"], 1);
    assert_eq!(end["exitCode"], 4);
    assert_eq!(env.read("src/answer.rs"), ORIGINAL, "nothing written");
    // The model was told why, and went on.
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 2);
}

#[tokio::test]
async fn a_command_outside_the_sandbox_needs_the_sandbox_off_too() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "execute_command",
            json!({"command": "echo escaped > out.txt", "outside_sandbox": true}),
        ),
        Reply::text("Done."),
    ]));
    // --yes alone does not let a command out of the sandbox.
    let output = exec(&env, &mock, "Write out.txt", &["--yes"], "").await;
    assert_eq!(output.status.code(), Some(4), "{}", show(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--sandbox off"), "{stderr}");
    assert!(!env.workspace.join("out.txt").exists(), "the command ran");
    let told = model_requests(&mock)[1]
        .last_tool_result()
        .unwrap_or_default();
    assert!(told.contains("non-interactive"), "{told}");

    // With the sandbox off and --yes, the user allowed everything: it runs.
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "execute_command",
            json!({"command": "echo escaped > out.txt", "outside_sandbox": true}),
        ),
        Reply::text("Done."),
    ]));
    let output = exec(
        &env,
        &mock,
        "Write out.txt",
        &["--yes", "--sandbox", "off"],
        "",
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    assert_eq!(env.read("out.txt"), "escaped\n");
}

#[tokio::test]
async fn a_model_error_exits_1_and_says_so() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::status(401)]));
    let output = exec(&env, &mock, "Hello", &[], "").await;
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    assert!(output.stdout.is_empty(), "{}", show(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("tandem: error: "), "{stderr}");

    let mock = MockServer::start(Scenario::new([Reply::status(401)]));
    let output = exec(&env, &mock, "Hello", &["--json"], "").await;
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    let end = events(&output).pop().unwrap();
    assert_eq!(end["stopReason"], "error");
    assert_eq!(end["errorKind"], "auth");
    assert!(
        end["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{end}"
    );
}

#[tokio::test]
async fn each_retry_is_an_event_of_the_schema_and_the_turn_still_ends_well() {
    let env = Env::new();
    let mock = MockServer::start(scenario("retry-500"));
    let output = exec(&env, &mock, "Hello?", &["--json"], "").await;
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    let events = events(&output);
    let retries = of_type(&events, "retrying");
    assert_eq!(retries.len(), 2, "{events:#?}");
    for (n, retry) in retries.into_iter().enumerate() {
        assert_eq!(retry["retry"], n + 1, "{retry}");
        assert_eq!(retry["status"], 500, "{retry}");
    }
    // Without --json, the progress on stderr says it, and the answer alone is on stdout.
    let mock = MockServer::start(scenario("retry-500"));
    let output = exec(&env, &mock, "Hello?", &[], "").await;
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("retrying (1/"), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "Hello after two failures."
    );
}

/// A cut answer ends the turn in error (docs/exec.md: 1), what came of it still on stdout.
#[tokio::test]
async fn a_cut_answer_exits_1_with_what_came() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("Once upon a").finish_reason("length")
    ]));
    let output = exec(&env, &mock, "Tell a story", &[], "").await;
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "Once upon a"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the answer was cut"), "{stderr}");
    let mock = MockServer::start(Scenario::new([
        Reply::text("Once upon a").finish_reason("length")
    ]));
    let output = exec(&env, &mock, "Tell a story", &["--json"], "").await;
    let end = events(&output).pop().unwrap();
    assert_eq!(end["stopReason"], "error");
    assert_eq!(end["errorKind"], "answerCut");
    assert_eq!(end["exitCode"], 1);
}

#[tokio::test]
async fn the_step_cap_exits_3() {
    let env = Env::new();
    env.write("notes.txt", "hello\n");
    let mock = MockServer::start(Scenario::new([Reply::tool(
        "read_file",
        json!({"path": "notes.txt"}),
    )]));
    let output = exec(&env, &mock, "Read it", &["--max-steps", "1", "--json"], "").await;
    assert_eq!(output.status.code(), Some(3), "{}", show(&output));
    let end = events(&output).pop().unwrap();
    assert_eq!(end["stopReason"], "maxSteps");
    assert_eq!(end["exitCode"], 3);
}

#[tokio::test]
async fn usage_errors_exit_2_before_any_request() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([]));
    for (prompt, args, needle) in [
        ("-", &[][..], "prompt is empty"),
        ("  ", &[][..], "prompt is empty"),
        (
            "Hi",
            &["--resume", "no-such-session"][..],
            "no-such-session",
        ),
    ] {
        let output = exec(&env, &mock, prompt, args, "").await;
        assert_eq!(output.status.code(), Some(2), "{}", show(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{needle:?}\n{stderr}");
    }
    assert!(mock.chat_requests().is_empty());
}

#[tokio::test]
async fn the_prompt_comes_from_stdin_and_resume_continues_the_session() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("First answer."),
        Reply::text("Second answer.").expect_messages_contain("First answer."),
    ]));
    let output = exec(&env, &mock, "-", &["--json"], "Summarise\nthe two lines").await;
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    let events = events(&output);
    assert_eq!(events[1]["prompt"], "Summarise\nthe two lines");
    let session = events[0]["sessionId"].as_str().unwrap().to_string();

    let output = exec(&env, &mock, "And again", &["--resume", &session], "").await;
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "Second answer.\n");
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 2);
    let texts = requests[1].message_texts().join("\n");
    assert!(texts.contains("Summarise\nthe two lines"), "{texts}");
}

#[cfg(target_os = "linux")]
/// A script the model runs, reaching for a TCP listener on this machine (a plain command line:
/// the allow-list admits no shell operators).
fn write_connect_script(env: &Env, port: u16) {
    env.write(
        "connect.py",
        &format!(
            "import socket\nprint(\"start\")\ntry:\n    socket.create_connection((\"127.0.0.1\", {port}), 5)\n    print(\"CONNECTED\")\nexcept OSError as e:\n    print(\"refused:\", e)\n"
        ),
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn allow_runs_a_command_prefix_and_allow_network_lets_it_out() {
    let env = Env::new();
    // The sandbox's network wall needs the kernel's namespaces: fail with its reason without.
    crate::walls::require_namespaces(&env).await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    write_connect_script(&env, listener.local_addr().unwrap().port());
    let run = || {
        MockServer::start(Scenario::new([
            Reply::tool("execute_command", json!({"command": "python3 connect.py"})),
            Reply::text("Done."),
        ]))
    };

    // --allow python3: it runs without --yes, in the sandbox, where the network is off.
    let mock = run();
    let output = exec(
        &env,
        &mock,
        "Connect",
        &["--allow", "python3", "--json"],
        "",
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    let first = events(&output);
    let approval = of_type(&first, "approval")[0];
    assert_eq!(approval["decision"], "accept", "{approval}");
    assert_eq!(approval["decidedBy"], "policy", "{approval}");
    let result = of_type(&first, "toolResult")[0]["output"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(result.contains("start"), "it did not run: {result}");
    assert!(!result.contains("CONNECTED"), "{result}");

    // Another prefix does not let it run.
    let mock = run();
    let output = exec(&env, &mock, "Connect", &["--allow", "cargo test"], "").await;
    assert_eq!(output.status.code(), Some(4), "{}", show(&output));

    // --allow-network too: the same command reaches the listener.
    let mock = run();
    let output = exec(
        &env,
        &mock,
        "Connect",
        &["--allow", "python3", "--allow-network", "--json"],
        "",
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    let result = of_type(&events(&output), "toolResult")[0]["output"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(result.contains("CONNECTED"), "{result}");
}

#[cfg(unix)]
#[tokio::test]
async fn sigint_cancels_the_turn_and_exits_130() {
    use std::process::Stdio;
    use tokio::io::{AsyncBufReadExt, BufReader};

    let env = Env::new();
    // An answer that would take minutes.
    let mock = MockServer::start(Scenario::new([Reply::text("slow ".repeat(2000))
        .chunk_size(5)
        .delay_ms(100)]));
    let mut command = env.command();
    command
        .args(["exec", "Take your time", "--json"])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    // Once the turn runs and the model is streaming (its request arrived), ^C.
    while let Some(line) = tokio::time::timeout(SAFETY, lines.next_line())
        .await
        .expect("no events")
        .unwrap()
    {
        let started = line.contains("\"turnStarted\"");
        seen.push(line);
        if started {
            break;
        }
    }
    let deadline = std::time::Instant::now() + SAFETY;
    while mock.chat_requests().is_empty() {
        assert!(std::time::Instant::now() < deadline, "no request: {seen:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // SAFETY: a signal to the child we started.
    unsafe {
        libc::kill(child.id().unwrap() as i32, libc::SIGINT);
    }
    while let Some(line) = tokio::time::timeout(SAFETY, lines.next_line())
        .await
        .expect("exec did not end after SIGINT")
        .unwrap()
    {
        seen.push(line);
    }
    let status = tokio::time::timeout(SAFETY, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(130), "{seen:#?}");
    let end: Value = serde_json::from_str(seen.last().unwrap()).unwrap();
    assert_eq!(end["type"], "turnEnded", "{seen:#?}");
    assert_eq!(end["stopReason"], "cancelled");
    assert_eq!(end["exitCode"], 130);
}

/// Inside the walls a pipeline and list of read-only parts with a redirection into the
/// workspace runs unasked (decided by the policy); a substitution of a command no rule admits is
/// refused, and the approval event says which part and why.
#[tokio::test]
async fn a_pipeline_of_admitted_parts_runs_unasked_and_a_substitution_says_which_part() {
    let env = Env::new();
    env.write("a.txt", "one\ntwo\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "execute_command",
            json!({"command": "cat a.txt | wc -l > count.txt && echo counted"}),
        ),
        Reply::tool(
            "execute_command",
            json!({"command": "echo $(touch made.txt)"}),
        ),
        Reply::text("Done."),
    ]));
    let output = exec(&env, &mock, "Count", &["--json"], "").await;
    let events = events(&output);
    let approvals = of_type(&events, "approval");
    assert_eq!(approvals.len(), 2, "{events:#?}");
    assert_eq!(approvals[0]["decision"], "accept", "{}", approvals[0]);
    assert_eq!(approvals[0]["decidedBy"], "policy");
    assert_eq!(approvals[0]["reason"], Value::Null);
    assert_eq!(env.read("count.txt").trim(), "2");
    assert_eq!(approvals[1]["decision"], "reject", "{}", approvals[1]);
    assert_eq!(
        approvals[1]["reason"],
        "`touch made.txt` (in a substitution): no rule admits this command"
    );
    assert!(!env.workspace.join("made.txt").exists());
    let told = model_requests(&mock)[2]
        .last_tool_result()
        .unwrap_or_default();
    assert!(told.contains("touch made.txt"), "{told}");
}

/// A deny rule in the user's config refuses a command even where the flags let everything out
/// of the sandbox (`--sandbox off --yes`): it never runs.
#[tokio::test]
async fn a_deny_rule_refuses_what_the_flags_would_let_out_of_the_sandbox() {
    let env = Env::new();
    env.write("keep.txt", "keep\n");
    std::fs::create_dir_all(env.user_config_dir()).unwrap();
    std::fs::write(
        env.user_config_dir().join("config.toml"),
        "[approval.rules]\ndeny = [\"rm\"]\n",
    )
    .unwrap();
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "execute_command",
            json!({"command": "ls && rm -f keep.txt", "outside_sandbox": true}),
        ),
        Reply::text("It was refused."),
    ]));
    let output = exec(
        &env,
        &mock,
        "Clean up",
        &["--json", "--yes", "--sandbox", "off"],
        "",
    )
    .await;
    let events = events(&output);
    assert_eq!(env.read("keep.txt"), "keep\n", "{}", show(&output));
    let result = of_type(&events, "toolResult")[0];
    assert_eq!(result["status"], "rejected", "{result}");
    let said = result["output"].as_str().unwrap();
    assert!(said.contains("deny rule `rm`"), "{said}");
    // Nobody was asked: a deny rule is no question.
    assert!(of_type(&events, "approval").is_empty(), "{events:#?}");
}
