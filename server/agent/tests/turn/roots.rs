//! A session with an additional root: the model is told of it, edits there by absolute path
//! through the same approval and undo as the root's, and cannot reach a folder beside it.

use crate::support::*;
use mock_model::{Reply, Scenario};
use serde_json::json;
use tandem_agent::approval::ApprovalAction;
use tandem_agent::changes::Content;
use tandem_agent::events::ToolStatus;
use tandem_tools::ErrorKind;

#[tokio::test]
async fn an_edit_in_an_additional_root_is_approved_written_and_undone() {
    // The mock's replies name the folders, so they are made before the harness.
    let folder = tempfile::tempdir().unwrap();
    for dir in ["extra", "sibling"] {
        std::fs::create_dir(folder.path().join(dir)).unwrap();
    }
    let extra = folder.path().join("extra").canonicalize().unwrap();
    let sibling = folder.path().join("sibling").canonicalize().unwrap();
    std::fs::write(sibling.join("secret.txt"), "the sibling's\n").unwrap();
    std::fs::write(extra.join("notes.md"), "old\n").unwrap();
    let notes = extra.join("notes.md").display().to_string();
    let climbing = format!("{}/../sibling/secret.txt", extra.display());
    let mut h = Harness::new(Scenario::new([
        Reply::tool("write_to_file", json!({"path": notes, "content": "new\n"})),
        Reply::tool("read_file", json!({"path": climbing}))
            .expect_tool_result_contains("Applied the edit"),
        Reply::tool(
            "read_file",
            json!({"path": sibling.join("secret.txt").display().to_string()}),
        )
        .expect_tool_result_contains("outside the workspace"),
        Reply::text("Done.").expect_tool_result_contains("outside the workspace"),
    ]));
    h.new_session_in_roots(std::slice::from_ref(&extra));

    let mut running = h.start("Update the notes", vec![Answer::accept()]);
    let question = running.asked().await;
    let turn = running.end().await;

    let ApprovalAction::Edit(edit) = &question.action else {
        panic!("not an edit: {question:?}");
    };
    assert_eq!(edit.path, extra.join("notes.md"));
    assert_eq!(
        std::fs::read_to_string(extra.join("notes.md")).unwrap(),
        "new\n"
    );
    let results = turn.results();
    assert_eq!(results[0].0, ToolStatus::Ok, "{turn}");
    assert_eq!(
        turn.error_kinds()[1..],
        [
            Some(ErrorKind::OutsideWorkspace),
            Some(ErrorKind::OutsideWorkspace)
        ],
        "{turn}"
    );
    // The model was told of the root, by its absolute path.
    let requests = h.requests();
    let system = requests[0].messages_with_role("system")[0].to_string();
    assert!(
        system.contains(&format!(
            "Also in the workspace (use absolute paths there): {}",
            extra.display()
        )),
        "{system}"
    );

    // The turn's change set names it by that path, with both sides read from the other root.
    let changes = h
        .agent
        .turn_changes(&h.session, None, h.idle_face().as_ref())
        .await
        .unwrap()
        .expect("the turn's changes");
    assert_eq!(changes.files.len(), 1, "{changes:?}");
    assert_eq!(changes.files[0].path, notes);
    assert_eq!(changes.files[0].before, Content::Text("old\n".into()));
    assert_eq!(changes.files[0].after, Content::Text("new\n".into()));

    // The undo log puts it back, by the path it was written by, in a restarted sidecar too
    // (which has the root from the transcript).
    assert!(h.transcripts().contains("\"additionalRoots\""));
    let undone = h
        .fresh_agent()
        .undo(&h.session, None, false, h.idle_face().as_ref())
        .await
        .unwrap();
    assert_eq!(undone.restored, [notes]);
    assert_eq!(
        std::fs::read_to_string(extra.join("notes.md")).unwrap(),
        "old\n"
    );
    assert_eq!(
        std::fs::read_to_string(sibling.join("secret.txt")).unwrap(),
        "the sibling's\n"
    );
}
