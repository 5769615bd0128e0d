//! `cargo xtask du-floor DIR [THREADS]`: the least work any `du -s` can do
//! on this machine, as a reference row in the du bench.
//!
//! Every du must read each directory once and stat each entry once; this
//! does exactly that and nothing else: THREADS threads (default: the CPUs)
//! share a stack of open directories, each read with one getdents64 where
//! the file system marks the end (as ldu does), each entry statx'ed by name
//! relative to it, subdirectories opened relative to it and pushed. No
//! paths, no per-directory state, no output but the total in KiB. The
//! syscalls are the ones ldu makes (same counts under strace), so the gap
//! between this row and ldu's is what ldu spends in user space and in
//! bookkeeping, and the row itself is the floor any ratio target has to be
//! measured against.

use std::ffi::{CStr, CString};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::{Condvar, Mutex};

use ringio::DirentIter;

struct Stack {
    /// Open directories to read, with their sizes (for the end mark).
    fds: Vec<(OwnedFd, u64)>,
    busy: usize,
    /// Threads waiting: a notify is a futex call even with nobody to wake.
    waiting: usize,
}

struct Shared {
    st: Mutex<Stack>,
    cv: Condvar,
    /// The file system's magic (of the root), for the end-of-directory mark.
    fs: i64,
}

pub fn main(args: &[String]) -> Result<(), String> {
    let Some(dir) = args.first() else {
        return Err("usage: cargo xtask du-floor DIR [THREADS]".into());
    };
    let threads = match args.get(1) {
        Some(t) => t.parse().map_err(|_| format!("bad thread count {t:?}"))?,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    println!("{}\t{dir}", total_kib(dir, threads)?);
    Ok(())
}

/// The disk usage of the tree at `dir` in KiB, every entry counted (as
/// `du -s --count-links`), walked by `threads` threads.
fn total_kib(dir: &str, threads: usize) -> Result<u64, String> {
    let c = CString::new(dir.as_bytes()).map_err(|_| "NUL in path".to_string())?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
    let fd = ringio::sys::openat_owned(libc::AT_FDCWD, &c, flags, 0)
        .map_err(|e| format!("{dir}: {e}"))?;
    let mut st = ringio::sys::statx_zeroed();
    let mask = libc::STATX_BASIC_STATS;
    ringio::sys::statx(libc::AT_FDCWD, &c, libc::AT_SYMLINK_NOFOLLOW, mask, &mut st)
        .map_err(|e| format!("{dir}: {e}"))?;
    let fs = ringio::sys::fs::fs_type(fd.as_raw_fd()).unwrap_or(0);
    let sh = Shared {
        st: Mutex::new(Stack { fds: vec![(fd, st.stx_size)], busy: 0, waiting: 0 }),
        cv: Condvar::new(),
        fs,
    };
    let blocks: u64 = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads.max(1)).map(|_| s.spawn(|| worker(&sh))).collect();
        hs.into_iter().map(|h| h.join().unwrap_or(0)).sum()
    });
    Ok((blocks + st.stx_blocks) / 2)
}

fn pop(sh: &Shared, was_busy: bool) -> Option<(OwnedFd, u64)> {
    let mut g = ringio::sync::lock(&sh.st);
    if was_busy {
        g.busy -= 1;
    }
    loop {
        if let Some(d) = g.fds.pop() {
            g.busy += 1;
            return Some(d);
        }
        if g.busy == 0 {
            if g.waiting > 0 {
                sh.cv.notify_all();
            }
            return None;
        }
        g.waiting += 1;
        g = ringio::sync::wait(&sh.cv, g);
        g.waiting -= 1;
    }
}

/// Walks directories until none are left; returns the 512-byte blocks seen.
fn worker(sh: &Shared) -> u64 {
    let mut buf = Vec::with_capacity(ringio::DEFAULT_DENTS_BUF);
    let mut blocks = 0u64;
    let mut kids = Vec::new();
    let mut name = Vec::new();
    let mut st = ringio::sys::statx_zeroed();
    let mut busy = false;
    while let Some((dir, size)) = pop(sh, busy) {
        busy = true;
        let fd = dir.as_raw_fd();
        let ends = ringio::sys::fs::dir_end_offsets(sh.fs, size);
        loop {
            let eof = ringio::getdents_fill_hinted(fd, &mut buf, ends.as_ref().map_or(&[], |e| e))
                .unwrap_or(true);
            for d in DirentIter::new(&buf) {
                if d.is_dot_or_dotdot() {
                    continue;
                }
                name.clear();
                name.extend_from_slice(d.name);
                name.push(0);
                let Ok(name) = CStr::from_bytes_with_nul(&name) else { continue };
                let r = ringio::sys::statx(
                    fd,
                    name,
                    libc::AT_SYMLINK_NOFOLLOW,
                    libc::STATX_BASIC_STATS,
                    &mut st,
                );
                if r.is_err() {
                    continue;
                }
                blocks += st.stx_blocks;
                if st.stx_mode as u32 & libc::S_IFMT == libc::S_IFDIR {
                    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
                    if let Ok(k) = ringio::sys::openat_owned(fd, name, flags, 0) {
                        kids.push((k, st.stx_size));
                    }
                }
            }
            if eof {
                break;
            }
        }
        drop(dir);
        if !kids.is_empty() {
            let mut g = ringio::sync::lock(&sh.st);
            g.fds.append(&mut kids);
            if g.waiting > 0 {
                sh.cv.notify_all();
            }
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    /// The floor walks the whole tree: its total is GNU's `du -sl`.
    #[test]
    fn floor_total_is_du_count_links() {
        let dir = std::env::temp_dir().join(format!("du-floor-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for d in ["a/b/c", "a/d", "e"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        for (i, f) in ["a/x", "a/b/y", "a/b/c/z", "e/w", "v"].iter().enumerate() {
            std::fs::write(dir.join(f), vec![b'x'; 5000 * i + 1]).unwrap();
        }
        std::fs::hard_link(dir.join("a/x"), dir.join("e/x2")).unwrap();
        std::os::unix::fs::symlink("a", dir.join("link")).unwrap();
        let path = dir.to_str().unwrap();
        let out = Command::new("du").args(["-sl", path]).output().unwrap();
        let gnu: u64 =
            String::from_utf8_lossy(&out.stdout).split('\t').next().unwrap().parse().unwrap();
        for threads in [1, 2, 4] {
            assert_eq!(super::total_kib(path, threads).unwrap(), gnu, "{threads} threads");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
