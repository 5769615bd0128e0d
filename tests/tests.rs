//! End-to-end tests of the binaries, compared against GNU's tools.

mod cat;
mod find;
mod syscalls;
mod util;
