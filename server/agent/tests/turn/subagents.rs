//! Subagents (`task`): children run at once in fresh contexts and their answers come back; a
//! cancel ends them all; a child gets only the tools it was granted, each call approved as the
//! parent's; the step cap; definitions from `.claude/agents`; the transcript keeps them.

use crate::support::*;
use mock_model::{Reply, Scenario};
use serde_json::json;
use tandem_agent::ToolCallId;
use tandem_agent::events::{Event, StopReason, ToolStatus};
use tandem_agent::view::TurnView;

fn task(prompt: &str) -> serde_json::Value {
    json!({"description": "look it up", "prompt": prompt, "subagent_type": "explore"})
}

fn task_of(agent: &str, prompt: &str) -> serde_json::Value {
    json!({"description": "do it", "prompt": prompt, "subagent_type": agent})
}

/// The subagents' events: the parent call's id and the event.
fn nested(turn: &Turn) -> Vec<(ToolCallId, Event)> {
    turn.events
        .iter()
        .filter_map(|e| match e {
            Event::Subagent { parent, event, .. } => Some((parent.clone(), (**event).clone())),
            _ => None,
        })
        .collect()
}

/// The parent's own tool results: status and output.
fn parent_results(turn: &Turn) -> Vec<(ToolStatus, String)> {
    turn.results()
}

#[tokio::test]
async fn a_parent_delegates_two_searches_that_run_at_once_and_gets_both_answers() {
    let h = Harness::new(Scenario::new([
        Reply::tool("task", task("Where is alpha defined?"))
            .and_tool("task", task("Where is beta defined?"))
            .usage(500, 15),
        // The children, in whichever order their requests come.
        Reply::tool("read_file", json!({"path": "a.rs"})).usage(100, 10),
        Reply::tool("read_file", json!({"path": "b.rs"})).usage(100, 10),
        Reply::text("FIRST ANSWER").usage(200, 5),
        Reply::text("SECOND ANSWER").usage(200, 5),
        Reply::text("Both found.")
            .expect_messages_contain("FIRST ANSWER")
            .expect_messages_contain("SECOND ANSWER")
            .usage(1000, 20),
    ]));
    h.write("a.rs", "fn alpha() {}\n");
    h.write("b.rs", "fn beta() {}\n");
    let turn = h.turn("Find alpha and beta", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(turn.text(), "Both found.");

    // The parent's two calls each got a child's answer.
    let results = parent_results(&turn);
    assert_eq!(results.len(), 2, "{turn}");
    let answers: Vec<&str> = results.iter().map(|(_, o)| o.as_str()).collect();
    assert!(
        answers.contains(&"FIRST ANSWER") && answers.contains(&"SECOND ANSWER"),
        "{answers:?}"
    );
    assert!(results.iter().all(|(s, _)| *s == ToolStatus::Ok));

    // The children's reads, under the two task calls.
    let nested = nested(&turn);
    let mut parents: Vec<&ToolCallId> = nested.iter().map(|(p, _)| p).collect();
    parents.dedup();
    parents.sort();
    parents.dedup();
    assert_eq!(parents.len(), 2, "{nested:#?}");
    let read: String = nested
        .iter()
        .filter_map(|(_, e)| match e {
            Event::ToolResult { output, .. } => Some(output.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        read.contains("fn alpha") && read.contains("fn beta"),
        "{read}"
    );

    // Each child started fresh: its system prompt and its job, nothing of the parent's.
    let requests = h.requests();
    assert_eq!(requests.len(), 6);
    for child in &requests[1..3] {
        let texts = child.message_texts().join("\n");
        assert!(texts.contains("subagent of Tandem"), "{texts}");
        assert!(!texts.contains("Find alpha and beta"), "{texts}");
        let tools: Vec<&str> = child.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert!(tools.contains(&"read_file"), "{tools:?}");
        assert!(
            !tools.contains(&"task") && !tools.contains(&"write_to_file"),
            "{tools:?}"
        );
    }

    // Their tokens count in the turn's.
    let mut view = TurnView::new();
    for event in turn.events.clone() {
        view.event(event);
    }
    let usage = view.usage();
    assert_eq!(usage.prompt_tokens, 500 + 1000 + 600, "{usage:?}");
    assert_eq!(usage.completion_tokens, 15 + 20 + 30, "{usage:?}");
    assert_eq!(usage.requests, 2);
    assert_eq!(usage.subagent_requests, 4);
    assert_eq!(view.subagents().len(), 2);
}

#[tokio::test]
async fn cancel_while_two_children_run_ends_both_and_the_turn_once() {
    let h = Harness::new(Scenario::new([
        Reply::tool("task", task("one")).and_tool("task", task("two")),
        // Both children start answering, then hang until the cancel.
        Reply::text("Looking at the first")
            .chunk_size(5)
            .stall_after(3),
        Reply::text("Looking at the second")
            .chunk_size(5)
            .stall_after(3),
    ]));
    let mut running = h.start("Look at both", Vec::new());
    // Both children write at once: one waiting for the other would never start.
    let first = running
        .until(
            "a child's text",
            |e| matches!(e, Event::Subagent { event, .. } if matches!(**event, Event::Text { .. })),
        )
        .await;
    let Event::Subagent { parent: one, .. } = first else {
        unreachable!()
    };
    running
        .until("the other child's text", |e| {
            matches!(e, Event::Subagent { parent, event, .. }
                if *parent != one && matches!(**event, Event::Text { .. }))
        })
        .await;
    h.agent.cancel(&h.session).unwrap();
    let turn = running.end().await;
    assert_eq!(turn.stop_reason(), StopReason::Cancelled, "{turn}");
    assert_eq!(
        turn.count(|e| matches!(e, Event::TurnEnded { .. })),
        1,
        "{turn}"
    );
    let results = parent_results(&turn);
    assert_eq!(results.len(), 2, "{turn}");
    assert!(
        results.iter().all(|(s, _)| *s == ToolStatus::Rejected),
        "{results:?}"
    );
    assert_eq!(h.requests().len(), 3);
}

#[tokio::test]
async fn a_child_asking_for_an_edit_it_isnt_granted_is_refused_and_nothing_is_asked() {
    let h = Harness::new(Scenario::new([
        Reply::tool("task", task("Write x.txt")),
        Reply::tool("write_to_file", json!({"path": "x.txt", "content": "no\n"})),
        Reply::text("I may not write.").expect_tool_result_contains("not granted: write_to_file"),
        Reply::text("OK.").expect_tool_result_contains("I may not write."),
    ]));
    // No answers: a question would hang the turn past the safety net.
    let turn = h.turn("Delegate a write", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert!(!h.root().join("x.txt").exists());
    let refused = nested(&turn).into_iter().find_map(|(_, e)| match e {
        Event::ToolResult { status, output, .. } => Some((status, output)),
        _ => None,
    });
    let (status, output) = refused.expect("the child's call has a result");
    assert_eq!(status, ToolStatus::Rejected);
    assert!(output.contains("not granted: write_to_file"), "{output}");
    assert_eq!(h.requests().len(), 4);
}

#[tokio::test]
async fn a_child_that_keeps_calling_tools_stops_at_its_step_cap() {
    let h = Harness::new(Scenario::new([
        Reply::tool("task", task_of("looper", "Go round")),
        Reply::tool("list_files", json!({})),
        Reply::tool("list_files", json!({})),
        Reply::text("The subagent gave up.").expect_tool_result_contains("cap of 2 steps"),
    ]));
    h.write(
        ".tandem/agents/looper.md",
        "---\ndescription: Loops\nmax-steps: 2\n---\nKeep listing.\n",
    );
    let turn = h.turn("Loop", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let results = parent_results(&turn);
    assert_eq!(results.len(), 1, "{turn}");
    assert_eq!(results[0].0, ToolStatus::Error);
    assert!(results[0].1.contains("cap of 2 steps"), "{results:?}");
    assert_eq!(h.requests().len(), 4);
}

#[tokio::test]
async fn a_claude_definition_is_found_with_its_tools_mapped() {
    let h = Harness::new(Scenario::new([
        Reply::tool("task", task_of("reader", "Read notes.txt")),
        Reply::tool("read_file", json!({"path": "notes.txt"})),
        Reply::tool("search_files", json!({"pattern": "x"})),
        Reply::text("It says gamma.").expect_tool_result_contains("not granted: search_files"),
        Reply::text("Done.").expect_tool_result_contains("gamma"),
    ]));
    h.write(
        ".claude/agents/reader.md",
        "---\nname: reader\ndescription: Reads files\ntools: Read, Glob\nmodel: sonnet\n---\nRead.\n",
    );
    h.write("notes.txt", "gamma\n");
    let turn = h.turn("Delegate", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let requests = h.requests();
    // The parent's task tool lists it; the child is offered what it was granted, mapped.
    let parent_task = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "task")
        .expect("task offered")["function"]["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        parent_task.contains("- reader: Reads files"),
        "{parent_task}"
    );
    assert!(parent_task.contains("- explore:"), "{parent_task}");
    let mut child_tools: Vec<&str> = requests[1].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    child_tools.sort();
    assert_eq!(child_tools, ["list_files", "read_file"]);
    assert!(requests[1].message_texts().join("\n").contains("Read."));
}

#[tokio::test]
async fn a_project_definition_granting_commands_still_asks_before_each_one() {
    let h = Harness::new(Scenario::new([
        Reply::tool("task", task_of("runner", "Make a file")),
        Reply::tool(
            "execute_command",
            json!({"command": "python3 -c 'open(\"made.txt\", \"w\")'"}),
        ),
        Reply::text("Refused.").expect_tool_result_contains("rejected"),
        Reply::text("OK."),
    ]));
    h.write(
        ".tandem/agents/runner.md",
        "---\ndescription: Runs things\ntools: [execute_command]\n---\nRun what is asked.\n",
    );
    let mut running = h.start("Delegate a command", vec![Answer::reject("no")]);
    let asked = running.asked().await;
    assert!(
        matches!(
            asked.action,
            tandem_agent::approval::ApprovalAction::Command(_)
        ),
        "{asked:?}"
    );
    let turn = running.end().await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert!(!h.root().join("made.txt").exists());
    let (status, _) = nested(&turn)
        .into_iter()
        .find_map(|(_, e)| match e {
            Event::ToolResult { status, output, .. } => Some((status, output)),
            _ => None,
        })
        .expect("the child's command has a result");
    assert_eq!(status, ToolStatus::Rejected);
}

#[tokio::test]
async fn the_transcript_reloads_with_the_children() {
    let h = Harness::new(Scenario::new([
        Reply::tool("task", task("Read a.rs")),
        Reply::tool("read_file", json!({"path": "a.rs"})),
        Reply::text("alpha is in a.rs:1"),
        Reply::text("Found it."),
        Reply::text("Again.").expect_tool_result_contains("alpha is in a.rs:1"),
    ]));
    h.write("a.rs", "fn alpha() {}\n");
    let turn = h.turn("Find alpha", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");

    let loaded = h.reloaded();
    assert_eq!(loaded.unreadable_lines, 0);
    let views = TurnView::turns(loaded.history.into_iter().map(|e| e.event));
    assert_eq!(views.len(), 1);
    let subagents = views[0].subagents();
    assert_eq!(subagents.len(), 1, "{:#?}", views[0]);
    let (parent, child) = &subagents[0];
    assert!(
        views[0].tool(parent).is_some(),
        "the task call is the parent's"
    );
    assert_eq!(child.agent, "explore");
    assert_eq!(child.view.tools().len(), 1);
    assert!(child.view.answer().contains("alpha is in a.rs:1"));

    // The parent's conversation has the answer, not the child's messages.
    let next = h.turn("Again", Vec::new()).await;
    assert_eq!(next.stop_reason(), StopReason::EndTurn, "{next}");
    let last = h.requests().pop().unwrap();
    assert!(
        !last
            .message_texts()
            .join("\n")
            .contains("subagent of Tandem")
    );
}

#[tokio::test]
async fn a_granted_edit_goes_through_the_approval_and_the_turns_undo() {
    let h = Harness::new(Scenario::new([
        Reply::tool("task", task_of("writer", "Put beta in notes.txt")),
        Reply::tool(
            "write_to_file",
            json!({"path": "notes.txt", "content": "beta\n"}),
        ),
        Reply::text("Written."),
        Reply::text("Done."),
    ]));
    h.write(
        ".tandem/agents/writer.md",
        "---\ndescription: Writes\ntools: [Write]\n---\nWrite what is asked.\n",
    );
    h.write("notes.txt", "alpha\n");
    let mut running = h.start("Delegate the write", vec![Answer::accept()]);
    let asked = running.asked().await;
    assert!(
        matches!(
            asked.action,
            tandem_agent::approval::ApprovalAction::Edit(_)
        ),
        "{asked:?}"
    );
    let turn = running.end().await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(h.read("notes.txt"), "beta\n");

    // Undoing the turn undoes what its subagent wrote.
    let undone = h
        .agent
        .undo(&h.session, None, false, h.idle_face().as_ref())
        .await
        .expect("undo");
    assert_eq!(undone.restored, ["notes.txt"], "{undone:?}");
    assert_eq!(h.read("notes.txt"), "alpha\n");
}

/// A reply whose calls carry the model's own ids (local servers number them from `call_0`).
fn with_ids(mut reply: Reply, ids: &[&str]) -> Reply {
    for (call, id) in reply.tool_calls.iter_mut().zip(ids) {
        call.id = Some((*id).to_string());
    }
    reply
}

#[tokio::test]
async fn a_childs_call_ids_never_collide_with_the_parents_and_its_questions_name_it() {
    let h = Harness::new(Scenario::new([
        with_ids(
            Reply::tool("task", task_of("writer", "Put beta in notes.txt")),
            &["call_0"],
        ),
        // The child numbers its calls from call_0 too.
        with_ids(
            Reply::tool(
                "write_to_file",
                json!({"path": "notes.txt", "content": "beta\n"}),
            ),
            &["call_0"],
        ),
        Reply::text("Written."),
        Reply::text("Done.").expect_tool_result_contains("Written."),
    ]));
    h.write(
        ".tandem/agents/writer.md",
        "---\ndescription: Writes\ntools: [Write]\n---\nWrite what is asked.\n",
    );
    let mut running = h.start("Delegate the write", vec![Answer::accept()]);
    let asked = running.asked().await;
    // The question is the child's call, under its parent's, and says which subagent asks.
    assert_eq!(asked.tool_call_id, "call_0/call_0", "{asked:?}");
    let who = asked.subagent.clone().expect("a subagent asks");
    assert_eq!(who.parent, "call_0");
    assert_eq!(who.agent, "writer");
    let turn = running.end().await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    assert_eq!(h.read("notes.txt"), "beta\n");

    // The parent's one result is the task's; the child's result is under its own id.
    let parent_ids: Vec<ToolCallId> = turn
        .events
        .iter()
        .filter_map(|e| match e {
            Event::ToolResult { tool_call_id, .. } => Some(tool_call_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(parent_ids, [ToolCallId::from("call_0")], "{turn}");
    let child_ids: Vec<ToolCallId> = nested(&turn)
        .into_iter()
        .filter_map(|(_, e)| match e {
            Event::ToolResult { tool_call_id, .. } => Some(tool_call_id),
            _ => None,
        })
        .collect();
    assert_eq!(child_ids, [ToolCallId::from("call_0/call_0")], "{turn}");

    // The view keeps the two calls apart.
    let mut view = TurnView::new();
    for event in turn.events.clone() {
        view.event(event);
    }
    assert_eq!(view.tools().len(), 1);
    let subagents = view.subagents();
    assert_eq!(subagents[0].1.view.tools().len(), 1);
}

#[tokio::test]
async fn the_parents_own_questions_name_no_subagent() {
    let h = Harness::new(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "notes.txt", "content": "beta\n"}),
        ),
        Reply::text("Done."),
    ]));
    let mut running = h.start("Write", vec![Answer::accept()]);
    let asked = running.asked().await;
    assert_eq!(asked.subagent, None, "{asked:?}");
    running.end().await;
}

fn listed(id: &str, window: u64) -> mock_model::ModelEntry {
    mock_model::ModelEntry {
        id: id.into(),
        context_length: Some(window),
        extra: None,
    }
}

#[tokio::test]
async fn a_definitions_model_gets_the_childs_requests_and_its_window_counts() {
    let h = Harness::new(
        Scenario::new([
            Reply::tool("task", task_of("small", "Read a.rs")).usage(100, 10),
            Reply::tool("read_file", json!({"path": "a.rs"})).usage(50, 5),
            Reply::text("alpha").usage(60, 6),
            Reply::text("Found.").usage(200, 20),
        ])
        .with_models([listed("mock-coder", 32768), listed("small-coder", 4096)]),
    );
    h.write(
        ".tandem/agents/small.md",
        "---\ndescription: Small\nmodel: small-coder\n---\nRead.\n",
    );
    h.write("a.rs", "fn alpha() {}\n");
    let turn = h.turn("Delegate", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let models: Vec<String> = h
        .requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        models,
        ["mock-coder", "small-coder", "small-coder", "mock-coder"]
    );
    // The child's usage is measured against its own model's window.
    let child_windows: Vec<Option<u64>> = nested(&turn)
        .into_iter()
        .filter_map(|(_, e)| match e {
            Event::Usage { context_window, .. } => Some(context_window),
            _ => None,
        })
        .collect();
    assert_eq!(child_windows, [Some(4096), Some(4096)], "{turn}");
    let parent_windows: Vec<Option<u64>> = turn
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Usage { context_window, .. } => Some(*context_window),
            _ => None,
        })
        .collect();
    assert_eq!(parent_windows, [Some(32768), Some(32768)], "{turn}");
    assert!(
        !turn
            .events
            .iter()
            .any(|e| matches!(e, Event::Notice { .. })),
        "{turn}"
    );
}

#[tokio::test]
async fn a_model_the_server_doesnt_list_falls_back_to_the_sessions_with_a_notice() {
    let h = Harness::new(Scenario::new([
        Reply::tool("task", task_of("reader", "Read a.rs")),
        Reply::text("alpha"),
        Reply::text("Found."),
    ]));
    h.write(
        ".claude/agents/reader.md",
        "---\nname: reader\ndescription: Reads\nmodel: sonnet\n---\nRead.\n",
    );
    let turn = h.turn("Delegate", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::EndTurn, "{turn}");
    let models: Vec<String> = h
        .requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(models, ["mock-coder", "mock-coder", "mock-coder"]);
    let notice = turn
        .events
        .iter()
        .find_map(|e| match e {
            Event::Notice { message } => Some(message.clone()),
            _ => None,
        })
        .expect("a notice");
    assert!(
        notice.contains("\"sonnet\"") && notice.contains("\"mock-coder\""),
        "{notice}"
    );
}

/// The user's step cap bounds the turn's whole tree: a project's agent file that sets its own cap
/// of 150 gets no more requests than the user's `--max-steps` allows, the child's counted with
/// the parent's.
#[tokio::test]
async fn a_childs_steps_count_against_the_users_cap_for_the_whole_turn() {
    let list = || Reply::tool("list_files", json!({}));
    let h = Harness::with(
        Scenario::new([
            Reply::tool("task", task_of("looper", "Go round")),
            list(),
            list(),
            list(),
            list(),
            list(),
        ]),
        Setup {
            max_steps: 3,
            ..Setup::default()
        },
    );
    h.write(
        ".tandem/agents/looper.md",
        "---\ndescription: Loops\nmax-steps: 150\n---\nKeep listing.\n",
    );
    let turn = h.turn("Loop", Vec::new()).await;
    assert_eq!(turn.stop_reason(), StopReason::MaxSteps, "{turn}");
    assert_eq!(
        h.requests().len(),
        3,
        "the parent's one request and the child's two make the user's 3"
    );
    let results = parent_results(&turn);
    assert_eq!(results[0].0, ToolStatus::Error, "{results:?}");
    assert!(results[0].1.contains("the turn's of 3"), "{results:?}");
}
