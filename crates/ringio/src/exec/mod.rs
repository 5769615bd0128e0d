//! The executors behind the engine's one API.

pub(crate) mod inline;
pub(crate) mod threads;
pub(crate) mod uring;

use crate::op::{Completion, Op, Token};

/// Submitted operations travel as (token, op) pairs.
pub(crate) type Job = (Token, Op);

pub(crate) enum Exec {
    Inline(inline::InlineExec),
    Threads(threads::ThreadExec),
    Uring(Box<uring::UringExec>),
}

impl Exec {
    /// Takes every operation out of `ops`. Completions that are already
    /// known (inline execution) are appended to `out`.
    pub(crate) fn submit(&mut self, ops: &mut Vec<Job>, out: &mut Vec<Completion>) {
        match self {
            Exec::Inline(e) => e.submit(ops, out),
            Exec::Threads(e) => e.submit(ops, out),
            Exec::Uring(e) => e.submit(ops, out),
        }
    }

    /// [`Exec::submit`] for a caller that waits next: the ring leaves the
    /// submission to the wait's enter (one system call for both).
    pub(crate) fn submit_for_wait(&mut self, ops: &mut Vec<Job>, out: &mut Vec<Completion>) {
        match self {
            Exec::Uring(e) => e.submit_deferred(ops, out),
            _ => self.submit(ops, out),
        }
    }

    /// Blocks until at least `min` completions (capped at what is in flight)
    /// have been appended to `out`.
    pub(crate) fn wait(&mut self, min: usize, out: &mut Vec<Completion>) {
        match self {
            Exec::Inline(_) => {}
            Exec::Threads(e) => e.wait(min, out),
            Exec::Uring(e) => e.wait(min, out),
        }
    }

    /// Appends whatever has completed, without blocking.
    pub(crate) fn poll(&mut self, out: &mut Vec<Completion>) {
        match self {
            Exec::Inline(_) => {}
            Exec::Threads(e) => e.poll(out),
            Exec::Uring(e) => e.poll(out),
        }
    }

    pub(crate) fn in_flight(&self) -> usize {
        match self {
            Exec::Inline(_) => 0,
            Exec::Threads(e) => e.in_flight(),
            Exec::Uring(e) => e.in_flight(),
        }
    }
}
