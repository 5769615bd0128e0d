//! -exec, -execdir, -ok and -okdir: building command lines, batching the
//! `{} +` forms, prompting, and running children.
//!
//! -execdir children start in the entry's directory by descriptor (fchdir
//! between fork and exec, `libcw::proc::command_in_dir`), so a
//! directory renamed or swapped for a symlink mid-walk can't redirect them.

use std::ffi::{CStr, OsStr};
use std::io::{BufRead, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use crate::parse::quoted;

/// Total bytes of arguments one batched command may get (GNU sizes its
/// batches from ARG_MAX; this stays well inside Linux's limit).
const BATCH_BYTES: usize = 128 * 1024;

#[derive(Debug)]
pub struct ExecSpec {
    pub argv: Vec<Vec<u8>>,
    /// -execdir / -okdir.
    pub dir: bool,
    /// -ok / -okdir.
    pub ok: bool,
    /// `{} +`.
    pub plus: bool,
    pub batch: Mutex<Batch>,
}

/// Arguments collected for one `{} +` command line.
#[derive(Debug, Default)]
pub struct Batch {
    args: Vec<Vec<u8>>,
    bytes: usize,
    /// For -execdir +: the directory (a descriptor of our own, closed when
    /// the batch runs or is dropped) and its path.
    dir: Option<(OwnedFd, Vec<u8>)>,
}

/// Where a command runs.
pub enum Cwd<'a> {
    /// Inherit ours (-exec).
    Here,
    /// A directory descriptor (-execdir below a root).
    Fd(RawFd),
    /// A path (-execdir on a root: its parent directory).
    Path(&'a [u8]),
}

/// How one command ended.
pub enum Outcome {
    Success,
    Failure,
    /// Could not run or died of a signal (already reported).
    Error,
}

impl ExecSpec {
    pub fn new(argv: Vec<Vec<u8>>, dir: bool, ok: bool, plus: bool) -> ExecSpec {
        ExecSpec { argv, dir, ok, plus, batch: Mutex::new(Batch::default()) }
    }

    /// The command line for one file (`;` forms): every `{}` replaced.
    pub fn expand(&self, arg: &[u8]) -> Vec<Vec<u8>> {
        self.argv
            .iter()
            .map(|a| {
                if !a.windows(2).any(|w| w == b"{}") {
                    return a.clone();
                }
                let mut v = Vec::with_capacity(a.len() + arg.len());
                let mut i = 0;
                while i < a.len() {
                    if a[i..].starts_with(b"{}") {
                        v.extend_from_slice(arg);
                        i += 2;
                    } else {
                        v.push(a[i]);
                        i += 1;
                    }
                }
                v
            })
            .collect()
    }

    /// Asks `< cmd ... path > ? ` on stderr and reads the answer from stdin.
    pub fn confirm(&self, path: &[u8]) -> bool {
        let prompt = cli::locale::trf(c"< %s ... %s > ? ", &[&self.argv[0], path]);
        let _ = std::io::stderr().write_all(&prompt);
        let mut line = Vec::new();
        let _ = std::io::stdin().lock().read_until(b'\n', &mut line);
        // GNU's yesno: the line without its newline, through rpmatch (the
        // locale's YESEXPR: de takes `j`, ja `はい`).
        let reply = line.strip_suffix(b"\n").unwrap_or(&line);
        libcw::locale::yes_or_no(reply) == Some(true)
    }

    /// Adds one argument to the batch; runs the batch first when it is full
    /// or (for -execdir) belongs to another directory. Returns false if a
    /// command run now failed.
    /// `dir` is (base descriptor, directory relative to it, its path as the
    /// batch key) for -execdir.
    pub fn add(
        &self,
        arg: &[u8],
        dir: Option<(RawFd, &CStr, &[u8])>,
        before_run: &mut dyn FnMut(),
    ) -> bool {
        let mut b = ringio::sync::lock(&self.batch);
        let mut ok = true;
        let other_dir = match (&b.dir, dir) {
            (Some((_, p)), Some((_, _, k))) => p.as_slice() != k,
            _ => false,
        };
        if !b.args.is_empty() && (b.bytes + arg.len() + 1 > BATCH_BYTES || other_dir) {
            before_run();
            ok = self.run_batch(&mut b);
        }
        if b.dir.is_none() {
            if let Some((fd, rel, p)) = dir {
                // Our own descriptor: the walker closes its own when the
                // directory is done, and the batch may run later.
                match ringio::sys::openat_owned(fd, rel, libc::O_RDONLY | libc::O_DIRECTORY, 0) {
                    Ok(own) => b.dir = Some((own, p.to_vec())),
                    Err(e) => {
                        cli::msg::error(&format!("{}: {}", quoted(p), e.message()));
                        return false;
                    }
                }
            }
        }
        b.bytes += arg.len() + 1;
        b.args.push(arg.to_vec());
        ok
    }

    /// Runs what is batched (end of walk). Returns false if it failed.
    pub fn flush(&self) -> bool {
        let mut b = ringio::sync::lock(&self.batch);
        if b.args.is_empty() {
            return true;
        }
        self.run_batch(&mut b)
    }

    fn run_batch(&self, b: &mut Batch) -> bool {
        let mut argv: Vec<Vec<u8>> = self.argv[..self.argv.len() - 1].to_vec();
        argv.append(&mut b.args);
        b.bytes = 0;
        let dir = b.dir.take();
        let cwd = match &dir {
            Some((fd, _)) => Cwd::Fd(fd.as_raw_fd()),
            None => Cwd::Here,
        };
        let r = run(&argv, cwd, false);
        drop(dir);
        matches!(r, Outcome::Success)
    }
}

/// Runs a command and waits for it.
pub fn run(argv: &[Vec<u8>], cwd: Cwd, null_stdin: bool) -> Outcome {
    let mut cmd = Command::new(OsStr::from_bytes(&argv[0]));
    cmd.args(argv[1..].iter().map(|a| OsStr::from_bytes(a)));
    match cwd {
        Cwd::Here => {}
        Cwd::Fd(fd) => libcw::proc::command_in_dir(&mut cmd, fd),
        Cwd::Path(p) => {
            cmd.current_dir(OsStr::from_bytes(p));
        }
    }
    if null_stdin {
        cmd.stdin(Stdio::null());
    }
    // Spawned and waited for through libcw::signal so that SIGINT/SIGTERM/SIGHUP
    // reach the command too and lfind ends only after it (no orphans).
    let status = libcw::signal::spawn_child(&mut cmd)
        .and_then(|mut child| libcw::signal::wait_child(&mut child));
    match status {
        Ok(st) => {
            use std::os::unix::process::ExitStatusExt;
            if st.success() {
                Outcome::Success
            } else if let Some(sig) = st.signal() {
                cli::msg::error_bytes(&[&cli::locale::trf(
                    c"%s terminated by signal %d",
                    &[quoted(&argv[0]).as_bytes(), sig.to_string().as_bytes()],
                )]);
                Outcome::Error
            } else {
                Outcome::Failure
            }
        }
        Err(e) => {
            let text = match e.raw_os_error() {
                Some(n) => ringio::Errno(n).message(),
                None => e.to_string(),
            };
            cli::msg::error(&format!("{}: {}", quoted(&argv[0]), text));
            Outcome::Error
        }
    }
}
