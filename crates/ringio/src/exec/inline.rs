//! The inline executor: every operation runs at submit time on the caller's
//! thread. No threads, no ring; the reference the others are tested against.

use super::Job;
use crate::op::Completion;

pub(crate) struct InlineExec;

impl InlineExec {
    pub(crate) fn submit(&mut self, ops: &mut Vec<Job>, out: &mut Vec<Completion>) {
        for (token, op) in ops.drain(..) {
            op.run_into(token, out);
        }
    }
}
