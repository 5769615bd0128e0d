//! The `lcat` binary: only a C `main` (see `cli::main!`) around `cat::run`.
//! The tool is the library crate, so that its phases are tested without a binary.
#![no_main]
cli::main!("lcat", Coreutils, cat::run);
