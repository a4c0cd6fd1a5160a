//! Building the agent from what a face was given.

use std::path::PathBuf;
use std::sync::Arc;

use tandem_agent::approval::ApprovalPolicy;
use tandem_agent::{Agent, AgentSettings};
use tandem_provider::{LazyClient, Limits, ProviderOptions};

/// How a face starts the agent: what its command line (or the editor) says, the rest from the
/// environment and the defaults.
#[derive(Clone, Debug, Default)]
pub struct StartOptions {
    pub provider: ProviderOptions,
    pub policy: ApprovalPolicy,
    pub data_dir: Option<PathBuf>,
    pub max_steps: Option<u32>,
    /// Bounds on what the model server may send; the defaults when absent.
    pub limits: Option<Limits>,
}

impl StartOptions {
    /// The agent, and its model client (for switching models).
    pub fn start(self) -> (Agent, Arc<LazyClient>) {
        let env = crate::env::provider_from_env();
        let provider = self.provider.or(env.options);
        // Only the variable whose key is in use; the usual key names are always dropped.
        let key_var = provider
            .api_key
            .as_ref()
            .and(env.key_var)
            .map(str::to_string);
        let settings = AgentSettings {
            policy: self.policy,
            max_steps: self
                .max_steps
                .unwrap_or(AgentSettings::DEFAULT_MAX_STEPS)
                .max(1),
            data_dir: self
                .data_dir
                .unwrap_or_else(AgentSettings::default_data_dir),
            key_var,
        };
        let limits = self.limits.unwrap_or_default();
        let client = Arc::new(LazyClient::new(provider, limits));
        (Agent::new(settings, client.clone()), client)
    }
}
