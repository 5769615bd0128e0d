//! Wrappers for moving data between descriptors inside the kernel
//! (`sendfile`, `copy_file_range`), for pipes (creation, `F_GETPIPE_SZ` /
//! `F_SETPIPE_SZ`), and for the descriptor facts a copy loop needs (`fstat`,
//! the file position).
//!
//! None of these has an io_uring opcode, so they are plain syscalls. Like the
//! rest of [`crate::sys`], every wrapper retries `EINTR` itself.
//!
//! Measured on the project machine (docs/engine.md §4): for a
//! warm 1 GiB file, splice through a private pipe reaches 60 GB/s to
//! /dev/null and sendfile 51 GB/s, against 25–31 GB/s for any read/write
//! scheme; into a pipe, raising its size to 1 MiB matters more than the API.
//! copy_file_range refuses pipes and /dev/null (EINVAL) and only helps
//! file → file.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};

use super::retry;
use crate::Errno;

/// The C library's `struct stat`.
pub type Stat = libc::stat;

/// `fstat(fd)`.
pub fn fstat(fd: RawFd) -> Result<Stat, Errno> {
    // SAFETY: stat is a plain C struct of integers; all-zero bytes are a valid value.
    let mut st: Stat = unsafe { std::mem::zeroed() };
    // SAFETY: st is a valid, exclusive stat buffer for the duration of the call.
    retry(|| unsafe { libc::fstat(fd, &mut st) as _ })?;
    Ok(st)
}

/// The current file position of `fd` (`lseek(fd, 0, SEEK_CUR)`); ESPIPE for
/// pipes, sockets and terminals.
pub fn position(fd: RawFd) -> Result<u64, Errno> {
    // SAFETY: lseek touches no memory of ours.
    retry(|| unsafe { libc::lseek(fd, 0, libc::SEEK_CUR) as _ }).map(|p| p as u64)
}

/// Sets the file position of `fd` to `offset` (`lseek(fd, offset,
/// SEEK_SET)`): a file read ahead at offsets hands its descriptor on at the
/// position its reads reached.
pub fn seek_to(fd: RawFd, offset: u64) -> Result<u64, Errno> {
    // SAFETY: lseek touches no memory of ours.
    retry(|| unsafe { libc::lseek(fd, offset as libc::off_t, libc::SEEK_SET) as _ })
        .map(|p| p as u64)
}

/// One `sendfile(out_fd, in_fd, NULL, count)`: copies up to `count` bytes from
/// `in_fd`'s file position (which advances) to `out_fd`. Returns 0 at end of
/// input. `in_fd` must support splice reads (regular files, most special
/// files); EINVAL or ENOSYS mean "not here", e.g. for an `O_APPEND` output.
pub fn sendfile(out_fd: RawFd, in_fd: RawFd, count: usize) -> Result<usize, Errno> {
    // SAFETY: a null offset pointer makes the kernel use and update the file
    // position; no memory of ours is involved.
    retry(|| unsafe { libc::sendfile(out_fd, in_fd, std::ptr::null_mut(), count) as _ })
}

/// One `copy_file_range(in_fd, NULL, out_fd, NULL, len, 0)`: copies up to
/// `len` bytes between the file positions of two regular files (both
/// advance), possibly by reflink or server-side copy. Returns 0 at end of
/// input. EXDEV, EINVAL, EOPNOTSUPP, ENOSYS, or EBADF for an `O_APPEND`
/// output mean "not here".
pub fn copy_file_range(in_fd: RawFd, out_fd: RawFd, len: usize) -> Result<usize, Errno> {
    // SAFETY: null offset pointers make the kernel use and update both file
    // positions; no memory of ours is involved.
    retry(|| unsafe {
        libc::copy_file_range(in_fd, std::ptr::null_mut(), out_fd, std::ptr::null_mut(), len, 0)
            as _
    })
}

/// A new pipe `(read end, write end)`, close-on-exec; both ends are closed
/// when dropped.
pub fn pipe() -> Result<(OwnedFd, OwnedFd), Errno> {
    let mut p = [-1 as RawFd; 2];
    // SAFETY: p is a valid array of two ints for the kernel to fill.
    retry(|| unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) as _ })?;
    // SAFETY: pipe2 succeeded, so both descriptors are open and owned by
    // nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(p[0]), OwnedFd::from_raw_fd(p[1])) })
}

/// The capacity of the pipe `fd` in bytes (`F_GETPIPE_SZ`).
pub fn pipe_size(fd: RawFd) -> Result<usize, Errno> {
    // SAFETY: F_GETPIPE_SZ takes no argument and touches no memory.
    retry(|| unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) as _ })
}

/// Sets the capacity of the pipe `fd` (`F_SETPIPE_SZ`); the kernel rounds it
/// up to a power-of-two number of pages and returns the new capacity. EPERM
/// when an unprivileged user would exceed `/proc/sys/fs/pipe-max-size` or
/// the per-user pipe page limit; EBUSY when the pipe holds more than fits.
pub fn set_pipe_size(fd: RawFd, size: usize) -> Result<usize, Errno> {
    let size = size.min(libc::c_int::MAX as usize) as libc::c_int;
    // SAFETY: F_SETPIPE_SZ takes an int argument and touches no memory of ours.
    retry(|| unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, size) as _ })
}

/// Whether `st` describes /dev/null (character device 1:3), where output
/// can be discarded by splice without copying.
pub fn is_dev_null(st: &Stat) -> bool {
    st.st_mode & libc::S_IFMT == libc::S_IFCHR && st.st_rdev == libc::makedev(1, 3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    fn temp_file(tag: &str, data: &[u8]) -> (std::path::PathBuf, std::fs::File) {
        let p = std::env::temp_dir().join(format!("ringio-copy-{tag}-{}", std::process::id()));
        std::fs::write(&p, data).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        (p, f)
    }

    #[test]
    fn sendfile_and_copy_file_range_move_everything() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
        let (src_path, src) = temp_file("src", &data);
        let dst_path = src_path.with_extension("dst");
        let dst = std::fs::File::create(&dst_path).unwrap();
        let mut total = 0;
        loop {
            let n = copy_file_range(src.as_raw_fd(), dst.as_raw_fd(), 100_000).unwrap();
            if n == 0 {
                break;
            }
            total += n;
        }
        assert_eq!(total, data.len());
        assert_eq!(std::fs::read(&dst_path).unwrap(), data);
        assert_eq!(position(src.as_raw_fd()).unwrap(), data.len() as u64);

        // sendfile into a pipe, drained by a thread.
        let src2 = std::fs::File::open(&src_path).unwrap();
        let (r, w) = pipe().unwrap();
        let reader = std::thread::spawn(move || {
            use std::io::Read;
            let mut f = std::fs::File::from(r);
            let mut v = Vec::new();
            f.read_to_end(&mut v).unwrap();
            v
        });
        loop {
            let n = sendfile(w.as_raw_fd(), src2.as_raw_fd(), 1 << 20).unwrap();
            if n == 0 {
                break;
            }
        }
        drop(w);
        assert_eq!(reader.join().unwrap(), data);
        let _ = std::fs::remove_file(&src_path);
        let _ = std::fs::remove_file(&dst_path);
    }

    #[test]
    fn pipe_sizes_and_stat() {
        let (r, w) = pipe().unwrap();
        let before = pipe_size(w.as_raw_fd()).unwrap();
        assert!(before >= 4096);
        let after = set_pipe_size(w.as_raw_fd(), 1 << 20).unwrap();
        assert_eq!(after, 1 << 20);
        assert_eq!(pipe_size(r.as_raw_fd()).unwrap(), 1 << 20);
        let st = fstat(r.as_raw_fd()).unwrap();
        assert_eq!(st.st_mode & libc::S_IFMT, libc::S_IFIFO);
        assert_eq!(position(r.as_raw_fd()), Err(Errno(libc::ESPIPE)));
        let null = std::fs::File::open("/dev/null").unwrap();
        assert!(is_dev_null(&fstat(null.as_raw_fd()).unwrap()));
        assert!(!is_dev_null(&st));
        assert_eq!(fstat(-1).map(|_| ()), Err(Errno(libc::EBADF)));
    }
}
