#![no_main]
cli::main!("lcat", Coreutils, cat::run);
