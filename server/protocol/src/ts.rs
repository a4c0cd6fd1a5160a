//! The TypeScript types of the wire contract, generated from [`tandem_protocol`] with ts-rs.
//!
//! The VS Code extension compiles against `extension/src/protocol/generated/`. This test fails
//! when those committed files differ from what the Rust types generate, so a change to the
//! protocol cannot land without the extension seeing it. To regenerate after a deliberate change:
//! `TANDEM_UPDATE_TS=1 cargo test -p tandem-protocol protocol_ts` (or `npm run gen:protocol`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ts_rs::{Config, TS};

use crate::commands::*;
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
    one::<ForkSessionParams>(cfg);
    one::<UpdateParams>(cfg);
    one::<UndoParams>(cfg);
    one::<UndoResult>(cfg);
    one::<TurnChangesParams>(cfg);
    one::<TurnChangesResult>(cfg);
    one::<ListModelsResult>(cfg);
    one::<SetModelParams>(cfg);
    one::<SetModeParams>(cfg);
    one::<ListCommandsParams>(cfg);
    one::<ListCommandsResult>(cfg);
    one::<RunCommandParams>(cfg);
    one::<GetDiagnosticsParams>(cfg);
    one::<GetDiagnosticsResult>(cfg);
    one::<ApprovalRequest>(cfg);
    one::<ApprovalReply>(cfg);
    one::<FilesChangedParams>(cfg);
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

/// `requests.ts`: each request's params and result, by method name, so the extension's
/// `request` takes the params and gives the result of the method it names. One row per handler
/// of the `tandem lsp` face (`server/lsp`) and per request it sends the client.
fn requests_ts(cfg: &Config) -> String {
    fn pair<P: TS, R: TS>(cfg: &Config, method: &str) -> (String, String, String) {
        (method.to_string(), P::ident(cfg), R::ident(cfg))
    }
    let to_server = [
        pair::<NewSessionParams, NewSessionResult>(cfg, methods::NEW_SESSION),
        pair::<PromptParams, PromptResult>(cfg, methods::PROMPT),
        pair::<SessionParams, Empty>(cfg, methods::CANCEL),
        pair::<Empty, ListSessionsResult>(cfg, methods::LIST_SESSIONS),
        pair::<SessionParams, LoadSessionResult>(cfg, methods::LOAD_SESSION),
        pair::<ForkSessionParams, LoadSessionResult>(cfg, methods::FORK_SESSION),
        pair::<UndoParams, UndoResult>(cfg, methods::UNDO),
        pair::<TurnChangesParams, TurnChangesResult>(cfg, methods::TURN_CHANGES),
        pair::<Empty, ListModelsResult>(cfg, methods::LIST_MODELS),
        pair::<SetModelParams, Empty>(cfg, methods::SET_MODEL),
        pair::<SetModeParams, Empty>(cfg, methods::SET_MODE),
        pair::<ListCommandsParams, ListCommandsResult>(cfg, methods::LIST_COMMANDS),
        pair::<RunCommandParams, PromptResult>(cfg, methods::RUN_COMMAND),
    ];
    let to_client = [
        pair::<ApprovalRequest, ApprovalReply>(cfg, methods::REQUEST_APPROVAL),
        pair::<GetDiagnosticsParams, GetDiagnosticsResult>(cfg, methods::GET_DIAGNOSTICS),
    ];
    let types: BTreeSet<&String> = to_server
        .iter()
        .chain(&to_client)
        .flat_map(|(_, p, r)| [p, r])
        .collect();
    let mut out = String::from(
        "// Generated from server/protocol/src/ts.rs by the protocol_ts test. Do not edit.\n\n",
    );
    for t in types {
        out.push_str(&format!("import type {{ {t} }} from \"./{t}\";\n"));
    }
    for (doc, name, rows) in [
        ("The requests the client sends", "Requests", &to_server[..]),
        (
            "The requests the sidecar sends the client",
            "ClientRequests",
            &to_client[..],
        ),
    ] {
        out.push_str(&format!(
            "\n/** {doc}: params and result by method. */\nexport interface {name} {{\n"
        ));
        for (method, params, result) in rows.iter() {
            out.push_str(&format!(
                "  '{method}': {{ params: {params}; result: {result} }};\n"
            ));
        }
        out.push_str("}\n");
    }
    out.push_str(
        "\nexport type RequestMethod = keyof Requests;\nexport type ParamsOf<M extends RequestMethod> = Requests[M]['params'];\nexport type ResultOf<M extends RequestMethod> = Requests[M]['result'];\n",
    );
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
        format!(
            "{index}export {{ ErrorCode, Method }} from \"./methods\";\nexport type * from \"./requests\";\n"
        ),
    );
    generated.insert("methods.ts".into(), methods_ts());
    generated.insert("requests.ts".into(), requests_ts(&cfg));

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
