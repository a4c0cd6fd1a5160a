//! The turn loop's behaviours, in-process: the agent core against the mock model, through a
//! face that is a pair of channels. Each runs in milliseconds; what crosses a process boundary
//! (the wire, the editors, the real servers) is tested end to end in `tests/e2e`.

mod approvals;
mod cancel;
mod changes;
mod failures;
// The hooks run `sh` scripts.
#[cfg(unix)]
mod hooks;
#[cfg(unix)]
mod project_hooks;
mod registry;
#[cfg(unix)]
mod review;
mod roots;
mod steps;
mod subagents;
mod support;
mod window;
