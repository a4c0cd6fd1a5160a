//! Building the agent from what a face was given.
//!
//! Precedence, field by field: the editor's `initializationOptions` or the command line, then
//! the environment, then the project's `.tandem/config.toml` (model and max steps only), then
//! the user's config file, then the defaults (and discovery of a local model server). A key
//! goes only with the base URL of the source that gave it.

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
        let user = match file::user_config_path(self.config_file.as_deref()) {
            Some((path, must_exist)) => match file::read(&path, must_exist)? {
                Some(f) => f.settings(&path)?,
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
        let project_provider = ProviderOptions {
            model: project_model,
            ..Default::default()
        };
        let provider = self
            .provider
            .or(env.options)
            .or(project_provider)
            .or(user.provider);
        let key_var = provider.api_key.as_ref().and(key_var);
        let mut mcp_servers = user.mcp_servers;
        mcp_servers.extend(self.mcp_servers);
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
        };
        Ok(Resolved {
            settings,
            provider,
            limits: self.limits.or(user.limits).unwrap_or_default(),
        })
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
