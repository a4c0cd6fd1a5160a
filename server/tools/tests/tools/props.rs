//! Property tests on untrusted input: the model writes the paths and the SEARCH/REPLACE diffs.
//! Arbitrary ones never panic, a path never resolves outside the workspace, and a well-formed
//! edit does exactly what its block says.
// Unix symlinks; the path rules' Windows cases are in paths.rs.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::support::Env;
use proptest::prelude::*;
use serde_json::json;
use tandem_tools::{Prepared, Workspace};

/// A workspace with files, links that stay inside, links that lead out (live and dangling), a
/// link loop; and a directory beside it, outside.
struct Fixture {
    _dir: tempfile::TempDir,
    ws: Workspace,
    outside: PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (root, outside) = (base.join("ws"), base.join("outside"));
        std::fs::create_dir_all(root.join("sub/deep")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::write(root.join("sub/b.txt"), "b").unwrap();
        std::fs::write(outside.join("secret"), "s").unwrap();
        symlink("sub", root.join("link_in")).unwrap();
        symlink("..", root.join("sub/up")).unwrap();
        symlink("../outside", root.join("link_out")).unwrap();
        symlink(&outside, root.join("abs_link_out")).unwrap();
        symlink("../../outside/secret", root.join("sub/secret_link")).unwrap();
        symlink("../outside/missing", root.join("dangling_out")).unwrap();
        symlink("loop", root.join("loop")).unwrap();
        let ws = Workspace::new(&root).unwrap();
        Fixture {
            _dir: dir,
            ws,
            outside,
        }
    })
}

/// Paths a model might write, from pieces that reach every branch of the resolver.
fn path() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        Just("..".to_string()),
        Just(".".to_string()),
        Just(String::new()),
        Just("a.txt".to_string()),
        Just("sub".to_string()),
        Just("deep".to_string()),
        Just("b.txt".to_string()),
        Just("link_in".to_string()),
        Just("up".to_string()),
        Just("link_out".to_string()),
        Just("abs_link_out".to_string()),
        Just("secret_link".to_string()),
        Just("secret".to_string()),
        Just("loop".to_string()),
        Just("missing".to_string()),
        Just("~".to_string()),
        Just("C:".to_string()),
        Just("\\".to_string()),
        Just("\0".to_string()),
        Just(" ".to_string()),
        "\\PC{0,6}",
    ];
    let prefix = prop_oneof![
        Just(String::new()),
        Just("/".to_string()),
        Just("//".to_string()),
        Just(format!("{}/", fixture().ws.root().display())),
        Just(format!("{}/", fixture().outside.display())),
    ];
    prop_oneof![
        (prefix, prop::collection::vec(segment, 0..8)).prop_map(|(p, s)| p + &s.join("/")),
        ".{0,30}",
    ]
}

/// Found by the property below with `dangling_out` among its pieces: a link whose target does not
/// exist was taken as a missing file inside the workspace, though it leads out.
#[test]
fn a_dangling_link_out_is_refused() {
    let fx = fixture();
    for given in ["dangling_out", "sub/up/dangling_out", "./dangling_out"] {
        let resolved = fx.ws.resolve(given);
        assert!(resolved.is_err(), "resolve({given:?}) = {resolved:?}");
    }
}

/// Where a path really leads: its deepest existing part, links followed, with the rest as
/// written. A dangling link counts as leading where its target would be.
fn really(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut tail = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return tail.iter().rev().fold(real, |p, name| p.join(name));
        }
        if let Ok(target) = std::fs::read_link(&existing) {
            // A dangling link: follow it by hand.
            let parent = existing.parent().unwrap_or(Path::new("/"));
            let next = parent.join(target);
            return tail
                .iter()
                .rev()
                .fold(really(&next), |p, name| p.join(name));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(name.to_owned());
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn a_path_never_resolves_outside_the_workspace(given in path()) {
        let fx = fixture();
        let root = fx.ws.root();
        for (which, resolved) in [
            ("resolve", fx.ws.resolve(&given)),
            ("resolve_for_write", fx.ws.resolve_for_write(&given)),
        ] {
            if let Ok(resolved) = resolved {
                prop_assert!(resolved.starts_with(root), "{which}({given:?}) = {}", resolved.display());
                let real = really(&resolved);
                prop_assert!(
                    real.starts_with(root),
                    "{which}({given:?}) = {} leads to {}",
                    resolved.display(),
                    real.display()
                );
            }
        }
    }

    /// Any diff text: an error or a proposal, never a panic, and nothing written before apply.
    #[test]
    fn any_diff_is_refused_or_proposed(
        lines in prop::collection::vec(prop_oneof![
            Just("------- SEARCH"),
            Just("<<<<<<< SEARCH>"),
            Just("======="),
            Just("+++++++ REPLACE"),
            Just(">>>>>>> REPLACE"),
            Just("alpha"),
            Just("  beta"),
            Just("\tgamma"),
            Just(""),
            Just("```"),
            Just("😊"),
        ].prop_map(str::to_string).boxed().prop_union(".{0,12}".boxed()), 0..24),
        crlf in any::<bool>(),
    ) {
        let env = Env::new();
        let file = "alpha\n  beta\n\tgamma\nalpha\n";
        env.write("f.txt", file);
        let diff = lines.join(if crlf { "\r\n" } else { "\n" });
        match env.call("replace_in_file", json!({"path": "f.txt", "diff": diff})) {
            Ok(Prepared::Edit(p)) => prop_assert_eq!(p.original.as_deref(), Some(file)),
            Ok(other) => prop_assert!(false, "replace_in_file gave {other:?}"),
            Err(e) => prop_assert!(!e.message.is_empty()),
        }
        prop_assert_eq!(env.read("f.txt"), file.as_bytes());
    }

    /// A block that finds one line replaces just that line with the REPLACE lines.
    #[test]
    fn a_block_replaces_what_it_finds(
        replace in prop::collection::vec("[a-z][a-z ]{0,10}", 1..5),
        legacy in any::<bool>(),
    ) {
        let env = Env::new();
        env.write("f.txt", "one\ntwo\nthree\n");
        let (open, close) = if legacy {
            ("<<<<<<< SEARCH", ">>>>>>> REPLACE")
        } else {
            ("------- SEARCH", "+++++++ REPLACE")
        };
        let diff = format!("{open}\ntwo\n=======\n{}\n{close}\n", replace.join("\n"));
        let proposal = match env.call("replace_in_file", json!({"path": "f.txt", "diff": diff})) {
            Ok(Prepared::Edit(p)) => p,
            other => return Err(TestCaseError::fail(format!("{other:?}"))),
        };
        prop_assert_eq!(proposal.proposed, format!("one\n{}\nthree\n", replace.join("\n")));
    }
}
