//! The hooks as `tandem doctor` and `/hooks` list them: the user's, and the project's with
//! whether the user trusted each as it is now (the trust record's verdict), and why not.

use crate::hooks::{HookListing, HookSource, listing};

/// The user's hooks and the project's in `root` as listed, each project hook with whether the
/// user trusted it for good as it is now, and why not. Reads and hashes the files the project's
/// hooks name: off the async threads. A project file that can't be read is the `Err`.
pub fn listing_in(
    settings: &crate::AgentSettings,
    root: &std::path::Path,
) -> (Vec<HookListing>, Option<String>) {
    let mut hooks = settings.hooks.clone();
    let mut problem = None;
    if let Some(reader) = &settings.project_hooks {
        match reader.read(root) {
            Ok(project) => hooks.extend(project),
            Err(e) => problem = Some(e),
        }
    }
    let store = crate::trust::TrustStore::new(&settings.data_dir);
    let mut listed = listing(&hooks, settings.policy.sandbox);
    for (hook, listed) in hooks.iter().zip(&mut listed) {
        if !matches!(hook.source, HookSource::Project(_)) {
            continue;
        }
        // A project's hook runs in the walls whatever its file says.
        listed.sandboxed = settings.policy.sandbox != tandem_sandbox::SandboxMode::Off;
        let subject = crate::trust::Subject::Hook(hook);
        (listed.trusted, listed.why) = match store.check_subject(root, subject) {
            crate::trust::Verdict::Trusted => (true, "you trusted it as it is now".into()),
            crate::trust::Verdict::Ask { changed, unbound } => {
                let mut why = if changed.is_empty() {
                    "asks before it runs: never trusted for good in this project".to_string()
                } else {
                    format!(
                        "asks before it runs: changed since you trusted it: {}",
                        changed.join(", ")
                    )
                };
                if let Some(unbound) = unbound {
                    why.push_str(&format!("; it can't be trusted for good, since {unbound}"));
                }
                (false, why)
            }
        };
    }
    (listed, problem)
}
