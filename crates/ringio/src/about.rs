//! "Tell me about this entry": one request ([`Engine::about`] with an
//! [`Ask`]), one completion (carrying an [`About`]).
//!
//! A listing's long format wants, per entry, its stat, whether it has an
//! ACL, its security label, and for a symbolic link its target and the
//! target's type. How those answers are best got depends on the executor
//! and the file system, so the engine decides it here, per request:
//!
//! - Syscalls on worker threads or inline, local file system: one job
//!   ([`Op::About`]) that makes every call on one thread — the stat, then
//!   one `listxattr` answering the ACL and label questions together (the
//!   label's value asked only when the list shows one). One name in the
//!   arena, one job and one completion per entry: the caller's thread,
//!   which reads the directory and takes every answer in, is what bounds a
//!   big `ls -l` (docs/engine.md §2).
//! - io_uring: separate parts, joined here into one completion. The ring
//!   has GETXATTR but no LISTXATTR, so one GETXATTR per question (the
//!   labels only where the directory has one itself); its GETXATTR
//!   resolves paths from the cwd, so a local directory's entries are named
//!   by absolute path (a `/proc/self/fd/N/` rewrite costs ~3 µs more per
//!   call in procfs lookups).
//! - A high-latency file system (NFS, FUSE): separate parts, so the round
//!   trips overlap (slowfs 1 ms, `lsr -lR` of tree-20k: 1.73–2.25 s apart,
//!   2.43–2.45 s in one job). An entry whose stat and ACL are both wanted
//!   is opened once with `O_PATH|O_NOFOLLOW` (one LOOKUP), stat'ed through
//!   the descriptor with AT_STATX_DONT_SYNC (the LOOKUP's attributes, no
//!   request) and asked its attributes through `/proc/self/fd/N` (no
//!   second LOOKUP): two requests per file where by name it is three, and
//!   GNU ls six or more. At most [`BY_FD_WINDOW`] such descriptors are open.
//!
//! What a directory's file system refused (ACL or label queries answered
//! EOPNOTSUPP) is not asked again of its other entries, as GNU's caches do.

use std::collections::VecDeque;
use std::ffi::CStr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use crate::dirent::dtype;
use crate::engine::{Backend, Engine};
use crate::op::{Completion, Data, Op, Token};
use crate::sys::{self, Statx};
use crate::Errno;

const ACL_ACCESS: &CStr = c"system.posix_acl_access";
const ACL_DEFAULT: &CStr = c"system.posix_acl_default";
const SELINUX: &CStr = c"security.selinux";

/// What to find out about one entry. The questions after the stat are
/// about the entry itself: a symbolic link (unless `follow`) has no ACL of
/// its own, its label is its own, and only a link has a target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ask {
    /// Stat it with these statx `(flags, mask)`. Without, its type must be
    /// known (the `d_type` passed along).
    pub stat: Option<(i32, u32)>,
    /// The entry is what its name resolves to (the stat follows links).
    pub follow: bool,
    /// Whether it has an access ACL (or, a directory, a default one).
    pub acl: bool,
    /// Its SELinux context (`security.selinux`).
    pub label: bool,
    /// A link's target, as `readlink` gives it.
    pub link: bool,
    /// The type and mode of what a link points to.
    pub target: bool,
}

impl Ask {
    fn beyond_stat(&self) -> bool {
        self.acl || self.label || self.link || self.target
    }
}

const REFUSED_ACL: u8 = 1;
const REFUSED_LABEL: u8 = 2;

/// The answers to an [`Ask`]. The stat is the completion's
/// ([`Completion::stat`], whose result is the stat's); what was not asked,
/// or does not apply, is `None`/`false`.
pub struct About {
    pub(crate) stat: Statx,
    pub(crate) stat_done: bool,
    /// It has an ACL.
    pub acl: bool,
    /// Its label, without the final NUL; `None` when it has none or the
    /// question failed.
    pub label: Option<Vec<u8>>,
    /// A link's target, or why it could not be read.
    pub link: Option<Result<Vec<u8>, Errno>>,
    /// `stx_mode` of what a link points to, or why it could not be stat'ed.
    pub target: Option<Result<u32, Errno>>,
    refused: u8,
}

impl About {
    fn new() -> About {
        About {
            stat: sys::statx_zeroed(),
            stat_done: false,
            acl: false,
            label: None,
            link: None,
            target: None,
            refused: 0,
        }
    }

    /// Records a label query's outcome.
    fn put_label(&mut self, r: Result<usize, Errno>, mut v: Vec<u8>) {
        match r {
            Ok(_) => {
                if v.last() == Some(&0) {
                    v.pop();
                }
                self.label = Some(v);
            }
            Err(e) if e == Errno(libc::EOPNOTSUPP) => self.refused |= REFUSED_LABEL,
            Err(_) => {}
        }
    }

    /// Records what an attribute list says (bit 0: an access ACL, 1: a
    /// default ACL, 2: a label), returning whether the label is listed.
    fn put_listed(&mut self, r: Result<u32, Errno>, dir: bool) -> bool {
        match r {
            Ok(bits) => {
                self.acl = bits & 1 != 0 || (dir && bits & 2 != 0);
                bits & 4 != 0
            }
            Err(e) if e == Errno(libc::EOPNOTSUPP) => {
                self.refused |= REFUSED_ACL | REFUSED_LABEL;
                false
            }
            Err(_) => false,
        }
    }
}

/// The attribute names a list is searched for, in the order of its bits.
const LISTED: [&CStr; 3] = [ACL_ACCESS, ACL_DEFAULT, SELINUX];

fn listed_bits(list: &[u8]) -> u32 {
    let mut bits = 0;
    for n in list.split(|&b| b == 0) {
        if let Some(k) = LISTED.iter().position(|w| w.to_bytes() == n) {
            bits |= 1 << k;
        }
    }
    bits
}

/// The whole request as one job on the calling thread (worker or caller),
/// into `c`, a pending completion.
pub(crate) fn run_joined(dirfd: RawFd, name: &CStr, d_type: u8, ask: Ask, c: &mut Completion) {
    c.data = Data::About(About::new());
    let Data::About(a) = &mut c.data else { unreachable!("set just above") };
    let mut kind = d_type;
    if let Some((flags, mask)) = ask.stat {
        let t = crate::cold::sample();
        let r = sys::statx(dirfd, name, flags, mask, &mut a.stat);
        t.stats(1);
        if let Err(e) = r {
            c.result = Err(e);
            return;
        }
        a.stat_done = true;
        kind = dtype::from_mode(a.stat.stx_mode as u32);
    }
    let link = kind == dtype::LNK && !ask.follow;
    if link && ask.link {
        let mut b = Vec::new();
        a.link = Some(sys::readlinkat(dirfd, name, &mut b).map(|_| b));
    }
    if link && ask.target {
        let mut st = sys::statx_zeroed();
        let r = sys::statx(dirfd, name, TARGET_FLAGS, TARGET_MASK, &mut st);
        a.target = Some(r.map(|()| st.stx_mode as u32));
    }
    if ask.acl && !link {
        let listed = a.put_listed(list_names(dirfd, name), kind == dtype::DIR);
        if listed && ask.label {
            let mut v = Vec::with_capacity(256);
            let r = sys::getxattrat(dirfd, name, SELINUX, true, &mut v);
            a.put_label(r, v);
        }
    } else if ask.label {
        let mut v = Vec::with_capacity(256);
        let r = sys::getxattrat(dirfd, name, SELINUX, !link, &mut v);
        a.put_label(r, v);
    }
    // Marks the rare completion the engine must look into on its way out
    // (see `Engine::settle`).
    c.eof = a.refused != 0;
}

const TARGET_FLAGS: i32 = libc::AT_NO_AUTOMOUNT;
const TARGET_MASK: u32 = libc::STATX_TYPE | libc::STATX_MODE;

/// Which of [`LISTED`] `path`'s attribute list holds. The list goes into a
/// buffer kept per thread: only the answer leaves the job.
fn list_names(dirfd: RawFd, path: &CStr) -> Result<u32, Errno> {
    thread_local! {
        static LIST: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    LIST.with(|b| {
        let mut buf = b.borrow_mut();
        let r = sys::listxattrat(dirfd, path, true, &mut buf).map(|_| listed_bits(&buf));
        // An unusually long list's buffer is not kept.
        if buf.capacity() > 64 * 1024 {
            *buf = Vec::new();
        }
        r
    })
}

/// Descriptors of a high-latency directory's entries open at once, at
/// most: well below the usual 1024-descriptor limit.
pub(crate) const BY_FD_WINDOW: usize = 256;

/// Tokens of the engine's own parts of a request have this bit; the
/// caller's tokens must not.
pub(crate) const PART: Token = 1 << 63;
const PART_BITS: u32 = 3;
const P_STAT: u64 = 0;
const P_LINK: u64 = 1;
const P_TARGET: u64 = 2;
const P_ACL: u64 = 3;
const P_ACL_DEFAULT: u64 = 4;
const P_LIST: u64 = 5;
const P_LABEL: u64 = 6;
const P_OPEN: u64 = 7;

/// Whether part `p` of a request (`deferred`: whose follow-ups wait for
/// its stat) may lead to more parts.
fn leads_on(p: u64, deferred: bool) -> bool {
    matches!(p, P_OPEN | P_LIST) || (p == P_STAT && deferred)
}

fn part(slot: u32, p: u64) -> Token {
    PART | ((slot as u64) << PART_BITS) | p
}

/// The directory whose entries are being asked about, and what its file
/// system refused so far.
struct DirCx {
    fd: RawFd,
    path: Vec<u8>,
    remote: bool,
    /// Requests are answered in parts here (the ring, or a remote file
    /// system), not as one job each.
    split: bool,
    no_acl: bool,
    no_label: bool,
    /// Whether the directory has a label itself (asked once, under the
    /// ring): only then are its entries' labels asked, one GETXATTR each.
    /// A labelled file in an unlabelled directory shows no label there
    /// (on SELinux systems everything is labelled, elsewhere nothing is).
    labels_here: Option<bool>,
    /// The directory as an absolute path ending in `/`, for the ring's
    /// GETXATTR (asked once); `Some(None)` when there is none to use.
    abs: Option<Option<Vec<u8>>>,
}

impl Default for DirCx {
    fn default() -> DirCx {
        DirCx {
            // No directory yet: the first request begins one.
            fd: RawFd::MIN,
            path: Vec::new(),
            remote: false,
            split: false,
            no_acl: false,
            no_label: false,
            labels_here: None,
            abs: None,
        }
    }
}

/// A request answered in parts.
struct Slot {
    token: Token,
    dirfd: RawFd,
    name: Vec<u8>,
    kind: u8,
    ask: Ask,
    /// Parts in flight (or queued for a descriptor).
    left: u32,
    /// The follow-ups wait for the stat to tell the type.
    deferred: bool,
    result: Result<u64, Errno>,
    about: Option<About>,
    /// The entry's O_PATH descriptor while its attributes are asked.
    fd: Option<OwnedFd>,
}

/// The engine's book of requests answered in parts.
#[derive(Default)]
pub(crate) struct Asks {
    dir: DirCx,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Requests not yet completed.
    pub(crate) live: usize,
    /// Parts pushed and not yet settled.
    pub(crate) parts_out: usize,
    /// Of those, the ones whose answer may lead to more parts (an O_PATH
    /// open, an attribute list, a stat the type waits for): while any is
    /// out, the engine takes completions as they come rather than waiting
    /// for many, so the next parts go out at once.
    pub(crate) leading_out: usize,
    /// Joined jobs were pushed for the current directory: their
    /// completions may say what its file system refused.
    pub(crate) joined: bool,
    by_fd_live: usize,
    pub(crate) by_fd_queue: VecDeque<u32>,
    list_bufs: Vec<Vec<u8>>,
    /// The ring's attribute queries' path, built per entry.
    path: Vec<u8>,
    cwd: Option<Option<Vec<u8>>>,
}

impl Engine {
    /// The entries asked about next are in directory `fd`, opened as
    /// `path`: a new file system may refuse other questions.
    pub(crate) fn begin_dir(&mut self, fd: RawFd, path: &[u8]) {
        let remote = self.high_latency().is_some();
        let split = remote || self.backend == Backend::Uring;
        let d = &mut self.asks.dir;
        d.fd = fd;
        d.path.clear();
        d.path.extend_from_slice(path);
        d.remote = remote;
        d.split = split;
        d.no_acl = false;
        d.no_label = false;
        d.labels_here = None;
        d.abs = None;
        self.asks.joined = false;
    }

    /// Asks `ask` of entry `name` of directory `dirfd` (getdents' `d_type`,
    /// or [`dtype::UNKNOWN`]); completes once, with everything asked in an
    /// [`About`] ([`Completion::about`]) and the stat's result. How the
    /// questions are put is the engine's (see [`crate::about`]). Tokens
    /// must be below the engine's own (2⁶²: see `Engine::settle`).
    #[inline]
    pub fn about(&mut self, token: Token, dirfd: RawFd, name: &[u8], d_type: u8, mut ask: Ask) {
        debug_assert!(token < crate::whole::WHOLE_PART, "token {token:#x} is the engine's");
        let d = &self.asks.dir;
        ask.acl &= !d.no_acl;
        ask.label &= !d.no_label;
        // The common case first, kept small: a big local listing's entries
        // on the pool, each one job.
        if dirfd == d.fd && !d.split && ask.stat.is_some() {
            self.asks.joined = true;
            let path = self.arena.push(name);
            self.push(token, Op::About { dirfd, path, d_type, ask });
            return;
        }
        self.about_slow(token, dirfd, name, d_type, ask);
    }

    fn about_slow(&mut self, token: Token, dirfd: RawFd, name: &[u8], d_type: u8, ask: Ask) {
        if dirfd != self.asks.dir.fd {
            self.begin_dir(dirfd, b"");
        }
        let d = &self.asks.dir;
        if ask.stat.is_none() && (!ask.beyond_stat() || d_type == dtype::UNKNOWN) {
            let data = Data::About(About::new());
            self.ready.push(Completion { token, result: Ok(0), eof: false, data });
            return;
        }
        if ask.label && !d.no_label && self.backend == Backend::Uring {
            // Only the ring asks labels through this probe (the other
            // executors read them from one LISTXATTR or GETXATTR an entry).
            // Probed now, before this directory's requests go out: the
            // probe blocks this thread, and once io-wq starts workers for
            // those requests their start-up is task work signalled to this
            // thread, which interrupts the probe (on FUSE each interruption
            // is an INTERRUPT and the request again: 4-13 more requests for
            // `lsr -l` of 150 files on a 1 ms mount).
            self.labels_here();
        }
        let d = &self.asks.dir;
        let known = d_type != dtype::UNKNOWN;
        let by_fd = d.remote
            && ask.acl
            && ask.stat.is_some()
            && !ask.follow
            && known
            && d_type != dtype::LNK
            && name != b"."
            && name != b".."
            && sys::fs::proc_fd_usable();
        if !by_fd && !d.split {
            self.asks.joined = true;
            let path = self.arena.push(name);
            self.push(token, Op::About { dirfd, path, d_type, ask });
            return;
        }
        let i = self.new_slot(token, dirfd, name, d_type, ask);
        if by_fd {
            if self.asks.by_fd_live < BY_FD_WINDOW {
                self.open_by_fd(i);
            } else {
                self.asks.slots[i as usize].left += 1;
                self.asks.by_fd_queue.push_back(i);
            }
            return;
        }
        let s = &mut self.asks.slots[i as usize];
        s.deferred = !known || (d_type == dtype::LNK && ask.follow && ask.stat.is_some());
        if let Some((flags, mask)) = ask.stat {
            self.push_part(i, P_STAT, |e, t, name| e.statx(t, dirfd, name, flags, mask));
        }
        if !self.asks.slots[i as usize].deferred {
            self.push_followups(i);
        }
        self.finish_if_done(i, None);
    }

    fn new_slot(&mut self, token: Token, dirfd: RawFd, name: &[u8], kind: u8, ask: Ask) -> u32 {
        self.asks.live += 1;
        let i = match self.asks.free.pop() {
            Some(i) => i,
            None => {
                self.asks.slots.push(Slot {
                    token: 0,
                    dirfd: 0,
                    name: Vec::new(),
                    kind: 0,
                    ask: Ask::default(),
                    left: 0,
                    deferred: false,
                    result: Ok(0),
                    about: None,
                    fd: None,
                });
                (self.asks.slots.len() - 1) as u32
            }
        };
        let s = &mut self.asks.slots[i as usize];
        s.token = token;
        s.dirfd = dirfd;
        s.name.clear();
        s.name.extend_from_slice(name);
        s.kind = kind;
        s.ask = ask;
        s.left = 0;
        s.deferred = false;
        s.result = Ok(0);
        s.about = Some(About::new());
        s.fd = None;
        i
    }

    /// Pushes part `p` of request `i` through `push`, given the part's token
    /// and the entry's name.
    fn push_part(&mut self, i: u32, p: u64, push: impl FnOnce(&mut Engine, Token, &[u8])) {
        let name = std::mem::take(&mut self.asks.slots[i as usize].name);
        push(self, part(i, p), &name);
        let s = &mut self.asks.slots[i as usize];
        s.name = name;
        s.left += 1;
        self.asks.parts_out += 1;
        if leads_on(p, s.deferred) {
            self.asks.leading_out += 1;
        }
    }

    /// Where the ring's GETXATTR should name entry `i`: by absolute path on
    /// a local file system, else relative to its directory (which
    /// [`Engine::getxattr`] turns into a `/proc/self/fd/N/` path, one
    /// lookup: on a high-latency one each component of an absolute path is
    /// a round trip).
    /// The path is written into `p`; returns the descriptor it is relative to.
    fn ring_xattr_path(&mut self, i: u32, p: &mut Vec<u8>) -> RawFd {
        let dirfd = self.asks.slots[i as usize].dirfd;
        let d = &self.asks.dir;
        let local = !d.remote && dirfd != libc::AT_FDCWD && dirfd == d.fd;
        if local && self.asks.dir.abs.is_none() {
            let abs = self.abs_dir();
            self.asks.dir.abs = Some(abs);
        }
        let name = &self.asks.slots[i as usize].name;
        p.clear();
        match &self.asks.dir.abs {
            Some(Some(a)) if local && a.len() + name.len() < 4000 => {
                p.extend_from_slice(a);
                p.extend_from_slice(name);
                libc::AT_FDCWD
            }
            _ => {
                p.extend_from_slice(name);
                dirfd
            }
        }
    }

    /// The current directory's absolute path, ending in `/`.
    fn abs_dir(&mut self) -> Option<Vec<u8>> {
        let path = self.asks.dir.path.clone();
        if path.is_empty() {
            return None;
        }
        let mut v = if path.first() == Some(&b'/') {
            path
        } else {
            if self.asks.cwd.is_none() {
                use std::os::unix::ffi::OsStrExt;
                let cwd = std::env::current_dir().ok();
                self.asks.cwd = Some(cwd.map(|p| p.as_os_str().as_bytes().to_vec()));
            }
            let mut v = self.asks.cwd.clone().flatten()?;
            if path != b"." {
                if v.last() != Some(&b'/') {
                    v.push(b'/');
                }
                v.extend_from_slice(&path);
            }
            v
        };
        if v.last() != Some(&b'/') {
            v.push(b'/');
        }
        Some(v)
    }

    fn labels_here(&mut self) -> bool {
        let d = &mut self.asks.dir;
        if d.fd == libc::AT_FDCWD {
            return true;
        }
        *d.labels_here.get_or_insert_with(|| {
            sys::getxattrat(d.fd, c".", SELINUX, true, &mut Vec::new()).is_ok()
        })
    }

    /// Pushes what request `i` asks beyond the stat, its type now known.
    fn push_followups(&mut self, i: u32) {
        let (dirfd, kind, ask) = {
            let s = &self.asks.slots[i as usize];
            (s.dirfd, s.kind, s.ask)
        };
        let link = kind == dtype::LNK && !ask.follow;
        if link && ask.link {
            self.push_part(i, P_LINK, |e, t, n| e.readlinkat(t, dirfd, n, Vec::new()));
        }
        if link && ask.target {
            self.push_part(i, P_TARGET, |e, t, n| e.statx(t, dirfd, n, TARGET_FLAGS, TARGET_MASK));
        }
        let acl = ask.acl && !link && !self.asks.dir.no_acl;
        let label = ask.label && !self.asks.dir.no_label;
        if self.backend == Backend::Uring {
            if !acl && !label {
                return;
            }
            // One buffer for every entry's path (the arena copies it).
            let mut p = std::mem::take(&mut self.asks.path);
            let dfd = self.ring_xattr_path(i, &mut p);
            self.push_getxattrs(i, (dfd, &p), kind == dtype::DIR, acl, label, !link);
            self.asks.path = p;
        } else if acl {
            let b = self.asks.list_bufs.pop().unwrap_or_default();
            self.push_part(i, P_LIST, |e, t, n| e.listxattr(t, dirfd, n, true, b));
        } else if label {
            self.push_part(i, P_LABEL, |e, t, n| {
                e.getxattr(t, dirfd, n, SELINUX, !link, Vec::with_capacity(256))
            });
        }
    }

    fn open_by_fd(&mut self, i: u32) {
        self.asks.by_fd_live += 1;
        let dirfd = self.asks.slots[i as usize].dirfd;
        let flags = libc::O_PATH | libc::O_NOFOLLOW;
        self.push_part(i, P_OPEN, |e, t, n| e.openat(t, dirfd, n, flags, 0));
    }

    /// A descriptor was closed: the next queued entries may open theirs.
    fn by_fd_next(&mut self) {
        while self.asks.by_fd_live < BY_FD_WINDOW {
            let Some(i) = self.asks.by_fd_queue.pop_front() else { break };
            self.asks.slots[i as usize].left -= 1;
            self.open_by_fd(i);
        }
    }

    /// Entry `i`'s O_PATH open completed: stat and ask through it.
    fn by_fd_opened(&mut self, i: u32, r: Result<OwnedFd, Errno>) {
        let fd = match r {
            Ok(fd) => fd,
            Err(e) => {
                self.asks.by_fd_live -= 1;
                self.by_fd_next();
                if e == Errno(libc::EMFILE) || e == Errno(libc::ENFILE) {
                    // Out of descriptors after all: by name (no DONT_SYNC,
                    // as before the descriptor way existed).
                    let s = &self.asks.slots[i as usize];
                    let (dirfd, mask) = (s.dirfd, s.ask.stat.map_or(0, |(_, m)| m));
                    let flags = libc::AT_SYMLINK_NOFOLLOW | libc::AT_NO_AUTOMOUNT;
                    self.push_part(i, P_STAT, |e, t, n| e.statx(t, dirfd, n, flags, mask));
                    self.push_followups(i);
                } else {
                    self.asks.slots[i as usize].result = Err(e);
                }
                return;
            }
        };
        let s = &mut self.asks.slots[i as usize];
        let (kind, ask) = (s.kind, s.ask);
        // The stat of the descriptor asks the server nothing (DONT_SYNC: the
        // LOOKUP's attributes), so it runs here rather than through a worker.
        let flags = libc::AT_EMPTY_PATH | libc::AT_STATX_DONT_SYNC | libc::AT_NO_AUTOMOUNT;
        let mask = ask.stat.map_or(0, |(_, m)| m);
        let a = s.about.as_mut().expect("a live request has its answer");
        match sys::statx(fd.as_raw_fd(), c"", flags, mask, &mut a.stat) {
            Ok(()) => a.stat_done = true,
            Err(e) => s.result = Err(e),
        }
        let p = proc_fd(fd.as_raw_fd());
        s.fd = Some(fd);
        let acl = ask.acl && !self.asks.dir.no_acl;
        let label = ask.label && !self.asks.dir.no_label;
        let cwd = libc::AT_FDCWD;
        if self.backend != Backend::Uring && (acl || label) {
            // One LISTXATTR answers the ACL and label questions.
            let b = self.asks.list_bufs.pop().unwrap_or_default();
            self.push_part(i, P_LIST, |e, t, _| e.listxattr(t, cwd, &p, true, b));
            return;
        }
        self.push_getxattrs(i, (cwd, &p), kind == dtype::DIR, acl, label, true);
    }

    /// Pushes one GETXATTR for each of entry `i`'s questions asked by path
    /// (`at`: a directory descriptor and a path under it): its access ACL,
    /// a directory's default ACL, and its label (`follow_label`: through a
    /// symbolic link).
    fn push_getxattrs(
        &mut self,
        i: u32,
        at: (RawFd, &[u8]),
        dir: bool,
        acl: bool,
        label: bool,
        follow_label: bool,
    ) {
        let (dirfd, p) = at;
        if acl {
            self.push_part(i, P_ACL, |e, t, _| {
                e.getxattr(t, dirfd, p, ACL_ACCESS, true, Vec::new())
            });
            if dir {
                self.push_part(i, P_ACL_DEFAULT, |e, t, _| {
                    e.getxattr(t, dirfd, p, ACL_DEFAULT, true, Vec::new())
                });
            }
        }
        if label && self.labels_here() {
            self.push_part(i, P_LABEL, |e, t, _| {
                e.getxattr(t, dirfd, p, SELINUX, follow_label, Vec::with_capacity(256))
            });
        }
    }

    /// Notes what the joined jobs among `done` found refused: their
    /// completions say so by `eof`, which nothing else of theirs uses.
    pub(crate) fn note_refused(&mut self, done: &[Completion]) {
        let d = &self.asks.dir;
        if !self.asks.joined || (d.no_acl && d.no_label) {
            return;
        }
        for c in done {
            if let (true, Data::About(a)) = (c.eof, &c.data) {
                let bits = a.refused;
                self.refused(bits);
            }
        }
    }

    /// Works one of the engine's parts of an about request (a token with
    /// [`PART`]) into its request, appending the request to `out` once
    /// it is answered.
    pub(crate) fn settle_about_part(&mut self, mut c: Completion, out: &mut Vec<Completion>) {
        self.asks.parts_out -= 1;
        let i = ((c.token & !PART) >> PART_BITS) as u32;
        self.settle_part(i, c.token & ((1 << PART_BITS) - 1), &mut c);
        self.finish_if_done(i, Some(out));
    }

    fn refused(&mut self, bits: u8) {
        self.asks.dir.no_acl |= bits & REFUSED_ACL != 0;
        self.asks.dir.no_label |= bits & REFUSED_LABEL != 0;
    }

    fn settle_part(&mut self, i: u32, p: u64, c: &mut Completion) {
        let s = &mut self.asks.slots[i as usize];
        s.left -= 1;
        if leads_on(p, s.deferred) {
            self.asks.leading_out -= 1;
        }
        let a = s.about.as_mut().expect("a live request has its answer");
        let mut refused = 0;
        match p {
            P_STAT => match c.stat() {
                Ok(st) => {
                    a.stat = *st;
                    a.stat_done = true;
                    s.kind = dtype::from_mode(st.stx_mode as u32);
                    if std::mem::take(&mut s.deferred) {
                        self.push_followups(i);
                    }
                }
                Err(e) => s.result = Err(e),
            },
            P_LINK => a.link = Some(c.result.map(|_| c.take_buf())),
            P_TARGET => a.target = Some(c.stat().map(|st| st.stx_mode as u32)),
            P_ACL | P_ACL_DEFAULT => {
                if matches!(c.result, Ok(n) if n > 0) {
                    a.acl = true;
                }
                if c.result == Err(Errno(libc::EOPNOTSUPP)) {
                    refused = REFUSED_ACL;
                }
            }
            P_LABEL => {
                let r = c.result.map(|n| n as usize);
                a.put_label(r, c.take_buf());
                refused = a.refused;
            }
            P_LIST => {
                let r = c.result.map(|_| listed_bits(c.buf()));
                let listed = a.put_listed(r, s.kind == dtype::DIR);
                refused = a.refused;
                let b = c.take_buf();
                if b.capacity() != 0 && b.capacity() <= 4096 && self.asks.list_bufs.len() < 8192 {
                    self.asks.list_bufs.push(b);
                }
                let s = &self.asks.slots[i as usize];
                if listed && s.ask.label && refused & REFUSED_LABEL == 0 {
                    let (dfd, p) = match &s.fd {
                        Some(fd) => (libc::AT_FDCWD, proc_fd(fd.as_raw_fd())),
                        None => (s.dirfd, s.name.clone()),
                    };
                    self.push_part(i, P_LABEL, |e, t, _| {
                        e.getxattr(t, dfd, &p, SELINUX, true, Vec::with_capacity(256))
                    });
                }
            }
            P_OPEN => {
                let r = c.take_fd();
                self.by_fd_opened(i, r);
            }
            _ => unreachable!("a part of three bits"),
        }
        self.refused(refused);
    }

    /// Completes request `i` once nothing of it is left, into `out` (or the
    /// ready queue).
    fn finish_if_done(&mut self, i: u32, out: Option<&mut Vec<Completion>>) {
        let s = &mut self.asks.slots[i as usize];
        if s.left > 0 {
            return;
        }
        let data = Data::About(s.about.take().expect("a live request has its answer"));
        let c = Completion { token: s.token, result: s.result, eof: false, data };
        if s.fd.take().is_some() {
            // An O_PATH close asks the server nothing: here, not queued.
            self.asks.by_fd_live -= 1;
            self.by_fd_next();
        }
        self.asks.live -= 1;
        self.asks.free.push(i);
        match out {
            Some(out) => out.push(c),
            None => self.ready.push(c),
        }
    }
}

/// `/proc/self/fd/FD`: the path that reaches an O_PATH descriptor's file.
fn proc_fd(fd: RawFd) -> Vec<u8> {
    format!("/proc/self/fd/{fd}").into_bytes()
}
