//! Path scoping through the real tools: every form that leads outside the workspace is refused
//! with `outside_workspace` before any I/O, and nothing is ever written inside `.git/`.

use crate::support::Env;
use serde_json::json;
use tandem_tools::ErrorKind;

/// The call's `outside_workspace` message; fails the test when it was accepted or failed otherwise.
pub(crate) fn refused(env: &Env, name: &str, args: serde_json::Value) -> String {
    match env.call(name, args.clone()) {
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::OutsideWorkspace, "{name} {args}: {e}");
            e.message
        }
        Ok(p) => panic!("{name} {args}: accepted ({p:?})"),
    }
}

#[test]
fn every_foreign_path_form_is_refused_by_every_tool() {
    let env = Env::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "s").unwrap();
    let abs_outside = outside.path().join("secret").to_string_lossy().into_owned();
    let forms = [
        "../secret",
        "sub/../../secret",
        abs_outside.as_str(),
        "/etc/passwd",
        "~",
        "~/notes.txt",
        "a\0b",
        "C:\\Windows\\win.ini",
        "C:",
        "d:relative",
        "\\\\server\\share\\x",
        "//server/share/x",
    ];
    for form in forms {
        let msg = refused(&env, "read_file", json!({"path": form}));
        assert!(msg.contains("outside the workspace"), "{msg}");
        refused(&env, "write_to_file", json!({"path": form, "content": "x"}));
        refused(
            &env,
            "replace_in_file",
            json!({"path": form, "diff": "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n"}),
        );
        refused(&env, "list_files", json!({"path": form}));
        refused(&env, "search_files", json!({"regex": "x", "path": form}));
        refused(
            &env,
            "execute_command",
            json!({"command": "true", "cwd": form}),
        );
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret")).unwrap(),
        "s"
    );
    assert!(
        env.files().is_empty(),
        "nothing was created: {:?}",
        env.files()
    );
}

#[test]
fn absolute_paths_inside_the_root_are_fine() {
    let env = Env::new();
    env.write("src/a.txt", "hello\n");
    let abs = env.path("src/a.txt").to_string_lossy().into_owned();
    assert_eq!(env.done("read_file", json!({"path": abs})), "1 | hello");
    let p = env.proposal(
        "write_to_file",
        json!({"path": env.path("src/new.txt"), "content": "n\n"}),
    );
    assert_eq!(p.display_path, "src/new.txt");
    assert_eq!(
        env.done("read_file", json!({"path": "src/./../src/a.txt"})),
        "1 | hello"
    );
}

#[cfg(unix)]
#[test]
fn symlinks_that_lead_outside_are_refused() {
    let env = Env::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "s\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), env.path("file-link")).unwrap();
    std::os::unix::fs::symlink(outside.path(), env.path("dir-link")).unwrap();

    let msg = refused(&env, "read_file", json!({"path": "file-link"}));
    assert!(msg.contains("symbolic link"), "{msg}");
    refused(&env, "read_file", json!({"path": "dir-link/secret"}));
    refused(
        &env,
        "write_to_file",
        json!({"path": "file-link", "content": "x"}),
    );
    // A file that does not exist yet, under a link that leads out.
    refused(
        &env,
        "write_to_file",
        json!({"path": "dir-link/new/deep.txt", "content": "x"}),
    );
    refused(&env, "list_files", json!({"path": "dir-link"}));
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret")).unwrap(),
        "s\n"
    );
    assert!(!outside.path().join("new").exists());
}

#[cfg(unix)]
#[test]
fn symlinks_inside_the_workspace_are_followed_to_the_real_file() {
    let env = Env::new();
    env.write("real.txt", "a\n");
    std::os::unix::fs::symlink(env.path("real.txt"), env.path("alias.txt")).unwrap();
    env.edit(
        "write_to_file",
        json!({"path": "alias.txt", "content": "b\n"}),
        "t1",
    );
    assert_eq!(env.read("real.txt"), b"b\n");
    assert!(
        std::fs::symlink_metadata(env.path("alias.txt"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
}

#[test]
fn nothing_is_written_or_read_inside_git() {
    let env = Env::new();
    env.write(".git/config", "[core]\n");
    env.write("sub/.git/HEAD", "ref\n");
    for path in [
        ".git/config",
        ".git/hooks/pre-commit",
        "sub/.git/HEAD",
        "./.git/x",
    ] {
        let msg = refused(&env, "write_to_file", json!({"path": path, "content": "x"}));
        assert!(msg.contains(".git"), "{msg}");
    }
    refused(
        &env,
        "replace_in_file",
        json!({"path": ".git/config", "diff": "------- SEARCH\n[core]\n=======\n[x]\n+++++++ REPLACE\n"}),
    );
    assert_eq!(env.read(".git/config"), b"[core]\n");
    assert!(!env.exists(".git/hooks/pre-commit"));
    // Nor read: a repository's config may hold credentials.
    let msg = refused(&env, "read_file", json!({"path": ".git/config"}));
    assert!(msg.contains(".git"), "{msg}");
}

#[test]
fn an_edit_proposal_rechecks_the_path_when_applied() {
    let env = Env::new();
    let mut p = env.proposal("write_to_file", json!({"path": "a.txt", "content": "x"}));
    p.path = env.path(".git/config");
    let err = env.apply(&p, "t").unwrap_err();
    assert_eq!(err.kind, ErrorKind::OutsideWorkspace);
    assert!(!env.exists(".git/config"));
}
