//! The gather phase: every byte ls reads from the system goes through the
//! ringio engine here.
//!
//! A directory is read with getdents64 in 64 KiB batches; as each batch
//! arrives, the stat (and, for `-l`, ACL check, readlink, target stat) of
//! its entries are pushed to the engine, so the stats run on the engine's
//! workers while the next batch is read (the pipelined strategy measured
//! fastest in docs/engine.md §2). Only what the output needs
//! is asked for: plain `lsr` and `lsr -1` never stat (d_type suffices).

use std::ffi::CStr;

use ringio::{Completion, DirentIter, Engine, Errno, Statx};

use crate::args::Deref;
use crate::entry::{Entry, FileType, Meta};
use crate::plan::Plan;

const ACL_ACCESS: &CStr = c"system.posix_acl_access";
const ACL_DEFAULT: &CStr = c"system.posix_acl_default";
const CAPABILITY: &CStr = c"security.capability";
const SELINUX: &CStr = c"security.selinux";

/// What an entry-level token asks for (low bits of the token).
const OP_STAT: u64 = 0;
const OP_TARGET: u64 = 1;
const OP_READLINK: u64 = 2;
const OP_ACL: u64 = 3;
const OP_ACL_DEFAULT: u64 = 4;
const OP_CAP: u64 = 5;
/// The O_PATH open of an entry handled through a descriptor (see [`ByFd`]).
const OP_OPATH: u64 = 6;
/// The list of an entry's extended attribute names: ACLs and a security
/// context in one call where the engine runs syscalls (GNU asks getxattr
/// for each).
const OP_XLIST: u64 = 7;
/// The entry's SELinux context (`security.selinux`).
const OP_LABEL: u64 = 8;
const OP_BITS: u64 = 4;

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
    /// Symbolic links whose target could not be read (`-l`): (index, errno).
    pub link_errors: Vec<(usize, Errno)>,
    /// getdents failed part-way ("reading directory").
    pub read_error: Option<Errno>,
    /// (dev, ino) of the directory itself, when asked for (loop detection).
    pub id: Option<ringio::DevIno>,
}

/// Entries of a directory on a high-latency file system that `-l` needs
/// both stat'ed and ACL-checked: each is opened once with
/// `O_PATH|O_NOFOLLOW` (one LOOKUP round trip), then stat'ed through the
/// descriptor with AT_STATX_DONT_SYNC (the LOOKUP's attributes, no request,
/// so inline, as is the close)
/// and asked for its ACL through `/proc/self/fd/N` (a jump straight to the
/// file: one GETXATTR, no second LOOKUP). Two requests per file where the
/// name-based way costs three (stat's LOOKUP, getxattr's LOOKUP, GETXATTR)
/// and GNU ls six or more. At most [`BYFD_WINDOW`] descriptors are open at
/// once, well below the usual 1024-descriptor limit.
#[derive(Default)]
struct ByFd {
    /// Per entry: its O_PATH descriptor while open, else -1.
    fds: Vec<i32>,
    /// Per entry: operations on the descriptor still in flight.
    left: Vec<u8>,
    /// Entries waiting for a window slot.
    queue: std::collections::VecDeque<usize>,
    /// Entries being opened or with an open descriptor.
    live: usize,
}

const BYFD_WINDOW: usize = 256;

impl ByFd {
    fn reset(&mut self) {
        self.fds.clear();
        self.left.clear();
        self.queue.clear();
        self.live = 0;
    }

    fn add(&mut self, i: usize) {
        if self.fds.len() <= i {
            self.fds.resize(i + 1, -1);
            self.left.resize(i + 1, 0);
        }
        self.queue.push_back(i);
    }

    /// The entry's descriptor, when it is handled this way and open.
    fn fd(&self, i: usize) -> Option<i32> {
        self.fds.get(i).copied().filter(|&fd| fd >= 0)
    }
}

/// The gatherer: one engine, reused for every directory.
pub struct Gather {
    eng: Engine,
    /// An engine for small directories (see [`Engine::for_small_jobs`]),
    /// when the main one is not to do everything.
    inline: Option<Engine>,
    /// `eng` and `inline` are currently exchanged.
    swapped: bool,
    /// The file system of the directory being read refused an ACL query
    /// (no ACL support): skip the rest of its entries' queries.
    no_acl: bool,
    /// The same for security contexts (as GNU's getfilecon cache does).
    no_label: bool,
    /// Under io_uring (which can't list attributes), whether the directory
    /// being read has a security context itself: only then are its
    /// entries' contexts asked for, one GETXATTR each. (A labelled file in
    /// an unlabelled directory shows no context there; on SELinux systems
    /// everything is labelled, elsewhere nothing is.)
    labels_here: bool,
    /// Treat every d_type as DT_UNKNOWN (`LSR_IGNORE_DTYPE=1`), so tests
    /// can drive the stat-for-type path that file systems without d_type
    /// (some network and FUSE file systems) take.
    ignore_dtype: bool,
    comps: Vec<Completion>,
    mask: u32,
    /// After [`Gather::operands`]: operands that are symbolic links whose
    /// target could not be read, (index, errno).
    pub operand_link_errors: Vec<(usize, Errno)>,
    by_fd: ByFd,
    /// Under io_uring on a local file system: the directory being listed
    /// as an absolute path ending in `/` (entry names are appended after
    /// `abs_len` bytes), for ring getxattr (see [`Gather::push_followups`]).
    abs: Option<Vec<u8>>,
    abs_len: usize,
    cwd: Option<Vec<u8>>,
    /// Attribute-list buffers back from completed queries, handed to the
    /// next ones: a listing's `-l` asks one list per entry, and a fresh
    /// buffer each time costs a malloc on a worker and a free on this
    /// thread (measured: ~8% of `lsr -al`'s user time at 100,000 entries).
    xbufs: Vec<Vec<u8>>,
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
        self.eng.high_latency().is_some()
    }

    pub fn new(birth: bool) -> Gather {
        Gather::build(birth, None)
    }

    fn build(birth: bool, threads: Option<usize>) -> Gather {
        let mut mask = libc::STATX_BASIC_STATS;
        if birth {
            mask |= libc::STATX_BTIME;
        }
        // A listing's stats and attribute questions go out thousands at once.
        let workload = ringio::Workload::BigBatches;
        let eng = Engine::with_config(ringio::Config { workload, threads, ..Default::default() });
        let inline = Engine::for_small_jobs();
        let ignore_dtype = std::env::var_os("LSR_IGNORE_DTYPE").is_some_and(|v| v == "1");
        Gather {
            eng,
            inline,
            swapped: false,
            no_acl: false,
            no_label: false,
            labels_here: true,
            ignore_dtype,
            comps: Vec::new(),
            mask,
            operand_link_errors: Vec::new(),
            by_fd: ByFd::default(),
            abs: None,
            abs_len: 0,
            cwd: None,
            xbufs: Vec::new(),
        }
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
                    // Positioned reads: the ring runs them (reads at the file
                    // position run as plain syscalls, see ringio's uring.rs).
                    let at = buf.len() as u64;
                    self.eng.read(i as u64, fd, buf, Some(at));
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

    fn abs_dir(&mut self, path: &[u8]) -> Option<Vec<u8>> {
        if path.first() == Some(&b'/') {
            return Some(path.to_vec());
        }
        if self.cwd.is_none() {
            use std::os::unix::ffi::OsStrExt;
            self.cwd = std::env::current_dir().ok().map(|p| p.as_os_str().as_bytes().to_vec());
        }
        let mut v = self.cwd.clone()?;
        if path != b"." {
            if v.last() != Some(&b'/') {
                v.push(b'/');
            }
            v.extend_from_slice(path);
        }
        Some(v)
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
        let mut link_errors = Vec::new();
        for mut c in eng_comps {
            store(&mut entries, &mut Vec::new(), &mut link_errors, &mut c);
        }
        // Contexts the attribute lists showed, asked for now.
        for (i, e) in entries.iter().enumerate() {
            if e.label_listed {
                self.eng.getxattr(
                    tok(i, OP_LABEL),
                    libc::AT_FDCWD,
                    &e.name,
                    SELINUX,
                    true,
                    Vec::with_capacity(256),
                );
            }
        }
        for mut c in self.collect() {
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
        self.push_followups_but(plan, i, name, dirfd, t, false);
    }

    /// [`Gather::push_followups`], without the ACL queries when `skip_acl`
    /// (an entry handled through a descriptor asks them there).
    fn push_followups_but(
        &mut self,
        plan: &Plan,
        i: usize,
        name: &[u8],
        dirfd: i32,
        t: FileType,
        skip_acl: bool,
    ) {
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
                    libc::AT_NO_AUTOMOUNT,
                    libc::STATX_TYPE | libc::STATX_MODE,
                );
            }
        }
        let not_link = t != FileType::Link || deref_all;
        let wants_acl = long && not_link && !self.no_acl && !skip_acl;
        // GNU shows a file's SELinux context with -Z, and marks it `.` in -l.
        let wants_label = (long || plan.context) && !self.no_label && !skip_acl;
        if wants_acl || (wants_label && self.getxattr_each()) {
            // GNU asks getxattr (following links) of the file's path; relative
            // to the directory's descriptor it is a one-component lookup. The
            // ring's GETXATTR resolves from the cwd only: on a local file
            // system an absolute path is its cheapest form (the engine's
            // /proc/self/fd/N/name rewrite costs ~3 us more per call in
            // procfs lookups); on a high-latency one, where each component
            // of an absolute path is a LOOKUP round trip, that rewrite is
            // what one lookup costs.
            let mut abs = self.abs.take();
            let (dfd, p): (i32, &[u8]) = match abs.as_mut() {
                Some(a) if a.len() + name.len() < 4000 => {
                    a.truncate(self.abs_len);
                    a.extend_from_slice(name);
                    (libc::AT_FDCWD, &a[..])
                }
                _ => (dirfd, name),
            };
            if self.getxattr_each() {
                // The ring has no LISTXATTR: one GETXATTR per question,
                // batched (no more syscalls); a context only where the
                // directory has one (see `labels_here`).
                if wants_acl {
                    self.eng.getxattr(tok(i, OP_ACL), dfd, p, ACL_ACCESS, true, Vec::new());
                    if t == FileType::Dir {
                        let tk = tok(i, OP_ACL_DEFAULT);
                        self.eng.getxattr(tk, dfd, p, ACL_DEFAULT, true, Vec::new());
                    }
                }
                if wants_label && self.labels_here {
                    let b = Vec::with_capacity(256);
                    self.eng.getxattr(tok(i, OP_LABEL), dfd, p, SELINUX, not_link, b);
                }
            } else if wants_acl {
                // One listxattr answers both the ACL and the context
                // questions: the context's value is asked for only when the
                // list shows one (see `Gather::listed`).
                let b = self.xbufs.pop().unwrap_or_default();
                self.eng.listxattr(tok(i, OP_XLIST), dfd, p, true, b);
            }
            self.abs = abs;
        }
        if wants_label && !self.getxattr_each() && !wants_acl {
            // -Z alone, or a symlink under -l: its own context (lgetxattr).
            let b = Vec::with_capacity(256);
            self.eng.getxattr(tok(i, OP_LABEL), dirfd, name, SELINUX, not_link, b);
        }
        if t == FileType::Regular
            && plan.colors.as_ref().is_some_and(|c| c.is_colored(crate::colors::Key::Cap))
        {
            self.eng.getxattr(tok(i, OP_CAP), dirfd, name, CAPABILITY, false, Vec::new());
        }
    }

    /// Keeps an attribute-list buffer for the next query (a few windows'
    /// worth at most; an unusually long list's buffer is let go).
    fn recycle_xbuf(&mut self, b: Vec<u8>) {
        if b.capacity() != 0 && b.capacity() <= 4096 && self.xbufs.len() < 8192 {
            self.xbufs.push(b);
        }
    }

    /// Asks for entry `i`'s context after its attribute list showed one:
    /// through its descriptor when it is handled that way (see [`ByFd`]),
    /// else by name in the directory `dirfd`.
    fn ask_label(&mut self, i: usize, name: &[u8], dirfd: i32) {
        let b = Vec::with_capacity(256);
        match self.by_fd.fd(i) {
            Some(fd) => {
                let mut p = [0u8; 32];
                let p = proc_fd(&mut p, fd);
                self.eng.getxattr(tok(i, OP_LABEL), libc::AT_FDCWD, p, SELINUX, true, b);
                self.by_fd.left[i] += 1;
            }
            None => self.eng.getxattr(tok(i, OP_LABEL), dirfd, name, SELINUX, true, b),
        }
    }

    /// Whether entry `i` (of known type `t`) is stat'ed and ACL-checked
    /// through an O_PATH descriptor (see [`ByFd`]).
    fn use_by_fd(&self, plan: &Plan, remote: bool, t: FileType) -> bool {
        remote
            && (plan.long() || plan.json)
            && plan.deref != Deref::Always
            && !self.no_acl
            && !matches!(t, FileType::Unknown | FileType::Link)
            && plan.stat_entry(t)
            && ringio::sys::fs::proc_fd_usable()
    }

    /// Opens queued by-descriptor entries while the window has room.
    fn by_fd_pump(&mut self, entries: &[Entry], dirfd: i32) {
        while self.by_fd.live < BYFD_WINDOW {
            let Some(i) = self.by_fd.queue.pop_front() else { break };
            self.by_fd.live += 1;
            let flags = libc::O_PATH | libc::O_NOFOLLOW;
            self.eng.openat(tok(i, OP_OPATH), dirfd, &entries[i].name, flags, 0);
        }
    }

    /// Entry `i`'s O_PATH open completed: stat and ACL-check through it, or
    /// record the error its stat would have had.
    #[allow(clippy::too_many_arguments)]
    fn by_fd_opened(
        &mut self,
        plan: &Plan,
        listing: &mut Listing,
        i: usize,
        r: Result<u64, Errno>,
        dirfd: i32,
        stat_flags: i32,
    ) {
        let t = FileType::from_dtype(listing.entries[i].dtype);
        let fd = match r {
            Ok(fd) => fd as i32,
            Err(e) => {
                self.by_fd.live -= 1;
                if e == Errno(libc::EMFILE) || e == Errno(libc::ENFILE) {
                    // Out of descriptors after all: the name-based way.
                    let name: &[u8] = &listing.entries[i].name;
                    self.eng.statx(tok(i, OP_STAT), dirfd, name, stat_flags, self.mask);
                    self.push_followups(plan, i, name, dirfd, t);
                } else {
                    listing.entries[i].stat_err = Some(e);
                    listing.errors.push((i, e));
                }
                return;
            }
        };
        // The stat of the descriptor asks the server nothing (DONT_SYNC: the
        // LOOKUP's attributes), so it runs here rather than through a worker.
        let flags = libc::AT_EMPTY_PATH | libc::AT_STATX_DONT_SYNC | libc::AT_NO_AUTOMOUNT;
        let mut st = ringio::sys::statx_zeroed();
        let r = ringio::sys::statx(fd, c"", flags, self.mask, &mut st).map(|()| &st);
        put_stat(&mut listing.entries[i], &mut listing.errors, i, r);
        let mut left = 0;
        let mut p = [0u8; 32];
        let p = proc_fd(&mut p, fd);
        if !self.getxattr_each() && (!self.no_acl || !self.no_label) {
            // One LISTXATTR answers the ACL and context questions.
            let b = self.xbufs.pop().unwrap_or_default();
            self.eng.listxattr(tok(i, OP_XLIST), libc::AT_FDCWD, p, true, b);
            left += 1;
        } else {
            if !self.no_acl {
                self.eng.getxattr(tok(i, OP_ACL), libc::AT_FDCWD, p, ACL_ACCESS, true, Vec::new());
                left += 1;
                if t == FileType::Dir {
                    let tk = tok(i, OP_ACL_DEFAULT);
                    self.eng.getxattr(tk, libc::AT_FDCWD, p, ACL_DEFAULT, true, Vec::new());
                    left += 1;
                }
            }
            if !self.no_label && self.labels_here {
                let b = Vec::with_capacity(256);
                self.eng.getxattr(tok(i, OP_LABEL), libc::AT_FDCWD, p, SELINUX, true, b);
                left += 1;
            }
        }
        // The other follow-ups (the capability, with colours) by name.
        let name: &[u8] = &listing.entries[i].name;
        self.push_followups_but(plan, i, name, dirfd, t, true);
        if left == 0 {
            self.by_fd_close(fd, &listing.entries, dirfd);
        } else {
            self.by_fd.fds[i] = fd;
            self.by_fd.left[i] = left;
        }
    }

    /// An entry's descriptor is done with: closed here (an O_PATH close asks
    /// the server nothing), and the window moves on.
    fn by_fd_close(&mut self, fd: i32, entries: &[Entry], dirfd: i32) {
        let _ = ringio::sys::close(fd);
        self.by_fd.live -= 1;
        self.by_fd_pump(entries, dirfd);
    }

    /// One operation on entry `i`'s descriptor completed; the last closes it.
    fn by_fd_done(&mut self, i: usize, op: u64, entries: &[Entry], dirfd: i32) {
        if !matches!(op, OP_ACL | OP_ACL_DEFAULT | OP_XLIST | OP_LABEL) {
            return;
        }
        let Some(fd) = self.by_fd.fd(i) else { return };
        self.by_fd.left[i] -= 1;
        if self.by_fd.left[i] == 0 {
            self.by_fd.fds[i] = -1;
            self.by_fd_close(fd, entries, dirfd);
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

    /// Whether the engine in use asks one getxattr per attribute question
    /// (see [`Engine::prefers_getxattr`]) rather than one listxattr.
    fn getxattr_each(&self) -> bool {
        self.eng.prefers_getxattr()
    }

    /// The main engine, whichever engine is in use now.
    fn main_engine(&self) -> &Engine {
        match (&self.inline, self.swapped) {
            (Some(i), true) => i,
            _ => &self.eng,
        }
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
        self.no_label = false;
        self.labels_here = true;
        if (plan.long() || plan.context) && self.main_engine().prefers_getxattr() {
            let r = ringio::sys::getxattrat(fd, c".", SELINUX, true, &mut Vec::new());
            self.labels_here = r.is_ok();
        }
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
        // A directory bigger than the first batch: its size sizes the
        // entry array (see [`crate::entry::reserve_for_dir`]).
        if want_id || !small {
            let mask = libc::STATX_INO | libc::STATX_SIZE;
            self.eng.statx(TOK_FSTAT, fd, b"", libc::AT_EMPTY_PATH, mask);
        }
        // AT_STATX_DONT_SYNC: the attributes the name's lookup just brought
        // back are used as they are. Local file systems ignore the flag; on
        // FUSE it saves a GETATTR round trip per entry after the LOOKUP that
        // fetched the same attributes (issue 8: GNU's 6 requests per file).
        // Only where that lookup happens: a plain name not followed (a
        // symlink's target may end in `..` or a mount root, which nothing
        // looks up), not `.` or `..` (never looked up either: a FUSE mount
        // root's attributes are then all zero).
        let stat_flags = if plan.deref == Deref::Always { 0 } else { libc::AT_SYMLINK_NOFOLLOW }
            | libc::AT_NO_AUTOMOUNT;
        let entry_flags = |name: &[u8]| {
            if plan.deref == Deref::Always || name == b"." || name == b".." {
                stat_flags
            } else {
                stat_flags | libc::AT_STATX_DONT_SYNC
            }
        };
        self.by_fd.reset();
        let need_abs = (plan.long() || plan.json) && self.eng.prefers_getxattr() && !remote;
        self.abs = if need_abs { self.abs_dir(path) } else { None };
        if let Some(a) = self.abs.as_mut() {
            if a.last() != Some(&b'/') {
                a.push(b'/');
            }
            self.abs_len = a.len();
        }
        let mut first = first;
        let mut batch = std::mem::take(&mut self.comps);
        let mut listing_done = false;
        // The buffer of the next getdents, held back while more than
        // `window` operations are in flight: completions carry a whole statx
        // each, so an unbounded pipeline on a huge directory would hold
        // them all at once.
        let mut next_dents: Option<Vec<u8>> = None;
        let window = self.eng.stat_window();
        while first.is_some() || next_dents.is_some() || self.eng.outstanding() > 0 {
            if next_dents.is_some() && self.eng.outstanding() <= window {
                if let Some(b) = next_dents.take() {
                    self.eng.getdents(TOK_DENTS, fd, b);
                }
            }
            batch.clear();
            if let Some(c) = first.take() {
                batch.push(c);
            } else {
                // While listing, take whatever is ready (the next getdents
                // batch first); once listed, wait for everything at once (a
                // window's worth at a time), unless completions lead to more
                // operations (descriptors).
                let chained = !self.by_fd.fds.is_empty();
                let want =
                    if listing_done && !chained { self.eng.outstanding().min(window) } else { 1 };
                self.eng.wait(want, &mut batch);
            }
            for c in batch.iter_mut() {
                match c.token {
                    TOK_DENTS => {
                        // Entries read before an error are still listed
                        // (a half-readable directory loses nothing).
                        if let Err(e) = c.result {
                            listing.read_error = Some(e);
                            listing_done = true;
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
                            if self.use_by_fd(plan, remote, t) && name != b"." && name != b".." {
                                self.by_fd.add(i);
                                continue;
                            }
                            if plan.stat_entry(t) {
                                let flags = entry_flags(name);
                                self.eng.statx(tok(i, OP_STAT), fd, name, flags, self.mask);
                            }
                            if t != FileType::Unknown {
                                self.push_followups(plan, i, name, fd, t);
                            }
                        }
                        self.by_fd_pump(&listing.entries, fd);
                        if c.eof || listing_done {
                            listing_done = true;
                        } else {
                            let mut b = c.take_buf();
                            let size = self.eng.big_dents_buf();
                            if b.capacity() < size {
                                b = Vec::with_capacity(size);
                            }
                            next_dents = Some(b);
                        }
                    }
                    TOK_FSTAT => {
                        if let Ok(st) = c.stat() {
                            if want_id {
                                listing.id = Some(ringio::DevIno::of(st));
                            }
                            crate::entry::reserve_for_dir(&mut listing.entries, st.stx_size);
                        }
                    }
                    _ => {
                        let i = (c.token >> OP_BITS) as usize;
                        let op = c.token & ((1 << OP_BITS) - 1);
                        if op == OP_OPATH {
                            self.by_fd_opened(plan, &mut listing, i, c.result, fd, stat_flags);
                            continue;
                        }
                        let was_unknown =
                            op == OP_STAT && listing.entries[i].dtype == ringio::dtype::UNKNOWN;
                        let (ents, errs, links) =
                            (&mut listing.entries, &mut listing.errors, &mut listing.link_errors);
                        let refused = store(ents, errs, links, c);
                        self.no_acl |= refused.acl;
                        self.no_label |= refused.label;
                        if op == OP_XLIST {
                            if listing.entries[i].label_listed {
                                self.ask_label(i, &listing.entries[i].name, fd);
                            }
                            self.recycle_xbuf(c.take_buf());
                        }
                        self.by_fd_done(i, op, &listing.entries, fd);
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
        self.abs = None;
        self.eng.close(TOK_CLOSE, fd);
        self.wait_one(TOK_CLOSE);
        listing.errors.sort_unstable_by_key(|(i, _)| *i);
        listing.link_errors.sort_unstable_by_key(|(i, _)| *i);
        Ok(listing)
    }
}

/// What a file system refused: ACL queries, context queries (it has no
/// such attributes at all, so the rest of the directory isn't asked).
#[derive(Default)]
struct Refused {
    acl: bool,
    label: bool,
}

/// Whether a `listxattr` result holds `name` (names end in a NUL).
fn listed(list: &[u8], name: &CStr) -> bool {
    list.split(|&b| b == 0).any(|n| n == name.to_bytes())
}

/// Records one entry-level completion; says what the file system refused.
fn store(
    entries: &mut [Entry],
    errors: &mut Vec<(usize, Errno)>,
    link_errors: &mut Vec<(usize, Errno)>,
    c: &mut Completion,
) -> Refused {
    let i = (c.token >> OP_BITS) as usize;
    let op = c.token & ((1 << OP_BITS) - 1);
    let mut refused = Refused::default();
    let Some(e) = entries.get_mut(i) else { return refused };
    match op {
        OP_STAT => put_stat(e, errors, i, c.stat()),
        OP_TARGET => match c.stat() {
            Ok(st) => e.target_mode = Some(st.stx_mode as u32),
            Err(_) => e.target_broken = true,
        },
        OP_READLINK => match c.result {
            Ok(_) => e.target = Some(c.take_buf().into_boxed_slice()),
            Err(err) => link_errors.push((i, err)),
        },
        OP_ACL | OP_ACL_DEFAULT => {
            if matches!(c.result, Ok(n) if n > 0) {
                e.acl = true;
            }
            refused.acl = c.result == Err(Errno(libc::EOPNOTSUPP));
        }
        OP_XLIST => match c.result {
            Ok(_) => {
                let list = c.buf();
                let dir = e.file_type() == FileType::Dir;
                e.acl = listed(list, ACL_ACCESS) || (dir && listed(list, ACL_DEFAULT));
                e.label_listed = listed(list, SELINUX);
            }
            Err(err) if err == Errno(libc::EOPNOTSUPP) => {
                refused.acl = true;
                refused.label = true;
            }
            Err(_) => {}
        },
        OP_LABEL => match c.result {
            Ok(_) => {
                let mut v = c.take_buf();
                if v.last() == Some(&0) {
                    v.pop();
                }
                e.scontext = Some(v.into_boxed_slice());
            }
            Err(err) => refused.label = err == Errno(libc::EOPNOTSUPP),
        },
        OP_CAP => {
            if matches!(c.result, Ok(n) if n > 0) {
                e.cap = true;
            }
        }
        _ => {}
    }
    refused
}

/// Records entry `i`'s stat, or the error GNU reports for it.
fn put_stat(e: &mut Entry, errors: &mut Vec<(usize, Errno)>, i: usize, r: Result<&Statx, Errno>) {
    match r {
        Ok(st) => {
            e.meta = Some(Meta::from_statx(st));
            e.stat_err = None;
        }
        Err(err) => {
            e.stat_err = Some(err);
            errors.push((i, err));
        }
    }
}

/// `/proc/self/fd/FD`, written into `buf`: the path that reaches an
/// O_PATH descriptor's file (see [`ByFd`]).
fn proc_fd(buf: &mut [u8; 32], fd: i32) -> &[u8] {
    use std::io::Write;
    let mut w = &mut buf[..];
    let _ = write!(w, "/proc/self/fd/{fd}");
    let n = 32 - w.len();
    &buf[..n]
}
