//! A directory being walked: its identity, descriptor and progress.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

use ringio::{DevIno, Errno, Statx};

use crate::fds::FdSlot;
use crate::Entry;

/// What the walk learned of an entry besides its path: what a directory
/// keeps while it is walked, and what the ranks of an `mpi` walk send each
/// other of every entry (`dist::wire`). An [`Entry`] borrows it.
#[derive(Clone)]
pub(crate) struct Facts {
    pub d_type: u8,
    pub ino: u64,
    /// Position in the parent's listing (0 for a root).
    pub index: usize,
    pub followed: bool,
    pub stat_error: Option<Errno>,
    pub stat: Option<Statx>,
}

impl Facts {
    /// The facts of `e`, with `stat` its stat kept.
    pub fn of(e: &Entry, stat: Option<Statx>) -> Facts {
        Facts {
            d_type: e.d_type,
            ino: e.ino,
            index: e.index,
            followed: e.followed,
            stat_error: e.stat_error,
            stat,
        }
    }

    /// The entry at `path` (its last component `name`) with these facts;
    /// `dirfd` and `rel_name` name it for dirfd-relative work.
    pub fn entry<'a>(
        &'a self,
        path: &'a [u8],
        name: &'a [u8],
        depth: usize,
        dirfd: RawFd,
        rel_name: &'a [u8],
    ) -> Entry<'a> {
        Entry {
            path,
            name,
            depth,
            d_type: self.d_type,
            ino: self.ino,
            stat: self.stat.as_ref(),
            stat_error: self.stat_error,
            followed: self.followed,
            dirfd,
            rel_name,
            index: self.index,
        }
    }
}

pub(crate) struct DirNode<A> {
    pub path: Vec<u8>,
    /// Where the last component starts in `path`.
    pub name_start: usize,
    pub depth: usize,
    pub facts: Facts,
    pub parent: Option<Arc<DirNode<A>>>,
    /// The open directory, when it is (see `fds`: within the walk's
    /// descriptor budget it stays open while its subtree is walked).
    pub slot: FdSlot,
    /// 1 for the directory's own listing + 1 per descended child whose
    /// subtree is not finished. At 0 the subtree is done: `leave` runs, the
    /// descriptor closes (children use it as their dirfd until they leave,
    /// so -execdir/-delete at post-order time stay dirfd-relative), and the
    /// parent is told.
    remaining: AtomicUsize,
    /// The depth of the deepest mount root from below the walk's root down
    /// to this directory (inclusive), or [`NO_MOUNT`]: only below a mount
    /// can a physical walk meet a directory again (see `mounts`).
    pub mount_at: usize,
    /// Its position in the mount-point trie (`mounts::NONE`, or
    /// `mounts::UNKNOWN` until asked).
    pub trie: AtomicU32,
    /// A directory four levels below it was opened. GNU's fts goes back up
    /// through `..` and checks it is still the parent it left (the walk
    /// otherwise continues in a directory moved elsewhere meanwhile)
    /// except where its ring of four kept descriptors still holds the
    /// parent's, which is lost exactly when the walk went four levels
    /// deeper; the walker checks in the same places (`step::finish`).
    pub deep: AtomicBool,
    /// Whether its path from the working directory runs through a
    /// symlink ([`LINKS`], [`NO_LINKS`]): for a directory, whether one was
    /// followed to reach it from its root; for a root, its own path, worked
    /// out when first asked ([`LINKS_UNKNOWN`] until then; see
    /// `step::links_above`).
    pub links: AtomicU8,
    /// The device it is on: its stat's, or, not stat'ed, its parent's when
    /// no mount root lies between (`mount_at` the parent's). What the
    /// end-of-directory hint needs (`step::dev_size`), so that a walk that
    /// stats nothing still skips the empty getdents64 per directory.
    pub dev: Option<u64>,
    pub acc: A,
}

pub(crate) const NO_LINKS: u8 = 0;
pub(crate) const LINKS: u8 = 1;
pub(crate) const LINKS_UNKNOWN: u8 = 2;

/// `mount_at` of a directory with no mount root above it in the walk.
pub(crate) const NO_MOUNT: usize = usize::MAX;

/// How far below a directory an opened one makes it check its parent
/// when it is left (GNU's fts: its descriptor ring's size).
const RING: usize = 4;

/// Pins and the descriptor registry hold the node itself: its slot is
/// inside it, not an allocation of its own.
impl<A: Send + Sync + 'static> crate::fds::Slotted for DirNode<A> {
    fn slot(&self) -> &FdSlot {
        &self.slot
    }
}

impl<A> DirNode<A> {
    /// A node for the directory `e` (as visited), with its accumulator.
    #[cfg(any(test, feature = "mpi"))]
    pub fn from_entry(
        e: &Entry,
        stat: Option<Statx>,
        parent: Option<Arc<DirNode<A>>>,
        acc: A,
    ) -> Arc<DirNode<A>> {
        let mount_at = parent.as_ref().map_or(NO_MOUNT, |p| p.mount_at);
        let links = match &parent {
            Some(p) if p.links.load(Ordering::Relaxed) == LINKS => LINKS,
            Some(_) => NO_LINKS,
            None => LINKS_UNKNOWN,
        };
        Self::with_mounts(e, stat, parent, acc, mount_at, crate::mounts::UNKNOWN, links)
    }

    /// A node for the directory `e`, as `from_entry` (tests and `mpi`
    /// builds) makes one, with what the walk found out on the way
    /// (`mount_at`, `trie`, `links`: see the fields).
    pub fn with_mounts(
        e: &Entry,
        stat: Option<Statx>,
        parent: Option<Arc<DirNode<A>>>,
        acc: A,
        mount_at: usize,
        trie: u32,
        links: u8,
    ) -> Arc<DirNode<A>> {
        let name_start = e.path.len() - e.name.len();
        if let Some(p) = &parent {
            p.remaining.fetch_add(1, Ordering::AcqRel);
        }
        let dev = match (&stat, &parent) {
            (Some(st), _) => Some(DevIno::of(st).dev),
            (None, Some(p)) if p.mount_at == mount_at => p.dev,
            (None, _) => None,
        };
        Arc::new(DirNode {
            path: e.path.to_vec(),
            name_start,
            depth: e.depth,
            facts: Facts::of(e, stat),
            parent,
            slot: FdSlot::default(),
            remaining: AtomicUsize::new(1),
            mount_at,
            trie: AtomicU32::new(trie),
            deep: AtomicBool::new(false),
            links: AtomicU8::new(links),
            dev,
            acc,
        })
    }

    /// The directory was opened: the one [`RING`] levels above it will
    /// check its parent when it is left (see `deep`). Earlier ones were
    /// marked when the directories between were opened.
    pub fn opened(&self) {
        let mut up = self.parent.as_ref();
        for _ in 1..RING {
            up = up.and_then(|p| p.parent.as_ref());
        }
        if let Some(a) = up {
            if !a.deep.load(Ordering::Relaxed) {
                a.deep.store(true, Ordering::Relaxed);
            }
        }
    }

    pub fn name(&self) -> &[u8] {
        &self.path[self.name_start..]
    }

    /// The path of this directory relative to its ancestor `anc`.
    pub fn rel_to<'a>(&'a self, anc: &DirNode<A>) -> &'a [u8] {
        let rest = &self.path[anc.path.len()..];
        if anc.path.last() == Some(&b'/') {
            rest
        } else {
            &rest[1..]
        }
    }

    /// (st_dev, st_ino) when stat'ed.
    pub fn dev_ino(&self) -> Option<DevIno> {
        self.facts.stat.as_ref().map(DevIno::of)
    }

    /// The node as an `Entry` (for `after_entries` and `leave`), its
    /// `dirfd` and `rel_name` given by the caller (the parent's pinned
    /// descriptor and the name, or `AT_FDCWD` and the path).
    pub fn entry<'a>(&'a self, dirfd: RawFd, rel_name: &'a [u8]) -> Entry<'a> {
        self.facts.entry(&self.path, self.name(), self.depth, dirfd, rel_name)
    }

    /// Marks one unit of this subtree done. Returns true if it was the last,
    /// in which case the caller runs `leave`, then closes the descriptor
    /// (`Fds::finish`), then finishes the parent.
    pub fn finish_one(&self) -> bool {
        self.remaining.fetch_sub(1, Ordering::AcqRel) == 1
    }
}

/// The d_type matching a stat's file type.
pub(crate) fn dtype_of(st: &Statx) -> u8 {
    ringio::dtype::from_mode(st.stx_mode as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{dir_entry, dir_node};

    #[test]
    fn a_directory_not_stated_is_on_its_parents_device_unless_a_mount_root_lies_between() {
        let on = |major, minor| {
            let mut st = ringio::sys::statx_zeroed();
            (st.stx_dev_major, st.stx_dev_minor) = (major, minor);
            st
        };
        let (disk, other) = (on(8, 1), on(0, 50));
        let root = dir_node(b"r", None, Some(disk), 0);
        assert_eq!(root.dev, Some(DevIno::of(&disk).dev));
        let a = dir_node(b"r/a", Some(&root), None, 0);
        assert_eq!(a.dev, root.dev, "no mount between: the parent's device");
        // A mount root at depth 2 (its `mount_at`), not stat'ed: unknown,
        // and so below it, until a stat says.
        let entry = |path, depth| dir_entry(path, true, depth);
        let links = NO_LINKS;
        let m = DirNode::with_mounts(&entry(b"r/a/m", 2), None, Some(a.clone()), 0, 2, 0, links);
        assert_eq!(m.dev, None);
        let below =
            DirNode::with_mounts(&entry(b"r/a/m/x", 3), None, Some(m.clone()), 0, 2, 0, links);
        assert_eq!(below.dev, None);
        let seen =
            DirNode::with_mounts(&entry(b"r/a/m/y", 3), Some(other), Some(m), 0, 2, 0, links);
        assert_eq!(seen.dev, Some(DevIno::of(&other).dev));
        let deeper = dir_node(b"r/a/m/y/z", Some(&seen), None, 0);
        assert_eq!(deeper.dev, seen.dev);
    }

    #[test]
    fn names_and_relative_paths() {
        let root = dir_node(b"/", None, None, 0);
        let a = dir_node(b"/a", Some(&root), None, 1);
        let b = dir_node(b"/a/bb", Some(&a), None, 2);
        assert_eq!(root.name(), b"/");
        assert_eq!(a.name(), b"a");
        assert_eq!(b.name(), b"bb");
        assert_eq!(b.depth, 2);
        // A root ending in '/' has no separator after it to skip.
        assert_eq!(b.rel_to(&root), b"a/bb");
        assert_eq!(b.rel_to(&a), b"bb");
        let top = dir_node(b"t", None, None, 0);
        let c = dir_node(b"t/c", Some(&top), None, 0);
        let d = dir_node(b"t/c/d", Some(&c), None, 0);
        assert_eq!(d.rel_to(&top), b"c/d");
        assert_eq!(top.name(), b"t");
    }

    #[test]
    fn a_subtree_finishes_when_its_last_child_does() {
        let root = dir_node(b"r", None, None, 0);
        let a = dir_node(b"r/a", Some(&root), None, 0);
        let b = dir_node(b"r/b", Some(&root), None, 0);
        // The root's own listing, then each child.
        assert!(!root.finish_one());
        assert!(a.finish_one());
        assert!(!root.finish_one());
        assert!(b.finish_one());
        assert!(root.finish_one());
    }

    #[test]
    fn opening_marks_the_directory_four_levels_up() {
        let mut chain = vec![dir_node(b"r", None, None, 0)];
        for i in 1..=6 {
            let path = format!("r{}", "/d".repeat(i));
            let n = dir_node(path.as_bytes(), Some(&chain[i - 1]), None, 0);
            chain.push(n);
        }
        let deep = |c: &[std::sync::Arc<super::DirNode<u32>>]| -> Vec<bool> {
            c.iter().map(|n| n.deep.load(std::sync::atomic::Ordering::Relaxed)).collect()
        };
        for n in &chain[..4] {
            n.opened();
        }
        assert_eq!(deep(&chain), [false; 7]);
        chain[4].opened();
        assert_eq!(deep(&chain), [true, false, false, false, false, false, false]);
        chain[6].opened();
        assert_eq!(deep(&chain), [true, false, true, false, false, false, false]);
    }

    #[test]
    fn dev_ino_comes_from_the_stat() {
        let s = crate::testing::Scratch::new("node");
        let st = crate::testing::stat_of(&s.0);
        let n = dir_node(b"x", None, Some(st), 0);
        let id = n.dev_ino().unwrap();
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(&s.0).unwrap();
        assert_eq!((id.dev, id.ino), (m.dev(), m.ino()));
        assert_eq!(super::dtype_of(&st), ringio::dtype::DIR);
        assert!(dir_node(b"y", None, None, 0).dev_ino().is_none());
    }
}
