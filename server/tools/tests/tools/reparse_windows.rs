//! Reparse points on Windows: a junction (or link) inside the workspace that leads out of it is
//! refused by the path check and by the tools, for reads, listings and writes of files that do not
//! exist yet, and nothing outside is read or written.
//!
//! Where the links come from: on Windows the test makes a junction itself (`mklink /J`, which
//! needs no privilege). Debian's Wine 8 cannot make one (`FSCTL_SET_REPARSE_POINT` answers
//! ERROR_NOT_SUPPORTED, `CreateSymbolicLinkW` is a stub that creates nothing), but it shows a
//! host symbolic link as a reparse point (FILE_ATTRIBUTE_REPARSE_POINT) that
//! `GetFinalPathNameByHandleW` resolves to its target, as Windows does a junction: so
//! tests/wine/run.sh makes the links with `ln -s` in a fixture named by `TANDEM_WINE_LINKS`.

use std::os::windows::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde_json::json;
use tandem_tools::{ErrorKind, Prepared, ReadTracker, ToolContext, Workspace};

const FILE_ATTRIBUTE_REPARSE_POINT: u32 = 0x400;

/// A workspace holding `dir-link`, a reparse point to the directory `outside` (which holds
/// `secret`), and under Wine `file-link`, a host link to `outside/secret`.
struct Fixture {
    _dir: Option<tempfile::TempDir>,
    root: PathBuf,
    outside: PathBuf,
    file_link: bool,
}

fn fixture() -> Fixture {
    if let Ok(links) = std::env::var("TANDEM_WINE_LINKS") {
        let links = PathBuf::from(links);
        return Fixture {
            _dir: None,
            root: links.join("ws"),
            outside: links.join("outside"),
            file_link: true,
        };
    }
    let dir = tempfile::tempdir().unwrap();
    let (root, outside) = (dir.path().join("ws"), dir.path().join("outside"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret"), "s\n").unwrap();
    std::fs::write(root.join("inside.txt"), "in\n").unwrap();
    let made = std::process::Command::new("cmd.exe")
        .arg("/C")
        .arg("mklink")
        .arg("/J")
        .arg(root.join("dir-link"))
        .arg(&outside)
        .output()
        .unwrap();
    assert!(
        made.status.success() && root.join("dir-link").exists(),
        "mklink /J failed ({}): under Wine, run this test through tests/wine/run.sh, which \
         makes the links with ln -s (Wine cannot make junctions)",
        String::from_utf8_lossy(&made.stdout)
    );
    Fixture {
        _dir: Some(dir),
        root,
        outside,
        file_link: false,
    }
}

#[link(name = "kernel32")]
unsafe extern "system" {
    fn GetFileAttributesW(name: *const u16) -> u32;
}

/// Whether Windows calls the path itself a reparse point (the attributes of the link, not of
/// where it leads: what the path check must see through).
fn is_reparse_point(path: &Path) -> bool {
    let wide: Vec<u16> = path.as_os_str().encode_wide().chain([0]).collect();
    // SAFETY: `wide` is a NUL-terminated UTF-16 string that outlives the call.
    let attributes = unsafe { GetFileAttributesW(wide.as_ptr()) };
    assert_ne!(attributes, u32::MAX, "{} does not exist", path.display());
    attributes & FILE_ATTRIBUTE_REPARSE_POINT != 0
}

fn call(ws: &Workspace, name: &str, args: serde_json::Value) -> Result<Prepared, ErrorKind> {
    let reads = ReadTracker::new();
    crate::support::block_on(tandem_tools::prepare(
        &ToolContext::new(ws, &reads),
        name,
        &args.to_string(),
    ))
    .map_err(|e| e.kind)
}

#[test]
fn reparse_points_that_lead_outside_are_refused() {
    let f = fixture();
    assert!(
        is_reparse_point(&f.root.join("dir-link")),
        "the fixture's dir-link is not a reparse point: the test would prove nothing"
    );
    let ws = Workspace::new(&f.root).unwrap();

    // The check itself.
    for path in ["dir-link", "dir-link/secret", "dir-link\\secret"] {
        let e = ws.resolve(path).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutsideWorkspace, "{path}: {}", e.message);
    }
    let e = ws.resolve_for_write("dir-link\\new\\deep.txt").unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutsideWorkspace, "{}", e.message);

    // Through the tools.
    let out = ErrorKind::OutsideWorkspace;
    assert_eq!(
        call(&ws, "read_file", json!({"path": "dir-link/secret"})).unwrap_err(),
        out
    );
    assert_eq!(
        call(&ws, "list_files", json!({"path": "dir-link"})).unwrap_err(),
        out
    );
    assert_eq!(
        call(
            &ws,
            "write_to_file",
            json!({"path": "dir-link/new/deep.txt", "content": "x"})
        )
        .unwrap_err(),
        out
    );
    assert_eq!(
        call(
            &ws,
            "write_to_file",
            json!({"path": "dir-link/secret", "content": "x"})
        )
        .unwrap_err(),
        out
    );
    if f.file_link {
        // Wine shows a host link to a file as a plain file (no reparse attribute) whose final
        // path is its target: refused all the same.
        assert_eq!(
            call(&ws, "read_file", json!({"path": "file-link"})).unwrap_err(),
            out
        );
        assert_eq!(
            call(
                &ws,
                "write_to_file",
                json!({"path": "file-link", "content": "x"})
            )
            .unwrap_err(),
            out
        );
    }

    // What is inside still works, and nothing outside changed.
    assert!(matches!(
        call(&ws, "read_file", json!({"path": "inside.txt"})),
        Ok(Prepared::Done(_))
    ));
    assert_eq!(
        std::fs::read_to_string(f.outside.join("secret")).unwrap(),
        "s\n"
    );
    assert!(!f.outside.join("new").exists());
}
