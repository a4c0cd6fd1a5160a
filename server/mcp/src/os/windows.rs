//! Windows: the server runs in a Job Object that kills everything in it when its handle closes:
//! when the child is dropped, and when we die, however we die.

use process_wrap::tokio::{CommandWrap, JobObject, KillOnDrop};

/// Nothing to do: the job's handle closes with our process.
pub fn die_with_us(_command: &mut tokio::process::Command) {}

pub fn contain(wrapped: &mut CommandWrap) {
    wrapped.wrap(JobObject).wrap(KillOnDrop);
}

/// Nothing to do: dropping the child closes its job, which ends the whole tree.
pub fn kill_group(_pid: u32) {}
