//! The user's hooks around a turn: a PreToolUse hook refusing `rm` (the model reads why, nothing
//! runs), a PostToolUse formatter (the file on disk formatted, the model told), a hook that hangs
//! (stopped at its timeout and reported), a failing hook shown, prompt and session context the
//! model sees, a Stop hook at the end; and abuse: the model's text reaches a hook on stdin only,
//! however it is quoted and however big, and a hook's flood of output is capped.

use std::path::Path;
use std::time::Duration;

use crate::support::*;
use mock_model::{Reply, Scenario};
use serde_json::{Value, json};
use tandem_agent::approval::{ApprovalPolicy, AutoApprove};
use tandem_agent::events::{Event, StopReason, ToolStatus};
use tandem_agent::hooks::{DEFAULT_TIMEOUT, HookEvent, HookSource, HookSpec};

fn hook(event: HookEvent, matcher: &str, command: &str) -> HookSpec {
    HookSpec {
        event,
        matcher: matcher.into(),
        command: command.into(),
        timeout: DEFAULT_TIMEOUT,
        sandbox: true,
        source: HookSource::User("/config.toml".into()),
    }
}

fn with_hooks(scenario: Scenario, hooks: Vec<HookSpec>) -> Harness {
    Harness::with(
        scenario,
        Setup {
            hooks,
            ..Setup::default()
        },
    )
}

/// A script file outside the workspace (the model can't change it), run by `sh`.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    format!("sh '{}'", path.display())
}

fn notices(turn: &Turn) -> Vec<String> {
    turn.events
        .iter()
        .filter_map(|e| match e {
            Event::Notice { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

const DENY_RM: &str = r#"input=$(cat)
case "$input" in
  *'"command":"rm '*) echo "rm is not allowed here; move files to trash/ instead" >&2; exit 2 ;;
esac
exit 0
"#;

#[tokio::test]
async fn a_pre_tool_use_hook_refuses_rm_and_the_model_reads_why() {
    let scripts = tempfile::tempdir().unwrap();
    let h = with_hooks(
        Scenario::new([
            Reply::tool("execute_command", json!({"command": "rm precious.txt"})),
            Reply::text("OK, I won't.").expect_tool_result_contains("move files to trash/"),
        ]),
        vec![hook(
            HookEvent::PreToolUse,
            "Bash",
            &script(scripts.path(), "deny.sh", DENY_RM),
        )],
    );
    h.write("precious.txt", "keep me");
    let turn = h.turn("Delete precious.txt", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(h.read("precious.txt"), "keep me");
    let results = turn.results();
    assert_eq!(results[0].0, ToolStatus::Rejected, "{turn}");
    assert!(results[0].1.contains("PreToolUse hook"), "{}", results[0].1);
    // Refused before any question.
    assert_eq!(
        turn.count(|e| matches!(e, Event::Notice { .. })),
        0,
        "{turn}"
    );
    h.requests();
}

#[tokio::test]
async fn a_pre_tool_use_hook_lets_other_commands_through_to_their_question() {
    let scripts = tempfile::tempdir().unwrap();
    let h = with_hooks(
        Scenario::new([
            Reply::tool("execute_command", json!({"command": "touch made.txt"})),
            Reply::text("Done.").expect_tool_result_contains("exit code 0"),
        ]),
        vec![hook(
            HookEvent::PreToolUse,
            "Bash",
            &script(scripts.path(), "deny.sh", DENY_RM),
        )],
    );
    let mut running = h.start("Make a file", vec![Answer::accept()]);
    running.asked().await;
    let turn = running.end().await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert!(h.root().join("made.txt").exists());
}

const FORMAT: &str = r#"file=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"]["file_path"])')
sed -i 's/[[:space:]]*$//' "$file"
printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"Formatted %s: trailing spaces removed."}}' "$(basename "$file")"
"#;

#[tokio::test]
async fn a_post_tool_use_hook_formats_the_edited_file_and_the_model_is_told() {
    let scripts = tempfile::tempdir().unwrap();
    let h = Harness::with(
        Scenario::new([
            Reply::tool(
                "write_to_file",
                json!({"path": "src/lib.rs", "content": "fn a() {}   \nfn b() {}\t\n"}),
            ),
            Reply::text("Written.").expect_tool_result_contains("Formatted lib.rs"),
        ]),
        Setup {
            hooks: vec![hook(
                HookEvent::PostToolUse,
                "Edit|Write",
                &script(scripts.path(), "format.sh", FORMAT),
            )],
            policy: ApprovalPolicy {
                auto_approve: AutoApprove {
                    edit: true,
                    ..AutoApprove::default()
                },
                ..ApprovalPolicy::default()
            },
            ..Setup::default()
        },
    );
    let turn = h.turn("Write src/lib.rs", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(h.read("src/lib.rs"), "fn a() {}\nfn b() {}\n");
    h.requests();
}

#[tokio::test]
async fn what_a_sandboxed_hook_writes_is_in_the_turns_changes_and_undone_with_it() {
    let h = Harness::with(
        Scenario::new([
            Reply::tool(
                "write_to_file",
                json!({"path": "src/lib.rs", "content": "fn a() {}\n"}),
            ),
            Reply::text("Written.")
                .expect_tool_result_contains("changed these files after the tool ran: notes.md"),
        ]),
        Setup {
            hooks: vec![hook(
                HookEvent::PostToolUse,
                "Write",
                "printf 'formatted\\n' >> notes.md",
            )],
            policy: ApprovalPolicy {
                auto_approve: AutoApprove {
                    edit: true,
                    ..AutoApprove::default()
                },
                ..ApprovalPolicy::default()
            },
            ..Setup::default()
        },
    );
    h.write("notes.md", "old notes\n");
    let turn = h.turn("Write src/lib.rs", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(h.read("notes.md"), "old notes\nformatted\n");
    h.requests();
    let face = h.idle_face();
    let changes = h
        .agent
        .turn_changes(&h.session, None, face.as_ref())
        .await
        .unwrap()
        .expect("the turn changed files");
    let notes = (changes.files.iter())
        .find(|f| f.path == "notes.md")
        .unwrap_or_else(|| panic!("the hook's write is not in the turn's changes: {changes:?}"));
    let by = notes.by.as_ref().expect("attributed");
    assert_eq!(by.source, tandem_tools::ChangeSource::Hook);
    let write_id = turn.events.iter().find_map(|e| match e {
        Event::ToolCall(call) => Some(call.tool_call_id.to_string()),
        _ => None,
    });
    assert_eq!(by.tool_call_id, write_id, "the call the hook ran after");
    h.agent
        .undo(&h.session, None, false, face.as_ref())
        .await
        .unwrap();
    assert_eq!(
        h.read("notes.md"),
        "old notes\n",
        "undo restored what the hook changed"
    );
    assert!(!h.root().join("src/lib.rs").exists());
}

#[tokio::test]
async fn a_hook_that_hangs_is_stopped_at_its_timeout_and_reported() {
    let h = with_hooks(
        Scenario::new([
            Reply::tool("read_file", json!({"path": "a.txt"})),
            Reply::text("Read it.").expect_tool_result_contains("hello"),
        ]),
        vec![HookSpec {
            timeout: Duration::from_millis(300),
            ..hook(HookEvent::PreToolUse, "*", "sleep 1000")
        }],
    );
    h.write("a.txt", "hello");
    let turn = h.turn("Read a.txt", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let notices = notices(&turn);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].contains("PreToolUse hook `sleep 1000`")
            && notices[0].contains("did not finish within its 0.3 s timeout"),
        "{notices:?}"
    );
}

#[tokio::test]
async fn a_failing_hook_is_shown_and_the_turn_goes_on() {
    let h = with_hooks(
        Scenario::new([
            Reply::tool("read_file", json!({"path": "a.txt"})),
            Reply::text("Read it.").expect_tool_result_contains("hello"),
        ]),
        vec![hook(
            HookEvent::PostToolUse,
            "Read",
            "echo broken >&2; exit 3",
        )],
    );
    h.write("a.txt", "hello");
    let turn = h.turn("Read a.txt", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let notices = notices(&turn);
    assert!(
        notices.len() == 1 && notices[0].contains("failed with exit code 3: broken"),
        "{notices:?}"
    );
}

#[tokio::test]
async fn prompt_and_session_hooks_add_context_the_model_sees() {
    let h = with_hooks(
        Scenario::new([Reply::text("Noted.")
            .expect_messages_contain("The staging server is down today.")
            .expect_messages_contain("Branch: feature/x")]),
        vec![
            hook(
                HookEvent::UserPromptSubmit,
                "",
                "echo 'The staging server is down today.'",
            ),
            hook(HookEvent::SessionStart, "", "echo 'Branch: feature/x'"),
        ],
    );
    let turn = h.turn("Deploy it", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    h.requests();
}

/// Waits (bounded) until `path` has `lines` lines, and returns them.
async fn lines_of(path: &Path, lines: usize) -> Vec<String> {
    for _ in 0..3000 {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.lines().count() >= lines {
            return text.lines().map(String::from).collect();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} never had {lines} lines", path.display());
}

#[tokio::test]
async fn session_start_runs_when_the_session_opens_and_again_when_it_is_resumed() {
    let out = tempfile::tempdir().unwrap();
    let log = out.path().join("starts.jsonl");
    let h = with_hooks(
        Scenario::new([Reply::text("Noted.").expect_messages_contain("Branch: feature/x")]),
        vec![HookSpec {
            // Its log outside the workspace: a hook of the user's own config, unsandboxed.
            sandbox: false,
            ..hook(
                HookEvent::SessionStart,
                "",
                &format!(
                    "cat >> '{}'; echo >> '{}'; echo 'Branch: feature/x'",
                    log.display(),
                    log.display()
                ),
            )
        }],
    );
    // No prompt yet: the hook ran when the session was created.
    let started: Value = serde_json::from_str(&lines_of(&log, 1).await[0]).unwrap();
    assert_eq!(started["hook_event_name"], "SessionStart");
    assert_eq!(started["source"], "startup");
    assert_eq!(started["session_id"], h.session.to_string());
    // Its stdout reaches the model at the first turn, and stays in the session's context.
    let turn = h.turn("Deploy it", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    h.requests();
    assert_eq!(
        lines_of(&log, 1).await.len(),
        1,
        "ran again at the first turn"
    );
    // A new process loading the session from its transcript: `resume`, before any prompt.
    h.reloaded();
    let resumed: Value = serde_json::from_str(&lines_of(&log, 2).await[1]).unwrap();
    assert_eq!(resumed["source"], "resume");
    assert_eq!(resumed["session_id"], h.session.to_string());
}

#[tokio::test]
async fn a_prompt_hook_that_exits_2_keeps_the_prompt_from_the_model() {
    let h = with_hooks(
        Scenario::new([Reply::text("never sent")]),
        vec![hook(
            HookEvent::UserPromptSubmit,
            "",
            "grep -q password && { echo 'no secrets in prompts' >&2; exit 2; }; exit 0",
        )],
    );
    let turn = h.turn("my password is hunter2", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert!(
        notices(&turn)
            .iter()
            .any(|n| n.contains("no secrets in prompts")),
        "{turn}"
    );
    assert_eq!(h.mock.replies_left(), 1);
}

#[tokio::test]
async fn a_stop_hook_runs_when_the_turn_ends() {
    let out = tempfile::tempdir().unwrap();
    let log = out.path().join("stop.json");
    let h = with_hooks(
        Scenario::new([Reply::text("All done.")]),
        vec![HookSpec {
            // Outside the workspace: a hook of the user's own config, unsandboxed.
            sandbox: false,
            ..hook(HookEvent::Stop, "", &format!("cat > '{}'", log.display()))
        }],
    );
    let turn = h.turn("Finish", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "Stop");
    assert_eq!(input["stop_reason"], "end_turn");
    assert_eq!(input["session_id"], h.session.to_string());
}

/// Blocks the end once, Claude Code's way (exit 2, the reason on stderr); lets it end when
/// `stop_hook_active` says a Stop hook already kept the turn going. Logs each input.
const STOP_ONCE: &str = r#"input=$(cat)
printf '%s\n' "$input" >> stops.jsonl
case "$input" in *'"stop_hook_active":true'*) exit 0 ;; esac
echo "run the tests first" >&2
exit 2
"#;

#[tokio::test]
async fn a_stop_hook_that_blocks_keeps_the_turn_going_with_its_reason() {
    let scripts = tempfile::tempdir().unwrap();
    let h = with_hooks(
        Scenario::new([
            Reply::text("All done."),
            Reply::tool("execute_command", json!({"command": "echo tests pass"}))
                .expect_messages_contain("run the tests first"),
            Reply::text("Tests pass; done.").expect_tool_result_contains("tests pass"),
        ]),
        vec![hook(
            HookEvent::Stop,
            "",
            &script(scripts.path(), "stop.sh", STOP_ONCE),
        )],
    );
    let turn = h.turn("Fix the bug", vec![Answer::accept()]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(h.mock.replies_left(), 0, "{turn}");
    let inputs: Vec<Value> = h
        .read("stops.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(inputs.len(), 2, "{inputs:?}");
    assert_eq!(inputs[0]["stop_hook_active"], false);
    assert_eq!(inputs[1]["stop_hook_active"], true);
    assert!(
        notices(&turn)
            .iter()
            .any(|n| n.contains("keeps the turn going (1 of at most 5): run the tests first")),
        "{turn}"
    );
    h.requests();
}

#[tokio::test]
async fn a_stop_hook_that_always_blocks_ends_after_the_bound_with_a_notice() {
    let mut replies: Vec<Reply> = (0..6).map(|i| Reply::text(format!("Done {i}."))).collect();
    replies[1] = replies[1]
        .clone()
        .expect_messages_contain("not yet, keep going");
    replies.push(Reply::text("never asked"));
    let h = with_hooks(
        Scenario::new(replies),
        vec![hook(
            HookEvent::Stop,
            "",
            r#"echo '{"decision": "block", "reason": "not yet, keep going"}'"#,
        )],
    );
    let turn = h.turn("Finish", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(
        h.mock.replies_left(),
        1,
        "not bounded at 5 more requests: {turn}"
    );
    let notices = notices(&turn);
    assert!(
        notices
            .last()
            .is_some_and(|n| n.contains("already kept this turn going 5 times")),
        "{notices:?}"
    );
    h.requests();
}

#[tokio::test]
async fn the_models_text_reaches_a_hook_on_stdin_only_however_quoted_and_however_big() {
    let scripts = tempfile::tempdir().unwrap();
    let filler = "x".repeat(10 * 1024 * 1024);
    let command = format!(
        "rm -rf \"$(touch pwned1)\" `touch pwned2`; touch pwned3 && echo '$HOME' # {filler}"
    );
    let h = with_hooks(
        Scenario::new([
            // Streamed in big pieces: 4-character deltas of 10 MB would take minutes.
            // The turn ends there: 10 MB in the history overflow the window.
            Reply::tool("execute_command", json!({"command": command})).chunk_size(1 << 20),
        ]),
        vec![hook(
            HookEvent::PreToolUse,
            "Bash",
            &script(
                scripts.path(),
                "keep.sh",
                "cat > received.json\necho refused >&2\nexit 2\n",
            ),
        )],
    );
    let turn = h.turn("Clean up", vec![]).await;
    let results = turn.results();
    assert_eq!(results[0].0, ToolStatus::Rejected);
    assert!(
        results[0].1.ends_with("Its reason: refused"),
        "{}",
        results[0].1
    );
    let received: Value = serde_json::from_str(&h.read("received.json")).unwrap();
    assert_eq!(received["tool_name"], "Bash");
    assert_eq!(received["tool_input"]["command"], command.as_str());
    for pwned in ["pwned1", "pwned2", "pwned3"] {
        assert!(!h.root().join(pwned).exists(), "{pwned} was made");
    }
}

#[tokio::test]
async fn a_hooks_flood_of_output_is_capped_and_said() {
    let h = with_hooks(
        Scenario::new([
            Reply::tool("read_file", json!({"path": "a.txt"})),
            Reply::text("Read it.").expect_tool_result_contains("hello"),
        ]),
        vec![hook(
            HookEvent::PostToolUse,
            "Read",
            "head -c 104857600 /dev/zero | tr '\\0' x",
        )],
    );
    h.write("a.txt", "hello");
    let turn = h.turn("Read a.txt", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let notices = notices(&turn);
    assert!(
        notices.len() == 1 && notices[0].contains("printed 103809024 bytes more than the 1 MiB"),
        "{notices:?}"
    );
    let result = &turn.results()[0].1;
    assert!(
        result.len() < 1000,
        "the flood reached the model: {} bytes",
        result.len()
    );
}

/// The scripts of `tests/fixtures/hooks`, in the shape of Claude Code's documented examples.
fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/hooks")
        .join(name);
    path.canonicalize().unwrap().display().to_string()
}

#[tokio::test]
async fn claude_codes_documented_hook_examples_run_unchanged() {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("bash-command-log.txt");
    let h = with_hooks(
        Scenario::new([
            Reply::tool(
                "execute_command",
                json!({"command": "grep -r TODO src", "timeoutSeconds": 5}),
            ),
            Reply::text("I'll use rg.").expect_tool_result_contains("Use 'rg' (ripgrep)"),
        ]),
        vec![
            hook(
                HookEvent::PreToolUse,
                "Bash",
                &format!("python3 {}", fixture("bash_command_validator.py")),
            ),
            HookSpec {
                // The log is outside the workspace, as Claude's is (`~/.claude/…`).
                sandbox: false,
                ..hook(
                    HookEvent::PreToolUse,
                    "Bash",
                    &format!("{} '{}'", fixture("log_bash_command.sh"), log.display()),
                )
            },
        ],
    );
    h.write("src/a.rs", "// TODO\n");
    let turn = h.turn("Find the TODOs", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(turn.results()[0].0, ToolStatus::Rejected, "{turn}");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "grep -r TODO src - No description\n"
    );
    assert!(notices(&turn).is_empty(), "{turn}");
    h.requests();
}

fn decision(decision: &str) -> String {
    format!(
        "printf '%s' '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",\
         \"permissionDecision\":\"{decision}\",\"permissionDecisionReason\":\"said the hook\"}}}}'"
    )
}

fn write_file() -> Reply {
    Reply::tool(
        "write_to_file",
        json!({"path": "a.txt", "content": "new\n"}),
    )
}

#[tokio::test]
async fn a_users_allow_spares_the_edit_question_and_an_ask_asks_what_the_policy_would_not() {
    // Allow: the default policy would ask about the edit; the user's hook says yes.
    let h = with_hooks(
        Scenario::new([write_file(), Reply::text("Done.")]),
        vec![hook(HookEvent::PreToolUse, "Write", &decision("allow"))],
    );
    let turn = h.turn("Write a.txt", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(h.read("a.txt"), "new\n");

    // Ask: the policy would write unasked; the hook wants the user asked, and they say no.
    let h = Harness::with(
        Scenario::new([write_file(), Reply::text("OK.")]),
        Setup {
            hooks: vec![hook(HookEvent::PreToolUse, "Write", &decision("ask"))],
            policy: ApprovalPolicy {
                auto_approve: AutoApprove {
                    edit: true,
                    ..AutoApprove::default()
                },
                ..ApprovalPolicy::default()
            },
            ..Setup::default()
        },
    );
    let mut running = h.start("Write a.txt", vec![Answer::reject("not now")]);
    running.asked().await;
    let turn = running.end().await;
    assert_eq!(turn.results()[0].0, ToolStatus::Rejected, "{turn}");
    assert!(!h.root().join("a.txt").exists());
}

#[tokio::test]
async fn continue_false_after_the_last_call_ends_the_turn_there() {
    let h = with_hooks(
        Scenario::new([
            Reply::tool("read_file", json!({"path": "a.txt"})),
            Reply::text("never asked"),
        ]),
        vec![hook(
            HookEvent::PostToolUse,
            "Read",
            "echo '{\"continue\": false, \"stopReason\": \"read enough\"}'",
        )],
    );
    h.write("a.txt", "hello");
    let turn = h.turn("Read a.txt", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert!(
        notices(&turn).iter().any(|n| n.contains("read enough")),
        "{turn}"
    );
    assert_eq!(h.mock.replies_left(), 1, "the model was asked again");
}

#[tokio::test]
async fn a_hooks_ask_about_a_read_refuses_it_and_continue_false_stops_the_turn() {
    let h = with_hooks(
        Scenario::new([
            Reply::tool("read_file", json!({"path": "a.txt"})),
            Reply::text("Cannot read.").expect_tool_result_contains("asks that way only for edits"),
            Reply::tool("read_file", json!({"path": "a.txt"}))
                .and_tool("read_file", json!({"path": "b.txt"})),
        ]),
        vec![
            hook(HookEvent::PreToolUse, "Read", &decision("ask")),
            hook(
                HookEvent::UserPromptSubmit,
                "",
                "grep -q stop || exit 0; echo '{\"continue\": false, \"stopReason\": \"enough for today\"}'",
            ),
        ],
    );
    h.write("a.txt", "secret");
    let turn = h.turn("Read a.txt", vec![]).await;
    assert_eq!(turn.results()[0].0, ToolStatus::Rejected, "{turn}");
    let turn = h.turn("stop now", vec![]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert!(
        notices(&turn)
            .iter()
            .any(|n| n.contains("enough for today")),
        "{turn}"
    );
    // The prompt never reached the model: its third reply is still there.
    assert_eq!(h.mock.replies_left(), 1);
}
