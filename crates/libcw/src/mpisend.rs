//! Non-blocking MPI sends from an owned buffer (the `mpi` feature only).
//!
//! rsmpi's `immediate_*send` borrows its buffer for the request's scope:
//! with `StaticScope` it must be `'static`. A coordinator that must never
//! block (a blocking send deadlocks when two ranks send each other
//! rendezvous-sized messages, libcircle PR #45) needs fire-and-forget
//! sends whose buffer is freed once MPI is done with it; that takes a
//! leaked box reclaimed after completion, which is `unsafe`, so it lives
//! here rather than in the `#![forbid(unsafe_code)]` walker.
//!
//! The sends are *synchronous* (`MPI_Issend`): one completes only once
//! the receiver has matched it, so a rank whose sends are all complete
//! knows nothing of its own is still in flight, which is what the
//! coordinator's shutdown relies on.

use mpi::point_to_point::Destination;
use mpi::request::{Request, StaticScope};
use mpi::Tag;

/// One send in flight; its buffer is freed when [`Send::test`] sees it done.
pub struct Send {
    req: Option<Request<'static, [u8]>>,
    buf: Option<*mut [u8]>,
}

impl Send {
    /// Starts sending `data` to `dest` with `tag`.
    pub fn start<D: Destination>(dest: &D, tag: Tag, data: Vec<u8>) -> Send {
        let buf: *mut [u8] = Box::into_raw(data.into_boxed_slice());
        // SAFETY: `buf` comes from `Box::into_raw` and is only freed in
        // `test`/`drop` after the request completed, when MPI no longer
        // reads it; nothing writes through it meanwhile. So the shared
        // reference handed to MPI stays valid as long as MPI uses it.
        let data: &'static [u8] = unsafe { &*buf };
        let req = dest.immediate_synchronous_send_with_tag(StaticScope, data, tag);
        Send { req: Some(req), buf: Some(buf) }
    }

    /// Whether the send is complete (then its buffer is freed).
    pub fn test(&mut self) -> bool {
        let Some(req) = self.req.take() else { return true };
        match req.test() {
            Ok(_) => {
                self.free();
                true
            }
            Err(req) => {
                self.req = Some(req);
                false
            }
        }
    }

    fn free(&mut self) {
        if let Some(buf) = self.buf.take() {
            // SAFETY: the request using `buf` has completed, `buf` came
            // from `Box::into_raw`, and `take` makes this the only free.
            drop(unsafe { Box::from_raw(buf) });
        }
    }
}

impl Drop for Send {
    fn drop(&mut self) {
        // An incomplete request must finish before its buffer goes (and
        // rsmpi panics on dropping one): wait for it.
        if let Some(req) = self.req.take() {
            req.wait();
        }
        self.free();
    }
}
