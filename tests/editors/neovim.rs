//! Neovim (0.7, Debian's) with the setup of docs/editors.md.

use mock_model::MockServer;

use crate::harness::{NEOVIM, Run, Workspace, docs_snippet, scripts_dir};
use crate::story;

/// Runs `script` in headless Neovim with the docs' setup.
fn nvim(ws: &Workspace, mock: &MockServer, script: &str) -> Run {
    NEOVIM.require();
    std::fs::write(&ws.setup, docs_snippet("nvim-0.7")).unwrap();
    let luafile = format!("luafile {}", scripts_dir().join(script).display());
    ws.run_editor(
        mock,
        "nvim",
        &[
            "--headless",
            "-u",
            "NONE",
            "-i",
            "NONE",
            "-n",
            "-c",
            &luafile,
        ],
    )
}

#[test]
fn accepted_edits_land_in_the_buffer_and_a_rejected_one_does_not() {
    let ws = story::workspace();
    let mock = MockServer::start(story::scenario());
    let run = nvim(&ws, &mock, "nvim_accept_reject.lua");
    story::check(&run, &ws, &mock);

    // Neovim shows progress: one begin and one end per turn, the tools reported between.
    let kinds = run.strings("/progress", Some("kind"));
    let begins = kinds.iter().filter(|k| *k == "begin").count();
    let ends = kinds.iter().filter(|k| *k == "end").count();
    assert_eq!((begins, ends), (2, 2), "{}", run.dump());
    let titles = run.strings("/progress", Some("title"));
    assert_eq!(titles[0], "Tandem", "{}", run.dump());
}
