//! What the gather phase learns about one file, and what the print phase
//! reads: plain data, no I/O.

use ringio::{dtype, Errno, Statx};

/// A timestamp: seconds and nanoseconds since the epoch.
pub type Time = (i64, u32);

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
    pub atime: Time,
    pub mtime: Time,
    pub ctime: Time,
    /// `None` when the file system doesn't record it.
    pub btime: Option<Time>,
}

impl Meta {
    pub fn from_statx(st: &Statx) -> Meta {
        let t = |ts: &libc::statx_timestamp| (ts.tv_sec, ts.tv_nsec);
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
            atime: t(&st.stx_atime),
            mtime: t(&st.stx_mtime),
            ctime: t(&st.stx_ctime),
            btime: if st.stx_mask & libc::STATX_BTIME != 0 { Some(t(&st.stx_btime)) } else { None },
        }
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

/// One file to print.
#[derive(Clone, Debug, Default)]
pub struct Entry {
    /// The name as shown: a directory entry's name, or an operand as typed.
    pub name: Box<[u8]>,
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
    /// Has file capabilities (colour `ca`).
    pub cap: bool,
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

    /// The inode number: from stat when known, else d_ino.
    pub fn inode(&self) -> u64 {
        self.meta.map_or(self.ino, |m| m.ino)
    }
}
