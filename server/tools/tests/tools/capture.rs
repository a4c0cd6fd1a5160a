//! A sandboxed command's writes recorded for undo. This test binary is no sandbox launcher, so
//! commands are confined in place (Landlock) and write to the workspace themselves: the snapshot
//! taken before each gives the record (the overlay is tested through the `tandem` binary, in
//! tests/e2e/capture.rs).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tandem_model::TurnId;
use tandem_tools::capture::{Applied, CaptureSettings, ChangeKind};
use tandem_tools::{ChangeSource, ChangedBy, CommandProposal, UndoLog, Walls, Workspace};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

async fn run(root: &Path, data: &Path, undo: &UndoLog, command: &str) -> Applied {
    let (outcome, applied) = run_in(root, &[], data, undo, command).await;
    assert_eq!(outcome.exit_code, Some(0), "{}", outcome.output);
    applied
}

/// Runs `command` in the walls of the workspace `root` with the additional roots `extra`, and
/// applies what it wrote.
async fn run_in(
    root: &Path,
    extra: &[PathBuf],
    data: &Path,
    undo: &UndoLog,
    command: &str,
) -> (tandem_tools::CommandOutcome, Applied) {
    let ws = Workspace::new(root)
        .unwrap()
        .with_additional_roots(extra)
        .unwrap();
    let walls = Walls {
        root: root.to_path_buf(),
        extra_roots: Vec::new(),
        protected: Vec::new(),
        mode: tandem_sandbox::SandboxMode::WorkspaceWrite,
        network: false,
        key_var: None,
        capture: Some(CaptureSettings::new(data.join("captures"))),
    }
    .of_workspace(&ws);
    let proposal = CommandProposal {
        command: command.to_string(),
        sandboxed: true,
        cwd: root.to_path_buf(),
        display_cwd: ".".into(),
        timeout: Duration::from_secs(60),
    };
    let mut outcome = tandem_tools::run_command(
        &proposal,
        &walls,
        &mut |_| {},
        tokio_util::sync::CancellationToken::new(),
    )
    .await
    .unwrap();
    let captured = outcome
        .captured
        .take()
        .expect("a sandboxed command is captured");
    let by = ChangedBy::new(ChangeSource::Command, Some("call_1"));
    let applied =
        tandem_tools::capture::apply(&captured, &ws, undo, &TurnId::from("t1".to_string()), &by);
    (outcome, applied)
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

/// An additional root is written as the root is (Landlock grants it whole) and its changes are
/// recorded from the snapshot by its absolute paths, undone like the root's; a folder beside it
/// stays out. Outside the temp dir, which is writable to every command.
#[tokio::test]
async fn a_commands_changes_in_an_additional_root_are_recorded_by_its_paths_and_undone() {
    if !tandem_sandbox::status().filesystem() {
        eprintln!("no Landlock here: nothing to confine the command in place");
        return;
    }
    let parent = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(parent).unwrap();
    let dir = tempfile::tempdir_in(parent).unwrap();
    let base = dir.path().canonicalize().unwrap();
    for d in ["ws", "extra/target", "sibling"] {
        std::fs::create_dir_all(base.join(d)).unwrap();
    }
    let (root, extra, sibling) = (base.join("ws"), base.join("extra"), base.join("sibling"));
    std::fs::write(extra.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(extra.join("gone.txt"), "bye\n").unwrap();
    let data = base.join("data");
    let undo = UndoLog::open(&data.join("undo")).unwrap();
    let e = extra.display();

    let (outcome, applied) = run_in(
        &root,
        std::slice::from_ref(&extra),
        &data,
        &undo,
        &format!(
            "sed -i s/alpha/beta/ {e}/a.txt && rm {e}/gone.txt && echo new > {e}/new.txt \
             && echo built > {e}/target/out && echo mine > mine.txt"
        ),
    )
    .await;
    assert_eq!(outcome.exit_code, Some(0), "{}", outcome.output);
    assert!(applied.problems.is_empty(), "{:?}", applied.problems);
    let kinds: Vec<(&str, &ChangeKind)> = applied
        .changes
        .iter()
        .map(|c| (c.path.as_str(), &c.kind))
        .collect();
    let (a, gone, new) = (
        format!("{e}/a.txt"),
        format!("{e}/gone.txt"),
        format!("{e}/new.txt"),
    );
    assert_eq!(
        kinds,
        [
            (a.as_str(), &ChangeKind::Modified),
            (gone.as_str(), &ChangeKind::Deleted),
            (new.as_str(), &ChangeKind::Created),
            ("mine.txt", &ChangeKind::Created),
        ],
        "its target/ is not recorded"
    );
    assert!(
        applied.summary().contains(&format!("{a} (modified +1 -1)")),
        "{}",
        applied.summary()
    );

    let ws = Workspace::new(&root)
        .unwrap()
        .with_additional_roots([&extra])
        .unwrap();
    let mut restored = undo.undo(&ws, None).unwrap();
    restored.sort();
    assert_eq!(restored, [a, gone, new, "mine.txt".to_string()]);
    assert_eq!(std::fs::read(extra.join("a.txt")).unwrap(), b"alpha\n");
    assert_eq!(std::fs::read(extra.join("gone.txt")).unwrap(), b"bye\n");
    assert!(!extra.join("new.txt").exists());
    assert!(!root.join("mine.txt").exists());
    assert_eq!(
        std::fs::read_to_string(extra.join("target/out")).unwrap(),
        "built\n"
    );

    // Beside it, nothing.
    let s = sibling.display();
    let (outcome, applied) = run_in(
        &root,
        std::slice::from_ref(&extra),
        &data,
        &undo,
        &format!("echo planted > {s}/planted.txt"),
    )
    .await;
    assert_ne!(outcome.exit_code, Some(0), "{}", outcome.output);
    assert!(!sibling.join("planted.txt").exists());
    assert!(applied.changes.is_empty(), "{:?}", applied.changes);
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
