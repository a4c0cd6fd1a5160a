//! `fetch_url`: GET one http(s) URL and give the model its text (HTML as Markdown).
//!
//! The page is untrusted input, and so is the URL (the model chose it). So: only http and https,
//! no credentials in the URL, a fresh client that sends no cookie, key or other default header,
//! no proxy (the resolver's check must see the real peer), redirects never followed here (the
//! caller asks again for a new host, then calls [`Fetcher::get`] once more), private and local
//! addresses refused on the resolved IP unless the user listed the host by name, the body
//! decoded as it streams (gzip, deflate) and read to a cap of decoded bytes, and the result
//! capped again.

mod address;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use url::{Host, Url};

use crate::registry::{Effect, Runs, ToolSpec};
use crate::{ErrorKind, ToolError, ToolKind};
pub use address::is_public;

pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;
/// What the model gets, like `read_file`'s cap.
pub const MAX_OUTPUT_BYTES: usize = 256 * 1024;
/// Hops a caller follows before giving up.
pub const MAX_REDIRECTS: usize = 5;
const TIMEOUT: Duration = Duration::from_secs(30);

/// The tool as the registry knows it; the agent runs its calls (the approval, the allow-list,
/// the redirects), through [`Fetcher`].
pub struct FetchUrl;

impl FetchUrl {
    pub const NAME: &'static str = "fetch_url";
}

impl ToolSpec for FetchUrl {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> String {
        "GET a web page (http/https) as Markdown, or plain text/JSON. The user may be asked \
         first."
            .into()
    }

    fn compact_description(&self) -> String {
        "GET a web page as Markdown.".into()
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"url": {"type": "string"}},
            "required": ["url"]
        })
    }

    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }

    fn runs(&self) -> Runs {
        Runs::Network
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Fetch
    }

    fn title(&self, args: &Value) -> Option<String> {
        let url = args.get("url").and_then(Value::as_str)?;
        Some(format!("Fetch {}", crate::tool::short(url, 120)))
    }
}

/// The URL in a call's arguments, checked ([`check_url`]).
pub fn parse_arguments(arguments: &str) -> Result<Url, ToolError> {
    #[derive(serde::Deserialize)]
    struct Args {
        url: String,
    }
    let args: Args = serde_json::from_str(arguments).map_err(|e| {
        ToolError::new(
            ErrorKind::InvalidArguments,
            format!("expected {{\"url\": \"https://…\"}}: {e}"),
        )
    })?;
    let url = Url::parse(args.url.trim()).map_err(|e| {
        ToolError::new(
            ErrorKind::InvalidArguments,
            format!("`{}` is not a URL: {e}", args.url),
        )
    })?;
    check_url(&url)?;
    Ok(url)
}

/// Refuses what no fetch may name: other schemes, credentials, no host.
pub fn check_url(url: &Url) -> Result<(), ToolError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ToolError::new(
            ErrorKind::Refused,
            format!(
                "`{}:` URLs are refused; fetch_url reads only http and https",
                url.scheme()
            ),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ToolError::new(
            ErrorKind::Refused,
            "the URL carries a user name or password; fetch_url sends no credentials",
        ));
    }
    if url.host().is_none() {
        return Err(ToolError::new(ErrorKind::Refused, "the URL has no host"));
    }
    Ok(())
}

/// The host as the user would list it in `approval.allowFetch` (lower case, IPv6 unbracketed).
pub fn host_name(url: &Url) -> String {
    match url.host() {
        Some(Host::Ipv6(ip)) => ip.to_string(),
        Some(host) => host.to_string().to_ascii_lowercase(),
        None => String::new(),
    }
}

/// One hop's answer.
#[derive(Debug, PartialEq, Eq)]
pub enum Hop {
    /// The text for the model.
    Page(String),
    /// The server sent the client elsewhere (an absolute URL, already [`check_url`]ed).
    Redirect(Url),
}

/// Fetches with the user's allow-list of host names.
pub struct Fetcher {
    client: reqwest::Client,
    allowed: Vec<String>,
}

impl Fetcher {
    pub fn new(allowed: &[String]) -> Result<Fetcher, ToolError> {
        let allowed: Vec<String> = allowed
            .iter()
            .map(|h| h.trim().trim_matches(['[', ']']).to_ascii_lowercase())
            .collect();
        // reqwest's rustls takes the process's crypto provider, which the binary installed.
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(TIMEOUT)
            .user_agent(concat!(
                "Tandem/",
                env!("CARGO_PKG_VERSION"),
                " (fetch_url)"
            ))
            .dns_resolver(Arc::new(address::PublicOnly {
                allowed: allowed.clone(),
            }))
            .build()
            .map_err(|e| ToolError::new(ErrorKind::Io, format!("no HTTP client: {e}")))?;
        Ok(Fetcher { client, allowed })
    }

    /// Whether the user listed this URL's host by name: it is fetched without asking, and may
    /// be a private or local address.
    pub fn is_listed(&self, url: &Url) -> bool {
        let host = host_name(url);
        self.allowed.contains(&host)
    }

    /// Refuses an IP literal that is private, loopback or local and not listed: known before
    /// any connection, so the user is not asked about a fetch that could not happen. (A host
    /// name is judged when it resolves, at connect time.)
    pub fn check_address(&self, url: &Url) -> Result<(), ToolError> {
        let literal = match url.host() {
            Some(Host::Ipv4(ip)) => Some(std::net::IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => Some(std::net::IpAddr::V6(ip)),
            _ => None,
        };
        if let Some(ip) = literal
            && !is_public(ip)
            && !self.is_listed(url)
        {
            return Err(ToolError::new(
                ErrorKind::Refused,
                format!(
                    "{ip} is a private, loopback or local address; fetch_url reaches it only \
                     when the user lists it in approval.allowFetch"
                ),
            ));
        }
        Ok(())
    }

    /// One GET, redirects not followed; logged (`info`) with its host, what came of it and how
    /// long it took: the path and query may hold what the model should not have sent, and a
    /// log is no place to keep it.
    pub async fn get(&self, url: &Url) -> Result<Hop, ToolError> {
        let started = std::time::Instant::now();
        let hop = self.get_once(url).await;
        let host = host_name(url);
        let ms = started.elapsed().as_millis() as u64;
        match &hop {
            Ok(Hop::Page(page)) => {
                tracing::info!(host, bytes = page.len(), ms, "fetch_url read a page")
            }
            Ok(Hop::Redirect(next)) => {
                tracing::info!(host, to = host_name(next), ms, "fetch_url was redirected")
            }
            Err(error) => tracing::info!(host, kind = %error.kind, ms, "fetch_url failed"),
        }
        hop
    }

    async fn get_once(&self, url: &Url) -> Result<Hop, ToolError> {
        check_url(url)?;
        // An IP literal never reaches the resolver, so it is judged here.
        self.check_address(url)?;
        let mut response = self
            .client
            .get(url.clone())
            .header(
                reqwest::header::ACCEPT,
                "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.1",
            )
            .send()
            .await
            .map_err(|e| network_error(url, &e))?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| {
                    ToolError::new(
                        ErrorKind::Network,
                        format!("{url} answered {status} with no usable Location header"),
                    )
                })?;
            let next = url.join(location).map_err(|e| {
                ToolError::new(
                    ErrorKind::Network,
                    format!("{url} redirects to `{location}`, which is not a URL: {e}"),
                )
            })?;
            check_url(&next)?;
            return Ok(Hop::Redirect(next));
        }
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let kind = Kind::of(&content_type).ok_or_else(|| {
            ToolError::new(
                ErrorKind::Refused,
                format!("{url} is `{content_type}`; fetch_url reads only HTML, text and JSON"),
            )
        })?;
        // A compressed body (`Content-Encoding: gzip` or `deflate`, which the client asks for)
        // arrives decoded as it streams, so the cap counts decoded bytes: a small body that
        // inflates to gigabytes is cut at the cap, never decoded whole.
        let mut body = Vec::new();
        let mut cut = false;
        while let Some(chunk) = response.chunk().await.map_err(|e| network_error(url, &e))? {
            let room = MAX_BODY_BYTES - body.len();
            if chunk.len() >= room {
                body.extend_from_slice(&chunk[..room]);
                cut = chunk.len() > room;
                if cut {
                    break;
                }
            } else {
                body.extend_from_slice(&chunk);
            }
        }
        // Dropping the response closes the connection: the rest is never downloaded.
        drop(response);
        let text = String::from_utf8_lossy(&body);
        let mut out = match kind {
            Kind::Html => to_markdown(&text),
            Kind::Text => text.into_owned(),
        };
        let mut notes = Vec::new();
        if cut {
            notes.push(format!(
                "only the first {} MiB of the body were read",
                MAX_BODY_BYTES / (1024 * 1024)
            ));
        }
        if out.len() > MAX_OUTPUT_BYTES {
            let total = out.len();
            tandem_stdx::truncate_in_place(&mut out, MAX_OUTPUT_BYTES);
            notes.push(format!(
                "output capped at {} KiB of {} KiB",
                MAX_OUTPUT_BYTES / 1024,
                total / 1024
            ));
        }
        let mut page = format!("{url} ({status}, {content_type})\n\n{out}");
        if !notes.is_empty() {
            page.push_str(&format!("\n\n[truncated: {}]", notes.join("; ")));
        }
        if !status.is_success() {
            return Err(ToolError::new(ErrorKind::Network, page));
        }
        Ok(Hop::Page(page))
    }
}

enum Kind {
    Html,
    Text,
}

impl Kind {
    fn of(content_type: &str) -> Option<Kind> {
        let mime = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match mime.as_str() {
            "text/html" | "application/xhtml+xml" => Some(Kind::Html),
            // No type at all: read as text (a model can still tell garbage apart).
            "" | "application/json" | "application/xml" | "application/javascript" => {
                Some(Kind::Text)
            }
            m if m.starts_with("text/") || m.ends_with("+json") || m.ends_with("+xml") => {
                Some(Kind::Text)
            }
            _ => None,
        }
    }
}

/// HTML to Markdown; scripts, styles and other non-content dropped.
fn to_markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "template", "iframe", "svg", "canvas", "head",
        ])
        .build();
    converter.convert(html).unwrap_or_else(|_| html.to_string())
}

fn network_error(url: &Url, error: &reqwest::Error) -> ToolError {
    // The resolver's refusal is a refusal, not a network fault.
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(private) = e.downcast_ref::<address::PrivateAddress>() {
            return ToolError::new(ErrorKind::Refused, private.to_string());
        }
        source = e.source();
    }
    if error.is_timeout() {
        return ToolError::new(
            ErrorKind::Timeout,
            format!("{url} did not answer within {} s", TIMEOUT.as_secs()),
        );
    }
    let mut message = format!("could not fetch {url}: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(e) = source {
        message.push_str(&format!(": {e}"));
        source = e.source();
    }
    ToolError::new(ErrorKind::Network, message)
}
