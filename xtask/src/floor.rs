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
//!
//! Two variants give the other tools' floors: `--names` reads directories
//! only (subdirectories known from d_type, statx only where it is
//! DT_UNKNOWN; each directory read to the empty getdents64, since without
//! a stat its file system's end mark is unknown), the least any `find`
//! without a stat-needing test does (`--print`: and prints the paths);
//! `--ls` adds to each statx the extended attribute query and symlink read
//! that `ls -alR` needs, and stats and queries each directory's `.` and
//! `..` as `-a` shows them (as `cargo xtask ls-floor`, for a whole tree);
//! `--ls --complete` is the whole `ls -alR`: each directory's rows kept,
//! sorted and formatted by the thread that read it (ls-floor's
//! `--complete` way: byte order, C dates, names unquoted), and once the
//! walk is done the directories written in `ls -R`'s order with their
//! headers. What that adds to `--ls` is about the least the output of a
//! recursive long listing costs.

use std::ffi::{CStr, CString};
use std::io::Write as _;
use std::os::fd::RawFd;
use std::sync::{Condvar, Mutex};

use ringio::{DirentIter, Errno};

use crate::ls_floor::Row;

/// An open directory to read: its size (for the end mark) and, when the
/// walk prints, its path.
struct Dir {
    fd: RawFd,
    size: u64,
    path: Vec<u8>,
}

struct Stack {
    dirs: Vec<Dir>,
    busy: usize,
    /// Threads waiting: a notify is a futex call even with nobody to wake.
    waiting: usize,
}

struct Shared {
    st: Mutex<Stack>,
    cv: Condvar,
    /// The file system's magic (of the root), for the end-of-directory mark.
    fs: i64,
    /// No mount point lies below the root: every directory is on the
    /// root's file system, so its mark applies without a stat.
    one_fs: bool,
    mode: Mode,
    /// `--print`: where each path is written as find prints it (a find's
    /// floor includes its output).
    print: Option<Mutex<Box<dyn std::io::Write + Send>>>,
    /// `--ls --complete`: each directory's path and formatted listing, and
    /// the time its dates are recent to.
    complete: Option<Complete>,
}

/// `--ls --complete`'s directories so far, (path, formatted listing), and
/// the time the dates are recent to.
type Complete = (Mutex<Vec<(Vec<u8>, Vec<u8>)>>, i64);

/// What is done per entry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// statx (du).
    Stat,
    /// Nothing but d_type (find -name / -type).
    Names,
    /// statx + listxattr, readlink for symlinks (ls -alR).
    Ls,
    /// As `Ls`, each entry asked through an `O_PATH` descriptor, as the
    /// tools do on a high-latency file system (ls_floor's `stat_and_xattrs`).
    LsByFd,
}

pub fn main(args: &[String]) -> Result<(), String> {
    let mut mode = Mode::Stat;
    let mut print = false;
    let mut complete = false;
    let mut pos = Vec::new();
    for a in args {
        match a.as_str() {
            "--names" => mode = Mode::Names,
            "--ls" => mode = Mode::Ls,
            "--ls-by-fd" => mode = Mode::LsByFd,
            "--print" => print = true,
            "--complete" => complete = true,
            _ => pos.push(a),
        }
    }
    let Some(dir) = pos.first() else {
        return Err(
            "usage: cargo xtask du-floor DIR [THREADS] [--names|--ls [--complete]|--ls-by-fd] [--print]"
                .into(),
        );
    };
    let threads = match pos.get(1) {
        Some(t) => t.parse().map_err(|_| format!("bad thread count {t:?}"))?,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let out: Option<Box<dyn std::io::Write + Send>> =
        if print { Some(Box::new(std::io::stdout())) } else { None };
    if complete {
        if mode != Mode::Ls {
            return Err("--complete goes with --ls".into());
        }
        let mut out = std::io::stdout().lock();
        return walk_complete(dir, threads, &mut out).map_err(|e| format!("write: {e}"));
    }
    let total = walk(dir, threads, mode, out)?;
    if !print {
        println!("{total}\t{dir}");
    }
    Ok(())
}

/// The disk usage of the tree at `dir` in KiB, every entry counted (as
/// `du -s --count-links`), walked by `threads` threads.
#[cfg(test)]
fn total_kib(dir: &str, threads: usize) -> Result<u64, String> {
    walk(dir, threads, Mode::Stat, None)
}

/// `--ls --complete`: walks the tree at `dir` as `--ls` does, each
/// directory formatted where it was read, then writes the directories in
/// `ls -R` order (a directory, then its subdirectories by name, each
/// followed by its own).
fn walk_complete(dir: &str, threads: usize, out: &mut impl std::io::Write) -> Result<(), String> {
    libcw::time::tzset();
    let now = libcw::time::now().0;
    let done = Mutex::new(Vec::new());
    walk_with(dir, threads, Mode::Ls, None, Some((done, now)), |sh| {
        let Some((done, _)) = sh.complete else { return Ok(()) };
        let mut dirs = done.into_inner().unwrap_or_else(|e| e.into_inner());
        // Component by component: a directory comes before its
        // subdirectories, and those in byte order of their names.
        dirs.sort_unstable_by(|a, b| a.0.split(|&c| c == b'/').cmp(b.0.split(|&c| c == b'/')));
        for (i, (path, listing)) in dirs.iter().enumerate() {
            let sep: &[u8] = if i == 0 { b"" } else { b"\n" };
            let w = [sep, path, b":\n", listing].into_iter().try_for_each(|b| out.write_all(b));
            w.map_err(|e| format!("write: {e}"))?;
        }
        Ok(())
    })
    .map(|_| ())
}

/// Walks the tree at `dir` with `threads` threads; returns its disk usage
/// in KiB (as `du -s --count-links`), or in `Names` mode the entries seen.
fn walk(
    dir: &str,
    threads: usize,
    mode: Mode,
    print: Option<Box<dyn std::io::Write + Send>>,
) -> Result<u64, String> {
    walk_with(dir, threads, mode, print, None, |_| Ok(()))
}

/// Whether no mount point lies below `dir` (from `/proc/self/mountinfo`,
/// as lfind reads it); false when that can't be told.
fn no_mount_below(dir: &str) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (Ok(root), Ok(info)) = (std::fs::canonicalize(dir), std::fs::read("/proc/self/mountinfo"))
    else {
        return false;
    };
    info.split(|&c| c == b'\n').filter_map(|l| l.split(|&c| c == b' ').nth(4)).all(|m| {
        let m = crate::slowfs::unescape_mountinfo(m);
        let m = std::path::Path::new(std::ffi::OsStr::from_bytes(&m));
        m == root || !m.starts_with(&root)
    })
}

/// [`walk`], with `then` given the walk's shared state once it is done
/// (the complete listing's directories).
fn walk_with(
    dir: &str,
    threads: usize,
    mode: Mode,
    print: Option<Box<dyn std::io::Write + Send>>,
    complete: Option<Complete>,
    then: impl FnOnce(Shared) -> Result<(), String>,
) -> Result<u64, String> {
    let c = CString::new(dir.as_bytes()).map_err(|_| "NUL in path".to_string())?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
    let fd =
        ringio::sys::openat(libc::AT_FDCWD, &c, flags, 0).map_err(|e| format!("{dir}: {e}"))?;
    let mut st = ringio::sys::statx_zeroed();
    let mask = libc::STATX_BASIC_STATS;
    ringio::sys::statx(libc::AT_FDCWD, &c, libc::AT_SYMLINK_NOFOLLOW, mask, &mut st)
        .map_err(|e| format!("{dir}: {e}"))?;
    let sh = Shared {
        st: Mutex::new(Stack {
            dirs: vec![Dir { fd, size: st.stx_size, path: dir.as_bytes().to_vec() }],
            busy: 0,
            waiting: 0,
        }),
        cv: Condvar::new(),
        fs: ringio::sys::fs::fs_type(fd).unwrap_or(0),
        one_fs: no_mount_below(dir),
        mode,
        print: print.map(Mutex::new),
        complete,
    };
    write_out(&sh, format!("{dir}\n").as_bytes());
    let blocks: u64 = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads.max(1)).map(|_| s.spawn(|| worker(&sh))).collect();
        hs.into_iter().map(|h| h.join().unwrap_or(0)).sum()
    });
    then(sh)?;
    Ok(if mode == Mode::Names { blocks } else { (blocks + st.stx_blocks) / 2 })
}

fn pop(sh: &Shared, was_busy: bool) -> Option<Dir> {
    let mut g = ringio::sync::lock(&sh.st);
    if was_busy {
        g.busy -= 1;
    }
    loop {
        if let Some(d) = g.dirs.pop() {
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
    let mut xattrs = Vec::with_capacity(256);
    let mut target = Vec::with_capacity(256);
    let mut busy = false;
    let mut out = Vec::new();
    let mut users = sh.complete.as_ref().map(|_| cli::users::Users::load());
    let mut rows = Vec::new();
    while let Some(Dir { fd, size, path }) = pop(sh, busy) {
        busy = true;
        // A subdirectory's path, kept only when the walk prints.
        let kid = |name: &[u8]| {
            let mut p = Vec::new();
            if sh.print.is_some() || sh.complete.is_some() {
                push_path(&mut p, &path, name);
            }
            p
        };
        // The end mark needs the directory's file system. In names mode
        // nothing is stat'ed (as in lfind without a stat-needing test): the
        // root's file system is every directory's when no mount point lies
        // below it (lfind knows the same from the mount table, per
        // directory), and the size is unknown, which leaves the hashed
        // directories' mark; else each directory is read until getdents64
        // returns 0.
        let ends = match sh.mode {
            Mode::Names if sh.one_fs => {
                ringio::sys::fs::dir_end_offsets(sh.fs, ringio::sys::fs::SIZE_UNKNOWN)
            }
            Mode::Names => None,
            _ => ringio::sys::fs::dir_end_offsets(sh.fs, size),
        };
        loop {
            let eof =
                ringio::sys::getdents_fill_hinted(fd, &mut buf, ends.as_ref().map_or(&[], |e| e))
                    .unwrap_or(true);
            for d in DirentIter::new(&buf) {
                name.clear();
                name.extend_from_slice(d.name);
                name.push(0);
                let Ok(name) = CStr::from_bytes_with_nul(&name) else { continue };
                let ls = matches!(sh.mode, Mode::Ls | Mode::LsByFd);
                if d.is_dot_or_dotdot() {
                    // `ls -a` shows them: stat'ed and queried as ls-floor
                    // does, never descended into or counted.
                    if ls {
                        let by_fd = sh.mode == Mode::LsByFd;
                        let x =
                            crate::ls_floor::stat_and_xattrs(fd, name, by_fd, &mut st, &mut xattrs);
                        if let (Ok(x), Some(_)) = (x, &sh.complete) {
                            rows.push(Row::new(d.name.to_vec(), &st, x, None));
                        }
                    }
                    continue;
                }
                if sh.print.is_some() {
                    push_path(&mut out, &path, d.name);
                    out.push(b'\n');
                }
                let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
                if sh.mode == Mode::Names && d.d_type != ringio::dtype::UNKNOWN {
                    blocks += 1;
                    if d.d_type == ringio::dtype::DIR {
                        if let Ok(k) = ringio::sys::openat(fd, name, flags, 0) {
                            kids.push(Dir { fd: k, size: 0, path: kid(d.name) });
                        }
                    }
                    continue;
                }
                let mut has_xattrs = false;
                let r = if ls {
                    let by_fd = sh.mode == Mode::LsByFd;
                    crate::ls_floor::stat_and_xattrs(fd, name, by_fd, &mut st, &mut xattrs)
                        .map(|x| has_xattrs = x)
                } else {
                    // DONT_SYNC: the attributes the name's lookup brought
                    // (on FUSE and NFS no second request; locally no effect).
                    let flags = libc::AT_SYMLINK_NOFOLLOW | libc::AT_STATX_DONT_SYNC;
                    ringio::sys::statx(fd, name, flags, libc::STATX_BASIC_STATS, &mut st)
                };
                if r.is_err() {
                    continue;
                }
                blocks += if sh.mode == Mode::Names { 1 } else { st.stx_blocks };
                let kind = st.stx_mode as u32 & libc::S_IFMT;
                if kind == libc::S_IFLNK && ls {
                    let _ = ringio::sys::readlinkat(fd, name, &mut target);
                }
                if sh.complete.is_some() {
                    let t = (kind == libc::S_IFLNK).then(|| target.clone());
                    rows.push(Row::new(d.name.to_vec(), &st, has_xattrs, t));
                }
                if kind == libc::S_IFDIR {
                    if let Ok(k) = ringio::sys::openat(fd, name, flags, 0) {
                        kids.push(Dir { fd: k, size: st.stx_size, path: kid(d.name) });
                    }
                }
            }
            if eof {
                break;
            }
        }
        let _: Result<(), Errno> = ringio::sys::close(fd);
        if let (Some((done, now)), Some(users)) = (&sh.complete, users.as_mut()) {
            let mut listing = Vec::new();
            let rows = std::mem::take(&mut rows);
            let _ = crate::ls_floor::complete::directory(rows, users, *now, &mut listing);
            ringio::sync::lock(done).push((path.clone(), listing));
        }
        if out.len() >= 64 * 1024 {
            write_out(sh, &out);
            out.clear();
        }
        if !kids.is_empty() {
            let mut g = ringio::sync::lock(&sh.st);
            g.dirs.append(&mut kids);
            if g.waiting > 0 {
                sh.cv.notify_all();
            }
        }
    }
    write_out(sh, &out);
    blocks
}

/// Appends `dir/name`, as find prints it.
fn push_path(out: &mut Vec<u8>, dir: &[u8], name: &[u8]) {
    out.extend_from_slice(dir);
    if !dir.ends_with(b"/") {
        out.push(b'/');
    }
    out.extend_from_slice(name);
}

/// Writes a block of whole lines where the walk prints (under a lock, so
/// the threads' blocks don't interleave); nothing when it doesn't.
fn write_out(sh: &Shared, b: &[u8]) {
    if let (Some(w), false) = (&sh.print, b.is_empty()) {
        let _ = ringio::sync::lock(w).write_all(b);
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;
    use std::sync::{Arc, Mutex};

    /// `/` has mounts below it (/proc at least); a fresh directory has
    /// none; a root that can't be resolved can't be told.
    #[test]
    fn mount_points_below_a_root() {
        assert!(!super::no_mount_below("/"));
        let scratch = scratch::Scratch::new("floor-mounts");
        assert!(super::no_mount_below(scratch.path().to_str().unwrap()));
        assert!(!super::no_mount_below("/no/such/dir"), "can't be told");
    }

    /// The floor walks the whole tree: its total is GNU's `du -sl`, and in
    /// names mode it sees what `find` lists.
    #[test]
    fn floor_total_is_du_count_links() {
        let scratch = scratch::Scratch::new("du-floor-test");
        let dir = scratch.path();
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
        let out = Command::new("find").arg(path).output().unwrap();
        let entries = out.stdout.iter().filter(|&&b| b == b'\n').count() as u64 - 1;
        let mut listed: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').collect();
        listed.sort_unstable();
        for threads in [1, 2, 4] {
            assert_eq!(super::total_kib(path, threads).unwrap(), gnu, "{threads} threads");
            for mode in [super::Mode::Ls, super::Mode::LsByFd] {
                assert_eq!(super::walk(path, threads, mode, None).unwrap(), gnu, "{mode:?}");
            }
            let printed = Arc::new(Mutex::new(Vec::new()));
            let sink = Box::new(Shared(printed.clone()));
            let n = super::walk(path, threads, super::Mode::Names, Some(sink)).unwrap();
            assert_eq!(n, entries);
            // --print lists what find lists (in another order).
            let printed = printed.lock().unwrap();
            let mut lines: Vec<&[u8]> = printed.split(|&b| b == b'\n').collect();
            lines.sort_unstable();
            assert_eq!(lines, listed, "{threads} threads");
        }
    }

    /// `--ls --complete` prints what GNU's `ls -alR` prints in the C
    /// locale: nested and empty directories, files of several sizes,
    /// symbolic links (to a file, to a directory: not descended, dangling),
    /// whatever the threads (a floor that did less than the listing would
    /// be no floor).
    #[test]
    fn complete_is_gnu_ls_alr_in_c() {
        let scratch = scratch::Scratch::new("du-floor-complete");
        // One level down: the root's `..` is then the test's own, which
        // other tests creating their scratch trees don't touch.
        let dir = &scratch.path().join("root");
        for d in ["a/b/c", "a/d", "e", "a/b/empty"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        for (i, f) in ["a/x", "a/b/y", "a/b/c/z", "e/w", "v", "a/b/Y2"].iter().enumerate() {
            std::fs::write(dir.join(f), vec![b'x'; 70_000 * i + 1]).unwrap();
        }
        std::os::unix::fs::symlink("a", dir.join("link")).unwrap();
        std::os::unix::fs::symlink("missing", dir.join("a/dangling")).unwrap();
        let path = dir.to_str().unwrap();
        let gnu = Command::new("ls").args(["-alR", path]).env("LC_ALL", "C").output().unwrap();
        assert!(gnu.status.success());
        for threads in [1, 2, 4] {
            let mut ours = Vec::new();
            super::walk_complete(path, threads, &mut ours).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&gnu.stdout),
                "{threads} threads"
            );
        }
    }

    /// A writer into a buffer the test keeps.
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
}
