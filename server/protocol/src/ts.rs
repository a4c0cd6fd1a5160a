//! The TypeScript types of the wire contract, generated from [`tandem_protocol`] with ts-rs.
//!
//! The VS Code extension compiles against `extension/src/protocol/generated/`. This test fails
//! when those committed files differ from what the Rust types generate, so a change to the
//! protocol cannot land without the extension seeing it. To regenerate after a deliberate change:
//! `TANDEM_UPDATE_TS=1 cargo test -p tandem-protocol protocol_ts` (or `npm run gen:protocol`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ts_rs::{Config, TS};

use crate::methods;
use crate::types::*;

/// Where the generated files live, relative to the crate.
const GENERATED_DIR: &str = "../../extension/src/protocol/generated";

/// Every type the extension sends or receives; their dependencies come along.
fn export_all(cfg: &Config) {
    fn one<T: TS + 'static>(cfg: &Config) {
        T::export_all(cfg).unwrap_or_else(|e| panic!("exporting {}: {e}", T::ident(cfg)));
    }
    one::<InitializationOptions>(cfg);
    one::<ClientCapabilities>(cfg);
    one::<NewSessionParams>(cfg);
    one::<NewSessionResult>(cfg);
    one::<PromptParams>(cfg);
    one::<PromptImage>(cfg);
    one::<PromptResult>(cfg);
    one::<SessionParams>(cfg);
    one::<Empty>(cfg);
    one::<ListSessionsResult>(cfg);
    one::<LoadSessionResult>(cfg);
    one::<UpdateParams>(cfg);
    one::<UndoParams>(cfg);
    one::<UndoResult>(cfg);
    one::<ListModelsResult>(cfg);
    one::<SetModelParams>(cfg);
    one::<SetModeParams>(cfg);
    one::<GetDiagnosticsParams>(cfg);
    one::<GetDiagnosticsResult>(cfg);
    one::<ApprovalRequest>(cfg);
    one::<ApprovalReply>(cfg);
}

/// `methods.ts`: the method names and error codes as TypeScript constants.
fn methods_ts() -> String {
    let mut out = String::from(
        "// Generated from server/protocol/src/methods.rs by the protocol_ts test. Do not edit.\n\n",
    );
    out.push_str("export const Method = {\n");
    for (key, name) in methods::ALL {
        out.push_str(&format!("  {key}: '{name}',\n"));
    }
    out.push_str("} as const;\n\nexport const ErrorCode = {\n");
    for (key, code) in methods::error_code::ALL {
        out.push_str(&format!("  {key}: {code},\n"));
    }
    out.push_str("} as const;\n");
    out
}

/// The `.ts` files under `dir`, by file name.
fn read_dir(dir: &Path) -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ts"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn protocol_ts_matches_the_rust_types() {
    let fresh = tempfile::tempdir().unwrap();
    // JSON numbers: token counts fit a JS number, and the extension never sees a bigint.
    let cfg = Config::new()
        .with_out_dir(fresh.path())
        .with_large_int("number");
    export_all(&cfg);
    let mut generated = read_dir(fresh.path());
    assert!(generated.contains_key("UpdateParams.ts"), "{generated:?}");
    let index: String = generated
        .keys()
        .map(|name| {
            format!(
                "export type * from \"./{}\";\n",
                name.trim_end_matches(".ts")
            )
        })
        .collect();
    generated.insert(
        "index.ts".into(),
        format!("{index}export {{ ErrorCode, Method }} from \"./methods\";\n"),
    );
    generated.insert("methods.ts".into(), methods_ts());

    let committed_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(GENERATED_DIR);
    if std::env::var_os("TANDEM_UPDATE_TS").is_some() {
        if committed_dir.exists() {
            for name in read_dir(&committed_dir).keys() {
                std::fs::remove_file(committed_dir.join(name)).unwrap();
            }
        }
        std::fs::create_dir_all(&committed_dir).unwrap();
        for (name, text) in &generated {
            std::fs::write(committed_dir.join(name), text).unwrap();
        }
        return;
    }
    let committed = read_dir(&committed_dir);
    let stale: BTreeSet<&String> = generated
        .keys()
        .chain(committed.keys())
        .filter(|name| generated.get(*name) != committed.get(*name))
        .collect();
    assert!(
        stale.is_empty(),
        "extension/src/protocol/generated/ is out of date with the Rust protocol types \
         ({stale:?} differ). Regenerate with `TANDEM_UPDATE_TS=1 cargo test -p tandem-protocol protocol_ts` \
         and commit the result."
    );
}
