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

/// A page the user attached (`kind: "url"`) is fetched before the model's first request, as a
/// `fetch_url` call of the turn with the same approval: accepted, its Markdown is in the first
/// request; rejected, the model is told and nothing is fetched.
#[tokio::test]
async fn an_attached_page_is_fetched_first_through_the_fetch_approval() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::text("Read it."), Reply::text("OK.")]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem
        .reply_approvals([reply::accept(), reply::reject("not now")])
        .await;
    let session = tandem.new_session().await;
    // A name that never resolves: the question comes first, then the lookup fails.
    let url = "http://tandem-test.invalid/page";
    let with_page = |text: &str| json!({"sessionId": session, "text": text, "context": [{"kind": "url", "path": url}]});
    let turn = tandem
        .try_prompt_with(with_page("Summarize it"))
        .await
        .unwrap();
    let turn = tandem.wait_for_turn_end(&turn).await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let asked = tandem.approvals();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        (asked[0]["kind"].as_str(), asked[0]["url"].as_str()),
        (Some("fetch"), Some(url))
    );
    let requests = model_requests(&mock);
    // Approved: fetched, and the failure is the model's to read, as for its own call.
    let result = requests[0].last_tool_result().unwrap();
    assert!(result.contains("tandem-test.invalid"), "{result}");
    let texts = requests[0].message_texts();
    assert!(
        texts.iter().any(|t| t.starts_with("Summarize it")),
        "{texts:?}"
    );

    let turn = tandem.try_prompt_with(with_page("Again")).await.unwrap();
    let turn = tandem.wait_for_turn_end(&turn).await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let rejected = model_requests(&mock)[1].last_tool_result().unwrap();
    assert!(rejected.contains("reject"), "{rejected}");
}

/// Listed by name, the page is read without a question and reaches the model as Markdown.
#[tokio::test]
async fn an_attached_page_from_a_listed_host_reaches_the_first_request() {
    let env = Env::new();
    let port = serve().await;
    let mock = MockServer::start(Scenario::new([Reply::text("Read it.")]));
    let options = Options {
        approval: json!({"allowFetch": ["127.0.0.1"]}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let params = json!({"sessionId": session, "text": "Summarize it", "context": [
        {"kind": "url", "path": format!("http://127.0.0.1:{port}/page")},
        {"kind": "editor", "path": "problems", "text": "src/a.rs:3:1 error: mismatched types"},
        {"kind": "folder", "path": "."}
    ]});
    env.write("notes.md", "x");
    let turn = tandem.try_prompt_with(params).await.unwrap();
    let turn = tandem.wait_for_turn_end(&turn).await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert!(tandem.approvals().is_empty());
    let first = &model_requests(&mock)[0];
    let page = first.last_tool_result().unwrap();
    assert!(page.contains("# Changelog"), "{page}");
    let texts = first.message_texts();
    let user = texts
        .iter()
        .find(|t| t.starts_with("Summarize it"))
        .unwrap();
    assert!(
        user.contains(
            "<context source=\"problems\">\nsrc/a.rs:3:1 error: mismatched types\n</context>"
        ),
        "{user}"
    );
    assert!(
        user.contains("<context folder=\".\">") && user.contains("notes.md"),
        "{user}"
    );
    // The call shows like the model's own.
    assert!(
        turn.updates
            .iter()
            .any(|u| u["kind"] == "toolCall" && u["name"] == "fetch_url"),
        "{turn}"
    );
}
