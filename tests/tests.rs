//! End-to-end tests of the binaries, compared against GNU's tools.

mod du;
mod find;
mod ls;
mod slowfs;
mod syscalls;
mod util;
