//! A directory being walked: its identity, descriptor and progress.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::Arc;

use ringio::{Errno, Statx};

use crate::Entry;

pub(crate) struct DirNode<A> {
    pub path: Vec<u8>,
    /// Where the last component starts in `path`.
    pub name_start: usize,
    pub depth: usize,
    pub d_type: u8,
    pub ino: u64,
    pub stat: Option<Statx>,
    pub stat_error: Option<Errno>,
    pub followed: bool,
    /// Position in the parent's listing (0 for a root).
    pub index: usize,
    pub parent: Option<Arc<DirNode<A>>>,
    /// The open directory, -1 before it is opened or after it is closed.
    fd: AtomicI32,
    /// 1 for the directory's own listing + 1 per descended child whose
    /// subtree is not finished. At 0 the subtree is done: `leave` runs, the
    /// descriptor closes (children use it as their dirfd until they leave,
    /// so -execdir/-delete at post-order time stay dirfd-relative), and the
    /// parent is told.
    remaining: AtomicUsize,
    pub acc: A,
}

impl<A> DirNode<A> {
    /// A node for the directory `e` (as visited), with its accumulator.
    pub fn from_entry(
        e: &Entry,
        stat: Option<Statx>,
        parent: Option<Arc<DirNode<A>>>,
        acc: A,
    ) -> Arc<DirNode<A>> {
        let name_start = e.path.len() - e.name.len();
        Self::new(
            e.path.to_vec(),
            name_start,
            e.depth,
            e.d_type,
            e.ino,
            stat,
            e.stat_error,
            e.followed,
            e.index,
            parent,
            acc,
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(
        path: Vec<u8>,
        name_start: usize,
        depth: usize,
        d_type: u8,
        ino: u64,
        stat: Option<Statx>,
        stat_error: Option<Errno>,
        followed: bool,
        index: usize,
        parent: Option<Arc<DirNode<A>>>,
        acc: A,
    ) -> Arc<DirNode<A>> {
        if let Some(p) = &parent {
            p.remaining.fetch_add(1, Ordering::AcqRel);
        }
        Arc::new(DirNode {
            path,
            name_start,
            depth,
            d_type,
            ino,
            stat,
            stat_error,
            followed,
            index,
            parent,
            fd: AtomicI32::new(-1),
            remaining: AtomicUsize::new(1),
            acc,
        })
    }

    pub fn name(&self) -> &[u8] {
        &self.path[self.name_start..]
    }

    pub fn fd(&self) -> RawFd {
        self.fd.load(Ordering::Acquire)
    }

    pub fn set_fd(&self, fd: RawFd) {
        self.fd.store(fd, Ordering::Release);
    }

    /// Where to open this directory from: the parent's descriptor and the
    /// name, or the full path when there is no open parent (roots).
    pub fn open_base(&self) -> (RawFd, &[u8]) {
        match &self.parent {
            Some(p) if p.fd() >= 0 => (p.fd(), self.name()),
            _ => (libc::AT_FDCWD, &self.path),
        }
    }

    /// (st_dev, st_ino) when stat'ed.
    pub fn dev_ino(&self) -> Option<(u64, u64)> {
        self.stat.as_ref().map(dev_ino)
    }

    /// The node as an `Entry` for `leave`.
    pub fn entry(&self) -> Entry<'_> {
        let (dirfd, rel_name) = self.open_base();
        Entry {
            path: &self.path,
            name: self.name(),
            depth: self.depth,
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

    /// Marks one unit of this subtree done. Returns true if it was the last,
    /// in which case the caller runs `leave`, then [`DirNode::close`], then
    /// finishes the parent.
    pub fn finish_one(&self) -> bool {
        self.remaining.fetch_sub(1, Ordering::AcqRel) == 1
    }

    pub fn close(&self) {
        let fd = self.fd.swap(-1, Ordering::AcqRel);
        if fd >= 0 {
            let _ = ringio::sys::close(fd);
        }
    }
}

pub(crate) fn dev_ino(st: &Statx) -> (u64, u64) {
    (libc::makedev(st.stx_dev_major, st.stx_dev_minor), st.stx_ino)
}

/// The d_type matching a stat's file type.
pub(crate) fn dtype_of(st: &Statx) -> u8 {
    ringio::dtype::from_mode(st.stx_mode as u32)
}
