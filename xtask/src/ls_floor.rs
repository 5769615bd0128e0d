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

/// The task size: by descriptor (a high-latency file system, many
/// threads each waiting on the server) tasks are small so that every
/// thread has one while the reader is still on the first batches.
fn chunk(by_fd: bool) -> usize {
    if by_fd {
        8
    } else {
        CHUNK
    }
}

/// Stats `name` in `dirfd` and lists its extended attributes; returns
/// whether it has any. By name that is a statx and a listxattr, each
/// resolving the name (on FUSE or NFS with caching off, a LOOKUP each);
/// `by_fd` is what the tools do on such a file system (ringio's about.rs):
/// one `O_PATH` open (the only LOOKUP), a statx of the descriptor that
/// takes the LOOKUP's attributes (AT_STATX_DONT_SYNC), the attribute list
/// through `/proc/self/fd/N`: two requests an entry where by name it is
/// three.
pub(crate) fn stat_and_xattrs(
    dirfd: RawFd,
    name: &std::ffi::CStr,
    by_fd: bool,
    st: &mut ringio::sys::Statx,
    xattrs: &mut Vec<u8>,
) -> Result<bool, ringio::Errno> {
    let nofollow = libc::AT_SYMLINK_NOFOLLOW | libc::AT_STATX_DONT_SYNC;
    if !by_fd {
        ringio::sys::statx(dirfd, name, nofollow, libc::STATX_BASIC_STATS, st)?;
        let link = st.stx_mode as u32 & libc::S_IFMT == libc::S_IFLNK;
        return Ok(ringio::sys::listxattrat(dirfd, name, !link, xattrs).is_ok_and(|l| l > 0));
    }
    let fd = ringio::sys::openat(dirfd, name, libc::O_PATH | libc::O_NOFOLLOW, 0)?;
    let flags = libc::AT_EMPTY_PATH | libc::AT_STATX_DONT_SYNC;
    let r = ringio::sys::statx(fd, c"", flags, libc::STATX_BASIC_STATS, st).map(|()| {
        let proc = CString::new(format!("/proc/self/fd/{fd}")).expect("no NUL");
        // Followed: the magic link leads to the entry itself (a symbolic
        // link's own attributes, as O_NOFOLLOW opened it), not further.
        ringio::sys::listxattrat(libc::AT_FDCWD, &proc, true, xattrs).is_ok_and(|l| l > 0)
    });
    let _ = ringio::sys::close(fd);
    r
}

struct Queue {
    /// NUL-terminated names, one task each.
    tasks: VecDeque<Vec<Vec<u8>>>,
    /// The reader has queued everything.
    done: bool,
}

pub fn main(args: &[String]) -> Result<(), String> {
    let complete = args.iter().any(|a| a == "--complete");
    let by_fd = args.iter().any(|a| a == "--by-fd");
    let args: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let Some(dir) = args.first() else {
        return Err("usage: cargo xtask ls-floor [--complete] [--by-fd] DIR [THREADS]".into());
    };
    let threads = match args.get(1) {
        Some(t) => t.parse().map_err(|_| format!("bad thread count {t:?}"))?,
        None => 2,
    };
    if complete {
        let rows = keep(dir, threads, by_fd)?;
        let mut out = std::io::stdout().lock();
        return complete::print(rows, &mut out, threads).map_err(|e| format!("write: {e}"));
    }
    let (entries, _) = list(dir, threads, by_fd)?;
    println!("{entries}\t{dir}");
    Ok(())
}

/// Lists `dir` the floor's way; returns (entries, entries with extended
/// attributes). `.` and `..` are stat'ed and queried too, as `ls -a` does.
fn list(dir: &str, threads: usize, by_fd: bool) -> Result<(u64, u64), String> {
    let per_thread = run(dir, threads, chunk(by_fd), |fd, q| work(fd, q, by_fd))?;
    Ok(per_thread.into_iter().fold((0, 0), |t, (a, b)| (t.0 + a, t.1 + b)))
}

/// Opens `dir`, reads it on this thread while THREADS - 1 helpers run
/// `work` on the queued names, then runs `work` here too; returns what
/// each thread's `work` returned.
fn run<R: Send>(
    dir: &str,
    threads: usize,
    chunk: usize,
    work: impl Fn(RawFd, &(Mutex<Queue>, Condvar)) -> R + Sync,
) -> Result<Vec<R>, String> {
    let c = CString::new(dir.as_bytes()).map_err(|_| "NUL in path".to_string())?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
    let fd =
        ringio::sys::openat(libc::AT_FDCWD, &c, flags, 0).map_err(|e| format!("{dir}: {e}"))?;
    let q = (Mutex::new(Queue { tasks: VecDeque::new(), done: false }), Condvar::new());
    let r = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads.max(1)).map(|_| s.spawn(|| work(fd, &q))).collect();
        let read = read_all(fd, &q, chunk);
        let mut all = vec![work(fd, &q)];
        all.extend(helpers.into_iter().filter_map(|h| h.join().ok()));
        read.map(|()| all)
    });
    let _ = ringio::sys::close(fd);
    r.map_err(|e| format!("{dir}: {e}"))
}

/// The next task, waiting for the reader; `None` once it is done and the
/// queue empty.
fn next_task(q: &(Mutex<Queue>, Condvar)) -> Option<Vec<Vec<u8>>> {
    let mut g = q.0.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some(t) = g.tasks.pop_front() {
            return Some(t);
        }
        if g.done {
            return None;
        }
        g = q.1.wait(g).unwrap_or_else(|e| e.into_inner());
    }
}

/// Reads the directory to its end, queueing the names as tasks.
fn read_all(fd: RawFd, q: &(Mutex<Queue>, Condvar), chunk: usize) -> Result<(), ringio::Errno> {
    let mut buf = Vec::with_capacity(ringio::DEFAULT_DENTS_BUF);
    let r = loop {
        buf.clear();
        match ringio::sys::getdents64(fd, &mut buf) {
            Ok(0) => break Ok(()),
            Ok(_) => {}
            Err(e) => break Err(e),
        }
        let mut task = Vec::with_capacity(chunk);
        let push = |task: Vec<Vec<u8>>| {
            q.0.lock().unwrap_or_else(|e| e.into_inner()).tasks.push_back(task);
            q.1.notify_one();
        };
        for d in DirentIter::new(&buf) {
            let mut n = Vec::with_capacity(d.name.len() + 1);
            n.extend_from_slice(d.name);
            n.push(0);
            task.push(n);
            if task.len() == chunk {
                push(std::mem::replace(&mut task, Vec::with_capacity(chunk)));
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
fn work(dirfd: RawFd, q: &(Mutex<Queue>, Condvar), by_fd: bool) -> (u64, u64) {
    let mut st = ringio::sys::statx_zeroed();
    let mut xattrs = Vec::with_capacity(256);
    let mut target = Vec::with_capacity(256);
    let (mut n, mut with_x) = (0u64, 0u64);
    loop {
        let Some(task) = next_task(q) else { return (n, with_x) };
        for name in &task {
            let Ok(name) = std::ffi::CStr::from_bytes_with_nul(name) else { continue };
            let Ok(x) = stat_and_xattrs(dirfd, name, by_fd, &mut st, &mut xattrs) else {
                continue;
            };
            n += 1;
            if st.stx_mode as u32 & libc::S_IFMT == libc::S_IFLNK {
                let _ = ringio::sys::readlinkat(dirfd, name, &mut target);
            }
            with_x += u64::from(x);
        }
    }
}

/// What `--complete` keeps of an entry: the fields `ls -al` prints.
pub(crate) struct Row {
    name: Vec<u8>,
    mode: u32,
    nlink: u32,
    uid: u32,
    gid: u32,
    size: u64,
    blocks: u64,
    mtime: i64,
    xattrs: bool,
    target: Option<Vec<u8>>,
}

impl Row {
    /// The row of `name` (its NUL already dropped) from its stat.
    pub(crate) fn new(
        name: Vec<u8>,
        st: &ringio::sys::Statx,
        xattrs: bool,
        target: Option<Vec<u8>>,
    ) -> Row {
        Row {
            name,
            mode: st.stx_mode as u32,
            nlink: st.stx_nlink,
            uid: st.stx_uid,
            gid: st.stx_gid,
            size: st.stx_size,
            blocks: st.stx_blocks,
            mtime: st.stx_mtime.tv_sec,
            xattrs,
            target,
        }
    }
}

/// [`list`], keeping each entry's row (the names the reader made move into
/// them, as an `ls` keeps its entries).
fn keep(dir: &str, threads: usize, by_fd: bool) -> Result<Vec<Row>, String> {
    let per_thread = run(dir, threads, chunk(by_fd), |fd, q| work_keep(fd, q, by_fd))?;
    Ok(per_thread.into_iter().flatten().collect())
}

/// [`work`], keeping the rows.
fn work_keep(dirfd: RawFd, q: &(Mutex<Queue>, Condvar), by_fd: bool) -> Vec<Row> {
    let mut st = ringio::sys::statx_zeroed();
    let mut xattrs = Vec::with_capacity(256);
    let mut rows = Vec::new();
    loop {
        let Some(task) = next_task(q) else { return rows };
        for mut name in task {
            let Ok(c) = std::ffi::CStr::from_bytes_with_nul(&name) else { continue };
            let Ok(x) = stat_and_xattrs(dirfd, c, by_fd, &mut st, &mut xattrs) else { continue };
            let link = st.stx_mode as u32 & libc::S_IFMT == libc::S_IFLNK;
            let target = link.then(|| {
                let mut t = Vec::with_capacity(256);
                let _ = ringio::sys::readlinkat(dirfd, c, &mut t);
                t
            });
            name.pop();
            rows.push(Row::new(name, &st, x, target));
        }
    }
}

/// `--complete`: the rest of an `ls -al` on top of the floor's system
/// calls, done as plainly as it can be: every row kept, sorted by name in
/// byte order (a lower bound for any locale's collation), widths taken in
/// one pass, the rows formatted into buffers written out in 256 KiB
/// pieces, by two threads (a half each) from 4,096 rows. Simplified where that only
/// makes it cheaper than a GNU-identical listing: names unquoted, `+` for
/// any extended attribute, devices shown by size, the date in C's
/// `%b %e %H:%M` / `%b %e  %Y` cached per minute. The gap between this
/// row and the floor is about the least a complete listing adds to the
/// system calls.
pub(crate) mod complete {
    use super::Row;
    use std::io::Write;

    pub fn print(mut rows: Vec<Row>, out: &mut impl Write, threads: usize) -> std::io::Result<()> {
        let mut users = cli::users::Users::load();
        libcw::time::tzset();
        let now = libcw::time::now().0;
        let w = head(&mut rows, &mut users, out)?;
        if threads < 2 || rows.len() < 4096 {
            return format(&rows, &w, &mut users, now, out);
        }
        // Two threads, a half each: the second half into a buffer of its
        // own, written after the first.
        let (a, b) = rows.split_at(rows.len() / 2);
        let mut their_users = users.clone();
        std::thread::scope(|s| {
            let h = s.spawn(|| {
                let mut buf = Vec::new();
                format(b, &w, &mut their_users, now, &mut buf).map(|()| buf)
            });
            format(a, &w, &mut users, now, out)?;
            let buf = h.join().unwrap_or_else(|_| Err(std::io::ErrorKind::Other.into()))?;
            out.write_all(&buf)
        })
    }

    /// One directory of an `ls -alR`, its `total` line and its rows, on
    /// the calling thread (the tree floor formats each directory where it
    /// was read). `now` is the time the dates are recent to (after
    /// `tzset`).
    pub fn directory(
        mut rows: Vec<Row>,
        users: &mut cli::users::Users,
        now: i64,
        out: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        let w = head(&mut rows, users, out)?;
        format(&rows, &w, users, now, out)
    }

    /// Sorts the rows, takes the column widths in one pass and writes the
    /// `total` line.
    fn head(
        rows: &mut [Row],
        users: &mut cli::users::Users,
        out: &mut impl Write,
    ) -> std::io::Result<Widths> {
        rows.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let mut w = Widths { nlink: 1, owner: 1, group: 1, size: 1 };
        let mut blocks = 0;
        let mut owner = Vec::new();
        for r in rows.iter() {
            w.nlink = w.nlink.max(cli::num::digit_count(u64::from(r.nlink)));
            w.size = w.size.max(cli::num::digit_count(r.size));
            owner.clear();
            users.user_or_id(r.uid, &mut owner);
            w.owner = w.owner.max(owner.len());
            owner.clear();
            users.group_or_id(r.gid, &mut owner);
            w.group = w.group.max(owner.len());
            blocks += r.blocks;
        }
        out.write_all(format!("total {}\n", blocks.div_ceil(2)).as_bytes())?;
        Ok(w)
    }

    struct Widths {
        nlink: usize,
        owner: usize,
        group: usize,
        size: usize,
    }

    fn format(
        rows: &[Row],
        w: &Widths,
        users: &mut cli::users::Users,
        now: i64,
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        let mut buf = Vec::with_capacity(300 * 1024);
        let mut date = (i64::MIN, Vec::new());
        let mut id = Vec::new();
        for r in rows {
            cli::mode::mode_string(&mut buf, r.mode);
            buf.push(if r.xattrs { b'+' } else { b' ' });
            num(&mut buf, u64::from(r.nlink), w.nlink);
            buf.push(b' ');
            id.clear();
            users.user_or_id(r.uid, &mut id);
            pad(&mut buf, &id, w.owner);
            buf.push(b' ');
            id.clear();
            users.group_or_id(r.gid, &mut id);
            pad(&mut buf, &id, w.group);
            buf.push(b' ');
            num(&mut buf, r.size, w.size);
            buf.push(b' ');
            let recent = now - r.mtime < 15_778_476 && r.mtime <= now;
            let key = r.mtime.div_euclid(60) * 2 + i64::from(recent);
            if date.0 != key {
                date = (key, stamp(r.mtime, recent));
            }
            buf.extend_from_slice(&date.1);
            buf.push(b' ');
            buf.extend_from_slice(&r.name);
            if let Some(t) = &r.target {
                buf.extend_from_slice(b" -> ");
                buf.extend_from_slice(t);
            }
            buf.push(b'\n');
            if buf.len() >= 256 * 1024 {
                out.write_all(&buf)?;
                buf.clear();
            }
        }
        out.write_all(&buf)
    }

    fn num(out: &mut Vec<u8>, n: u64, w: usize) {
        let mut a = [0u8; 20];
        let i = cli::num::digits_ending(&mut a, n);
        out.resize(out.len() + w.saturating_sub(a.len() - i), b' ');
        out.extend_from_slice(&a[i..]);
    }

    fn pad(out: &mut Vec<u8>, s: &[u8], w: usize) {
        out.extend_from_slice(s);
        out.resize(out.len() + w.saturating_sub(s.len()), b' ');
    }

    fn stamp(secs: i64, recent: bool) -> Vec<u8> {
        const MON: [&str; 12] =
            ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
        match libcw::time::localtime(secs) {
            Some(t) if recent => {
                format!("{} {:>2} {:02}:{:02}", MON[t.mon as usize % 12], t.mday, t.hour, t.min)
                    .into_bytes()
            }
            Some(t) => {
                format!("{} {:>2}  {}", MON[t.mon as usize % 12], t.mday, t.year).into_bytes()
            }
            None => secs.to_string().into_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use scratch::Scratch;

    /// A fresh directory with `sub/`, 3,000 files `f0`… (more than one
    /// getdents64 batch) of `size(i)` bytes, and `link` -> `f1`.
    fn scratch(tag: &str, size: impl Fn(usize) -> usize) -> Scratch {
        let dir = Scratch::new(&format!("ls-floor-{tag}"));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        for i in 0..3000 {
            std::fs::write(dir.join(format!("f{i}")), vec![b'x'; size(i)]).unwrap();
        }
        std::os::unix::fs::symlink("f1", dir.join("link")).unwrap();
        dir
    }

    /// Every entry (with `.` and `..`) is stat'ed once, whatever the threads.
    #[test]
    fn lists_every_entry_once() {
        let dir = scratch("test", |_| 1);
        std::os::unix::fs::symlink("missing", dir.join("dangling")).unwrap();
        let path = dir.path().to_str().unwrap();
        // Attributes on one file, so that both ways must find the same one.
        let tagged = std::process::Command::new("setfattr")
            .args(["-n", "user.floor", "-v", "1"])
            .arg(dir.join("f7"))
            .status()
            .is_ok_and(|s| s.success());
        for threads in [1, 2, 4] {
            for by_fd in [false, true] {
                let (n, with_x) = super::list(path, threads, by_fd).unwrap();
                assert_eq!(n, 3000 + 3 + 2, "{threads} threads, by_fd {by_fd}");
                if tagged {
                    assert_eq!(with_x, 1, "{threads} threads, by_fd {by_fd}");
                }
            }
        }
    }

    /// `--complete` prints what GNU's `ls -al` prints in the C locale, for
    /// plain files, directories and symbolic links (a floor that did less
    /// than a listing would be no floor).
    #[test]
    fn complete_matches_gnu_ls_in_c() {
        let dir = scratch("complete", |i| i % 1500);
        let path = dir.path().to_str().unwrap();
        let gnu = std::process::Command::new("ls")
            .args(["-al", path])
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        for by_fd in [false, true] {
            let mut ours = Vec::new();
            super::complete::print(super::keep(path, 2, by_fd).unwrap(), &mut ours, 2).unwrap();
            assert!(gnu.status.success());
            let ours = String::from_utf8_lossy(&ours);
            assert_eq!(ours, String::from_utf8_lossy(&gnu.stdout), "by_fd {by_fd}");
        }
    }
}
