//! Node ids and open handles.
//!
//! FUSE names files by node ids the file system hands out in LOOKUP replies;
//! the kernel counts how many lookups it received for each id and gives them
//! back with FORGET, after which the id may be dropped. slowfs maps each id
//! to the source path it stands for (the source is not renamed under a
//! mirror, so a path is a stable identity) and keeps the count.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use super::proto::ROOT_ID;

struct Node {
    path: PathBuf,
    lookups: u64,
}

pub struct Nodes {
    by_id: HashMap<u64, Node>,
    by_path: HashMap<PathBuf, u64>,
    next: u64,
}

impl Nodes {
    /// A table holding only the root, which the kernel never forgets.
    pub fn new(root: PathBuf) -> Nodes {
        let mut by_id = HashMap::new();
        let mut by_path = HashMap::new();
        by_path.insert(root.clone(), ROOT_ID);
        by_id.insert(ROOT_ID, Node { path: root, lookups: 1 });
        Nodes { by_id, by_path, next: ROOT_ID + 1 }
    }

    /// The source path of node `id`.
    pub fn path(&self, id: u64) -> Option<PathBuf> {
        self.by_id.get(&id).map(|n| n.path.clone())
    }

    /// The source path of `name` inside directory node `parent`; None for
    /// an unknown parent or a name that is not a single component.
    pub fn child_path(&self, parent: u64, name: &[u8]) -> Option<PathBuf> {
        if name.is_empty() || name == b"." || name == b".." || name.contains(&b'/') {
            return None;
        }
        let dir = &self.by_id.get(&parent)?.path;
        Some(dir.join(OsStr::from_bytes(name)))
    }

    /// Records one lookup of `path` (as a LOOKUP reply is about to tell the
    /// kernel) and returns its node id, allocating one for a new path.
    pub fn remember(&mut self, path: PathBuf) -> u64 {
        if let Some(&id) = self.by_path.get(&path) {
            if let Some(n) = self.by_id.get_mut(&id) {
                n.lookups += 1;
            }
            return id;
        }
        let id = self.next;
        self.next += 1;
        self.by_path.insert(path.clone(), id);
        self.by_id.insert(id, Node { path, lookups: 1 });
        id
    }

    /// Takes back `n` lookups of `id` (FORGET); the id is dropped at zero.
    pub fn forget(&mut self, id: u64, n: u64) {
        if id == ROOT_ID {
            return;
        }
        let Some(node) = self.by_id.get_mut(&id) else { return };
        node.lookups = node.lookups.saturating_sub(n);
        if node.lookups == 0 {
            let node = self.by_id.remove(&id).expect("present");
            self.by_path.remove(&node.path);
        }
    }

    /// How many ids are live (the root included).
    pub fn len(&self) -> usize {
        self.by_id.len()
    }
}

/// The parent directory of a source path, for a directory's `..` entry.
pub fn parent_of(path: &Path) -> PathBuf {
    path.parent().map_or_else(|| path.to_path_buf(), Path::to_path_buf)
}

/// One entry of a directory listing taken at OPENDIR.
pub struct DirEntry {
    pub ino: u64,
    /// DT_* value, which is also `(st_mode & S_IFMT) >> 12`.
    pub typ: u32,
    pub name: Vec<u8>,
}

impl DirEntry {
    pub fn new(ino: u64, typ: u32, name: OsString) -> DirEntry {
        DirEntry { ino, typ, name: name.into_vec() }
    }
}

/// Open file and directory handles, by the `fh` numbers given to the kernel.
pub struct Handles<T> {
    map: HashMap<u64, T>,
    next: u64,
}

impl<T: Clone> Handles<T> {
    pub fn new() -> Handles<T> {
        Handles { map: HashMap::new(), next: 1 }
    }

    pub fn insert(&mut self, v: T) -> u64 {
        let fh = self.next;
        self.next += 1;
        self.map.insert(fh, v);
        fh
    }

    pub fn get(&self, fh: u64) -> Option<T> {
        self.map.get(&fh).cloned()
    }

    pub fn remove(&mut self, fh: u64) -> Option<T> {
        self.map.remove(&fh)
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_are_counted_and_forgotten() {
        let mut n = Nodes::new(PathBuf::from("/src"));
        let p = n.child_path(ROOT_ID, b"a b").unwrap();
        assert_eq!(p, Path::new("/src/a b"));
        let id = n.remember(p.clone());
        assert_eq!(n.remember(p.clone()), id);
        assert_eq!(n.len(), 2);
        n.forget(id, 1);
        assert_eq!(n.path(id), Some(p.clone()));
        n.forget(id, 1);
        assert_eq!(n.path(id), None);
        assert_eq!(n.len(), 1);
        // A forgotten path gets a fresh id, never a reused one.
        assert!(n.remember(p) > id);
        // The root stays whatever the kernel says.
        n.forget(ROOT_ID, 100);
        assert_eq!(n.path(ROOT_ID), Some(PathBuf::from("/src")));
    }

    #[test]
    fn names_must_be_single_components() {
        let n = Nodes::new(PathBuf::from("/src"));
        for bad in [&b""[..], b".", b"..", b"a/b"] {
            assert!(n.child_path(ROOT_ID, bad).is_none(), "{bad:?}");
        }
        assert!(n.child_path(99, b"x").is_none());
        assert!(n.child_path(ROOT_ID, b"\xff\n").is_some());
    }

    #[test]
    fn handles() {
        let mut h = Handles::new();
        let a = h.insert("a");
        let b = h.insert("b");
        assert_ne!(a, b);
        assert_eq!(h.get(a), Some("a"));
        assert_eq!(h.remove(a), Some("a"));
        assert_eq!(h.get(a), None);
        assert_eq!(h.len(), 1);
    }
}
