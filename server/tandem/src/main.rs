use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod attach;
mod changes;
mod chat;
mod display;
mod doctor;
mod environ;
mod exec;
mod first_run;
mod logging;
mod terminal;
mod tool_cli;

use tandem_agent::approval::{CommandWrites, SandboxMode};
use tandem_config::{PolicyOptions, ProviderOptions, StartOptions};
use tandem_provider::{Api, ApiKey, ToolMode};

/// Tandem: a coding agent that any editor can drive.
#[derive(Parser)]
#[command(name = "tandem", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Also log to this file, at the TANDEM_LOG level (default info), with each turn's and tool
    /// call's ids; stderr gets the warnings either way
    #[arg(long, global = true, value_name = "PATH")]
    log_file: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve an editor: JSON-RPC with LSP framing on stdin/stdout.
    Lsp(ServeArgs),
    /// Serve an ACP client (Zed and others): Agent Client Protocol v1 on stdin/stdout.
    Acp(ServeArgs),
    /// Chat in the terminal.
    Chat(ChatArgs),
    /// Run one task to its end without a terminal (scripts, CI): the answer on stdout, progress
    /// on stderr; approvals never wait (the flags decide). Exit codes: docs/exec.md.
    Exec(ExecArgs),
    /// Run one workspace tool and print its result as JSON:
    /// `tandem tool NAME [ARGS_JSON | -] [--root DIR] [--yes]`. With `--yes` an edit is written
    /// and a command run, inside the sandbox as in a session (`"outsideSandbox": true` in the
    /// arguments runs it without)
    Tool {
        /// NAME [ARGS_JSON | -] [--root DIR] [--yes]
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        argv: Vec<String>,
    },
    /// Print what the sandbox can enforce here (each wall, up or not and why), the endpoint,
    /// the context window, and the rules files and MCP servers a session would get.
    Doctor {
        #[command(flatten)]
        serve: ServeArgs,
        /// The workspace (default: the current directory)
        #[arg(long)]
        root: Option<PathBuf>,
        /// Print only the sandbox, as one JSON object: which walls confine the files, the
        /// network and the processes here, whether allow-listed commands run unasked, and each
        /// wall with its reason
        #[arg(long)]
        json: bool,
    },
}

/// Where the model is. Unset options fall back to the environment, then to LM Studio or Ollama
/// on this machine.
#[derive(Args, Clone, Debug, Default)]
struct ProviderArgs {
    /// The OpenAI-compatible endpoint, e.g. http://127.0.0.1:1234/v1 [env: TANDEM_BASE_URL]
    #[arg(long)]
    base_url: Option<String>,
    /// The model to use [env: TANDEM_MODEL]
    #[arg(long)]
    model: Option<String>,
    /// The API key (visible to other users in the process list: prefer TANDEM_API_KEY)
    #[arg(long)]
    api_key: Option<String>,
    /// The endpoint's API: openai (Chat Completions) or anthropic (Messages)
    #[arg(long, value_parser = parse_api)]
    api: Option<Api>,
    /// The model's context window in tokens, over what the server reports [env: TANDEM_CONTEXT_WINDOW]
    #[arg(long)]
    context_window: Option<u64>,
    /// How tools reach the model: native, text (described in the prompt) or auto [env: TANDEM_TOOL_MODE]
    #[arg(long, value_parser = parse_tool_mode)]
    tool_mode: Option<ToolMode>,
    /// The most tokens one answer may take; 0 sends no limit (default: a quarter of a local
    /// server's window) [env: TANDEM_MAX_OUTPUT_TOKENS]
    #[arg(long)]
    max_output_tokens: Option<u64>,
}

fn parse_tool_mode(s: &str) -> Result<ToolMode, String> {
    tandem_config::parse_tool_mode(s)
}

fn parse_api(s: &str) -> Result<Api, String> {
    match s {
        "openai" => Ok(Api::OpenAi),
        "anthropic" => Ok(Api::Anthropic),
        _ => Err(format!("unknown API {s:?}: use openai or anthropic")),
    }
}

impl ProviderArgs {
    fn options(&self) -> ProviderOptions {
        ProviderOptions {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key: self.api_key.clone().map(ApiKey::new),
            api: self.api,
            context_window: self.context_window,
            tool_mode: self.tool_mode,
            max_output_tokens: self.max_output_tokens,
        }
    }
}

#[derive(Args)]
struct ServeArgs {
    #[command(flatten)]
    provider: ProviderArgs,
    /// The configuration file (default: tandem/config.toml in the platform's config dir:
    /// ~/.config on Linux, ~/Library/Application Support on macOS, %APPDATA% on Windows)
    /// [env: TANDEM_CONFIG]
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where sessions are kept (default: the platform's data dir)
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// The most model requests in one turn (default 50)
    #[arg(long)]
    max_steps: Option<u32>,
    /// Command prefixes that run without asking, e.g. --allow "cargo test"; repeatable
    #[arg(long = "allow")]
    allow_commands: Vec<String>,
    /// A host fetch_url reads without asking (and may reach at a private address); repeatable
    #[arg(long = "allow-fetch", value_name = "HOST")]
    allow_fetch: Vec<String>,
    /// Write every edit without asking
    #[arg(long)]
    auto_approve_edits: bool,
    /// Run every command without asking
    #[arg(long)]
    auto_approve_commands: bool,
    /// Commands' sandbox: workspace-write (writes only in the workspace and the temp dirs, the
    /// default) or off
    #[arg(long, value_parser = parse_sandbox)]
    sandbox: Option<SandboxMode>,
    /// Let sandboxed commands use the network
    #[arg(long)]
    allow_network: bool,
    /// Seconds an approval question waits for an answer before it counts as rejected
    /// (default 600)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    approval_timeout: Option<u64>,
    /// What happens to the files a command changes: apply (at once, saved for undo, the
    /// default) or review (each proposed as an edit, written only when accepted)
    #[arg(long, value_parser = parse_command_writes)]
    command_writes: Option<CommandWrites>,
}

fn parse_command_writes(s: &str) -> Result<CommandWrites, String> {
    match s {
        "apply" => Ok(CommandWrites::Apply),
        "review" => Ok(CommandWrites::Review),
        _ => Err(format!("unknown command writes {s:?}: use apply or review")),
    }
}

fn parse_sandbox(s: &str) -> Result<SandboxMode, String> {
    match s {
        "workspace-write" => Ok(SandboxMode::WorkspaceWrite),
        "off" => Ok(SandboxMode::Off),
        _ => Err(format!("unknown sandbox {s:?}: use workspace-write or off")),
    }
}

impl ServeArgs {
    /// What the flags say (an editor's `initializationOptions` win, field by field); a flag not
    /// given leaves its field to the environment and the config files.
    fn start(&self) -> StartOptions {
        StartOptions {
            provider: self.provider.options(),
            policy: PolicyOptions {
                auto_approve_edit: self.auto_approve_edits.then_some(true),
                auto_approve_command: self.auto_approve_commands.then_some(true),
                allow_commands: (!self.allow_commands.is_empty())
                    .then(|| self.allow_commands.clone()),
                sandbox: self.sandbox,
                network: self.allow_network.then_some(true),
                ask_commands: None,
                deny_commands: None,
                allow_mcp_tools: None,
                allow_fetch: (!self.allow_fetch.is_empty()).then(|| self.allow_fetch.clone()),
                timeout: self.approval_timeout.map(std::time::Duration::from_secs),
                command_writes: self.command_writes,
                capture: None,
            },
            data_dir: self.data_dir.clone(),
            max_steps: self.max_steps,
            limits: None,
            config_file: self.config.clone(),
            workspace: None,
            mcp_servers: Vec::new(),
            user_rules: None,
        }
    }
}

impl ServeArgs {
    /// For the terminal faces: the workspace from `--root`, and `--yes` approving every edit and
    /// command.
    fn start_in(&self, root: Option<PathBuf>, yes: bool) -> StartOptions {
        let mut start = self.start();
        if yes {
            start.policy.auto_approve_edit = Some(true);
            start.policy.auto_approve_command = Some(true);
        }
        start.workspace = root;
        start
    }
}

#[derive(Args)]
struct ChatArgs {
    #[command(flatten)]
    serve: ServeArgs,
    /// The workspace (default: the current directory)
    #[arg(long)]
    root: Option<PathBuf>,
    /// Run one turn with this prompt, then exit
    #[arg(long)]
    prompt: Option<String>,
    /// Approve every edit and command without asking
    #[arg(long)]
    yes: bool,
    /// Append each turn as one JSON line to this file
    #[arg(long)]
    json_log: Option<PathBuf>,
    /// Reopen a saved session: by its id, or this workspace's latest when no id is given
    #[arg(long, num_args = 0..=1, default_missing_value = "", value_name = "ID")]
    resume: Option<String>,
    /// Another folder of the workspace, beside the root (repeatable): the tools reach it by
    /// absolute path, edits there wait for approval as in the root
    #[arg(long = "add-dir", value_name = "DIR")]
    add_dirs: Vec<PathBuf>,
}

#[derive(Args)]
struct ExecArgs {
    /// The task; `-` reads it from stdin
    #[arg(value_name = "PROMPT", allow_hyphen_values = true)]
    prompt: String,
    #[command(flatten)]
    serve: ServeArgs,
    /// The workspace (default: the current directory)
    #[arg(long)]
    root: Option<PathBuf>,
    /// Approve every edit and every sandboxed command (with --sandbox off, every command)
    #[arg(long)]
    yes: bool,
    /// Print one JSON event per line on stdout instead of the answer (docs/exec.md)
    #[arg(long)]
    json: bool,
    /// Continue a saved session: by its id, or this workspace's latest when no id is given
    #[arg(long, num_args = 0..=1, default_missing_value = "", value_name = "ID")]
    resume: Option<String>,
    /// Another folder of the workspace, beside the root (repeatable): the tools reach it by
    /// absolute path, edits there wait for approval as in the root
    #[arg(long = "add-dir", value_name = "DIR")]
    add_dirs: Vec<PathBuf>,
    /// Also write the final answer to this file (replaced whole)
    #[arg(long, value_name = "FILE")]
    output_last_message: Option<PathBuf>,
    /// Plan mode, read-only: the model may read, list, search, fetch and plan, nothing else
    #[arg(long)]
    plan: bool,
}

fn main() -> ExitCode {
    // First: a sandboxed command's launcher is this binary re-executed; it must run before
    // anything starts a thread.
    tandem_sandbox::launch::dispatch();
    // Then, still with one thread: hide the keys from /proc/PID/environ (see the module).
    environ::hide();
    // The TLS crypto provider, chosen once for the process: every HTTPS client the libraries
    // build (the model's, fetch_url's, an MCP server's) takes it and none installs its own.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = Cli::parse();
    if let Err(e) = logging::init(cli.log_file.as_deref()) {
        eprintln!("tandem: {e}");
        return ExitCode::from(2);
    }
    match cli.command {
        // Its own parser, so even a usage error comes out as the one JSON object it promises.
        Command::Tool { argv } => ExitCode::from(tool_cli::main(&argv) as u8),
        Command::Lsp(args) => {
            // The file is read at `initialize` (with the workspace); a broken one is said now too.
            if let Err(e) = check_config(args.config.as_deref()) {
                eprintln!("tandem: {e}");
                return ExitCode::from(2);
            }
            // LSP: 0 after `shutdown` then `exit`, 1 when the client left without `shutdown`.
            if runtime().block_on(tandem_lsp::serve(args.start())) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Command::Doctor { serve, root, json } => {
            let root = root
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from("."));
            let mut start = serve.start();
            start.workspace = Some(root.clone());
            if json {
                let data_dir = start
                    .clone()
                    .resolve()
                    .map(|r| r.settings.data_dir)
                    .unwrap_or_else(|_| tandem_agent::AgentSettings::default_data_dir());
                let mut report = doctor::sandbox_json(&root, &data_dir);
                report["hooks"] = doctor::hooks_json(start, &root);
                println!("{report}");
                return ExitCode::SUCCESS;
            }
            ExitCode::from(runtime().block_on(doctor::run(start, &root)))
        }
        Command::Acp(args) => match runtime().block_on(tandem_acp::serve(args.start())) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("tandem: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Exec(args) => {
            let start = args.serve.start_in(args.root.clone(), args.yes);
            let options = exec::ExecOptions {
                rules: exec::Rules::from_flags(args.yes, args.serve.sandbox),
                start,
                root: args.root,
                add_dirs: args.add_dirs,
                prompt: args.prompt,
                json: args.json,
                resume: args.resume,
                output_last_message: args.output_last_message,
                plan: args.plan,
            };
            match runtime().block_on(exec::run(options)) {
                Ok(code) => ExitCode::from(code),
                Err(e) => {
                    eprintln!("tandem: {e}");
                    ExitCode::from(exec::code::USAGE)
                }
            }
        }
        Command::Chat(args) => {
            let start = args.serve.start_in(args.root.clone(), args.yes);
            let options = chat::ChatOptions {
                start,
                root: args.root,
                add_dirs: args.add_dirs,
                prompt: args.prompt,
                resume: args.resume,
                json_log: args.json_log,
            };
            match runtime().block_on(chat::run(options)) {
                Ok(code) => ExitCode::from(code),
                Err(e) => {
                    eprintln!("tandem: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// Reads the user's config file, for its errors.
fn check_config(explicit: Option<&std::path::Path>) -> Result<(), tandem_config::ConfigError> {
    if let Some((path, must_exist)) = tandem_config::file::user_config_path(explicit)
        && let Some(file) = tandem_config::file::read(&path, must_exist)?
    {
        file.settings(&path, None)?;
    }
    Ok(())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("cannot start the async runtime")
}
