//! The gather phase: every byte ls reads from the system goes through the
//! ringio engine here.
//!
//! A directory is read with getdents64 in 64 KiB batches; as each batch
//! arrives, the stat (and, for `-l`, ACL check, readlink, target stat) of
//! its entries are pushed to the engine, so the stats run on the engine's
//! workers while the next batch is read (the pipelined strategy measured
//! fastest in research/io-uring-limits.md §3f). Only what the output needs
//! is asked for: plain `lsr` and `lsr -1` never stat (d_type suffices).

use std::ffi::CStr;

use ringio::{Completion, DirentIter, Engine, Errno};

use crate::args::Deref;
use crate::entry::{Entry, FileType, Meta};
use crate::plan::Plan;

const ACL_ACCESS: &CStr = c"system.posix_acl_access";
const ACL_DEFAULT: &CStr = c"system.posix_acl_default";
const CAPABILITY: &CStr = c"security.capability";

/// What an entry-level token asks for (low bits of the token).
const OP_STAT: u64 = 0;
const OP_TARGET: u64 = 1;
const OP_READLINK: u64 = 2;
const OP_ACL: u64 = 3;
const OP_ACL_DEFAULT: u64 = 4;
const OP_CAP: u64 = 5;
const OP_BITS: u64 = 3;

const TOK_OPEN: u64 = u64::MAX;
const TOK_DENTS: u64 = u64::MAX - 1;
const TOK_CLOSE: u64 = u64::MAX - 2;
const TOK_FSTAT: u64 = u64::MAX - 3;

fn tok(idx: usize, op: u64) -> u64 {
    ((idx as u64) << OP_BITS) | op
}

/// One directory's contents.
#[derive(Debug, Default)]
pub struct Listing {
    pub entries: Vec<Entry>,
    /// Entries whose stat failed: (index into entries, errno), in
    /// directory order, for GNU's "cannot access" messages.
    pub errors: Vec<(usize, Errno)>,
    /// getdents failed part-way ("reading directory").
    pub read_error: Option<Errno>,
    /// (dev, ino) of the directory itself, when asked for (loop detection).
    pub id: Option<(u64, u64)>,
}

/// The gatherer: one engine, reused for every directory.
pub struct Gather {
    eng: Engine,
    /// An inline engine for small directories, unless RINGIO_BACKEND
    /// forces one executor for everything.
    inline: Option<Engine>,
    /// `eng` and `inline` are currently exchanged.
    swapped: bool,
    /// The file system of the directory being read refused an ACL query
    /// (no ACL support): skip the rest of its entries' queries.
    no_acl: bool,
    /// Treat every d_type as DT_UNKNOWN (`LSR_IGNORE_DTYPE=1`), so tests
    /// can drive the stat-for-type path that file systems without d_type
    /// (some network and FUSE file systems) take.
    ignore_dtype: bool,
    comps: Vec<Completion>,
    mask: u32,
}

impl Default for Gather {
    fn default() -> Self {
        Gather::new(false)
    }
}

impl Gather {
    pub fn new(birth: bool) -> Gather {
        let mut mask = libc::STATX_BASIC_STATS;
        if birth {
            mask |= libc::STATX_BTIME;
        }
        // A deep ring when io_uring runs: 10,000 stats + ACL checks then
        // take a handful of enters (the thread pool ignores the depth).
        let depth = if std::env::var_os("RINGIO_DEPTH").is_some() { None } else { Some(4096) };
        let eng = Engine::with_config(ringio::Config { depth, ..ringio::Config::default() });
        let inline = if ringio::Backend::from_env().is_some() {
            None
        } else {
            Some(Engine::with_config(ringio::Config {
                backend: Some(ringio::Backend::Sync),
                ..ringio::Config::default()
            }))
        };
        let ignore_dtype = std::env::var_os("LSR_IGNORE_DTYPE").is_some_and(|v| v == "1");
        Gather { eng, inline, swapped: false, no_acl: false, ignore_dtype, comps: Vec::new(), mask }
    }

    /// Reads whole small files (/etc/passwd, /etc/group) through the
    /// engine, all at once; an unreadable file reads as empty.
    pub fn read_files(&mut self, paths: &[&[u8]]) -> Vec<Vec<u8>> {
        let n = paths.len();
        for (i, p) in paths.iter().enumerate() {
            self.eng.openat(i as u64, libc::AT_FDCWD, p, libc::O_RDONLY, 0);
        }
        let mut fds: Vec<Option<i32>> = vec![None; n];
        self.drain(|c| fds[c.token as usize] = c.fd().ok());
        let mut data: Vec<Vec<u8>> = vec![Vec::new(); n];
        let mut open: Vec<bool> = fds.iter().map(Option::is_some).collect();
        while open.iter().any(|&o| o) {
            for i in 0..n {
                if let (true, Some(fd)) = (open[i], fds[i]) {
                    let mut buf = std::mem::take(&mut data[i]);
                    if buf.capacity() - buf.len() < 4096 {
                        buf.reserve(buf.capacity().max(32 * 1024));
                    }
                    self.eng.read(i as u64, fd, buf, None);
                }
            }
            self.drain(|mut c| {
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
                self.eng.close(i as u64, *fd);
            }
        }
        self.drain(|_| {});
        data
    }

    fn wait_one(&mut self, token: u64) -> Option<Completion> {
        let mut others = std::mem::take(&mut self.comps);
        let c = self.eng.wait_for(token, &mut others);
        others.clear();
        self.comps = others;
        c
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
            self.eng.statx(
                tok(i, OP_STAT),
                libc::AT_FDCWD,
                n,
                flags | libc::AT_NO_AUTOMOUNT,
                self.mask,
            );
        }
        let mut results: Vec<Option<Result<Meta, Errno>>> = vec![None; names.len()];
        self.drain(|c| {
            let i = (c.token >> OP_BITS) as usize;
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
                    self.eng.statx(
                        tok(i, OP_STAT),
                        libc::AT_FDCWD,
                        n,
                        libc::AT_SYMLINK_NOFOLLOW | libc::AT_NO_AUTOMOUNT,
                        self.mask,
                    );
                }
            }
            self.drain(|c| {
                let i = (c.token >> OP_BITS) as usize;
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
            self.push_followups(plan, i, &entries[i].name, libc::AT_FDCWD, t);
        }
        let eng_comps = self.collect();
        for mut c in eng_comps {
            store(&mut entries, &mut Vec::new(), &mut c);
        }
        for e in entries {
            match e.stat_err {
                Some(err) if e.meta.is_none() => out.push(Err(err)),
                _ => out.push(Ok(e)),
            }
        }
        out
    }

    fn drain<F: FnMut(Completion)>(&mut self, mut f: F) {
        let mut v = std::mem::take(&mut self.comps);
        while self.eng.outstanding() > 0 {
            self.eng.wait(1, &mut v);
            for c in v.drain(..) {
                f(c);
            }
        }
        self.comps = v;
    }

    fn collect(&mut self) -> Vec<Completion> {
        let mut all = Vec::new();
        while self.eng.outstanding() > 0 {
            self.eng.wait(self.eng.outstanding(), &mut all);
        }
        all
    }

    /// Skips tearing the engine down at exit (the process ends anyway).
    pub fn leak(self) {
        std::mem::forget(self);
    }

    /// Pushes what an entry of known type needs besides its stat.
    fn push_followups(&mut self, plan: &Plan, i: usize, name: &[u8], dirfd: i32, t: FileType) {
        let long = plan.long() || plan.json;
        let deref_all = plan.deref == Deref::Always;
        if t == FileType::Link && !deref_all {
            if long {
                self.eng.readlinkat(tok(i, OP_READLINK), dirfd, name, Vec::new());
            }
            if plan.link_target_needed() {
                self.eng.statx(
                    tok(i, OP_TARGET),
                    dirfd,
                    name,
                    libc::AT_NO_AUTOMOUNT | libc::AT_STATX_DONT_SYNC,
                    libc::STATX_TYPE | libc::STATX_MODE,
                );
            }
        }
        if long && (t != FileType::Link || deref_all) && !self.no_acl {
            // GNU asks getxattr (following links) of the file's path; relative
            // to the directory's descriptor it is a one-component lookup (the
            // io_uring executor reaches it through /proc/self/fd).
            self.eng.getxattr(tok(i, OP_ACL), dirfd, name, ACL_ACCESS, true, Vec::new());
            if t == FileType::Dir {
                self.eng.getxattr(
                    tok(i, OP_ACL_DEFAULT),
                    dirfd,
                    name,
                    ACL_DEFAULT,
                    true,
                    Vec::new(),
                );
            }
        }
        if t == FileType::Regular
            && plan.colors.as_ref().is_some_and(|c| c.is_colored(crate::colors::Key::Cap))
        {
            self.eng.getxattr(tok(i, OP_CAP), dirfd, name, CAPABILITY, false, Vec::new());
        }
    }

    /// Lists directory `path`: getdents batches, each followed at once by
    /// the per-entry operations the plan asks for.
    pub fn read_dir(&mut self, plan: &Plan, path: &[u8], want_id: bool) -> Result<Listing, Errno> {
        // Open and read the first (small) batch inline; a directory that
        // ends there is handled inline too: below a few hundred entries a
        // thread hand-off costs more than it saves (research §3f/§7).
        let have_inline = self.inline.is_some();
        self.swap_inline(have_inline);
        let r = self.read_dir_with(plan, path, want_id, have_inline);
        if self.swapped {
            self.swap_inline(true);
        }
        r
    }

    /// Exchanges the main and the inline engine (when `on` and one exists).
    fn swap_inline(&mut self, on: bool) {
        if let (true, Some(inline)) = (on, self.inline.as_mut()) {
            std::mem::swap(&mut self.eng, inline);
            self.swapped = !self.swapped;
        }
    }

    fn read_dir_with(
        &mut self,
        plan: &Plan,
        path: &[u8],
        want_id: bool,
        inline_first: bool,
    ) -> Result<Listing, Errno> {
        self.eng.openat(
            TOK_OPEN,
            libc::AT_FDCWD,
            path,
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NONBLOCK,
            0,
        );
        let fd = match self.wait_one(TOK_OPEN) {
            Some(c) => c.fd()?,
            None => return Err(Errno::EINVAL),
        };
        let mut listing = Listing::default();
        self.no_acl = false;
        // On a high-latency file system (the engine checked the directory
        // as it opened it) every request is a round trip: even a small
        // directory's stats must be in flight together, so the main engine
        // takes it from the start, with a full-size first batch (each
        // getdents64 is one READDIR request there).
        let remote = self.eng.high_latency().is_some();
        if inline_first && remote {
            self.swap_inline(true);
        }
        // Small first batch: a worker starts on the stats sooner.
        let first_size = if remote { ringio::DEFAULT_DENTS_BUF } else { 16 * 1024 };
        self.eng.getdents(TOK_DENTS, fd, Vec::with_capacity(first_size));
        let first = self.wait_one(TOK_DENTS);
        let small = first.as_ref().is_some_and(|c| c.eof);
        if inline_first && !small && !remote {
            // A big directory: the rest goes to the main engine.
            self.swap_inline(true);
        }
        if want_id {
            self.eng.statx(TOK_FSTAT, fd, b"", libc::AT_EMPTY_PATH, libc::STATX_INO);
        }
        // AT_STATX_DONT_SYNC: the attributes the name's lookup just brought
        // back are used as they are. Local file systems ignore the flag; on
        // FUSE it saves a GETATTR round trip per entry after the LOOKUP that
        // fetched the same attributes (issue 8: GNU's 6 requests per file).
        let stat_flags = if plan.deref == Deref::Always { 0 } else { libc::AT_SYMLINK_NOFOLLOW }
            | libc::AT_NO_AUTOMOUNT
            | libc::AT_STATX_DONT_SYNC;
        let mut first = first;
        let mut batch = std::mem::take(&mut self.comps);
        let mut listing_done = false;
        while first.is_some() || self.eng.outstanding() > 0 {
            batch.clear();
            if let Some(c) = first.take() {
                batch.push(c);
            } else {
                // While listing, take whatever is ready (the next getdents
                // batch first); once listed, wait for everything at once.
                let want = if listing_done { self.eng.outstanding() } else { 1 };
                self.eng.wait(want, &mut batch);
            }
            for c in batch.iter_mut() {
                match c.token {
                    TOK_DENTS => {
                        if let Err(e) = c.result {
                            listing.read_error = Some(e);
                            listing_done = true;
                            continue;
                        }
                        let start = listing.entries.len();
                        // A record is at least 24 bytes: one reservation per batch.
                        listing.entries.reserve(c.buf().len() / 24);
                        for d in DirentIter::new(c.buf()) {
                            if plan.ignored(d.name) {
                                continue;
                            }
                            let t =
                                if self.ignore_dtype { ringio::dtype::UNKNOWN } else { d.d_type };
                            listing.entries.push(Entry::new(d.name, t, d.ino));
                        }
                        for i in start..listing.entries.len() {
                            let e = &listing.entries[i];
                            let t = FileType::from_dtype(e.dtype);
                            let name: &[u8] = &e.name;
                            if plan.stat_entry(t) {
                                self.eng.statx(tok(i, OP_STAT), fd, name, stat_flags, self.mask);
                            }
                            if t != FileType::Unknown {
                                self.push_followups(plan, i, name, fd, t);
                            }
                        }
                        if c.eof {
                            listing_done = true;
                        } else {
                            let mut b = c.take_buf();
                            // Threads: 64 KiB batches keep the workers fed
                            // (research §3f). io_uring runs getdents inline
                            // anyway, so bigger batches just save enters.
                            let size = if self.eng.backend() == ringio::Backend::Uring {
                                256 * 1024
                            } else {
                                ringio::DEFAULT_DENTS_BUF
                            };
                            if b.capacity() < size {
                                b = Vec::with_capacity(size);
                            }
                            self.eng.getdents(TOK_DENTS, fd, b);
                        }
                    }
                    TOK_FSTAT => {
                        if let Ok(st) = c.stat() {
                            listing.id = Some((
                                ((st.stx_dev_major as u64) << 32) | st.stx_dev_minor as u64,
                                st.stx_ino,
                            ));
                        }
                    }
                    _ => {
                        let i = (c.token >> OP_BITS) as usize;
                        let op = c.token & ((1 << OP_BITS) - 1);
                        let was_unknown =
                            op == OP_STAT && listing.entries[i].dtype == ringio::dtype::UNKNOWN;
                        if store(&mut listing.entries, &mut listing.errors, c) {
                            self.no_acl = true;
                        }
                        if was_unknown && listing.entries[i].meta.is_some() {
                            let t = listing.entries[i].file_type();
                            let name: &[u8] = &listing.entries[i].name;
                            self.push_followups(plan, i, name, fd, t);
                        }
                    }
                }
            }
        }
        self.comps = batch;
        self.eng.close(TOK_CLOSE, fd);
        self.wait_one(TOK_CLOSE);
        listing.errors.sort_unstable_by_key(|(i, _)| *i);
        Ok(listing)
    }
}

/// Records one entry-level completion.
/// Records one entry-level completion; returns true when an ACL query
/// showed the file system has no ACLs at all.
fn store(entries: &mut [Entry], errors: &mut Vec<(usize, Errno)>, c: &mut Completion) -> bool {
    let i = (c.token >> OP_BITS) as usize;
    let op = c.token & ((1 << OP_BITS) - 1);
    let Some(e) = entries.get_mut(i) else { return false };
    match op {
        OP_STAT => match c.stat() {
            Ok(st) => {
                let m = Meta::from_statx(st);
                e.meta = Some(m);
                e.stat_err = None;
            }
            Err(err) => {
                e.stat_err = Some(err);
                errors.push((i, err));
            }
        },
        OP_TARGET => match c.stat() {
            Ok(st) => e.target_mode = Some(st.stx_mode as u32),
            Err(_) => e.target_broken = true,
        },
        OP_READLINK if c.result.is_ok() => {
            e.target = Some(c.take_buf().into_boxed_slice());
        }
        OP_ACL | OP_ACL_DEFAULT => {
            if matches!(c.result, Ok(n) if n > 0) {
                e.acl = true;
            }
            if c.result == Err(Errno(libc::EOPNOTSUPP)) {
                return true;
            }
        }
        OP_CAP => {
            if matches!(c.result, Ok(n) if n > 0) {
                e.cap = true;
            }
        }
        _ => {}
    }
    false
}
