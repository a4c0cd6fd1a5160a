//! The sidecar's own diagnostics, through `tracing`. stdout is the protocol's, so nothing logs
//! there. Warnings go to stderr as one `tandem: …` line each (an editor shows stderr in its output
//! panel). With `--log-file PATH`, that file also gets everything at the `TANDEM_LOG` level
//! (default `info`; any `tracing` filter, e.g. `debug` or `tandem_agent=debug`), with the time,
//! the level and the turn and tool-call spans each line happened in. Without a log file,
//! `TANDEM_LOG` sets the stderr level.
//!
//! No key ever reaches a log: the libraries that would print messages or requests are capped at
//! `info` ([`CAPPED`]), Tandem logs no request header or body, and a tool call's span names the
//! tool and the call, not its arguments (tests/e2e/logging.rs runs turns at `trace` and looks for
//! the key in the file).

use std::fmt;
use std::fs::OpenOptions;
use std::path::Path;

use tracing::{Event, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Libraries that log whole messages or requests below `info` (the protocols' codecs print every
/// JSON-RPC message, `initialize` and its API key included; the HTTP and MCP stacks their
/// traffic): whatever `TANDEM_LOG` asks, they log at `info` at most.
const CAPPED: [&str; 8] = [
    "tower_lsp_server=info",
    "agent_client_protocol=info",
    "rmcp=info",
    "reqwest=info",
    "hyper=info",
    "hyper_util=info",
    "h2=info",
    "rustls=info",
];

/// Sets up the logs; an error says what was wrong with the file or the filter.
pub fn init(log_file: Option<&Path>) -> Result<(), String> {
    let level = std::env::var("TANDEM_LOG")
        .ok()
        .filter(|v| !v.trim().is_empty());
    let filter = |default: &str| {
        let spec = level.as_deref().unwrap_or(default);
        let mut filter = EnvFilter::try_new(spec).map_err(|e| {
            format!(
                "TANDEM_LOG={spec} is not a log filter ({e}); use a level such as `info` or \
                 `debug`, or `tandem_agent=debug`"
            )
        })?;
        for cap in CAPPED {
            filter = filter.add_directive(cap.parse().expect("a valid directive"));
        }
        Ok::<_, String>(filter)
    };
    let stderr = tracing_subscriber::fmt::layer()
        .event_format(Plain)
        .with_writer(std::io::stderr);
    match log_file {
        None => {
            tracing_subscriber::registry()
                .with(stderr.with_filter(filter("warn")?))
                .init();
        }
        Some(path) => {
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open the log file {}: {e}", path.display()))?;
            let to_file = tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(std::sync::Mutex::new(file));
            tracing_subscriber::registry()
                .with(stderr.with_filter(EnvFilter::new("warn")))
                .with(to_file.with_filter(filter("info")?))
                .init();
        }
    }
    Ok(())
}

/// stderr's format: `tandem: MESSAGE key=value…`, as the sidecar always wrote its warnings.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        write!(writer, "tandem: ")?;
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}
