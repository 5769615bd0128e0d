//! The `lsr` binary: only a C `main` (see `cli::main!`) around `ls::run`.
//! The tool is the library crate, so that its phases are tested without a binary.
#![no_main]
cli::main!("lsr", Coreutils, ls::run);
