//! Reading directories and operands (ls's gather phase): every byte ls
//! reads from the system goes through the ringio engine here.
//!
//! A directory is listed by the engine's pipelined listing
//! (`ringio::listdir`): as each getdents64 batch arrives, [`ReadDir`]
//! (this module's per-entry hook) builds ls's [`Entry`] and asks the engine
//! what the plan needs of it (one request: the stat, and for `-l` the ACL
//! marker, context, link target and target type: see [`crate::questions`]), so
//! the stats run on the engine's workers while the next batch is read.
//! Only what the output needs is asked for: plain `lsr` and `lsr -1` never
//! stat (d_type suffices).

use ringio::listdir::{Dir, Lister, Sink};
use ringio::{Completion, Errno};

use crate::args::Deref;
use crate::entry::{Entry, FileType, Meta};
use crate::plan::Plan;
use crate::questions::{ask, followups_wanted, store, tok, untok, EntriesMut, OP_ABOUT, OP_STAT};

/// One directory's contents.
#[derive(Debug, Default)]
pub struct Listing {
    pub entries: Vec<Entry>,
    /// Entries whose stat failed: (index into entries, errno), in
    /// directory order, for GNU's "cannot access" messages.
    pub errors: Vec<(usize, Errno)>,
    /// Symbolic links whose target could not be read (`-l`): (index, errno).
    pub link_errors: Vec<(usize, Errno)>,
    /// getdents failed part-way ("reading directory").
    pub read_error: Option<Errno>,
    /// (dev, ino) of the directory itself, when asked for (loop detection).
    pub id: Option<ringio::DevIno>,
    /// The order to show the entries in, when it follows from their names
    /// alone: taken as soon as every name was read, while the stats still
    /// ran (see `crate::early_order`).
    pub order: Option<crate::sort::Order>,
    /// The directory, left open for its subdirectories to be opened from
    /// (read ahead on a high-latency file system: see `crate::ahead`).
    pub kept: Option<std::os::fd::OwnedFd>,
}

/// The directory reader: one lister (and its engine), reused for every directory.
pub struct DirReader {
    lister: Lister,
    /// The statx mask (basic stats, and the birth time when shown).
    mask: u32,
    /// Treat every d_type as DT_UNKNOWN (`RINGUTILS_TEST_IGNORE_DTYPE=1`), so tests
    /// can drive the stat-for-type path that file systems without d_type
    /// (some network and FUSE file systems) take.
    ignore_dtype: bool,
    /// After [`DirReader::operands`]: operands that are symbolic links whose
    /// target could not be read, (index, errno).
    pub operand_link_errors: Vec<(usize, Errno)>,
}

impl Default for DirReader {
    fn default() -> Self {
        DirReader::new(false)
    }
}

impl DirReader {
    /// A reader whose pool (or the ring's io-wq, on a high-latency file
    /// system) is fixed at `threads` workers: `-R`'s read-ahead runs several.
    pub fn with_threads(birth: bool, threads: usize) -> DirReader {
        DirReader::build(birth, Some(threads))
    }

    pub fn new(birth: bool) -> DirReader {
        DirReader::build(birth, None)
    }

    fn build(birth: bool, threads: Option<usize>) -> DirReader {
        let mut mask = libc::STATX_BASIC_STATS;
        if birth {
            mask |= libc::STATX_BTIME;
        }
        let lister = Lister::new(threads);
        let ignore_dtype =
            std::env::var_os("RINGUTILS_TEST_IGNORE_DTYPE").is_some_and(|v| v == "1");
        DirReader { lister, mask, ignore_dtype, operand_link_errors: Vec::new() }
    }

    /// Reads whole small files (/etc/passwd, /etc/group) through the
    /// engine, all at once; an unreadable file reads as empty.
    pub fn read_files(&mut self, paths: &[&[u8]]) -> Vec<Vec<u8>> {
        let n = paths.len();
        // O_NONBLOCK sends the opens to the ring (one enter for all, not a
        // syscall each: see ringio's `goes_to_ring`); it changes nothing
        // for the regular files these are.
        for (i, p) in paths.iter().enumerate() {
            let flags = libc::O_RDONLY | libc::O_NONBLOCK;
            self.lister.engine().openat(i as u64, libc::AT_FDCWD, p, flags, 0);
        }
        let mut fds: Vec<Option<i32>> = vec![None; n];
        self.lister.drain(|c| fds[c.token as usize] = c.fd().ok());
        let mut data: Vec<Vec<u8>> = vec![Vec::new(); n];
        let mut open: Vec<bool> = fds.iter().map(Option::is_some).collect();
        while open.iter().any(|&o| o) {
            for i in 0..n {
                if let (true, Some(fd)) = (open[i], fds[i]) {
                    let mut buf = std::mem::take(&mut data[i]);
                    if buf.capacity() - buf.len() < 4096 {
                        buf.reserve(buf.capacity().max(32 * 1024));
                    }
                    // Positioned reads: the ring runs them (reads at the file
                    // position run as plain syscalls, see ringio's uring.rs).
                    let at = buf.len() as u64;
                    self.lister.engine().read(i as u64, fd, buf, Some(at));
                }
            }
            self.lister.drain(|mut c| {
                let i = c.token as usize;
                let r = c.result;
                data[i] = c.take_buf();
                // A regular file reads short only at its end: a read that
                // left room in the buffer ends it without one more ring
                // round trip to see 0.
                let filled = data[i].len() == data[i].capacity();
                if !(matches!(r, Ok(k) if k > 0) && filled) {
                    open[i] = false;
                }
            });
        }
        for (i, fd) in fds.iter().enumerate() {
            if let Some(fd) = fd {
                self.lister.engine().close(i as u64, *fd);
            }
        }
        self.lister.drain(|_| {});
        data
    }

    /// Stats the command-line operands. Returns per operand the entry or
    /// the error to report.
    pub fn operands(&mut self, plan: &Plan, names: &[Vec<u8>]) -> Vec<Result<Entry, Errno>> {
        let follow_first =
            matches!(plan.deref, Deref::Always | Deref::CommandLine | Deref::CommandLineDirs);
        let mut entries: Vec<Entry> = names
            .iter()
            .map(|n| {
                let mut e = Entry::new(n, ringio::dtype::UNKNOWN, 0);
                e.cmdline = true;
                e
            })
            .collect();
        for (i, n) in names.iter().enumerate() {
            let flags = if follow_first { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
            self.lister.engine().statx(
                tok(i, OP_STAT),
                libc::AT_FDCWD,
                n,
                flags | libc::AT_NO_AUTOMOUNT,
                self.mask,
            );
        }
        let mut results: Vec<Option<Result<Meta, Errno>>> = vec![None; names.len()];
        self.lister.drain(|c| {
            let i = untok(c.token).0;
            results[i] = Some(c.stat().map(Meta::from_statx));
        });
        // --dereference-command-line-symlink-to-dir: a non-directory or a
        // dangling link is looked at itself.
        if plan.deref == Deref::CommandLineDirs {
            for (i, n) in names.iter().enumerate() {
                let again = match &results[i] {
                    Some(Ok(m)) => m.file_type() != FileType::Dir,
                    Some(Err(e)) => *e == Errno::ENOENT || *e == Errno::ELOOP,
                    None => true,
                };
                if again {
                    self.lister.engine().statx(
                        tok(i, OP_STAT),
                        libc::AT_FDCWD,
                        n,
                        libc::AT_SYMLINK_NOFOLLOW | libc::AT_NO_AUTOMOUNT,
                        self.mask,
                    );
                }
            }
            self.lister.drain(|c| {
                let i = untok(c.token).0;
                results[i] = Some(c.stat().map(Meta::from_statx));
            });
        }
        let mut out = Vec::with_capacity(names.len());
        let mut ok = Vec::new();
        for (i, r) in results.into_iter().enumerate() {
            match r.unwrap_or(Err(Errno::ENOENT)) {
                Ok(m) => {
                    entries[i].meta = Some(m);
                    entries[i].ino = m.ino;
                    ok.push(i);
                }
                Err(e) => entries[i].stat_err = Some(e),
            }
        }
        // Follow-ups (links, ACLs, contexts) for those that exist.
        let ask = ask(plan, self.mask, None);
        for &i in &ok {
            let t = entries[i].file_type();
            if followups_wanted(plan, t) {
                let (name, d_type) = (&entries[i].name, t.dtype());
                self.lister.engine().about(tok(i, OP_ABOUT), libc::AT_FDCWD, name, d_type, ask);
            }
        }
        let mut link_errors = Vec::new();
        for mut c in self.lister.collect() {
            let list = EntriesMut {
                entries: &mut entries,
                errors: &mut Vec::new(),
                link_errors: &mut link_errors,
            };
            store(list, &mut c);
        }
        in_entry_order(&mut link_errors);
        self.operand_link_errors = link_errors;
        for e in entries {
            match e.stat_err {
                Some(err) if e.meta.is_none() => out.push(Err(err)),
                _ => out.push(Ok(e)),
            }
        }
        out
    }

    /// The engine, to lend its idle workers for the serial stretch after
    /// a listing (see `crate::beside`).
    pub fn engine(&mut self) -> &mut ringio::Engine {
        self.lister.engine()
    }

    /// Skips tearing the engine down at exit (the process ends anyway).
    pub fn leak(self) {
        std::mem::forget(self);
    }

    /// Lists directory `path`: getdents batches, each followed at once by
    /// the per-entry operations the plan asks for.
    pub fn read_dir(&mut self, plan: &Plan, path: &[u8], want_id: bool) -> Result<Listing, Errno> {
        self.read_dir_in(plan, None, path, (want_id, false))
    }

    /// [`DirReader::read_dir`] of `path`, opened from its parent when
    /// `parent` gives the parent's descriptor and the name in it; with
    /// `keep`, the listing may keep the directory open ([`Listing::kept`]:
    /// see `ringio::listdir::Lister::list_in`).
    pub fn read_dir_in(
        &mut self,
        plan: &Plan,
        parent: Option<(std::os::fd::BorrowedFd<'_>, &[u8])>,
        path: &[u8],
        (want_id, keep): (bool, bool),
    ) -> Result<Listing, Errno> {
        let mut rd = ReadDir {
            plan,
            ask: ask(plan, self.mask, None),
            mask: self.mask,
            ignore_dtype: self.ignore_dtype,
            deref_all: plan.deref == Deref::Always,
            prefix: gnu_prefix_len(path),
            listing: Listing::default(),
            dot: None,
        };
        let flags = listing::open::dir_flags(true);
        let out = self.lister.list_in(parent, path, flags, (want_id, keep), &mut rd)?;
        let mut listing = rd.listing;
        listing.read_error = out.read_error;
        listing.id = out.id;
        listing.kept = out.kept;
        in_entry_order(&mut listing.errors);
        in_entry_order(&mut listing.link_errors);
        Ok(listing)
    }
}

/// ls's per-entry hook on the lister: builds each entry and pushes what
/// the plan needs of it; takes the answers in.
struct ReadDir<'a> {
    plan: &'a Plan,
    /// What the plan asks of every entry (the stat's flags aside).
    ask: ringio::Ask,
    mask: u32,
    ignore_dtype: bool,
    /// `-L`: every entry's stat follows links.
    deref_all: bool,
    /// How many bytes the directory adds before an entry's name in the
    /// path GNU stats it by ([`gnu_prefix_len`]).
    prefix: usize,
    listing: Listing,
    /// The entry `.` whose stat was asked relative to the open directory:
    /// that stat is the directory's own, so it gives the lister the
    /// directory's identity (see `Sink::begin` below).
    dot: Option<usize>,
}

/// The length of what GNU's ls puts before an entry's name in the path it
/// stats the entry by: nothing in `.`, else the directory and a `/` unless
/// it ends in one (`crate::attach`).
fn gnu_prefix_len(dir: &[u8]) -> usize {
    match dir {
        b"." => 0,
        _ if dir.ends_with(b"/") => dir.len(),
        _ => dir.len() + 1,
    }
}

/// The longest path the kernel takes (PATH_MAX counts the NUL).
const PATH_MAX: usize = libc::PATH_MAX as usize;

impl Sink for ReadDir<'_> {
    fn begin(&mut self, dir: &mut Dir<'_>) {
        // `ls -al` stats `.` (see `entry`): `-R`'s loop check takes the
        // directory's identity from that stat.
        if !self.plan.ignored(b".") && self.plan.stat_entry(FileType::Dir) {
            dir.identity_from_entry();
        }
    }

    fn batch(&mut self, bytes: usize) {
        // A record is at least 24 bytes: one reservation per batch.
        self.listing.entries.reserve(bytes / 24);
    }

    fn entry(&mut self, dir: &mut Dir<'_>, name: &[u8], d_type: u8, ino: u64) {
        let plan = self.plan;
        if plan.ignored(name) {
            return;
        }
        let t = if self.ignore_dtype { ringio::dtype::UNKNOWN } else { d_type };
        let i = self.listing.entries.len();
        self.listing.entries.push(Entry::new(name, t, ino));
        let t = FileType::from_dtype(t);
        // GNU stats an entry by its path from the working directory, where
        // this one goes from the directory's descriptor: the two differ
        // only where the path is too long for the kernel, or, under -L,
        // takes the kernel past its 40 symbolic links (with the links that
        // led to the directory: -RL through a chain of links). Both are
        // GNU's "cannot access" error and a row of `?`, so the first is
        // answered here, and under -L what may be a link is stat'ed by that
        // path (its follow-ups once its type is known, see `complete`).
        if self.prefix + name.len() >= PATH_MAX {
            if plan.stat_entry(t) {
                let e = Errno(libc::ENAMETOOLONG);
                self.listing.entries[i].stat_err = Some(e);
                self.listing.errors.push((i, e));
            }
            return;
        }
        if self.deref_all && matches!(t, FileType::Link | FileType::Unknown) {
            if plan.stat_entry(t) {
                let path = crate::attach(dir.path, name);
                let flags = listing::open::entry_stat_flags(true, name);
                dir.eng.statx(tok(i, OP_STAT), libc::AT_FDCWD, &path, flags, self.mask);
            }
            return;
        }
        // AT_STATX_DONT_SYNC where the name's lookup brings the attributes
        // (see listing::open).
        let stat =
            plan.stat_entry(t).then(|| listing::open::entry_stat_flags(self.deref_all, name));
        if stat.is_none() && (t == FileType::Unknown || !followups_wanted(plan, t)) {
            return;
        }
        if stat.is_some() && name == b"." {
            self.dot = Some(i);
        }
        let ask = ringio::Ask { stat: stat.map(|f| (f, self.mask)), ..self.ask };
        dir.eng.about(tok(i, OP_ABOUT), dir.fd, name, t.dtype(), ask);
    }

    fn names_done(&mut self, _dir: &mut Dir<'_>) {
        self.listing.order = crate::early_order(self.plan, &self.listing.entries);
    }

    fn complete(&mut self, dir: &mut Dir<'_>, c: &mut Completion) {
        let (i, op) = untok(c.token);
        if self.dot == Some(i) {
            if let Ok(st) = c.stat() {
                dir.set_identity(st);
            }
        }
        let (plan, l) = (self.plan, &mut self.listing);
        let list = EntriesMut {
            entries: &mut l.entries,
            errors: &mut l.errors,
            link_errors: &mut l.link_errors,
        };
        store(list, c);
        // Under -L a possible link is stat'ed by its path: its follow-ups
        // once its type is known (see `entry`).
        let e = &l.entries[i];
        if op == OP_STAT {
            if let Some(m) = e.meta.as_ref() {
                let t = m.file_type();
                if followups_wanted(plan, t) {
                    dir.eng.about(tok(i, OP_ABOUT), dir.fd, &e.name, t.dtype(), self.ask);
                }
            }
        }
    }
}

/// Puts a listing's errors in the order of their entries (completions
/// arrive out of order), as GNU reports them. Through the merge sort the
/// locale's name order already has: a sort of its own here was 3.6 KB of
/// lsr, for a list that is almost always empty or in order already.
fn in_entry_order(errors: &mut [(usize, Errno)]) {
    if !errors.is_sorted_by_key(|e| e.0) {
        crate::collate::merge_sort(errors, &mut Vec::new(), &|a, b| a.0.cmp(&b.0));
    }
}
