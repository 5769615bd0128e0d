//! What the gather phase learns about one file, and what the print phase
//! reads: plain data, no I/O.

use std::ffi::CStr;

use cli::timefmt::Timestamp;
use ringio::{dtype, Errno, Statx};

/// The metadata ls prints, taken from a statx result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// Type and permission bits (`st_mode`).
    pub mode: u32,
    pub nlink: u64,
    pub uid: u32,
    pub gid: u32,
    pub size: u64,
    /// 512-byte blocks allocated.
    pub blocks: u64,
    pub ino: u64,
    pub rdev_major: u32,
    pub rdev_minor: u32,
    /// atime, mtime, ctime, btime: seconds and nanoseconds kept apart,
    /// since a [`Timestamp`] carries 4 bytes of padding and a listing
    /// holds one Meta per entry (a million-entry `-l` is measured against
    /// GNU's peak memory). Read through [`Meta::mtime`] and friends.
    pub(crate) secs: [i64; 4],
    pub(crate) nsecs: [u32; 4],
    /// The file system records birth times.
    pub(crate) has_btime: bool,
}

impl Meta {
    pub fn from_statx(st: &Statx) -> Meta {
        let t = Timestamp::of;
        let btime =
            if st.stx_mask & libc::STATX_BTIME != 0 { Some(t(&st.stx_btime)) } else { None };
        Meta {
            mode: st.stx_mode as u32,
            nlink: st.stx_nlink as u64,
            uid: st.stx_uid,
            gid: st.stx_gid,
            size: st.stx_size,
            blocks: st.stx_blocks,
            ino: st.stx_ino,
            rdev_major: st.stx_rdev_major,
            rdev_minor: st.stx_rdev_minor,
            ..Meta::default()
        }
        .with_times(t(&st.stx_atime), t(&st.stx_mtime), t(&st.stx_ctime), btime)
    }

    /// The same with these timestamps.
    pub fn with_times(
        mut self,
        atime: Timestamp,
        mtime: Timestamp,
        ctime: Timestamp,
        btime: Option<Timestamp>,
    ) -> Meta {
        let b = btime.unwrap_or_default();
        self.secs = [atime.secs, mtime.secs, ctime.secs, b.secs];
        self.nsecs = [atime.nsec, mtime.nsec, ctime.nsec, b.nsec];
        self.has_btime = btime.is_some();
        self
    }

    fn time(&self, i: usize) -> Timestamp {
        Timestamp::new(self.secs[i], self.nsecs[i])
    }

    pub fn atime(&self) -> Timestamp {
        self.time(0)
    }

    pub fn mtime(&self) -> Timestamp {
        self.time(1)
    }

    pub fn ctime(&self) -> Timestamp {
        self.time(2)
    }

    /// `None` when the file system doesn't record it.
    pub fn btime(&self) -> Option<Timestamp> {
        self.has_btime.then(|| self.time(3))
    }

    pub fn file_type(&self) -> FileType {
        FileType::from_mode(self.mode)
    }
}

/// The kinds of file ls distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    Unknown,
    Fifo,
    Char,
    Dir,
    Block,
    Regular,
    Link,
    Socket,
}

impl FileType {
    pub fn from_mode(mode: u32) -> FileType {
        match mode & libc::S_IFMT {
            libc::S_IFIFO => FileType::Fifo,
            libc::S_IFCHR => FileType::Char,
            libc::S_IFDIR => FileType::Dir,
            libc::S_IFBLK => FileType::Block,
            libc::S_IFREG => FileType::Regular,
            libc::S_IFLNK => FileType::Link,
            libc::S_IFSOCK => FileType::Socket,
            _ => FileType::Unknown,
        }
    }

    /// The d_type value of this kind.
    pub fn dtype(self) -> u8 {
        match self {
            FileType::Unknown => dtype::UNKNOWN,
            FileType::Fifo => dtype::FIFO,
            FileType::Char => dtype::CHR,
            FileType::Dir => dtype::DIR,
            FileType::Block => dtype::BLK,
            FileType::Regular => dtype::REG,
            FileType::Link => dtype::LNK,
            FileType::Socket => dtype::SOCK,
        }
    }

    pub fn from_dtype(t: u8) -> FileType {
        match t {
            dtype::FIFO => FileType::Fifo,
            dtype::CHR => FileType::Char,
            dtype::DIR => FileType::Dir,
            dtype::BLK => FileType::Block,
            dtype::REG => FileType::Regular,
            dtype::LNK => FileType::Link,
            dtype::SOCK => FileType::Socket,
            _ => FileType::Unknown,
        }
    }
}

/// A file name, kept inline when short (most are): a listing of a million
/// names then costs no allocation per name, and 24 bytes each instead of a
/// pointer and length plus a 32-byte heap block.
///
/// Both forms keep a NUL after the name (inline: at most 21 bytes of name
/// in the 22; heap: one extra byte), so sorting in a real locale hands
/// names to `strcoll` as they are, without a copy per name or per
/// comparison (names never contain NUL: they come from getdents or argv).
#[derive(Clone)]
pub enum Name {
    Inline(u8, [u8; Name::INLINE]),
    Heap(Box<[u8]>),
}

impl Name {
    const INLINE: usize = 22;

    /// The name as a C string (the bytes up to the NUL kept after them).
    pub fn c_str(&self) -> &CStr {
        let with_nul = match self {
            Name::Inline(n, a) => &a[..=*n as usize],
            Name::Heap(b) => b,
        };
        CStr::from_bytes_until_nul(with_nul).unwrap_or(c"")
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::Inline(0, [0; Name::INLINE])
    }
}

impl std::ops::Deref for Name {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Name::Inline(n, a) => &a[..*n as usize],
            Name::Heap(b) => &b[..b.len() - 1],
        }
    }
}

impl From<&[u8]> for Name {
    fn from(b: &[u8]) -> Name {
        if b.len() < Name::INLINE {
            let mut a = [0; Name::INLINE];
            a[..b.len()].copy_from_slice(b);
            Name::Inline(b.len() as u8, a)
        } else {
            let mut h = Vec::with_capacity(b.len() + 1);
            h.extend_from_slice(b);
            h.push(0);
            Name::Heap(h.into_boxed_slice())
        }
    }
}

impl From<Vec<u8>> for Name {
    fn from(v: Vec<u8>) -> Name {
        Name::from(&v[..])
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self[..] == other[..]
    }
}

impl Eq for Name {}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        self[..].cmp(&other[..])
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self))
    }
}

/// One file to print.
#[derive(Clone, Debug, Default)]
pub struct Entry {
    /// The name as shown: a directory entry's name, or an operand as typed.
    pub name: Name,
    /// d_type from getdents (`dtype::UNKNOWN` for operands).
    pub dtype: u8,
    /// d_ino from getdents (0 when unknown).
    pub ino: u64,
    /// lstat (or stat, when dereferencing) result.
    pub meta: Option<Meta>,
    /// Why `meta` is missing, when a stat was attempted and failed.
    pub stat_err: Option<Errno>,
    /// A symlink's target, when read.
    pub target: Option<Box<[u8]>>,
    /// Mode of what a symlink points to, when it resolves (GNU's linkok).
    pub target_mode: Option<u32>,
    /// Whether the target was stat'ed and failed (dangling or a loop).
    pub target_broken: bool,
    /// A POSIX ACL beyond the mode bits (`+` in -l).
    pub acl: bool,
    /// The SELinux context (`security.selinux`, without its NUL), when
    /// the file has one and `-l`/`-Z` asked.
    pub scontext: Option<Box<[u8]>>,
    /// Was given on the command line.
    pub cmdline: bool,
}

impl Entry {
    pub fn new(name: &[u8], dtype: u8, ino: u64) -> Entry {
        Entry { name: name.into(), dtype, ino, ..Entry::default() }
    }

    /// The file type: from stat when known, else from d_type.
    pub fn file_type(&self) -> FileType {
        match &self.meta {
            Some(m) => m.file_type(),
            None => FileType::from_dtype(self.dtype),
        }
    }

    pub fn is_dir(&self) -> bool {
        self.file_type() == FileType::Dir
    }

    /// Whether `-l` marks the file with GNU's `.` (a security context and
    /// no ACL); "unlabeled" doesn't count.
    pub fn labeled(&self) -> bool {
        self.scontext.as_deref().is_some_and(|c| !c.is_empty() && c != b"unlabeled")
    }

    /// The inode number: from stat when known, else d_ino.
    pub fn inode(&self) -> u64 {
        self.meta.map_or(self.ino, |m| m.ino)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_their_nul() {
        for len in [0, 1, 20, 21, 22, 23, 300] {
            let bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let n = Name::from(&bytes[..]);
            assert_eq!(&n[..], &bytes[..]);
            assert_eq!(n.c_str().to_bytes(), &bytes[..]);
        }
    }
}
