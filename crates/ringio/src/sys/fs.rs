//! Which file system a descriptor or path lives on (`fstatfs`), whether it
//! is one where every metadata request is a network (or user-space) round
//! trip, and how it marks the end of a directory.
//!
//! On such file systems the tools win by keeping many requests in flight,
//! not by saving CPU: GNU `ls -l` of 10,000 files through a FUSE mount with
//! 1 ms latency takes 63 s at one request in flight. The engine
//! raises its in-flight depth when it sees one of these.

use std::ffi::CStr;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::Errno;

/// f_type magic numbers (linux/magic.h and the file systems' sources).
const REMOTE: &[(i64, &str)] = &[
    (0x6573_5546, "fuse"),
    (0x6969, "nfs"),
    (0xff53_4d42, "cifs"),
    (0xfe53_4d42, "smb2"),
    (0x517b, "smb"),
    (0x0102_1997, "9p"),
    (0x00c3_6400, "ceph"),
    (0x0bd0_0bd0, "lustre"),
    (0x6b41_4653, "afs"),
    (0x5346_414f, "openafs"),
    (0x4750_4653, "gpfs"),
    (0x6e66_7364, "nfsd"),
    (0x7461_636f, "ocfs2"),
    (0x6267_6f76, "vboxsf"),
    (0x786f_4256, "vboxsf"),
    (0x1984_0818, "orangefs"),
];

/// Returns the file system's name when `fd` is on a high-latency (network
/// or user-space) file system, `None` for local ones or on error.
pub fn high_latency_fd(fd: RawFd) -> Option<&'static str> {
    classify(fs_type(fd).ok()?)
}

/// Like [`high_latency_fd`] for a path (not following a final symlink is
/// not possible with statfs; the caller passes directories). A high-latency
/// file system found here is recorded as [`note_dir`] does.
pub fn high_latency_path(path: &CStr) -> Result<Option<&'static str>, Errno> {
    let magic = fs_type_path(path)?;
    Ok(classify_index(magic).map(|i| {
        let _ = SEEN.compare_exchange(0, i + 1, Ordering::Relaxed, Ordering::Relaxed);
        REMOTE[i].1
    }))
}

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

fn classify(magic: i64) -> Option<&'static str> {
    classify_index(magic).map(|i| REMOTE[i].1)
}

fn classify_index(magic: i64) -> Option<usize> {
    // f_type is a signed long; some magics have the high bit set in 32 bits.
    let m = magic & 0xffff_ffff;
    REMOTE.iter().position(|(k, _)| *k == m)
}

/// 1 + the index in REMOTE of the first high-latency file system this
/// process has worked on, 0 while none has been seen.
static SEEN: AtomicUsize = AtomicUsize::new(0);

/// The high-latency file system this process has seen a directory of (see
/// [`note_dir`]), if any. Engines raise their depth once this is set: the
/// decision is process-wide, since every engine of a tool works on the same
/// operands (lsr's inline and pooled engines, a walker's per-thread ones).
pub fn seen() -> Option<&'static str> {
    match SEEN.load(Ordering::Relaxed) {
        0 => None,
        i => REMOTE.get(i - 1).map(|(_, n)| *n),
    }
}

/// Checks whether directory `fd` is on a high-latency file system and
/// records it process-wide if so. Returns the name of what [`seen`] now
/// holds, and the file system's type when it was asked. Once something was
/// seen nothing is asked any more: on such a file system `fstatfs` is
/// itself a round trip (a FUSE STATFS request).
pub fn note_dir(fd: RawFd) -> (Option<&'static str>, Option<i64>) {
    if let Some(n) = seen() {
        return (Some(n), None);
    }
    let Ok(t) = fs_type(fd) else { return (None, None) };
    if let Some(i) = classify_index(t) {
        let _ = SEEN.compare_exchange(0, i + 1, Ordering::Relaxed, Ordering::Relaxed);
    }
    (seen(), Some(t))
}

/// Whether `/proc/self/fd/N/name` reaches `name` in directory `N` (procfs
/// mounted on /proc), checked once.
pub fn proc_fd_usable() -> bool {
    static USABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *USABLE.get_or_init(|| {
        const PROC_SUPER_MAGIC: i64 = 0x9fa0;
        fs_type_path(c"/proc/self/fd") == Ok(PROC_SUPER_MAGIC)
    })
}

/// `f_type` of `statfs(path)`.
fn fs_type_path(path: &CStr) -> Result<i64, Errno> {
    // SAFETY: path is NUL-terminated; statfs writes one struct into `st`.
    unsafe {
        let mut st: libc::statfs = std::mem::zeroed();
        if libc::statfs(path.as_ptr(), &mut st) != 0 {
            return Err(Errno::last());
        }
        Ok(st.f_type as i64)
    }
}

/// In-flight depth to use on a high-latency file system: `RINGIO_DEPTH`,
/// else 64: the fewest requests in flight measured to hide a high-latency
/// file system's round trips.
pub(crate) fn remote_depth() -> usize {
    crate::env::get().depth.unwrap_or(64)
}

/// The size to give [`dir_end_offsets`] for a directory not stat'ed.
pub const SIZE_UNKNOWN: u64 = i64::MAX as u64;

/// The `d_off` values that mark the end of a directory on file system
/// `fs_type` for a directory of `dir_size` bytes, when they are known: the
/// last record of a getdents64 read that reached the end carries one, so
/// the read that would return 0 can be skipped. (A short read alone proves
/// nothing: the kernel also stops early when a signal or io_uring task work
/// is pending.) Known for ext2/3/4: the htree end marker for hashed
/// directories (one-block directories are read that way too), the size for
/// linear ones.
///
/// A directory whose size isn't known passes [`SIZE_UNKNOWN`]: no linear
/// directory's records reach it, so only the hashed directories' mark is
/// left (ext4 reads every directory that way where the file system
/// indexes them, one-block ones included); a linear one is read to the
/// empty getdents64.
pub fn dir_end_offsets(fs_type: i64, dir_size: u64) -> Option<[i64; 2]> {
    const EXT4: i64 = 0xEF53;
    const HTREE_EOF_64BIT: i64 = i64::MAX;
    (fs_type == EXT4).then_some([HTREE_EOF_64BIT, dir_size as i64])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_root_is_not_remote() {
        assert_eq!(high_latency_path(c"/").unwrap(), None);
        assert_eq!(classify(0x6573_5546), Some("fuse"));
        assert_eq!(classify(0xffff_ffff_ff53_4d42u64 as i64), Some("cifs"));
    }
}
