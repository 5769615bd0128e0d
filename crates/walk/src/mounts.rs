//! Where the mount points are, for the physical cycle check (`step`).
//!
//! A directory that repeats an ancestor's (dev, ino) in a walk that
//! follows no symlinks can only come from a mount: `mount --bind a a/b`
//! makes `a/b` the same directory as `a`. GNU's fts finds such cycles by
//! stat'ing every directory and keeping the (dev, ino) of the directories
//! being walked. The walker doesn't stat directories find doesn't ask
//! about (d_type says they are directories), so it asks instead which
//! entries are mount points: without a cycle through a mount point there
//! is no cycle at all. A stat'ed entry says so itself
//! (`STATX_ATTR_MOUNT_ROOT`); for the others the mount table is read once
//! per process (`/proc/self/mountinfo`) into a trie of the mount points'
//! paths, and each directory carries its position in that trie: only the
//! directories on the way to a mount point have one, so everywhere else
//! the question costs nothing, and the walk's own cost is one read of the
//! table and one `realpath` of each root that needs it.

use std::sync::OnceLock;

/// A position in [`Trie`]: no position (no mount point at or below).
pub(crate) const NONE: u32 = u32::MAX;
/// Not worked out yet (see `step::trie_of`).
pub(crate) const UNKNOWN: u32 = u32::MAX - 1;

/// The mount points' paths, one node per path component.
#[derive(Debug, Default)]
pub(crate) struct Trie {
    nodes: Vec<TrieNode>,
}

#[derive(Debug, Default)]
struct TrieNode {
    /// (component, node) pairs.
    kids: Vec<(Box<[u8]>, u32)>,
    /// A mount point is here.
    mount: bool,
}

impl Trie {
    /// The trie of `mountinfo`'s mount points (field 5 of each line,
    /// octal escapes decoded).
    pub(crate) fn parse(mountinfo: &[u8]) -> Trie {
        let mut t = Trie { nodes: vec![TrieNode::default()] };
        for line in mountinfo.split(|&c| c == b'\n') {
            let Some(field) = line.split(|&c| c == b' ').nth(4) else { continue };
            let path = unescape(field);
            if path.first() != Some(&b'/') {
                continue;
            }
            let mut at = 0u32;
            for comp in path.split(|&c| c == b'/').filter(|c| !c.is_empty()) {
                at = t.kid_or_insert(at, comp);
            }
            t.nodes[at as usize].mount = true;
        }
        t
    }

    fn kid_or_insert(&mut self, at: u32, name: &[u8]) -> u32 {
        if let Some(k) = self.kid(at, name) {
            return k;
        }
        let k = self.nodes.len() as u32;
        self.nodes.push(TrieNode::default());
        self.nodes[at as usize].kids.push((name.into(), k));
        k
    }

    /// The position of `name` below `at`, if some mount point is at or
    /// below it.
    pub(crate) fn kid(&self, at: u32, name: &[u8]) -> Option<u32> {
        let n = self.nodes.get(at as usize)?;
        n.kids.iter().find(|(k, _)| &**k == name).map(|&(_, i)| i)
    }

    /// Whether a mount point is at `at`.
    pub(crate) fn is_mount(&self, at: u32) -> bool {
        self.nodes.get(at as usize).is_some_and(|n| n.mount)
    }

    /// The position of the absolute path `abs`, or [`NONE`].
    pub(crate) fn lookup(&self, abs: &[u8]) -> u32 {
        let mut at = 0u32;
        for comp in abs.split(|&c| c == b'/').filter(|c| !c.is_empty()) {
            match self.kid(at, comp) {
                Some(k) => at = k,
                None => return NONE,
            }
        }
        at
    }
}

/// Decodes mountinfo's `\ooo` escapes (space, tab, newline, backslash).
fn unescape(f: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(f.len());
    let mut i = 0;
    while i < f.len() {
        if f[i] == b'\\'
            && i + 3 < f.len()
            && f[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = f[i + 1..i + 4].iter().fold(0u32, |v, &c| v * 8 + (c - b'0') as u32);
            out.push(v as u8);
            i += 4;
        } else {
            out.push(f[i]);
            i += 1;
        }
    }
    out
}

/// `statx`'s "this is the root of a mount" attribute (Linux 5.8).
pub(crate) const STATX_ATTR_MOUNT_ROOT: u64 = 0x2000;

/// Whether `st` is a mount root, when the kernel says (Linux 5.8 and later).
pub(crate) fn mount_root(st: &ringio::Statx) -> Option<bool> {
    (st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT != 0)
        .then_some(st.stx_attributes & STATX_ATTR_MOUNT_ROOT != 0)
}

/// The process's mount table, read on first use; `None` when it can't be
/// read (no /proc): then every directory the walk didn't stat is taken for
/// a possible mount point and stat'ed, as fts stats them all.
pub(crate) fn table() -> Option<&'static Trie> {
    static TABLE: OnceLock<Option<Trie>> = OnceLock::new();
    TABLE
        .get_or_init(|| std::fs::read("/proc/self/mountinfo").ok().map(|m| Trie::parse(&m)))
        .as_ref()
}

/// The position of a root operand's directory: its real path looked up.
/// A path that can't be resolved has none (nothing to find below it).
pub(crate) fn root_position(t: &Trie, path: &[u8]) -> u32 {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    match std::fs::canonicalize(std::ffi::OsStr::from_bytes(path)) {
        Ok(p) => t.lookup(&p.into_os_string().into_vec()),
        Err(_) => NONE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INFO: &[u8] = b"\
22 1 0:21 / /proc rw,nosuid - proc proc rw
25 1 254:0 / / rw,relatime - ext4 /dev/vda rw
30 25 0:27 / /tmp/a\\040b/mnt rw - tmpfs tmpfs rw
31 25 254:0 /srv /tmp/a\\040b/mnt/deeper rw - ext4 /dev/vda rw
";

    #[test]
    fn mount_points_and_the_way_to_them() {
        let t = Trie::parse(INFO);
        let root = t.lookup(b"/");
        assert_eq!(root, 0);
        assert!(t.is_mount(root));
        let proc_ = t.kid(root, b"proc").unwrap();
        assert!(t.is_mount(proc_));
        // `\040` is a space; the directories on the way are no mounts.
        let tmp = t.kid(root, b"tmp").unwrap();
        assert!(!t.is_mount(tmp));
        let ab = t.kid(tmp, b"a b").unwrap();
        let mnt = t.kid(ab, b"mnt").unwrap();
        assert!(t.is_mount(mnt));
        assert!(t.is_mount(t.lookup(b"/tmp/a b/mnt/deeper")));
        assert_eq!(t.kid(root, b"usr"), None);
        assert_eq!(t.lookup(b"/usr/lib"), NONE);
        assert_eq!(t.lookup(b"//tmp//a b/"), ab);
    }

    #[test]
    fn escapes() {
        assert_eq!(unescape(b"a\\040b\\011c\\012d\\134e"), b"a b\tc\nd\\e");
        assert_eq!(unescape(b"tail\\04"), b"tail\\04");
        assert_eq!(unescape(b"x\\999"), b"x\\999");
    }
}
