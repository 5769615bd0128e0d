//! Opening and reopening directory nodes within the descriptor budget
//! (see `fds`): a pinned descriptor for a node, from its own slot when it
//! is open, else opened relative to the nearest open ancestor, in hops
//! that each stay well inside PATH_MAX.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use listing::open::dir_plain;
use std::sync::Arc;

use ringio::{DevIno, Errno};

pub(crate) use crate::fds::Pinned;
use crate::fds::{exhausted, Fds};
use crate::node::DirNode;
use crate::reader::Reader;

/// Longest relative path one reopening hop resolves (PATH_MAX is 4096
/// with the NUL).
const MAX_HOP: usize = 3072;
/// How often an open that fails with EMFILE is retried after closing an
/// idle descriptor (or, with none idle, after a moment for other threads
/// to finish with theirs).
const EMFILE_RETRIES: usize = 200;

/// Pins `node`'s descriptor, opening it (first time) or reopening it
/// (after it was closed for the budget) as needed. `rd` opens through the
/// thread's engine when given; reopening hops use plain syscalls.
pub(crate) fn pin<A: Send + Sync + 'static>(
    fds: &Fds,
    mut rd: Option<&mut Reader>,
    node: &Arc<DirNode<A>>,
) -> Result<Pinned, Errno> {
    if let Some(fd) = node.slot.try_pin(fds.tick()) {
        return Ok(Pinned::slot(node, fd));
    }
    // The common case: a directory opened for the first time (to be
    // listed), by its name, relative to its open parent. The walker
    // registers it if it stays open after its listing (`Fds::keep`).
    if let Some(p) = node.parent.as_ref().filter(|_| !node.slot.was_opened()) {
        if let Some(parent) = p.slot.pin_for(fds.tick()) {
            let fd = open_dir(fds, rd, parent.fd, node.name(), node.facts.followed)?;
            return Ok(fds.adopt_listing(node, fd));
        }
    }
    // The closed directories from `node` up to the nearest open ancestor
    // (exclusive), or to the root operand.
    let mut chain: Vec<&Arc<DirNode<A>>> = vec![node];
    let mut base: Option<(Pinned, &Arc<DirNode<A>>)> = None;
    let mut up = node.parent.as_ref();
    while let Some(p) = up {
        if let Some(fd) = p.slot.try_pin(fds.tick()) {
            base = Some((Pinned::slot(p, fd), p));
            break;
        }
        chain.push(p);
        up = p.parent.as_ref();
    }
    let mut cur = base;
    let mut idx = chain.len() - 1;
    loop {
        // The deepest directory reachable from `cur` in one hop (always at
        // least the next one).
        let from = cur.as_ref().map_or(0, |(_, a)| a.path.len());
        let mut j = idx;
        while j > 0 && chain[j - 1].path.len() - from <= MAX_HOP {
            j -= 1;
        }
        let target = chain[j];
        let (dirfd, rel): (RawFd, &[u8]) = match &cur {
            Some((p, anc)) => (p.fd, target.rel_to(anc)),
            None => (libc::AT_FDCWD, &target.path),
        };
        // Reopened (or reached through several components): make sure it
        // is still the directory the walk saw.
        let verify = target.slot.was_opened() || rel.contains(&b'/');
        let fd = open_dir(
            fds,
            rd.as_deref_mut().filter(|_| !verify),
            dirfd,
            rel,
            target.facts.followed,
        )?;
        if verify {
            same_directory(fd.as_raw_fd(), target)?;
        }
        let pinned = fds.adopt(target, fd);
        if j == 0 {
            return Ok(pinned);
        }
        cur = Some((pinned, target));
        idx = j - 1;
    }
}

/// Opens a directory, retrying after EMFILE/ENFILE with an idle kept
/// descriptor closed. O_NOFOLLOW unless `follow`, so a symlink swapped in
/// for a directory mid-walk is not entered.
fn open_dir(
    fds: &Fds,
    mut rd: Option<&mut Reader>,
    dirfd: RawFd,
    rel: &[u8],
    follow: bool,
) -> Result<OwnedFd, Errno> {
    let mut tries = 0;
    loop {
        let r = match rd.as_deref_mut() {
            Some(rd) => rd.open_dir(dirfd, rel, follow),
            None => dir_plain(dirfd, rel, follow),
        };
        match r {
            Err(e) if exhausted(e) && tries < EMFILE_RETRIES => {
                tries += 1;
                if !fds.relieve() {
                    // Every kept descriptor is in use by another thread
                    // right now; they are released within moments.
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
            r => return r,
        }
    }
}

/// Whether `fd` is the directory `node` describes: its (dev, ino) when the
/// walk stat'ed it, else the inode number getdents gave (not comparable on
/// a mount point, whose entry shows the covered directory's inode).
fn same_directory<A>(fd: RawFd, node: &DirNode<A>) -> Result<(), Errno> {
    if node.facts.stat.is_none() && node.facts.ino == 0 {
        // Nothing known to compare with (an MPI rank's stolen directory):
        // the stat would be a request for nothing.
        return Ok(());
    }
    let st = ringio::sys::fstatx(fd, libc::STATX_INO | libc::STATX_TYPE)?;
    let same = match node.dev_ino() {
        Some(id) => DevIno::of(&st) == id,
        None => {
            node.facts.ino == 0
                || st.stx_ino == node.facts.ino
                || crate::mounts::mount_root(&st) == Some(true)
        }
    };
    if same {
        Ok(())
    } else {
        Err(Errno::ENOENT)
    }
}

/// Runs `f` with the base `node` is named relative to — its parent's
/// pinned descriptor and its name — for `after_entries` and `leave`. A
/// root, or a parent that can no longer be opened, gives `AT_FDCWD` and
/// the whole path.
pub(crate) fn with_parent<A: Send + Sync + 'static, R>(
    fds: &Fds,
    node: &Arc<DirNode<A>>,
    f: impl FnOnce(RawFd, &[u8]) -> R,
) -> R {
    if let Some(p) = &node.parent {
        if let Ok(pin) = pin(fds, None, p) {
            return f(pin.fd, node.name());
        }
    }
    f(libc::AT_FDCWD, &node.path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{dir_node, stat_of, Scratch};

    /// The (dev, ino) of an open descriptor.
    fn id_of(fd: RawFd) -> DevIno {
        DevIno::of(&ringio::sys::fstatx(fd, libc::STATX_INO).unwrap())
    }

    #[test]
    fn pins_open_reopen_and_verify() {
        let s = Scratch::new("dirs");
        std::fs::create_dir_all(s.join("a/b/c")).unwrap();
        let fds = Fds::new(1);
        let root = dir_node(&s.join_bytes(""), None, Some(stat_of(&s.0)), 0);
        let a = dir_node(&s.join_bytes("a"), Some(&root), Some(stat_of(&s.join("a"))), 0);
        let b = dir_node(&s.join_bytes("a/b"), Some(&a), Some(stat_of(&s.join("a/b"))), 0);
        let c = dir_node(&s.join_bytes("a/b/c"), Some(&b), None, 0);

        // Nothing open yet: `c` is reached from the cwd in one hop.
        let pc = pin(&fds, None, &c).unwrap();
        assert_eq!(id_of(pc.fd), DevIno::of(&stat_of(&s.join("a/b/c"))));
        let fd_c = pc.fd;
        drop(pc);
        // Already open: the same descriptor, pinned again.
        assert_eq!(pin(&fds, None, &c).unwrap().fd, fd_c);

        // A directory replaced since the walk saw it: reached through
        // several components, it is checked, and refused.
        std::fs::rename(s.join("a"), s.join("old")).unwrap();
        std::fs::create_dir_all(s.join("a/b")).unwrap();
        assert_eq!(pin(&fds, None, &b).err(), Some(Errno::ENOENT));
        assert_eq!(pin(&fds, None, &a).err(), Some(Errno::ENOENT));

        // Opened the first time by its name relative to its open parent,
        // it is taken as it is (the walk just listed it there)…
        let pr = pin(&fds, None, &root).unwrap();
        let a2 = dir_node(&s.join_bytes("a"), Some(&root), Some(stat_of(&s.join("old"))), 0);
        let pa = pin(&fds, None, &a2).unwrap();
        assert_eq!(id_of(pa.fd), DevIno::of(&stat_of(&s.join("a"))));
        drop(pa);
        drop(pr);
        // …but once its descriptor was closed, a reopen is checked.
        assert!(a2.slot.try_evict());
        assert_eq!(pin(&fds, None, &a2).err(), Some(Errno::ENOENT));
        for n in [&c, &b, &a, &a2, &root] {
            fds.finish(n);
        }
    }

    #[test]
    fn with_parent_names_by_parent_or_path() {
        let s = Scratch::new("dirs-parent");
        std::fs::create_dir_all(s.join("x/y")).unwrap();
        let fds = Fds::new(1);
        let root = dir_node(&s.join_bytes(""), None, None, 0);
        let x = dir_node(&s.join_bytes("x"), Some(&root), None, 0);
        let y = dir_node(&s.join_bytes("x/y"), Some(&x), None, 0);
        let (dirfd, rel) = with_parent(&fds, &y, |fd, rel| (id_of(fd), rel.to_vec()));
        assert_eq!(dirfd, DevIno::of(&stat_of(&s.join("x"))));
        assert_eq!(rel, b"y");
        // A root has no parent: named by its path.
        let (dirfd, rel) = with_parent(&fds, &root, |fd, rel| (fd, rel.to_vec()));
        assert_eq!((dirfd, rel), (libc::AT_FDCWD, s.join_bytes("")));
        // A parent that can't be opened any more: the whole path.
        assert!(x.slot.try_evict());
        std::fs::rename(s.join("x"), s.join("moved")).unwrap();
        let (dirfd, rel) = with_parent(&fds, &y, |fd, rel| (fd, rel.to_vec()));
        assert_eq!((dirfd, rel), (libc::AT_FDCWD, s.join_bytes("x/y")));
        for n in [&y, &x, &root] {
            fds.finish(n);
        }
    }
}
