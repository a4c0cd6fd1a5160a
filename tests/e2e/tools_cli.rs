//! `tandem tool`, through the real binary: one JSON object on stdout, exit 0 or 1.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Runs `tandem tool NAME ARGS --root ROOT [extra...]`; the parsed stdout and the exit code.
fn tool(root: &Path, name: &str, args: &Value, extra: &[&str]) -> (Value, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .arg("tool")
        .arg(name)
        .arg(args.to_string())
        .arg("--root")
        .arg(root)
        .args(extra)
        .output()
        .unwrap();
    parse(&out)
}

fn parse(out: &std::process::Output) -> (Value, i32) {
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(stdout.lines().count(), 1, "one JSON line: {stdout:?}");
    let value: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (value, out.status.code().unwrap())
}

fn error_kind(root: &Path, name: &str, args: Value, extra: &[&str]) -> String {
    let (v, code) = tool(root, name, &args, extra);
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(code, 1, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{v}"
    );
    v["error"]["kind"].as_str().unwrap().to_string()
}

fn block(search: &str, replace: &str) -> String {
    format!("------- SEARCH\n{search}=======\n{replace}+++++++ REPLACE\n")
}

#[test]
fn read_only_tools_print_their_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\nworld\n").unwrap();
    let (v, code) = tool(dir.path(), "read_file", &json!({"path": "a.txt"}), &[]);
    assert_eq!(
        (v, code),
        (json!({"ok": true, "output": "1 | hello\n2 | world"}), 0)
    );
    let (v, _) = tool(dir.path(), "list_files", &json!({}), &[]);
    assert_eq!(v["output"], "a.txt");
    let (v, _) = tool(dir.path(), "search_files", &json!({"regex": "wor"}), &[]);
    assert_eq!(v["output"], "a.txt:2: world\n[1 match in 1 file]");
}

#[test]
fn arguments_from_stdin_and_root_from_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["tool", "read_file", "-"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"path": "a.txt"}"#)
        .unwrap();
    let (v, code) = parse(&child.wait_with_output().unwrap());
    assert_eq!((v["output"].as_str(), code), (Some("1 | x"), 0));
}

#[test]
fn edits_are_proposed_without_yes_and_applied_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "a\nb\n").unwrap();
    let args = json!({"path": "a.txt", "diff": block("b\n", "B\n")});
    let (v, code) = tool(dir.path(), "replace_in_file", &args, &[]);
    assert_eq!(code, 0);
    assert_eq!(
        v["diff"],
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    );
    assert!(
        v["output"].as_str().unwrap().contains("nothing written"),
        "{v}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a\nb\n");

    let (v, code) = tool(dir.path(), "replace_in_file", &args, &["--yes"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a\nB\n");
    assert_eq!(
        v["diff"],
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    );

    let args = json!({"path": "new/c.txt", "content": "c\n"});
    let (_, code) = tool(dir.path(), "write_to_file", &args, &[]);
    assert_eq!(code, 0);
    assert!(!dir.path().join("new").exists());
    let (v, code) = tool(dir.path(), "write_to_file", &args, &["--yes"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new/c.txt")).unwrap(),
        "c\n"
    );
}

#[test]
fn commands_are_described_without_yes_and_run_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let args = json!({"command": "touch made; echo hi; exit 2"});
    let (v, code) = tool(dir.path(), "execute_command", &args, &[]);
    assert_eq!(code, 0);
    assert!(v["output"].as_str().unwrap().contains("nothing run"), "{v}");
    assert!(!dir.path().join("made").exists());
    let (v, code) = tool(dir.path(), "execute_command", &args, &["--yes"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["output"], "hi\n[exit code 2]");
    assert_eq!(v["exitCode"], 2);
    assert!(dir.path().join("made").exists());
}

/// `--yes` runs a command as a session does: in the sandbox, with the session's policy (the
/// workspace writable, nothing else of the home, no network, no capabilities) and environment.
#[cfg(target_os = "linux")]
#[test]
fn commands_run_with_yes_are_sandboxed() {
    let dir = tempfile::tempdir().unwrap();
    // The home lies outside the temp dirs, which the sandbox leaves writable by design.
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let command = format!(
        "grep CapEff /proc/self/status; echo x > \"$HOME/probe\" || echo HOME-REFUSED; \
         python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 2); \
         print(\"CONNECTED\")' 2>/dev/null || echo NET-REFUSED; \
         echo \"key=${{OPENAI_API_KEY:-none}}\"; echo y > inside.txt"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["tool", "execute_command"])
        .arg(json!({ "command": command }).to_string())
        .arg("--root")
        .arg(dir.path())
        .arg("--yes")
        .env("HOME", home.path())
        .env("OPENAI_API_KEY", "sk-secret")
        .output()
        .unwrap();
    let (v, code) = parse(&out);
    assert_eq!(code, 0, "{v}");
    let output = v["output"].as_str().unwrap();
    assert!(
        output.contains("CapEff:\t0000000000000000"),
        "capabilities kept: {output}"
    );
    assert!(output.contains("HOME-REFUSED"), "{output}");
    assert!(!home.path().join("probe").exists(), "{output}");
    assert!(output.contains("NET-REFUSED"), "{output}");
    assert_eq!(
        listener.accept().map(|_| ()).map_err(|e| e.kind()),
        Err(std::io::ErrorKind::WouldBlock),
        "the listener got a connection: {output}"
    );
    assert!(output.contains("key=none"), "{output}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("inside.txt")).unwrap(),
        "y\n",
        "{output}"
    );
}

#[test]
fn every_error_kind_comes_out_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.txt"), "x=1\ny\nx=1\n").unwrap();
    std::fs::write(root.join("bin"), b"\0\x01").unwrap();
    std::fs::File::create(root.join("huge"))
        .unwrap()
        .set_len(11 << 20)
        .unwrap();
    let edit = |diff: String| json!({"path": "a.txt", "diff": diff});
    let cases = [
        ("read_file", json!({"path": "missing"}), "no_such_file"),
        ("read_file", json!({"path": "../x"}), "outside_workspace"),
        ("read_file", json!({"path": "bin"}), "binary_file"),
        ("read_file", json!({"path": "huge"}), "too_large"),
        ("read_file", json!({"nope": 1}), "invalid_arguments"),
        ("search_files", json!({"regex": "("}), "invalid_arguments"),
        ("frobnicate", json!({}), "unknown_tool"),
        ("replace_in_file", edit(block("zzz\n", "q\n")), "not_found"),
        (
            "replace_in_file",
            edit(block("x=1\n", "x=2\n")),
            "ambiguous",
        ),
        (
            "replace_in_file",
            edit(block("x=1\ny\n", "a\n") + &block("y\nx=1\n", "b\n")),
            "overlap",
        ),
        (
            "replace_in_file",
            edit(block("y\n", "// ... existing code ...\n")),
            "placeholder",
        ),
        ("replace_in_file", edit(block("y\n", "y\n")), "invalid"),
        ("replace_in_file", edit("no blocks".into()), "invalid"),
    ];
    for (name, args, kind) in cases {
        assert_eq!(
            error_kind(root, name, args.clone(), &["--yes"]),
            kind,
            "{name} {args}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "x=1\ny\nx=1\n"
    );
    let kind = error_kind(
        root,
        "execute_command",
        json!({"command": "sleep 30", "timeoutSeconds": 1}),
        &["--yes"],
    );
    assert_eq!(kind, "timeout");
}

#[test]
fn bad_command_lines_are_json_errors_too() {
    let out = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["tool", "read_file", "{}", "--bogus"])
        .output()
        .unwrap();
    let (v, code) = parse(&out);
    assert_eq!(
        (v["error"]["kind"].as_str(), code),
        (Some("invalid_arguments"), 1)
    );
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let (v, code) = tool(&missing, "list_files", &json!({}), &[]);
    assert_eq!(code, 1);
    assert_eq!(v["ok"], false);
}
