//! Runs one command the way the command runner would: the hardened environment without keys,
//! inside the default sandbox. For trying things by hand:
//!
//! `cargo run -p tandem-sandbox --example confined -- WORKSPACE [--network] PROGRAM ARGS...`

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use tandem_sandbox::{SandboxPolicy, command_env, confine, status};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(workspace) = args.next().map(PathBuf::from) else {
        eprintln!("usage: confined WORKSPACE [--network] PROGRAM ARGS...");
        return ExitCode::from(2);
    };
    let mut rest: Vec<_> = args.collect();
    let mut policy = SandboxPolicy::workspace_write(&workspace);
    if rest.first().is_some_and(|a| a == "--network") {
        policy.network = true;
        rest.remove(0);
    }
    let Some((program, program_args)) = rest.split_first() else {
        eprintln!("usage: confined WORKSPACE [--network] PROGRAM ARGS...");
        return ExitCode::from(2);
    };
    eprintln!("{}", status().describe());
    let mut command = Command::new(program);
    command
        .args(program_args)
        .current_dir(&workspace)
        .env_clear()
        .envs(command_env(std::env::vars_os(), None, &workspace));
    if let Err(e) = confine(&mut command, &policy) {
        eprintln!("{e}");
        return ExitCode::from(1);
    }
    match command.status() {
        Ok(s) => ExitCode::from(s.code().unwrap_or(128) as u8),
        Err(e) => {
            eprintln!("could not start {}: {e}", program.to_string_lossy());
            ExitCode::from(1)
        }
    }
}
