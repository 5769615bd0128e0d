//! What the unit tests share: scratch directories, and directory nodes
//! built as the walk builds them.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use ringio::{dtype, Statx};

use crate::node::DirNode;
use crate::Entry;

pub(crate) use scratch::Scratch;

/// The statx of `p`, as the walker takes it.
pub(crate) fn stat_of(p: &Path) -> Statx {
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
    let mut st = ringio::sys::statx_zeroed();
    ringio::sys::statx(
        libc::AT_FDCWD,
        &c,
        libc::AT_SYMLINK_NOFOLLOW,
        libc::STATX_BASIC_STATS,
        &mut st,
    )
    .unwrap();
    st
}

/// A directory node for `path` (its last component is the name), under
/// `parent`, with the stat given, as the walk makes one from an entry.
pub(crate) fn dir_node(
    path: &[u8],
    parent: Option<&Arc<DirNode<u32>>>,
    stat: Option<Statx>,
    acc: u32,
) -> Arc<DirNode<u32>> {
    let depth = parent.map_or(0, |p| p.depth + 1);
    let e = dir_entry(path, parent.is_some(), depth);
    DirNode::from_entry(&e, stat, parent.cloned(), acc)
}

/// The entry of directory `path` at `depth`, not stat'ed, named by its
/// whole path; its name is the last component when `child`, else the
/// whole path (a root).
pub(crate) fn dir_entry(path: &[u8], child: bool, depth: usize) -> Entry<'_> {
    let start = if child { path.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1) } else { 0 };
    Entry {
        path,
        name: &path[start..],
        depth,
        d_type: dtype::DIR,
        ino: 0,
        stat: None,
        stat_error: None,
        followed: false,
        dirfd: libc::AT_FDCWD,
        rel_name: path,
        index: 0,
    }
}
