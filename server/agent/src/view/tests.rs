//! The reducer alone: every event kind, the approvals, and the orders the core never sends.

use std::time::Duration;

use serde_json::json;
use tandem_tools::{FileDiff, ToolKind};

use super::*;
use crate::approval::{CommandApproval, EditApproval};
use crate::plan::{PlanStep, StepStatus};

fn started(prompt: &str) -> Event {
    Event::TurnStarted {
        prompt: prompt.into(),
        context: vec!["/ws/a.py".into()],
    }
}

fn text(delta: &str) -> Event {
    Event::Text {
        delta: delta.into(),
    }
}

fn reasoning(delta: &str) -> Event {
    Event::Reasoning {
        delta: delta.into(),
    }
}

fn call(id: &str, kind: ToolKind, title: &str) -> Event {
    Event::ToolCall(ToolCallEvent {
        tool_call_id: id.into(),
        name: "some_tool".into(),
        arguments: json!({"path": "a.py"}),
        title: title.into(),
        kind,
        location: Some(Location {
            path: "/ws/a.py".into(),
            line: Some(3),
        }),
    })
}

fn output(id: &str, delta: &str) -> Event {
    Event::ToolOutput {
        tool_call_id: id.into(),
        delta: delta.into(),
    }
}

fn result(id: &str, status: ToolStatus, out: &str) -> Event {
    Event::ToolResult {
        tool_call_id: id.into(),
        status,
        output: out.into(),
        diff: None,
        error_kind: None,
    }
}

fn usage(prompt: u64, completion: u64, window: Option<u64>) -> Event {
    Event::Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        context_window: window,
    }
}

fn ended(stop_reason: StopReason, error: Option<&str>) -> Event {
    Event::TurnEnded {
        stop_reason,
        error: error.map(Into::into),
        error_kind: error.map(|_| TurnErrorKind::Other),
    }
}

fn approval(id: &str, action: ApprovalAction) -> ApprovalRequest {
    ApprovalRequest {
        session_id: "s".into(),
        turn_id: "t1".into(),
        tool_call_id: id.into(),
        subagent: None,
        action,
    }
}

fn command(id: &str) -> ApprovalRequest {
    approval(
        id,
        ApprovalAction::Command(CommandApproval {
            command: "make".into(),
            outside_sandbox: false,
            cwd: "/ws".into(),
            display_cwd: ".".into(),
            reason: "`make` is not on a rule".into(),
            always: vec!["make".into()],
        }),
    )
}

fn id(s: &str) -> ToolCallId {
    ToolCallId::from(s)
}

fn said(reasoning: &str, text: &str) -> Change {
    Change::Said {
        reasoning: reasoning.into(),
        text: text.into(),
    }
}

/// Feeds every event, returning all the changes.
fn feed(view: &mut TurnView, events: impl IntoIterator<Item = Event>) -> Vec<Change> {
    events.into_iter().flat_map(|e| view.event(e)).collect()
}

#[test]
fn a_whole_turn_gives_its_changes_in_order_and_its_facts() {
    let mut view = TurnView::new();
    assert!(!view.started());
    let changes = feed(
        &mut view,
        [
            started("fix it"),
            reasoning("Look first."),
            text("Reading"),
            text(" a.py"),
            usage(100, 10, Some(8192)),
            call("c1", ToolKind::Read, "Read a.py"),
            result("c1", ToolStatus::Ok, "1 | x"),
            text("Fixed."),
            usage(150, 5, None),
            ended(StopReason::EndTurn, None),
        ],
    );
    assert_eq!(
        changes,
        [
            Change::Started,
            Change::Writing { step: 1 },
            Change::Reasoning("Look first.".into()),
            Change::Text("Reading".into()),
            Change::Text(" a.py".into()),
            said("Look first.", "Reading a.py"),
            Change::Usage(RequestUsage {
                prompt_tokens: 100,
                completion_tokens: 10,
                context_window: Some(8192)
            }),
            Change::Called {
                id: id("c1"),
                preamble: "Reading a.py".into()
            },
            Change::Finished { id: id("c1") },
            Change::Writing { step: 2 },
            Change::Text("Fixed.".into()),
            said("", "Fixed."),
            Change::Usage(RequestUsage {
                prompt_tokens: 150,
                completion_tokens: 5,
                context_window: None
            }),
            Change::Ended,
        ]
    );
    assert_eq!(view.prompt(), "fix it");
    assert_eq!(view.context(), [PathBuf::from("/ws/a.py")]);
    // The text before the call ends a line of its own in the whole answer.
    assert_eq!(view.answer(), "Reading a.py\nFixed.");
    assert_eq!(view.final_text(), "Fixed.");
    assert_eq!(view.reasoning(), "Look first.");
    let read = view.tool(&id("c1")).unwrap();
    assert!(read.announced);
    assert_eq!(read.title, "Read a.py");
    assert_eq!(read.kind, ToolKind::Read);
    assert_eq!(read.arguments, json!({"path": "a.py"}));
    assert_eq!(read.location.as_ref().unwrap().line, Some(3));
    assert_eq!(read.state, ToolState::Done(ToolStatus::Ok));
    assert_eq!(read.result.as_ref().unwrap().output, "1 | x");
    assert_eq!(
        *view.usage(),
        Usage {
            requests: 2,
            prompt_tokens: 250,
            completion_tokens: 15,
            last: Some(RequestUsage {
                prompt_tokens: 150,
                completion_tokens: 5,
                context_window: None
            }),
            // The window stays as last reported.
            context_window: Some(8192),
            subagent_requests: 0,
        }
    );
    assert_eq!(view.step(), 2);
    assert!(!view.writing());
    assert_eq!(
        view.end(),
        Some(&End {
            stop_reason: StopReason::EndTurn,
            error: None,
            error_kind: None
        })
    );
    assert_eq!(view.rejected_actions(), 0);
}

#[test]
fn steps_count_model_requests_and_activity_follows_the_turn() {
    let mut view = TurnView::new();
    view.event(started("go"));
    assert_eq!(view.step(), 1, "the first step before anything is written");
    view.event(text("a"));
    assert!(view.writing());
    assert_eq!(view.step(), 1);
    view.event(usage(10, 1, None));
    assert_eq!(view.step(), 1, "the step's tools run after its request");
    view.event(call("c", ToolKind::Execute, "Run make"));
    assert_eq!(view.activity(), Some(&Activity::Tool(id("c"))));
    let retry = Retrying {
        retry: 1,
        max_retries: 3,
        status: Some(503),
        error: "busy".into(),
        wait: Duration::from_millis(500),
    };
    assert_eq!(
        view.event(Event::Retrying(retry.clone())),
        [Change::Retrying(retry.clone())]
    );
    assert_eq!(view.activity(), Some(&Activity::Retrying(retry)));
    assert_eq!(
        view.event(reasoning("hm")).first(),
        Some(&Change::Writing { step: 2 })
    );
    assert_eq!(view.activity(), None, "the model writes again");
    assert_eq!(view.step(), 2);
}

#[test]
fn rules_plan_compaction_and_notices() {
    let mut view = TurnView::new();
    view.event(started("go"));
    let file = RulesFile {
        path: "/ws/AGENTS.md".into(),
        bytes: 12,
        truncated: false,
    };
    assert_eq!(
        view.event(Event::Rules {
            files: vec![file.clone()]
        }),
        [Change::Rules(vec![file.clone()])]
    );
    view.event(Event::Rules {
        files: vec![file.clone()],
    });
    assert_eq!(view.rules(), [file], "each file once");
    let plan = Plan {
        explanation: Some("why".into()),
        steps: vec![PlanStep {
            step: "Change it".into(),
            status: StepStatus::InProgress,
        }],
    };
    assert_eq!(view.event(Event::Plan(plan.clone())), [Change::Plan]);
    assert_eq!(view.plan(), Some(&plan));
    let compaction = Event::Compaction {
        elided: 2,
        summarized: 3,
        tokens_before: 900,
        tokens_after: 400,
        context_window: 1000,
    };
    assert_eq!(
        view.event(compaction),
        [Change::Compaction(Compaction {
            elided: 2,
            summarized: 3,
            tokens_before: 900,
            tokens_after: 400,
            context_window: 1000
        })]
    );
    assert_eq!(
        view.event(Event::Notice {
            message: "tools switched to text".into()
        }),
        [Change::Notice("tools switched to text".into())]
    );
    assert_eq!(view.notices(), ["tools switched to text"]);
}

#[test]
fn a_command_streams_its_output_then_its_result() {
    let mut view = TurnView::new();
    view.event(started("go"));
    view.event(call("c", ToolKind::Execute, "Run make"));
    assert_eq!(view.tool(&id("c")).unwrap().state, ToolState::Called);
    assert_eq!(
        view.approval_asked(&command("c")),
        [Change::Asked { id: id("c") }]
    );
    assert_eq!(view.pending_approvals().count(), 1);
    assert!(matches!(
        view.tool(&id("c")).unwrap().approval,
        Some(ApprovalAction::Command(_))
    ));
    assert_eq!(
        view.approval_decided(&id("c"), Decision::Accept),
        [Change::Allowed { id: id("c") }]
    );
    assert_eq!(view.pending_approvals().count(), 0);
    assert_eq!(view.tool(&id("c")).unwrap().state, ToolState::Running);
    view.event(output("c", "one\n"));
    // Output does not close the text around it: it is a piece of its own stream.
    view.event(text("still "));
    let changes = view.event(output("c", "two\n"));
    assert_eq!(
        changes,
        [Change::Output {
            id: id("c"),
            delta: "two\n".into()
        }]
    );
    assert_eq!(view.tool(&id("c")).unwrap().output, "one\ntwo\n");
    let done = view.event(result("c", ToolStatus::Error, "one\ntwo\n[exit code 2]"));
    assert_eq!(done, [said("", "still "), Change::Finished { id: id("c") }]);
    let c = view.tool(&id("c")).unwrap();
    assert_eq!(c.state, ToolState::Done(ToolStatus::Error));
    assert_eq!(c.result.as_ref().unwrap().status, ToolStatus::Error);
    // Nothing open at the end: no interruption.
    assert_eq!(
        view.event(ended(StopReason::EndTurn, None)),
        [Change::Ended]
    );
}

#[test]
fn refusals_are_counted_once_whoever_refused() {
    let mut view = TurnView::new();
    view.event(started("go"));
    // Refused at its approval: counted then, not again at its result.
    view.event(call("a", ToolKind::Execute, "Run make"));
    view.approval_asked(&command("a"));
    assert_eq!(
        view.approval_decided(&id("a"), Decision::Reject),
        [Change::Refused { id: id("a") }]
    );
    assert_eq!(view.tool(&id("a")).unwrap().state, ToolState::Refused);
    view.event(result("a", ToolStatus::Rejected, "The user refused."));
    assert_eq!(view.rejected_actions(), 1);
    // Refused by a rule that asked nobody (plan mode): counted at its result.
    view.event(call("b", ToolKind::Edit, "Edit a.py"));
    view.event(result("b", ToolStatus::Rejected, "Plan mode: read-only."));
    assert_eq!(view.rejected_actions(), 2);
    // A policy's refusal of a call never heard of still counts (it is an action refused).
    view.approval_decided(&id("ghost"), Decision::Reject);
    assert_eq!(view.rejected_actions(), 3);
    assert!(view.tool(&id("ghost")).is_none());
}

#[test]
fn an_edit_keeps_what_its_approval_showed_for_its_result() {
    let mut view = TurnView::new();
    view.event(started("go"));
    let edit = approval(
        "e",
        ApprovalAction::Edit(EditApproval {
            path: "/ws/a.txt".into(),
            original: Some("old\n".into()),
            proposed: "new\n".into(),
            diff: FileDiff::new("a.txt", Some("old\n"), "new\n"),
        }),
    );
    // Asked before its call was seen (out of order): the call is made up, unannounced.
    assert_eq!(view.approval_asked(&edit), [Change::Asked { id: id("e") }]);
    assert!(!view.tool(&id("e")).unwrap().announced);
    // Its call then fills it in, once.
    let changes = view.event(call("e", ToolKind::Edit, "Write a.txt"));
    assert!(matches!(&changes[..], [Change::Called { .. }]));
    let e = view.tool(&id("e")).unwrap();
    assert!(e.announced && e.title == "Write a.txt" && e.state == ToolState::Asking);
    view.approval_decided(&id("e"), Decision::AcceptAlways);
    view.event(Event::ToolResult {
        tool_call_id: "e".into(),
        status: ToolStatus::Ok,
        output: "Applied.".into(),
        diff: Some(FileDiff::new("a.txt", Some("old\n"), "new\n")),
        error_kind: None,
    });
    let e = view.tool(&id("e")).unwrap();
    assert!(matches!(&e.approval, Some(ApprovalAction::Edit(a)) if a.proposed == "new\n"));
    assert_eq!(e.result.as_ref().unwrap().diff.as_ref().unwrap().added, 1);
}

#[test]
fn a_late_answer_never_reopens_a_finished_call() {
    let mut view = TurnView::new();
    view.event(started("go"));
    view.event(call("c", ToolKind::Execute, "Run make"));
    view.approval_asked(&command("c"));
    view.event(ended(StopReason::Cancelled, None));
    assert_eq!(view.tool(&id("c")).unwrap().state, ToolState::Interrupted);
    assert!(view.approval_decided(&id("c"), Decision::Accept).is_empty());
    assert!(view.approval_asked(&command("c")).is_empty());
    assert!(
        view.approval_decided(&id("never-seen"), Decision::Accept)
            .is_empty()
    );
    assert_eq!(view.tool(&id("c")).unwrap().state, ToolState::Interrupted);
}

#[test]
fn the_end_interrupts_open_calls_in_their_order() {
    let mut view = TurnView::new();
    view.event(started("go"));
    view.event(call("z", ToolKind::Read, "Read z"));
    view.event(call("a", ToolKind::Read, "Read a"));
    view.event(call("m", ToolKind::Read, "Read m"));
    view.event(result("a", ToolStatus::Ok, "1 | a"));
    view.event(text("Partial"));
    let end = view.event(ended(StopReason::Error, Some("boom")));
    assert_eq!(
        end,
        [
            said("", "Partial"),
            Change::Interrupted {
                ids: vec![id("z"), id("m")]
            },
            Change::Ended
        ]
    );
    assert_eq!(view.end().unwrap().error.as_deref(), Some("boom"));
    assert_eq!(view.end().unwrap().error_kind, Some(TurnErrorKind::Other));
    // A second end changes nothing.
    assert!(view.event(ended(StopReason::EndTurn, None)).is_empty());
    assert_eq!(view.end().unwrap().stop_reason, StopReason::Error);
    // Closing again finds nothing open.
    assert!(view.close_open().is_empty());
}

#[test]
fn duplicates_and_unknown_ids_change_what_they_can_without_panicking() {
    let mut view = TurnView::new();
    // Before any turn began: kept, as the start of what comes.
    assert_eq!(
        view.event(output("x", "early")),
        [Change::Output {
            id: id("x"),
            delta: "early".into()
        }]
    );
    view.event(started("go"));
    assert!(view.tool(&id("x")).is_none(), "a turn starts clean");
    view.event(call("c", ToolKind::Read, "Read a"));
    // The same call told twice: nothing new.
    assert!(view.event(call("c", ToolKind::Read, "Read a")).is_empty());
    assert_eq!(view.tools().len(), 1);
    // A result for a call never made: shown, as an unannounced call.
    assert_eq!(
        view.event(result("u", ToolStatus::Error, "no such call")),
        [Change::Finished { id: id("u") }]
    );
    let u = view.tool(&id("u")).unwrap();
    assert!(!u.announced && u.kind == ToolKind::Other && u.title.is_empty());
    // A second result, or output after it: nothing (a finished call is never running again).
    view.event(result("c", ToolStatus::Ok, "1 | a"));
    assert!(
        view.event(result("c", ToolStatus::Error, "again"))
            .is_empty()
    );
    assert!(view.event(output("c", "late")).is_empty());
    let c = view.tool(&id("c")).unwrap();
    assert_eq!(c.state, ToolState::Done(ToolStatus::Ok));
    assert_eq!(c.result.as_ref().unwrap().output, "1 | a");
    assert!(c.output.is_empty());
    // Models reuse ids: a finished call's id called again is a new call.
    let again = view.event(call("c", ToolKind::Edit, "Edit a"));
    assert!(matches!(&again[..], [Change::Called { id: i, .. }] if *i == id("c")));
    assert_eq!(view.tools().len(), 3);
    assert_eq!(view.tool(&id("c")).unwrap().title, "Edit a");
    assert_eq!(view.tool(&id("c")).unwrap().state, ToolState::Called);
    assert_eq!(
        view.tools()[0].title,
        "Read a",
        "the earlier call stays as it was"
    );
    // An empty piece, an odd id: no panic.
    view.event(text(""));
    view.event(output("", ""));
    view.event(result("\u{0}é", ToolStatus::Rejected, ""));
}

#[test]
fn anything_after_the_end_begins_what_comes_next() {
    let mut view = TurnView::new();
    feed(
        &mut view,
        [started("one"), text("A"), ended(StopReason::EndTurn, None)],
    );
    let late = view.event(Event::Notice {
        message: "between turns".into(),
    });
    assert_eq!(late, [Change::Notice("between turns".into())]);
    assert!(view.end().is_none() && view.answer().is_empty());
    view.event(started("two"));
    assert_eq!(view.prompt(), "two");
    assert!(view.notices().is_empty());
}

#[test]
fn a_turn_that_never_ended_is_closed_when_the_next_begins() {
    let mut view = TurnView::new();
    feed(
        &mut view,
        [started("one"), call("c", ToolKind::Execute, "Run make")],
    );
    let next = view.event(started("two"));
    assert_eq!(
        next,
        [Change::Interrupted { ids: vec![id("c")] }, Change::Started]
    );
    assert!(view.tools().is_empty());
}

#[test]
fn long_output_keeps_its_tail() {
    let mut view = TurnView::new();
    view.event(started("go"));
    view.event(call("c", ToolKind::Execute, "Run yes"));
    let line = "y".repeat(99) + "\n";
    for _ in 0..2000 {
        view.event(output("c", &line));
    }
    let kept = &view.tool(&id("c")).unwrap().output;
    assert!(kept.len() <= OUTPUT_KEPT + 100, "{}", kept.len());
    assert!(kept.starts_with("[… earlier output not shown …]\ny"));
    assert!(kept.ends_with(&line));
    let mut s: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
    keep_tail(&mut s, 1000);
    assert!(s.len() < 1100 && s.ends_with("line 9999\n"));
    // Cut inside a multi-byte character: at a boundary.
    let mut wide = "é".repeat(1000);
    keep_tail(&mut wide, 101);
    assert!(wide.ends_with('é'));
}

#[test]
fn said_reports_reasoning_and_text_whole_before_what_follows() {
    let mut view = TurnView::new();
    view.event(started("go"));
    view.event(reasoning("a"));
    view.event(text("b"));
    view.event(reasoning("c"));
    // An approval closes them too, so its report follows what was said.
    let asked = view.approval_asked(&command("x"));
    assert_eq!(asked[0], said("ac", "b"));
    view.event(text("d"));
    assert_eq!(
        view.approval_decided(&id("x"), Decision::Reject)[0],
        said("", "d")
    );
    // Nothing open: no empty report.
    assert!(
        !view
            .event(usage(1, 1, None))
            .iter()
            .any(|c| matches!(c, Change::Said { .. }))
    );
}

#[test]
fn a_history_splits_into_turns() {
    let turns = TurnView::turns([
        text("before any turn"),
        started("Make it 42"),
        text("Changing it."),
        call("c", ToolKind::Edit, "Edit a.py"),
        result("c", ToolStatus::Ok, "Applied."),
        text("It is 42."),
        ended(StopReason::EndTurn, None),
        Event::Notice {
            message: "outside".into(),
        },
        started("Think"),
        ended(StopReason::Cancelled, None),
        started("Crashed"),
        text("half"),
    ]);
    let summary: Vec<(&str, &str, Option<StopReason>)> = turns
        .iter()
        .map(|t| (t.prompt(), t.answer(), t.end().map(|e| e.stop_reason)))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "Make it 42",
                "Changing it.\nIt is 42.",
                Some(StopReason::EndTurn)
            ),
            ("Think", "", Some(StopReason::Cancelled)),
            ("Crashed", "half", None),
        ]
    );
    assert!(TurnView::turns([]).is_empty());
}

fn sub(parent: &str, event: Event) -> Event {
    Event::Subagent {
        parent: ToolCallId::from(parent),
        agent: "explore".into(),
        event: Box::new(event),
    }
}

#[test]
fn a_subagents_events_go_to_its_own_view_under_the_task_call() {
    let mut view = TurnView::new();
    view.event(Event::TurnStarted {
        prompt: "p".into(),
        context: Vec::new(),
    });
    view.event(Event::ToolCall(ToolCallEvent {
        tool_call_id: "t1".into(),
        name: "task".into(),
        arguments: json!({}),
        title: "explore: look".into(),
        kind: ToolKind::Other,
        location: None,
    }));
    // The child's call id is the same as the parent's: it is the child's own.
    let changes = view.event(sub(
        "t1",
        Event::ToolCall(ToolCallEvent {
            tool_call_id: "t1".into(),
            name: "read_file".into(),
            arguments: json!({"path": "a.rs"}),
            title: "Read a.rs".into(),
            kind: ToolKind::Read,
            location: None,
        }),
    ));
    assert!(
        matches!(&changes[..], [Change::Subagent { parent, change, .. }]
            if parent.as_str() == "t1" && matches!(**change, Change::Called { .. })),
        "{changes:?}"
    );
    view.event(sub(
        "t1",
        Event::Usage {
            prompt_tokens: 10,
            completion_tokens: 2,
            context_window: Some(4096),
        },
    ));
    // A turn's end sent as a subagent's is ignored; nesting twice too.
    assert!(
        view.event(sub(
            "t1",
            Event::TurnEnded {
                stop_reason: StopReason::EndTurn,
                error: None,
                error_kind: None,
            }
        ))
        .is_empty()
    );
    assert!(
        view.event(sub("t1", sub("t2", Event::Text { delta: "x".into() })))
            .is_empty()
    );

    // A question about the child's own call goes to its view and says whose it is.
    view.event(sub(
        "t1",
        Event::ToolCall(ToolCallEvent {
            tool_call_id: "c9".into(),
            name: "execute_command".into(),
            arguments: json!({"command": "make"}),
            title: "Run make".into(),
            kind: ToolKind::Execute,
            location: None,
        }),
    ));
    let asked = view.approval_asked(&command("c9"));
    assert!(
        matches!(&asked[..], [Change::Subagent { change, .. }] if matches!(**change, Change::Asked { .. })),
        "{asked:?}"
    );
    assert_eq!(view.subagent_asking(&"c9".into()), Some("explore"));
    assert_eq!(view.subagent_asking(&"t1".into()), None);
    assert_eq!(view.tools().len(), 1, "the parent has only its task call");
    assert_eq!(view.tool(&"t1".into()).unwrap().name, "task");
    let child = view.subagent(&"t1".into()).expect("the child's view");
    assert_eq!(child.view.tools()[0].name, "read_file");
    assert_eq!(view.usage().prompt_tokens, 10);
    assert_eq!(view.usage().requests, 0);
    assert_eq!(view.usage().subagent_requests, 1);
    assert!(view.end().is_none());
}

#[test]
fn a_subagents_refusals_count_as_the_turns() {
    let mut view = TurnView::new();
    view.event(started("go"));
    view.event(call("t1", ToolKind::Other, "explore: look"));
    // Refused by its grants (asked nobody): counted at its result.
    view.event(sub("t1", call("c1", ToolKind::Edit, "Edit a.py")));
    view.event(sub(
        "t1",
        result("c1", ToolStatus::Rejected, "not granted: write_to_file"),
    ));
    assert_eq!(view.rejected_actions(), 1);
    // Refused at its approval: counted once, there.
    view.event(sub("t1", call("c2", ToolKind::Execute, "Run make")));
    view.approval_asked(&command("c2"));
    view.approval_decided(&id("c2"), Decision::Reject);
    view.event(sub("t1", result("c2", ToolStatus::Rejected, "refused")));
    assert_eq!(view.rejected_actions(), 2);
    // The parent's own add up with them.
    view.event(call("p1", ToolKind::Edit, "Edit b.py"));
    view.event(result("p1", ToolStatus::Rejected, "Plan mode: read-only."));
    assert_eq!(view.rejected_actions(), 3);
}
