//! Edits put to the user: accepted, rejected with feedback, accepted with the user's changes.

use crate::support::*;

pub const ORIGINAL: &str = "pub fn answer() -> u32 {\n    41\n}\n";
pub const PROPOSED: &str = "pub fn answer() -> u32 {\n    42\n}\n";
/// `replace_in_file`'s SEARCH/REPLACE block turning ORIGINAL into PROPOSED.
pub const EDIT: &str = "------- SEARCH\n    41\n=======\n    42\n+++++++ REPLACE";

/// The model asks to change `src/answer.rs`, then says `then`.
pub fn edit_then(then: Reply) -> Scenario {
    Scenario::new([
        Reply::tool(
            "replace_in_file",
            json!({"path": "src/answer.rs", "diff": EDIT}),
        )
        .with_text("Changing the answer."),
        then,
    ])
}

/// One edit turn against a fresh sidecar with `replies` queued for its approval questions.
async fn edit_turn(then: Reply, replies: Vec<Answer>) -> (Env, MockServer, Sidecar, Turn) {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(edit_then(then));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem.reply_approvals(replies).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Make the answer 42").await;
    (env, mock, tandem, turn)
}

#[tokio::test]
async fn an_accepted_edit_is_written_and_reported_with_its_diff() {
    let (env, mock, tandem, turn) = edit_turn(
        Reply::text("The answer is now 42."),
        vec![reply::accept().into()],
    )
    .await;

    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 1, "{approvals:#?}");
    let question = &approvals[0];
    let call = turn.tool_calls()[0];
    assert_eq!(question["kind"], "edit");
    assert_eq!(question["sessionId"], turn.updates[0]["sessionId"]);
    assert_eq!(question["turnId"], turn.updates[0]["turnId"]);
    assert_eq!(question["toolCallId"], call["toolCallId"]);
    assert_eq!(question["path"], env.path("src/answer.rs"));
    assert_eq!(question["original"], ORIGINAL);
    assert_eq!(question["proposed"], PROPOSED);
    let diff = question["diff"].as_str().unwrap();
    for line in ["--- ", "+++ ", "@@ ", "-    41", "+    42"] {
        assert!(
            diff.lines().any(|l| l.starts_with(line)),
            "{line:?} missing from the diff:\n{diff}"
        );
    }
    // The question comes after the toolCall update it is about, before the result.
    let order: Vec<String> = tandem.inbox(|i| {
        i.log
            .iter()
            .map(|m| match m["method"].as_str() {
                Some("tandem/update") => m["params"]["kind"].as_str().unwrap_or("?").to_string(),
                other => other.unwrap_or("?").to_string(),
            })
            .collect()
    });
    let at = |what: &str| order.iter().position(|k| k == what).unwrap();
    assert!(
        at("toolCall") < at("tandem/requestApproval")
            && at("tandem/requestApproval") < at("toolResult"),
        "{order:?}"
    );

    assert_eq!(env.read("src/answer.rs"), PROPOSED);
    assert_eq!(turn.kinds(), ONE_TOOL_TURN, "{turn}");
    let result = turn.tool_result();
    assert_eq!(result["status"], "ok", "{result}");
    let result_diff = result["diff"].as_str().expect("a diff with the result");
    assert!(result_diff.contains("+    42"), "{result_diff}");
    assert_eq!(turn.stop_reason(), "endTurn");

    let requests = model_requests(&mock);
    let told = tool_message(&requests[1], call["toolCallId"].as_str().unwrap());
    assert!(told.contains("answer.rs"), "{told}");
}

#[tokio::test]
async fn a_rejection_leaves_the_file_and_tells_the_model_why() {
    let (env, mock, _tandem, turn) = edit_turn(
        Reply::text("OK, using a constant.").expect_tool_result_contains("use a constant"),
        vec![reply::reject("use a constant").into()],
    )
    .await;

    assert_eq!(env.read("src/answer.rs"), ORIGINAL);
    let result = turn.tool_result();
    assert_eq!(result["status"], "rejected", "{result}");
    assert_eq!(turn.result_diff(), None, "{result}");
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert!(turn.text().ends_with("OK, using a constant."));

    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 2);
    let call = turn.tool_calls()[0]["toolCallId"].as_str().unwrap();
    let told = tool_message(&requests[1], call);
    assert!(
        told.contains("use a constant") && told.contains("reject"),
        "{told}"
    );
}

#[tokio::test]
async fn an_edited_proposal_writes_the_users_version_and_says_so() {
    let mine = "pub const ANSWER: u32 = 42;\n\npub fn answer() -> u32 {\n    ANSWER\n}\n";
    let (env, mock, _tandem, turn) = edit_turn(
        Reply::text("Thanks, I see you used a constant."),
        vec![reply::accept_edited(mine).into()],
    )
    .await;

    assert_eq!(env.read("src/answer.rs"), mine);
    let result = turn.tool_result();
    assert_eq!(result["status"], "ok", "{result}");
    let diff = result["diff"].as_str().unwrap();
    assert!(
        diff.contains("+pub const ANSWER: u32 = 42;") && diff.contains("+    ANSWER"),
        "the result's diff is what was written:\n{diff}"
    );

    let requests = model_requests(&mock);
    let call = turn.tool_calls()[0]["toolCallId"].as_str().unwrap();
    let told = tool_message(&requests[1], call);
    assert!(told.contains("edited"), "{told}");
    assert!(
        told.contains("+pub const ANSWER: u32 = 42;") && told.contains("-    41"),
        "the model gets the final diff against the file before: {told}"
    );
}

#[tokio::test]
async fn a_new_file_is_proposed_without_an_original() {
    let env = Env::new();
    let content = "# Notes\n\nWritten by the agent.\n";
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "write_to_file",
            json!({"path": "docs/notes.md", "content": content}),
        ),
        Reply::text("Created it."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem.reply_approvals([reply::accept()]).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Write notes").await;

    let question = &tandem.approvals()[0];
    assert_eq!(question["kind"], "edit");
    assert_eq!(question["path"], env.path("docs/notes.md"));
    assert!(
        matches!(
            typed_approval(question),
            ApprovalAction::Edit { original: None, .. }
        ),
        "a new file has no original text: {question}"
    );
    assert_eq!(question["proposed"], content);
    assert!(
        question["diff"]
            .as_str()
            .unwrap()
            .contains("+Written by the agent.")
    );
    assert_eq!(turn.tool_result()["status"], "ok", "{turn}");
    assert_eq!(env.read("docs/notes.md"), content);
}

#[tokio::test]
async fn an_edit_whose_file_changed_while_asking_is_not_written() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(edit_then(Reply::text("I will read it again.")));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn_ref = tandem.prompt(&session, "Make the answer 42").await;
    tandem.wait_for_approvals(1).await;
    // The user changes the file in the editor while the question is open.
    let theirs = "pub fn answer() -> u32 {\n    43\n}\n";
    env.write("src/answer.rs", theirs);
    tandem.reply_approvals([reply::accept()]).await;
    let turn = tandem.wait_for_turn_end(&turn_ref).await;

    assert_eq!(env.read("src/answer.rs"), theirs);
    let result = turn.tool_result();
    assert_eq!(result["status"], "error", "{result}");
    let call = turn.tool_calls()[0]["toolCallId"].as_str().unwrap();
    let told = tool_message(&model_requests(&mock)[1], call);
    assert!(
        told.contains("stale") && told.contains("read_file"),
        "{told}"
    );
}

#[tokio::test]
async fn an_approval_the_editor_fails_to_answer_counts_as_a_rejection() {
    let (env, mock, _tandem, turn) = edit_turn(
        Reply::text("The editor could not ask."),
        vec![Answer::Error(-32603, "the diff view crashed".into())],
    )
    .await;
    assert_eq!(env.read("src/answer.rs"), ORIGINAL);
    assert_eq!(turn.tool_result()["status"], "rejected", "{turn}");
    assert_eq!(turn.stop_reason(), "endTurn");
    model_requests(&mock);
}

/// `approval.timeoutSeconds`: a question nobody answers counts as a rejection, the model is told
/// why, and the turn goes on; the answer that comes after that changes nothing.
#[tokio::test]
async fn an_unanswered_approval_times_out_as_a_rejection_and_a_late_answer_is_ignored() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mut scenario = edit_then(
        Reply::text("Nobody answered; leaving it.").expect_tool_result_contains("within 1 s"),
    );
    scenario.responses.push(Reply::text("Next."));
    let mock = MockServer::start(scenario);
    let options = Options {
        approval: json!({"timeoutSeconds": 1}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let started = std::time::Instant::now();
    // No answer queued: the question stays open in the "editor".
    let turn = tandem.run_turn(&session, "Make the answer 42").await;
    let took = started.elapsed();
    assert_eq!(turn.tool_result()["status"], "rejected", "{turn}");
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert!(took >= std::time::Duration::from_secs(1), "{took:?}");
    // The user answers now: nothing is written, and the session takes the next prompt. That
    // next turn is read after the late answer, so once it has ended the answer was handled.
    tandem.reply_approvals([reply::accept()]).await;
    let next = tandem.run_turn(&session, "Anything else?").await;
    assert_eq!(next.stop_reason(), "endTurn", "{next}");
    assert_eq!(env.read("src/answer.rs"), ORIGINAL);
    let requests = model_requests(&mock);
    let call = turn.tool_calls()[0]["toolCallId"].as_str().unwrap();
    let told = tool_message(&requests[1], call);
    assert!(told.contains("Nobody answered within 1 s"), "{told}");
}

#[tokio::test]
async fn problems_the_editor_reports_after_an_edit_reach_the_model() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(edit_then(
        Reply::text("I broke the types; fixing.").expect_tool_result_contains("mismatched types"),
    ));
    let options = Options {
        diagnostics: true,
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    // A problem present before the edit (not the model's doing), and one the edit adds.
    let old = json!({"path": env.path("src/answer.rs"), "line": 1, "severity": "warning",
                     "message": "unused function"});
    let new = json!({"path": env.path("src/answer.rs"), "line": 2, "severity": "error",
                     "message": "mismatched types: expected u32"});
    let mut asked = 0;
    let (before, after) = (old.clone(), vec![old, new]);
    tandem.rpc.on_request(
        "tandem/getDiagnostics",
        Box::new(move |_| {
            asked += 1;
            let diagnostics = if asked == 1 {
                json!([before])
            } else {
                json!(after)
            };
            json!({"diagnostics": diagnostics}).into()
        }),
    );
    tandem.reply_approvals([reply::accept()]).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Make the answer 42").await;

    let asked: Vec<Value> = tandem.inbox(|i| {
        i.other
            .iter()
            .filter(|m| m["method"] == "tandem/getDiagnostics")
            .map(|m| m["params"].clone())
            .collect()
    });
    assert_eq!(
        asked.len(),
        2,
        "asked before and after the edit: {asked:#?}"
    );
    assert_eq!(asked[0], json!({"paths": [env.path("src/answer.rs")]}));
    let output = turn.tool_result()["output"].as_str().unwrap().to_string();
    assert!(output.contains("mismatched types"), "{output}");
    assert!(
        !output.contains("unused function"),
        "only new problems: {output}"
    );
    model_requests(&mock);
}
