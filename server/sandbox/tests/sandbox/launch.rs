//! The launcher's arguments and the decisions around it. The launcher itself needs the `tandem`
//! binary (it is that binary re-executed): `tests/e2e/walls.rs` runs every attack through it,
//! with namespaces and without.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tandem_sandbox::launch::{LaunchOptions, namespaces_wanted_by};
use tandem_sandbox::{Confinement, SandboxPolicy, command, status};

#[test]
fn options_round_trip_through_the_arguments() {
    let options = LaunchOptions {
        network: true,
        namespaces: false,
        probe: false,
        writable: vec![PathBuf::from("/home/me/my project"), PathBuf::from("/x")],
        temp: vec![PathBuf::from("/tmp")],
        readonly: vec![PathBuf::from("/home/me/other lib")],
        captures: vec![
            tandem_sandbox::launch::CaptureMount {
                root: PathBuf::from("/home/me/my project"),
                dir: PathBuf::from("/data/captures/1"),
                passthrough: vec![PathBuf::from("/home/me/my project/target")],
            },
            tandem_sandbox::launch::CaptureMount {
                root: PathBuf::from("/x"),
                dir: PathBuf::from("/data/captures/1/roots/0"),
                passthrough: vec![PathBuf::from("/x/node_modules")],
            },
        ],
    };
    let mut args = options.to_args();
    args.extend(["/bin/sh", "-c", "echo --network"].map(OsString::from));
    let (parsed, program) = LaunchOptions::parse(args).unwrap();
    assert_eq!(parsed, options);
    assert_eq!(
        program,
        ["/bin/sh", "-c", "echo --network"].map(OsString::from)
    );
    // Defaults: namespaces on, no network.
    let (parsed, _) = LaunchOptions::parse(["--", "true"].map(OsString::from).to_vec()).unwrap();
    assert!(parsed.namespaces && !parsed.network);
}

#[test]
fn bad_launcher_arguments_are_refused_with_the_reason() {
    let parse = |args: &[&str]| LaunchOptions::parse(args.iter().map(OsString::from).collect());
    assert!(
        parse(&["--writable"])
            .unwrap_err()
            .contains("--writable needs a path")
    );
    assert!(
        parse(&["--bogus", "--", "x"])
            .unwrap_err()
            .contains("--bogus")
    );
    assert!(parse(&["--network"]).unwrap_err().contains("without --"));
    assert!(parse(&["--"]).unwrap_err().contains("no program"));
    assert!(parse(&["--probe", "--"]).is_ok());
    assert!(
        parse(&["--passthrough", "/w/target", "--", "x"])
            .unwrap_err()
            .contains("after the --capture")
    );
}

#[test]
fn the_namespace_switch_turns_them_off_only_when_asked() {
    for off in ["off", "0", "false", "no", " OFF "] {
        assert!(!namespaces_wanted_by(Some(off)), "{off}");
    }
    for on in [None, Some(""), Some("on"), Some("1")] {
        assert!(namespaces_wanted_by(on), "{on:?}");
    }
}

#[test]
fn without_the_launcher_a_command_is_confined_in_place_and_says_why() {
    // This test binary never called `launch::dispatch`, as a library user of the crate would not.
    let support = status();
    let why = support.namespaces.clone().unwrap_err();
    assert!(why.contains("only `tandem` can"), "{why}");
    assert!(
        support
            .walls()
            .iter()
            .any(|w| w.name == "PID namespace" && !w.up)
    );
    let policy = SandboxPolicy::workspace_write(Path::new("/nonexistent"));
    let (cmd, confinement) = command("/bin/true".as_ref(), &[], &policy).unwrap();
    assert_eq!(cmd.get_program(), "/bin/true");
    assert!(
        matches!(confinement, Confinement::Landlock { .. }),
        "{confinement:?}"
    );
    let (_, off) = command("/bin/true".as_ref(), &[], &SandboxPolicy::off()).unwrap();
    assert_eq!(off, Confinement::Unrestricted);
}
