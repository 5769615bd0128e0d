//! `cargo xtask ls-floor DIR [THREADS]`: the least work any `ls -al` whose
//! output matches GNU's must do for one directory, as a reference row in
//! the ls bench.
//!
//! GNU's `-l` needs each entry's status (statx) and whether it carries an
//! ACL or a security context (the `+` / `.` after the mode): one extended
//! attribute query per entry. lsr asks `listxattr` once per entry for both
//! questions, so this does the same (`listxattrat` relative to the
//! directory, following links except on a symlink, whose own attributes
//! are asked instead), plus `readlinkat` for symlinks, whose target `-l`
//! prints. One thread reads the directory with getdents64 and queues each
//! batch, split into tasks of at most [`CHUNK`] entries; THREADS threads
//! (default 2, the reader among them once it is done) statx and query
//! them. No sorting, no formatting, no output but the entry count: the gap
//! between this row and `lsr -al` is what lsr spends on everything else.

use std::collections::VecDeque;
use std::ffi::CString;
use std::os::fd::RawFd;
use std::sync::{Condvar, Mutex};

use ringio::DirentIter;

/// Most entries per statx task: small enough that two threads share one
/// getdents batch, large enough that the queue lock is rare.
const CHUNK: usize = 256;

struct Queue {
    /// NUL-terminated names, one task each.
    tasks: VecDeque<Vec<Vec<u8>>>,
    /// The reader has queued everything.
    done: bool,
}

pub fn main(args: &[String]) -> Result<(), String> {
    let Some(dir) = args.first() else {
        return Err("usage: cargo xtask ls-floor DIR [THREADS]".into());
    };
    let threads = match args.get(1) {
        Some(t) => t.parse().map_err(|_| format!("bad thread count {t:?}"))?,
        None => 2,
    };
    let (entries, _) = list(dir, threads)?;
    println!("{entries}\t{dir}");
    Ok(())
}

/// Lists `dir` the floor's way; returns (entries, entries with extended
/// attributes). `.` and `..` are stat'ed and queried too, as `ls -a` does.
fn list(dir: &str, threads: usize) -> Result<(u64, u64), String> {
    let c = CString::new(dir.as_bytes()).map_err(|_| "NUL in path".to_string())?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
    let fd =
        ringio::sys::openat(libc::AT_FDCWD, &c, flags, 0).map_err(|e| format!("{dir}: {e}"))?;
    let q = (Mutex::new(Queue { tasks: VecDeque::new(), done: false }), Condvar::new());
    let r = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads.max(1)).map(|_| s.spawn(|| work(fd, &q))).collect();
        let read = read_all(fd, &q);
        let mine = work(fd, &q);
        let mut total = mine;
        for h in helpers {
            let (a, b) = h.join().unwrap_or((0, 0));
            total = (total.0 + a, total.1 + b);
        }
        read.map(|()| total)
    });
    let _ = ringio::sys::close(fd);
    r.map_err(|e| format!("{dir}: {e}"))
}

/// Reads the directory to its end, queueing the names as tasks.
fn read_all(fd: RawFd, q: &(Mutex<Queue>, Condvar)) -> Result<(), ringio::Errno> {
    let mut buf = Vec::with_capacity(ringio::DEFAULT_DENTS_BUF);
    let r = loop {
        buf.clear();
        match ringio::sys::getdents64(fd, &mut buf) {
            Ok(0) => break Ok(()),
            Ok(_) => {}
            Err(e) => break Err(e),
        }
        let mut task = Vec::with_capacity(CHUNK);
        let push = |task: Vec<Vec<u8>>| {
            q.0.lock().unwrap_or_else(|e| e.into_inner()).tasks.push_back(task);
            q.1.notify_one();
        };
        for d in DirentIter::new(&buf) {
            let mut n = Vec::with_capacity(d.name.len() + 1);
            n.extend_from_slice(d.name);
            n.push(0);
            task.push(n);
            if task.len() == CHUNK {
                push(std::mem::replace(&mut task, Vec::with_capacity(CHUNK)));
            }
        }
        if !task.is_empty() {
            push(task);
        }
    };
    q.0.lock().unwrap_or_else(|e| e.into_inner()).done = true;
    q.1.notify_all();
    r
}

/// Takes tasks until the reader is done and the queue empty; returns
/// (entries, entries with extended attributes).
fn work(dirfd: RawFd, q: &(Mutex<Queue>, Condvar)) -> (u64, u64) {
    let mut st = ringio::sys::statx_zeroed();
    let mut xattrs = Vec::with_capacity(256);
    let mut target = Vec::with_capacity(256);
    let (mut n, mut with_x) = (0u64, 0u64);
    loop {
        let task = {
            let mut g = q.0.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(t) = g.tasks.pop_front() {
                    break Some(t);
                }
                if g.done {
                    break None;
                }
                g = q.1.wait(g).unwrap_or_else(|e| e.into_inner());
            }
        };
        let Some(task) = task else { return (n, with_x) };
        for name in &task {
            let Ok(name) = std::ffi::CStr::from_bytes_with_nul(name) else { continue };
            let flags = libc::AT_SYMLINK_NOFOLLOW;
            if ringio::sys::statx(dirfd, name, flags, libc::STATX_BASIC_STATS, &mut st).is_err() {
                continue;
            }
            n += 1;
            let link = st.stx_mode as u32 & libc::S_IFMT == libc::S_IFLNK;
            if link {
                let _ = ringio::sys::readlinkat(dirfd, name, &mut target);
            }
            if ringio::sys::listxattrat(dirfd, name, !link, &mut xattrs).is_ok_and(|l| l > 0) {
                with_x += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every entry (with `.` and `..`) is stat'ed once, whatever the threads.
    #[test]
    fn lists_every_entry_once() {
        let dir = std::env::temp_dir().join(format!("ls-floor-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        // More than one getdents64 batch.
        for i in 0..3000 {
            std::fs::write(dir.join(format!("f{i}")), b"x").unwrap();
        }
        std::os::unix::fs::symlink("f1", dir.join("link")).unwrap();
        std::os::unix::fs::symlink("missing", dir.join("dangling")).unwrap();
        let path = dir.to_str().unwrap();
        for threads in [1, 2, 4] {
            assert_eq!(super::list(path, threads).unwrap().0, 3000 + 3 + 2, "{threads} threads");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
