//! Opening a directory, and the flags every entry stat is made with: one
//! policy for ls and the walkers.

use std::os::fd::{OwnedFd, RawFd};

use ringio::Errno;

/// The flags a directory is opened with: O_NOFOLLOW unless `follow`, so a
/// symlink swapped in for a directory mid-walk is not entered.
pub fn dir_flags(follow: bool) -> i32 {
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOCTTY | libc::O_NONBLOCK;
    if follow {
        flags
    } else {
        flags | libc::O_NOFOLLOW
    }
}

/// Opens directory `rel` relative to `dirfd` with a plain syscall.
pub fn dir_plain(dirfd: RawFd, rel: &[u8], follow: bool) -> Result<OwnedFd, Errno> {
    let c = std::ffi::CString::new(rel).map_err(|_| Errno::EINVAL)?;
    ringio::sys::openat_owned(dirfd, &c, dir_flags(follow), 0)
}

/// lstat of a directory entry by name. AT_STATX_DONT_SYNC: take the
/// attributes the name's lookup just brought back. Local file systems
/// ignore the flag; on FUSE (and NFS) it saves a GETATTR round trip per
/// entry after the LOOKUP that fetched the same attributes (GNU `ls -l`
/// makes 6 requests per file there).
pub const LSTAT_ENTRY: i32 = ROOT_LSTAT | libc::AT_STATX_DONT_SYNC;

/// stat following a symlink: its target may end in `..` or a mount root,
/// which no lookup refreshes (a FUSE root's attributes are all zero until
/// asked for), so no DONT_SYNC.
pub const FOLLOW: i32 = libc::AT_NO_AUTOMOUNT;

/// lstat of a root operand, which may be `.` or a mount point: no
/// DONT_SYNC. The same for an entry named `.` or `..` (listed by ls -a):
/// never looked up, so a FUSE mount root's attributes would be all zero.
pub const ROOT_LSTAT: i32 = libc::AT_SYMLINK_NOFOLLOW | libc::AT_NO_AUTOMOUNT;

/// The flags of an entry's stat by name: [`FOLLOW`], or [`LSTAT_ENTRY`]
/// except for `.` and `..` ([`ROOT_LSTAT`]).
pub fn entry_stat_flags(follow: bool, name: &[u8]) -> i32 {
    if follow {
        FOLLOW
    } else if name == b"." || name == b".." {
        ROOT_LSTAT
    } else {
        LSTAT_ENTRY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dont_sync_only_where_a_lookup_happened() {
        let dont = |f: i32| f & libc::AT_STATX_DONT_SYNC != 0;
        assert!(dont(entry_stat_flags(false, b"file")));
        assert!(!dont(entry_stat_flags(false, b".")));
        assert!(!dont(entry_stat_flags(false, b"..")));
        assert!(!dont(entry_stat_flags(true, b"file")));
        assert_eq!(entry_stat_flags(true, b"x") & libc::AT_SYMLINK_NOFOLLOW, 0);
        assert_ne!(entry_stat_flags(false, b"x") & libc::AT_SYMLINK_NOFOLLOW, 0);
        assert_eq!(dir_flags(true) & libc::O_NOFOLLOW, 0);
        assert_ne!(dir_flags(false) & libc::O_NOFOLLOW, 0);
    }
}
