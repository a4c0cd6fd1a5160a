//! Every case of `tests/fixtures/edit-cases/cases.jsonl` through the real tool path: `tools::prepare` with
//! the JSON arguments a model sends, then `tools::apply_edit`, comparing the file's bytes.

use crate::support::Env;
use serde_json::{Value, json};
use tandem_tools::Prepared;

fn cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/edit-cases/cases.jsonl"
    );
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the edit cases must be at {path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad case line {l}: {e}")))
        .collect()
}

/// Runs one case; `Err` says how it went wrong.
fn run(case: &Value) -> Result<(), String> {
    let file = case["file"].as_str().ok_or("case without file")?;
    let diff = case["diff"].as_str().ok_or("case without diff")?;
    let expect = &case["expect"];
    let env = Env::new();
    env.write("target.txt", file);
    let outcome = env
        .call(
            "replace_in_file",
            json!({"path": "target.txt", "diff": diff}),
        )
        .and_then(|prepared| match prepared {
            Prepared::Edit(p) => env.apply(&p, "turn-1").map(|_| ()),
            other => panic!("replace_in_file gave {other:?}"),
        });
    let bytes = String::from_utf8(env.read("target.txt")).map_err(|e| e.to_string())?;
    match (expect["ok"].as_bool(), outcome) {
        (Some(true), Ok(())) => {
            let want = expect["content"].as_str().ok_or("expect without content")?;
            if bytes != want {
                return Err(format!("wrote {bytes:?}, want {want:?}"));
            }
        }
        (Some(true), Err(e)) => return Err(format!("refused: {e}")),
        (Some(false), Ok(())) => return Err(format!("applied ({bytes:?}), want an error")),
        (Some(false), Err(e)) => {
            let want = expect["error"].as_str().ok_or("expect without error")?;
            if e.kind.as_str() != want {
                return Err(format!("error {e}, want kind {want}"));
            }
            if bytes != file {
                return Err(format!("the file changed to {bytes:?} despite the error"));
            }
        }
        (None, _) => return Err("expect.ok is not a boolean".into()),
    }
    Ok(())
}

#[test]
fn every_shared_edit_case_passes_through_the_real_tool() {
    let cases = cases();
    assert!(cases.len() >= 28, "only {} cases found", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            run(case)
                .err()
                .map(|why| format!("{}: {why}", case["id"].as_str().unwrap_or("?")))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
