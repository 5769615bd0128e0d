//! What the ringutils tools share: the program name and message format,
//! GNU-style quoting of names, the buffered stdout writer with GNU's
//! EPIPE/ENOSPC behaviour, human-readable sizes, times, user names and
//! shell patterns.
// The small build (xtask/src/small.rs) sizes start-up code for size.
#![cfg_attr(ringutils_small, feature(optimize_attribute))]
#![forbid(unsafe_code)]

pub mod argmatch;
mod catalog;
pub mod command;
pub mod files0;
pub mod glob;
pub mod json;
pub mod locale;
pub mod mode;
pub mod msg;
pub mod num;
pub mod opts;
pub mod out;
pub mod quote;
pub mod size;
pub mod timefmt;
pub mod users;

pub use command::{BadUsage, Command, Exit, Tool};
pub use msg::{progname, set_progname};
pub use out::Out;

// `main!` expands in the binaries, which depend on cli alone.
#[doc(hidden)]
pub use libcw as __libcw;

/// Every tool allocates through this: an allocation failure (`ulimit -v`)
/// prints `prog: memory exhausted` and exits with the tool's failure status,
/// as GNU's xalloc_die does, instead of aborting.
#[global_allocator]
static ALLOC: libcw::mem::ExitOnOom = libcw::mem::ExitOnOom;

/// Sets up a tool's process: the user's locale and GNU's message catalogs
/// for `domain` (first, as GNU's mains do), program name from argv[0] (so
/// a symlink named `ls` reports as `ls`), SIGPIPE as GNU has it.
#[cfg_attr(ringutils_small, optimize(size))]
pub fn init(default_name: &str, domain: locale::Domain) {
    locale::init(domain);
    msg::init_progname(default_name);
    libcw::mem::set_oom_name(progname());
    libcw::mem::adapt_to_limits();
    libcw::sigpipe::restore();
}
