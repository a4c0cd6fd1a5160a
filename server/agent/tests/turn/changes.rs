//! A turn's change set: the files each turn changed, attributed to the edit call that changed
//! them, before and now; undone turns left out.

use crate::support::*;
use mock_model::{Reply, Scenario};
use serde_json::json;
use tandem_agent::TurnId;
use tandem_agent::changes::{ChangedKind, Content};
use tandem_agent::events::Event;
use tandem_tools::ChangeSource;

fn write(path: &str, content: &str) -> Reply {
    Reply::tool("write_to_file", json!({"path": path, "content": content}))
}

/// The ids of the tool calls a turn made, in order.
fn call_ids(turn: &Turn) -> Vec<String> {
    turn.events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall(call) => Some(call.tool_call_id.to_string()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn each_turn_lists_the_files_it_changed_by_call_and_an_undone_turn_is_left_out() {
    let h = Harness::new(Scenario::new([
        write("a.txt", "a1\n"),
        write("new.txt", "fresh\n"),
        Reply::text("Turn one done."),
        write("a.txt", "a2\n"),
        Reply::text("Turn two done."),
    ]));
    h.write("a.txt", "a0\n");
    let face = h.idle_face();

    let one = h
        .turn("one", vec![Answer::accept(), Answer::accept()])
        .await;
    let one_ids = call_ids(&one);
    let two = h.turn("two", vec![Answer::accept()]).await;
    let two_ids = call_ids(&two);
    assert_eq!(
        h.agent.changed_turns(&h.session).unwrap(),
        vec![TurnId::numbered(1), TurnId::numbered(2)]
    );

    // The last turn by default: a.txt from a1 (before it) to a2.
    let last = h
        .agent
        .turn_changes(&h.session, None, face.as_ref())
        .await
        .unwrap()
        .expect("turn two changed a file");
    assert_eq!(last.turn_id, TurnId::numbered(2));
    assert_eq!(last.files.len(), 1);
    let a = &last.files[0];
    assert_eq!(a.path, "a.txt");
    assert_eq!(a.kind, ChangedKind::Modified);
    assert_eq!(a.before, Content::Text("a1\n".into()));
    assert_eq!(a.after, Content::Text("a2\n".into()));
    let by = a.by.as_ref().expect("attributed");
    assert_eq!(by.source, ChangeSource::Edit);
    assert_eq!(by.tool_call_id.as_deref(), Some(two_ids[0].as_str()));

    // Turn one by its id: both files, each by its own call; "now" is the disk now.
    let first = h
        .agent
        .turn_changes(&h.session, Some(TurnId::numbered(1)), face.as_ref())
        .await
        .unwrap()
        .expect("turn one changed files");
    let paths: Vec<_> = first.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a.txt", "new.txt"]);
    assert_eq!(first.files[0].before, Content::Text("a0\n".into()));
    assert_eq!(first.files[0].after, Content::Text("a2\n".into()));
    assert_eq!(
        first.files[0].by.as_ref().unwrap().tool_call_id.as_deref(),
        Some(one_ids[0].as_str())
    );
    assert_eq!(first.files[1].kind, ChangedKind::Created);
    assert_eq!(first.files[1].before, Content::Absent);
    assert_eq!(
        first.files[1].by.as_ref().unwrap().tool_call_id.as_deref(),
        Some(one_ids[1].as_str())
    );
    // At once from the disk, for the paths a call reported.
    let on_disk = h
        .agent
        .turn_changes_on_disk(
            &h.session,
            &TurnId::numbered(1),
            &["new.txt", "elsewhere.txt"],
        )
        .unwrap();
    assert_eq!(on_disk, first.files[1..].to_vec());
    let diff = first.files[1].diff().unwrap();
    assert!(diff.created && diff.added == 1, "{diff:?}");

    // Undo turn two: it is left out, and the last turn with changes is turn one again.
    let undone = h
        .agent
        .undo(&h.session, None, false, face.as_ref())
        .await
        .unwrap();
    assert_eq!(undone.restored, ["a.txt"]);
    let last = h
        .agent
        .turn_changes(&h.session, None, face.as_ref())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(last.turn_id, TurnId::numbered(1));
    assert_eq!(last.files[0].after, Content::Text("a1\n".into()));
    assert!(
        h.agent
            .turn_changes(&h.session, Some(TurnId::numbered(2)), face.as_ref())
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(
        h.agent.changed_turns(&h.session).unwrap(),
        vec![TurnId::numbered(1)]
    );
}

/// A face that holds one file open with unsaved text.
struct Editor {
    path: std::path::PathBuf,
    text: String,
}

impl tandem_agent::Frontend for Editor {
    fn update(&self, _: &tandem_agent::SessionId, _: &TurnId, _: Event) {}
    fn request_approval(
        &self,
        _: tandem_agent::approval::ApprovalRequest,
    ) -> futures_util::future::BoxFuture<'static, tandem_agent::approval::ApprovalReply> {
        Box::pin(async { tandem_agent::approval::ApprovalReply::accept() })
    }
    fn read_text(
        &self,
        path: &std::path::Path,
    ) -> Option<futures_util::future::BoxFuture<'static, Result<String, String>>> {
        let text = self.text.clone();
        (path == self.path).then(|| Box::pin(async move { Ok(text) }) as _)
    }
}

#[tokio::test]
async fn an_open_files_now_is_the_editors_text_and_a_binary_file_is_only_measured() {
    let h = Harness::new(Scenario::new([
        write("a.txt", "agent\n"),
        write("b.bin", "x\n"),
        Reply::text("Done."),
    ]));
    h.write("a.txt", "before\n");
    h.turn("edit", vec![Answer::accept(), Answer::accept()])
        .await;
    // The user made b.bin binary since.
    std::fs::write(h.root().join("b.bin"), b"\0\x01\x02").unwrap();
    let editor = Editor {
        path: h.root().join("a.txt"),
        text: "agent\nunsaved line\n".into(),
    };
    let set = h
        .agent
        .turn_changes(&h.session, None, &editor)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        set.files[0].after,
        Content::Text("agent\nunsaved line\n".into())
    );
    assert_eq!(set.files[1].after, Content::Binary { bytes: 3 });
    assert_eq!(set.files[1].diff().unwrap_err(), "binary, 3 bytes");
}
