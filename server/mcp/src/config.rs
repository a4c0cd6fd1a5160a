//! Which MCP servers to run: the shape of ACP's `mcpServers` (camelCase), so the same values come
//! from an ACP `session/new`, the LSP `initializationOptions` or a TOML config file.
//!
//! ```json
//! {"name": "fs", "command": "mcp-server-filesystem", "args": ["/tmp"], "env": [{"name": "X", "value": "1"}]}
//! {"type": "http", "name": "web", "url": "http://127.0.0.1:3001/mcp", "headers": [{"name": "Authorization", "value": "Bearer t"}]}
//! ```
//!
//! ```toml
//! [[mcp.servers]]
//! name = "fs"
//! command = "mcp-server-filesystem"
//! args = ["/tmp"]
//! startup = "eager"
//! ```
//!
//! ACP v1 writes a stdio server without `type`, v2 with `"type": "stdio"`; both are read. Beside
//! ACP's fields there is `startup` (`"lazy"`, the default, or `"eager"`; see [`Startup`]), and
//! for stdio servers `sandbox` and `network` (see [`StdioServerConfig::walls`]).

use serde::{Deserialize, Serialize};

/// One MCP server to run or connect to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "WireServer", into = "WireServer")]
pub enum McpServerConfig {
    Stdio(StdioServerConfig),
    Http(HttpServerConfig),
}

/// A server the hub starts as a child process and talks to over its stdin and stdout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StdioServerConfig {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    /// Added to (or overriding) the environment the sidecar itself has.
    pub env: Vec<EnvVariable>,
    pub startup: Startup,
    /// Where it starts, and what a relative `command` with a slash is relative to: the workspace
    /// root for a project's server (set by the agent, never read from the wire); the sidecar's
    /// own working directory when absent.
    pub cwd: Option<std::path::PathBuf>,
    /// `sandbox = true`: run inside the walls commands run in (a project's server always does,
    /// whatever it says). Absent: not set.
    pub sandbox: Option<bool>,
    /// `network = true`: a walled server may connect out (and listen). Absent: it may not.
    pub network: Option<bool>,
    /// The walls it runs inside: set by the agent (for a project's server, or one with
    /// `sandbox = true`), never read from the wire. `None`: it runs as the user's programs do.
    pub walls: Option<Walls>,
}

/// Where a walled stdio server may write, and whether it may use the network. It reads
/// everywhere, as commands do; its environment points the package managers' caches into
/// `cache` (its own, so it cannot plant code in the caches the user's own `npx`/`uvx` run from).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walls {
    /// The workspace it may write, if any (a project's server: its project).
    pub workspace: Option<std::path::PathBuf>,
    /// Its own cache directory, writable, made at start.
    pub cache: std::path::PathBuf,
    pub network: bool,
}

/// The environment variables that point package managers' caches into [`Walls::cache`], and
/// the subdirectory each gets.
pub const CACHE_VARS: &[(&str, &str)] = &[
    ("npm_config_cache", "npm"),
    ("XDG_CACHE_HOME", "xdg"),
    ("UV_CACHE_DIR", "uv"),
    ("UV_PYTHON_INSTALL_DIR", "uv-python"),
    ("PIP_CACHE_DIR", "pip"),
    ("DENO_DIR", "deno"),
    ("BUN_INSTALL_CACHE_DIR", "bun"),
    ("GOCACHE", "go-build"),
    ("GOMODCACHE", "go-mod"),
];

impl StdioServerConfig {
    /// Sets the walls it runs in: always when `forced` (a project's server), else only when it
    /// says `sandbox = true`. `workspace` is writable; `cache_root` holds its cache (one
    /// directory per server name beneath).
    pub fn wall(
        &mut self,
        forced: bool,
        workspace: Option<&std::path::Path>,
        cache_root: &std::path::Path,
    ) {
        if !forced && self.sandbox != Some(true) {
            return;
        }
        let name: String = self
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.walls = Some(Walls {
            workspace: workspace.map(std::path::Path::to_path_buf),
            cache: cache_root.join(name),
            network: self.network == Some(true),
        });
    }
}

/// A server that is already running and speaks MCP's Streamable HTTP transport.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpServerConfig {
    pub name: String,
    pub url: String,
    pub headers: Vec<HttpHeader>,
    pub startup: Startup,
}

/// An environment variable of a stdio server (ACP's `EnvVariable`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvVariable {
    pub name: String,
    pub value: String,
}

/// A header sent with every request to an HTTP server (ACP's `HttpHeader`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpHeader {
    pub name: String,
    pub value: String,
}

/// When the hub starts a server.
///
/// - `Eager`: at [`McpHub::start_eager`](crate::McpHub::start_eager), which the sidecar calls when
///   it starts, so a broken server shows up at once.
/// - `Lazy` (the default): at the first [`McpHub::tools`](crate::McpHub::tools), which the agent
///   calls when it builds the first request to the model (the model must see the tools before it
///   can use them, so "on first use of a tool" would be too late). A session that never asks the
///   model anything never starts a lazy server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Startup {
    #[default]
    Lazy,
    Eager,
}

impl McpServerConfig {
    pub fn name(&self) -> &str {
        match self {
            Self::Stdio(s) => &s.name,
            Self::Http(h) => &h.name,
        }
    }

    pub fn startup(&self) -> Startup {
        match self {
            Self::Stdio(s) => s.startup,
            Self::Http(h) => h.startup,
        }
    }

    /// What a person needs to find the server: the command line, or the URL.
    pub fn target(&self) -> String {
        match self {
            Self::Stdio(s) if s.args.is_empty() => s.command.clone(),
            Self::Stdio(s) => format!("{} {}", s.command, s.args.join(" ")),
            Self::Http(h) => h.url.clone(),
        }
    }
}

/// The wire shape: every field of every kind, checked into the typed enum on the way in.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireServer {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    args: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    env: Option<Vec<EnvVariable>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    headers: Option<Vec<HttpHeader>>,
    #[serde(default)]
    startup: Startup,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sandbox: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    network: Option<bool>,
}

impl TryFrom<WireServer> for McpServerConfig {
    type Error = String;

    fn try_from(w: WireServer) -> Result<Self, String> {
        let name = w.name.trim().to_owned();
        if name.is_empty() {
            return Err("an MCP server needs a non-empty `name`".into());
        }
        match w.kind.as_deref() {
            None | Some("stdio") => {
                let Some(command) = w.command.filter(|c| !c.trim().is_empty()) else {
                    return Err(format!(
                        "MCP server `{name}`: a stdio server needs a `command` (or set `\"type\": \"http\"` and a `url`)"
                    ));
                };
                if w.url.is_some() || w.headers.is_some() {
                    return Err(format!(
                        "MCP server `{name}`: `url` and `headers` belong to `\"type\": \"http\"` servers, not stdio ones"
                    ));
                }
                Ok(Self::Stdio(StdioServerConfig {
                    name,
                    command,
                    args: w.args.unwrap_or_default(),
                    env: w.env.unwrap_or_default(),
                    startup: w.startup,
                    cwd: None,
                    sandbox: w.sandbox,
                    network: w.network,
                    walls: None,
                }))
            }
            Some("http") => {
                let Some(url) = w.url.filter(|u| !u.trim().is_empty()) else {
                    return Err(format!("MCP server `{name}`: an http server needs a `url`"));
                };
                if w.command.is_some()
                    || w.args.is_some()
                    || w.env.is_some()
                    || w.sandbox.is_some()
                    || w.network.is_some()
                {
                    return Err(format!(
                        "MCP server `{name}`: `command`, `args`, `env`, `sandbox` and `network` belong to stdio servers, not `\"type\": \"http\"` ones"
                    ));
                }
                Ok(Self::Http(HttpServerConfig {
                    name,
                    url,
                    headers: w.headers.unwrap_or_default(),
                    startup: w.startup,
                }))
            }
            Some("sse") => Err(format!(
                "MCP server `{name}`: the SSE transport is deprecated in MCP and not supported; use `\"type\": \"http\"` (Streamable HTTP)"
            )),
            Some(other) => Err(format!(
                "MCP server `{name}`: unknown transport type `{other}` (expected `stdio` or `http`)"
            )),
        }
    }
}

impl From<McpServerConfig> for WireServer {
    fn from(c: McpServerConfig) -> Self {
        match c {
            McpServerConfig::Stdio(s) => WireServer {
                kind: None,
                name: s.name,
                command: Some(s.command),
                args: Some(s.args),
                env: Some(s.env),
                url: None,
                headers: None,
                startup: s.startup,
                sandbox: s.sandbox,
                network: s.network,
            },
            McpServerConfig::Http(h) => WireServer {
                kind: Some("http".into()),
                name: h.name,
                command: None,
                args: None,
                env: None,
                url: Some(h.url),
                headers: Some(h.headers),
                startup: h.startup,
                sandbox: None,
                network: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_acp_stdio_and_http_from_json() {
        let servers: Vec<McpServerConfig> = serde_json::from_str(
            r#"[
              {"name": "fs", "command": "/usr/bin/srv", "args": ["/tmp"], "env": [{"name": "A", "value": "1"}],
               "_meta": {"ignored": true}},
              {"type": "stdio", "name": "v2", "command": "srv", "args": [], "env": []},
              {"type": "http", "name": "web", "url": "http://127.0.0.1:1/mcp",
               "headers": [{"name": "Authorization", "value": "Bearer x"}], "startup": "eager"}
            ]"#,
        )
        .unwrap();
        assert_eq!(
            servers[0],
            McpServerConfig::Stdio(StdioServerConfig {
                name: "fs".into(),
                command: "/usr/bin/srv".into(),
                args: vec!["/tmp".into()],
                env: vec![EnvVariable {
                    name: "A".into(),
                    value: "1".into()
                }],
                startup: Startup::Lazy,
                cwd: None,
                sandbox: None,
                network: None,
                walls: None,
            })
        );
        assert_eq!(servers[1].name(), "v2");
        assert_eq!(
            servers[2],
            McpServerConfig::Http(HttpServerConfig {
                name: "web".into(),
                url: "http://127.0.0.1:1/mcp".into(),
                headers: vec![HttpHeader {
                    name: "Authorization".into(),
                    value: "Bearer x".into()
                }],
                startup: Startup::Eager,
            })
        );
    }

    #[test]
    fn writes_the_acp_shape_back() {
        let stdio: McpServerConfig =
            serde_json::from_str(r#"{"name": "a", "command": "c"}"#).unwrap();
        assert_eq!(
            serde_json::to_value(&stdio).unwrap(),
            serde_json::json!({"name": "a", "command": "c", "args": [], "env": [], "startup": "lazy"})
        );
        let http: McpServerConfig =
            serde_json::from_str(r#"{"type": "http", "name": "h", "url": "http://x"}"#).unwrap();
        let back = serde_json::to_value(&http).unwrap();
        assert_eq!(back["type"], "http");
        assert_eq!(back["headers"], serde_json::json!([]));
        assert_eq!(
            serde_json::from_value::<McpServerConfig>(back).unwrap(),
            http
        );
    }

    #[test]
    fn reads_toml_tables() {
        #[derive(Deserialize)]
        struct File {
            mcp: Mcp,
        }
        #[derive(Deserialize)]
        struct Mcp {
            servers: Vec<McpServerConfig>,
        }
        let file: File = toml::from_str(
            r#"
            [[mcp.servers]]
            name = "fs"
            command = "mcp-server-filesystem"
            args = ["/srv"]
            env = [{ name = "DEBUG", value = "1" }]
            startup = "eager"

            [[mcp.servers]]
            type = "http"
            name = "web"
            url = "http://127.0.0.1:3001/mcp"
            headers = [{ name = "X-Key", value = "k" }]
            "#,
        )
        .unwrap();
        assert_eq!(file.mcp.servers.len(), 2);
        assert_eq!(file.mcp.servers[0].startup(), Startup::Eager);
        assert_eq!(file.mcp.servers[0].target(), "mcp-server-filesystem /srv");
        assert_eq!(file.mcp.servers[1].startup(), Startup::Lazy);
        assert!(
            matches!(&file.mcp.servers[1], McpServerConfig::Http(h) if h.headers[0].value == "k")
        );
    }

    #[test]
    fn rejects_what_cannot_run_with_a_message_naming_the_server() {
        let cases = [
            (r#"{"name": "a"}"#, "needs a `command`"),
            (r#"{"name": " ", "command": "c"}"#, "non-empty `name`"),
            (r#"{"type": "http", "name": "h"}"#, "needs a `url`"),
            (
                r#"{"type": "sse", "name": "s", "url": "http://x"}"#,
                "SSE transport",
            ),
            (
                r#"{"type": "ws", "name": "w", "url": "ws://x"}"#,
                "unknown transport type `ws`",
            ),
            (
                r#"{"name": "m", "command": "c", "url": "http://x"}"#,
                "belong to",
            ),
            (
                r#"{"name": "z", "command": "c", "startup": "soon"}"#,
                "unknown variant",
            ),
        ];
        for (json, expected) in cases {
            let err = serde_json::from_str::<McpServerConfig>(json)
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{json}: {err}");
        }
    }
}
