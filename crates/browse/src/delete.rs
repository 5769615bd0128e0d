//! Deleting an entry of the scanned tree: `rm -r`'s job, done so that it
//! can only ever remove what the scan saw.
//!
//! - Every directory on the way is opened from its parent's descriptor
//!   with `O_NOFOLLOW | O_DIRECTORY` and its device and inode checked
//!   against the scan, from the operand down: a directory swapped for a
//!   symlink, renamed over, or mounted on is refused, never followed.
//! - Inside, only the entries the scan recorded are removed, each checked
//!   first (`statx` without following, the same device and inode, still
//!   not a directory if it wasn't one); whatever else is there now (made
//!   after the scan, or changed) stays, and so does its directory.
//! - Directories on another file system than the one deleted from are not
//!   entered; neither are entries `--exclude` kept out of the scan.
//! - Removals go through the engine: each directory's checks in one batch,
//!   its unlinks in the next (`unlinkat`, never following a symlink, the
//!   parent pinned by its descriptor).
//! - Only what was removed is subtracted from the totals.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use ringio::{DevIno, Engine, Errno};

use crate::tree::{flag, Delta, Idx, Tree};

/// What went wrong for one entry; its path is relative to the operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeleteError {
    /// Not what the scan saw any more (another inode, a symlink where a
    /// directory was): left alone.
    Changed { path: Vec<u8>, now: &'static str },
    /// On another file system than the entry deleted: left alone.
    OtherFs { path: Vec<u8> },
    /// Kept out of the scan (`--exclude`, `-x`): never looked at, left.
    NotScanned { path: Vec<u8> },
    /// A system call failed.
    Io { path: Vec<u8>, op: &'static str, errno: Errno },
}

impl DeleteError {
    pub fn message(&self) -> String {
        let p = |b: &[u8]| crate::view::safe_name(b);
        match self {
            DeleteError::Changed { path, now } => {
                format!("{}: changed since the scan ({now}): left alone", p(path))
            }
            DeleteError::OtherFs { path } => {
                format!("{}: on another file system: left alone", p(path))
            }
            DeleteError::NotScanned { path } => {
                format!("{}: not part of the scan (excluded): left alone", p(path))
            }
            DeleteError::Io { path, op, errno } => {
                format!("{}: cannot {op}: {}", p(path), errno.message())
            }
        }
    }
}

/// What a deletion did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// What the removed entries counted for (negative).
    pub delta: Delta,
    /// Entries removed.
    pub removed: u64,
    pub errors: Vec<DeleteError>,
    /// The entry itself is gone.
    pub done: bool,
}

/// Everything needed to find the entry on disk again.
pub struct Target<'a> {
    /// The operand as it was walked.
    pub root_path: &'a [u8],
    /// The directories from the root (first) to the entry's parent (last).
    pub chain: &'a [Idx],
    pub entry: Idx,
}

const MASK: u32 = libc::STATX_TYPE | libc::STATX_INO;

fn is_dir(st: &ringio::Statx) -> bool {
    st.stx_mode as u32 & libc::S_IFMT == libc::S_IFDIR
}

fn cstr(b: &[u8]) -> Result<std::ffi::CString, Errno> {
    std::ffi::CString::new(b).map_err(|_| Errno(libc::EINVAL))
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if dir.is_empty() {
        return name.to_vec();
    }
    let mut p = dir.to_vec();
    p.push(b'/');
    p.extend_from_slice(name);
    p
}

/// Opens directory `name` of `dirfd` (never through a symlink) and checks
/// it is the scanned node `i`.
fn open_checked(
    tree: &Tree,
    dirfd: RawFd,
    name: &[u8],
    i: Idx,
    path: &[u8],
    follow: bool,
) -> Result<OwnedFd, DeleteError> {
    let io = |op, errno| DeleteError::Io { path: path.to_vec(), op, errno };
    let c = cstr(name).map_err(|e| io("open", e))?;
    let mut flags = libc::O_RDONLY | libc::O_DIRECTORY;
    if !follow {
        flags |= libc::O_NOFOLLOW;
    }
    let fd = match ringio::sys::openat_owned(dirfd, &c, flags, 0) {
        Ok(fd) => fd,
        Err(e) if e == Errno::ELOOP || e == Errno::ENOTDIR => {
            return Err(DeleteError::Changed { path: path.to_vec(), now: "not a directory" })
        }
        Err(e) => return Err(io("open", e)),
    };
    let st = ringio::sys::fstatx(fd.as_raw_fd(), MASK).map_err(|e| io("stat", e))?;
    let id = DevIno::of(&st);
    if id.ino != tree.node(i).ino || id.dev != tree.dev(i) {
        return Err(DeleteError::Changed { path: path.to_vec(), now: "another directory" });
    }
    Ok(fd)
}

/// Deletes `t.entry` (a file, or a directory with everything the scan
/// found in it) and updates the totals of every directory above it.
pub fn delete(tree: &mut Tree, t: &Target, eng: &mut Engine) -> Outcome {
    let mut out = Outcome::default();
    let Some((&root, rest)) = t.chain.split_first() else {
        return out;
    };
    // The operand itself may be a symlink the scan followed (-H, -L); below
    // it nothing is followed.
    let mut dir = match open_checked(tree, libc::AT_FDCWD, t.root_path, root, b".", true) {
        Ok(fd) => fd,
        Err(e) => {
            out.errors.push(e);
            return out;
        }
    };
    let mut path = Vec::new();
    for &d in rest {
        let name = tree.name(d).to_vec();
        path = join(&path, &name);
        match open_checked(tree, dir.as_raw_fd(), &name, d, &path, false) {
            Ok(fd) => dir = fd,
            Err(e) => {
                out.errors.push(e);
                return out;
            }
        }
    }
    let mut d = Deleter { tree, eng, out, dev: 0 };
    let e = t.entry;
    let name = d.tree.name(e).to_vec();
    let epath = join(&path, &name);
    let node = *d.tree.node(e);
    d.dev = d.tree.dev(e);
    let mut delta = Delta::default();
    if node.is_dir() {
        d.dir(dir.as_raw_fd(), &name, e, &epath, &mut delta);
    } else {
        d.files(dir.as_raw_fd(), &[(e, name)], &path, &mut delta);
    }
    let mut out = d.out;
    out.done = tree.node(e).has(flag::GONE);
    tree.add_to(t.chain, delta);
    out.delta = delta;
    out
}

/// A directory being emptied.
struct Frame {
    fd: OwnedFd,
    node: Idx,
    name: Vec<u8>,
    path: Vec<u8>,
    subdirs: Vec<Idx>,
    delta: Delta,
}

struct Deleter<'t, 'e> {
    tree: &'t mut Tree,
    eng: &'e mut Engine,
    out: Outcome,
    /// The file system deleted from.
    dev: u64,
}

impl Deleter<'_, '_> {
    fn gone(&mut self, i: Idx, delta: &mut Delta) {
        let d = Delta::removing(self.tree.node(i));
        delta.dsize += d.dsize;
        delta.asize += d.asize;
        delta.items += d.items;
        self.tree.node_mut(i).flags |= flag::GONE;
        self.out.removed += 1;
    }

    /// Removes the non-directories `files` of the directory `dirfd` (at
    /// `dir_path`): one batch of checks, one of unlinks.
    fn files(
        &mut self,
        dirfd: RawFd,
        files: &[(Idx, Vec<u8>)],
        dir_path: &[u8],
        delta: &mut Delta,
    ) {
        for (k, (_, name)) in files.iter().enumerate() {
            self.eng.statx(k as u64, dirfd, name, libc::AT_SYMLINK_NOFOLLOW, MASK);
        }
        let mut done = Vec::with_capacity(files.len());
        while self.eng.outstanding() > 0 {
            self.eng.wait(1, &mut done);
        }
        let mut go = Vec::new();
        for c in &done {
            let (i, name) = &files[c.token as usize];
            let path = join(dir_path, name);
            match c.stat() {
                Ok(st) => {
                    let id = DevIno::of(st);
                    if is_dir(st) {
                        self.out.errors.push(DeleteError::Changed { path, now: "a directory" });
                    } else if id.ino != self.tree.node(*i).ino || id.dev != self.tree.dev(*i) {
                        self.out.errors.push(DeleteError::Changed { path, now: "another file" });
                    } else {
                        go.push(c.token as usize);
                    }
                }
                Err(e) => self.out.errors.push(DeleteError::Io { path, op: "stat", errno: e }),
            }
        }
        for &k in &go {
            self.eng.unlinkat(k as u64, dirfd, &files[k].1, 0);
        }
        done.clear();
        while self.eng.outstanding() > 0 {
            self.eng.wait(1, &mut done);
        }
        for c in &done {
            let (i, name) = &files[c.token as usize];
            match c.result {
                Ok(_) => self.gone(*i, delta),
                Err(e) => self.out.errors.push(DeleteError::Io {
                    path: join(dir_path, name),
                    op: "remove",
                    errno: e,
                }),
            }
        }
    }

    /// Removes the scanned contents of directory `i` (named `name` in
    /// `parent`), then the directory itself if that emptied it. Subtrees
    /// are walked with an explicit stack, so depth costs no call stack.
    fn dir(&mut self, parent: RawFd, name: &[u8], i: Idx, path: &[u8], delta: &mut Delta) {
        let fd = match open_checked(self.tree, parent, name, i, path, false) {
            Ok(fd) => fd,
            Err(e) => {
                self.out.errors.push(e);
                return;
            }
        };
        let mut stack = vec![self.frame(fd, i, name.to_vec(), path.to_vec())];
        // The parent's descriptor for each frame's rmdir: the frame below
        // it, or `parent` for the first.
        while let Some(top) = stack.last_mut() {
            if let Some(sub) = top.subdirs.pop() {
                let sname = self.tree.name(sub).to_vec();
                let spath = join(&top.path, &sname);
                if self.tree.dev(sub) != self.dev {
                    self.out.errors.push(DeleteError::OtherFs { path: spath });
                    continue;
                }
                match open_checked(self.tree, top.fd.as_raw_fd(), &sname, sub, &spath, false) {
                    Ok(fd) => {
                        let f = self.frame(fd, sub, sname, spath);
                        stack.push(f);
                    }
                    Err(e) => self.out.errors.push(e),
                }
                continue;
            }
            let f = stack.pop().expect("the top");
            let pfd = stack.last().map_or(parent, |p| p.fd.as_raw_fd());
            drop(f.fd);
            // Its contents' removal first, so what is left of its total is
            // what its own removal takes.
            let n = self.tree.node_mut(f.node);
            n.dsize = n.dsize.saturating_add_signed(f.delta.dsize);
            n.asize = n.asize.saturating_add_signed(f.delta.asize);
            n.items = n.items.saturating_add_signed(f.delta.items);
            let mut d = f.delta;
            self.eng.unlinkat(0, pfd, &f.name, libc::AT_REMOVEDIR);
            let mut c = Vec::new();
            while self.eng.outstanding() > 0 {
                self.eng.wait(1, &mut c);
            }
            match c.first().map(|c| c.result) {
                Some(Ok(_)) => {
                    let mut own = Delta::default();
                    self.gone(f.node, &mut own);
                    d.dsize += own.dsize;
                    d.asize += own.asize;
                    d.items += own.items;
                }
                // What keeps it is reported where it was met, unless it is
                // something the scan never saw.
                Some(Err(e))
                    if (e == Errno(libc::ENOTEMPTY) || e == Errno(libc::EEXIST))
                        && self.out.errors.iter().any(|x| within(x, &f.path)) => {}
                Some(Err(e)) if e == Errno(libc::ENOTEMPTY) || e == Errno(libc::EEXIST) => {
                    self.out.errors.push(DeleteError::Io {
                        path: f.path.clone(),
                        op: "remove (it holds entries made after the scan)",
                        errno: e,
                    });
                }
                Some(Err(e)) => self.out.errors.push(DeleteError::Io {
                    path: f.path.clone(),
                    op: "remove",
                    errno: e,
                }),
                None => {}
            }
            match stack.last_mut() {
                Some(p) => {
                    p.delta.dsize += d.dsize;
                    p.delta.asize += d.asize;
                    p.delta.items += d.items;
                }
                None => {
                    delta.dsize += d.dsize;
                    delta.asize += d.asize;
                    delta.items += d.items;
                }
            }
        }
    }
}

fn within(e: &DeleteError, dir: &[u8]) -> bool {
    let p = match e {
        DeleteError::Changed { path, .. }
        | DeleteError::OtherFs { path }
        | DeleteError::NotScanned { path }
        | DeleteError::Io { path, .. } => path,
    };
    p.starts_with(dir) && (p.len() == dir.len() || p.get(dir.len()) == Some(&b'/'))
}

impl Deleter<'_, '_> {
    /// A directory opened: its files are removed at once, its
    /// subdirectories wait on the frame.
    fn frame(&mut self, fd: OwnedFd, node: Idx, name: Vec<u8>, path: Vec<u8>) -> Frame {
        let mut files = Vec::new();
        let mut subdirs = Vec::new();
        let kids: Vec<Idx> = self.tree.kids(node).collect();
        for k in kids {
            let n = self.tree.node(k);
            if n.has(flag::EXCLUDED) || n.has(flag::OTHER_FS) {
                let p = join(&path, self.tree.name(k));
                self.out.errors.push(if n.has(flag::OTHER_FS) {
                    DeleteError::OtherFs { path: p }
                } else {
                    DeleteError::NotScanned { path: p }
                });
            } else if n.is_dir() {
                subdirs.push(k);
            } else {
                files.push((k, self.tree.name(k).to_vec()));
            }
        }
        subdirs.reverse();
        let mut delta = Delta::default();
        self.files(fd.as_raw_fd(), &files, &path, &mut delta);
        Frame { fd, node, name, path, subdirs, delta }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{Builder, Item, Kind, LinkRule, TreeSink};
    use scratch::Scratch;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    fn item<'a>(p: &Path, name: &'a [u8]) -> Item<'a> {
        let m = std::fs::symlink_metadata(p).unwrap();
        let kind = if m.is_dir() { Kind::Dir } else { Kind::File };
        Item {
            asize: m.len(),
            dsize: m.blocks() * 512,
            dev: m.dev(),
            ino: m.ino(),
            nlink: m.nlink() as u32,
            ..Item::named(name, kind)
        }
    }

    /// A sorted scan of `p` built into a tree (names sorted for the test).
    fn scan(p: &Path, b: &mut Builder, name: &[u8]) {
        b.open_dir(&item(p, name));
        let mut names: Vec<_> = std::fs::read_dir(p).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        for q in names {
            let n = q.file_name().unwrap().as_encoded_bytes().to_vec();
            if std::fs::symlink_metadata(&q).unwrap().is_dir() {
                scan(&q, b, &n);
            } else {
                b.entry(&item(&q, &n));
            }
        }
        b.close_dir();
    }

    fn scratch(tag: &str) -> Scratch {
        let p = Scratch::new(&format!("browse-del-{tag}"));
        std::fs::create_dir_all(p.join("t/a/b")).unwrap();
        std::fs::write(p.join("t/a/b/f1"), vec![1u8; 10000]).unwrap();
        std::fs::write(p.join("t/a/f2"), b"x").unwrap();
        std::fs::write(p.join("t/top"), b"y").unwrap();
        std::fs::create_dir_all(p.join("outside/keep")).unwrap();
        std::fs::write(p.join("outside/keep/precious"), b"z").unwrap();
        p
    }

    /// The scratch fixture, its tree's root `t` and the scan of it.
    fn scanned(tag: &str) -> (Scratch, std::path::PathBuf, Tree) {
        let p = scratch(tag);
        let root = p.join("t");
        let t = tree_of(&root);
        (p, root, t)
    }

    fn tree_of(root: &Path) -> Tree {
        let mut b = Builder::new(LinkRule::default());
        scan(root, &mut b, root.as_os_str().as_encoded_bytes());
        b.finish().0
    }

    fn kid(t: &Tree, dir: Idx, name: &[u8]) -> Idx {
        t.kids(dir).find(|&k| t.name(k) == name).unwrap()
    }

    #[test]
    fn a_subtree_goes_and_the_totals_follow() {
        let (_p, root, mut t) = scanned("sub");
        let r = t.root();
        let before = t.node(r).dsize;
        let a = kid(&t, r, b"a");
        let a_size = t.node(a).dsize;
        let rp = root.as_os_str().as_encoded_bytes().to_vec();
        let mut eng = Engine::new();
        let out = delete(&mut t, &Target { root_path: &rp, chain: &[r], entry: a }, &mut eng);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert!(out.done);
        assert_eq!(out.removed, 4);
        assert!(!root.join("a").exists() && root.join("top").exists());
        assert_eq!(t.node(r).dsize, before - a_size);
        assert_eq!(t.kids(r).count(), 1);
    }

    #[test]
    fn a_directory_swapped_for_a_symlink_is_refused() {
        let (p, root, mut t) = scanned("swap");
        let r = t.root();
        let a = kid(&t, r, b"a");
        let b = kid(&t, a, b"b");
        // Between scan and delete: t/a/b becomes a link to outside/keep.
        std::fs::rename(root.join("a/b"), p.join("old-b")).unwrap();
        std::os::unix::fs::symlink(p.join("outside/keep"), root.join("a/b")).unwrap();
        let rp = root.as_os_str().as_encoded_bytes().to_vec();
        let mut eng = Engine::new();
        // Deleting b itself, and deleting a (which holds it).
        let out = delete(&mut t, &Target { root_path: &rp, chain: &[r, a], entry: b }, &mut eng);
        assert!(!out.done);
        assert!(matches!(out.errors[0], DeleteError::Changed { .. }), "{:?}", out.errors);
        let out = delete(&mut t, &Target { root_path: &rp, chain: &[r], entry: a }, &mut eng);
        assert!(!out.done);
        assert!(p.join("outside/keep/precious").exists());
        assert!(std::fs::symlink_metadata(root.join("a/b")).unwrap().file_type().is_symlink());
        // f2 was what the scan saw, and went; a stays, holding the link.
        assert!(!root.join("a/f2").exists() && root.join("a").is_dir());
        assert_eq!(out.removed, 1);
    }
}
