//! End-to-end tests of the binaries, compared against GNU's tools.

mod cat;
mod du;
mod find;
mod finish;
mod ls;
mod syscalls;
mod util;
