//! `-R`: the next directories are read ahead by other threads (see
//! `listing::read_ahead`), each reader with its own directory reader. (With `-L` the
//! readers don't go ahead on their own: a symlink loop would have them
//! fill the bound with paths the main thread refuses. Without it a loop —
//! a bind mount of a directory below itself — ends where the mount does,
//! so going ahead stays finite.)

use std::os::fd::OwnedFd;

use listing::read_ahead::{GoOn, Job};
use ringio::Errno;

use crate::plan::Plan;
use crate::read::{DirReader, Listing};

/// Reader threads, at most (fewer under a tight descriptor limit: each
/// holds a directory and up to a window of O_PATH descriptors open).
pub const READERS: usize = 16;
/// Descriptors counted per reader, and kept for everything else, when the
/// limit decides how many readers run.
pub const DESCRIPTORS_PER_READER: usize = 64;
/// Reader threads on a local file system, at most: there they are CPU
/// bound, and the output is written by one thread anyway.
pub const LOCAL_READERS: usize = 8;
/// How far down the pending stack directories are requested.
pub const AHEAD: usize = 16;

pub type Ahead = listing::read_ahead::ReadAhead<Listing>;

/// One read-ahead thread: its directory reader and what it lists with.
struct Reader {
    reader: DirReader,
    plan: Plan,
    want_id: bool,
    /// Whether listings may keep their directory open for the
    /// subdirectories (the descriptor limit leaves room for them).
    keep: bool,
}

impl listing::read_ahead::Source for Reader {
    type Out = Listing;

    fn read(&mut self, dir: &Job, keep: bool) -> Result<Listing, Errno> {
        let how = (self.want_id, keep && self.keep);
        self.reader.read_dir_in(&self.plan, dir.parent(), &dir.path, how)
    }

    fn subdirs(&self, path: &[u8], l: &mut Listing) -> (Option<OwnedFd>, Vec<Vec<u8>>) {
        let dots = |n: &[u8]| n == b"." || n == b"..";
        let kids: Vec<Vec<u8>> = l
            .entries
            .iter()
            .filter(|e| e.is_dir() && !dots(&e.name))
            .map(|e| crate::join(path, &e.name))
            .collect();
        let kept = l.kept.take().filter(|_| !kids.is_empty());
        (kept, kids)
    }

    fn finish(self) {
        self.reader.leak();
    }
}

/// Starts the readers (at most `readers`, each engine with `per` pool
/// workers), which stat each directory for its identity when `want_id`
/// and go on into subdirectories on their own as `go_on` says, opening
/// them from their parent when `keep`; None if no thread could be started.
pub fn start(
    plan: &Plan,
    (birth, want_id): (bool, bool),
    (go_on, keep): (GoOn, bool),
    readers: usize,
    per: usize,
) -> Option<Ahead> {
    let plan = plan.clone();
    let make = move || Reader {
        reader: DirReader::with_threads(birth, per),
        plan: plan.clone(),
        want_id,
        keep,
    };
    Ahead::start(readers.min(READERS), "lsr-read", go_on, make)
}
