//! `cargo xtask cat-floor [--stat] FILE…`: the least work a `cat FILE…` of
//! small files does, the cat bench's `floor` rows: each file opened, read
//! until a read returns 0 and closed, in order, on one thread, its bytes
//! written to standard output in large writes. Nothing else: no formatting,
//! no checks.
//!
//! Without `--stat` no file is stat'ed, which is below what a cat that
//! behaves as GNU's can do: holding earlier files' bytes while it opens the
//! next operand, it would wait in that open, the bytes undelivered, were the
//! operand a FIFO (GNU writes each file before it opens the next). A cat
//! that gathers many files into one write must know first that no open can
//! wait: `--stat` adds the statx of each name before its open that such a
//! cat needs (lcat's: type, size and inode), the least it can do. Reading in
//! parallel is not a floor for cat: it must still write in order.

use std::io::{Read, Write};
use std::os::fd::AsFd;

/// Output is written once this much is buffered.
const OUT_CHUNK: usize = 256 * 1024;

pub fn main(args: &[String]) -> Result<(), String> {
    let stat = args.first().is_some_and(|a| a == "--stat");
    let names = &args[usize::from(stat)..];
    if names.is_empty() || names.iter().any(|a| a == "-h" || a == "--help") {
        return Err("usage: cargo xtask cat-floor [--stat] FILE…".into());
    }
    // Standard output as a plain file: `Stdout` is line-buffered, which
    // would write once per newline.
    let fd = std::io::stdout().as_fd().try_clone_to_owned().map_err(|e| format!("stdout: {e}"))?;
    copy(names, stat, &mut std::fs::File::from(fd))
}

/// Copies each file in `names`, in order, to `out`, each stat'ed first when
/// `stat`; the first error is reported after the rest were copied.
fn copy(names: &[String], stat: bool, out: &mut impl Write) -> Result<(), String> {
    let mut buf = vec![0u8; 128 * 1024];
    let mut pending: Vec<u8> = Vec::with_capacity(2 * OUT_CHUNK);
    let mut status = Ok(());
    let mut st = ringio::sys::statx_zeroed();
    let mask = libc::STATX_TYPE | libc::STATX_SIZE | libc::STATX_INO;
    for name in names {
        if stat {
            let c = std::ffi::CString::new(name.as_bytes()).map_err(|_| "NUL in a name")?;
            // Its answer would decide whether the file may be opened now;
            // every operand here is a regular file.
            if let Err(e) = ringio::sys::statx(libc::AT_FDCWD, &c, 0, mask, &mut st) {
                status = status.and(Err(format!("{name}: {e}")));
                continue;
            }
        }
        let mut f = match std::fs::File::open(name) {
            Ok(f) => f,
            Err(e) => {
                status = status.and(Err(format!("{name}: {e}")));
                continue;
            }
        };
        loop {
            match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => pending.extend_from_slice(&buf[..n]),
                Err(e) => {
                    status = status.and(Err(format!("{name}: {e}")));
                    break;
                }
            }
            if pending.len() >= OUT_CHUNK {
                out.write_all(&pending).map_err(|e| format!("write: {e}"))?;
                pending.clear();
            }
        }
    }
    out.write_all(&pending).map_err(|e| format!("write: {e}"))?;
    status
}

#[cfg(test)]
mod tests {
    #[test]
    fn copies_every_file_in_order() {
        let dir = std::env::temp_dir().join(format!("cat-floor-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut names = Vec::new();
        let mut want = Vec::new();
        for i in 0..50u32 {
            let p = dir.join(format!("f{i:02}"));
            let data = format!("file {i}\n").repeat(1 + i as usize * 300);
            std::fs::write(&p, &data).unwrap();
            want.extend_from_slice(data.as_bytes());
            names.push(p.to_string_lossy().into_owned());
        }
        names.insert(3, dir.join("missing").to_string_lossy().into_owned());
        for stat in [false, true] {
            let mut out = Vec::new();
            let r = super::copy(&names, stat, &mut out);
            assert!(r.is_err_and(|e| e.contains("missing")));
            assert_eq!(out, want);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
