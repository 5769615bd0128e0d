//! The `ldu` binary: only a C `main` (see `cli::main!`) around `du::run`.
//! The tool is the library crate, so that its phases are tested without a binary.
#![no_main]
cli::main!("ldu", Coreutils, du::run);
