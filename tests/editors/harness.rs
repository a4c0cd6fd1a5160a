//! What every editor test needs: a workspace, the `tandem` wrapper, the setup snippets from
//! docs/editors.md, and a headless editor run with a safety net.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use mock_model::MockServer;
use serde_json::Value;

/// How long one editor run may take before it is killed. A safety net, not a timing assertion:
/// a run takes a few seconds, but the machine may be busy.
const SAFETY: Duration = Duration::from_secs(90);

/// The model name the wrapper passes; any name works with the mock.
pub const MODEL: &str = "mock-coder";

/// This folder, where the editor scripts are.
pub fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/editors")
}

/// An editor the tests need, and the Debian package that has it.
pub struct Editor {
    pub program: &'static str,
    /// Arguments that succeed only when the editor has what the tests need.
    probe: &'static [&'static str],
    pub install: &'static str,
}

pub const NEOVIM: Editor = Editor {
    program: "nvim",
    probe: &["--version"],
    install: "apt-get install -y neovim",
};

pub const EMACS: Editor = Editor {
    program: "emacs",
    probe: &["--batch", "--eval", "(require 'eglot)"],
    install: "apt-get install -y --no-install-recommends emacs-nox elpa-eglot",
};

/// Emacs with lsp-mode (Debian's elpa-lsp-mode, 8.0), for the docs' lsp-mode setup.
pub const LSP_MODE: Editor = Editor {
    program: "emacs",
    probe: &["--batch", "--eval", "(require 'lsp-mode)"],
    install: "apt-get install -y --no-install-recommends emacs-nox elpa-lsp-mode",
};

impl Editor {
    /// Fails the test (never skips it: CI installs the editors) when the editor is missing.
    pub fn require(&self) {
        let found = Command::new(self.program)
            .args(self.probe)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            found,
            "`{} {}` failed: these tests need {0} installed. On Debian: {}",
            self.program,
            self.probe.join(" "),
            self.install
        );
    }
}

/// A temp folder with the workspace, a home for the editor, the wrapper and the logs.
pub struct Workspace {
    _dir: tempfile::TempDir,
    /// Canonical, as the sidecar reports paths.
    pub root: PathBuf,
    /// A symlink to `root`: the editor works through it (as in macOS `/tmp` or a linked home),
    /// so its paths and the sidecar's differ.
    pub link: PathBuf,
    home: PathBuf,
    bin: PathBuf,
    pub data_dir: PathBuf,
    /// The sidecar's stderr.
    pub log: PathBuf,
    /// What the editor script records.
    pub results: PathBuf,
    /// Where a test puts the setup the script loads (a snippet of docs/editors.md).
    pub setup: PathBuf,
}

impl Workspace {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().canonicalize().expect("canonical temp dir");
        let root = base.join("project");
        let (home, bin, data_dir) = (base.join("home"), base.join("bin"), base.join("data"));
        for d in [&root, &home, &bin, &data_dir] {
            std::fs::create_dir_all(d).expect("create dir");
        }
        let link = base.join("link");
        std::os::unix::fs::symlink(&root, &link).expect("symlink the workspace");
        Self {
            _dir: dir,
            root,
            link,
            home,
            bin,
            data_dir,
            log: base.join("tandem.log"),
            results: base.join("results.json"),
            setup: base.join("setup"),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"))
    }

    /// Puts `tandem` on the editor's PATH: the binary under test with the mock as its provider
    /// (by flags, which `initializationOptions` override) and a private data dir; its stderr
    /// goes to the log.
    fn install_wrapper(&self, mock: &MockServer) {
        let script = format!(
            "#!/bin/sh\nexec {bin} \"$@\" --base-url {url} --model {MODEL} --data-dir {data} 2>>{log}\n",
            bin = quote(env!("CARGO_BIN_EXE_tandem")),
            url = quote(&mock.base_url()),
            data = quote(&self.data_dir.display().to_string()),
            log = quote(&self.log.display().to_string()),
        );
        let path = self.bin.join("tandem");
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Runs `program args` in the workspace with a clean environment, the wrapper first on the
    /// PATH, and `TANDEM_TEST_*` telling the script where things are; kills it after [`SAFETY`].
    pub fn run_editor(&self, mock: &MockServer, program: &str, args: &[&str]) -> Run {
        self.run_editor_with(mock, program, args, &[])
    }

    /// [`Self::run_editor`] with more variables in the editor's environment (what the user's
    /// shell would have set).
    pub fn run_editor_with(
        &self,
        mock: &MockServer,
        program: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Run {
        self.install_wrapper(mock);
        let _ = std::fs::remove_file(&self.results);
        let mut command = Command::new(program);
        for (name, _) in std::env::vars_os() {
            let name_str = name.to_string_lossy();
            if name_str.starts_with("TANDEM_") || name_str.starts_with("OPENAI_") {
                command.env_remove(&name);
            }
        }
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        command
            .args(args)
            .current_dir(&self.link)
            .env("PWD", &self.link)
            .env("PATH", path)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("XDG_STATE_HOME", self.home.join(".local/state"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("TERM", "dumb")
            .env("TANDEM_TEST_SCRIPTS", scripts_dir())
            .env("TANDEM_TEST_ROOT", &self.link)
            .env("TANDEM_TEST_RESULTS", &self.results)
            .env("TANDEM_TEST_SETUP", &self.setup)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group, so the safety net kills the sidecar with the editor.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let started = Instant::now();
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let (out, err) = (
            drain(child.stdout.take().unwrap()),
            drain(child.stderr.take().unwrap()),
        );
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for the editor") {
                break Some(status);
            }
            if started.elapsed() > SAFETY {
                // SAFETY: signalling the group we created; no memory is involved.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let results = std::fs::read_to_string(&self.results).unwrap_or_default();
        Run {
            program: program.to_string(),
            status,
            stdout: out.join().unwrap(),
            stderr: err.join().unwrap(),
            results: serde_json::from_str(&results).unwrap_or(Value::Null),
            raw_results: results,
            tandem_log: std::fs::read_to_string(&self.log).unwrap_or_default(),
            took: started.elapsed(),
        }
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Single-quoted for sh.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// One editor run: how it ended and everything it left behind.
pub struct Run {
    program: String,
    /// `None`: killed by the safety net.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    /// The script's record (null when it wrote none).
    pub results: Value,
    raw_results: String,
    pub tandem_log: String,
    pub took: Duration,
}

impl Run {
    /// Everything there is to know when an assertion fails.
    pub fn dump(&self) -> String {
        let ended = match self.status {
            Some(s) => format!("exited with {s}"),
            None => format!("was killed after {SAFETY:?}"),
        };
        format!(
            "\n--- {program} {ended} after {took:.1?}\n--- results:\n{results}\n--- {program} \
             stdout:\n{out}\n--- {program} stderr:\n{err}\n--- tandem stderr:\n{log}\n",
            program = self.program,
            took = self.took,
            results = serde_json::to_string_pretty(&self.results)
                .ok()
                .filter(|_| !self.results.is_null())
                .unwrap_or_else(|| self.raw_results.clone()),
            out = self.stdout,
            err = self.stderr,
            log = self.tandem_log,
        )
    }

    /// The script finished without an error of its own (a failed wait names what it waited for).
    pub fn assert_finished(&self) {
        let ok = self.status.is_some_and(|s| s.success())
            && self.results["error"].is_null()
            && self.results["finished"] == true;
        assert!(ok, "the editor script did not finish{}", self.dump());
    }

    /// A field of the record, failing with the whole story when it's missing.
    pub fn get(&self, pointer: &str) -> &Value {
        self.results
            .pointer(pointer)
            .unwrap_or_else(|| panic!("no {pointer} in the results{}", self.dump()))
    }

    /// The strings at `pointer` (a list), one per item, `field` of each when given.
    pub fn strings(&self, pointer: &str, field: Option<&str>) -> Vec<String> {
        self.get(pointer)
            .as_array()
            .unwrap_or_else(|| panic!("{pointer} is not a list{}", self.dump()))
            .iter()
            .map(|v| {
                let v = field.map_or(v, |f| &v[f]);
                v.as_str().unwrap_or_default().to_string()
            })
            .collect()
    }
}

/// docs/editors.md, as the tests read it.
pub fn doc_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/editors.md")
}

/// A fenced code block of docs/editors.md.
#[derive(Debug)]
pub struct DocBlock {
    /// 1-based line of the opening fence.
    pub line: usize,
    /// The info string (`lua`, `elisp`, ...).
    pub lang: String,
    /// NAME of a `<!-- test: NAME -->` on the line right before the fence.
    pub marker: Option<String>,
    /// The contents, without the fence's indentation (a block inside a list item is indented).
    pub text: String,
}

/// Every fenced code block of docs/editors.md, in order.
pub fn doc_blocks() -> Vec<DocBlock> {
    let doc = std::fs::read_to_string(doc_path()).expect("read docs/editors.md");
    let lines: Vec<&str> = doc.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        if !trimmed.starts_with("```") {
            i += 1;
            continue;
        }
        let indent = lines[i].len() - trimmed.len();
        let marker = i
            .checked_sub(1)
            .and_then(|p| lines[p].trim().strip_prefix("<!-- test: "))
            .and_then(|m| m.strip_suffix(" -->"))
            .map(str::to_string);
        let (line, lang) = (i + 1, trimmed.trim_start_matches('`').trim().to_string());
        let mut text = String::new();
        i += 1;
        loop {
            let l = lines.get(i).unwrap_or_else(|| {
                panic!("the code block at docs/editors.md:{line} is not closed")
            });
            i += 1;
            if l.trim() == "```" {
                break;
            }
            let cut = l.len() - l.trim_start().len();
            text.push_str(&l[cut.min(indent)..]);
            text.push('\n');
        }
        blocks.push(DocBlock {
            line,
            lang,
            marker,
            text,
        });
    }
    blocks
}

/// The code block right after `<!-- test: NAME -->` in docs/editors.md: the tests run the
/// setup users copy, not a private one.
pub fn docs_snippet(name: &str) -> String {
    doc_blocks()
        .into_iter()
        .find(|b| b.marker.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no code block marked <!-- test: {name} --> in docs/editors.md"))
        .text
}
