//! The read-only tools through the real API: read_file, list_files, search_files.

use crate::support::Env;
use serde_json::json;
use tandem_tools::ErrorKind;

fn error(env: &Env, name: &str, args: serde_json::Value) -> tandem_tools::ToolError {
    env.call(name, args.clone())
        .map(|p| panic!("{name} {args}: expected an error, got {p:?}"))
        .unwrap_err()
}

#[test]
fn read_file_numbers_lines_and_pages() {
    let env = Env::new();
    let text: String = (1..=5123).map(|i| format!("line {i}\r\n")).collect();
    env.write("big.txt", &text);
    let out = env.done("read_file", json!({"path": "big.txt"}));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "1 | line 1");
    assert_eq!(lines[1999], "2000 | line 2000");
    assert_eq!(
        lines[2000],
        "[showing lines 1-2000 of 5123; call read_file with offset 2001 to read on]"
    );
    assert_eq!(lines.len(), 2001);

    let out = env.done(
        "read_file",
        json!({"path": "big.txt", "offset": 5122, "limit": 10}),
    );
    assert_eq!(
        out,
        "5122 | line 5122\n5123 | line 5123\n[showing lines 5122-5123 of 5123; end of file]"
    );
    let out = env.done(
        "read_file",
        json!({"path": "big.txt", "offset": 10, "limit": 2}),
    );
    assert!(
        out.ends_with("[showing lines 10-11 of 5123; call read_file with offset 12 to read on]"),
        "{out}"
    );

    env.write("small.txt", "a\n\nb");
    assert_eq!(
        env.done("read_file", json!({"path": "small.txt"})),
        "1 | a\n2 | \n3 | b"
    );
    assert_eq!(
        error(&env, "read_file", json!({"path": "small.txt", "offset": 4})).kind,
        ErrorKind::InvalidArguments
    );
}

#[test]
fn read_file_refuses_what_is_not_text() {
    let env = Env::new();
    env.write("has-nul.bin", b"abc\0def");
    let err = error(&env, "read_file", json!({"path": "has-nul.bin"}));
    assert_eq!(err.kind, ErrorKind::BinaryFile);
    env.write("latin1.txt", b"caf\xe9\n");
    assert_eq!(
        error(&env, "read_file", json!({"path": "latin1.txt"})).kind,
        ErrorKind::BinaryFile
    );

    let big = std::fs::File::create(env.path("huge.txt")).unwrap();
    big.set_len(10 * 1024 * 1024 + 1).unwrap();
    let err = error(&env, "read_file", json!({"path": "huge.txt"}));
    assert_eq!(err.kind, ErrorKind::TooLarge);
    assert!(err.message.contains("search_files"), "{}", err.message);

    let err = error(&env, "read_file", json!({"path": "nope/missing.txt"}));
    assert_eq!(err.kind, ErrorKind::NoSuchFile);
    env.write("dir/x", "");
    assert_eq!(
        error(&env, "read_file", json!({"path": "dir"})).kind,
        ErrorKind::InvalidArguments
    );
    let err = error(&env, "read_file", json!({"file": "x"}));
    assert_eq!(err.kind, ErrorKind::InvalidArguments);
    assert!(err.message.contains("file"), "{}", err.message);
}

fn ignore_tree(env: &Env) {
    env.write(".gitignore", "target/\n*.log\n");
    env.write(".ignore", "secret.txt\n");
    env.write("src/main.rs", "fn main() {\n    println!(\"Hello\");\n}\n");
    env.write("src/lib.rs", "pub fn hello() {}\n// TODO: more\n");
    env.write("src/app.log", "hello log\n");
    env.write("target/debug/out.rs", "fn hello() {}\n");
    env.write("secret.txt", "hello secret\n");
    env.write(".hidden/conf.rs", "hello hidden\n");
    env.write(".env", "HELLO=1\n");
    env.write("docs/readme.md", "Hello docs\nhello again\n");
    env.write("image.bin", b"hello\0\x01\x02");
}

#[test]
fn list_files_honours_ignore_files_and_hidden_files_outside_git() {
    let env = Env::new();
    ignore_tree(&env);
    assert_eq!(env.done("list_files", json!({})), "docs/\nimage.bin\nsrc/");
    assert_eq!(
        env.done("list_files", json!({"recursive": true})),
        "docs/\ndocs/readme.md\nimage.bin\nsrc/\nsrc/lib.rs\nsrc/main.rs"
    );
    assert_eq!(
        env.done("list_files", json!({"path": "src"})),
        "src/lib.rs\nsrc/main.rs"
    );
    // Inside a git repository too, and .git itself never shows.
    std::fs::create_dir(env.path(".git")).unwrap();
    env.write(".git/info/exclude", "docs/\n");
    assert_eq!(
        env.done("list_files", json!({"recursive": true})),
        "image.bin\nsrc/\nsrc/lib.rs\nsrc/main.rs"
    );
}

#[test]
fn list_files_is_capped_and_says_how_many_were_left_out() {
    let env = Env::new();
    for i in 0..30 {
        env.write(&format!("f{i:02}.txt"), "");
    }
    let out = env.done("list_files", json!({"limit": 10}));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..10],
        (0..10).map(|i| format!("f{i:02}.txt")).collect::<Vec<_>>()
    );
    assert_eq!(
        lines[10],
        "[showing 10 of 30 entries; 20 more not shown. List a subdirectory, or raise limit]"
    );
    assert_eq!(env.done("list_files", json!({})).lines().count(), 30);
    let all = env.done("list_files", json!({"limit": u64::MAX}));
    assert_eq!(all.lines().count(), 30);
}

#[test]
fn search_files_finds_sorted_hits_with_smart_case() {
    let env = Env::new();
    ignore_tree(&env);
    assert_eq!(
        env.done("search_files", json!({"regex": "hello"})),
        "docs/readme.md:1: Hello docs\ndocs/readme.md:2: hello again\nsrc/lib.rs:1: pub fn hello() {}\nsrc/main.rs:2:     println!(\"Hello\");\n[4 matches in 3 files]"
    );
    // An uppercase letter makes it case-sensitive; caseSensitive overrides either way.
    assert_eq!(
        env.done("search_files", json!({"regex": "Hello"})),
        "docs/readme.md:1: Hello docs\nsrc/main.rs:2:     println!(\"Hello\");\n[2 matches in 2 files]"
    );
    assert_eq!(
        env.done(
            "search_files",
            json!({"regex": "hello", "caseSensitive": true})
        ),
        "docs/readme.md:2: hello again\nsrc/lib.rs:1: pub fn hello() {}\n[2 matches in 2 files]"
    );
    assert_eq!(
        env.done(
            "search_files",
            json!({"regex": "HELLO", "caseSensitive": false, "glob": "*.rs"})
        ),
        "src/lib.rs:1: pub fn hello() {}\nsrc/main.rs:2:     println!(\"Hello\");\n[2 matches in 2 files]"
    );
    assert_eq!(
        env.done("search_files", json!({"regex": "hello", "path": "docs"})),
        "docs/readme.md:1: Hello docs\ndocs/readme.md:2: hello again\n[2 matches in 1 file]"
    );
    let all = env.done("search_files", json!({"regex": "hello", "limit": u64::MAX}));
    assert!(all.ends_with("[4 matches in 3 files]"), "{all}");
    let none = env.done("search_files", json!({"regex": "nowhere"}));
    assert!(none.starts_with("No matches for /nowhere/"), "{none}");
}

#[test]
fn search_files_caps_results_in_path_order() {
    let env = Env::new();
    for f in 0..40 {
        let body: String = (1..=10).map(|l| format!("match {f} {l}\n")).collect();
        env.write(&format!("d{}/f{f:02}.txt", f % 3), body);
    }
    let out = env.done("search_files", json!({"regex": "match", "limit": 25}));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 26);
    assert_eq!(lines[0], "d0/f00.txt:1: match 0 1");
    assert_eq!(lines[9], "d0/f00.txt:10: match 0 10");
    assert_eq!(lines[10], "d0/f03.txt:1: match 3 1");
    assert_eq!(lines[24], "d0/f06.txt:5: match 6 5");
    assert_eq!(
        lines[25],
        "[showing 25 of 400 matches in 40 files; 375 more not shown. Narrow the search with path or glob, or raise limit]"
    );
}

#[test]
fn search_files_rejects_bad_regexes_and_globs() {
    let env = Env::new();
    env.write("a.txt", "x\n");
    let err = error(&env, "search_files", json!({"regex": "fn (main"}));
    assert_eq!(err.kind, ErrorKind::InvalidArguments);
    assert!(err.message.contains("regex"), "{}", err.message);
    let err = error(
        &env,
        "search_files",
        json!({"regex": "x", "glob": "a[.txt"}),
    );
    assert_eq!(err.kind, ErrorKind::InvalidArguments);
    let err = error(
        &env,
        "search_files",
        json!({"regex": "x", "path": "missing"}),
    );
    assert_eq!(err.kind, ErrorKind::NoSuchFile);
}

#[test]
fn unknown_tools_are_named() {
    let env = Env::new();
    let err = error(&env, "delete_file", json!({}));
    assert_eq!(err.kind, ErrorKind::UnknownTool);
    assert!(err.message.contains("replace_in_file"), "{}", err.message);
}

#[cfg(unix)]
#[test]
fn special_files_and_git_data_are_refused_without_blocking() {
    let env = Env::new();
    let fifo = env.path("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let guard = crate::support::hang_guard(
        "reading a FIFO with no writer",
        std::time::Duration::from_secs(60),
    );
    let e = error(&env, "read_file", serde_json::json!({"path": "pipe"}));
    assert!(e.message.contains("named pipe"), "{e:?}");
    // The original-text read of an edit refuses it too, rather than hang.
    let e = env
        .call(
            "write_to_file",
            serde_json::json!({"path": "pipe", "content": "x"}),
        )
        .unwrap_err();
    assert!(e.message.contains("named pipe"), "{e:?}");
    drop(guard);

    env.write(
        ".git/config",
        "[remote \"origin\"]\n\turl = https://user:token@host/x\n",
    );
    for (tool, args) in [
        ("read_file", serde_json::json!({"path": ".git/config"})),
        ("list_files", serde_json::json!({"path": ".git"})),
        (
            "search_files",
            serde_json::json!({"regex": "token", "path": ".git"}),
        ),
    ] {
        let e = error(&env, tool, args);
        assert_eq!(e.kind, ErrorKind::OutsideWorkspace, "{tool}: {e:?}");
    }
}

#[test]
fn a_file_with_one_huge_line_is_skipped_by_search_and_said() {
    let env = Env::new();
    let mut huge = vec![b'a'; 20 * 1024 * 1024];
    huge.extend_from_slice(b" needle\n");
    env.write("big.txt", &huge);
    env.write("small.txt", "a needle here\n");
    let out = match env.call("search_files", serde_json::json!({"regex": "needle"})) {
        Ok(tandem_tools::Prepared::Done(out)) => out,
        other => panic!("{other:?}"),
    };
    assert!(out.contains("small.txt:1:"), "{out}");
    assert!(
        out.contains("1 file(s) not searched: a line longer than 16 MiB"),
        "{out}"
    );
}
