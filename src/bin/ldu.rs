#![no_main]
cli::main!("ldu", Coreutils, du::run);
