//! Links GCC's unwinder statically into the four tools.
//!
//! Rust's standard library asks for `libgcc_s.so.1` (for backtraces and
//! unwinding), and loading it costs every run of every tool 9 syscalls
//! (open, read, fstat, 4 mmap, close, mprotect) of the ~90 an `lsr -al`
//! of 10,000 files makes. Naming the static `libgcc_eh.a` for this crate
//! puts it on the link line before std's `-lgcc_s`, so the linker takes
//! the `_Unwind_*` symbols from it and (linking `--as-needed`) drops
//! `libgcc_s` from the binaries; it adds ~24 KB of code. Without GCC's
//! static unwinder here the binaries link as before.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ENV").as_deref() != Ok("gnu")
        || std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux")
        || std::env::var_os("CARGO_FEATURE_MPI").is_some()
    {
        return;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let Ok(out) = Command::new(cc).arg("-print-file-name=libgcc_eh.a").output() else { return };
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    // An unknown file comes back as the bare name.
    let p = std::path::Path::new(&path);
    let Some(dir) = p.parent().filter(|_| out.status.success() && p.is_absolute() && p.is_file())
    else {
        return;
    };
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static=gcc_eh");
}
