//! `fetch_url` through `tandem/*`: approval asked, a redirect to a new host asked again, loopback
//! refused unless listed by name.

use crate::support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Answers `/start` with a redirect to `http://localhost:PORT/page`, anything else with HTML.
async fn serve() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = s.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                let answer = if head.starts_with("GET /start") {
                    format!(
                        "HTTP/1.1 302 Found\r\nLocation: http://localhost:{port}/page\r\nContent-Length: 0\r\n\r\n"
                    )
                } else {
                    let body = "<h1>Changelog</h1><p>fixed</p>";
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    )
                };
                let _ = s.write_all(answer.as_bytes()).await;
            });
        }
    });
    port
}

#[tokio::test]
async fn a_listed_host_is_read_as_markdown_and_its_redirect_to_a_new_host_asks_again() {
    let env = Env::new();
    let port = serve().await;
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "fetch_url",
            json!({"url": format!("http://127.0.0.1:{port}/page")}),
        ),
        Reply::tool(
            "fetch_url",
            json!({"url": format!("http://127.0.0.1:{port}/start")}),
        ),
        Reply::text("Done."),
    ]));
    let options = Options {
        approval: json!({"allowFetch": ["127.0.0.1"]}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    tandem.reply_approvals([reply::accept()]).await;
    let session = tandem.new_session().await;
    let turn = tandem.run_turn(&session, "Read the changelog").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let requests = model_requests(&mock);
    let first = requests[1].last_tool_result().unwrap();
    assert!(first.contains("# Changelog"), "{first}");
    // Only the redirect's new host was asked about, with where it came from.
    let asked = tandem.approvals();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["kind"], "fetch");
    assert_eq!(asked[0]["url"], format!("http://localhost:{port}/page"));
    assert_eq!(
        asked[0]["redirectedFrom"],
        format!("http://127.0.0.1:{port}/start")
    );
    // Approved, but `localhost` is loopback and not listed by name: refused at connect time.
    let second = requests[2].last_tool_result().unwrap();
    assert!(second.contains("Error (refused)"), "{second}");
    assert!(second.contains("allowFetch"), "{second}");
}
