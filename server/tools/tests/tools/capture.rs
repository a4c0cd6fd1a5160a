//! A sandboxed command's writes recorded for undo. This test binary is no sandbox launcher, so
//! commands are confined in place (Landlock) and write to the workspace themselves: the snapshot
//! taken before each gives the record (the overlay is tested through the `tandem` binary, in
//! tests/e2e/capture.rs).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use tandem_model::TurnId;
use tandem_tools::capture::{Applied, CaptureSettings, ChangeKind};
use tandem_tools::{ChangeSource, ChangedBy, CommandProposal, UndoLog, Walls, Workspace};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

async fn run(root: &Path, data: &Path, undo: &UndoLog, command: &str) -> Applied {
    let walls = Walls {
        root: root.to_path_buf(),
        readonly: Vec::new(),
        mode: tandem_sandbox::SandboxMode::WorkspaceWrite,
        network: false,
        key_var: None,
        capture: Some(CaptureSettings::new(data.join("captures"))),
    };
    let proposal = CommandProposal {
        command: command.to_string(),
        sandboxed: true,
        cwd: root.to_path_buf(),
        display_cwd: ".".into(),
        timeout: Duration::from_secs(60),
    };
    let outcome = tandem_tools::run_command(
        &proposal,
        &walls,
        &mut |_| {},
        tokio_util::sync::CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(outcome.exit_code, Some(0), "{}", outcome.output);
    let captured = outcome.captured.expect("a sandboxed command is captured");
    let ws = Workspace::new(root).unwrap();
    let by = ChangedBy::new(ChangeSource::Command, Some("call_1"));
    tandem_tools::capture::apply(&captured, &ws, undo, &TurnId::from("t1".to_string()), &by)
}

#[tokio::test]
async fn a_commands_changes_are_recorded_and_undone_byte_for_byte() {
    if !tandem_sandbox::status().filesystem() {
        eprintln!("no Landlock here: nothing to confine the command in place");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    let root = dir.path().join("ws").canonicalize().unwrap();
    let data = dir.path().join("data");
    std::fs::write(root.join("a.txt"), "alpha\nkeep\n").unwrap();
    std::fs::write(root.join("gone.bin"), [0u8, 0xff, 1, 2]).unwrap();
    std::fs::set_permissions(
        root.join("gone.bin"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    std::fs::write(root.join("run.sh"), "#!/bin/sh\n").unwrap();
    std::fs::create_dir(root.join("target")).unwrap();
    let undo = UndoLog::open(&data.join("undo")).unwrap();

    let applied = run(
        &root,
        &data,
        &undo,
        "sed -i s/alpha/beta/ a.txt && rm gone.bin && echo new > new.txt && chmod 755 run.sh \
         && echo built > target/out",
    )
    .await;
    assert!(applied.problems.is_empty(), "{:?}", applied.problems);
    let kinds: Vec<(&str, &ChangeKind)> = applied
        .changes
        .iter()
        .map(|c| (c.path.as_str(), &c.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("a.txt", &ChangeKind::Modified),
            ("gone.bin", &ChangeKind::Deleted),
            ("new.txt", &ChangeKind::Created),
            ("run.sh", &ChangeKind::ModeChanged),
        ],
        "target/ is not recorded"
    );
    let summary = applied.summary();
    assert!(summary.contains("a.txt (modified +1 -1)"), "{summary}");

    let ws = Workspace::new(&root).unwrap();
    let mut restored = undo.undo(&ws, None).unwrap();
    restored.sort();
    assert_eq!(restored, ["a.txt", "gone.bin", "new.txt", "run.sh"]);
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"alpha\nkeep\n");
    assert_eq!(
        std::fs::read(root.join("gone.bin")).unwrap(),
        [0u8, 0xff, 1, 2]
    );
    assert_eq!(mode(&root.join("gone.bin")), 0o640);
    assert_eq!(
        mode(&root.join("run.sh")) & 0o111,
        0,
        "the mode is put back"
    );
    assert!(!root.join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("target/out")).unwrap(),
        "built\n"
    );
}

#[test]
fn a_file_made_again_after_a_command_deleted_it_makes_undo_ask() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("ws")).unwrap();
    let ws = Workspace::new(root.join("ws")).unwrap();
    let undo = UndoLog::open(&root.join("undo")).unwrap();
    let turn = TurnId::from("t1".to_string());
    let by = ChangedBy::new(ChangeSource::Command, Some("call_1"));
    undo.save_before(&turn, "a.txt", Some((b"old\n", 0o644)), &by)
        .unwrap();
    undo.record_removed(&turn, "a.txt").unwrap();
    // Still gone, as the command left it: no question.
    let plan = undo.plan(&ws, None).unwrap();
    assert_eq!(plan.conflicts().count(), 0);
    // Made again by the user: putting the old one back would lose it.
    std::fs::write(ws.root().join("a.txt"), "the user's\n").unwrap();
    let plan = undo.plan(&ws, None).unwrap();
    let conflicts: Vec<_> = plan.conflicts().collect();
    assert_eq!(conflicts.len(), 1);
    assert!(
        conflicts[0].1.lost.contains("-the user's"),
        "{}",
        conflicts[0].1.lost
    );
    // After a reopen (the record is on disk) too.
    drop(undo);
    let undo = UndoLog::open(&root.join("undo")).unwrap();
    assert_eq!(undo.plan(&ws, None).unwrap().conflicts().count(), 1);
}
