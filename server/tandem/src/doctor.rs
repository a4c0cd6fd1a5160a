//! `tandem doctor`: what this machine and these settings give, in a few lines. Each sandbox wall
//! is up or down with the reason; then the endpoint, the context window, the rules files, the
//! project's config file, the MCP servers and the hooks a session in the workspace would get. It exits 1
//! when something keeps the agent from working (no model server answers), 2 on bad settings.

use std::path::Path;

use tandem_config::StartOptions;
use tandem_provider::ModelClient;

pub async fn run(start: StartOptions, root: &Path) -> u8 {
    let support = tandem_sandbox::status();
    println!("Sandbox: {}", support.describe());
    for wall in support.walls() {
        let state = if wall.up { "up  " } else { "DOWN" };
        println!("  {state} {}: {}", wall.name, wall.detail);
    }
    let unasked = support.enforces(&tandem_sandbox::SandboxPolicy::workspace_write(root));
    println!(
        "  Allow-listed commands {}",
        if unasked {
            "run unasked inside these walls"
        } else {
            "ask like every other command: nothing here confines their writes"
        }
    );
    let resolved = match start.resolve() {
        Ok(resolved) => resolved,
        Err(e) => {
            println!("Settings: {e}");
            return 2;
        }
    };
    let settings = resolved.settings.clone();
    // One try each: a doctor reports what answers now, it does not wait out a dead endpoint.
    let mut limits = resolved.limits;
    limits.max_retries = 0;
    let client = tandem_provider::LazyClient::new(resolved.provider, limits);
    // What keeps the agent from working at all; each makes the exit code 1.
    let mut problems: Vec<String> = Vec::new();
    match client.endpoint().await {
        Ok((url, model)) => {
            println!("Endpoint: {url}, model {model}");
            // A configured endpoint and model are taken as given until a request: ask it now.
            if let Err(e) = client.list_models().await {
                println!("  it does not answer: {e}");
                problems.push(format!(
                    "the model server at {url} did not answer: start it, or fix base_url under \
                     [provider] in config.toml (--base-url, TANDEM_BASE_URL)"
                ));
            }
        }
        Err(e) => {
            println!("Endpoint: none ({e})");
            problems.push(
                "no model server answered: start one, or set base_url under [provider] in \
                 config.toml (--base-url, TANDEM_BASE_URL)"
                    .into(),
            );
        }
    }
    match client.window().await {
        Some(window) => println!("Window: {} tokens ({})", window.tokens, window.source),
        None => println!(
            "Window: unknown (the server reports none; set context_window under [provider] in \
             config.toml, --context-window or TANDEM_CONTEXT_WINDOW)"
        ),
    }
    match tandem_tools::Workspace::new(root) {
        Ok(ws) => {
            let rules = tandem_agent::rules::session_rules(&ws, settings.user_rules.as_deref());
            if rules.files.is_empty() {
                println!("Rules files: none");
            }
            for file in &rules.files {
                println!("Rules file: {} ({} bytes)", file.path.display(), file.bytes);
            }
            for problem in &rules.problems {
                println!("Rules file not used: {problem}");
            }
        }
        Err(e) => println!("Workspace {}: {e}", root.display()),
    }
    let project = tandem_config::file::project_config_path(root);
    match tandem_config::file::project_config_links_out(root) {
        Some(why) => println!("Project config not used: {why}"),
        None if project.exists() => println!("Project config: {}", project.display()),
        None => println!("Project config: none"),
    }
    let data_dir = settings.data_dir.clone();
    let (way, why) = capture_way(&data_dir);
    println!("Commands' writes: {way}: {why}");
    let mut servers: Vec<String> = settings
        .mcp_servers
        .iter()
        .map(|s| {
            format!(
                "{} (user): {}\n  walls: {}",
                s.name(),
                s.target(),
                walls(s, false, None, &data_dir, &support)
            )
        })
        .collect();
    match tandem_config::project_mcp_servers(root) {
        Ok(project) => servers.extend(project.iter().map(|s| {
            format!(
                "{} (project, asks before it starts): {}\n  walls: {}",
                s.config.name(),
                s.config.target(),
                walls(&s.config, true, Some(root), &data_dir, &support)
            )
        })),
        Err(e) => servers.push(format!("project servers unreadable: {e}")),
    }
    if servers.is_empty() {
        println!("MCP servers: none");
    }
    for server in servers {
        println!("MCP server: {server}");
    }
    let (hooks, unreadable) = tandem_agent::hook_listing::listing_in(&settings, root);
    if let Some(e) = unreadable {
        println!("Project hooks unreadable: {e}");
    }
    if hooks.is_empty() {
        println!("Hooks: none");
    }
    for hook in &hooks {
        println!("Hook: {}", hook.line());
    }
    if problems.is_empty() {
        return 0;
    }
    for problem in &problems {
        println!("Problem: {problem}");
    }
    1
}

/// The walls a server runs in, as `tandem doctor` says them: where it may write, the network,
/// and whether this machine can hold them.
fn walls(
    config: &tandem_mcp::McpServerConfig,
    project: bool,
    root: Option<&Path>,
    data_dir: &Path,
    support: &tandem_sandbox::SandboxSupport,
) -> String {
    let tandem_mcp::McpServerConfig::Stdio(stdio) = config else {
        return "none here (a URL: it runs elsewhere)".into();
    };
    let mut stdio = stdio.clone();
    stdio.wall(
        project,
        root,
        &tandem_agent::mcp::cache_root(data_dir, root.filter(|_| project)),
    );
    let Some(w) = &stdio.walls else {
        return "none (it runs as your own programs do; `sandbox = true` walls it)".into();
    };
    let policy = tandem_mcp::walls_policy(w);
    let mut writes: Vec<String> = Vec::new();
    if let Some(ws) = &w.workspace {
        writes.push(format!("the workspace {}", ws.display()));
    }
    writes.push(format!("its cache {}", w.cache.display()));
    writes.push("the temp directories".into());
    let network = if w.network {
        "network on (`network = true`)"
    } else {
        "no network (`network = true` allows it)"
    };
    let held = if support.enforces(&policy) {
        "held here".to_string()
    } else {
        format!("NOT fully held here: {}", support.describe())
    };
    format!("writes only to {}; {network}; {held}", writes.join(", "))
}

/// `tandem doctor --json`'s `hooks`: each hook as `tandem doctor` lists it, or the settings' error.
pub fn hooks_json(start: StartOptions, root: &Path) -> serde_json::Value {
    match start.resolve() {
        Ok(resolved) => {
            let (hooks, unreadable) =
                tandem_agent::hook_listing::listing_in(&resolved.settings, root);
            match unreadable {
                Some(e) => serde_json::json!({"error": e}),
                None => serde_json::Value::Array(hooks.iter().map(|h| h.to_json()).collect()),
            }
        }
        Err(e) => serde_json::json!({"error": e.to_string()}),
    }
}

/// `tandem doctor --json`: the sandbox's decision and walls, for scripts (the kernel tests read
/// it). The same facts as the text, in `camelCase`.
pub fn sandbox_json(root: &Path, data_dir: &Path) -> serde_json::Value {
    let support = tandem_sandbox::status();
    let coverage = support.coverage();
    let walls: Vec<serde_json::Value> = support
        .walls()
        .iter()
        .map(|w| serde_json::json!({"name": w.name, "up": w.up, "detail": w.detail}))
        .collect();
    serde_json::json!({
        "sandbox": {
            "unasked": support.enforces(&tandem_sandbox::SandboxPolicy::workspace_write(root)),
            "files": coverage.files,
            "network": coverage.network,
            "processes": coverage.processes,
            "landlockAbi": support.abi,
            "namespaces": support.namespaces.as_ref().err(),
            "describe": support.describe(),
            "walls": walls,
        },
        "commandWrites": capture_json(data_dir),
    })
}

fn capture_json(data_dir: &Path) -> serde_json::Value {
    let (way, why) = capture_way(data_dir);
    serde_json::json!({"way": way, "detail": why})
}

/// How a sandboxed command's writes to the workspace are recorded here (for undo and the
/// turn's changes): `overlay`, `snapshot` or `none`, and why.
fn capture_way(data_dir: &Path) -> (&'static str, String) {
    let support = tandem_sandbox::status();
    if support.coverage().files.is_empty() {
        return (
            "none",
            format!(
                "nothing sandboxes commands here ({}), so each asks and its writes are not \
                 recorded",
                support.describe()
            ),
        );
    }
    let scratch = data_dir.join("captures");
    match tandem_tools::capture::available(&scratch) {
        Ok(()) => (
            "overlay",
            format!(
                "caught by an overlay in each command's mount namespace (its upper dir in {}), \
                 applied when it ends",
                scratch.display()
            ),
        ),
        Err(why) => (
            "snapshot",
            format!(
                "no overlay ({why}); a snapshot before each command (non-ignored files up to {} \
                 bytes, at most {} files and {} bytes) is compared after it",
                tandem_tools::snapshot::MAX_FILE_BYTES,
                tandem_tools::snapshot::MAX_FILES,
                tandem_tools::snapshot::MAX_TOTAL_BYTES
            ),
        ),
    }
}
