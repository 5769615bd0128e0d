//! The scanned tree, compact enough for millions of entries: every node in
//! one vector (56 bytes each), every name in one arena, a directory's
//! children one contiguous block of that vector. ncdu 1.18 allocates a
//! node of ~80 bytes plus its name per entry, with five pointers in it;
//! indices and blocks need neither pointers nor a per-node allocation.
//!
//! The tree is built from a stream of [`TreeSink`] calls in document order
//! (a directory, its entries, the directory's end: ncdu's JSON order, and the
//! order one sequential walk meets entries), so the scan, an imported file
//! and a rescan share one [`Builder`]. Hard links are decided as GNU du
//! decides them: the first link met in that order counts, the others are
//! kept (shown, flagged [`flag::LINK_DUP`]) and counted nowhere.

use hashbrown::{HashMap, HashSet};

/// What a node is and what happened to it.
pub mod flag {
    pub const DIR: u16 = 1;
    /// Its stat failed, or (a directory) its listing could not be read,
    /// wholly or in part: its size may be too small.
    pub const READ_ERROR: u16 = 2;
    /// Some entry below could not be read.
    pub const ERROR_BELOW: u16 = 4;
    /// Matched `--exclude`/`-X`: not counted, not descended.
    pub const EXCLUDED: u16 = 8;
    /// On another file system under `-x`: not counted, not descended.
    pub const OTHER_FS: u16 = 16;
    /// Another link to the same file was met first and counts: this one
    /// counts nowhere (its own size is still shown).
    pub const LINK_DUP: u16 = 32;
    /// Not a directory and not a regular file (symlink, device, FIFO…).
    pub const NOT_REG: u16 = 64;
    /// Deleted from the view (and from the disk).
    pub const GONE: u16 = 128;
    /// Has more than one hard link (its count is in [`super::Tree::nlink`]).
    pub const MULTI_LINK: u16 = 256;
}

/// An index into the tree's node vector.
pub type Idx = u32;

/// One entry. For a directory the sizes, `items` and `mtime` are its
/// subtree's (its own included); for anything else its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// Disk usage in bytes (st_blocks × 512), counted entries only.
    pub dsize: u64,
    /// Apparent size in bytes (st_size), counted entries only.
    pub asize: u64,
    /// Counted entries (du's `--inodes`), this one included.
    pub items: u64,
    pub ino: u64,
    /// The children: `first .. first + count`.
    pub first: Idx,
    pub count: u32,
    name_at: u32,
    /// Modification time, seconds (the latest below, for a directory),
    /// clamped to 0 ..= u32::MAX (1970 to 2106).
    pub mtime: u32,
    name_len: u8,
    name_hi: u8,
    dev: u16,
    pub flags: u16,
}

impl Node {
    pub fn is_dir(&self) -> bool {
        self.flags & flag::DIR != 0
    }

    pub fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }

    /// Whether it adds to its directory's totals.
    pub fn counted(&self) -> bool {
        self.flags & (flag::LINK_DUP | flag::EXCLUDED | flag::OTHER_FS | flag::GONE) == 0
    }

    pub fn children(&self) -> std::ops::Range<Idx> {
        self.first..self.first + self.count
    }
}

/// What kind of entry an event describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    /// Neither: a symlink, device, FIFO, socket.
    Other,
}

/// Why an entry was left out of the count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Excluded {
    #[default]
    No,
    /// `--exclude`, `-X` (ncdu: `"pattern"`).
    Pattern,
    /// Another file system under `-x` (ncdu: `"otherfs"`).
    OtherFs,
}

/// One entry as a scan or a file describes it.
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    pub name: &'a [u8],
    pub kind: Kind,
    pub asize: u64,
    pub dsize: u64,
    pub dev: u64,
    pub ino: u64,
    pub nlink: u32,
    pub mtime: i64,
    /// The stat failed, or a directory's listing could not be read.
    pub error: bool,
    pub excluded: Excluded,
}

impl<'a> Item<'a> {
    /// An entry known by name only (the rest zero).
    pub fn named(name: &'a [u8], kind: Kind) -> Item<'a> {
        Item {
            name,
            kind,
            asize: 0,
            dsize: 0,
            dev: 0,
            ino: 0,
            nlink: 1,
            mtime: 0,
            error: false,
            excluded: Excluded::No,
        }
    }
}

/// The tree, in document order: a directory opens, its entries follow
/// (subdirectories with their own), and it closes.
pub trait TreeSink {
    fn open_dir(&mut self, dir: &Item);
    /// An entry that is not a directory descended into.
    fn entry(&mut self, e: &Item);
    fn close_dir(&mut self);
}

/// How hard links are counted (du's `-l`, `-L`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkRule {
    /// `-l`: every link counts.
    pub count_all: bool,
    /// `-L`: every file is counted once, whatever its link count (a
    /// followed symlink reaches it a second time).
    pub every_file: bool,
}

/// Where the arena can't grow past: 40-bit name offsets.
const NAMES_MAX: u64 = 1 << 40;

/// The scanned tree.
#[derive(Default)]
pub struct Tree {
    nodes: Vec<Node>,
    names: Vec<u8>,
    devs: Vec<u64>,
    dev_index: HashMap<u64, u16>,
    /// Link counts of files with more than one (few have: kept apart).
    nlinks: HashMap<Idx, u32>,
    root: Idx,
}

impl Tree {
    pub fn root(&self) -> Idx {
        self.root
    }

    pub fn node(&self, i: Idx) -> &Node {
        &self.nodes[i as usize]
    }

    pub fn node_mut(&mut self, i: Idx) -> &mut Node {
        &mut self.nodes[i as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn name(&self, i: Idx) -> &[u8] {
        let n = &self.nodes[i as usize];
        let at = (n.name_at as usize) | ((n.name_hi as usize) << 32);
        if n.name_len == u8::MAX {
            // Names of 255 bytes or more (a root's path) have their length
            // in front.
            let l = u32::from_le_bytes(self.names[at..at + 4].try_into().unwrap_or([0; 4]));
            return &self.names[at + 4..at + 4 + l as usize];
        }
        &self.names[at..at + n.name_len as usize]
    }

    pub fn dev(&self, i: Idx) -> u64 {
        self.devs.get(self.nodes[i as usize].dev as usize).copied().unwrap_or(0)
    }

    pub fn nlink(&self, i: Idx) -> u32 {
        self.nlinks.get(&i).copied().unwrap_or(1)
    }

    /// The children of `dir` still in the tree.
    pub fn kids(&self, dir: Idx) -> impl Iterator<Item = Idx> + '_ {
        self.nodes[dir as usize].children().filter(|&k| !self.nodes[k as usize].has(flag::GONE))
    }

    /// Bytes the tree takes (its vectors' capacities).
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>() + self.names.capacity()
    }

    fn push_name(&mut self, name: &[u8]) -> Result<(u32, u8, u8), TooBig> {
        let at = self.names.len() as u64;
        if at + name.len() as u64 + 4 >= NAMES_MAX {
            return Err(TooBig);
        }
        let len = if name.len() >= u8::MAX as usize {
            self.names.extend_from_slice(&(name.len() as u32).to_le_bytes());
            self.names.extend_from_slice(name);
            u8::MAX
        } else {
            self.names.extend_from_slice(name);
            name.len() as u8
        };
        Ok((at as u32, len, (at >> 32) as u8))
    }

    fn dev_no(&mut self, dev: u64) -> u16 {
        if let Some(&n) = self.dev_index.get(&dev) {
            return n;
        }
        if self.devs.len() >= u16::MAX as usize {
            // More file systems than anyone mounts: the rest share the last.
            return u16::MAX - 1;
        }
        let n = self.devs.len() as u16;
        self.devs.push(dev);
        self.dev_index.insert(dev, n);
        n
    }

    /// Puts the subtree rooted at `new` (a rescan's) in `old`'s place,
    /// under `old`'s name; returns how its totals changed.
    pub fn graft(&mut self, old: Idx, new: Idx) -> Delta {
        let o = self.nodes[old as usize];
        let mut n = self.nodes[new as usize];
        (n.name_at, n.name_len, n.name_hi) = (o.name_at, o.name_len, o.name_hi);
        n.flags |= o.flags & flag::LINK_DUP;
        self.nodes[old as usize] = n;
        Delta {
            dsize: n.dsize as i64 - o.dsize as i64,
            asize: n.asize as i64 - o.asize as i64,
            items: n.items as i64 - o.items as i64,
        }
    }

    /// Adds `delta` (signed: a deletion subtracts) to the totals of every
    /// directory on `path` (root first).
    pub fn add_to(&mut self, path: &[Idx], d: Delta) {
        for &p in path {
            let n = &mut self.nodes[p as usize];
            n.dsize = n.dsize.saturating_add_signed(d.dsize);
            n.asize = n.asize.saturating_add_signed(d.asize);
            n.items = n.items.saturating_add_signed(d.items);
        }
    }
}

/// A change of totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    pub dsize: i64,
    pub asize: i64,
    pub items: i64,
}

impl Delta {
    /// What removing node `n` (counted) takes away.
    pub fn removing(n: &Node) -> Delta {
        if !n.counted() {
            return Delta::default();
        }
        Delta { dsize: -(n.dsize as i64), asize: -(n.asize as i64), items: -(n.items as i64) }
    }
}

/// The tree needs names past the arena's 1 TiB reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooBig;

/// A directory being built: its node so far and its entries.
struct Frame {
    node: Node,
    kids: Vec<Node>,
}

/// Builds a [`Tree`] from events (see [`TreeSink`]).
pub struct Builder {
    tree: Tree,
    stack: Vec<Frame>,
    spare: Vec<Vec<Node>>,
    seen: HashSet<(u64, u64)>,
    rule: LinkRule,
    /// Link counts of the entries of open directories, by (depth, position).
    pending_nlinks: Vec<(usize, usize, u32)>,
    done: Option<Idx>,
    too_big: bool,
    /// Building a subtree into an existing tree: its root stays.
    extending: bool,
}

impl Builder {
    pub fn new(rule: LinkRule) -> Builder {
        Builder { extending: false, ..Builder::extending(Tree::default(), rule) }
    }

    /// Builds a subtree into `tree` (a rescan): its root comes out of
    /// [`Builder::finish`], its other nodes are appended.
    pub fn extending(tree: Tree, rule: LinkRule) -> Builder {
        Builder {
            tree,
            stack: Vec::new(),
            spare: Vec::new(),
            seen: HashSet::new(),
            rule,
            pending_nlinks: Vec::new(),
            done: None,
            too_big: false,
            extending: true,
        }
    }

    /// The tree, and its new root (`None` if no directory was ever
    /// closed: an empty or cut-short stream) or [`TooBig`]. The tree comes
    /// back either way (a failed rescan keeps what was there).
    pub fn finish(mut self) -> (Tree, Result<Option<Idx>, TooBig>) {
        if self.too_big {
            return (self.tree, Err(TooBig));
        }
        if let Some(r) = self.done {
            if !self.extending {
                self.tree.root = r;
            }
        }
        (self.tree, Ok(self.done))
    }

    /// Whether a directory is still open (a stream that ended early).
    pub fn open(&self) -> bool {
        !self.stack.is_empty()
    }

    fn node_of(&mut self, it: &Item) -> Node {
        let (name_at, name_len, name_hi) = match self.tree.push_name(it.name) {
            Ok(x) => x,
            Err(TooBig) => {
                self.too_big = true;
                (0, 0, 0)
            }
        };
        let mut flags = match it.kind {
            Kind::Dir => flag::DIR,
            Kind::File => 0,
            Kind::Other => flag::NOT_REG,
        };
        if it.error {
            flags |= flag::READ_ERROR;
        }
        match it.excluded {
            Excluded::No => {}
            Excluded::Pattern => flags |= flag::EXCLUDED,
            Excluded::OtherFs => flags |= flag::OTHER_FS,
        }
        if it.kind != Kind::Dir && it.nlink > 1 {
            flags |= flag::MULTI_LINK;
        }
        let deduped = it.kind != Kind::Dir && (it.nlink > 1 || self.rule.every_file);
        if it.excluded == Excluded::No
            && deduped
            && !self.rule.count_all
            && !self.seen.insert((it.dev, it.ino))
        {
            flags |= flag::LINK_DUP;
        }
        let mut n = Node {
            dsize: it.dsize,
            asize: it.asize,
            items: 1,
            ino: it.ino,
            first: 0,
            count: 0,
            name_at,
            mtime: it.mtime.clamp(0, u32::MAX as i64) as u32,
            name_len,
            name_hi,
            dev: self.tree.dev_no(it.dev),
            flags,
        };
        if !n.counted() {
            // Kept for the view, counted nowhere: an excluded entry has no
            // size to du at all.
            n.items = 0;
            if flags & (flag::EXCLUDED | flag::OTHER_FS) != 0 {
                n.dsize = 0;
                n.asize = 0;
            }
        }
        n
    }

    /// Adds a finished child to the open directory's entries.
    fn add_kid(&mut self, n: Node, nlink: u32) {
        let depth = self.stack.len();
        let Some(top) = self.stack.last_mut() else {
            // A lone entry at the top: the tree is that entry.
            self.tree.nodes.push(n);
            self.done = Some((self.tree.nodes.len() - 1) as Idx);
            return;
        };
        if n.has(flag::READ_ERROR) || n.has(flag::ERROR_BELOW) {
            top.node.flags |= flag::ERROR_BELOW;
        }
        top.node.mtime = top.node.mtime.max(n.mtime);
        if n.counted() {
            top.node.dsize = top.node.dsize.saturating_add(n.dsize);
            top.node.asize = top.node.asize.saturating_add(n.asize);
            top.node.items = top.node.items.saturating_add(n.items);
        }
        if nlink > 1 {
            self.pending_nlinks.push((depth, top.kids.len(), nlink));
        }
        top.kids.push(n);
    }
}

impl TreeSink for Builder {
    fn open_dir(&mut self, dir: &Item) {
        let node = self.node_of(dir);
        let kids = self.spare.pop().unwrap_or_default();
        self.stack.push(Frame { node, kids });
    }

    fn entry(&mut self, e: &Item) {
        let n = self.node_of(e);
        self.add_kid(n, e.nlink);
    }

    fn close_dir(&mut self) {
        let depth = self.stack.len();
        let Some(Frame { mut node, mut kids }) = self.stack.pop() else { return };
        let first = self.tree.nodes.len();
        if first + kids.len() >= u32::MAX as usize {
            self.too_big = true;
        }
        node.first = first as Idx;
        node.count = kids.len() as u32;
        self.tree.nodes.extend_from_slice(&kids);
        while let Some(&(d, pos, nl)) = self.pending_nlinks.last() {
            if d != depth {
                break;
            }
            self.tree.nlinks.insert((first + pos) as Idx, nl);
            self.pending_nlinks.pop();
        }
        kids.clear();
        self.spare.push(kids);
        if self.stack.is_empty() {
            self.tree.nodes.push(node);
            self.done = Some((self.tree.nodes.len() - 1) as Idx);
        } else {
            self.add_kid(node, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file<'a>(name: &'a [u8], dsize: u64, ino: u64, nlink: u32) -> Item<'a> {
        Item { dsize, asize: dsize / 2, ino, nlink, dev: 1, ..Item::named(name, Kind::File) }
    }

    fn dir(name: &[u8], ino: u64) -> Item<'_> {
        Item { dsize: 4096, asize: 10, ino, dev: 1, ..Item::named(name, Kind::Dir) }
    }

    /// r/{a(5000), d/{b(3000), link-to-a}, e(link-to-a)}
    fn sample(rule: LinkRule) -> Tree {
        let mut b = Builder::new(rule);
        b.open_dir(&dir(b"/r", 1));
        b.entry(&file(b"a", 5000, 10, 3));
        b.open_dir(&dir(b"d", 2));
        b.entry(&file(b"b", 3000, 11, 1));
        b.entry(&file(b"link", 5000, 10, 3));
        b.close_dir();
        b.entry(&Item { error: true, ..file(b"e", 5000, 10, 3) });
        b.close_dir();
        b.finish().0
    }

    #[test]
    fn totals_count_the_first_link_met() {
        let t = sample(LinkRule::default());
        let r = t.node(t.root());
        assert_eq!(t.name(t.root()), b"/r");
        assert_eq!(r.dsize, 4096 + 5000 + 4096 + 3000);
        assert_eq!(r.items, 4);
        assert!(r.has(flag::ERROR_BELOW));
        let kids: Vec<_> = t.kids(t.root()).collect();
        assert_eq!(kids.len(), 3);
        assert_eq!(t.name(kids[1]), b"d");
        let d = t.node(kids[1]);
        assert_eq!((d.dsize, d.items), (4096 + 3000, 2));
        let link = d.first + 1;
        assert_eq!(t.name(link), b"link");
        assert!(t.node(link).has(flag::LINK_DUP));
        assert_eq!(t.nlink(link), 3);
        assert_eq!(t.nlink(d.first), 1);
        assert!(t.node(kids[2]).has(flag::LINK_DUP | flag::READ_ERROR));
    }

    #[test]
    fn count_links_counts_every_link() {
        let t = sample(LinkRule { count_all: true, every_file: false });
        assert_eq!(t.node(t.root()).dsize, 4096 + 5000 + 4096 + 3000 + 5000 + 5000);
    }

    #[test]
    fn removal_and_long_names() {
        let mut t = sample(LinkRule::default());
        let root = t.root();
        let d = t.kids(root).nth(1).unwrap();
        let delta = Delta::removing(t.node(d));
        t.node_mut(d).flags |= flag::GONE;
        t.add_to(&[root], delta);
        assert_eq!(t.node(root).dsize, 4096 + 5000);
        assert_eq!(t.kids(root).count(), 2);
        let long = vec![b'x'; 300];
        let mut b = Builder::new(LinkRule::default());
        b.open_dir(&dir(&long, 1));
        b.entry(&file(b"f", 1, 2, 1));
        b.close_dir();
        let t = b.finish().0;
        assert_eq!(t.name(t.root()), &long[..]);
        assert_eq!(t.name(t.node(t.root()).first), b"f");
    }

    #[test]
    fn node_stays_small() {
        assert_eq!(std::mem::size_of::<Node>(), 56);
    }
}
