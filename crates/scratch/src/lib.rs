//! Scratch directories for the tests of every crate, the end-to-end tests
//! and xtask's: one definition, so that every test cleans up the same way,
//! even after taking permissions away from what it made.

use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system temp dir, named after the tag, the
/// process and a counter, so that tests running at once in one process or
/// in several never share one. World-readable, so tests can run a tool as
/// an unprivileged user inside it. Removed with everything in it on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "ringutils-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        // Whatever the umask: tests run tools as `nobody` in here.
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        Scratch(p)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join<P: AsRef<Path>>(&self, p: P) -> PathBuf {
        self.0.join(p)
    }

    /// [`Scratch::join`] as the bytes the walker and the engine take paths in.
    pub fn join_bytes<P: AsRef<Path>>(&self, p: P) -> Vec<u8> {
        self.0.join(p).into_os_string().into_vec()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0).or_else(|_| {
            // A test took the owner's rights away somewhere below: give
            // them back, then try again.
            writable(&self.0);
            std::fs::remove_dir_all(&self.0)
        });
    }
}

/// Gives the owner read, write and search rights on `p` and on every
/// directory below it (symbolic links are not followed).
fn writable(p: &Path) {
    let Ok(m) = std::fs::symlink_metadata(p) else { return };
    if !m.is_dir() {
        return;
    }
    let mode = m.permissions().mode() | 0o700;
    let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode));
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd.flatten() {
            writable(&e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_at_once_differ_and_both_go() {
        let (a, b) = (Scratch::new("t"), Scratch::new("t"));
        assert_ne!(a.path(), b.path());
        let (pa, pb) = (a.0.clone(), b.0.clone());
        drop((a, b));
        assert!(!pa.exists() && !pb.exists());
    }

    #[test]
    fn what_was_made_unwritable_goes_too() {
        let s = Scratch::new("locked");
        let d = s.join("d/e");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("f"), b"x").unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o000)).unwrap();
        std::fs::set_permissions(s.join("d"), std::fs::Permissions::from_mode(0o500)).unwrap();
        let p = s.0.clone();
        drop(s);
        assert!(!p.exists());
    }
}
