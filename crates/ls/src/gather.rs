//! The gather phase: every byte ls reads from the system goes through the
//! ringio engine here.
//!
//! A directory is listed by the listing layer's pipelined lister
//! (`listing::pipeline`): as each getdents64 batch arrives, [`ReadDir`]
//! (this module's per-entry hook) builds ls's [`Entry`] and pushes what the
//! plan needs of it (the stat, and for `-l` the ACL check, readlink and
//! target stat: see [`crate::fetch`]), so the stats run on the engine's
//! workers while the next batch is read. Only what the output needs is
//! asked for: plain `lsr` and `lsr -1` never stat (d_type suffices).

use listing::pipeline::{Dir, Lister, Sink};
use ringio::{Completion, Errno};

use crate::args::Deref;
use crate::entry::{Entry, FileType, Meta};
use crate::fetch::SELINUX;
use crate::fetch::{store, tok, untok, EntriesMut, Fetch, OP_LABEL, OP_OPATH, OP_STAT};
use crate::fetch::{OP_STAT_XLIST, OP_XLIST};
use crate::plan::Plan;

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
}

/// The gatherer: one lister (and its engine), reused for every directory.
pub struct Gather {
    lister: Lister,
    fetch: Fetch,
    /// Whether the main engine asks one getxattr per attribute question
    /// (see [`ringio::Engine::prefers_getxattr`]) rather than one listxattr.
    main_getxattr: bool,
    /// Treat every d_type as DT_UNKNOWN (`LSR_IGNORE_DTYPE=1`), so tests
    /// can drive the stat-for-type path that file systems without d_type
    /// (some network and FUSE file systems) take.
    ignore_dtype: bool,
    /// After [`Gather::operands`]: operands that are symbolic links whose
    /// target could not be read, (index, errno).
    pub operand_link_errors: Vec<(usize, Errno)>,
}

impl Default for Gather {
    fn default() -> Self {
        Gather::new(false)
    }
}

impl Gather {
    /// A gatherer whose pool (or the ring's io-wq, on a high-latency file
    /// system) is fixed at `threads` workers: `-R`'s read-ahead runs several.
    pub fn with_threads(birth: bool, threads: usize) -> Gather {
        Gather::build(birth, Some(threads))
    }

    /// Whether the directories listed so far are on a high-latency file
    /// system (the engine found one as it opened them).
    pub fn high_latency(&mut self) -> bool {
        self.lister.high_latency()
    }

    pub fn new(birth: bool) -> Gather {
        Gather::build(birth, None)
    }

    fn build(birth: bool, threads: Option<usize>) -> Gather {
        let mut mask = libc::STATX_BASIC_STATS;
        if birth {
            mask |= libc::STATX_BTIME;
        }
        let mut lister = Lister::new(threads);
        let main_getxattr = lister.engine().prefers_getxattr();
        let ignore_dtype = std::env::var_os("LSR_IGNORE_DTYPE").is_some_and(|v| v == "1");
        Gather {
            lister,
            fetch: Fetch::new(mask),
            main_getxattr,
            ignore_dtype,
            operand_link_errors: Vec::new(),
        }
    }

    /// Reads whole small files (/etc/passwd, /etc/group) through the
    /// engine, all at once; an unreadable file reads as empty.
    pub fn read_files(&mut self, paths: &[&[u8]]) -> Vec<Vec<u8>> {
        let n = paths.len();
        for (i, p) in paths.iter().enumerate() {
            self.lister.engine().openat(i as u64, libc::AT_FDCWD, p, libc::O_RDONLY, 0);
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
                if !matches!(r, Ok(k) if k > 0) {
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
                self.fetch.mask,
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
                        self.fetch.mask,
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
        // Follow-ups (links, ACLs) for those that exist.
        for &i in &ok {
            let t = entries[i].file_type();
            let eng = self.lister.engine();
            self.fetch.push_followups(eng, plan, i, (&entries[i].name, libc::AT_FDCWD), t);
        }
        let eng_comps = self.lister.collect();
        let mut link_errors = Vec::new();
        for mut c in eng_comps {
            store(&mut entries, &mut Vec::new(), &mut link_errors, &mut c);
        }
        // Contexts the attribute lists showed, asked for now.
        for (i, e) in entries.iter().enumerate() {
            if e.label_listed {
                self.lister.engine().getxattr(
                    tok(i, OP_LABEL),
                    libc::AT_FDCWD,
                    &e.name,
                    SELINUX,
                    true,
                    Vec::with_capacity(256),
                );
            }
        }
        for mut c in self.lister.collect() {
            store(&mut entries, &mut Vec::new(), &mut link_errors, &mut c);
        }
        link_errors.sort_unstable_by_key(|(i, _)| *i);
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
        let mut rd = ReadDir {
            f: &mut self.fetch,
            plan,
            main_getxattr: self.main_getxattr,
            ignore_dtype: self.ignore_dtype,
            deref_all: plan.deref == Deref::Always,
            prefix: gnu_prefix_len(path),
            listing: Listing::default(),
        };
        let out = self.lister.list(path, want_id, &mut rd)?;
        let mut listing = rd.listing;
        self.fetch.abs = None;
        listing.read_error = out.read_error;
        listing.id = out.id;
        listing.errors.sort_unstable_by_key(|(i, _)| *i);
        listing.link_errors.sort_unstable_by_key(|(i, _)| *i);
        Ok(listing)
    }
}

/// ls's per-entry hook on the lister: builds each entry and pushes what
/// the plan needs of it; takes the answers in.
struct ReadDir<'a> {
    f: &'a mut Fetch,
    plan: &'a Plan,
    main_getxattr: bool,
    ignore_dtype: bool,
    /// `-L`: every entry's stat follows links.
    deref_all: bool,
    /// How many bytes the directory adds before an entry's name in the
    /// path GNU stats it by ([`gnu_prefix_len`]).
    prefix: usize,
    listing: Listing,
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
        let d = (dir.path, dir.fd, dir.remote);
        self.f.begin_dir(self.plan, dir.eng, self.main_getxattr, d);
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
                dir.eng.statx(tok(i, OP_STAT), libc::AT_FDCWD, &path, flags, self.f.mask);
            }
            return;
        }
        if self.f.use_by_fd(plan, dir.remote, t) && name != b"." && name != b".." {
            self.f.by_fd.add(i);
            return;
        }
        // AT_STATX_DONT_SYNC where the name's lookup brings the attributes
        // (see listing::open).
        let flags = listing::open::entry_stat_flags(self.deref_all, name);
        if plan.stat_entry(t) && t != FileType::Unknown {
            self.f.push_stat_and_followups(dir.eng, plan, i, (name, dir.fd), t, flags);
            return;
        }
        if plan.stat_entry(t) {
            dir.eng.statx(tok(i, OP_STAT), dir.fd, name, flags, self.f.mask);
        }
        if t != FileType::Unknown {
            self.f.push_followups(dir.eng, plan, i, (name, dir.fd), t);
        }
    }

    fn batch_done(&mut self, dir: &mut Dir<'_>) {
        self.f.by_fd_pump(dir.eng, &self.listing.entries, dir.fd);
    }

    fn names_done(&mut self, _dir: &mut Dir<'_>) {
        self.listing.order = crate::early_order(self.plan, &self.listing.entries);
    }

    fn chained(&self) -> bool {
        self.f.by_fd.in_use()
    }

    fn complete(&mut self, dir: &mut Dir<'_>, c: &mut Completion) {
        let (i, op) = untok(c.token);
        let (plan, l) = (self.plan, &mut self.listing);
        if op == OP_OPATH {
            let list = EntriesMut { entries: &mut l.entries, errors: &mut l.errors };
            self.f.by_fd_opened((dir.eng, dir.fd), plan, list, i, c.take_fd());
            return;
        }
        // Entries stat'ed before their follow-ups were known: those of
        // unknown type, and under -L the links (see `entry`).
        let dtype = l.entries[i].dtype;
        let was_unknown = op == OP_STAT
            && (dtype == ringio::dtype::UNKNOWN || (self.deref_all && dtype == ringio::dtype::LNK));
        let refused = store(&mut l.entries, &mut l.errors, &mut l.link_errors, c);
        self.f.no_acl |= refused.acl;
        self.f.no_label |= refused.label;
        if (op == OP_XLIST || op == OP_STAT_XLIST) && l.entries[i].label_listed {
            self.f.ask_label(dir.eng, i, &l.entries[i].name, dir.fd);
        }
        if op == OP_XLIST {
            self.f.recycle_xbuf(c.take_buf());
        }
        self.f.by_fd_done(dir.eng, (i, op), &l.entries, dir.fd);
        if was_unknown && l.entries[i].meta.is_some() {
            let t = l.entries[i].file_type();
            let name: &[u8] = &l.entries[i].name;
            self.f.push_followups(dir.eng, plan, i, (name, dir.fd), t);
        }
    }
}
