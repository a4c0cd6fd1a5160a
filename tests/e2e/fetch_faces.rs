//! `fetch_url` against a local HTTP server that records what it was sent, through `tandem/*`,
//! `tandem exec` and `tandem chat`: HTML in, Markdown out; nothing of the user's sent (no key, no
//! cookie, even when the page set one); a private address refused without a question unless
//! listed; a redirect to a new host asked about again. (ACP: `acp.rs`.)

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::*;

const PAGE: &str = "<html><head><title>x</title><script>steal()</script></head><body>\
                    <h1>Changelog</h1><p>Fixed <b>the</b> bug.</p><ul><li>one</li></ul></body></html>";

/// A server on 127.0.0.1 that records each request's head. `/start` redirects to
/// `http://localhost:PORT/page`; anything else is [`PAGE`], with a cookie set.
struct Site {
    port: u16,
    heads: Arc<Mutex<Vec<String>>>,
}

impl Site {
    async fn start() -> Site {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let seen = heads.clone();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                let seen = seen.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 16384];
                    let mut n = 0;
                    // The whole head: up to the blank line.
                    while !buf[..n].windows(4).any(|w| w == b"\r\n\r\n") {
                        match s.read(&mut buf[n..]).await {
                            Ok(0) | Err(_) => return,
                            Ok(k) => n += k,
                        }
                    }
                    let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                    seen.lock().unwrap().push(head.clone());
                    let answer = if head.starts_with("GET /start") {
                        format!(
                            "HTTP/1.1 302 Found\r\nLocation: http://localhost:{port}/page\r\n\
                             Content-Length: 0\r\nConnection: close\r\n\r\n"
                        )
                    } else {
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                             Set-Cookie: session=s3cret; Path=/\r\nContent-Length: {}\r\n\
                             Connection: close\r\n\r\n{PAGE}",
                            PAGE.len()
                        )
                    };
                    let _ = s.write_all(answer.as_bytes()).await;
                });
            }
        });
        Site { port, heads }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }

    /// Nothing of the user's went out: no key, no cookie, no authorization.
    fn assert_nothing_of_the_users_sent(&self) {
        for head in self.heads() {
            let lower = head.to_ascii_lowercase();
            assert!(!lower.contains("\r\ncookie:"), "{head}");
            assert!(!lower.contains("authorization"), "{head}");
            assert!(!lower.contains("x-api-key"), "{head}");
            assert!(!head.contains(API_KEY), "{head}");
            assert!(lower.contains("user-agent: tandem/"), "{head}");
        }
    }
}

fn fetch(url: &str) -> Reply {
    Reply::tool("fetch_url", json!({ "url": url }))
}

#[tokio::test]
async fn a_page_comes_as_markdown_and_nothing_of_the_users_goes_with_it() {
    let env = Env::new();
    let site = Site::start().await;
    let mock = MockServer::start(Scenario::new([
        fetch(&site.url("/page")),
        // The page set a cookie: a client that kept cookies would send it now.
        fetch(&site.url("/again")),
        Reply::text("Read it."),
    ]));
    let options = Options {
        approval: json!({"allowFetch": ["127.0.0.1"]}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "What changed?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    // Listed: nobody was asked.
    assert!(tandem.approvals().is_empty(), "{:?}", tandem.approvals());
    let requests = model_requests(&mock);
    let page = requests[1].last_tool_result().unwrap();
    assert!(page.contains("# Changelog"), "{page}");
    assert!(page.contains("Fixed **the** bug."), "{page}");
    assert!(
        !page.contains("<h1>") && !page.contains("steal()"),
        "{page}"
    );
    assert_eq!(site.heads().len(), 2);
    site.assert_nothing_of_the_users_sent();
}

#[tokio::test]
async fn a_private_address_is_refused_without_a_question_unless_listed() {
    let env = Env::new();
    let site = Site::start().await;
    let mock = MockServer::start(Scenario::new([
        fetch(&site.url("/page")),
        fetch("file:///etc/passwd"),
        fetch("http://[::1]:9/"),
        Reply::text("Could not."),
    ]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Read the local admin page").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert!(tandem.approvals().is_empty(), "{:?}", tandem.approvals());
    let requests = model_requests(&mock);
    let loopback = requests[1].last_tool_result().unwrap();
    assert!(loopback.contains("Error (refused)"), "{loopback}");
    assert!(loopback.contains("approval.allowFetch"), "{loopback}");
    let scheme = requests[2].last_tool_result().unwrap();
    assert!(scheme.contains("`file:` URLs are refused"), "{scheme}");
    let v6 = requests[3].last_tool_result().unwrap();
    assert!(
        v6.contains("::1 is a private, loopback or local address"),
        "{v6}"
    );
    assert!(site.heads().is_empty(), "{:?}", site.heads());
}

#[tokio::test]
async fn a_refused_question_fetches_nothing() {
    let env = Env::new();
    let site = Site::start().await;
    let mock = MockServer::start(Scenario::new([
        fetch(&site.url("/start")),
        Reply::text("Fine.").expect_tool_result_contains("rejected"),
    ]));
    let options = Options {
        approval: json!({"allowFetch": ["127.0.0.1"]}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    tandem
        .reply_approvals([reply::reject("not that one")])
        .await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Follow it").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let asked = tandem.approvals();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["kind"], "fetch");
    assert_eq!(
        asked[0]["url"],
        format!("http://localhost:{}/page", site.port)
    );
    assert_eq!(asked[0]["redirectedFrom"], site.url("/start"));
    // Only the listed first hop was fetched.
    let heads = site.heads();
    assert_eq!(heads.len(), 1, "{heads:?}");
    assert!(heads[0].starts_with("GET /start"), "{heads:?}");
    let result = model_requests(&mock)[1].last_tool_result().unwrap();
    assert!(result.contains("not that one"), "{result}");
}

fn exec_command(env: &Env, mock: &MockServer, args: &[&str]) -> tokio::process::Command {
    let mut command = env.command();
    command
        .args(["exec", "Read the changelog", "--json"])
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .args(["--api-key", API_KEY])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir)
        .args(args);
    command
}

#[tokio::test]
async fn exec_fetches_listed_hosts_and_refuses_the_rest_without_waiting() {
    let env = Env::new();
    let site = Site::start().await;
    let mock = MockServer::start(Scenario::new([
        fetch(&site.url("/page")),
        fetch(&site.url("/start")),
        Reply::text("Done."),
    ]));
    let output = run_piped(
        exec_command(&env, &mock, &["--allow-fetch", "127.0.0.1"]),
        "",
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let requests = model_requests(&mock);
    assert_eq!(requests.len(), 3, "{}", show(&output));
    let page = requests[1].last_tool_result().unwrap();
    assert!(page.contains("# Changelog"), "{page}");
    // The redirect's new host is not listed: exec asks nobody, it refuses.
    let redirect = requests[2].last_tool_result().unwrap();
    assert!(redirect.contains("allow_fetch"), "{redirect}");
    assert!(
        stdout.contains("\"fetch\""),
        "the refusal is an event: {}",
        show(&output)
    );
    assert_eq!(site.heads().len(), 2);
    site.assert_nothing_of_the_users_sent();
}

#[tokio::test]
async fn chat_asks_with_the_url_and_where_it_was_redirected_from() {
    let env = Env::new();
    let site = Site::start().await;
    let mock = MockServer::start(Scenario::new([
        fetch(&site.url("/page")),
        fetch(&site.url("/start")),
        Reply::text("Done."),
    ]));
    let mut command = env.command();
    command
        .arg("chat")
        .args(["--base-url", &mock.base_url(), "--model", "mock-coder"])
        .args(["--api-key", API_KEY])
        .args(["--allow-fetch", "127.0.0.1"])
        .arg("--root")
        .arg(&env.workspace)
        .arg("--data-dir")
        .arg(&env.data_dir)
        .args(["--prompt", "Read the changelog"]);
    // `y` to the question about the redirect's new host.
    let output = run_piped(command, "y\n").await;
    assert!(output.status.success(), "{}", show(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let question = format!(
        "Fetch http://localhost:{}/page (redirected from {})? [y]es, [n]o",
        site.port,
        site.url("/start")
    );
    assert!(stdout.contains(&question), "{}", show(&output));
    let requests = model_requests(&mock);
    assert!(
        requests[1]
            .last_tool_result()
            .unwrap()
            .contains("# Changelog")
    );
    // Allowed, but `localhost` is loopback and not listed by name: refused when it resolves.
    let second = requests[2].last_tool_result().unwrap();
    assert!(second.contains("Error (refused)"), "{second}");
    assert_eq!(site.heads().len(), 2, "{:?}", site.heads());
    site.assert_nothing_of_the_users_sent();
}
