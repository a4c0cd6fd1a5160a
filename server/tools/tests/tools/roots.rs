//! Additional roots through the real tools: an absolute path inside any root is inside (read,
//! list, search, edit, undo); a sibling folder, `..` out of an additional root and a link from one
//! to elsewhere are refused as any outside path is.

use crate::paths::refused;
use crate::support::Env;
use serde_json::json;
use tandem_tools::ErrorKind;

/// A workspace whose primary root is `env.dir` and whose additional root is `other/extra` of a
/// second folder, beside a sibling `other/sibling` that is no root.
struct Roots {
    env: Env,
    other: tempfile::TempDir,
    extra: String,
}

fn roots() -> Roots {
    let mut env = Env::new();
    let other = tempfile::tempdir().unwrap();
    for dir in ["extra/src", "sibling"] {
        std::fs::create_dir_all(other.path().join(dir)).unwrap();
    }
    std::fs::write(other.path().join("extra/src/lib.rs"), "fn extra() {}\n").unwrap();
    std::fs::write(other.path().join("sibling/secret"), "fn secret() {}\n").unwrap();
    env.ws = env
        .ws
        .clone()
        .with_additional_roots([other.path().join("extra")])
        .unwrap();
    let extra = env.ws.additional_roots()[0].to_string_lossy().into_owned();
    Roots { env, other, extra }
}

#[test]
fn an_absolute_path_in_an_additional_root_is_read_listed_and_searched() {
    let r = roots();
    let file = format!("{}/src/lib.rs", r.extra);
    let read = r.env.done("read_file", json!({"path": file}));
    assert!(read.contains("fn extra()"), "{read}");
    let listed = r
        .env
        .done("list_files", json!({"path": r.extra, "recursive": true}));
    assert_eq!(listed, format!("{0}/src/\n{0}/src/lib.rs", r.extra));
    let found = r
        .env
        .done("search_files", json!({"regex": "fn ", "path": r.extra}));
    assert!(
        found.starts_with(&format!("{file}:1: fn extra()")),
        "{found}"
    );
    let globbed = r.env.done(
        "search_files",
        json!({"regex": "fn ", "path": r.extra, "glob": "src/*.rs"}),
    );
    assert!(globbed.contains(&file), "{globbed}");
    // The primary root is still the one relative paths and the default start name.
    r.env.write("main.rs", "fn main() {}\n");
    let here = r.env.done("search_files", json!({"regex": "fn "}));
    assert!(here.starts_with("main.rs:1:"), "{here}");
    assert!(!here.contains("extra"), "{here}");
}

#[test]
fn paths_out_of_an_additional_root_are_refused() {
    let r = roots();
    let sibling = r.other.path().join("sibling/secret");
    let sibling = sibling.to_string_lossy();
    let climbing = format!("{}/../sibling/secret", r.extra);
    for name in ["read_file", "list_files", "search_files"] {
        let arg = if name == "search_files" {
            json!({"regex": "fn", "path": sibling})
        } else {
            json!({"path": sibling})
        };
        refused(&r.env, name, arg);
    }
    let msg = refused(&r.env, "read_file", json!({"path": climbing}));
    assert!(msg.contains(&r.extra), "the message names the roots: {msg}");
    refused(
        &r.env,
        "write_to_file",
        json!({"path": climbing, "content": "x"}),
    );
    // A relative path never reaches an additional root, whatever its `..`.
    refused(&r.env, "read_file", json!({"path": "../extra/src/lib.rs"}));
    // The root itself is a directory, not a file to write.
    let err = r
        .env
        .call("write_to_file", json!({"path": r.extra, "content": "x"}))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArguments, "{err}");
    // Its `.git` is the repository's, as the primary root's is.
    std::fs::create_dir(format!("{}/.git", r.extra)).unwrap();
    std::fs::write(format!("{}/.git/config", r.extra), "[core]\n").unwrap();
    refused(
        &r.env,
        "read_file",
        json!({"path": format!("{}/.git/config", r.extra)}),
    );
}

#[cfg(unix)]
#[test]
fn a_link_from_an_additional_root_to_outside_is_refused() {
    let r = roots();
    let sibling = r.other.path().join("sibling");
    std::os::unix::fs::symlink(&sibling, format!("{}/out", r.extra)).unwrap();
    std::os::unix::fs::symlink(sibling.join("missing"), format!("{}/dangling", r.extra)).unwrap();
    let msg = refused(
        &r.env,
        "read_file",
        json!({"path": format!("{}/out/secret", r.extra)}),
    );
    assert!(msg.contains("symbolic link"), "{msg}");
    refused(
        &r.env,
        "write_to_file",
        json!({"path": format!("{}/dangling", r.extra), "content": "x"}),
    );
    refused(
        &r.env,
        "list_files",
        json!({"path": format!("{}/out", r.extra)}),
    );
    assert!(!sibling.join("missing").exists());
}

#[test]
fn an_edit_in_an_additional_root_is_proposed_applied_and_undone_by_its_absolute_path() {
    let r = roots();
    let file = format!("{}/src/lib.rs", r.extra);
    let created = format!("{}/new.txt", r.extra);
    // The same relative name in the primary root is another file, kept apart in the undo log.
    r.env.write("src/lib.rs", "primary\n");
    let edit = r.env.proposal(
        "replace_in_file",
        json!({"path": file, "diff": "------- SEARCH\nfn extra() {}\n=======\nfn extra() { 1 }\n+++++++ REPLACE\n"}),
    );
    assert_eq!(edit.display_path, file);
    assert!(
        edit.diff.unified.contains(&format!("b/{file}")),
        "{}",
        edit.diff.unified
    );
    r.env.apply(&edit, "t1").unwrap();
    r.env.edit(
        "write_to_file",
        json!({"path": created, "content": "new\n"}),
        "t1",
    );
    r.env.edit(
        "write_to_file",
        json!({"path": "src/lib.rs", "content": "changed\n"}),
        "t1",
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "fn extra() { 1 }\n"
    );
    let mut undone = r.env.undo.undo(&r.env.ws, None).unwrap();
    undone.sort();
    let mut expected = vec![file.clone(), created.clone(), "src/lib.rs".to_string()];
    expected.sort();
    assert_eq!(undone, expected);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "fn extra() {}\n");
    assert!(!std::path::Path::new(&created).exists());
    assert_eq!(r.env.read("src/lib.rs"), b"primary\n");
}

#[test]
fn an_undo_of_a_root_the_session_no_longer_has_is_refused_not_written() {
    let r = roots();
    let file = format!("{}/src/lib.rs", r.extra);
    r.env.edit(
        "write_to_file",
        json!({"path": file, "content": "changed\n"}),
        "t1",
    );
    // The same log, read by a workspace without the additional root.
    let plain = tandem_tools::Workspace::new(r.env.ws.root()).unwrap();
    let err = r.env.undo.undo(&plain, None).unwrap_err();
    assert_eq!(err.kind, ErrorKind::OutsideWorkspace, "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "changed\n");
}

#[test]
fn an_additional_root_that_is_the_primary_one_or_missing_is_handled() {
    let env = Env::new();
    let same = env
        .ws
        .clone()
        .with_additional_roots([env.ws.root().join("."), env.ws.root().to_path_buf()])
        .unwrap();
    assert!(same.additional_roots().is_empty());
    let missing = env.ws.root().join("nope");
    let err = env
        .ws
        .clone()
        .with_additional_roots([&missing])
        .unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
    env.write("file", "x");
    let err = env
        .ws
        .clone()
        .with_additional_roots([env.path("file")])
        .unwrap_err();
    assert!(err.to_string().contains("not a directory"), "{err}");
}
