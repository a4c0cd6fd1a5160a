//! An additional root's overlay applied and reviewed, its upper dir made by hand as overlayfs
//! leaves it (files, a whiteout for a deletion), so no launcher is needed: the paths are the
//! root's absolute ones, undo puts everything back, and what the primary root refuses (a `.git`,
//! a link out of the root, a FIFO) is refused here too. The launcher's own overlays are tested
//! through the `tandem` binary (tests/e2e/roots.rs).

use std::path::{Path, PathBuf};

use tandem_model::TurnId;
use tandem_sandbox::capture::CaptureDir;

use super::{Captured, ChangeKind, How, Part, apply, held};
use crate::{ChangeSource, ChangedBy, UndoLog, Workspace};

struct Setup {
    _dir: tempfile::TempDir,
    ws: Workspace,
    extra: PathBuf,
    outside: PathBuf,
    undo: UndoLog,
    captured: Captured,
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A workspace with the additional root `extra` (`src/lib.rs`, `gone.txt`, a `.git`, `out`, a
/// link to the folder `outside`, and `to_ws`, a link to the primary root), and a command's capture whose `extra` overlay modified
/// `src/lib.rs`, created `new.txt`, deleted `gone.txt`, and tried `.git/config`, files through
/// the links (its upper dir has `out` and `to_ws` as directories of its own) and a FIFO.
fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(base.join("ws")).unwrap();
    std::fs::create_dir_all(base.join("outside")).unwrap();
    let extra = base.join("extra");
    write(&extra.join("src/lib.rs"), "old\n");
    write(&extra.join("gone.txt"), "bye\n");
    write(&extra.join(".git/config"), "[core]\n");
    std::os::unix::fs::symlink(base.join("outside"), extra.join("out")).unwrap();
    // Into another root: still out of this one, whose overlay alone caught the write.
    std::os::unix::fs::symlink(base.join("ws"), extra.join("to_ws")).unwrap();
    let ws = Workspace::new(base.join("ws"))
        .unwrap()
        .with_additional_roots([&extra])
        .unwrap();
    let undo = UndoLog::open(&base.join("undo")).unwrap();
    let started = std::time::SystemTime::now();

    let top = CaptureDir::create_in(&base.join("captures")).unwrap();
    let own = top.create_root(0).unwrap();
    let upper = own.upper();
    write(&upper.join("src/lib.rs"), "new\n");
    write(&upper.join("new.txt"), "made\n");
    write(&upper.join(".git/config"), "[core]\n\tfsmonitor = evil\n");
    write(&upper.join("out/escape.txt"), "escaped\n");
    write(&upper.join("to_ws/planted.txt"), "planted\n");
    let c_path = |p: &Path| std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: NUL-terminated paths; a whiteout (char device 0:0) is what overlayfs leaves for a
    // deletion, and any user may make one (Linux 5.8 and later).
    let made = unsafe {
        libc::mknod(
            c_path(&upper.join("gone.txt")).as_ptr(),
            libc::S_IFCHR | 0o600,
            0,
        )
    };
    assert_eq!(made, 0, "mknod: {}", std::io::Error::last_os_error());
    // SAFETY: as above.
    let fifo = unsafe { libc::mkfifo(c_path(&upper.join("pipe")).as_ptr(), 0o600) };
    assert_eq!(fifo, 0, "mkfifo: {}", std::io::Error::last_os_error());

    let captured = Captured {
        parts: vec![
            Part {
                root: ws.root().to_path_buf(),
                how: How::Overlay(top.clone()),
            },
            Part {
                root: ws.additional_roots()[0].clone(),
                how: How::Overlay(own),
            },
        ],
        dir: Some(top),
        started,
        passthrough: super::CaptureSettings::new(base.join("captures")).passthrough,
        max_paths: super::DEFAULT_MAX_PATHS,
    };
    Setup {
        extra: ws.additional_roots()[0].clone(),
        outside: base.join("outside"),
        _dir: dir,
        ws,
        undo,
        captured,
    }
}

fn shown(s: &Setup, rel: &str) -> String {
    format!("{}/{rel}", s.extra.display())
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// What the primary root refuses is refused in the additional root, each named by its path.
fn assert_refused(s: &Setup, problems: &[String]) {
    let named = |rel: &str| problems.iter().any(|p| p.starts_with(&shown(s, rel)));
    assert!(named(".git/config"), "{problems:?}");
    assert!(named("out"), "the link out: {problems:?}");
    assert!(named("to_ws"), "the link to the primary root: {problems:?}");
    assert!(!s.ws.root().join("planted.txt").exists());
    assert!(named("pipe"), "{problems:?}");
    assert_eq!(read(s.extra.join(".git/config")), "[core]\n");
    assert!(!s.outside.join("escape.txt").exists());
}

#[test]
fn an_additional_roots_overlay_is_applied_by_its_paths_and_undone() {
    let s = setup();
    let turn = TurnId::from("t1".to_string());
    let by = ChangedBy::new(ChangeSource::Command, Some("call_1"));
    let applied = apply(&s.captured, &s.ws, &s.undo, &turn, &by);
    let kinds: Vec<(String, ChangeKind)> = applied
        .changes
        .iter()
        .map(|c| (c.path.clone(), c.kind.clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (shown(&s, "gone.txt"), ChangeKind::Deleted),
            (shown(&s, "new.txt"), ChangeKind::Created),
            (shown(&s, "src/lib.rs"), ChangeKind::Modified),
        ]
    );
    assert_eq!(read(s.extra.join("src/lib.rs")), "new\n");
    assert_eq!(read(s.extra.join("new.txt")), "made\n");
    assert!(!s.extra.join("gone.txt").exists());
    assert_refused(&s, &applied.problems);
    assert_eq!(
        applied.kept.as_deref(),
        s.captured.dir(),
        "the refused writes are kept"
    );

    let mut restored = s.undo.undo(&s.ws, None).unwrap();
    restored.sort();
    assert_eq!(
        restored,
        [
            shown(&s, "gone.txt"),
            shown(&s, "new.txt"),
            shown(&s, "src/lib.rs")
        ]
    );
    assert_eq!(read(s.extra.join("src/lib.rs")), "old\n");
    assert_eq!(read(s.extra.join("gone.txt")), "bye\n");
    assert!(!s.extra.join("new.txt").exists());
}

#[test]
fn an_additional_roots_overlay_is_held_for_review_by_its_paths() {
    let s = setup();
    let held = held::hold(&s.captured, &s.ws);
    let paths: Vec<&str> = held.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            shown(&s, "gone.txt"),
            shown(&s, "new.txt"),
            shown(&s, "src/lib.rs")
        ]
    );
    assert_refused(&s, &held.applied.problems);
    assert_eq!(
        read(s.extra.join("src/lib.rs")),
        "old\n",
        "held, not written"
    );
    let turn = TurnId::from("t1".to_string());
    let by = ChangedBy::new(ChangeSource::Command, Some("call_1"));
    let lib = &held.files[2];
    let change = held
        .write(lib, None, &s.ws, &s.undo, &turn, &by)
        .expect("the accepted file is written");
    assert_eq!(change.path, shown(&s, "src/lib.rs"));
    assert_eq!(read(s.extra.join("src/lib.rs")), "new\n");
    assert!(s.extra.join("gone.txt").exists(), "not accepted, kept");
    assert_eq!(s.undo.undo(&s.ws, None).unwrap(), [shown(&s, "src/lib.rs")]);
    assert_eq!(read(s.extra.join("src/lib.rs")), "old\n");
}

/// A command's `chmod 6755` is applied (or held for review) without its setuid and setgid bits,
/// and told: as root, a binary left setuid-root in the workspace gives root to whoever runs it.
#[test]
fn set_id_bits_are_never_applied() {
    use std::os::unix::fs::PermissionsExt;
    let with_tool = || {
        let s = setup();
        let upper = match &s.captured.parts[1].how {
            How::Overlay(dir) => dir.upper(),
            _ => unreachable!(),
        };
        write(&upper.join("tool"), "#!/bin/sh\n");
        std::fs::set_permissions(upper.join("tool"), std::fs::Permissions::from_mode(0o6755))
            .unwrap();
        s
    };
    let s = with_tool();
    let held = held::hold(&s.captured, &s.ws);
    let tool = held.files.iter().find(|f| f.path == shown(&s, "tool"));
    let after = tool.and_then(|f| f.after.as_ref()).map(|(_, mode)| *mode);
    assert_eq!(after, Some(0o755), "held without them");

    let s = with_tool();
    let turn = TurnId::from("t1".to_string());
    let by = ChangedBy::new(ChangeSource::Command, Some("call_1"));
    let applied = apply(&s.captured, &s.ws, &s.undo, &turn, &by);
    let mode = std::fs::metadata(s.extra.join("tool"))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(mode, 0o755, "{:?}", applied.problems);
    assert!(
        applied
            .problems
            .iter()
            .any(|p| p.starts_with(&shown(&s, "tool")) && p.contains("setuid or setgid")),
        "{:?}",
        applied.problems
    );
}

/// A bare repository a command makes (`x.git`: `HEAD`, `objects`, `refs`, a `config` that runs a
/// program) is refused as a `.git` is, and told; so is a change inside one the root holds.
#[test]
fn a_git_directory_by_another_name_is_never_applied() {
    let s = setup();
    let upper = match &s.captured.parts[1].how {
        How::Overlay(dir) => dir.upper(),
        _ => unreachable!(),
    };
    for repo in [upper.join("x.git"), s.extra.join("kept.git")] {
        std::fs::create_dir_all(repo.join("objects")).unwrap();
        std::fs::create_dir_all(repo.join("refs")).unwrap();
        write(&repo.join("HEAD"), "ref: refs/heads/main\n");
    }
    write(
        &upper.join("x.git/config"),
        "[core]\n\tfsmonitor = ./evil\n",
    );
    write(
        &upper.join("kept.git/config"),
        "[core]\n\tfsmonitor = ./evil\n",
    );
    let turn = TurnId::from("t1".to_string());
    let by = ChangedBy::new(ChangeSource::Command, Some("call_1"));
    let applied = apply(&s.captured, &s.ws, &s.undo, &turn, &by);
    assert!(!s.extra.join("x.git").exists(), "{:?}", applied.problems);
    assert!(!s.extra.join("kept.git/config").exists());
    for path in ["x.git/config", "kept.git/config"] {
        assert!(
            applied
                .problems
                .iter()
                .any(|p| p.starts_with(&shown(&s, path)) && p.contains("git repository's")),
            "{path}: {:?}",
            applied.problems
        );
    }
}
