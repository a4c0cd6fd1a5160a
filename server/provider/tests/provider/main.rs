//! The providers through the real HTTP client against local servers speaking each wire format,
//! and the recorded streams of real providers. One test binary for the crate.

mod fixtures;
mod hosted_probes;
mod http;
mod sse_props;
