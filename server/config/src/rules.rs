//! "Always allow" for commands: the rules the user accepted, added to their own config file
//! under `[projects."WORKSPACE".approval.rules] allow`, with its comments and layout kept. Never
//! a project's `.tandem/config.toml`: a repository can't admit its own commands.

use std::path::{Path, PathBuf};

use tandem_agent::approval::RuleStore;
use toml_edit::{Array, DocumentMut, Item, Table, value};

/// Saves to one config file (the user's: `--config`, `TANDEM_CONFIG` or the platform's).
#[derive(Debug)]
pub struct UserRuleStore {
    pub file: PathBuf,
}

impl RuleStore for UserRuleStore {
    fn save_allow(&self, workspace: &Path, rules: &[String]) -> Result<String, String> {
        save_allow(&self.file, workspace, rules).map(|()| {
            format!(
                "{} ([projects.\"{}\".approval.rules])",
                self.file.display(),
                key(workspace)
            )
        })
    }
}

/// The section's key: the workspace's resolved path.
fn key(workspace: &Path) -> String {
    std::fs::canonicalize(workspace)
        .unwrap_or_else(|_| workspace.to_path_buf())
        .display()
        .to_string()
}

/// Adds `rules` (those not there yet) to the workspace's allow rules in `file`, creating the
/// file and the tables as needed. The result must still be a valid config file, or nothing is
/// written.
pub fn save_allow(file: &Path, workspace: &Path, rules: &[String]) -> Result<(), String> {
    let text = match tandem_stdx::regular::read_string(file, crate::file::MAX_CONFIG_BYTES) {
        Ok(text) => text,
        Err(tandem_stdx::regular::NotRegular::Missing) => String::new(),
        Err(e) => return Err(format!("{} can't be read: {e}", file.display())),
    };
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| format!("{} is not valid TOML: {e}", file.display()))?;
    let section = key(workspace);
    let allow = table(doc.as_table_mut(), "projects")
        .and_then(|t| table(t, &section))
        .and_then(|t| table(t, "approval"))
        .and_then(|t| table(t, "rules"))
        .ok_or_else(|| {
            format!(
                "{}: `projects.\"{section}\".approval.rules` is not a table",
                file.display()
            )
        })?;
    let list = allow
        .entry("allow")
        .or_insert_with(|| value(Array::new()))
        .as_array_mut()
        .ok_or_else(|| {
            format!(
                "{}: `allow` of the project's rules is not a list",
                file.display()
            )
        })?;
    for rule in rules {
        if !list.iter().any(|v| v.as_str() == Some(rule)) {
            list.push(rule.as_str());
        }
    }
    let new = doc.to_string();
    crate::file::parse(file, &new).map_err(|e| e.to_string())?;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let temp = file.with_extension("toml.tandem-new");
    std::fs::write(&temp, new).map_err(|e| format!("{}: {e}", temp.display()))?;
    std::fs::rename(&temp, file).map_err(|e| format!("{}: {e}", file.display()))
}

/// The sub-table `name` of `parent`, made (implicit, so no empty header) if absent.
fn table<'a>(parent: &'a mut Table, name: &str) -> Option<&'a mut Table> {
    let item = parent.entry(name).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    item.as_table_mut()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_added_to_the_workspace_section_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tandem/config.toml");
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "# mine\n[approval]\nallow_commands = [\"ls\"]\n").unwrap();
        save_allow(&file, &ws, &["cargo test".into()]).unwrap();
        save_allow(&file, &ws, &["cargo test".into(), "npm run build".into()]).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.starts_with("# mine\n[approval]\nallow_commands = [\"ls\"]\n"),
            "{text}"
        );
        let parsed = crate::file::parse(&file, &text).unwrap();
        assert_eq!(
            parsed.project_rules(&ws).unwrap().allow,
            ["cargo test", "npm run build"]
        );
        let policy = parsed.settings(&file, Some(&ws)).unwrap().policy;
        assert_eq!(
            policy.allow_commands.unwrap(),
            ["ls", "cargo test", "npm run build"]
        );
        // Another workspace doesn't get them.
        let other = parsed.settings(&file, Some(dir.path())).unwrap().policy;
        assert_eq!(other.allow_commands.unwrap(), ["ls"]);
    }

    #[test]
    fn a_missing_file_is_created_and_a_broken_one_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("new/config.toml");
        save_allow(&file, dir.path(), &["make check".into()]).unwrap();
        assert!(
            std::fs::read_to_string(&file)
                .unwrap()
                .contains("make check")
        );
        let broken = dir.path().join("broken.toml");
        std::fs::write(&broken, "projects = 3\n").unwrap();
        let e = save_allow(&broken, dir.path(), &["x".into()]).unwrap_err();
        assert!(e.contains("not a table"), "{e}");
        assert_eq!(std::fs::read_to_string(&broken).unwrap(), "projects = 3\n");
    }
}

#[cfg(test)]
mod project_files {
    use std::path::Path;

    /// A repository's `.tandem/config.toml` can't hold command rules, in either place.
    #[test]
    fn a_project_file_can_never_admit_its_own_commands() {
        let path = Path::new("/ws/.tandem/config.toml");
        for text in [
            "[approval.rules]\nallow = [\"rm\"]\n",
            "[projects.\"/ws\".approval.rules]\nallow = [\"curl\"]\n",
        ] {
            let file = crate::file::parse(path, text).unwrap();
            let e = file.check_project(path, text).unwrap_err().to_string();
            assert!(e.contains("move"), "{e}");
        }
    }
}
