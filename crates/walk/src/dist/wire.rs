//! The bytes the ranks exchange: work items and directory records.
//!
//! Little-endian integers and length-prefixed byte strings: paths are
//! arbitrary bytes of any length (no `PATH_MAX` cap, unlike libcircle).
//! A statx travels as the fields the tools read, so a record is about
//! 150 bytes per stat'ed entry plus its name.

use ringio::{Errno, Statx};

use crate::node::Facts;
use crate::Entry;

pub(crate) struct Put(pub Vec<u8>);

impl Put {
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    pub fn errno(&mut self, e: Option<Errno>) {
        self.i32(e.map_or(0, |e| e.0));
    }
    pub fn stat(&mut self, st: &Statx) {
        self.u32(st.stx_mask);
        self.u32(st.stx_blksize);
        self.u64(st.stx_attributes);
        self.u32(st.stx_nlink);
        self.u32(st.stx_uid);
        self.u32(st.stx_gid);
        self.u32(st.stx_mode as u32);
        self.u64(st.stx_ino);
        self.u64(st.stx_size);
        self.u64(st.stx_blocks);
        self.u64(st.stx_attributes_mask);
        for t in [&st.stx_atime, &st.stx_btime, &st.stx_ctime, &st.stx_mtime] {
            self.u64(t.tv_sec as u64);
            self.u32(t.tv_nsec);
        }
        self.u32(st.stx_rdev_major);
        self.u32(st.stx_rdev_minor);
        self.u32(st.stx_dev_major);
        self.u32(st.stx_dev_minor);
        self.u64(st.stx_mnt_id);
    }
    /// What a visitor sees of an entry, but its path (the record's
    /// directory plus the name gives it).
    pub fn entry(&mut self, e: &Entry) {
        self.u8(e.d_type);
        self.u64(e.ino);
        self.u64(e.index as u64);
        self.u8(e.followed as u8);
        self.errno(e.stat_error);
        match e.stat {
            Some(st) => {
                self.u8(1);
                self.stat(st);
            }
            None => self.u8(0),
        }
    }
}

/// Reads what [`Put`] wrote; a short or malformed message reads as
/// zeros/empty (the sender is this same program, so that never happens
/// short of memory corruption, which MPI would not survive either).
pub(crate) struct Get<'a> {
    pub b: &'a [u8],
    pub at: usize,
}

impl<'a> Get<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Get { b, at: 0 }
    }
    fn take(&mut self, n: usize) -> &'a [u8] {
        let end = (self.at + n).min(self.b.len());
        let s = &self.b[self.at..end];
        self.at = end;
        s
    }
    pub fn done(&self) -> bool {
        self.at >= self.b.len()
    }
    pub fn u8(&mut self) -> u8 {
        self.take(1).first().copied().unwrap_or(0)
    }
    pub fn u32(&mut self) -> u32 {
        let mut a = [0; 4];
        let s = self.take(4);
        a[..s.len()].copy_from_slice(s);
        u32::from_le_bytes(a)
    }
    pub fn u64(&mut self) -> u64 {
        let mut a = [0; 8];
        let s = self.take(8);
        a[..s.len()].copy_from_slice(s);
        u64::from_le_bytes(a)
    }
    pub fn i32(&mut self) -> i32 {
        self.u32() as i32
    }
    pub fn bytes(&mut self) -> &'a [u8] {
        let n = self.u64() as usize;
        self.take(n)
    }
    pub fn errno(&mut self) -> Option<Errno> {
        match self.i32() {
            0 => None,
            e => Some(Errno(e)),
        }
    }
    pub fn stat(&mut self) -> Statx {
        let mut st = ringio::sys::statx_zeroed();
        st.stx_mask = self.u32();
        st.stx_blksize = self.u32();
        st.stx_attributes = self.u64();
        st.stx_nlink = self.u32();
        st.stx_uid = self.u32();
        st.stx_gid = self.u32();
        st.stx_mode = self.u32() as u16;
        st.stx_ino = self.u64();
        st.stx_size = self.u64();
        st.stx_blocks = self.u64();
        st.stx_attributes_mask = self.u64();
        for i in 0..4 {
            let sec = self.u64() as i64;
            let nsec = self.u32();
            let t = match i {
                0 => &mut st.stx_atime,
                1 => &mut st.stx_btime,
                2 => &mut st.stx_ctime,
                _ => &mut st.stx_mtime,
            };
            t.tv_sec = sec;
            t.tv_nsec = nsec;
        }
        st.stx_rdev_major = self.u32();
        st.stx_rdev_minor = self.u32();
        st.stx_dev_major = self.u32();
        st.stx_dev_minor = self.u32();
        st.stx_mnt_id = self.u64();
        st
    }
    /// An entry as it travelled (see [`Put::entry`]).
    pub fn entry(&mut self) -> Facts {
        let d_type = self.u8();
        let ino = self.u64();
        let index = self.u64() as usize;
        let followed = self.u8() != 0;
        let stat_error = self.errno();
        let stat = (self.u8() != 0).then(|| self.stat());
        Facts { d_type, ino, index, followed, stat_error, stat }
    }
}

/// A directory to walk, as it moves between ranks.
#[derive(Clone, Debug)]
pub(crate) struct Item {
    /// The operand walk it belongs to (see `Shared::dead`).
    pub gen: u64,
    pub path: Vec<u8>,
    /// Its depth below the operand (0: the operand itself).
    pub depth: usize,
    /// The operand itself: its root entry is recorded too.
    pub operand: bool,
    /// The operand's device, for `-xdev`/`-x` (0 until known).
    pub root_dev: u64,
    /// (dev, ino) of the directories from the operand down to this one,
    /// for loop detection when symlinks are followed (else empty).
    pub chain: Vec<(u64, u64)>,
}

impl Item {
    pub fn put(&self, p: &mut Put) {
        p.u64(self.gen);
        p.bytes(&self.path);
        p.u64(self.depth as u64);
        p.u8(self.operand as u8);
        p.u64(self.root_dev);
        p.u64(self.chain.len() as u64);
        for &(d, i) in &self.chain {
            p.u64(d);
            p.u64(i);
        }
    }
    pub fn get(g: &mut Get) -> Item {
        let gen = g.u64();
        let path = g.bytes().to_vec();
        let depth = g.u64() as usize;
        let operand = g.u8() != 0;
        let root_dev = g.u64();
        let n = g.u64() as usize;
        let chain = (0..n.min(g.b.len())).map(|_| (g.u64(), g.u64())).collect();
        Item { gen, path, depth, operand, root_dev, chain }
    }
}

/// Record kinds: an operand's own entry, and a directory's listing.
pub(crate) const ROOT: u8 = 0;
pub(crate) const LIST: u8 = 1;

/// Listing entry kinds: an entry, and a loop the walker found instead.
pub(crate) const ENT: u8 = 0;
pub(crate) const LOOP: u8 = 1;

/// A record's header: generation, kind, path.
pub(crate) fn header(p: &mut Put, gen: u64, kind: u8, path: &[u8]) {
    p.u64(gen);
    p.u8(kind);
    p.bytes(path);
}
