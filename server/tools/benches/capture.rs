//! What capturing a command's writes costs (issue 31): a command that writes nothing in a
//! 10,000-file workspace, sandboxed with the capture (overlay, or the snapshot without
//! namespaces) against sandboxed without it, and `cargo build` of a real crate (regex-syntax,
//! copied from cargo's registry; a generated small crate where it isn't there) with the capture
//! against unsandboxed. Not a test: `cargo bench -p tandem-tools --bench capture` prints medians
//! and ratios (goals: under 20 ms added to a command, under 5% on the build).
//!
//! The bench binary is its own sandbox launcher (`launch::dispatch` first), as `tandem` is.

use std::path::Path;
use std::time::{Duration, Instant};

use tandem_sandbox::SandboxMode;
use tandem_tools::capture::CaptureSettings;
use tandem_tools::{ChangeSource, ChangedBy, CommandProposal, UndoLog, Walls, Workspace};

const RUNS: usize = 15;
const BUILD_RUNS: usize = 5;

fn main() {
    tandem_sandbox::launch::dispatch();
    if !std::env::args().any(|a| a == "--bench") {
        println!("capture bench: skipped (run `cargo bench -p tandem-tools --bench capture`)");
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let base = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let base = base.path().canonicalize().unwrap();
    let ws_root = base.join("ws");
    for d in 0..100 {
        let dir = ws_root.join(format!("d{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f:03}.txt")), format!("file {d} {f}\n")).unwrap();
        }
    }
    let data = base.join("data");
    let ws = Workspace::new(&ws_root).unwrap();
    let undo = UndoLog::open(&data.join("undo")).unwrap();
    let turn = tandem_model::TurnId::from("t1".to_string());
    let support = tandem_sandbox::status();
    println!("sandbox: {}", support.describe());
    let way = tandem_tools::capture::available(&data.join("captures"));
    println!(
        "capture: {}\n",
        match &way {
            Ok(()) => "overlay".to_string(),
            Err(why) => format!("snapshot ({why})"),
        }
    );

    let walls = |root: &Path, mode: SandboxMode, capture: bool| Walls {
        root: root.to_path_buf(),
        extra_roots: Vec::new(),
        protected: Vec::new(),
        mode,
        network: false,
        key_var: None,
        capture: capture.then(|| CaptureSettings::new(data.join("captures"))),
    };
    let time = |root: &Path, command: &str, walls: &Walls| -> Duration {
        let ws = Workspace::new(root).unwrap();
        let proposal = CommandProposal {
            command: command.to_string(),
            sandboxed: walls.mode != SandboxMode::Off,
            cwd: root.to_path_buf(),
            display_cwd: ".".to_string(),
            timeout: Duration::from_secs(1200),
        };
        let started = Instant::now();
        let outcome = rt
            .block_on(tandem_tools::run_command(
                &proposal,
                walls,
                &mut |_| {},
                tokio_util::sync::CancellationToken::new(),
            ))
            .unwrap();
        assert_eq!(outcome.exit_code, Some(0), "{}", outcome.output);
        if let Some(captured) = &outcome.captured {
            let by = ChangedBy::new(ChangeSource::Command, Some("bench"));
            let applied = tandem_tools::capture::apply(captured, &ws, &undo, &turn, &by);
            assert!(applied.problems.is_empty(), "{:?}", applied.problems);
        }
        started.elapsed()
    };
    let _ = &ws;

    // A command that writes nothing.
    let plain = walls(&ws_root, SandboxMode::WorkspaceWrite, false);
    let captured = walls(&ws_root, SandboxMode::WorkspaceWrite, true);
    let off = walls(&ws_root, SandboxMode::Off, false);
    for w in [&plain, &captured, &off] {
        time(&ws_root, "true", w); // warm: the probes, the snapshot's first read
    }
    let median = |w: &Walls, root: &Path, command: &str, runs: usize| {
        let mut times: Vec<Duration> = (0..runs).map(|_| time(root, command, w)).collect();
        times.sort();
        times[runs / 2]
    };
    let t_plain = median(&plain, &ws_root, "true", RUNS);
    let t_captured = median(&captured, &ws_root, "true", RUNS);
    let t_off = median(&off, &ws_root, "true", RUNS);
    println!("a command that writes nothing, 10,000 files, median of {RUNS}:");
    println!("  unsandboxed            {:>8.1} ms", ms(t_off));
    println!("  sandboxed              {:>8.1} ms", ms(t_plain));
    println!(
        "  sandboxed with capture {:>8.1} ms  (capture adds {:.1} ms, x{:.2})",
        ms(t_captured),
        ms(t_captured) - ms(t_plain),
        ms(t_captured) / ms(t_plain)
    );

    // `cargo build` of a real crate (no dependencies), from clean each time.
    let krate = base.join("crate");
    let name = real_crate(&krate).unwrap_or_else(|| {
        make_crate(&krate);
        "a generated small crate (regex-syntax 0.8 is not in cargo's registry)".into()
    });
    let build = "rm -rf target/debug && cargo build -q --offline";
    let plain_build = walls(&krate, SandboxMode::Off, false);
    let sandboxed_build = walls(&krate, SandboxMode::WorkspaceWrite, false);
    let captured_build = walls(&krate, SandboxMode::WorkspaceWrite, true);
    time(&krate, build, &plain_build);
    time(&krate, build, &captured_build);
    let b_off = median(&plain_build, &krate, build, BUILD_RUNS);
    let b_sandboxed = median(&sandboxed_build, &krate, build, BUILD_RUNS);
    let b_captured = median(&captured_build, &krate, build, BUILD_RUNS);
    println!("\ncargo build of {name}, median of {BUILD_RUNS}:");
    println!("  unsandboxed            {:>8.1} ms", ms(b_off));
    println!(
        "  sandboxed              {:>8.1} ms  (x{:.3} of unsandboxed)",
        ms(b_sandboxed),
        ms(b_sandboxed) / ms(b_off)
    );
    println!(
        "  sandboxed with capture {:>8.1} ms  (x{:.3} of unsandboxed, {:+.1}%; x{:.3} of sandboxed)",
        ms(b_captured),
        ms(b_captured) / ms(b_off),
        (ms(b_captured) / ms(b_off) - 1.0) * 100.0,
        ms(b_captured) / ms(b_sandboxed)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A copy of regex-syntax 0.8 (a real crate without dependencies, ~50k lines) from cargo's
/// registry, where building Tandem put it, with a manifest of its own (the registry's names
/// optional dependencies an offline build can't resolve). Its name, or `None` when absent.
fn real_crate(dir: &Path) -> Option<String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let mut found: Vec<std::path::PathBuf> = std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .flatten()
        .flat_map(|index| {
            std::fs::read_dir(index.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("regex-syntax-0.8."))
        })
        .collect();
    found.sort();
    let source = found.pop()?;
    copy_tree(&source.join("src"), &dir.join("src")).ok()?;
    let unicode = ["age", "bool", "case", "gencat", "perl", "script", "segment"];
    let mut manifest = String::from(
        "[package]\nname = \"regex-syntax\"\nversion = \"0.8.0\"\nedition = \"2021\"\n\n\
         [features]\ndefault = [\"std\", \"unicode\"]\nstd = []\narbitrary = []\n",
    );
    let names: Vec<String> = unicode.iter().map(|u| format!("\"unicode-{u}\"")).collect();
    manifest.push_str(&format!("unicode = [{}]\n", names.join(", ")));
    for u in unicode {
        manifest.push_str(&format!("unicode-{u} = []\n"));
    }
    manifest.push_str("\n[workspace]\n");
    std::fs::write(dir.join("Cargo.toml"), manifest).ok()?;
    Some(format!(
        "{} (a real crate)",
        source.file_name()?.to_string_lossy()
    ))
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// A crate of a few modules and no dependencies.
fn make_crate(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"small\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    let mut main = String::new();
    for m in 0..8 {
        main.push_str(&format!("mod m{m};\n"));
        let mut body = String::new();
        for f in 0..40 {
            body.push_str(&format!(
                "pub fn f{f}(x: u64) -> u64 {{ (0..x).map(|i| i * {f} + {m}).filter(|i| i % 3 == 0).sum() }}\n"
            ));
        }
        std::fs::write(dir.join(format!("src/m{m}.rs")), body).unwrap();
    }
    main.push_str("fn main() {\n");
    for m in 0..8 {
        main.push_str(&format!("    println!(\"{{}}\", m{m}::f1(10));\n"));
    }
    main.push_str("}\n");
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
}
