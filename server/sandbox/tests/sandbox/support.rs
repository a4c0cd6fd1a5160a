//! A real workspace for the judge's tests: `ws/` with some folders, a temp dir beside it, and
//! links out of it: `out -> /etc`, `dangling -> /nowhere/at/all`, `up ->` the workspace's parent.

use tandem_sandbox::Place;

pub struct Fixture {
    _dir: tempfile::TempDir,
    pub place: Place,
}

pub fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let tmp = dir.path().join("tmp");
    for sub in [
        "server/src",
        "server/sandbox/src",
        "tests",
        "extension",
        "target/debug",
    ] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
    }
    std::fs::create_dir_all(&tmp).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
        std::os::unix::fs::symlink("/nowhere/at/all", root.join("dangling")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
    }
    let place = Place {
        cwd: root.clone(),
        workspace: root.clone(),
        writable: vec![root, tmp],
    };
    Fixture { _dir: dir, place }
}
