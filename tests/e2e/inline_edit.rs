//! "Edit selection…" over plain LSP: the code action is offered on a selection; run without an
//! instruction it asks for one of the common ones (LSP has no text input), with one it doesn't;
//! either way the selection goes as context, the model's edit comes back and is written.

use std::time::{Duration, Instant};

use crate::editor::uri;
use crate::support::*;

const ORIGINAL: &str =
    "fn main() {\n    let x = 1;\n    let y = x + 0;\n    println!(\"{y}\");\n}\n";
const EDIT: &str = "------- SEARCH\n    let y = x + 0;\n=======\n    let y = x;\n+++++++ REPLACE";

async fn plain_client(env: &Env, mock: &MockServer) -> Sidecar {
    let tandem = Sidecar::spawn(env);
    let options = Options {
        approval: json!({"autoApprove": {"edit": true}}),
        ..Options::default()
    };
    let mut params = initialize_params(env, mock, options);
    params["capabilities"] = json!({"workspace": {"applyEdit": true}});
    let init = tandem.request("initialize", params).await.unwrap();
    let commands = init["capabilities"]["executeCommandProvider"]["commands"].clone();
    assert!(
        commands
            .as_array()
            .unwrap()
            .contains(&json!("tandem.editSelection")),
        "{commands}"
    );
    tandem.rpc.notify("initialized", json!({})).await;
    tandem
}

/// The model's scripted edit, answered only when the request holds the instruction and the
/// selected lines.
fn scenario(instruction: &str) -> Scenario {
    Scenario::new([
        Reply::tool(
            "replace_in_file",
            json!({"path": "src/main.rs", "diff": EDIT}),
        )
        .expect_messages_contain(format!("Edit the attached selection: {instruction}"))
        .expect_messages_contain(
            "main.rs\" lines=\"2-3\">\n    let x = 1;\n    let y = x + 0;\n</context>",
        ),
        Reply::text("Dropped the `+ 0`."),
    ])
}

fn selection(env: &Env) -> Value {
    json!({"uri": uri(env, "src/main.rs"),
           "range": {"start": {"line": 1, "character": 0}, "end": {"line": 3, "character": 0}}})
}

/// Waits (bounded) for the edit the editor is asked to apply (a plain client's buffers are the
/// editor's to write); returns its text edits' new texts.
async fn applied_edit(tandem: &Sidecar) -> String {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let found = tandem.inbox(|i| {
            i.other
                .iter()
                .find(|m| m["method"] == "workspace/applyEdit")
                .cloned()
        });
        if let Some(m) = found {
            return m["params"]["edit"].to_string();
        }
        let seen = tandem.inbox(|i| format!("{:?}", i.other));
        assert!(Instant::now() < end, "no workspace/applyEdit came: {seen}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn the_code_action_asks_which_edit_then_the_selection_is_edited() {
    let env = Env::new();
    env.write("src/main.rs", ORIGINAL);
    let mock = MockServer::start(scenario("Simplify it"));
    let tandem = plain_client(&env, &mock).await;
    tandem.rpc.on_request(
        "window/showMessageRequest",
        Box::new(|_| json!({"title": "Simplify it"}).into()),
    );
    tandem.rpc.on_request(
        "workspace/applyEdit",
        Box::new(|_| json!({"applied": true}).into()),
    );
    let actions = tandem
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri(&env, "src/main.rs")},
                   "range": selection(&env)["range"], "context": {"diagnostics": []}}),
        )
        .await
        .unwrap();
    let edit = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Tandem: Edit selection…")
        .unwrap_or_else(|| panic!("no edit action in {actions}"))
        .clone();
    assert_eq!(edit["kind"], "refactor.rewrite");
    let command = &edit["command"];
    tandem
        .request(
            "workspace/executeCommand",
            json!({"command": command["command"], "arguments": command["arguments"]}),
        )
        .await
        .unwrap();
    let edit = applied_edit(&tandem).await;
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
    assert!(edit.contains("main.rs"), "{edit}");
}

#[tokio::test]
async fn an_editor_that_prompts_passes_its_own_instruction_and_is_not_asked() {
    let env = Env::new();
    env.write("src/main.rs", ORIGINAL);
    let mock = MockServer::start(scenario("drop the no-op addition"));
    let tandem = plain_client(&env, &mock).await;
    tandem.rpc.on_request(
        "workspace/applyEdit",
        Box::new(|_| json!({"applied": true}).into()),
    );
    tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.editSelection",
                   "arguments": [selection(&env), "  drop the no-op addition "]}),
        )
        .await
        .unwrap();
    applied_edit(&tandem).await;
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
    let asked = tandem.inbox(|i| {
        i.other
            .iter()
            .filter(|m| m["method"] == "window/showMessageRequest")
            .count()
    });
    assert_eq!(asked, 0, "an instruction was given: nothing to ask");
    // Without a location it says how to call it.
    let err = tandem
        .request(
            "workspace/executeCommand",
            json!({"command": "tandem.editSelection", "arguments": []}),
        )
        .await
        .unwrap_err();
    assert!(
        format!("{err:?}").contains("tandem.editSelection takes"),
        "{err:?}"
    );
}
