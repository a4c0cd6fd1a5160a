//! The macOS sandbox's profile (Seatbelt, run by `/usr/bin/sandbox-exec`), from a
//! [`SandboxPolicy`]: reads everywhere; writes only beneath the writable roots (the workspace and
//! the temp directories) and to a few harmless devices, never inside a root's `.git`; no IP
//! network, in or out, unless the policy allows it (Unix sockets stay, as on Linux).
//!
//! Paths never appear in the profile's text: each is a parameter (`-D NAME=PATH`) the profile
//! names, so no file name can change what the profile says. Seatbelt matches real paths
//! (`/tmp` is `/private/tmp`), so the roots are given canonical, as the policy holds them.
//!
//! Built and tested on every OS (it is text); [`SeatbeltProfile::command`] is what macOS runs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::SandboxPolicy;

/// Where macOS keeps `sandbox-exec`; only this one is trusted, never one found on `PATH`.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// Devices any program may write: output sinks and random sources.
const DEVICES: [&str; 4] = ["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatbeltProfile {
    /// The profile, in Seatbelt's language (SBPL).
    pub text: String,
    /// The parameters it names, with their values.
    pub params: Vec<(String, PathBuf)>,
}

impl SeatbeltProfile {
    pub fn new(policy: &SandboxPolicy) -> SeatbeltProfile {
        let mut params = Vec::new();
        let mut writable = Vec::new();
        // Temp directories are shared here: one holding a read-only root is not writable.
        for (i, root) in policy.writable_for(false).iter().enumerate() {
            let name = format!("WRITABLE_ROOT_{i}");
            let git = root.join(".git");
            if root.is_dir() {
                let git_name = format!("{name}_GIT");
                writable.push(format!(
                    "  (require-all (subpath (param \"{name}\")) \
                     (require-not (subpath (param \"{git_name}\"))))"
                ));
                params.push((name, root.clone()));
                params.push((git_name, git));
            } else {
                writable.push(format!("  (literal (param \"{name}\"))"));
                params.push((name, root.clone()));
            }
        }
        for device in DEVICES {
            writable.push(format!("  (literal \"{device}\")"));
        }
        // Terminals: the command may write to the one it was given.
        writable.push("  (regex #\"^/dev/ttys[0-9]+$\")".to_string());

        let mut text = String::from(
            "(version 1)\n\
             ; Everything not denied below is allowed: programs keep working as they do outside.\n\
             (allow default)\n\
             ; Writes: only beneath the writable roots (never a root's .git) and to devices.\n\
             (deny file-write*)\n\
             (allow file-write*\n",
        );
        text.push_str(&writable.join("\n"));
        text.push_str(")\n");
        if !policy.network {
            text.push_str(
                "; No IP network, in or out; Unix sockets are files, governed by the writes.\n\
                 (deny network-outbound (remote ip))\n\
                 (deny network-inbound (local ip))\n\
                 (deny network-bind (local ip))\n",
            );
        }
        SeatbeltProfile { text, params }
    }

    /// The arguments to [`SANDBOX_EXEC`] that run `program` with `args` under this profile.
    pub fn command(&self, program: &Path, args: &[OsString]) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec!["-p".into(), self.text.clone().into()];
        for (name, value) in &self.params {
            let mut define = OsString::from(format!("-D{name}="));
            define.push(value);
            out.push(define);
        }
        out.push("--".into());
        out.push(program.into());
        out.extend(args.iter().cloned());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SandboxMode;

    fn policy(roots: &[&Path], network: bool) -> SandboxPolicy {
        SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            network,
            writable_roots: roots.iter().map(|r| r.to_path_buf()).collect(),
            readonly_roots: Vec::new(),
            temp_dirs: Vec::new(),
        }
    }

    #[test]
    fn writes_are_denied_except_beneath_the_roots_and_never_in_git() {
        let ws = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let profile = SeatbeltProfile::new(&policy(&[ws.path(), tmp.path()], false));
        let text = &profile.text;
        assert!(text.starts_with("(version 1)\n"), "{text}");
        let deny = text.find("(deny file-write*)").expect("writes denied");
        let allow = text
            .find("(allow file-write*")
            .expect("some writes allowed");
        assert!(deny < allow, "the allow must come after the deny: {text}");
        for i in 0..2 {
            assert!(text.contains(&format!(
                "(require-all (subpath (param \"WRITABLE_ROOT_{i}\")) (require-not (subpath (param \"WRITABLE_ROOT_{i}_GIT\"))))"
            )), "{text}");
        }
        assert_eq!(
            profile.params,
            vec![
                ("WRITABLE_ROOT_0".to_string(), ws.path().to_path_buf()),
                ("WRITABLE_ROOT_0_GIT".to_string(), ws.path().join(".git")),
                ("WRITABLE_ROOT_1".to_string(), tmp.path().to_path_buf()),
                ("WRITABLE_ROOT_1_GIT".to_string(), tmp.path().join(".git")),
            ]
        );
        assert!(text.contains("(literal \"/dev/null\")"));
        // Nothing else is writable: no other allow of writes, no broad subpath.
        assert_eq!(text.matches("(allow file-write*").count(), 1);
        assert!(!text.contains("(subpath \"/"), "{text}");
    }

    #[test]
    fn the_network_is_denied_unless_allowed() {
        let ws = tempfile::tempdir().unwrap();
        let closed = SeatbeltProfile::new(&policy(&[ws.path()], false)).text;
        for rule in [
            "(deny network-outbound (remote ip))",
            "(deny network-inbound (local ip))",
            "(deny network-bind (local ip))",
        ] {
            assert!(closed.contains(rule), "{rule} missing: {closed}");
        }
        let open = SeatbeltProfile::new(&policy(&[ws.path()], true)).text;
        assert!(!open.contains("network"), "{open}");
    }

    // Quotes and parentheses are legal in Unix file names only.
    #[cfg(unix)]
    #[test]
    fn paths_are_parameters_so_no_file_name_can_change_the_profile() {
        let dir = tempfile::tempdir().unwrap();
        let evil = dir.path().join("ws\")) (allow file-write* (subpath \"/");
        std::fs::create_dir(&evil).unwrap();
        let profile = SeatbeltProfile::new(&policy(&[&evil], false));
        assert!(!profile.text.contains("ws\""), "{}", profile.text);
        assert_eq!(profile.params[0].1, evil);
        let args = profile.command(Path::new("/bin/zsh"), &["-c".into(), "make".into()]);
        assert_eq!(args[0], "-p");
        assert_eq!(args[1], OsString::from(profile.text.clone()));
        let mut define = OsString::from("-DWRITABLE_ROOT_0=");
        define.push(&evil);
        assert_eq!(args[2], define);
        let tail: Vec<&OsString> = args.iter().skip_while(|a| *a != "--").collect();
        assert_eq!(tail, ["--", "/bin/zsh", "-c", "make"]);
    }

    #[test]
    fn a_file_root_is_writable_as_that_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.log");
        std::fs::write(&file, "").unwrap();
        let profile = SeatbeltProfile::new(&policy(&[&file], false));
        assert!(
            profile
                .text
                .contains("(literal (param \"WRITABLE_ROOT_0\"))")
        );
        assert_eq!(profile.params, vec![("WRITABLE_ROOT_0".to_string(), file)]);
    }

    #[test]
    fn the_command_runs_the_program_through_sandbox_exec_with_the_profile() {
        let ws = tempfile::tempdir().unwrap();
        let command = crate::confine::seatbelt_command(
            "/bin/sh".as_ref(),
            &["-c".into(), "make test".into()],
            &policy(&[ws.path()], false),
        );
        assert_eq!(command.get_program(), SANDBOX_EXEC);
        let args: Vec<&std::ffi::OsStr> = command.get_args().collect();
        assert_eq!(args[0], "-p");
        assert!(
            args[1]
                .to_string_lossy()
                .contains("(deny network-outbound (remote ip))")
        );
        let tail: Vec<&std::ffi::OsStr> = args.iter().copied().skip_while(|a| *a != "--").collect();
        assert_eq!(tail, ["--", "/bin/sh", "-c", "make test"]);
    }
}
