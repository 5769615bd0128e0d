#![no_main]
cli::main!("lsr", Coreutils, ls::run);
