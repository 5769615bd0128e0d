//! The steps both walk modes share: a root, a directory's listing, one
//! entry, and finishing a subtree.

use std::ffi::CString;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ringio::{dtype, DevIno, Errno, Statx};

use crate::dirs::{self, Pinned};
use crate::fds::Fds;
use crate::mounts;
use crate::node::{dtype_of, DirNode, LINKS, LINKS_UNKNOWN, NO_LINKS, NO_MOUNT};
use crate::reader::{Listing, Reader, StatRef, StatSlot};
use crate::{Entry, Options, StatNeed, Visit, Visitor, WalkError};

pub(crate) type Node<V> = Arc<DirNode<<V as Visitor>::Acc>>;

/// How a walk stops: a `Visit::Quit` ends it; a directory that moved
/// away (`WalkError::Moved`) ends the current root's walk only.
///
/// Every entry of every directory reads it, and it is almost never
/// written: on cache lines of its own (two: the adjacent-line prefetch),
/// so the queue's lock and the descriptor budget, which the other threads
/// write per directory, don't take its line away each time (warm
/// `lfind tree`: 19% of the walker loop's own samples were on this load).
#[repr(align(128))]
pub(crate) struct Stop {
    /// Stop walking: queued work is dropped, `leave` no longer runs.
    now: AtomicBool,
    /// And walk no further roots.
    all: AtomicBool,
    /// Whether directories check their parent when left (`finish`); not in
    /// a fed walk, whose roots come from elsewhere and never end it.
    pub ascent: bool,
}

impl Stop {
    pub fn new(ascent: bool) -> Stop {
        Stop { now: AtomicBool::new(false), all: AtomicBool::new(false), ascent }
    }

    /// Whether the walk (of the current root) is stopping.
    pub fn is_set(&self) -> bool {
        self.now.load(Ordering::Relaxed)
    }

    /// A quit: nothing more is walked.
    pub fn quit(&self) {
        self.all.store(true, Ordering::Relaxed);
        self.now.store(true, Ordering::Relaxed);
    }

    /// The current root's walk ends here.
    fn end_root(&self) {
        self.now.store(true, Ordering::Relaxed);
    }

    /// Before a root, once the previous one is wholly done: whether to
    /// walk it.
    pub fn next_root(&self) -> bool {
        if self.all.load(Ordering::Relaxed) {
            return false;
        }
        self.now.store(false, Ordering::Relaxed);
        true
    }
}

/// What every step of one walk shares: the visitor, the descriptor budget
/// and how the walk stops.
pub(crate) struct Env<'a, V> {
    pub v: &'a V,
    pub fds: &'a Fds,
    pub stop: &'a Stop,
}

impl<V> Clone for Env<'_, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<V> Copy for Env<'_, V> {}

/// Stats and visits a root operand; returns its node if the walk descends.
pub(crate) fn root<V: Visitor>(
    rd: &mut Reader,
    path: &[u8],
    opts: &Options,
    v: &V,
    local: &mut V::Local,
    stop: &Stop,
) -> Option<Node<V>> {
    let (st, err, followed) = match rd.stat_path(path, opts.follow_roots) {
        StatSlot::Ok { st, followed } => (Some(st), None, followed),
        StatSlot::Err(e) => {
            v.error(local, &WalkError::Root { path: path.to_vec(), errno: e }, None);
            return None;
        }
    };
    let d_type = st.as_ref().map_or(dtype::UNKNOWN, dtype_of);
    let ino = st.as_ref().map_or(0, |s| s.stx_ino);
    let entry = Entry {
        path,
        name: path,
        depth: 0,
        d_type,
        ino,
        stat: st.as_ref(),
        stat_error: err,
        followed,
        dirfd: libc::AT_FDCWD,
        rel_name: path,
        index: 0,
    };
    match v.visit(local, &entry, None) {
        Visit::Quit => {
            stop.quit();
            None
        }
        Visit::Descend if d_type == dtype::DIR => {
            let acc = v.make_acc(&entry, None);
            let (m, t) = (NO_MOUNT, mounts::UNKNOWN);
            Some(DirNode::with_mounts(&entry, st, None, acc, m, t, LINKS_UNKNOWN))
        }
        _ => None,
    }
}

/// Opens, reads and stats `node` into `list` (the whole listing). Returns
/// its pinned descriptor, or `None` (after reporting) when it could not be
/// opened.
pub(crate) fn open_read<V: Visitor>(
    env: Env<'_, V>,
    rd: &mut Reader,
    node: &Node<V>,
    list: &mut Listing,
    opts: &Options,
    local: &mut V::Local,
) -> Option<Pinned> {
    let v = env.v;
    let pin = open(rd, env.fds, node, list, v, local)?;
    // Our own descriptors, listed: none closes until stat'ed.
    let _hold = lists_own_fds(node).then(crate::fds::hold_closes);
    if let Err(e) = rd.read(pin.fd, dev_size(node), list, opts.sort) {
        v.error(local, &read_error(node, list, e), Some(&node.acc));
    }
    stat_listing(v, rd, pin.fd, list, node.depth + 1);
    Some(pin)
}

/// Stats what `v` needs of `list`, the listing of `dirfd`, whose entries
/// are at `depth`.
pub(crate) fn stat_listing<V: Visitor>(
    v: &V,
    rd: &mut Reader,
    dirfd: RawFd,
    list: &mut Listing,
    depth: usize,
) {
    if v.stats_none_at(depth) {
        // `find DIR`, `-name`, `-type`.
        rd.stat_unknown_types(dirfd, list);
    } else {
        rd.stat(dirfd, list, |name, d_type| v.need_stat(name, d_type, depth));
    }
}

/// A directory's read failed with `errno`, `list` holding what was read
/// of this batch: with nothing read at all, the directory could not be
/// read (GNU's fts: FTS_DNR, du's "cannot read directory", as for an open
/// that fails: /proc/PID/map_files of another process opens, then its
/// first getdents fails), else it failed part-way.
pub(crate) fn read_error<A>(node: &DirNode<A>, list: &Listing, errno: Errno) -> WalkError {
    let path = node.path.clone();
    if list.is_empty() && list.base == 0 {
        WalkError::Open { path, errno }
    } else {
        WalkError::Read { path, errno }
    }
}

/// Whether `node` is one of this process's own descriptor directories in
/// /proc (`PID/fd`, `PID/fdinfo`, `PID/task/TID/fd`…, `self/…`,
/// `thread-self/…`), by its path: see `fds::hold_closes`.
pub(crate) fn lists_own_fds<A>(node: &DirNode<A>) -> bool {
    // Asked of every directory: most are told by their last bytes alone.
    if !(node.path.ends_with(b"fd") || node.path.ends_with(b"fdinfo") || node.path.ends_with(b"/"))
    {
        return false;
    }
    let mut comps = node.path.rsplit(|&c| c == b'/').filter(|c| !c.is_empty());
    if !matches!(comps.next(), Some(b"fd" | b"fdinfo")) {
        return false;
    }
    let me = std::process::id().to_string();
    let ours = |c: &[u8]| c == me.as_bytes() || c == b"self";
    match comps.next() {
        Some(b"thread-self") => true,
        Some(c) if ours(c) => true,
        Some(_) => comps.next() == Some(b"task") && comps.next().is_some_and(ours),
        None => false,
    }
}

/// Opens `node` (pinned), or reports why not (clearing `list`).
pub(crate) fn open<V: Visitor>(
    rd: &mut Reader,
    fds: &Fds,
    node: &Node<V>,
    list: &mut Listing,
    v: &V,
    local: &mut V::Local,
) -> Option<Pinned> {
    match dirs::pin(fds, Some(rd), node) {
        Ok(p) => {
            node.opened();
            Some(p)
        }
        Err(e) => {
            list.clear();
            v.error(local, &WalkError::Open { path: node.path.clone(), errno: e }, Some(&node.acc));
            None
        }
    }
}

/// The directory's device and size, for the end-of-directory hint. Not
/// stat'ed (a walk that only needs names), its device is its parent's
/// (`DirNode::dev`) and its size unknown.
pub(crate) fn dev_size<A>(node: &DirNode<A>) -> Option<(u64, u64)> {
    let size = node.facts.stat.as_ref().map_or(ringio::sys::fs::SIZE_UNKNOWN, |st| st.stx_size);
    node.dev.map(|d| (d, size))
}

/// Visits the entries of `node`'s listing in order (see [`entry`]), giving
/// `descend` each child to descend into; stops early when the walk stops.
/// One call per batch: the entry's steps are inlined into this loop, so what
/// it reads of `node` and the walk is loaded once, not once an entry.
pub(crate) fn entries<V: Visitor>(
    env: Env<'_, V>,
    node: &Node<V>,
    dirfd: RawFd,
    list: &Listing,
    path: &mut ChildPath,
    local: &mut V::Local,
    mut descend: impl FnMut(Node<V>),
) {
    path.enter(&node.path);
    for i in 0..list.len() {
        if env.stop.is_set() {
            break;
        }
        if let Some(k) = entry(env, node, dirfd, list, i, path, local) {
            descend(k);
        }
    }
}

/// Visits entry `i` of `node`'s listing, `dirfd` being `node`'s pinned
/// descriptor (or `AT_FDCWD` when it can't be had: the entry is then named
/// by its whole path); returns the child to descend into.
#[inline(always)]
pub(crate) fn entry<V: Visitor>(
    env: Env<'_, V>,
    node: &Node<V>,
    dirfd: RawFd,
    list: &Listing,
    i: usize,
    path: &mut ChildPath,
    local: &mut V::Local,
) -> Option<Node<V>> {
    let Env { v, fds, stop } = env;
    let name = list.name(i);
    let name_start = path.child(&node.path, name);
    let path = &path.buf;
    let raw = list.ents[i];
    let depth = node.depth + 1;
    // Borrowed: a statx is 256 bytes, and only directories keep a copy.
    let (mut st, mut stat_error, mut followed) = match list.stat(i) {
        StatRef::None => (None, None, false),
        StatRef::Ok { st, followed } => (Some(st), None, followed),
        StatRef::Err(e) => (None, Some(e), false),
    };
    if raw.d_type == dtype::LNK
        && stat_error.is_none()
        && whole_path_loops(v, node, name, depth, path)
    {
        (st, stat_error, followed) = (None, Some(Errno(libc::ELOOP)), false);
    }
    let rel_name = if dirfd == libc::AT_FDCWD { &path[..] } else { name };
    let d_type = st.map_or(raw.d_type, dtype_of);
    let mut place = (node.mount_at, mounts::NONE);
    if d_type == dtype::DIR {
        let child = Child { dirfd, rel: rel_name, ino: raw.ino, id: None };
        match dir_place(fds, node, name, st, followed, child) {
            Ok(p) => place = p,
            Err(ancestor) => {
                let err = WalkError::Loop { path: path.to_vec(), ancestor };
                v.error(local, &err, Some(&node.acc));
                return None;
            }
        }
    }
    let e = Entry {
        path,
        name: &path[name_start..],
        depth,
        d_type,
        ino: raw.ino,
        stat: st,
        stat_error,
        followed,
        dirfd,
        rel_name,
        index: list.base + i,
    };
    match v.visit(local, &e, Some(&node.acc)) {
        Visit::Quit => {
            stop.quit();
            None
        }
        Visit::Descend if d_type == dtype::DIR => Some(child_node(v, node, &e, raw.d_type, place)),
        _ => None,
    }
}

/// A walker thread's path buffer: an entry's whole path, built as
/// `dir/name` (one slash between, whatever `dir` ends with).
#[derive(Default)]
pub(crate) struct ChildPath {
    pub(crate) buf: Vec<u8>,
    /// Where names start when `buf` begins with the directory being
    /// listed and its slash (see [`ChildPath::enter`]).
    names_at: Option<usize>,
}

impl ChildPath {
    /// The next entries are `dir`'s, one after another: its path is put
    /// in once, not again for each (a copy an entry: 5% of a warm lfind's
    /// instructions). Whoever builds another directory's entries in
    /// between calls this again.
    pub(crate) fn enter(&mut self, dir: &[u8]) {
        self.names_at = Some(self.put_dir(dir));
    }

    /// Puts `dir` and its slash in the buffer alone; returns the length.
    fn put_dir(&mut self, dir: &[u8]) -> usize {
        self.buf.clear();
        self.buf.extend_from_slice(dir);
        if self.buf.last() != Some(&b'/') {
            self.buf.push(b'/');
        }
        self.buf.len()
    }

    /// Puts `dir/name` in the buffer; returns where the name starts.
    #[inline]
    fn child(&mut self, dir: &[u8], name: &[u8]) -> usize {
        let at = match self.names_at {
            Some(at) => {
                debug_assert!(self.buf[..at].starts_with(dir), "entered another directory");
                self.buf.truncate(at);
                at
            }
            None => self.put_dir(dir),
        };
        self.buf.extend_from_slice(name);
        at
    }
}

/// Whether symlink `name` in `node`, which the visitor wants followed,
/// fails to resolve by its whole path `path`. GNU's fts (FTS_LOGICAL)
/// stats the whole path from the working directory, and the kernel gives
/// up (ELOOP) after 40 symlinks in one resolution, those of the
/// directories above counted too. The walker's stat, relative to the
/// parent's descriptor, only counts this link's own: the whole path is
/// asked again, for symlinks only (a name that is not one adds no link to
/// its parent's path) and only below a link (with none above, the whole
/// path follows as many as the name alone, which resolved).
#[inline]
fn whole_path_loops<V: Visitor>(
    v: &V,
    node: &Node<V>,
    name: &[u8],
    depth: usize,
    path: &[u8],
) -> bool {
    v.need_stat(name, dtype::LNK, depth) == StatNeed::Follow
        && links_above(node)
        && too_many_links(path)
}

/// Where directory entry `child` (`name` in `node`) sits among mounts:
/// the depth of the mount root its subtree is below (`DirNode::mount_at`)
/// and its position in the mount-point trie. `Err` holds the path of the
/// ancestor it repeats, to be reported instead of visited.
///
/// Out of line: one entry in many is a directory, and inlined into
/// `entry` its locals weighed on every entry's frame.
#[inline(never)]
fn dir_place<A: Send + Sync + 'static>(
    fds: &Fds,
    node: &Arc<DirNode<A>>,
    name: &[u8],
    st: Option<&Statx>,
    followed: bool,
    mut child: Child,
) -> Result<(usize, u32), Vec<u8>> {
    let mut trie = child_position(node, name);
    let mut mount_at = node.mount_at;
    // A followed link back to an ancestor is reported instead of visited,
    // as find -L and du -L do.
    if followed {
        return match st.and_then(|s| loop_ancestor(node, DevIno::of(s))) {
            Some(anc) => Err(anc),
            None => Ok((mount_at, trie)),
        };
    }
    // Not following links, a directory can only repeat an ancestor below
    // a mount point (`mount --bind a a/b`): reported as fts reports it
    // (FTS_DC), instead of visited. See `mounts`.
    let is_mount = match st.and_then(mounts::mount_root) {
        Some(m) => m,
        None => match mounts::table() {
            Some(t) => {
                trie = t.kid(trie_of(node, t), name).unwrap_or(mounts::NONE);
                t.is_mount(trie)
            }
            // No mount table: any directory may be one.
            None => true,
        },
    };
    child.id = st.map(DevIno::of);
    if is_mount {
        // A mount point the listing didn't stat: its identity (getdents
        // gave the covered directory's inode), for the check only.
        let own = if st.is_none() { identity_of(child.dirfd, child.rel) } else { None };
        let root = match (&own, st) {
            (Some(o), _) => mounts::mount_root(o),
            (None, Some(s)) => mounts::mount_root(s),
            (None, None) => None,
        };
        if root != Some(false) {
            mount_at = node.depth + 1;
        }
        child.id = child.id.or(own.as_ref().map(DevIno::of));
    }
    if mount_at != NO_MOUNT {
        if let Some(anc) = same_as_ancestor(fds, node, &mut child, mount_at) {
            return Err(anc);
        }
    }
    Ok((mount_at, trie))
}

/// The node to walk directory entry `e` of `node` from, `raw_type` being
/// its type as getdents gave it and `(mount_at, trie)` its `dir_place`.
#[inline]
fn child_node<V: Visitor>(
    v: &V,
    node: &Node<V>,
    e: &Entry,
    raw_type: u8,
    (mount_at, trie): (usize, u32),
) -> Node<V> {
    let acc = v.make_acc(e, Some(&node.acc));
    let through_link = e.followed && matches!(raw_type, dtype::LNK | dtype::UNKNOWN);
    let links =
        if through_link || node.links.load(Ordering::Relaxed) == LINKS { LINKS } else { NO_LINKS };
    let parent = Some(Arc::clone(node));
    DirNode::with_mounts(e, e.stat.copied(), parent, acc, mount_at, trie, links)
}

/// The path of the ancestor (or `node` itself) that is the same directory.
fn loop_ancestor<A>(node: &Arc<DirNode<A>>, id: DevIno) -> Option<Vec<u8>> {
    let mut cur = Some(node);
    while let Some(n) = cur {
        if n.dev_ino() == Some(id) {
            return Some(n.path.clone());
        }
        cur = n.parent.as_ref();
    }
    None
}

/// Whether `node`'s path from the working directory runs through a
/// symlink: one followed below its root, or one in the root operand's own
/// path (each component lstat'ed, once per root, when first asked).
fn links_above<A>(node: &Arc<DirNode<A>>) -> bool {
    if node.links.load(Ordering::Relaxed) == LINKS {
        return true;
    }
    let mut root = node;
    while let Some(p) = &root.parent {
        root = p;
    }
    match root.links.load(Ordering::Relaxed) {
        LINKS_UNKNOWN => {
            let has = path_has_link(&root.path);
            root.links.store(if has { LINKS } else { NO_LINKS }, Ordering::Relaxed);
            has
        }
        l => l == LINKS,
    }
}

/// Whether a component of `path` is a symlink (or can't be told).
fn path_has_link(path: &[u8]) -> bool {
    let ends = path.iter().enumerate().filter(|&(i, &c)| c == b'/' && i > 0).map(|(i, _)| i);
    for end in ends.chain([path.len()]) {
        let prefix = &path[..end];
        if prefix.is_empty() || prefix.ends_with(b"/") {
            continue;
        }
        let Ok(c) = CString::new(prefix) else { return true };
        let mut st = ringio::sys::statx_zeroed();
        let flags = libc::AT_SYMLINK_NOFOLLOW;
        if ringio::sys::statx(libc::AT_FDCWD, &c, flags, libc::STATX_TYPE, &mut st).is_err()
            || dtype_of(&st) == dtype::LNK
        {
            return true;
        }
    }
    false
}

/// Whether stat'ing `path` from the working directory, following
/// symlinks, fails with ELOOP.
fn too_many_links(path: &[u8]) -> bool {
    let Ok(c) = CString::new(path) else { return false };
    let mut st = ringio::sys::statx_zeroed();
    let r =
        ringio::sys::statx(libc::AT_FDCWD, &c, listing::open::FOLLOW, libc::STATX_TYPE, &mut st);
    r == Err(Errno(libc::ELOOP))
}

/// An entry's (dev, ino) and attributes, by the walker itself, for its
/// own checks (never shown to the visitor): AT_STATX_DONT_SYNC, so that a
/// network file system's mount point costs no round trip (an inode's
/// number and device are never stale; a FUSE root's other attributes may
/// be zero until asked for).
fn identity_of(dirfd: RawFd, rel: &[u8]) -> Option<Statx> {
    let c = CString::new(rel).ok()?;
    let mut st = ringio::sys::statx_zeroed();
    let mask = libc::STATX_TYPE | libc::STATX_INO;
    ringio::sys::statx(dirfd, &c, listing::open::LSTAT_ENTRY, mask, &mut st).ok()?;
    Some(st)
}

/// The position in the mount-point trie of `name` in `node`, as far as
/// `node`'s own is known without asking (see `trie_of`).
fn child_position<A>(node: &DirNode<A>, name: &[u8]) -> u32 {
    match node.trie.load(Ordering::Relaxed) {
        p @ (mounts::UNKNOWN | mounts::NONE) => p,
        p => mounts::table().and_then(|t| t.kid(p, name)).unwrap_or(mounts::NONE),
    }
}

/// `node`'s position in the mount-point trie `t`, working it (and its
/// ancestors') out where not known yet: a root's from its real path, a
/// directory's from its parent's and its name.
fn trie_of<A>(node: &Arc<DirNode<A>>, t: &mounts::Trie) -> u32 {
    let mut chain = Vec::new();
    let mut cur = node;
    let mut pos = loop {
        let p = cur.trie.load(Ordering::Relaxed);
        if p != mounts::UNKNOWN {
            break p;
        }
        chain.push(cur);
        match &cur.parent {
            Some(up) => cur = up,
            None => break mounts::UNKNOWN,
        }
    };
    for n in chain.into_iter().rev() {
        pos = match pos {
            mounts::UNKNOWN => mounts::root_position(t, &n.path),
            mounts::NONE => mounts::NONE,
            p => t.kid(p, n.name()).unwrap_or(mounts::NONE),
        };
        n.trie.store(pos, Ordering::Relaxed);
    }
    pos
}

/// A directory entry being checked against its ancestors: its (dev, ino)
/// when stat'ed, else the inode number getdents gave.
struct Child<'a> {
    dirfd: RawFd,
    rel: &'a [u8],
    ino: u64,
    id: Option<DevIno>,
}

impl Child<'_> {
    fn ino(&self) -> u64 {
        self.id.map_or(self.ino, |id| id.ino)
    }

    /// Its (dev, ino), stat'ed now if need be.
    fn id(&mut self) -> Option<DevIno> {
        if self.id.is_none() {
            self.id = identity_of(self.dirfd, self.rel).as_ref().map(DevIno::of);
        }
        self.id
    }
}

/// The ancestor of `child` (an entry of `node`, `node` included) that is
/// the same directory, looking only above depth `mount_at` (a cycle needs
/// a mount below the repeated directory). Identities not known from a stat
/// are compared by inode number first and stat'ed only when those agree.
fn same_as_ancestor<A: Send + Sync + 'static>(
    fds: &Fds,
    node: &Arc<DirNode<A>>,
    child: &mut Child,
    mount_at: usize,
) -> Option<Vec<u8>> {
    let mut cur = Some(node);
    while let Some(n) = cur {
        cur = n.parent.as_ref();
        if n.depth >= mount_at {
            continue;
        }
        let same = match (child.id, n.dev_ino()) {
            (Some(a), Some(b)) => a == b,
            (_, known) => {
                let ino = known.map_or(n.facts.ino, |id| id.ino);
                ino != 0
                    && ino == child.ino()
                    && child.id().is_some()
                    && child.id() == known.or_else(|| identity(fds, n))
            }
        };
        if same {
            return Some(n.path.clone());
        }
    }
    None
}

/// A walked directory's (dev, ino), from its descriptor.
fn identity<A: Send + Sync + 'static>(fds: &Fds, n: &Arc<DirNode<A>>) -> Option<DevIno> {
    let pin = dirs::pin(fds, None, n).ok()?;
    ringio::sys::fstatx(pin.fd, libc::STATX_INO).ok().as_ref().map(DevIno::of)
}

/// Tells the visitor every entry of `node`'s listing has been visited.
pub(crate) fn after_entries<V: Visitor>(fds: &Fds, node: &Node<V>, v: &V, local: &mut V::Local) {
    if v.dirfd_after_visit() {
        dirs::with_parent(fds, node, |dirfd, rel| {
            v.after_entries(local, &node.entry(dirfd, rel), &node.acc)
        });
    } else {
        v.after_entries(local, &node.entry(libc::AT_FDCWD, &node.path), &node.acc);
    }
}

/// One unit of `node`'s subtree is done; runs `leave` for every directory
/// this completes, innermost first, and closes their descriptors.
///
/// Where GNU's fts would go back up through `..` and check the parent
/// (see `DirNode::deep`), the directory's `..` is stat'ed on its
/// descriptor and compared with the parent the walk found it in: a
/// directory moved elsewhere during its walk ends the current root's walk
/// (`WalkError::Moved`), as fts_read then fails. Not where symlinks are
/// followed (fts then names everything by its whole path and never
/// climbs through `..`).
pub(crate) fn finish<V: Visitor>(
    fds: &Fds,
    node: Node<V>,
    v: &V,
    local: &mut V::Local,
    stop: &Stop,
) {
    let mut cur = node;
    loop {
        if !cur.finish_one() {
            return;
        }
        if !stop.is_set()
            && stop.ascent
            && cur.depth > 0
            && !cur.facts.followed
            && cur.deep.load(Ordering::Relaxed)
        {
            if let Err(errno) = still_in_parent(fds, &cur) {
                let err = WalkError::Moved { path: cur.path.clone(), errno };
                v.error(local, &err, Some(&cur.acc));
                stop.end_root();
            }
        }
        if !stop.is_set() {
            let parent_acc = cur.parent.as_ref().map(|p| &p.acc);
            if v.dirfd_after_visit() {
                dirs::with_parent(fds, &cur, |dirfd, rel| {
                    v.leave(local, &cur.entry(dirfd, rel), &cur.acc, parent_acc)
                });
            } else {
                v.leave(local, &cur.entry(libc::AT_FDCWD, &cur.path), &cur.acc, parent_acc);
            }
        }
        fds.finish(&cur);
        match cur.parent.clone() {
            Some(p) => cur = p,
            None => return,
        }
    }
}

/// Whether `node`'s `..` is still the parent the walk found it in: its
/// (dev, ino) when stat'ed, else the inode number getdents gave (which a
/// mount root's `..` can't be compared with). ENOENT when not, as fts says.
fn still_in_parent<A: Send + Sync + 'static>(
    fds: &Fds,
    node: &Arc<DirNode<A>>,
) -> Result<(), Errno> {
    let Some(parent) = node.parent.as_ref() else { return Ok(()) };
    let pin = dirs::pin(fds, None, node)?;
    let mut st = ringio::sys::statx_zeroed();
    let mask = libc::STATX_TYPE | libc::STATX_INO;
    // Only (dev, ino) are compared: AT_STATX_DONT_SYNC spares a network
    // file system the round trip.
    ringio::sys::statx(pin.fd, c"..", listing::open::LSTAT_ENTRY, mask, &mut st)?;
    let same = match parent.dev_ino() {
        Some(id) => DevIno::of(&st) == id,
        None => {
            parent.facts.ino == 0
                || st.stx_ino == parent.facts.ino
                || mounts::mount_root(&st) == Some(true)
        }
    };
    if same {
        Ok(())
    } else {
        Err(Errno::ENOENT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::dir_node;

    #[test]
    fn links_in_a_root_path() {
        let s = crate::testing::Scratch::new("step-links");
        std::fs::create_dir_all(s.join("a/b")).unwrap();
        std::os::unix::fs::symlink("a", s.join("l")).unwrap();
        let p = |r: &str| format!("{}/{r}", s.0.display()).into_bytes();
        assert!(!path_has_link(&p("a/b")));
        assert!(!path_has_link(&p("a//b/")));
        assert!(path_has_link(&p("l/b")));
        assert!(path_has_link(&p("l")));
        assert!(!path_has_link(b"/"));
        assert!(!path_has_link(b"."));
        // Can't be told: taken for one.
        assert!(path_has_link(&p("missing/x")));
    }

    #[test]
    fn own_descriptor_directories_by_path() {
        let me = std::process::id();
        let own = |p: &str| lists_own_fds(&*dir_node(p.as_bytes(), None, None, 0));
        for p in [
            format!("/proc/{me}/fd"),
            format!("/proc/{me}/fdinfo"),
            format!("/proc/{me}/task/{me}/fd"),
            format!("proc/{me}/task/1/fdinfo/"),
            "/proc/self/fd".into(),
            "/proc/self/task/7/fdinfo".into(),
            "/proc/thread-self/fd".into(),
        ] {
            assert!(own(&p), "{p}");
        }
        for p in [
            "/proc/1/fd".to_string(),
            format!("/proc/{me}/task/1/ns"),
            format!("/proc/{me}/net"),
            format!("/proc/{me}/x/1/fd"),
            "fd".into(),
            "/".into(),
        ] {
            assert!(!own(&p), "{p}");
        }
    }
}
