//! What `tandem exec` answers when the core asks: nobody is there to ask, so the flags decide
//! and anything they do not allow is refused at once, with a note that tells the model why.
//!
//! The core asks only about what its policy did not already allow (`--yes` approves edits and
//! sandboxed commands, `--allow` allow-listed commands in a sandbox that holds), so what reaches
//! here is refused, except a command the model wants outside the sandbox when the user turned
//! the sandbox off and said `--yes`: then the sandbox changes nothing and the user allowed all.

use tandem_agent::approval::{ApprovalAction, ApprovalReply, TrustSubject};

#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// `--yes`: every edit and command.
    pub yes: bool,
    /// `--sandbox off`.
    pub sandbox_off: bool,
}

impl Rules {
    pub fn answer(&self, action: &ApprovalAction) -> ApprovalReply {
        const PREFIX: &str = "Refused: this is a non-interactive run (tandem exec) and nobody \
                              can approve it.";
        let why = match action {
            ApprovalAction::Command(c) if c.outside_sandbox && self.sandbox_off && self.yes => {
                return ApprovalReply::accept();
            }
            ApprovalAction::Edit(_) => "Edits need the --yes flag. Nothing was written; do not \
                                        retry the edit, say in your answer what you would change."
                .to_string(),
            ApprovalAction::Command(c) if c.outside_sandbox => format!(
                "Commands outside the sandbox need --sandbox off and --yes. `{}` did not run; \
                 try it inside the sandbox or say what you would run.",
                c.command
            ),
            ApprovalAction::Command(c) => format!(
                "Commands need --yes or a matching --allow (in a sandbox that holds). `{}` did \
                 not run{}; do not retry it, say what you would run.",
                c.command,
                if c.reason.is_empty() {
                    String::new()
                } else {
                    format!(" (it needed the user because {})", c.reason)
                }
            ),
            ApprovalAction::Mcp(call) => format!(
                "Calls to MCP tools need allow_mcp_tools in the config (e.g. \"{}/{}\"). The \
                 call was not made.",
                call.server, call.tool
            ),
            ApprovalAction::McpServer(server) => {
                let (noun, not_run) = match server.subject {
                    TrustSubject::McpServer => ("MCP server", "It was not started."),
                    TrustSubject::Hook => ("hook", "It does not run."),
                };
                match &server.why_not_always {
                    None => format!(
                        "The project's {noun} `{}` is not trusted yet (trust it once in `tandem \
                         chat`). {not_run}",
                        server.server
                    ),
                    Some(why) => format!(
                        "The project's {noun} `{}` can't be trusted for good, since {why}; a \
                         non-interactive run never runs it. {not_run}",
                        server.server
                    ),
                }
            }
            ApprovalAction::Fetch(fetch) => format!(
                "Fetching {} needs its host in allow_fetch ([approval] in the config, or \
                 --allow-fetch HOST). It was not fetched.",
                fetch.url
            ),
        };
        ApprovalReply::reject(format!("{PREFIX} {why}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use tandem_agent::approval::{CommandApproval, Decision};

    fn command(outside_sandbox: bool) -> ApprovalAction {
        ApprovalAction::Command(CommandApproval {
            command: "make deploy".into(),
            outside_sandbox,
            cwd: PathBuf::from("/ws"),
            display_cwd: ".".into(),
            reason: "`make deploy`: no rule admits this command".into(),
            always: vec!["make deploy".into()],
        })
    }

    #[test]
    fn only_yes_with_the_sandbox_off_lets_a_command_out_of_the_sandbox() {
        let rules = |yes, sandbox_off| Rules { yes, sandbox_off };
        assert_eq!(
            rules(true, true).answer(&command(true)).decision,
            Decision::Accept
        );
        for (yes, off) in [(true, false), (false, true), (false, false)] {
            let reply = rules(yes, off).answer(&command(true));
            assert_eq!(reply.decision, Decision::Reject, "yes={yes} off={off}");
            let note = reply.feedback.unwrap();
            assert!(note.contains("--sandbox off"), "{note}");
            assert!(note.contains("make deploy"), "{note}");
        }
        // A sandboxed command asked about is one the policy refused: never accepted here.
        let reply = rules(true, true).answer(&command(false));
        assert_eq!(reply.decision, Decision::Reject);
        let note = reply.feedback.unwrap();
        assert!(note.contains("--allow"), "{note}");
        assert!(note.contains("no rule admits this command"), "{note}");
    }
}
