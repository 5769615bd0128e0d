//! The `lfind` binary: only a C `main` (see `cli::main!`) around `find::run`.
//! The tool is the library crate, so that its phases are tested without a binary.
#![no_main]
cli::main!("lfind", Findutils, find::run);
