//! `fetch_url` in a turn: asked unless the host is listed, each redirect to a new host asked
//! again, refused (not asked) in plan mode only if the mode says so (it allows fetching).

use super::approve::rejection;
use super::{Outcome, Turn};
use crate::approval::{ApprovalAction, Decision, FetchApproval};
use tandem_model::ToolCall;
use tandem_tools::fetch::{self, Fetcher, Hop, MAX_REDIRECTS};
use tandem_tools::{ErrorKind, ToolError};

impl Turn {
    pub(super) async fn fetch(&self, call: &ToolCall) -> Outcome {
        self.show_call(call);
        let mut url = match fetch::parse_arguments(&call.arguments) {
            Ok(url) => url,
            Err(e) => return Outcome::failed(e),
        };
        let fetcher = match Fetcher::new(&self.agent.inner.settings.policy.allow_fetch) {
            Ok(f) => f,
            Err(e) => return Outcome::failed(e),
        };
        // Hosts the user let through in this call: a redirect within one asks nothing new.
        let mut approved: Vec<String> = Vec::new();
        let mut from: Option<String> = None;
        for _ in 0..=MAX_REDIRECTS {
            let host = fetch::host_name(&url);
            // A private or loopback IP that is not listed: refused without a question.
            if let Err(e) = fetcher.check_address(&url) {
                return Outcome::error(format!("Error ({}): {}", e.kind, e.message));
            }
            if !fetcher.is_listed(&url) && !approved.contains(&host) {
                let request = self.request(
                    call,
                    ApprovalAction::Fetch(FetchApproval {
                        url: url.to_string(),
                        redirected_from: from.clone(),
                    }),
                );
                let reply = self.ask_always(request).await;
                if reply.decision == Decision::Reject {
                    return Outcome::rejected(rejection("fetch", &reply));
                }
                approved.push(host);
            }
            let hop = tokio::select! {
                hop = fetcher.get(&url) => hop,
                () = self.cancel.cancelled() => {
                    return Outcome::rejected("Cancelled by the user.".into())
                }
            };
            match hop {
                Ok(Hop::Page(text)) => return Outcome::ok(text),
                Ok(Hop::Redirect(next)) => {
                    from = Some(url.to_string());
                    url = next;
                }
                Err(e) => return Outcome::failed(e),
            }
        }
        Outcome::failed(ToolError::new(
            ErrorKind::Network,
            format!("more than {MAX_REDIRECTS} redirects; stopped at {url}"),
        ))
    }
}
