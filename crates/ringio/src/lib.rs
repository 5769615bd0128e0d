//! ringio: a completion-driven batch I/O engine.
//!
//! Callers push operations tagged with a `u64` token; the engine runs them in
//! batches on one of three executors and hands back `(token, result)`
//! completions. The executors — io_uring, a syscall thread pool, inline
//! syscalls — produce identical results; which one runs is a measured
//! decision ([`default_backend`]) made from what the caller says its work is
//! like ([`Workload`], [`Walkers`]), overridable with `RINGIO_BACKEND` (the
//! `RINGIO_*` variables are read in one place, `env.rs`).
//!
//! Besides the syscall-shaped operations, the engine answers requests whose
//! way of being answered is its own decision: "tell me about this entry"
//! ([`Engine::about`]: stat, ACL marker, label, link target, one
//! completion), "list this directory" ([`listdir`]), "stat these entries"
//! ([`Engine::stat_names`]), "read this small file whole"
//! ([`Engine::read_whole`]), and a walk's policy ([`Walkers`]). Callers
//! never ask which executor runs (docs/engine.md §7).
//!
//! ```no_run
//! use ringio::{Engine, DirentIter};
//! let mut eng = Engine::new();
//! eng.openat(1, libc::AT_FDCWD, b"/tmp", libc::O_RDONLY | libc::O_DIRECTORY, 0);
//! let mut done = Vec::new();
//! eng.wait(1, &mut done);
//! let fd = done[0].fd().unwrap();
//! eng.getdents(2, fd, Vec::new());
//! done.clear();
//! eng.wait(1, &mut done);
//! for d in DirentIter::new(done[0].buf()) {
//!     println!("{}", String::from_utf8_lossy(d.name));
//! }
//! ```
// The small build (xtask/src/small.rs) sizes start-up code for size.
#![cfg_attr(ringutils_small, feature(optimize_attribute))]

mod about;
mod arena;
pub mod cold;
pub mod dirent;
mod engine;
mod env;
mod exec;
pub mod listdir;
mod op;
pub mod sys;
mod walkers;
mod whole;

pub use about::{About, Ask};
pub use dirent::{dtype, Dirent, DirentIter};
pub use engine::{
    default_backend, helper_threads, helper_threads_now, uring_available, uring_description,
    Backend, Config, Engine, ListAhead, Workload,
};
// The base types live with the C library's wrappers, so that crates
// needing only them don't depend on the engine.
pub use libcw::{sync, Errno};
pub use op::{Completion, Data, Splice, Token, DEFAULT_DENTS_BUF};
pub use sys::{DevIno, Statx};
pub use walkers::Walkers;
pub use whole::{Whole, WholeError};
