//! `approval.command_writes = "review"`: a command's writes wait for the user, file by file,
//! and only what is accepted lands (saved for undo); a configured pass-through name is written
//! through unrecorded.

use crate::support::*;
use mock_model::{Reply, Scenario};
use serde_json::json;
use tandem_agent::approval::{
    ApprovalAction, ApprovalPolicy, ApprovalReply, AutoApprove, CaptureOptions, CommandWrites,
};

const COMMAND: &str = "sed -i s/one/ONE/ a.txt && echo new > b.txt && mkdir -p gen \
    && echo g > gen/out.txt";

#[cfg(unix)]
#[tokio::test]
async fn a_commands_writes_wait_for_the_user_and_only_the_accepted_land() {
    let h = Harness::with(
        Scenario::new([
            Reply::tool("execute_command", json!({"command": COMMAND})),
            Reply::text("Done.")
                .expect_messages_contain("rejected the command's changes to (1): b.txt"),
        ]),
        Setup {
            policy: ApprovalPolicy {
                auto_approve: AutoApprove {
                    edit: false,
                    command: true,
                },
                command_writes: CommandWrites::Review,
                capture: CaptureOptions {
                    passthrough: vec!["gen".into()],
                    ..CaptureOptions::default()
                },
                ..ApprovalPolicy::default()
            },
            ..Setup::default()
        },
    );
    h.write("a.txt", "one\n");
    let (first, first_rx) = tokio::sync::oneshot::channel();
    let mut running = h.start(
        "Change them",
        vec![Answer::Later(first_rx), Answer::reject("not that one")],
    );
    let asked = running.asked().await;
    let ApprovalAction::Edit(edit) = &asked.action else {
        panic!("not an edit: {asked:?}");
    };
    assert!(edit.path.ends_with("a.txt"), "{edit:?}");
    assert_eq!(edit.original.as_deref(), Some("one\n"));
    assert_eq!(edit.proposed, "ONE\n");
    // Held: nothing written while the user decides; the pass-through name went through.
    assert_eq!(h.read("a.txt"), "one\n");
    assert!(!h.root().join("b.txt").exists());
    assert_eq!(h.read("gen/out.txt"), "g\n");
    first.send(ApprovalReply::accept()).unwrap();
    let second = running.asked().await;
    let ApprovalAction::Edit(edit) = &second.action else {
        panic!("not an edit: {second:?}");
    };
    assert!(edit.path.ends_with("b.txt"), "{edit:?}");
    let turn = running.end().await;
    assert_eq!(h.read("a.txt"), "ONE\n");
    assert!(!h.root().join("b.txt").exists());
    let (_, output) = &turn.results()[0];
    assert!(output.contains("a.txt (modified +1 -1)"), "{output}");
    assert!(!output.contains("gen/out.txt"), "{output}");
    // Saved for undo: the accepted file only.
    let undone = h
        .agent
        .undo(&h.session, None, false, h.idle_face().as_ref())
        .await
        .unwrap();
    assert!(format!("{undone:?}").contains("a.txt"), "{undone:?}");
    assert!(!format!("{undone:?}").contains("b.txt"), "{undone:?}");
    assert_eq!(h.read("a.txt"), "one\n");
    h.requests();
}
