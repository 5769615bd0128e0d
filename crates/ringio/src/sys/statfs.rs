//! Which file system a descriptor is on, for behaviour that differs by
//! file system (how getdents64 marks the end of a directory).

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

/// The `d_off` values that mark the end of a directory on file system
/// `fs_type` for a directory of `dir_size` bytes, when they are known: the
/// last record of a getdents64 read that reached the end carries one, so
/// the read that would return 0 can be skipped. (A short read alone proves
/// nothing: the kernel also stops early when a signal or io_uring task work
/// is pending.) Known for ext2/3/4: the htree end marker for hashed
/// directories (one-block directories are read that way too), the size for
/// linear ones.
pub fn dir_end_offsets(fs_type: i64, dir_size: u64) -> Option<[i64; 2]> {
    const EXT4: i64 = 0xEF53;
    const HTREE_EOF_64BIT: i64 = i64::MAX;
    (fs_type == EXT4).then_some([HTREE_EOF_64BIT, dir_size as i64])
}
