//! Tool performance against ripgrep on a large tree, and the edit paths on large files.
//! Not a test: `cargo bench -p tandem --bench tools` prints medians and ratios.
//!
//! The tree (100,000 files, a tenth of them in .gitignore'd `build/` directories) is generated
//! once under `target/bench-tree` and reused.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use tandem_tools::{Prepared, ReadTracker, ToolContext, UndoLog, Workspace};

const RUNS: usize = 7;
const TOP_DIRS: usize = 100;
const SUB_DIRS: usize = 10;
const FILES_PER_SUB: usize = 90;
const IGNORED_PER_TOP: usize = 100;
const TREE_VERSION: &str = ".tandem-bench-tree-v1";
const REGEX: &str = r"fn handle_[a-z]+_7\d\(";

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this too, and must not build a
    // 100,000-file tree in a debug build.
    if !std::env::args().any(|a| a == "--bench") {
        println!("tools bench: skipped (run `cargo bench -p tandem --bench tools`)");
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let tree = tree_dir();
    ensure_tree(&tree);
    let ws = Workspace::new(&tree).unwrap();
    let reads = ReadTracker::new();
    let ctx = ToolContext::new(&ws, &reads);
    let call = |name: &str, args: serde_json::Value| -> String {
        match rt.block_on(tandem_tools::prepare(&ctx, name, &args.to_string())) {
            Ok(Prepared::Done(out)) => out,
            other => panic!("{name}: {other:?}"),
        }
    };
    let rg = Path::new("/usr/bin/rg");

    println!(
        "tree: {} (100,000 files, 10,000 of them ignored)\n",
        tree.display()
    );
    if !rg.exists() {
        println!("/usr/bin/rg is absent: no ripgrep comparison (apt-get install ripgrep)\n");
    }
    // list_files, uncapped, against `rg --files`.
    let (mut listed, mut files) = (0, 0);
    let (ours, theirs) = compare(
        || {
            listed = call(
                "list_files",
                json!({"recursive": true, "limit": 100_000_000}),
            )
            .lines()
            .count()
        },
        rg.exists()
            .then_some(|| files = run_rg(&tree, &["--files"])),
    );
    report(
        "list_files recursive",
        ours,
        &format!("{listed} entries (files and directories)"),
    );
    if let Some(theirs) = theirs {
        report("rg --files", theirs, &format!("{files} files"));
        println!("  ratio {:.2}x (goal <= 1.3x)\n", ratio(ours, theirs));
    }

    // search_files, uncapped, against `rg -n` with the same (case-sensitive) regex.
    let (mut found, mut lines) = (String::new(), 0);
    let (ours, theirs) = compare(
        || {
            found = call(
                "search_files",
                json!({"regex": REGEX, "caseSensitive": true, "limit": 100_000_000}),
            )
        },
        rg.exists()
            .then_some(|| lines = run_rg(&tree, &["-n", "--no-heading", "--", REGEX])),
    );
    report(
        &format!("search_files /{REGEX}/"),
        ours,
        found.lines().last().unwrap_or(""),
    );
    if let Some(theirs) = theirs {
        report("rg -n", theirs, &format!("{lines} matching lines"));
        println!("  ratio {:.2}x (goal <= 1.3x)\n", ratio(ours, theirs));
    }

    bench_replace(&rt);
    bench_diff();
}

/// replace_in_file on a 50,000-line file: the proposal (parse, locate, splice, diff) and the
/// proposal plus the atomic write (with the undo log's copy and fsyncs).
fn bench_replace(rt: &tokio::runtime::Runtime) {
    let dir = tempfile::tempdir().unwrap();
    let undo_dir = tempfile::tempdir().unwrap();
    let undo = UndoLog::open(undo_dir.path()).unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    let text: String = (0..50_000)
        .map(|i| format!("    let value_{i} = compute({i}, \"item {}\");\n", i % 97))
        .collect();
    let path = dir.path().join("big.rs");
    for (label, search) in [
        (
            "exact, line 25,000",
            "    let value_25000 = compute(25000, \"item 71\");\n",
        ),
        // Indentation lost: every tier up to 4 scans the whole file.
        (
            "re-indented, line 49,990",
            "let value_49990 = compute(49990, \"item 35\");\n",
        ),
    ] {
        let diff =
            format!("------- SEARCH\n{search}=======\n    let changed = 1;\n+++++++ REPLACE\n");
        let args = json!({"path": "big.rs", "diff": diff}).to_string();
        // A fresh tracker each time: the file is put back behind the tools' back between runs.
        let reads = ReadTracker::new();
        let ctx = ToolContext::new(&ws, &reads);
        let prepare = |ctx: &ToolContext<'_>| match rt.block_on(tandem_tools::prepare(
            ctx,
            "replace_in_file",
            &args,
        )) {
            Ok(Prepared::Edit(p)) => p,
            other => panic!("replace_in_file: {other:?}"),
        };
        std::fs::write(&path, &text).unwrap();
        let proposed = median(|| {
            prepare(&ctx);
        });
        report(
            &format!("replace_in_file 50k lines, {label}: proposal"),
            proposed,
            "goal < 20 ms",
        );
        let mut turn = 0;
        let applied = median(|| {
            std::fs::write(&path, &text).unwrap();
            turn += 1;
            let reads = ReadTracker::new();
            let ctx = ToolContext::new(&ws, &reads);
            let p = prepare(&ctx);
            tandem_tools::apply_edit(
                &ctx,
                &p,
                &p.proposed,
                &undo,
                &tandem_model::TurnId::numbered(turn),
            )
            .unwrap();
        });
        report(
            "  proposal + atomic write + undo save (fsyncs)",
            applied,
            "",
        );
    }
    println!();
}

/// A unified diff of a 10,000-line file with 100 scattered one-line changes.
fn bench_diff() {
    let old: String = (0..10_000)
        .map(|i| format!("line {i} of the original text\n"))
        .collect();
    let new: String = (0..10_000)
        .map(|i| {
            if i % 100 == 37 {
                format!("line {i} CHANGED\n")
            } else {
                format!("line {i} of the original text\n")
            }
        })
        .collect();
    let mut hunks = 0;
    let t = median(|| {
        hunks = tandem_tools::unified_diff("f.txt", Some(&old), &new)
            .matches("\n@@ ")
            .count();
    });
    report(
        "unified diff 10k lines, 100 changes",
        t,
        &format!("{hunks} hunks; goal < 10 ms"),
    );
}

/// Medians of `ours` and `theirs`, run alternately so that a change in the machine's load
/// weighs on both alike.
fn compare(
    mut ours: impl FnMut(),
    mut theirs: Option<impl FnMut()>,
) -> (Duration, Option<Duration>) {
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed()
    };
    ours(); // warm-up: caches, page cache
    if let Some(t) = theirs.as_mut() {
        t();
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        a.push(time(&mut ours));
        if let Some(t) = theirs.as_mut() {
            b.push(time(t));
        }
    }
    let mid = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    (mid(a), (!b.is_empty()).then(|| mid(b)))
}

fn median(mut f: impl FnMut()) -> Duration {
    f(); // warm-up: caches, page cache
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn ratio(ours: Duration, theirs: Duration) -> f64 {
    ours.as_secs_f64() / theirs.as_secs_f64()
}

fn report(what: &str, t: Duration, note: &str) {
    println!("{what:<62} {:>9.2} ms  {note}", t.as_secs_f64() * 1e3);
}

/// Runs rg in `dir`, returns how many lines it printed.
fn run_rg(dir: &Path, args: &[&str]) -> usize {
    let out = Command::new("/usr/bin/rg")
        .args(["--no-config", "--color", "never"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    out.stdout.iter().filter(|&&b| b == b'\n').count()
}

fn tree_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            // target/release/deps/tools-HASH
            let exe = std::env::current_exe().unwrap();
            exe.ancestors().nth(3).unwrap().to_path_buf()
        });
    target.join("bench-tree")
}

/// Generates the tree unless a complete one is there: deterministic content, ~20 lines a file.
fn ensure_tree(root: &Path) {
    if root.join(TREE_VERSION).exists() {
        return;
    }
    eprintln!("generating the bench tree in {} ...", root.display());
    let _ = std::fs::remove_dir_all(root);
    // A `.git` directory, so that ripgrep honours .gitignore as the tools do anyway.
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n*.tmp\n").unwrap();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    const WORDS: [&str; 16] = [
        "alpha", "beta", "gamma", "delta", "request", "response", "parse", "render", "cache",
        "index", "token", "stream", "buffer", "config", "session", "queue",
    ];
    let mut file = |path: &Path| {
        let mut body = String::new();
        for _ in 0..(12 + next() % 16) {
            let r = next();
            let word = WORDS[(r % 16) as usize];
            let n = (r >> 8) % 100;
            match (r >> 16) % 4 {
                0 => body.push_str(&format!(
                    "fn handle_{word}_{n}(x: u32) -> u32 {{ x + {n} }}\n"
                )),
                1 => body.push_str(&format!("// {word} {n}: keeps the {word} in step\n")),
                2 => body.push_str(&format!("let {word}_{n} = {word}::new({n});\n")),
                _ => body.push_str(&format!(
                    "    {word}.push({n}); // {}\n",
                    WORDS[(n % 16) as usize]
                )),
            }
        }
        std::fs::write(path, body).unwrap();
    };
    for top in 0..TOP_DIRS {
        let top_dir = root.join(format!("pkg_{top:03}"));
        for sub in 0..SUB_DIRS {
            let dir = top_dir.join(format!("mod_{sub}"));
            std::fs::create_dir_all(&dir).unwrap();
            for f in 0..FILES_PER_SUB {
                file(&dir.join(format!("file_{f:02}.rs")));
            }
        }
        let build = top_dir.join("build");
        std::fs::create_dir_all(&build).unwrap();
        for f in 0..IGNORED_PER_TOP {
            file(&build.join(format!("gen_{f:03}.rs")));
        }
    }
    std::fs::write(root.join(TREE_VERSION), "").unwrap();
}
