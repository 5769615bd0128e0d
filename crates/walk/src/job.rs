//! Where a tool's walk runs: in this process, or (cargo feature `mpi`) as
//! one rank of an MPI job. The tools make the same calls either way —
//! [`Job::join`] first, [`Job::start`] once the command line is parsed,
//! then [`Job::walk`] (or, on the ranks that only read directories for
//! rank 0, [`Job::serve`]) and [`Job::finish`] — so the sequence is
//! written once, here, and a tool crate needs no `cfg(feature = "mpi")`
//! of its own for it. Without the feature a job is always this process
//! alone and [`Job::walk`] is [`crate::walk`].

use crate::{Options, Visitor};

/// What the ranks reading directories for rank 0 can know in advance of
/// which to descend (rank 0's replay decides; see `dist`). Ignored by a
/// walk in one process, which asks the visitor.
#[derive(Clone, Copy)]
pub struct Hints<'a> {
    /// Entries at this depth or deeper are not descended (`-maxdepth`).
    pub max_depth: usize,
    /// Directories on another device than their operand's are not
    /// descended (`-xdev`, `du -x`).
    pub xdev: bool,
    /// Symlinks below the operands are followed (`-L`): directories carry
    /// their ancestors' identities for loop detection.
    pub follow_all: bool,
    /// Paths not to descend (`du --exclude`).
    pub skip: Option<PathTest<'a>>,
}

/// A test on a path (true: don't descend).
pub type PathTest<'a> = &'a (dyn Fn(&[u8]) -> bool + Sync);

/// What this process does in the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Walk and print: the only process, or rank 0 of an MPI job.
    Main,
    /// Read directories for rank 0 ([`Job::serve`]), print nothing.
    Helper,
    /// Some rank could not start: every rank ends with status 1.
    Failed,
}

/// This process's part of the walk.
pub struct Job {
    #[cfg(feature = "mpi")]
    mpi: Option<crate::dist::Job>,
}

impl Job {
    /// Call first, before anything is printed: under mpirun this joins the
    /// MPI job, and every rank but 0 goes quiet (rank 0 prints
    /// everything). `progname` prefixes the job's own messages. Started any
    /// other way, or as a job of one rank, the process walks alone.
    pub fn join(progname: &str) -> Job {
        #[cfg(feature = "mpi")]
        {
            Job { mpi: crate::dist::Job::init(progname) }
        }
        #[cfg(not(feature = "mpi"))]
        {
            let _ = progname;
            Job {}
        }
    }

    /// Call once the command line is parsed, before anything only rank 0
    /// does (reading a list of operands from stdin) can fail and leave the
    /// others waiting. `ordered`: the tool walks in GNU's order on one
    /// thread (lfind `-ls`, `-quit`, `-ok`…; ldu `-L`); in a job of one
    /// rank such a walk is replayed from a parallel walk instead, which is
    /// faster where each request waits (`dist::Job::init_alone`). `ok`:
    /// this rank can run what was asked; a job runs only if every rank
    /// can, else every rank gets [`Role::Failed`] (a process alone gets
    /// `Failed` for `!ok` too).
    pub fn start(&mut self, progname: &str, ordered: bool, ok: bool) -> Role {
        #[cfg(feature = "mpi")]
        {
            if self.mpi.is_none() && ordered {
                self.mpi = crate::dist::Job::init_alone(progname);
            }
            if let Some(j) = self.mpi.as_mut() {
                if !j.start(ok) {
                    return Role::Failed;
                }
                if !j.is_root() {
                    return Role::Helper;
                }
            }
        }
        #[cfg(not(feature = "mpi"))]
        let _ = (progname, ordered);
        if ok {
            Role::Main
        } else {
            Role::Failed
        }
    }

    /// This process is one rank of an MPI job (of one rank or more).
    pub fn in_job(&self) -> bool {
        self.replays()
    }

    /// Rank 0 replays the ranks' walk in the order a sequential walk meets
    /// the entries (so du counts the first hard link met, as GNU does).
    pub fn replays(&self) -> bool {
        #[cfg(feature = "mpi")]
        {
            self.mpi.is_some()
        }
        #[cfg(not(feature = "mpi"))]
        false
    }

    /// Walks `roots`, calling `v` (over the job: as the sequential walker
    /// would, on rank 0).
    pub fn walk<V: Visitor>(&mut self, roots: &[Vec<u8>], opts: &Options, hints: &Hints, v: &V) {
        #[cfg(feature = "mpi")]
        if let Some(j) = self.mpi.as_mut() {
            j.walk(roots, opts, hints, v);
            return;
        }
        let _ = hints;
        crate::walk(roots, opts, v);
    }

    /// A [`Role::Helper`]'s whole work: read what rank 0's job asks for
    /// until it ends the job.
    pub fn serve<V: Visitor>(&mut self, opts: &Options, hints: &Hints, v: &V) {
        #[cfg(feature = "mpi")]
        if let Some(j) = self.mpi.as_mut() {
            j.serve(opts, hints, v);
        }
        #[cfg(not(feature = "mpi"))]
        let _ = (opts, hints, v);
    }

    /// Ends the job and waits until every rank has: call before printing
    /// what must only be printed for a complete walk (du's total). Nothing
    /// to do for a process walking alone.
    pub fn finish(&mut self) {
        #[cfg(feature = "mpi")]
        if let Some(j) = self.mpi.as_mut() {
            j.finish();
        }
    }
}
