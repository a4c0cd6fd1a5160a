//! The approval policy: what runs without asking, and what "accept always" widens.

use crate::approvals::{EDIT, ORIGINAL, PROPOSED, edit_then};
use crate::support::*;

fn command(cmd: &str) -> Reply {
    Reply::tool("execute_command", json!({"command": cmd}))
}

#[tokio::test]
async fn allowed_commands_run_without_asking_but_chained_ones_ask() {
    let env = Env::new();
    env.write("x", "keep me\n");
    let mock = MockServer::start(Scenario::new([
        command("echo hi"),
        Reply::text("It said hi."),
        command("echo hi; rm x"),
        Reply::text("Fine, I won't.").expect_tool_result_contains("not now"),
    ]));
    let options = Options {
        approval: json!({"allowCommands": ["echo"]}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;

    let turn = tandem.run_turn(&session, "Say hi").await;
    assert!(tandem.approvals().is_empty(), "{:#?}", tandem.approvals());
    let result = turn.tool_result();
    assert_eq!(result["status"], "ok", "{result}");
    assert!(result["output"].as_str().unwrap().contains("hi"));

    tandem.reply_approvals([reply::reject("not now")]).await;
    let turn = tandem.run_turn(&session, "Say hi and clean up").await;
    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 1, "{approvals:#?}");
    assert_eq!(approvals[0]["command"], "echo hi; rm x");
    assert_eq!(turn.tool_result()["status"], "rejected");
    assert_eq!(env.read("x"), "keep me\n");
    model_requests(&mock);
}

#[tokio::test]
async fn auto_approved_edits_apply_without_asking() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(edit_then(Reply::text("Done.")));
    let options = Options {
        approval: json!({"autoApprove": {"edit": true}}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Make the answer 42").await;
    assert!(tandem.approvals().is_empty(), "{:#?}", tandem.approvals());
    assert_eq!(turn.tool_result()["status"], "ok", "{turn}");
    assert_eq!(env.read("src/answer.rs"), PROPOSED);
}

#[tokio::test]
async fn accept_always_stops_edit_questions_for_the_session_only() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    env.write("src/other.rs", ORIGINAL);
    let edit = |path: &str| Reply::tool("replace_in_file", json!({"path": path, "diff": EDIT}));
    let mock = MockServer::start(Scenario::new([
        edit("src/answer.rs"),
        Reply::text("One."),
        // Same session: the edit applies unasked, but a command still asks (`touch` is on no
        // rule; `echo` alone would run unasked inside the walls).
        edit("src/other.rs").and_tool("execute_command", json!({"command": "touch hi.txt"})),
        Reply::text("Two."),
        // A new session asks again.
        edit("src/answer.rs"),
        Reply::text("Three."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem
        .reply_approvals([
            reply::accept_always(),
            reply::reject("no commands"),
            reply::reject("not in this session"),
        ])
        .await;
    let session = tandem.new_session().await;

    tandem.run_turn(&session, "Edit answer.rs").await;
    assert_eq!(env.read("src/answer.rs"), PROPOSED);
    assert_eq!(tandem.approvals().len(), 1);

    let turn = tandem.run_turn(&session, "Edit other.rs and say hi").await;
    assert_eq!(env.read("src/other.rs"), PROPOSED, "{turn}");
    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 2, "{approvals:#?}");
    assert_eq!(approvals[1]["kind"], "command");
    let statuses: Vec<&Value> = turn.tool_results().iter().map(|r| &r["status"]).collect();
    assert_eq!(statuses, [&json!("ok"), &json!("rejected")]);

    std::fs::write(env.workspace.join("src/answer.rs"), ORIGINAL).unwrap();
    let other = tandem.new_session().await;
    let turn = tandem.run_turn(&other, "Edit answer.rs again").await;
    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 3, "{approvals:#?}");
    assert_eq!(approvals[2]["kind"], "edit");
    assert_eq!(turn.tool_result()["status"], "rejected");
    assert_eq!(env.read("src/answer.rs"), ORIGINAL);
}

#[tokio::test]
async fn a_client_that_cannot_ask_gets_nothing_done_unasked() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(edit_then(Reply::text("I could not edit it.")));
    let options = Options {
        approvals: false,
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Make the answer 42").await;
    assert!(tandem.approvals().is_empty());
    assert_eq!(turn.tool_result()["status"], "rejected", "{turn}");
    assert_eq!(env.read("src/answer.rs"), ORIGINAL);
    assert_eq!(turn.stop_reason(), "endTurn");
}

/// Through `tandem lsp` with no rule at all: a pipeline of read-only parts runs unasked inside
/// the walls; a line with a substitution of a command no rule admits asks, and the question says
/// which part and offers "always" for the narrowest rule.
#[tokio::test]
async fn pipelines_run_unasked_and_a_substitution_asks_with_its_reason() {
    let env = Env::new();
    env.write("a.txt", "one\ntwo\n");
    let mock = MockServer::start(Scenario::new([
        command("cat a.txt | wc -l"),
        Reply::text("Two lines.").expect_tool_result_contains("2"),
        command("echo $(touch made.txt)"),
        Reply::text("Fine, I won't.").expect_tool_result_contains("not now"),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;

    let turn = tandem.run_turn(&session, "Count the lines").await;
    assert!(tandem.approvals().is_empty(), "{:#?}", tandem.approvals());
    assert_eq!(turn.tool_result()["status"], "ok");

    tandem.reply_approvals([reply::reject("not now")]).await;
    let turn = tandem.run_turn(&session, "Touch it").await;
    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 1, "{approvals:#?}");
    assert_eq!(
        approvals[0]["reason"],
        "`touch made.txt` (in a substitution): no rule admits this command"
    );
    assert_eq!(approvals[0]["always"], json!(["touch made.txt"]));
    assert_eq!(turn.tool_result()["status"], "rejected");
    assert!(!env.workspace.join("made.txt").exists());
    model_requests(&mock);
}

/// "Always allow" on a command adds the narrowest rule (`touch` … up to the first option) for
/// the rest of the session and saves it in the user's own config, under this workspace's section:
/// the same command later runs unasked, and a new sidecar reads the rule back.
#[tokio::test]
async fn always_allow_saves_the_narrowest_rule_in_the_users_config() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        command("touch a.txt -c"),
        Reply::text("Touched."),
        command("touch a.txt"),
        Reply::text("Again."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem.reply_approvals([reply::accept_always()]).await;
    let session = tandem.new_session().await;
    tandem.run_turn(&session, "Touch it").await;
    let approvals = tandem.approvals();
    assert_eq!(approvals.len(), 1, "{approvals:#?}");
    assert_eq!(approvals[0]["always"], json!(["touch a.txt"]));
    let turn = tandem.run_turn(&session, "Touch it again").await;
    assert_eq!(tandem.approvals().len(), 1, "the second touch asked");
    assert_eq!(turn.tool_result()["status"], "ok");

    let saved = std::fs::read_to_string(env.user_config_dir().join("config.toml")).unwrap();
    let root = env.workspace.canonicalize().unwrap();
    assert!(
        saved.contains(&format!("[projects.\"{}\".approval.rules]", root.display())),
        "{saved}"
    );
    assert!(saved.contains("allow = [\"touch a.txt\"]"), "{saved}");
    model_requests(&mock);
    drop(tandem);

    let mock = MockServer::start(Scenario::new([
        command("touch a.txt"),
        Reply::text("Done."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Touch it in a new sidecar").await;
    assert!(tandem.approvals().is_empty(), "{:#?}", tandem.approvals());
    assert_eq!(turn.tool_result()["status"], "ok");
}
