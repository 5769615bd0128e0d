//! What the ringutils tools share: the program name and message format,
//! GNU-style quoting of names, the buffered stdout writer with GNU's
//! EPIPE/ENOSPC behaviour, human-readable sizes, times, user names and
//! shell patterns.

#![forbid(unsafe_code)]

pub mod argmatch;
pub mod files0;
pub mod glob;
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

pub use msg::{progname, set_progname};
pub use out::Out;

// The hook macros below expand in the binaries, which depend on cli alone.
#[doc(hidden)]
pub use libcw as __libcw;

/// Runs `libcw::at_start` from `.init_array`, before Rust's runtime
/// starts: it records SIGPIPE's disposition before the runtime changes it
/// (see `libcw::sigpipe`) and occupies closed standard descriptors
/// before the runtime quietly reopens them read-write on /dev/null, which
/// would turn `>&-` into silent success (see `libcw::stdfds`).
/// Invoke once at the top level of each binary.
#[macro_export]
macro_rules! sigpipe_hook {
    () => {
        #[used]
        #[link_section = ".init_array"]
        static RECORD_SIGPIPE: extern "C" fn() = $crate::__libcw::at_start;
    };
}

/// Every tool allocates through this: an allocation failure (`ulimit -v`)
/// prints `prog: memory exhausted` and exits with the tool's failure status,
/// as GNU's xalloc_die does, instead of aborting.
#[global_allocator]
static ALLOC: libcw::mem::ExitOnOom = libcw::mem::ExitOnOom;

/// Defines the process entry point as a plain C `main` that calls `$run`
/// and exits with the status it returns. Use with `#![no_main]`.
///
/// This skips Rust's runtime start-up (its stack-guard probe reads
/// /proc/self/maps, installs signal handlers and an alternate stack: ~15
/// syscalls), which is a measurable share of a 10-file `ls`. Arguments and
/// the environment still work: std captures them from the C runtime on
/// Linux. SIGPIPE keeps its inherited disposition, which is what GNU tools
/// do anyway.
///
/// The `no_mangle` it expands is an unsafe attribute: the binaries using
/// it are the one place outside ringio and libcw that may not forbid
/// `unsafe_code` (cli itself does; a macro's body is checked where it
/// expands).
#[macro_export]
macro_rules! c_main {
    ($run:path) => {
        #[unsafe(no_mangle)]
        extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
            $run()
        }
    };
}

/// Sets up a tool's process: the user's locale and GNU's message catalogs
/// for `domain` (first, as GNU's mains do), program name from argv[0] (so
/// a symlink named `ls` reports as `ls`), SIGPIPE as GNU has it.
pub fn init(default_name: &str, domain: locale::Domain) {
    locale::init(domain);
    msg::init_progname(default_name);
    libcw::mem::set_oom_name(progname());
    libcw::mem::adapt_to_limits();
    libcw::sigpipe::restore();
}
