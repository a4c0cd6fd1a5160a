//! The environment commands run with: the sidecar's own, without the provider's secrets, plus
//! settings that stop git from running configuration the model wrote.
//!
//! Meant to be used whole: `command.env_clear().envs(command_env(std::env::vars_os(), key_var,
//! workspace))`. Setting single variables on top of the inherited environment cannot remove one.

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// Variables that hold a provider key, dropped whatever the configuration says.
pub const SECRET_VARS: &[&str] = &[
    "TANDEM_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENROUTER_API_KEY",
];

/// The git configuration every command gets, through `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`
/// (these outrank every configuration file).
///
/// `safe.bareRepository=explicit`: a directory the model filled with `HEAD`, `config`, `objects/`
/// and `refs/` is otherwise a bare repository to git, and its `config` (`core.fsmonitor`,
/// `core.pager`, hooks paths...) runs programs as soon as git starts in it.
pub const GIT_CONFIG: &[(&str, &str)] = &[("safe.bareRepository", "explicit")];

/// `vars` without [`SECRET_VARS`] and without `key_var`, the variable the provider key was read
/// from (if it has another name). The order of the rest is kept.
pub fn without_secrets<I>(vars: I, key_var: Option<&str>) -> Vec<(OsString, OsString)>
where
    I: IntoIterator<Item = (OsString, OsString)>,
{
    vars.into_iter()
        .filter(|(name, _)| {
            !SECRET_VARS.iter().any(|s| name == OsStr::new(s))
                && key_var.is_none_or(|k| name != OsStr::new(k))
        })
        .collect()
}

/// `vars` with git's discovery stopped above the workspace (`GIT_CEILING_DIRECTORIES` gets the
/// workspace's parent, after any entries already there) and [`GIT_CONFIG`] appended to any
/// `GIT_CONFIG_COUNT` list already present. A count that is not a number (git would refuse to
/// start) is replaced, together with the entries it numbered.
pub fn with_git_hardening(
    vars: Vec<(OsString, OsString)>,
    workspace: &Path,
) -> Vec<(OsString, OsString)> {
    let get = |vars: &[(OsString, OsString)], name: &str| {
        vars.iter()
            .rev()
            .find(|(n, _)| n == OsStr::new(name))
            .map(|(_, v)| v.clone())
    };
    // None: no list yet; Some(None): a count git would refuse, so it and its entries go.
    let existing_count = get(&vars, "GIT_CONFIG_COUNT")
        .map(|c| c.to_str().and_then(|c| c.trim().parse::<usize>().ok()));
    let bogus = matches!(existing_count, Some(None));
    let start = existing_count.flatten().unwrap_or(0);
    let ceiling = workspace.parent().map(|parent| {
        match get(&vars, "GIT_CEILING_DIRECTORIES").filter(|v| !v.is_empty()) {
            Some(mut list) => {
                list.push(":");
                list.push(parent);
                list
            }
            None => parent.as_os_str().to_owned(),
        }
    });

    let is_numbered = |name: &OsStr| {
        name.to_str().is_some_and(|n| {
            n.strip_prefix("GIT_CONFIG_KEY_")
                .or_else(|| n.strip_prefix("GIT_CONFIG_VALUE_"))
                .is_some_and(|i| i.parse::<usize>().is_ok())
        })
    };
    let mut out: Vec<(OsString, OsString)> = vars
        .into_iter()
        .filter(|(name, _)| {
            name != OsStr::new("GIT_CONFIG_COUNT")
                && (ceiling.is_none() || name != OsStr::new("GIT_CEILING_DIRECTORIES"))
                && !(bogus && is_numbered(name))
        })
        .collect();
    for (i, (key, value)) in GIT_CONFIG.iter().enumerate() {
        out.push((
            format!("GIT_CONFIG_KEY_{}", start + i).into(),
            (*key).into(),
        ));
        out.push((
            format!("GIT_CONFIG_VALUE_{}", start + i).into(),
            (*value).into(),
        ));
    }
    out.push((
        "GIT_CONFIG_COUNT".into(),
        (start + GIT_CONFIG.len()).to_string().into(),
    ));
    if let Some(ceiling) = ceiling {
        out.push(("GIT_CEILING_DIRECTORIES".into(), ceiling));
    }
    out
}

/// The whole environment for a command: [`without_secrets`], then [`with_git_hardening`].
pub fn command_env<I>(vars: I, key_var: Option<&str>, workspace: &Path) -> Vec<(OsString, OsString)>
where
    I: IntoIterator<Item = (OsString, OsString)>,
{
    with_git_hardening(without_secrets(vars, key_var), workspace)
}
