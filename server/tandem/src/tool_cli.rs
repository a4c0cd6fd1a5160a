//! `tandem tool NAME [ARGS_JSON | -] [--root DIR] [--yes]`: runs one tool on a directory and
//! prints one JSON object on stdout, `{"ok": true, "output": "...", "diff"?: "..."}` or
//! `{"ok": false, "error": {"kind": "...", "message": "..."}}`; exits 0 or 1.
//!
//! Without `--yes` an edit is only proposed (its diff printed, nothing written) and a command only
//! described; with `--yes` the edit is applied and the command run as a session runs it: inside
//! the sandbox (writes to the workspace and the temp dirs only, no network), with the provider
//! keys out of its environment and git hardened. `{"outsideSandbox": true}` in the arguments
//! runs it without the sandbox, as the model can ask a session to (where the user is always
//! asked); where the sandbox cannot confine commands, a command without it is refused.

use std::io::Read;
use std::path::PathBuf;

use serde_json::{Value, json};

use tandem_model::TurnId;
use tandem_tools::{
    self, ErrorKind, Prepared, ReadTracker, ToolContext, ToolError, UndoLog, Workspace,
};

/// The subcommand's arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolCliArgs {
    pub name: String,
    /// The JSON arguments; `-` reads them from stdin; `None` is `{}`.
    pub args: Option<String>,
    /// The workspace root (default: the current directory).
    pub root: Option<PathBuf>,
    /// Apply edits and run commands instead of only proposing them.
    pub yes: bool,
}

impl ToolCliArgs {
    /// Parses what follows `tool` on the command line.
    pub fn parse(argv: &[String]) -> Result<Self, String> {
        let mut out = ToolCliArgs::default();
        let mut positional = Vec::new();
        let mut it = argv.iter();
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--yes" | "-y" => out.yes = true,
                "--root" => {
                    let dir = it.next().ok_or("--root needs a directory")?;
                    out.root = Some(PathBuf::from(dir));
                }
                _ if arg.starts_with("--root=") => {
                    out.root = Some(PathBuf::from(&arg["--root=".len()..]));
                }
                "-" => positional.push(arg.clone()),
                _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
                _ => positional.push(arg.clone()),
            }
        }
        let mut positional = positional.into_iter();
        out.name = positional
            .next()
            .ok_or("usage: tandem tool NAME [ARGS_JSON | -] [--root DIR] [--yes]")?;
        out.args = positional.next();
        if let Some(extra) = positional.next() {
            return Err(format!(
                "unexpected argument {extra}: pass the tool's arguments as one JSON object"
            ));
        }
        Ok(out)
    }
}

/// `tandem tool` with the raw arguments after `tool`: parses them, runs, prints; the exit code.
pub fn main(argv: &[String]) -> i32 {
    match ToolCliArgs::parse(argv) {
        Ok(args) => run(args),
        Err(message) => print(&failure(&ToolError::new(
            ErrorKind::InvalidArguments,
            message,
        ))),
    }
}

/// Runs the tool on its own runtime (call [`run_async`] from inside one), prints the JSON object
/// and returns the exit code.
pub fn run(args: ToolCliArgs) -> i32 {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(run_async(args)),
        Err(e) => print(&failure(&ToolError::new(
            ErrorKind::Io,
            format!("cannot start the runtime: {e}"),
        ))),
    }
}

pub async fn run_async(args: ToolCliArgs) -> i32 {
    let result = match execute(args).await {
        Ok(value) => value,
        Err(e) => failure(&e),
    };
    print(&result)
}

fn print(value: &Value) -> i32 {
    println!("{value}");
    if value["ok"] == Value::Bool(true) {
        0
    } else {
        1
    }
}

fn failure(e: &ToolError) -> Value {
    json!({"ok": false, "error": {"kind": e.kind.as_str(), "message": e.message}})
}

async fn execute(args: ToolCliArgs) -> Result<Value, ToolError> {
    let raw = match args.args.as_deref() {
        Some("-") => {
            let mut raw = String::new();
            std::io::stdin().read_to_string(&mut raw).map_err(|e| {
                ToolError::new(
                    ErrorKind::InvalidArguments,
                    format!("cannot read stdin: {e}"),
                )
            })?;
            raw
        }
        Some(raw) => raw.to_string(),
        None => "{}".to_string(),
    };
    let root = match args.root {
        Some(root) => root,
        None => std::env::current_dir()
            .map_err(|e| ToolError::new(ErrorKind::Io, format!("no current directory: {e}")))?,
    };
    let workspace = Workspace::new(&root).map_err(|e| {
        ToolError::new(
            ErrorKind::NoSuchFile,
            format!("the root {} cannot be used: {e}", root.display()),
        )
    })?;
    let reads = ReadTracker::new();
    let ctx = ToolContext::new(&workspace, &reads);
    match tandem_tools::prepare(&ctx, &args.name, &raw).await? {
        Prepared::Done(output) => Ok(json!({"ok": true, "output": output})),
        Prepared::Edit(proposal) if !args.yes => Ok(json!({
            "ok": true,
            "output": format!(
                "Proposed edit to {} (nothing written; pass --yes to apply it).",
                proposal.display_path
            ),
            "diff": proposal.diff.unified,
        })),
        Prepared::Edit(proposal) => {
            // Undo is the session's business; here the log only satisfies the API.
            let undo_dir = tempfile::tempdir()
                .map_err(|e| ToolError::new(ErrorKind::Io, format!("no temp dir: {e}")))?;
            let undo = UndoLog::open(undo_dir.path())
                .map_err(|e| ToolError::new(ErrorKind::Io, format!("undo log: {e}")))?;
            let applied = tandem_tools::apply_edit(
                &ctx,
                &proposal,
                &proposal.proposed,
                &undo,
                &TurnId::from("cli"),
            )?;
            Ok(json!({
                "ok": true,
                "output": format!(
                    "Wrote {} (+{} -{}).",
                    proposal.display_path, applied.diff.added, applied.diff.removed
                ),
                "diff": applied.diff.unified,
            }))
        }
        Prepared::Command(proposal) if !args.yes => Ok(json!({
            "ok": true,
            "output": format!(
                "Would run `{}` in {} with a {} s timeout (nothing run; pass --yes to run it).",
                proposal.command,
                proposal.display_cwd,
                proposal.timeout.as_secs_f64()
            ),
        })),
        Prepared::Command(proposal) => {
            let cancel = tokio_util::sync::CancellationToken::new();
            // As in a session with the default policy: inside the sandbox (the workspace and
            // the temp dirs writable, no network) unless the arguments say outsideSandbox, with
            // the environment every command gets (provider keys removed, git hardened).
            let walls = tandem_tools::Walls {
                root: ctx.workspace.root().to_path_buf(),
                extra_roots: Vec::new(),
                protected: Vec::new(),
                mode: tandem_sandbox::SandboxMode::WorkspaceWrite,
                network: false,
                key_var: None,
                // One command, no turn to record it in: it writes to the workspace directly.
                capture: None,
            };
            // Where nothing can confine writes a session asks to run the command outside the
            // sandbox; here `--yes` approved a sandboxed run, so nothing runs.
            let support = tandem_sandbox::status();
            if proposal.sandboxed && !support.filesystem() {
                return Err(ToolError::new(
                    ErrorKind::Io,
                    format!(
                        "the sandbox cannot confine commands here ({}); nothing was run. To run \
                         it without the sandbox, add \"outsideSandbox\": true to the arguments",
                        support.describe()
                    ),
                ));
            }
            let outcome = tandem_tools::run_command(&proposal, &walls, &mut |_| {}, cancel).await?;
            if outcome.timed_out {
                return Err(ToolError::new(
                    ErrorKind::Timeout,
                    format!(
                        "the command ran over its {} s timeout and was killed with everything it \
                         started. Its output:\n{}",
                        proposal.timeout.as_secs_f64(),
                        outcome.output
                    ),
                ));
            }
            Ok(json!({
                "ok": true,
                "output": outcome.report(),
                "exitCode": outcome.exit_code,
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn parses_positionals_and_flags_in_any_order() {
        let a = ToolCliArgs::parse(&argv(&["--yes", "read_file", "--root", "/w", "{}"])).unwrap();
        assert_eq!(
            a,
            ToolCliArgs {
                name: "read_file".into(),
                args: Some("{}".into()),
                root: Some("/w".into()),
                yes: true
            }
        );
        let a = ToolCliArgs::parse(&argv(&["list_files", "-", "--root=/x"])).unwrap();
        assert_eq!(a.args.as_deref(), Some("-"));
        assert_eq!(a.root, Some(PathBuf::from("/x")));
        assert!(ToolCliArgs::parse(&argv(&[])).is_err());
        assert!(ToolCliArgs::parse(&argv(&["a", "{}", "extra"])).is_err());
        assert!(ToolCliArgs::parse(&argv(&["a", "--nope"])).is_err());
    }
}
