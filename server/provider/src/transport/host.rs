//! Where a base URL points: this machine, a network of the user's own, or a hosted API. Only a
//! server on the user's own machine or network is asked what it is (llama.cpp's `/props`,
//! Ollama's `/api/show`, a tokenizer): a hosted API gets its own API's requests and nothing else.

use std::net::IpAddr;

/// Whether the base URL's host is this machine: `localhost` or a loopback address.
pub(crate) fn is_loopback(base_url: &str) -> bool {
    match host_of(base_url) {
        Some(Host::Name(name)) => is_localhost(&name),
        Some(Host::Ip(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Whether the base URL's host is this machine or the user's own network, where a model server
/// may be probed: loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local,
/// carrier-grade NAT (100.64/10, where Tailscale puts machines), `localhost`, and names that
/// no public DNS serves (`.local`, `.lan`, `.internal`, `.home.arpa`, or a single label such
/// as a container's name).
pub(crate) fn is_own_network(base_url: &str) -> bool {
    match host_of(base_url) {
        Some(Host::Name(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            is_localhost(&name)
                || !name.contains('.')
                || [".local", ".lan", ".internal", ".home.arpa"]
                    .iter()
                    .any(|suffix| name.ends_with(suffix))
        }
        Some(Host::Ip(ip)) => is_private(ip),
        None => false,
    }
}

enum Host {
    Name(String),
    Ip(IpAddr),
}

fn host_of(base_url: &str) -> Option<Host> {
    let url = reqwest::Url::parse(base_url).ok()?;
    let host = url.host_str()?;
    Some(match host.trim_matches(['[', ']']).parse::<IpAddr>() {
        Ok(ip) => Host::Ip(ip),
        Err(_) => Host::Name(host.to_string()),
    })
}

fn is_localhost(name: &str) -> bool {
    let name = name.trim_end_matches('.');
    name.eq_ignore_ascii_case("localhost") || name.to_ascii_lowercase().ends_with(".localhost")
}

fn is_private(ip: IpAddr) -> bool {
    match ip.to_canonical() {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || (a == 100 && (64..128).contains(&b))
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_networks_are_told_from_hosted_apis() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434",
            "http://api.localhost/v1",
            "http://[::1]:1234/v1",
            "http://10.0.0.7:8000/v1",
            "http://172.20.1.2/v1",
            "http://192.168.1.20:8080/v1",
            "http://169.254.3.4/v1",
            "http://100.101.102.103:11434",
            "http://[fd12:3456::1]:8080/v1",
            "http://[fe80::1]/v1",
            "http://[::ffff:192.168.0.9]/v1",
            "http://gpu-box.local:8080/v1",
            "http://ollama:11434",
            "http://models.lan/v1",
            "http://llm.corp.internal/v1",
            "http://server.home.arpa/v1",
        ] {
            assert!(is_own_network(url), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "https://openrouter.ai/api/v1",
            "https://api.anthropic.com/v1",
            "http://8.8.8.8/v1",
            "http://172.32.0.1/v1",
            "http://100.128.0.1/v1",
            "http://[2001:db8::1]/v1",
            "http://localhost.example.com/v1",
            "not a url",
        ] {
            assert!(!is_own_network(url), "{url}");
        }
    }

    #[test]
    fn loopback_is_this_machine_only() {
        assert!(is_loopback("http://127.0.0.1:8080/v1"));
        assert!(is_loopback("http://LOCALHOST:8080/v1"));
        assert!(is_loopback("http://[::1]:8080/v1"));
        assert!(!is_loopback("http://192.168.1.20:8080/v1"));
        assert!(!is_loopback("http://gpu-box.local/v1"));
    }
}
