//! What ls asks about each entry besides its name: the stat, and for `-l`
//! the link target, ACL and security-context questions, as
//! engine operations tagged with the entry's index; and what each answer
//! means for the entry.

use std::collections::VecDeque;
use std::ffi::CStr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use ringio::{Completion, Engine, Errno, Statx};

use crate::args::Deref;
use crate::entry::{Entry, FileType, Meta};
use crate::plan::Plan;

const ACL_ACCESS: &CStr = c"system.posix_acl_access";
const ACL_DEFAULT: &CStr = c"system.posix_acl_default";
pub(crate) const SELINUX: &CStr = c"security.selinux";

/// What an entry-level token asks for (low bits of the token).
pub(crate) const OP_STAT: u64 = 0;
const OP_TARGET: u64 = 1;
const OP_READLINK: u64 = 2;
const OP_ACL: u64 = 3;
const OP_ACL_DEFAULT: u64 = 4;
/// The O_PATH open of an entry handled through a descriptor (see [`ByFd`]).
pub(crate) const OP_OPATH: u64 = 6;
/// The list of an entry's extended attribute names: ACLs and a security
/// context in one call where the engine runs syscalls (GNU asks getxattr
/// for each).
pub(crate) const OP_XLIST: u64 = 7;
/// The entry's SELinux context (`security.selinux`).
pub(crate) const OP_LABEL: u64 = 8;
/// The stat and the attribute list as one engine operation (see
/// [`Fetch::xlist_with_stat`]).
pub(crate) const OP_STAT_XLIST: u64 = 9;
pub(crate) const OP_BITS: u64 = 4;

pub(crate) fn tok(idx: usize, op: u64) -> u64 {
    ((idx as u64) << OP_BITS) | op
}

/// A token's entry index and operation.
pub(crate) fn untok(token: u64) -> (usize, u64) {
    ((token >> OP_BITS) as usize, token & ((1 << OP_BITS) - 1))
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
pub(crate) struct ByFd {
    /// Per entry: its O_PATH descriptor while open.
    fds: Vec<Option<OwnedFd>>,
    /// Per entry: operations on the descriptor still in flight.
    left: Vec<u8>,
    /// Entries waiting for a window slot.
    queue: VecDeque<usize>,
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

    pub(crate) fn add(&mut self, i: usize) {
        if self.fds.len() <= i {
            self.fds.resize_with(i + 1, || None);
            self.left.resize(i + 1, 0);
        }
        self.queue.push_back(i);
    }

    /// The entry's descriptor, when it is handled this way and open.
    fn fd(&self, i: usize) -> Option<RawFd> {
        self.fds.get(i).and_then(|f| f.as_ref()).map(AsRawFd::as_raw_fd)
    }

    /// Whether any entry of the directory is handled this way.
    pub(crate) fn in_use(&self) -> bool {
        !self.fds.is_empty()
    }
}

/// The per-entry questions and what the file system refused so far.
pub(crate) struct Fetch {
    /// The file system of the directory being read refused an ACL query
    /// (no ACL support): skip the rest of its entries' queries.
    pub no_acl: bool,
    /// The same for security contexts (as GNU's getfilecon cache does).
    pub no_label: bool,
    /// Under io_uring (which can't list attributes), whether the directory
    /// being read has a security context itself: only then are its
    /// entries' contexts asked for, one GETXATTR each. (A labelled file in
    /// an unlabelled directory shows no context there; on SELinux systems
    /// everything is labelled, elsewhere nothing is.)
    pub labels_here: bool,
    /// The statx mask (basic stats, and the birth time when shown).
    pub mask: u32,
    pub by_fd: ByFd,
    /// Under io_uring on a local file system: the directory being listed
    /// as an absolute path ending in `/` (entry names are appended after
    /// `abs_len` bytes), for ring getxattr (see [`Fetch::push_followups`]).
    pub abs: Option<Vec<u8>>,
    abs_len: usize,
    /// The directory being listed is on a high-latency file system.
    remote: bool,
    cwd: Option<Vec<u8>>,
    /// Attribute-list buffers back from completed queries, handed to the
    /// next ones: a listing's `-l` asks one list per entry, and a fresh
    /// buffer each time costs a malloc on a worker and a free on this
    /// thread (measured: ~8% of `lsr -al`'s user time at 100,000 entries).
    xbufs: Vec<Vec<u8>>,
}

impl Fetch {
    pub(crate) fn new(mask: u32) -> Fetch {
        Fetch {
            no_acl: false,
            no_label: false,
            labels_here: true,
            mask,
            by_fd: ByFd::default(),
            abs: None,
            abs_len: 0,
            remote: false,
            cwd: None,
            xbufs: Vec::new(),
        }
    }

    /// A new directory (`path`, open as `fd`) is being listed on `eng`;
    /// `main_getxattr` says whether the main engine asks one getxattr per
    /// attribute question.
    pub(crate) fn begin_dir(
        &mut self,
        plan: &Plan,
        eng: &Engine,
        main_getxattr: bool,
        (path, fd, remote): (&[u8], RawFd, bool),
    ) {
        self.no_acl = false;
        self.no_label = false;
        self.labels_here = true;
        self.remote = remote;
        if (plan.long() || plan.context) && main_getxattr {
            let r = ringio::sys::getxattrat(fd, c".", SELINUX, true, &mut Vec::new());
            self.labels_here = r.is_ok();
        }
        self.by_fd.reset();
        let need_abs = (plan.long() || plan.json) && eng.prefers_getxattr() && !remote;
        self.abs = if need_abs { self.abs_dir(path) } else { None };
        if let Some(a) = self.abs.as_mut() {
            if a.last() != Some(&b'/') {
                a.push(b'/');
            }
            self.abs_len = a.len();
        }
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

    /// Whether an entry of known type `t` is stat'ed and its attributes
    /// listed as one operation ([`OP_STAT_XLIST`]): where the list would be
    /// asked of the same name anyway (`-l` with the thread pool). Per entry
    /// that is one name copied, one job and one completion handled on the
    /// listing's thread instead of two — the thread that reads the
    /// directory, builds the entries and takes every answer in, which is
    /// what bounds a big `-l` while the workers wait for work.
    pub(crate) fn xlist_with_stat(&self, eng: &Engine, plan: &Plan, t: FileType) -> bool {
        (plan.long() || plan.json)
            && t != FileType::Unknown
            && (t != FileType::Link || plan.deref == Deref::Always)
            && !self.no_acl
            && !eng.prefers_getxattr()
            // Through NFS or FUSE each is a round trip: asked apart they
            // overlap, one after the other in one job they don't (slowfs
            // 1 ms, `lsr -lR` of tree-20k, 5 runs: 1.73-2.25 s apart, 2.43-2.45
            // together).
            && !self.remote
    }

    /// Pushes the stat of an entry of known type `t` and what it needs
    /// besides, the stat and the attribute list together where
    /// [`Fetch::xlist_with_stat`] says so.
    pub(crate) fn push_stat_and_followups(
        &mut self,
        eng: &mut Engine,
        plan: &Plan,
        i: usize,
        (name, dirfd): (&[u8], RawFd),
        t: FileType,
        flags: i32,
    ) {
        if self.xlist_with_stat(eng, plan, t) {
            let tk = tok(i, OP_STAT_XLIST);
            // The list answers the ACL and context questions: nothing else
            // is asked of a file that is not a link.
            eng.statx_xattrs(tk, dirfd, name, flags, self.mask, true, XLIST_NAMES);
            return;
        }
        eng.statx(tok(i, OP_STAT), dirfd, name, flags, self.mask);
        self.push_followups(eng, plan, i, (name, dirfd), t);
    }

    /// Pushes what an entry of known type needs besides its stat.
    pub(crate) fn push_followups(
        &mut self,
        eng: &mut Engine,
        plan: &Plan,
        i: usize,
        (name, dirfd): (&[u8], RawFd),
        t: FileType,
    ) {
        let long = plan.long() || plan.json;
        let deref_all = plan.deref == Deref::Always;
        if t == FileType::Link && !deref_all {
            if long {
                eng.readlinkat(tok(i, OP_READLINK), dirfd, name, Vec::new());
            }
            if plan.link_target_needed() {
                eng.statx(
                    tok(i, OP_TARGET),
                    dirfd,
                    name,
                    libc::AT_NO_AUTOMOUNT,
                    libc::STATX_TYPE | libc::STATX_MODE,
                );
            }
        }
        let not_link = t != FileType::Link || deref_all;
        let wants_acl = long && not_link && !self.no_acl;
        // GNU shows a file's SELinux context with -Z, and marks it `.` in -l.
        let wants_label = (long || plan.context) && !self.no_label;
        let getxattr_each = eng.prefers_getxattr();
        if wants_acl || (wants_label && getxattr_each) {
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
            if getxattr_each {
                // The ring has no LISTXATTR: one GETXATTR per question,
                // batched (no more syscalls); a context only where the
                // directory has one (see `labels_here`).
                if wants_acl {
                    eng.getxattr(tok(i, OP_ACL), dfd, p, ACL_ACCESS, true, Vec::new());
                    if t == FileType::Dir {
                        let tk = tok(i, OP_ACL_DEFAULT);
                        eng.getxattr(tk, dfd, p, ACL_DEFAULT, true, Vec::new());
                    }
                }
                if wants_label && self.labels_here {
                    let b = Vec::with_capacity(256);
                    eng.getxattr(tok(i, OP_LABEL), dfd, p, SELINUX, not_link, b);
                }
            } else if wants_acl {
                // One listxattr answers both the ACL and the context
                // questions: the context's value is asked for only when the
                // list shows one (see `listed`).
                let b = self.xbufs.pop().unwrap_or_default();
                eng.listxattr(tok(i, OP_XLIST), dfd, p, true, b);
            }
            self.abs = abs;
        }
        if wants_label && !getxattr_each && !wants_acl {
            // -Z alone, or a symlink under -l: its own context (lgetxattr).
            let b = Vec::with_capacity(256);
            eng.getxattr(tok(i, OP_LABEL), dirfd, name, SELINUX, not_link, b);
        }
    }

    /// Keeps an attribute-list buffer for the next query (a few windows'
    /// worth at most; an unusually long list's buffer is let go).
    pub(crate) fn recycle_xbuf(&mut self, b: Vec<u8>) {
        if b.capacity() != 0 && b.capacity() <= 4096 && self.xbufs.len() < 8192 {
            self.xbufs.push(b);
        }
    }

    /// Asks for entry `i`'s context after its attribute list showed one:
    /// through its descriptor when it is handled that way (see [`ByFd`]),
    /// else by name in the directory `dirfd`.
    pub(crate) fn ask_label(&mut self, eng: &mut Engine, i: usize, name: &[u8], dirfd: RawFd) {
        let b = Vec::with_capacity(256);
        match self.by_fd.fd(i) {
            Some(fd) => {
                let mut p = [0u8; 32];
                let p = proc_fd(&mut p, fd);
                eng.getxattr(tok(i, OP_LABEL), libc::AT_FDCWD, p, SELINUX, true, b);
                self.by_fd.left[i] += 1;
            }
            None => eng.getxattr(tok(i, OP_LABEL), dirfd, name, SELINUX, true, b),
        }
    }

    /// Whether an entry of known type `t` is stat'ed and ACL-checked
    /// through an O_PATH descriptor (see [`ByFd`]).
    pub(crate) fn use_by_fd(&self, plan: &Plan, remote: bool, t: FileType) -> bool {
        remote
            && (plan.long() || plan.json)
            && plan.deref != Deref::Always
            && !self.no_acl
            && !matches!(t, FileType::Unknown | FileType::Link)
            && plan.stat_entry(t)
            && ringio::sys::fs::proc_fd_usable()
    }

    /// Opens queued by-descriptor entries while the window has room.
    pub(crate) fn by_fd_pump(&mut self, eng: &mut Engine, entries: &[Entry], dirfd: RawFd) {
        while self.by_fd.live < BYFD_WINDOW {
            let Some(i) = self.by_fd.queue.pop_front() else { break };
            self.by_fd.live += 1;
            let flags = libc::O_PATH | libc::O_NOFOLLOW;
            eng.openat(tok(i, OP_OPATH), dirfd, &entries[i].name, flags, 0);
        }
    }

    /// Entry `i`'s O_PATH open completed: stat and ACL-check through it, or
    /// record the error its stat would have had.
    pub(crate) fn by_fd_opened(
        &mut self,
        (eng, dirfd): (&mut Engine, RawFd),
        plan: &Plan,
        list: EntriesMut<'_>,
        i: usize,
        r: Result<OwnedFd, Errno>,
    ) {
        let t = FileType::from_dtype(list.entries[i].dtype);
        let fd = match r {
            Ok(fd) => fd,
            Err(e) => {
                self.by_fd.live -= 1;
                if e == Errno(libc::EMFILE) || e == Errno(libc::ENFILE) {
                    // Out of descriptors after all: the name-based way (no
                    // DONT_SYNC here, as before the descriptor way existed).
                    let name: &[u8] = &list.entries[i].name;
                    let flags = listing::open::ROOT_LSTAT;
                    eng.statx(tok(i, OP_STAT), dirfd, name, flags, self.mask);
                    self.push_followups(eng, plan, i, (name, dirfd), t);
                } else {
                    list.entries[i].stat_err = Some(e);
                    list.errors.push((i, e));
                }
                return;
            }
        };
        // The stat of the descriptor asks the server nothing (DONT_SYNC: the
        // LOOKUP's attributes), so it runs here rather than through a worker.
        let flags = libc::AT_EMPTY_PATH | libc::AT_STATX_DONT_SYNC | libc::AT_NO_AUTOMOUNT;
        let mut st = ringio::sys::statx_zeroed();
        let r = ringio::sys::statx(fd.as_raw_fd(), c"", flags, self.mask, &mut st).map(|()| &st);
        put_stat(&mut list.entries[i], list.errors, i, r);
        let mut left = 0;
        let mut p = [0u8; 32];
        let p = proc_fd(&mut p, fd.as_raw_fd());
        if !eng.prefers_getxattr() && (!self.no_acl || !self.no_label) {
            // One LISTXATTR answers the ACL and context questions.
            let b = self.xbufs.pop().unwrap_or_default();
            eng.listxattr(tok(i, OP_XLIST), libc::AT_FDCWD, p, true, b);
            left += 1;
        } else {
            if !self.no_acl {
                eng.getxattr(tok(i, OP_ACL), libc::AT_FDCWD, p, ACL_ACCESS, true, Vec::new());
                left += 1;
                if t == FileType::Dir {
                    let tk = tok(i, OP_ACL_DEFAULT);
                    eng.getxattr(tk, libc::AT_FDCWD, p, ACL_DEFAULT, true, Vec::new());
                    left += 1;
                }
            }
            if !self.no_label && self.labels_here {
                let b = Vec::with_capacity(256);
                eng.getxattr(tok(i, OP_LABEL), libc::AT_FDCWD, p, SELINUX, true, b);
                left += 1;
            }
        }
        if left == 0 {
            self.by_fd_close(eng, fd, list.entries, dirfd);
        } else {
            self.by_fd.fds[i] = Some(fd);
            self.by_fd.left[i] = left;
        }
    }

    /// An entry's descriptor is done with: closed here (an O_PATH close asks
    /// the server nothing), and the window moves on.
    fn by_fd_close(&mut self, eng: &mut Engine, fd: OwnedFd, entries: &[Entry], dirfd: RawFd) {
        drop(fd);
        self.by_fd.live -= 1;
        self.by_fd_pump(eng, entries, dirfd);
    }

    /// One operation on entry `i`'s descriptor completed; the last closes it.
    pub(crate) fn by_fd_done(
        &mut self,
        eng: &mut Engine,
        (i, op): (usize, u64),
        entries: &[Entry],
        dirfd: RawFd,
    ) {
        if !matches!(op, OP_ACL | OP_ACL_DEFAULT | OP_XLIST | OP_LABEL) {
            return;
        }
        if self.by_fd.fd(i).is_none() {
            return;
        }
        self.by_fd.left[i] -= 1;
        if self.by_fd.left[i] == 0 {
            if let Some(fd) = self.by_fd.fds[i].take() {
                self.by_fd_close(eng, fd, entries, dirfd);
            }
        }
    }
}

/// A listing's entries and its stat errors, borrowed together.
pub(crate) struct EntriesMut<'a> {
    pub entries: &'a mut Vec<Entry>,
    pub errors: &'a mut Vec<(usize, Errno)>,
}

/// What a file system refused: ACL queries, context queries (it has no
/// such attributes at all, so the rest of the directory isn't asked).
#[derive(Default)]
pub(crate) struct Refused {
    pub acl: bool,
    pub label: bool,
}

/// The attribute names an [`OP_STAT_XLIST`] asks about, in the order of
/// the bits of its answer.
const XLIST_NAMES: &[&CStr] = &[ACL_ACCESS, ACL_DEFAULT, SELINUX];

/// Which of [`XLIST_NAMES`] a `listxattr` result holds (names end in a
/// NUL), as the bits an [`OP_STAT_XLIST`] answers with.
fn listed_bits(list: &[u8]) -> u32 {
    let mut bits = 0;
    for n in list.split(|&b| b == 0) {
        if let Some(k) = XLIST_NAMES.iter().position(|w| w.to_bytes() == n) {
            bits |= 1 << k;
        }
    }
    bits
}

/// Records what an entry's attribute list says (bit k: `XLIST_NAMES[k]`
/// is listed), from a separate listxattr or one joined to the stat.
fn put_xlist(e: &mut Entry, refused: &mut Refused, r: Result<u32, Errno>) {
    match r {
        Ok(bits) => {
            let dir = e.file_type() == FileType::Dir;
            e.acl = bits & 1 != 0 || (dir && bits & 2 != 0);
            e.label_listed = bits & 4 != 0;
        }
        Err(err) if err == Errno(libc::EOPNOTSUPP) => {
            refused.acl = true;
            refused.label = true;
        }
        Err(_) => {}
    }
}

/// Records one entry-level completion; says what the file system refused.
pub(crate) fn store(
    entries: &mut [Entry],
    errors: &mut Vec<(usize, Errno)>,
    link_errors: &mut Vec<(usize, Errno)>,
    c: &mut Completion,
) -> Refused {
    let (i, op) = untok(c.token);
    let mut refused = Refused::default();
    let Some(e) = entries.get_mut(i) else { return refused };
    match op {
        OP_STAT => put_stat(e, errors, i, c.stat()),
        OP_STAT_XLIST => {
            put_stat(e, errors, i, c.stat());
            if e.meta.is_some() {
                put_xlist(e, &mut refused, c.listed());
            }
        }
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
        OP_XLIST => {
            let r = c.result.map(|_| listed_bits(c.buf()));
            put_xlist(e, &mut refused, r);
        }
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
fn proc_fd(buf: &mut [u8; 32], fd: RawFd) -> &[u8] {
    use std::io::Write;
    let mut w = &mut buf[..];
    let _ = write!(w, "/proc/self/fd/{fd}");
    let n = 32 - w.len();
    &buf[..n]
}
