//! The command corpus (`tests/fixtures/command-corpus.jsonl`, sources in `command-corpus.md`):
//! every line judged under the default rules (the read-only list, the sandbox up) and under
//! `allow = ["cargo test", "npm run"]`, in a real temporary workspace with links out of it.
//! Fails on any line admitted that should ask; prints the share of everyday lines that run
//! unasked before (the one-plain-command allow-list) and after (the judge), and fails if that
//! share falls under 80%.

use tandem_sandbox::{AllowList, Dialect, Judgement, Rules, judge};

#[derive(serde::Deserialize)]
struct Row {
    cmd: String,
    default: String,
    rules: String,
    cls: String,
    src: String,
}

const RULES: [&str; 2] = ["cargo test", "npm run"];

fn rows() -> Vec<Row> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/command-corpus.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("the corpus");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

#[test]
fn corpus_no_line_that_should_ask_runs_and_everyday_lines_mostly_run() {
    let fixture = crate::support::fixture();
    let place = &fixture.place;
    let default = Rules {
        read_only: true,
        ..Rules::default()
    };
    let with_rules = Rules {
        allow: AllowList::new(RULES),
        read_only: true,
        ..Rules::default()
    };
    let old_default = AllowList::new(Vec::<&str>::new());
    let old_rules = AllowList::new(RULES);

    let rows = rows();
    assert!(rows.len() >= 300, "the corpus has {} lines", rows.len());
    let mut wrongly_admitted = Vec::new();
    let mut everyday_asked = Vec::new();
    let (mut everyday, mut before, mut after) = (0, 0, 0);
    for row in &rows {
        assert!(!row.src.is_empty(), "{}: no source", row.cmd);
        for (set, expected, rules, old) in [
            ("default", &row.default, &default, &old_default),
            ("rules", &row.rules, &with_rules, &old_rules),
        ] {
            let got = judge(&row.cmd, rules, place, Dialect::Posix);
            if expected == "ask" && got.is_allowed() {
                wrongly_admitted.push(format!("[{set}] {:?}: {got:?}", row.cmd));
            }
            // The everyday share: read-only lines under the defaults, the rest under the rules.
            let counts = match row.cls.as_str() {
                "everyday-simple" | "everyday-compound" => set == "default",
                "everyday-rules" => set == "rules",
                _ => false,
            };
            if counts {
                everyday += 1;
                before += usize::from(old.allows(&row.cmd));
                if got.is_allowed() {
                    after += 1;
                } else {
                    everyday_asked.push(format!("[{set}] {:?}: {got:?}", row.cmd));
                }
            }
            if let Judgement::Ask(q) = &got {
                assert!(!q.to_string().is_empty());
            }
        }
    }
    let dangerous = rows.iter().filter(|r| r.cls == "dangerous").count();
    println!(
        "corpus: {} lines ({dangerous} dangerous); everyday lines run unasked: before {before}/{everyday} ({:.0}%), after {after}/{everyday} ({:.0}%); dangerous lines admitted: {}",
        rows.len(),
        100.0 * before as f64 / everyday as f64,
        100.0 * after as f64 / everyday as f64,
        wrongly_admitted.len()
    );
    for line in &everyday_asked {
        println!("everyday line asked: {line}");
    }
    assert!(
        wrongly_admitted.is_empty(),
        "admitted, should ask:\n{}",
        wrongly_admitted.join("\n")
    );
    assert!(
        after * 10 >= everyday * 8,
        "only {after} of {everyday} everyday lines run unasked"
    );
}
