//! A command's writes to the workspace, captured by its walls (an overlay in its mount
//! namespace), applied at its end with each file saved in the undo log, told to the model, and
//! undone like edits; ignored build dirs pass through unrecorded.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::*;

/// Every file under `root` but `skip` (relative), with its bytes and mode.
fn files(root: &Path, skip: &[&str]) -> BTreeMap<String, (Vec<u8>, u32)> {
    fn walk(root: &Path, dir: &Path, skip: &[&str], out: &mut BTreeMap<String, (Vec<u8>, u32)>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if skip
                .iter()
                .any(|s| rel == *s || rel.starts_with(&format!("{s}/")))
            {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                walk(root, &path, skip, out);
            } else {
                let mode = meta.permissions().mode() & 0o7777;
                out.insert(rel, (std::fs::read(&path).unwrap(), mode));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, skip, &mut out);
    out
}

fn set_mode(env: &Env, path: &str, mode: u32) {
    std::fs::set_permissions(
        env.workspace.join(path),
        std::fs::Permissions::from_mode(mode),
    )
    .unwrap();
}

/// The undo log's saves of a session: (path, who changed it).
fn saves(env: &Env, session: &str) -> Vec<(String, Value)> {
    let manifest = env
        .data_dir
        .join("sessions")
        .join(format!("{session}.undo"))
        .join("manifest.jsonl");
    std::fs::read_to_string(&manifest)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["op"] == "save")
        .map(|r| (r["path"].as_str().unwrap().to_string(), r["by"].clone()))
        .collect()
}

/// A workspace of 100 text files, 5 binary files to delete, a folder to rename (one file in it
/// executable), a `.gitignore` that ignores `build/`, and a `target/` with a file in it.
fn workspace(env: &Env) {
    for i in 0..100 {
        env.write(&format!("src/f{i:03}.txt"), &format!("alpha {i}\nkeep\n"));
    }
    for i in 0..5 {
        let path = env.workspace.join(format!("del/d{i}.bin"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, [0u8, 0xff, i as u8, b'\n', 0x80]).unwrap();
    }
    set_mode(env, "del/d2.bin", 0o640);
    env.write("olddir/a.txt", "a\n");
    env.write("olddir/sub/run.sh", "#!/bin/sh\necho run\n");
    set_mode(env, "olddir/sub/run.sh", 0o755);
    env.write(".gitignore", "build/\n");
    env.write("target/old.txt", "built before\n");
}

const COMMAND: &str = "sed -i 's/alpha/beta/' src/*.txt \
    && mkdir new && for i in 0 1 2 3 4 5 6 7 8 9; do echo \"new $i\" > new/n$i.txt; done \
    && rm del/d0.bin del/d1.bin del/d2.bin del/d3.bin del/d4.bin \
    && mv olddir newdir \
    && mkdir -p target/debug build && echo out > target/debug/out && echo b > build/b.txt \
    && echo done";

async fn run_command(env: &Env, namespaces: bool) -> (Sidecar, String, Turn) {
    if namespaces {
        crate::walls::require_namespaces(env).await;
    }
    let mock = MockServer::start(Scenario::new([
        Reply::tool("execute_command", json!({"command": COMMAND})),
        Reply::text("Done.").expect_messages_contain("files changed by the command (117)"),
    ]));
    let tandem = Sidecar::start_walled(
        env,
        &mock,
        Options {
            approval: json!({"autoApprove": {"command": true}}),
            ..Options::default()
        },
        namespaces,
    )
    .await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Change them").await;
    assert!(tandem.approvals().is_empty(), "the command asked");
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
    (tandem, session, turn)
}

fn check_record(env: &Env, session: &str, turn: &Turn) {
    let output = turn.tool_result()["output"].as_str().unwrap().to_string();
    assert!(output.contains("done"), "{output}");
    assert!(
        output.contains("files changed by the command (117)"),
        "{output}"
    );
    assert!(
        output.contains("newdir/a.txt (renamed from olddir/a.txt)"),
        "{output}"
    );
    assert!(output.contains("src/f000.txt (modified +1 -1)"), "{output}");
    // Every byte is in the workspace.
    assert_eq!(env.read("src/f042.txt"), "beta 42\nkeep\n");
    assert_eq!(env.read("new/n3.txt"), "new 3\n");
    assert!(!env.workspace.join("del/d0.bin").exists());
    assert!(
        !env.workspace.join("olddir").exists(),
        "the renamed folder is gone"
    );
    assert_eq!(env.read("newdir/sub/run.sh"), "#!/bin/sh\necho run\n");
    let mode = std::fs::metadata(env.workspace.join("newdir/sub/run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    assert_eq!(env.read("target/debug/out"), "out\n");
    assert_eq!(env.read("build/b.txt"), "b\n");

    let saves = saves(env, session);
    let mut paths: Vec<&str> = saves.iter().map(|(p, _)| p.as_str()).collect();
    paths.sort();
    let mut expected: Vec<String> = (0..100).map(|i| format!("src/f{i:03}.txt")).collect();
    expected.extend((0..10).map(|i| format!("new/n{i}.txt")));
    expected.extend((0..5).map(|i| format!("del/d{i}.bin")));
    expected.extend(
        [
            "olddir/a.txt",
            "olddir/sub/run.sh",
            "newdir/a.txt",
            "newdir/sub/run.sh",
        ]
        .map(String::from),
    );
    expected.sort();
    assert_eq!(
        paths, expected,
        "exactly what the command changed, nothing ignored"
    );
    // Applied whole: no capture dir is left behind.
    let left: Vec<_> = std::fs::read_dir(env.data_dir.join("captures"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != "probe")
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let call_id = turn.tool_calls()[0]["toolCallId"].clone();
    assert!(call_id.is_string(), "{call_id}");
    for (path, by) in &saves {
        assert_eq!(by["source"], "command", "{path}: {by}");
        assert_eq!(by["toolCallId"], call_id, "{path}: {by}");
    }
}

async fn undo_restores_every_byte_and_mode(namespaces: bool) {
    let env = Env::new();
    workspace(&env);
    let before = files(&env.workspace, &["target", "build"]);
    let (tandem, session, turn) = run_command(&env, namespaces).await;
    check_record(&env, &session, &turn);

    let done = tandem
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(done["needsConfirmation"], false, "{done}");
    assert_eq!(done["restored"].as_array().unwrap().len(), 119, "{done}");
    let after = files(&env.workspace, &["target", "build"]);
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>()
    );
    for (path, (bytes, mode)) in &before {
        assert_eq!(&after[path].0, bytes, "{path}");
        assert_eq!(after[path].1, *mode, "{path}: mode");
    }
    // Ignored build output is not undone.
    assert_eq!(env.read("target/debug/out"), "out\n");
}

#[tokio::test]
async fn a_commands_writes_are_applied_recorded_and_undone() {
    undo_restores_every_byte_and_mode(true).await;
}

#[tokio::test]
async fn a_file_the_user_changed_after_the_command_makes_undo_ask() {
    let env = Env::new();
    workspace(&env);
    let (tandem, session, _) = run_command(&env, true).await;
    env.write("src/f007.txt", "the user's own\n");
    let asked = tandem
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(asked["needsConfirmation"], true, "{asked}");
    let conflicts = asked["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{asked}");
    assert!(
        conflicts[0]["lost"]
            .as_str()
            .unwrap()
            .contains("-the user's own"),
        "{asked}"
    );
    assert_eq!(
        env.read("src/f007.txt"),
        "the user's own\n",
        "nothing restored yet"
    );
}

#[tokio::test]
async fn a_cancelled_commands_writes_are_applied_and_recorded() {
    let env = Env::new();
    crate::walls::require_namespaces(&env).await;
    env.write("a.txt", "one\n");
    let mock = MockServer::start(Scenario::new([Reply::tool(
        "execute_command",
        json!({"command": "echo two > a.txt && echo made > b.txt && echo written && sleep 600"}),
    )]));
    let tandem = Sidecar::start(
        &env,
        &mock,
        Options {
            approval: json!({"autoApprove": {"command": true}}),
            ..Options::default()
        },
    )
    .await;
    let session = tandem.new_session().await;
    let first = tandem.prompt(&session, "Run it").await;
    tandem
        .wait_for_update(&first, |u| {
            u["kind"] == "toolOutput" && u["delta"].as_str().is_some_and(|d| d.contains("written"))
        })
        .await;
    tandem.cancel(&session).await;
    let turn = tandem.wait_for_turn_end(&first).await;
    assert_eq!(turn.stop_reason(), "cancelled", "{turn}");
    assert_eq!(env.read("a.txt"), "two\n");
    assert_eq!(env.read("b.txt"), "made\n");
    let mut paths: Vec<String> = saves(&env, &session).into_iter().map(|(p, _)| p).collect();
    paths.sort();
    assert_eq!(paths, ["a.txt", "b.txt"]);
    let done = tandem
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(done["restored"], json!(["a.txt", "b.txt"]), "{done}");
    assert_eq!(env.read("a.txt"), "one\n");
    assert!(!env.workspace.join("b.txt").exists());
}

/// What a prompt-injected command might leave in its upper dir: a link out of the workspace, a
/// whiteout-looking device, a FIFO, a file over the undo log's cap, 100,000 files, a change to
/// `.git`. Each has a clear outcome, told to the model; nothing outside the workspace is touched.
#[tokio::test]
async fn odd_writes_get_a_clear_outcome_and_nothing_outside_is_touched() {
    let env = Env::new();
    crate::walls::require_namespaces(&env).await;
    let outside = env.data_dir.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, env.workspace.join("out")).unwrap();
    env.write("keep.txt", "kept\n");
    env.write(".git/config", "[core]\n");
    let odd = format!(
        "ln -s {} escape; echo evil > out/planted; echo evil > escape/planted2; \
         mknod w c 0 0; mkfifo fifo; head -c 70000000 /dev/zero > big.bin; \
         echo '[core] fsmonitor = ./evil.sh' >> .git/config; echo small > small.txt; echo end",
        outside.display()
    );
    let mock = MockServer::start(Scenario::new([
        Reply::tool("execute_command", json!({"command": odd})),
        Reply::tool(
            "execute_command",
            json!({"command": "mkdir many && cd many && seq 1 100000 | xargs touch && echo made"}),
        ),
        Reply::text("Done."),
    ]));
    let tandem = Sidecar::start(
        &env,
        &mock,
        Options {
            approval: json!({"autoApprove": {"command": true}}),
            ..Options::default()
        },
    )
    .await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Try").await;
    let results = turn.tool_results();
    let first = results[0]["output"].as_str().unwrap();
    assert!(first.contains("end"), "{first}");
    // Outside: untouched, through the link the workspace had and the one the command made.
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "{first}");
    assert!(
        first.contains("[not applied: escape is a symbolic link"),
        "{first}"
    );
    assert!(first.contains("[not applied: fifo is a FIFO"), "{first}");
    assert!(
        first.contains("[not applied: big.bin is 70000000 bytes, over the cap"),
        "{first}"
    );
    assert!(
        first.contains("[what was not applied is kept in "),
        "{first}"
    );
    assert!(!env.workspace.join("big.bin").exists());
    assert!(!env.workspace.join("fifo").exists());
    assert!(!env.workspace.join("w").exists(), "{first}");
    assert_eq!(env.read(".git/config"), "[core]\n", "{first}");
    assert_eq!(env.read("keep.txt"), "kept\n");
    // What could be applied was.
    assert_eq!(env.read("small.txt"), "small\n", "{first}");
    assert!(first.contains("small.txt (created +1 -0)"), "{first}");

    let second = results[1]["output"].as_str().unwrap();
    assert!(second.contains("made"), "{second}");
    assert!(
        second.contains("[not applied: the command changed more than 20000 paths; nothing of it"),
        "{second}"
    );
    assert!(!env.workspace.join("many").exists(), "{second}");
}

/// Without namespaces (`TANDEM_SANDBOX_NAMESPACES=off`: Landlock alone) the command writes to
/// the workspace itself; the snapshot taken before it gives the same record and the same undo.
#[tokio::test]
async fn without_namespaces_a_snapshot_gives_the_same_record() {
    undo_restores_every_byte_and_mode(false).await;
}

/// `tandem doctor --json` says which way commands' writes are recorded, and why.
#[tokio::test]
async fn doctor_says_which_way_commands_writes_are_recorded() {
    let env = Env::new();
    crate::walls::require_namespaces(&env).await;
    for (namespaces, way) in [(true, "overlay"), (false, "snapshot")] {
        let mut command = env.command();
        command
            .args(["doctor", "--json", "--data-dir"])
            .arg(&env.data_dir);
        if !namespaces {
            command.env("TANDEM_SANDBOX_NAMESPACES", "off");
        }
        let out = command.current_dir(&env.workspace).output().await.unwrap();
        assert!(out.status.success(), "{}", show(&out));
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let writes = &json["commandWrites"];
        assert_eq!(writes["way"], way, "{json}");
        if !namespaces {
            assert!(
                writes["detail"]
                    .as_str()
                    .unwrap()
                    .contains("TANDEM_SANDBOX_NAMESPACES=off"),
                "{json}"
            );
        }
    }
}

/// Under `approval.commandWrites = "review"` a command's changes are held: nothing is written
/// until the user answers each file's proposed edit; the accepted one (a change, a deletion) is
/// written and saved for undo by the command, the rejected one is not, and the model is told
/// which. A pass-through name from the user's `[capture]` table is written through unrecorded.
async fn review_holds_a_commands_writes(namespaces: bool) {
    let env = Env::new();
    if namespaces {
        crate::walls::require_namespaces(&env).await;
    }
    env.write("a.txt", "one\n");
    env.write("c.txt", "gone\n");
    std::fs::create_dir_all(env.user_config_dir()).unwrap();
    std::fs::write(
        env.user_config_dir().join("config.toml"),
        "[capture]\npassthrough = [\"gen\"]\n",
    )
    .unwrap();
    let command = "sed -i s/one/ONE/ a.txt && echo new > b.txt && rm c.txt \
        && mkdir -p gen && echo g > gen/out.txt && echo done";
    let mock = MockServer::start(Scenario::new([
        Reply::tool("execute_command", json!({"command": command})),
        Reply::text("Done.")
            .expect_messages_contain("rejected the command's changes to (1): b.txt"),
    ]));
    let tandem = Sidecar::start_walled(
        &env,
        &mock,
        Options {
            approval: json!({"autoApprove": {"command": true}, "commandWrites": "review"}),
            ..Options::default()
        },
        namespaces,
    )
    .await;
    let session = tandem.new_session().await;
    let turn = tandem.prompt(&session, "Change them").await;
    let first = tandem.wait_for_approvals(1).await;
    assert!(first[0].to_string().contains("a.txt"), "{first:?}");
    // Held: the workspace is as before while the user decides.
    assert_eq!(env.read("a.txt"), "one\n");
    assert_eq!(env.read("c.txt"), "gone\n");
    assert!(!env.workspace.join("b.txt").exists());
    // Passed through by the user's [capture] table.
    assert_eq!(env.read("gen/out.txt"), "g\n");
    tandem
        .reply_approvals([reply::accept(), reply::reject("no"), reply::accept()])
        .await;
    let turn = tandem.wait_for_turn_end(&turn).await;
    let asked = tandem.approvals();
    assert_eq!(asked.len(), 3, "{asked:?}");
    assert!(asked[1].to_string().contains("b.txt"), "{asked:?}");
    assert!(asked[2].to_string().contains("c.txt"), "{asked:?}");
    assert_eq!(env.read("a.txt"), "ONE\n");
    assert!(!env.workspace.join("b.txt").exists());
    assert!(!env.workspace.join("c.txt").exists());
    let output = turn.tool_result()["output"].as_str().unwrap().to_string();
    assert!(output.contains("a.txt (modified +1 -1)"), "{output}");
    assert!(output.contains("c.txt (deleted"), "{output}");
    assert!(output.contains("b.txt"), "{output}");
    let saved: Vec<String> = saves(&env, &session).into_iter().map(|(p, _)| p).collect();
    assert_eq!(saved, ["a.txt", "c.txt"], "{saved:?}");
    assert!(mock.failures().is_empty(), "{:?}", mock.failures());
    // Undo takes back what was accepted.
    let done = tandem
        .request("tandem/undo", json!({"sessionId": session}))
        .await
        .unwrap();
    assert_eq!(done["needsConfirmation"], false, "{done}");
    assert_eq!(env.read("a.txt"), "one\n");
    assert_eq!(env.read("c.txt"), "gone\n");
}

#[tokio::test]
async fn under_review_a_commands_writes_wait_for_the_user() {
    review_holds_a_commands_writes(true).await;
}

#[tokio::test]
async fn under_review_without_namespaces_the_files_are_put_back_and_proposed() {
    review_holds_a_commands_writes(false).await;
}
