//! `fetch_url` against a real local HTTP server: what it reads, what it refuses, what it sends.

use std::sync::{Arc, Mutex};

use tandem_tools::ErrorKind;
use tandem_tools::fetch::{Fetcher, Hop, MAX_BODY_BYTES, parse_arguments};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A one-route HTTP/1.1 server: answers every request with `head` then `body_len` bytes made by
/// `body`; records each request's head; counts the body bytes it managed to write.
struct Server {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
    written: Arc<Mutex<usize>>,
}

async fn serve(head: &'static str, body: Vec<u8>, repeat_to: usize) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let written = Arc::new(Mutex::new(0));
    let (r, w) = (requests.clone(), written.clone());
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let (r, w, body) = (r.clone(), w.clone(), body.clone());
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|x| x == b"\r\n\r\n") {
                    match socket.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                r.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&buf).into_owned());
                let total = body.len().max(repeat_to);
                let head = head.replace("{len}", &total.to_string());
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let mut sent = 0;
                while sent < total {
                    let n = body.len().min(total - sent);
                    if socket.write_all(&body[..n]).await.is_err() {
                        return;
                    }
                    sent += n;
                    *w.lock().unwrap() = sent;
                }
            });
        }
    });
    Server {
        port,
        requests,
        written,
    }
}

fn url(s: &str) -> url::Url {
    url::Url::parse(s).unwrap()
}

const HTML: &str =
    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len}\r\n\r\n";

#[tokio::test]
async fn html_becomes_markdown_when_the_host_is_listed() {
    let page = b"<html><head><title>t</title><script>steal()</script></head><body>\
                 <h1>Release notes</h1><p>See <a href=\"https://example.com/x\">the list</a>.</p>\
                 <ul><li>one</li></ul></body></html>";
    let server = serve(HTML, page.to_vec(), 0).await;
    let fetcher = new_fetcher(&["127.0.0.1".into()]).unwrap();
    let Hop::Page(text) = fetcher
        .get(&url(&format!("http://127.0.0.1:{}/notes", server.port)))
        .await
        .unwrap()
    else {
        panic!("not a page")
    };
    assert!(text.contains("# Release notes"), "{text}");
    assert!(text.contains("[the list](https://example.com/x)"), "{text}");
    assert!(!text.contains("steal"), "{text}");
}

#[tokio::test]
async fn loopback_is_refused_unless_listed_by_name() {
    let server = serve(HTML, b"<p>admin</p>".to_vec(), 0).await;
    let fetcher = new_fetcher(&[]).unwrap();
    for target in [
        format!("http://127.0.0.1:{}/", server.port),
        format!("http://localhost:{}/", server.port),
        format!("http://[::ffff:127.0.0.1]:{}/", server.port),
    ] {
        let err = fetcher.get(&url(&target)).await.unwrap_err();
        assert_eq!(err.kind, ErrorKind::Refused, "{target}: {}", err.message);
        assert!(err.message.contains("allowFetch"), "{}", err.message);
    }
    assert!(server.requests.lock().unwrap().is_empty());
    // Listing `localhost` by name lets that name through (and only that name).
    let listed = new_fetcher(&["localhost".into()]).unwrap();
    assert!(matches!(
        listed
            .get(&url(&format!("http://localhost:{}/", server.port)))
            .await,
        Ok(Hop::Page(_))
    ));
    let err = listed
        .get(&url(&format!("http://127.0.0.1:{}/", server.port)))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
}

#[tokio::test]
async fn no_authorization_or_cookie_is_sent() {
    let server = serve(HTML, b"<p>hi</p>".to_vec(), 0).await;
    let fetcher = new_fetcher(&["127.0.0.1".into()]).unwrap();
    fetcher
        .get(&url(&format!("http://127.0.0.1:{}/", server.port)))
        .await
        .unwrap();
    let requests = server.requests.lock().unwrap();
    assert_eq!(requests.len(), 1);
    let head = requests[0].to_ascii_lowercase();
    assert!(head.starts_with("get / http/1.1"), "{head}");
    for header in [
        "authorization:",
        "cookie:",
        "proxy-authorization:",
        "x-api-key:",
    ] {
        assert!(!head.contains(header), "{header} sent: {head}");
    }
    // And a URL with credentials in it is refused before anything is sent.
    let err = parse_arguments(&format!(
        r#"{{"url":"http://user:secret@127.0.0.1:{}/"}}"#,
        server.port
    ))
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
}

#[tokio::test]
async fn a_50_mb_body_is_cut_at_the_cap() {
    let block = vec![b'a'; 64 * 1024];
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {len}\r\n\r\n";
    let server = serve(head, block, 50 * 1024 * 1024).await;
    let fetcher = new_fetcher(&["127.0.0.1".into()]).unwrap();
    let Hop::Page(text) = fetcher
        .get(&url(&format!("http://127.0.0.1:{}/big", server.port)))
        .await
        .unwrap()
    else {
        panic!("not a page")
    };
    assert!(
        text.len() < 300 * 1024,
        "{} bytes reach the model",
        text.len()
    );
    assert!(
        text.contains("only the first 2 MiB"),
        "{}",
        &text[text.len() - 200..]
    );
    assert!(text.contains("output capped at 256 KiB of 2048 KiB"));
    // The server could not write much past the cap before the connection closed (socket
    // buffers hold a few MiB at most).
    let written = *server.written.lock().unwrap();
    assert!(written < 20 * 1024 * 1024, "{written} bytes sent of 50 MiB");
    assert!(written >= MAX_BODY_BYTES);
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

async fn page(server: &Server) -> String {
    let fetcher = new_fetcher(&["127.0.0.1".into()]).unwrap();
    let hop = fetcher
        .get(&url(&format!("http://127.0.0.1:{}/", server.port)))
        .await
        .unwrap();
    let Hop::Page(text) = hop else {
        panic!("not a page: {hop:?}")
    };
    text
}

#[tokio::test]
async fn a_compressed_body_reaches_the_model_decoded() {
    let html = b"<h1>Zipped notes</h1><p>all fixed</p>";
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: {len}\r\n\r\n";
    let server = serve(head, gzip(html), 0).await;
    let text = page(&server).await;
    assert!(text.contains("# Zipped notes"), "{text}");
    assert!(text.contains("all fixed"), "{text}");
    let asked = server.requests.lock().unwrap()[0].to_ascii_lowercase();
    assert!(asked.contains("accept-encoding: gzip"), "{asked}");
    // HTTP's `deflate` is the zlib format.
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: deflate\r\nContent-Length: {len}\r\n\r\n";
    let server = serve(head, zlib(b"plain deflated text"), 0).await;
    assert!(page(&server).await.contains("plain deflated text"));
}

/// A few KiB that inflate to 64 MiB: cut at the cap of decoded bytes, never decoded whole.
#[tokio::test]
async fn a_gzip_bomb_is_cut_at_the_cap() {
    let bomb = gzip(&vec![b'a'; 64 * 1024 * 1024]);
    assert!(bomb.len() < 128 * 1024, "{} bytes", bomb.len());
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\nContent-Length: {len}\r\n\r\n";
    let server = serve(head, bomb, 0).await;
    let text = page(&server).await;
    assert!(
        text.contains("only the first 2 MiB"),
        "{}",
        &text[text.len().saturating_sub(200)..]
    );
    assert!(text.contains("output capped at 256 KiB of 2048 KiB"), "cut");
    assert!(text.contains(&"a".repeat(1000)), "decoded");
}

#[tokio::test]
async fn other_schemes_and_types_are_refused() {
    for target in ["file:///etc/passwd", "ftp://example.com/x", "gopher://x/"] {
        let err = parse_arguments(&format!(r#"{{"url":"{target}"}}"#)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Refused, "{target}");
        assert!(
            err.message.contains("only http and https"),
            "{}",
            err.message
        );
    }
    let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {len}\r\n\r\n";
    let server = serve(head, vec![0u8; 100], 0).await;
    let fetcher = new_fetcher(&["127.0.0.1".into()]).unwrap();
    let err = fetcher
        .get(&url(&format!("http://127.0.0.1:{}/x.bin", server.port)))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(
        err.message.contains("application/octet-stream"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn a_redirect_is_handed_back_not_followed() {
    let head =
        "HTTP/1.1 302 Found\r\nLocation: http://localhost:9/next\r\nContent-Length: 0\r\n\r\n";
    let server = serve(head, Vec::new(), 0).await;
    let fetcher = new_fetcher(&["127.0.0.1".into()]).unwrap();
    let hop = fetcher
        .get(&url(&format!("http://127.0.0.1:{}/", server.port)))
        .await
        .unwrap();
    assert_eq!(hop, Hop::Redirect(url("http://localhost:9/next")));
    let head = "HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\n\r\n";
    let server = serve(head, Vec::new(), 0).await;
    let err = fetcher
        .get(&url(&format!("http://127.0.0.1:{}/", server.port)))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
}

#[test]
fn a_private_ip_literal_is_known_refused_before_any_question() {
    let fetcher = new_fetcher(&["10.0.0.7".into()]).unwrap();
    for refused in [
        "http://127.0.0.1/",
        "http://10.0.0.8/",
        "http://[::1]/",
        "http://169.254.169.254/latest/meta-data/",
    ] {
        let e = fetcher.check_address(&url(refused)).unwrap_err();
        assert!(
            e.message.contains("approval.allowFetch"),
            "{refused}: {e:?}"
        );
    }
    // Listed by its address, public, or a name (judged when it resolves): not refused here.
    for kept in [
        "http://10.0.0.7/",
        "http://93.184.215.14/",
        "http://localhost/",
        "https://docs.rs/",
    ] {
        assert!(fetcher.check_address(&url(kept)).is_ok(), "{kept}");
    }
}

/// A fetcher, built as the sidecar builds one: after `tandem`'s main installed the process-wide
/// TLS crypto provider (the library assumes it; installing again is a no-op).
fn new_fetcher(allowed: &[String]) -> Result<Fetcher, tandem_tools::ToolError> {
    tandem_test_support::install_crypto_provider();
    Fetcher::new(allowed)
}
