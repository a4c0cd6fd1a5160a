//! A project's hooks (`.tandem/config.toml`'s `[hooks]`): none runs before the user trusts it;
//! trust is bound to the event, matcher, command line and the script files the line names, so a
//! changed script or line asks again (in a new session) and stops running (in this one); a
//! declined hook never runs, and the user is told once.

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::support::*;
use mock_model::{Reply, Scenario};
use tandem_agent::approval::{
    ApprovalAction, ApprovalReply, ApprovalRequest, Decision, TrustSubject,
};
use tandem_agent::events::{Event, StopReason};
use tandem_agent::hooks::{DEFAULT_TIMEOUT, HookEvent, HookSource, HookSpec, ProjectHooks};

/// The project's file as the config crate reads it: a list the test can change.
#[derive(Debug)]
struct File(Mutex<Vec<HookSpec>>);

impl ProjectHooks for File {
    fn read(&self, root: &Path) -> Result<Vec<HookSpec>, String> {
        let mut hooks = self.0.lock().unwrap().clone();
        for h in &mut hooks {
            h.source = HookSource::Project(root.join(".tandem/config.toml"));
        }
        Ok(hooks)
    }
}

/// A UserPromptSubmit hook whose output the model sees: the marker tells whether it ran.
fn say(command: &str) -> HookSpec {
    HookSpec {
        event: HookEvent::UserPromptSubmit,
        matcher: String::new(),
        command: command.into(),
        timeout: DEFAULT_TIMEOUT,
        sandbox: true,
        source: HookSource::Project("/unset".into()),
    }
}

const LINE: &str = "sh .tandem/say.sh";

fn harness(turns: usize, file: Arc<File>) -> Harness {
    let h = Harness::with(
        Scenario::new((0..turns).map(|_| Reply::text("ok"))),
        Setup {
            project_hooks: Some(file),
            ..Setup::default()
        },
    );
    h.write(".tandem/say.sh", "echo HOOK-SAYS-v1\n");
    h
}

fn always() -> Answer {
    Answer::Reply(ApprovalReply {
        decision: Decision::AcceptAlways,
        ..ApprovalReply::accept()
    })
}

/// Whether the model saw the hook's words with the prompt of request `i` (its last message:
/// the earlier ones are the history, with earlier turns' hooks).
fn hook_ran(h: &Harness, i: usize, marker: &str) -> bool {
    let body = &h.requests()[i].body;
    let last = body["messages"].as_array().and_then(|m| m.last()).cloned();
    last.expect("a message").to_string().contains(marker)
}

fn questions(turn: &Turn) -> usize {
    turn.count(|e| matches!(e, Event::ToolCall(c) if c.name == "run_project_hook"))
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

fn is_hook_question(asked: &ApprovalRequest) -> Option<(String, Option<String>)> {
    match &asked.action {
        ApprovalAction::McpServer(q) if q.subject == TrustSubject::Hook => {
            Some((q.target.clone(), q.why_not_always.clone()))
        }
        _ => None,
    }
}

#[tokio::test]
async fn a_project_hook_runs_only_after_the_user_accepts_it() {
    let file = Arc::new(File(Mutex::new(vec![say(LINE)])));
    let h = harness(1, file);
    let mut running = h.start("hello", vec![]);
    // The question comes before the prompt goes out; unanswered, nothing has run.
    let asked = running.asked().await;
    assert_eq!(
        is_hook_question(&asked),
        Some((LINE.to_string(), None)),
        "{asked:?}"
    );
    assert!(h.mock.chat_requests().is_empty());
    drop(running);
    let h = harness(1, Arc::new(File(Mutex::new(vec![say(LINE)]))));
    let turn = h.turn("hello", vec![Answer::accept()]).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(questions(&turn), 1, "{turn}");
    assert!(hook_ran(&h, 0, "HOOK-SAYS-v1"), "{turn}");
}

#[tokio::test]
async fn a_declined_project_hook_never_runs_and_is_told_once() {
    let file = Arc::new(File(Mutex::new(vec![say(LINE)])));
    let h = harness(2, file);
    let first = h.turn("hello", vec![Answer::reject("no")]).await;
    assert_eq!(first.stop_reason(), StopReason::EndTurn, "{first}");
    let told: Vec<String> = notices(&first)
        .into_iter()
        .filter(|n| n.contains("does not run: you declined it"))
        .collect();
    assert_eq!(told.len(), 1, "{first}");
    // The next turn neither asks nor runs it, nor tells again.
    let second = h.turn("again", vec![]).await;
    assert_eq!(questions(&second), 0, "{second}");
    assert!(notices(&second).iter().all(|n| !n.contains("declined")));
    assert!(!hook_ran(&h, 0, "HOOK-SAYS"));
    assert!(!hook_ran(&h, 1, "HOOK-SAYS"));
}

/// "Always" binds the trust to the script's content and the line: a new session runs it
/// unasked; a changed script, or a changed line, is asked about again (and, declined, does not
/// run); the old content put back is trusted again.
#[tokio::test]
async fn a_trusted_project_hook_is_asked_about_again_when_its_script_or_line_changes() {
    let file = Arc::new(File(Mutex::new(vec![say(LINE)])));
    let mut h = harness(6, file.clone());
    let first = h.turn("one", vec![always()]).await;
    assert_eq!(questions(&first), 1, "{first}");
    assert!(hook_ran(&h, 0, "HOOK-SAYS-v1"));

    // A new session: trusted for good, runs unasked (an unanswered question would hang).
    h.new_session();
    let second = h.turn("two", vec![]).await;
    assert_eq!(questions(&second), 0, "{second}");
    assert!(hook_ran(&h, 1, "HOOK-SAYS-v1"));

    // The script changed: asked again, saying what changed; declined, it does not run.
    h.write(".tandem/say.sh", "echo HOOK-SAYS-v2\n");
    h.new_session();
    let mut running = h.start("three", vec![Answer::reject("no")]);
    let asked = running.asked().await;
    assert!(is_hook_question(&asked).is_some(), "{asked:?}");
    let third = running.end().await;
    assert!(
        notices(&third)
            .iter()
            .any(|n| n.contains("changed since you trusted it: .tandem/say.sh (content)")),
        "{third}"
    );
    assert!(!hook_ran(&h, 2, "HOOK-SAYS"));

    // The old content back: trusted again, unasked.
    h.write(".tandem/say.sh", "echo HOOK-SAYS-v1\n");
    h.new_session();
    let fourth = h.turn("four", vec![]).await;
    assert_eq!(questions(&fourth), 0, "{fourth}");
    assert!(hook_ran(&h, 3, "HOOK-SAYS-v1"));

    // Another line (same script): another hook, asked about.
    *file.0.lock().unwrap() = vec![say("sh ./.tandem/say.sh")];
    h.new_session();
    let fifth = h.turn("five", vec![Answer::reject("no")]).await;
    assert_eq!(questions(&fifth), 1, "{fifth}");
    assert!(!hook_ran(&h, 4, "HOOK-SAYS"));
}

/// Abuse: the model (or a command it ran) rewrites a trusted hook's script mid-session. The
/// rewritten script does not run unasked; the user is told.
#[tokio::test]
async fn a_hook_whose_script_changes_mid_session_stops_running() {
    let file = Arc::new(File(Mutex::new(vec![say(LINE)])));
    let h = harness(2, file);
    let first = h.turn("one", vec![Answer::accept()]).await;
    assert_eq!(first.stop_reason(), StopReason::EndTurn, "{first}");
    assert!(hook_ran(&h, 0, "HOOK-SAYS-v1"));
    h.write(".tandem/say.sh", "echo HOOK-SAYS-planted\n");
    let second = h.turn("two", vec![]).await;
    assert!(!hook_ran(&h, 1, "HOOK-SAYS"), "{second}");
    assert!(
        notices(&second)
            .iter()
            .any(|n| n.contains("no longer runs in this session")),
        "{second}"
    );
}

/// A line with more than plain words (`$(…)`, a pipe) can't be bound to what runs: no
/// "always", and a face's "always" anyway is this session only.
#[tokio::test]
async fn a_hook_line_that_cant_be_bound_is_never_trusted_for_good() {
    let line = "sh $(echo .tandem/say.sh)";
    let file = Arc::new(File(Mutex::new(vec![say(line)])));
    let mut h = harness(2, file);
    let mut running = h.start("one", vec![always()]);
    let asked = running.asked().await;
    let (_, why) = is_hook_question(&asked).unwrap();
    assert!(why.is_some_and(|w| w.contains("inline")), "{asked:?}");
    let first = running.end().await;
    assert!(hook_ran(&h, 0, "HOOK-SAYS-v1"), "{first}");
    h.new_session();
    let second = h.turn("two", vec![Answer::reject("no")]).await;
    assert_eq!(questions(&second), 1, "{second}");
}
