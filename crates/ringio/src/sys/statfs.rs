//! Which file system a descriptor is on, for behaviour that differs by
//! file system (whether a short getdents64 read means the end).

use std::os::fd::RawFd;

use crate::errno::Errno;

/// `f_type` of `fstatfs(fd)`.
pub fn fs_type(fd: RawFd) -> Result<i64, Errno> {
    // SAFETY: statfs is a plain C struct of integers; all-zero is valid.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: st is a valid, exclusive statfs buffer for the call.
        let r = unsafe { libc::fstatfs(fd, &mut st) };
        if r == 0 {
            return Ok(st.f_type as i64);
        }
        let e = Errno::last();
        if e != Errno::EINTR {
            return Err(e);
        }
    }
}

/// Whether the file system's readdir fills a getdents64 buffer until it is
/// full or the directory ends (so a read that leaves room for the largest
/// record was the last). True of ext2/3/4, tmpfs, xfs and btrfs, whose
/// readdir loops over the whole directory; not of network and FUSE file
/// systems, which return one server reply at a time.
pub fn getdents_fills_buffer(fs_type: i64) -> bool {
    const EXT4: i64 = 0xEF53;
    const TMPFS: i64 = 0x0102_1994;
    const XFS: i64 = 0x5846_5342;
    const BTRFS: i64 = 0x9123_683E;
    matches!(fs_type, EXT4 | TMPFS | XFS | BTRFS)
}
