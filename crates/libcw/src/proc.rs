//! Child processes: starting a command inside a directory given by
//! descriptor (find's -execdir and -okdir).

use std::os::fd::RawFd;

/// Makes `cmd`'s child start in the directory open as `dirfd` (fchdir
/// between fork and exec), so -execdir runs where the walker really is even
/// if a path component was swapped for a symlink meanwhile. `dirfd` must stay
/// open until the command is spawned.
pub fn command_in_dir(cmd: &mut std::process::Command, dirfd: RawFd) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and only
    // calls fchdir, which is async-signal-safe and touches no memory.
    unsafe {
        cmd.pre_exec(move || {
            if libc::fchdir(dirfd) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}
