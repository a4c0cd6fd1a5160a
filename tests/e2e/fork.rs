//! `tandem/forkSession`: an earlier prompt edited and sent again continues a new session from
//! just before it; the original stays whole.

use crate::support::*;

#[tokio::test]
async fn a_fork_before_a_turn_drops_it_and_the_later_ones_and_keeps_the_original() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("One noted.").expect_messages_contain("first prompt"),
        Reply::text("Two noted.").expect_messages_contain("second prompt"),
        Reply::text("Three noted.").expect_messages_contain("third prompt"),
        Reply::text("Edited noted.").expect_messages_contain("second prompt, edited"),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    for prompt in ["first prompt", "second prompt", "third prompt"] {
        let turn = tandem.run_turn(&session, prompt).await;
        assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    }

    let forked = tandem
        .request(
            "tandem/forkSession",
            json!({"sessionId": session, "beforeTurn": "t2"}),
        )
        .await
        .unwrap();
    let fork = forked["sessionId"].as_str().unwrap().to_string();
    assert_ne!(fork, session.as_str());
    // Its history is the first turn alone, under its own id.
    let entries = forked["entries"].as_array().unwrap();
    let prompts: Vec<&Value> = entries
        .iter()
        .filter(|e| e["kind"] == "turnStarted")
        .map(|e| &e["prompt"])
        .collect();
    assert_eq!(prompts, ["first prompt"], "{entries:#?}");
    assert!(entries.iter().all(|e| e["sessionId"] == fork.as_str()));

    let next = tandem.run_turn(&fork, "second prompt, edited").await;
    assert_eq!(next.stop_reason(), "endTurn", "{next}");
    // The fork numbers on from the cut.
    assert_eq!(next.updates[0]["turnId"], "t2");
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 4);
    let sent = requests[3].message_texts().join("\n");
    assert!(
        sent.contains("first prompt") && sent.contains("One noted."),
        "{sent}"
    );
    assert!(sent.contains("second prompt, edited"), "{sent}");
    for gone in ["Two noted.", "third prompt", "Three noted."] {
        assert!(
            !sent.contains(gone),
            "{gone:?} is still in the fork's request:\n{sent}"
        );
    }
    assert!(sent.contains("forked from an earlier one"), "{sent}");
    let edited = requests[3]
        .message_texts()
        .iter()
        .filter(|t| t.contains("second prompt"))
        .count();
    assert_eq!(edited, 1, "only the edited prompt: {sent}");

    // The original is unchanged, and both are listed.
    let original = tandem
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .unwrap();
    let prompts: Vec<&Value> = original["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "turnStarted")
        .map(|e| &e["prompt"])
        .collect();
    assert_eq!(prompts, ["first prompt", "second prompt", "third prompt"]);
    let listed = tandem
        .request("tandem/listSessions", Value::Null)
        .await
        .unwrap();
    let ids: Vec<&Value> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["sessionId"])
        .collect();
    assert!(
        ids.contains(&&json!(fork)) && ids.contains(&&json!(session)),
        "{ids:?}"
    );
}

#[tokio::test]
async fn a_fork_at_a_turn_the_session_lacks_says_which_it_has() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::text("Noted.")]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    tandem.run_turn(&session, "only prompt").await;
    for turn in ["t2", "outside", "../t1"] {
        let error = tandem
            .request(
                "tandem/forkSession",
                json!({"sessionId": session, "beforeTurn": turn}),
            )
            .await
            .expect_err("no such turn");
        assert_eq!(error.code, -32602, "{turn}: {error:?}");
        assert!(
            error
                .message
                .contains(&format!("has no turn {turn}; its turns are t1")),
            "{error:?}"
        );
    }
    let error = tandem
        .request(
            "tandem/forkSession",
            json!({"sessionId": "nosuchsession", "beforeTurn": "t1"}),
        )
        .await
        .expect_err("no such session");
    assert_eq!(error.code, 1001, "{error:?}");
    // Nothing was made by the refusals.
    let listed = tandem
        .request("tandem/listSessions", Value::Null)
        .await
        .unwrap();
    assert_eq!(
        listed["sessions"].as_array().unwrap().len(),
        1,
        "{listed:#}"
    );
}
