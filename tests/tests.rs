//! End-to-end tests of the binaries, compared against GNU's tools.

mod cat;
mod util;
