//! The steps both walk modes share: a root, a directory's listing, one
//! entry, and finishing a subtree.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ringio::{dtype, Errno};

use crate::node::{dev_ino, dtype_of, DirNode};
use crate::reader::{Listing, Reader, StatSlot};
use crate::{Entry, Options, Visit, Visitor, WalkError};

pub(crate) type Node<V> = Arc<DirNode<<V as Visitor>::Acc>>;

/// Stats and visits a root operand; returns its node if the walk descends.
pub(crate) fn root<V: Visitor>(
    rd: &mut Reader,
    path: &[u8],
    opts: &Options,
    v: &V,
    local: &mut V::Local,
    stop: &AtomicBool,
) -> Option<Node<V>> {
    let (st, err, followed) = match rd.stat_path(path, opts.follow_roots) {
        StatSlot::Ok { st, followed } => (Some(st), None, followed),
        StatSlot::Err(e) => {
            v.error(local, &WalkError::Root { path: path.to_vec(), errno: e }, None);
            return None;
        }
        StatSlot::None => (None, Some(Errno::EINVAL), false),
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
            stop.store(true, Ordering::Relaxed);
            None
        }
        Visit::Descend if d_type == dtype::DIR => {
            let acc = v.make_acc(&entry, None);
            Some(DirNode::from_entry(&entry, st, None, acc))
        }
        _ => None,
    }
}

/// Opens, reads and stats `node` into `list`. Returns false (after
/// reporting) when it could not be opened.
pub(crate) fn open_read<V: Visitor>(
    rd: &mut Reader,
    node: &Node<V>,
    list: &mut Listing,
    opts: &Options,
    v: &V,
    local: &mut V::Local,
) -> bool {
    let Some(fd) = open_list(rd, node, list, opts, v, local) else { return false };
    let depth = node.depth + 1;
    rd.stat(fd, list, |name, d_type| v.need_stat(name, d_type, depth));
    true
}

/// Opens and reads `node` into `list`, without stats. Returns the open
/// directory, or `None` (after reporting) when it could not be opened.
pub(crate) fn open_list<V: Visitor>(
    rd: &mut Reader,
    node: &Node<V>,
    list: &mut Listing,
    opts: &Options,
    v: &V,
    local: &mut V::Local,
) -> Option<RawFd> {
    let (base, name) = node.open_base();
    let fd = match rd.open_dir(base, name, node.followed) {
        Ok(fd) => fd,
        Err(e) => {
            list.clear();
            v.error(local, &WalkError::Open { path: node.path.clone(), errno: e }, Some(&node.acc));
            return None;
        }
    };
    node.set_fd(fd);
    let dev_size = node.stat.as_ref().map(|st| (dev_ino(st).0, st.stx_size));
    if let Err(e) = rd.read(fd, dev_size, list, opts.sort) {
        v.error(local, &WalkError::Read { path: node.path.clone(), errno: e }, Some(&node.acc));
    }
    Some(fd)
}

/// Visits entry `i` of `node`'s listing; returns the child to descend into.
pub(crate) fn entry<V: Visitor>(
    node: &Node<V>,
    list: &Listing,
    i: usize,
    path: &mut Vec<u8>,
    v: &V,
    local: &mut V::Local,
    stop: &AtomicBool,
) -> Option<Node<V>> {
    let name = list.name(i);
    path.clear();
    path.extend_from_slice(&node.path);
    if path.last() != Some(&b'/') {
        path.push(b'/');
    }
    let name_start = path.len();
    path.extend_from_slice(name);
    let raw = list.ents[i];
    // Borrowed: a statx is 256 bytes, and only directories keep a copy.
    let (st, stat_error, followed) = match &list.stats[i] {
        StatSlot::None => (None, None, false),
        StatSlot::Ok { st, followed } => (Some(st), None, *followed),
        StatSlot::Err(e) => (None, Some(*e), false),
    };
    let d_type = st.map_or(raw.d_type, dtype_of);
    // A followed link back to an ancestor is reported instead of visited,
    // as find -L and du -L do.
    if followed && d_type == dtype::DIR {
        if let Some(anc) = st.and_then(|s| loop_ancestor(node, dev_ino(s))) {
            let err = WalkError::Loop { path: path.clone(), ancestor: anc };
            v.error(local, &err, Some(&node.acc));
            return None;
        }
    }
    let e = Entry {
        path,
        name: &path[name_start..],
        depth: node.depth + 1,
        d_type,
        ino: raw.ino,
        stat: st,
        stat_error,
        followed,
        dirfd: node.fd(),
        rel_name: name,
        index: i,
    };
    match v.visit(local, &e, Some(&node.acc)) {
        Visit::Quit => {
            stop.store(true, Ordering::Relaxed);
            None
        }
        Visit::Descend if d_type == dtype::DIR => {
            let acc = v.make_acc(&e, Some(&node.acc));
            Some(DirNode::from_entry(&e, st.copied(), Some(Arc::clone(node)), acc))
        }
        _ => None,
    }
}

/// The path of the ancestor (or `node` itself) that is the same directory.
fn loop_ancestor<A>(node: &Arc<DirNode<A>>, id: (u64, u64)) -> Option<Vec<u8>> {
    let mut cur = Some(node);
    while let Some(n) = cur {
        if n.dev_ino() == Some(id) {
            return Some(n.path.clone());
        }
        cur = n.parent.as_ref();
    }
    None
}

/// Tells the visitor every entry of `node`'s listing has been visited.
pub(crate) fn after_entries<V: Visitor>(node: &Node<V>, v: &V, local: &mut V::Local) {
    v.after_entries(local, &node.entry(), &node.acc);
}

/// One unit of `node`'s subtree is done; runs `leave` for every directory
/// this completes, innermost first, and closes their descriptors.
pub(crate) fn finish<V: Visitor>(node: Node<V>, v: &V, local: &mut V::Local, stop: &AtomicBool) {
    let mut cur = node;
    loop {
        if !cur.finish_one() {
            return;
        }
        if !stop.load(Ordering::Relaxed) {
            v.leave(local, &cur.entry(), &cur.acc, cur.parent.as_ref().map(|p| &p.acc));
        }
        cur.close();
        match cur.parent.clone() {
            Some(p) => cur = p,
            None => return,
        }
    }
}
