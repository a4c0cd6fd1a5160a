//! The command environment, checked with real processes: `env` and `git`.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use tandem_sandbox::{command_env, with_git_hardening, without_secrets};

fn pair(name: &str, value: &str) -> (OsString, OsString) {
    (name.into(), value.into())
}

/// What `env` prints when run with exactly `vars`.
fn env_output(vars: Vec<(OsString, OsString)>) -> String {
    let out = Command::new("env")
        .env_clear()
        .envs(vars)
        .output()
        .expect("run env");
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn env_under_the_command_environment_shows_no_key() {
    let secrets = [
        ("TANDEM_API_KEY", "sk-tandem-1111"),
        ("OPENAI_API_KEY", "sk-openai-2222"),
        ("ANTHROPIC_API_KEY", "sk-ant-3333"),
        ("OPENROUTER_API_KEY", "sk-or-4444"),
        ("MY_PROVIDER_KEY", "sk-mine-5555"),
    ];
    let mut vars: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    vars.extend(secrets.iter().map(|(n, v)| pair(n, v)));
    vars.push(pair("KEEP_ME", "kept-6666"));

    // The test is real: the same variables do reach `env` when passed on.
    let unfiltered = env_output(vars.clone());
    for (_, value) in &secrets {
        assert!(unfiltered.contains(value));
    }

    let shown = env_output(command_env(
        vars,
        Some("MY_PROVIDER_KEY"),
        Path::new("/work/ws"),
    ));
    for (name, value) in &secrets {
        assert!(!shown.contains(value), "{name} leaked:\n{shown}");
        assert!(
            !shown.contains(&format!("{name}=")),
            "{name} leaked:\n{shown}"
        );
    }
    assert!(shown.contains("KEEP_ME=kept-6666"));
    assert!(shown.contains("GIT_CEILING_DIRECTORIES=/work\n"));
}

#[test]
fn without_a_named_key_variable_the_fixed_list_still_goes() {
    let vars = vec![
        pair("OPENAI_API_KEY", "a"),
        pair("PATH", "/bin"),
        pair("OTHER_KEY", "b"),
    ];
    assert_eq!(
        without_secrets(vars, None),
        vec![pair("PATH", "/bin"), pair("OTHER_KEY", "b")]
    );
}

/// `git config --get NAME` as git sees it under `vars` (global and system files ignored).
fn git_config(vars: &[(OsString, OsString)], name: &str) -> Option<String> {
    let out = Command::new("git")
        .args(["config", "--get", name])
        .env_clear()
        .envs(vars.iter().cloned())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .current_dir("/")
        .output()
        .expect("run git");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn git_configuration_is_appended_to_an_existing_list() {
    let ws = Path::new("/work/ws");
    let vars = with_git_hardening(
        vec![
            pair("GIT_CONFIG_COUNT", "1"),
            pair("GIT_CONFIG_KEY_0", "user.name"),
            pair("GIT_CONFIG_VALUE_0", "Someone"),
            pair("GIT_CEILING_DIRECTORIES", "/srv"),
        ],
        ws,
    );
    assert_eq!(git_config(&vars, "user.name").as_deref(), Some("Someone"));
    assert_eq!(
        git_config(&vars, "safe.bareRepository").as_deref(),
        Some("explicit")
    );
    let get = |name: &str| {
        vars.iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.to_str().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(get("GIT_CONFIG_COUNT"), ["2"]);
    assert_eq!(get("GIT_CEILING_DIRECTORIES"), ["/srv:/work"]);

    // A count git would refuse is replaced, and the entries it numbered go with it.
    let vars = with_git_hardening(
        vec![
            pair("GIT_CONFIG_COUNT", "two"),
            pair("GIT_CONFIG_KEY_0", "core.pager"),
            pair("GIT_CONFIG_VALUE_0", "x"),
        ],
        ws,
    );
    assert_eq!(
        git_config(&vars, "safe.bareRepository").as_deref(),
        Some("explicit")
    );
    assert_eq!(git_config(&vars, "core.pager"), None);
}

/// A directory the model filled so git takes it for a bare repository whose `core.fsmonitor`
/// runs a program whenever `git status` starts there.
fn plant_bare_repository(ws: &Path, probe: &Path) -> std::path::PathBuf {
    let evil = ws.join("evil");
    std::fs::create_dir_all(evil.join("objects")).unwrap();
    std::fs::create_dir_all(evil.join("refs")).unwrap();
    std::fs::write(evil.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(
        evil.join("config"),
        format!(
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\
             \tfsmonitor = \"touch {}\"\n",
            probe.display()
        ),
    )
    .unwrap();
    evil
}

fn git_status_in(cwd: &Path, vars: Vec<(OsString, OsString)>) -> std::process::Output {
    Command::new("git")
        .arg("status")
        .current_dir(cwd)
        .env_clear()
        .envs(vars)
        .output()
        .expect("run git")
}

#[test]
fn a_planted_bare_repository_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let probe = dir.path().join("PROBE");
    let evil = plant_bare_repository(&ws, &probe);
    let base = vec![
        pair("PATH", &std::env::var("PATH").unwrap_or_default()),
        pair("HOME", dir.path().to_str().unwrap()),
        pair("GIT_CONFIG_NOSYSTEM", "1"),
        pair("GIT_CONFIG_GLOBAL", "/dev/null"),
    ];

    // Without the hardening, the planted configuration runs: the test is real.
    let out = git_status_in(&evil, base.clone());
    assert!(out.status.success(), "{out:?}");
    assert!(probe.exists(), "fsmonitor did not run without hardening");
    std::fs::remove_file(&probe).unwrap();

    let out = git_status_in(&evil, command_env(base, None, &ws));
    assert!(
        !probe.exists(),
        "fsmonitor ran under the hardened environment"
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("safe.bareRepository"), "{stderr}");
}

#[test]
fn discovery_stops_at_the_workspace() {
    // A repository above the workspace (the model cannot write there, but a command started in
    // a workspace that is no repository must not wander into it).
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let base = vec![
        pair("PATH", &std::env::var("PATH").unwrap_or_default()),
        pair("GIT_CONFIG_NOSYSTEM", "1"),
        pair("GIT_CONFIG_GLOBAL", "/dev/null"),
    ];
    assert!(git_status_in(&ws, base.clone()).status.success());
    let out = git_status_in(&ws, command_env(base, None, &ws));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a git repository"));
}
