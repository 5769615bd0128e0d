//! End-to-end tests of the binaries, compared against GNU's tools.

mod browse;
mod cat;
mod command_lines;
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
// The slowfs server's counters, read as the benches read them.
#[path = "../xtask/src/slowfs/child.rs"]
mod slowfs_child;
// strace -c summaries, read as `cargo xtask bench` reads them.
#[path = "../xtask/src/strace.rs"]
mod strace;
