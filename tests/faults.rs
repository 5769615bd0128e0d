//! The fault suite: every tool under hostile conditions, with
//! GNU's behaviour under the same condition as the reference.
//!
//! Every case runs its commands with a deadline ([`Case::run`]): a hang
//! fails the case (the process group is killed) instead of blocking the
//! suite. The deadlines are generous — they detect hangs, they don't
//! measure speed; where "within a second" is the aim (signals,
//! `| head`), the bound is a few seconds to allow for a loaded 2-core
//! machine, and the case says so. A condition the machine cannot set up
//! (not root, no /dev/fuse, no seccomp) skips the case with a message.
//!
//! The machinery (a [`util::Case`]: a [`util::Run`] plus the condition,
//! run with a deadline; [`util::compare_case`]) is the end-to-end tests'
//! own, in `util`; this file keeps the fixtures the fault cases share.
//!
//! The conditions, one module each:
//! - `uring`: io_uring unavailable in every way (sysctl, seccomp EPERM /
//!   ENOSYS, io_uring_register alone refused);
//! - `limits`: `ulimit -n 16` on deep and wide trees, `ulimit -u` tiny,
//!   `ulimit -v`, and a 3,000-level tree under the default 1024 fd limit;
//! - `output`: stdout on /dev/full, closed, read-only; `| head -n1`;
//!   SIGPIPE ignored;
//! - `mutate`: a tree changing during the walk;
//! - `signals`: SIGINT/SIGTERM during a walk, a blocked write, -exec;
//!   SIGSTOP/SIGCONT and SIGWINCH/SIGCHLD bursts;
//! - `scale`: 1,000,000 entries (peak RSS against GNU's), 3,000 levels;
//! - `names`: every byte as a name, 255-byte names, escape sequences, on a
//!   terminal (script(1) gives a pty);
//! - `misfs`: EIO from getdents, stat and read (the slowfs FUSE mirror
//!   with `--inject-eio`), /proc files whose size lies, a half-readable file;
//! - `envs`: absurd COLUMNS, TZ, LS_COLORS, BLOCK_SIZE, TIME_STYLE.

mod envs;
mod limits;
mod misfs;
mod mutate;
mod names;
mod output;
mod scale;
mod signals;
mod uring;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::{self, root, TempDir};

/// A small tree every tool has something to do in: directories, files
/// with content, a symlink, a hard link, an empty directory.
pub fn small_tree() -> TempDir {
    let t = TempDir::new("faults");
    util::build_tree(
        t.path(),
        &[
            "d:t/a/b/c",
            "d:t/empty",
            "f:t/a/one:1\n",
            "f:t/a/b/two:two\nlines\n",
            "f:t/a/b/c/three:333",
            "f:t/top:top\n",
            "l:t/link:a/one",
            "h:t/hard:t/top",
        ],
    );
    t
}

/// The arguments each tool gets in the "every tool" cases, run in the
/// directory of [`small_tree`].
pub fn every_tool_args(tool: &str) -> Vec<&'static str> {
    match tool {
        "lsr" => vec!["-laR", "t"],
        "lfind" => vec!["t", "-printf", "%p %s %y\n"],
        "ldu" => vec!["-a", "t"],
        "lcat" => vec!["t/a/one", "t/a/b/two", "t/top"],
        _ => unreachable!(),
    }
}

/// A tmpfs mounted for one case (big fixtures are made in seconds there,
/// and unmounting removes them at once), or a plain directory when
/// mounting is not possible here. Unmounted on drop.
pub struct Scratch {
    dir: TempDir,
    mounted: bool,
}

impl Scratch {
    pub fn new(tag: &str, size: &str) -> Scratch {
        let dir = TempDir::new(tag);
        let mounted = root()
            && Command::new("mount")
                .args(["-t", "tmpfs", "-o", &format!("size={size},mode=755"), "tmpfs"])
                .arg(dir.path())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
        Scratch { dir, mounted }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn join<P: AsRef<Path>>(&self, p: P) -> PathBuf {
        self.dir.join(p)
    }

    /// A directory `d` in it holding `n` empty files `prefix0000000…`.
    pub fn dir_of_files(&self, prefix: &str, n: usize) -> PathBuf {
        let d = self.join("d");
        many_files(&d, prefix, n);
        d
    }

    pub fn is_tmpfs(&self) -> bool {
        self.mounted
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg("-l").arg(self.dir.path()).status();
        }
    }
}

/// Creates `n` empty files `prefix0000000…` in `dir`, made first if it
/// is missing (with its parents).
pub fn many_files(dir: &Path, prefix: &str, n: usize) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
    for i in 0..n {
        let p = dir.join(format!("{prefix}{i:07}"));
        std::fs::File::create(&p).unwrap_or_else(|e| panic!("create {}: {e}", p.display()));
    }
}

/// `dirs` directories `prefix00`, `prefix01`… in `root`, each holding
/// `files` empty files (see [`many_files`]).
pub fn many_dirs(root: &Path, prefix: &str, dirs: usize, files: usize) {
    for d in 0..dirs {
        many_files(&root.join(format!("{prefix}{d:02}")), "f", files);
    }
}

/// A chain `parent/deep/d0001/d0002/…` of `depth` directories, each
/// holding a file `f`. Built from the bottom up by renames, so every
/// operation uses a short path (the deep ones exceed PATH_MAX). Returns
/// `parent/deep`.
pub fn deep_chain(parent: &Path, depth: usize) -> PathBuf {
    let cur = parent.join("chain-cur");
    let new = parent.join("chain-new");
    std::fs::create_dir(&cur).unwrap();
    std::fs::write(cur.join("f"), b"").unwrap();
    for level in (1..depth).rev() {
        std::fs::create_dir(&new).unwrap();
        std::fs::write(new.join("f"), b"").unwrap();
        std::fs::rename(&cur, new.join(format!("d{:04}", level + 1))).unwrap();
        std::fs::rename(&new, &cur).unwrap();
    }
    let root = parent.join("deep");
    std::fs::create_dir(&root).unwrap();
    std::fs::rename(&cur, root.join("d0001")).unwrap();
    root
}

/// Removes a tree of any depth (GNU rm copes with paths beyond PATH_MAX).
pub fn remove_tree(p: &Path) {
    let _ = Command::new("rm").arg("-rf").arg(p).status();
}
