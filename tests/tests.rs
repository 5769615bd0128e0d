//! End-to-end tests of the binaries, compared against GNU's tools.

mod browse;
mod cat;
mod du;
mod extras;
mod faults;
mod find;
mod finish;
mod locales;
mod ls;
#[cfg(feature = "mpi")]
mod mpi;
mod slowfs;
mod slowmount;
mod syscalls;
mod util;
// strace -c summaries, read as `cargo xtask bench` reads them.
#[path = "../xtask/src/strace.rs"]
mod strace;
