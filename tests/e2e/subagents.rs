//! Subagents through the real binary: `tandem exec --json` reports a subagent's calls and
//! results with the `task` call's id as `parentId`, and its tokens in the turn's totals.

use crate::support::*;

#[tokio::test]
async fn exec_json_reports_a_subagents_events_with_its_parent_id() {
    let env = Env::new();
    env.write("a.rs", "fn alpha() {}\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "task",
            json!({"description": "find alpha", "prompt": "Where is alpha?", "subagent_type": "explore"}),
        )
        .usage(100, 10),
        Reply::tool("read_file", json!({"path": "a.rs"})).usage(50, 5),
        Reply::text("alpha is at a.rs:1").usage(60, 6),
        Reply::text("It is in a.rs.")
            .expect_tool_result_contains("alpha is at a.rs:1")
            .usage(200, 20),
    ]));
    let mut command = env.command();
    command
        .args(["exec", "Find alpha", "--json"])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir);
    let output = run_piped(command, "").await;
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    let events: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let task = events
        .iter()
        .find(|e| e["type"] == "toolCall" && e["name"] == "task")
        .expect("the task call");
    assert!(task.get("parentId").is_none(), "{task}");
    let task_id = task["toolCallId"].as_str().unwrap();
    let nested: Vec<&Value> = events.iter().filter(|e| e["parentId"] == task_id).collect();
    let kinds: Vec<&str> = nested.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["usage", "toolCall", "toolResult", "message", "usage"],
        "{nested:#?}"
    );
    assert_eq!(nested[1]["name"], "read_file");
    assert!(nested[2]["output"].as_str().unwrap().contains("fn alpha"));
    let result = events
        .iter()
        .find(|e| {
            e["type"] == "toolResult" && e["toolCallId"] == task_id && e.get("parentId").is_none()
        })
        .expect("the task's result");
    assert_eq!(result["output"], "alpha is at a.rs:1");
    let end = events.last().unwrap();
    assert_eq!(end["type"], "turnEnded", "{end}");
    assert_eq!(end["usage"]["promptTokens"], 100 + 50 + 60 + 200, "{end}");
    assert_eq!(end["usage"]["requests"], 2, "{end}");
}

/// A reply whose calls carry these ids, as a local server numbering from `call_0` sends them.
fn with_ids(mut reply: Reply, ids: &[&str]) -> Reply {
    for (call, id) in reply.tool_calls.iter_mut().zip(ids) {
        call.id = Some((*id).to_string());
    }
    reply
}

#[tokio::test]
async fn exec_json_names_the_task_call_a_subagents_approval_came_from() {
    let env = Env::new();
    env.write(
        ".tandem/agents/writer.md",
        "---\ndescription: Writes\ntools: [Write]\n---\nWrite what is asked.\n",
    );
    // Parent and child both number their calls from call_0.
    let mock = MockServer::start(Scenario::new([
        with_ids(
            Reply::tool(
                "task",
                json!({"description": "write", "prompt": "Put beta in notes.txt", "subagent_type": "writer"}),
            ),
            &["call_0"],
        ),
        with_ids(
            Reply::tool(
                "write_to_file",
                json!({"path": "notes.txt", "content": "beta\n"}),
            ),
            &["call_0"],
        ),
        Reply::text("I could not write.").expect_tool_result_contains("--yes"),
        Reply::text("Not written.").expect_tool_result_contains("I could not write."),
    ]));
    let mut command = env.command();
    command
        .args(["exec", "Delegate the write", "--json"])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir);
    let output = run_piped(command, "").await;
    // A subagent's refused action is the turn's: exit code 4, as a main agent's.
    assert_eq!(output.status.code(), Some(4), "{}", show(&output));
    assert!(!env.workspace.join("notes.txt").exists());
    let events: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let approvals: Vec<&Value> = events.iter().filter(|e| e["type"] == "approval").collect();
    assert_eq!(approvals.len(), 1, "{events:#?}");
    let approval = approvals[0];
    assert_eq!(approval["parentId"], "call_0", "{approval}");
    assert_eq!(approval["toolCallId"], "call_0/call_0", "{approval}");
    assert_eq!(approval["action"], "edit", "{approval}");
    assert_eq!(approval["decision"], "reject", "{approval}");
    // The child's call and result are its own, apart from the parent's task call.
    let results: Vec<(&str, Option<&str>)> = events
        .iter()
        .filter(|e| e["type"] == "toolResult")
        .map(|e| (e["toolCallId"].as_str().unwrap(), e["parentId"].as_str()))
        .collect();
    assert_eq!(
        results,
        [("call_0/call_0", Some("call_0")), ("call_0", None)],
        "{events:#?}"
    );
    let end = events.last().unwrap();
    assert_eq!(end["rejectedActions"], 1, "{end}");
    assert_eq!(end["exitCode"], 4, "{end}");
}

#[tokio::test]
async fn a_child_calling_a_tool_it_isnt_granted_is_refused_and_exec_exits_4() {
    let env = Env::new();
    env.write("a.rs", "fn alpha() {}\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "task",
            json!({"description": "find alpha", "prompt": "Where is alpha?", "subagent_type": "explore"}),
        ),
        // explore is read-only: the write is refused without a question.
        Reply::tool(
            "write_to_file",
            json!({"path": "a.rs", "content": "gone\n"}),
        ),
        Reply::text("I may not write; alpha is at a.rs:1.")
            .expect_tool_result_contains("not granted"),
        Reply::text("It is in a.rs.").expect_tool_result_contains("alpha is at a.rs:1"),
    ]));
    let mut command = env.command();
    command
        .args(["exec", "Find alpha", "--json", "--yes"])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir);
    let output = run_piped(command, "").await;
    assert_eq!(output.status.code(), Some(4), "{}", show(&output));
    assert_eq!(env.read("a.rs"), "fn alpha() {}\n");
    let events: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let refused: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "toolResult" && e["status"] == "rejected")
        .collect();
    assert_eq!(refused.len(), 1, "{events:#?}");
    assert!(refused[0]["parentId"].is_string(), "{}", refused[0]);
    let end = events.last().unwrap();
    assert_eq!(end["rejectedActions"], 1, "{end}");
    assert_eq!(end["exitCode"], 4, "{end}");
}
