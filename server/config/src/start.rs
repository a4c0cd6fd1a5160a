//! Building the agent from what a face was given.
//!
//! Precedence, field by field: the editor's `initializationOptions` or the command line, then
//! the environment, then the project's `.tandem/config.toml` (max steps only), then the user's
//! config file, then the defaults (and discovery of a local model server). The project's model
//! is used only when none of those names one and no API key goes with the requests. A key goes
//! only with the base URL of the source that gave it.

use std::path::PathBuf;
use std::sync::Arc;

use tandem_agent::{Agent, AgentSettings};
use tandem_mcp::McpServerConfig;
use tandem_provider::{LazyClient, Limits, ProviderOptions, ToolModeMemory};

use crate::file::{self, ConfigError, FileSettings};
use crate::policy::PolicyOptions;

/// How a face starts the agent: what its command line (or the editor) says, the rest from the
/// environment, the config files and the defaults.
#[derive(Clone, Debug, Default)]
pub struct StartOptions {
    pub provider: ProviderOptions,
    pub policy: PolicyOptions,
    pub data_dir: Option<PathBuf>,
    pub max_steps: Option<u32>,
    /// Bounds on what the model server may send; the file's, then the defaults, when absent.
    pub limits: Option<Limits>,
    /// The user's config file (`--config`); else `TANDEM_CONFIG`, else the platform's.
    pub config_file: Option<PathBuf>,
    /// The workspace, whose `.tandem/config.toml` is read when known at start.
    pub workspace: Option<PathBuf>,
    /// MCP servers the editor named (added to the user's file's).
    pub mcp_servers: Vec<McpServerConfig>,
    /// The user's rules file; the platform's `tandem/AGENTS.md` when absent.
    pub user_rules: Option<PathBuf>,
}

/// What the sources say, merged, before the agent is built.
#[derive(Debug)]
pub struct Resolved {
    pub settings: AgentSettings,
    pub provider: ProviderOptions,
    pub limits: Limits,
}

impl StartOptions {
    /// The agent, and its model client (for switching models). A config file that can't be
    /// used is an error naming it.
    pub fn start(self) -> Result<(Agent, Arc<LazyClient>), ConfigError> {
        let resolved = self.resolve()?;
        let memory = ToolModeMemory::new(resolved.settings.data_dir.join("tool-modes.json"));
        let client =
            Arc::new(LazyClient::new(resolved.provider, resolved.limits).remembering(memory));
        Ok((Agent::new(resolved.settings, client.clone()), client))
    }

    /// Every source merged (the environment read now).
    pub fn resolve(self) -> Result<Resolved, ConfigError> {
        let user_path = file::user_config_path(self.config_file.as_deref());
        let user = match user_path.clone() {
            Some((path, must_exist)) => match file::read(&path, must_exist)? {
                Some(f) => f.settings(&path, self.workspace.as_deref())?,
                None => FileSettings::default(),
            },
            None => FileSettings::default(),
        };
        let project = match &self.workspace {
            Some(root) => file::read_project(root)?,
            None => None,
        };
        let project_model = project
            .as_ref()
            .and_then(|p| p.provider.as_ref())
            .and_then(|p| p.model.clone());
        let project_steps = project.as_ref().and_then(|p| p.max_steps);

        let env = crate::env::provider_from_env();
        // Which source's URL wins decides whose key goes with it (and which variable to keep
        // out of commands).
        let key_var = if self.provider.base_url.is_some() {
            None
        } else if env.options.base_url.is_some() {
            env.key_var.map(str::to_string)
        } else if user.provider.base_url.is_some() {
            user.key_var.clone()
        } else {
            None
        };
        let mut provider = self.provider.or(env.options).or(user.provider);
        // The project's model is a suggestion for a model nobody of the user's chose, on a
        // server that bills nobody: it never overrides the user's own file, and never goes out
        // with the user's key (a repository must not pick what a hosted account pays for).
        if let Some(model) = project_model {
            if provider.model.is_none() && provider.api_key.is_none() {
                provider.model = Some(model);
            } else {
                eprintln!(
                    "tandem: the project's `provider.model` ({model}) is not used: {}",
                    if provider.model.is_some() {
                        "your settings name a model"
                    } else {
                        "the endpoint takes your API key, so only your settings choose its model"
                    }
                );
            }
        }
        let key_var = provider.api_key.as_ref().and(key_var);
        let mut mcp_servers = user.mcp_servers;
        mcp_servers.extend(self.mcp_servers);
        let protected = protected_dirs(user_path.as_ref().map(|(file, _)| file.as_path()));
        let settings = AgentSettings {
            policy: self.policy.or(user.policy).resolve(),
            max_steps: self
                .max_steps
                .or(project_steps)
                .or(user.max_steps)
                .unwrap_or(AgentSettings::DEFAULT_MAX_STEPS)
                .max(1),
            data_dir: self
                .data_dir
                .or(user.data_dir)
                .unwrap_or_else(AgentSettings::default_data_dir),
            key_var,
            mcp_servers,
            user_rules: self
                .user_rules
                .or_else(tandem_agent::rules::default_user_file),
            user_commands: tandem_agent::commands::default_user_dirs(),
            subagents: tandem_agent::subagent::SubagentSettings {
                user_dirs: tandem_agent::subagent::definitions::default_user_dirs(),
                concurrency: user
                    .subagent_concurrency
                    .unwrap_or(tandem_agent::subagent::SubagentSettings::default().concurrency)
                    .max(1),
            },
            // "Always allow" for commands saves to the user's own file, never the project's.
            rule_store: user_path.map(|(file, _)| {
                Arc::new(crate::rules::UserRuleStore { file })
                    as Arc<dyn tandem_agent::approval::RuleStore>
            }),
            hooks: user.hooks,
            project_hooks: Some(Arc::new(ProjectHookFile)),
            protected,
        };
        Ok(Resolved {
            settings,
            provider,
            limits: self.limits.or(user.limits).unwrap_or_default(),
        })
    }
}

/// Reads a project's `[hooks]` for the agent, which puts them to the user before any runs.
#[derive(Debug)]
struct ProjectHookFile;

impl tandem_agent::hooks::ProjectHooks for ProjectHookFile {
    fn read(&self, root: &std::path::Path) -> Result<Vec<tandem_agent::hooks::HookSpec>, String> {
        project_hooks(root).map_err(|e| e.to_string())
    }
}

/// A project's hooks for a session on `root`: they run only once the user trusts them, always
/// in the sandbox (a `sandbox = false` in the project's file is an error).
pub fn project_hooks(
    root: &std::path::Path,
) -> Result<Vec<tandem_agent::hooks::HookSpec>, ConfigError> {
    let Some(project) = file::read_project(root)? else {
        return Ok(Vec::new());
    };
    let path = file::project_config_path(root);
    match &project.hooks {
        None => Ok(Vec::new()),
        Some(hooks) => hooks
            .specs(&tandem_agent::hooks::HookSource::Project(path.clone()))
            .map_err(|message| ConfigError {
                file: path,
                line: None,
                message,
            }),
    }
}

/// A project's MCP servers for a session on `root`: they start only once the user trusts them.
pub fn project_mcp_servers(
    root: &std::path::Path,
) -> Result<Vec<tandem_agent::mcp::SessionServer>, ConfigError> {
    let Some(project) = file::read_project(root)? else {
        return Ok(Vec::new());
    };
    let source = file::project_config_path(root);
    Ok(project
        .mcp
        .map(|m| m.servers)
        .unwrap_or_default()
        .into_iter()
        .map(|config| tandem_agent::mcp::SessionServer {
            config,
            source: tandem_agent::mcp::ServerSource::Project {
                file: source.clone(),
            },
        })
        .collect())
}

/// Tandem's own config, which no tool or command may write: the platform's `tandem` config dir
/// (its `config.toml`, commands, agents and rules: what runs unsandboxed, what is trusted), and
/// a config file named elsewhere (`--config`, `TANDEM_CONFIG`) by itself, not its folder, which
/// may be a project's.
fn protected_dirs(user_config: Option<&std::path::Path>) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<std::path::PathBuf> = dirs::config_dir()
        .map(|d| d.join("tandem"))
        .into_iter()
        .collect();
    if let Some(file) = user_config
        && !dirs.iter().any(|d| file.starts_with(d))
    {
        dirs.push(file.to_path_buf());
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A user file (`base_url`, maybe `model` and `api_key`) and a project that names a model.
    fn resolve(user: &str) -> ProviderOptions {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join(".tandem")).unwrap();
        std::fs::write(
            ws.join(".tandem/config.toml"),
            "[provider]\nmodel = \"project-model\"\n",
        )
        .unwrap();
        let config = dir.path().join("user.toml");
        std::fs::write(&config, user).unwrap();
        StartOptions {
            config_file: Some(config),
            workspace: Some(ws),
            data_dir: Some(dir.path().join("data")),
            ..Default::default()
        }
        .resolve()
        .unwrap()
        .provider
    }

    #[test]
    fn a_projects_model_neither_overrides_the_users_file_nor_goes_out_with_the_users_key() {
        let own = resolve("[provider]\nbase_url = \"http://local/v1\"\nmodel = \"mine\"\n");
        assert_eq!(own.model.as_deref(), Some("mine"));
        let keyed = resolve("[provider]\nbase_url = \"https://hosted/v1\"\napi_key = \"k\"\n");
        assert_eq!(keyed.model, None);
        assert_eq!(keyed.api_key.unwrap().expose(), "k");
        // A local server with no key and no model of the user's: the project's suggestion.
        let local = resolve("[provider]\nbase_url = \"http://local/v1\"\n");
        assert_eq!(local.model.as_deref(), Some("project-model"));
    }
}
