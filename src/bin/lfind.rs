#![no_main]
cli::main!("lfind", Findutils, find::run);
