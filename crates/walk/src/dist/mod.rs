//! One walk as an MPI job (`--features mpi`; README "MPI").
//!
//! Started by `mpirun -n N`, every rank runs the tool; each walks
//! directories with the ordinary walker (its own engine and threads) and
//! turns every directory it reads into a *record* (its entries with the
//! stats the tool asked for) sent to rank 0. Rank 0 runs the tool's
//! visitor over those records in the order one sequential walk would meet
//! them ([`replay`]), so rank 0 alone prints, in GNU's order, with GNU's
//! hard-link and `-quit` semantics, and the tool's code is the same code.
//!
//! - **Work**: directories. Each rank runs one walk for the whole job
//!   (`parallel::walk_fed`), fed from its queue whenever its threads run
//!   out of work. A rank walking fewer than [`STARVING_BELOW`] directories
//!   with nothing queued asks a random other rank for work; that rank
//!   answers from its queue or, when that is empty, has its walk hand back
//!   the older half of the directories it has queued inside (nearest the
//!   root: the biggest subtrees), as libcircle gives half its queue. So
//!   work moves only when someone lacks it: each move costs the thief a
//!   lookup per path component, since it opens the directory by path.
//! - **Termination**: rank 0 knows the tree it replays, so it knows when an
//!   operand is complete (every directory the replay entered has its
//!   record); it then tells every rank that operand is over (queued and
//!   running work of it is dropped) and, at the end, that the job is. No
//!   token ring is needed: completion is decided where all the records go.
//! - **Shutdown**: every send is synchronous and non-blocking
//!   (`libcw::mpisend`), so a rank whose sends are complete has nothing in
//!   flight; each rank answers requests until its own are answered and its
//!   sends complete, then joins a non-blocking barrier while still
//!   answering. When it completes nothing is in flight anywhere.
//! - **Memory**: rank 0 holds the records that arrive ahead of its replay
//!   in memory up to a budget and in a temporary file past it ([`spill`]).
//! - **One rank**: a job of one rank is the single-process tool and never
//!   initialises MPI ([`Job::init`]), but for an ordered walk
//!   ([`Job::init_alone`]).
//! - **Threads**: the thread that initialised MPI makes every MPI call
//!   (`MPI_THREAD_FUNNELED`) and never blocks in MPI; the walker and the
//!   replay run on their own threads.

mod record;
mod replay;
mod spill;
mod wire;

use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use mpi::point_to_point::{MatchedReceiveVec, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::CommunicatorCollectives;
use mpi::Threading;

use crate::node::DirNode;
use crate::parallel::{Fed, Feed};
use crate::reader::{Reader, StatSlot};
use crate::step::Node;
use crate::{dtype, Entry, Errno, Hints, Options, Visitor};
use record::{Ctx, DirRec, Recorder};
use replay::{Replay, Store};
use wire::{Get, Item, Put};

/// Whether this process was started by an MPI launcher (Open MPI's
/// mpirun, PMIx, or MPICH's hydra/Slurm's PMI): only then is MPI
/// initialised, so the binary run by hand is the single-process tool
/// (and doesn't pay the 0.3 s of a singleton `MPI_Init`).
pub fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"].iter().any(|k| std::env::var_os(k).is_some())
}

/// The job's size as the launcher announced it in the environment (Open
/// MPI's mpirun, MPICH's hydra), before any `MPI_Init`; `None` when it
/// didn't (a bare PMIx launch).
fn announced_size() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .find_map(|k| std::env::var(k).ok()?.trim().parse().ok())
}

/// Started by a launcher as a job of one rank: the tool runs as the
/// single-process tool and MPI is never initialised. Records and a replay
/// buy nothing with one rank, and `MPI_Init` alone costs ~0.3 s (README
/// "MPI"); mpirun accepts a process that never calls it (it forwards
/// stdin and passes on the exit status as for any program).
fn alone() -> bool {
    launched() && announced_size() == Some(1)
}

/// Message tags.
const REQ: i32 = 1;
const WORK: i32 = 2;
const NONE: i32 = 3;
const REC: i32 = 4;
const END: i32 = 5;
const FINISH: i32 = 6;

/// A steal hands over at most this many items (keeps messages small).
const MAX_STOLEN: usize = 256;
/// Record batches in flight from one rank to rank 0.
const MAX_REC_SENDS: usize = 8;
/// Bounds of the wait before asking again after a refusal.
const ASK_MIN: Duration = Duration::from_micros(100);
const ASK_MAX: Duration = Duration::from_millis(4);
/// The coordinator's sleep between rounds with nothing to do doubles from
/// the first to the second while nothing happens (fast answers while
/// messages flow, little CPU while the walk just runs).
const NAP: (Duration, Duration) = (Duration::from_micros(50), Duration::from_micros(800));
/// A rank whose walk has nothing queued asks for work while it walks
/// fewer directories than this at once: a directory's requests are
/// sequential, so this many keep a Lustre client's 8 metadata RPC slots
/// busy, and a rank walking more would only move work between ranks (each
/// move costs a lookup per path component where it lands).
const STARVING_BELOW: usize = 8;
/// How long a steal request may wait for a busy rank's walk to hand
/// back work before it is answered with none.
const THIEF_WAIT: Duration = Duration::from_millis(5);
/// How long an idle walker thread waits for an item before looking at its
/// walk's own work again.
const FEED_WAIT: Duration = Duration::from_millis(2);

/// What a rank's coordinator, walker thread and (rank 0) replay share.
pub(crate) struct Shared {
    /// Directories to walk: the walker takes the newest, thieves the oldest.
    pending: Mutex<VecDeque<Item>>,
    cv: Condvar,
    /// Items the rank's walk is walking (their subtrees not done).
    roots: AtomicUsize,
    /// A walker thread found nothing to do: the rank asks for work even
    /// while its other threads are busy, so it keeps its request slots
    /// full rather than walking its last subtree with one thread.
    starving: AtomicBool,
    /// Another rank waits for work this rank's walk has queued: the walk
    /// hands some back ([`Feed::give`]).
    wanted: AtomicBool,
    /// Generations (operands) up to this one are over.
    dead: AtomicU64,
    /// The walker thread should exit.
    stop: AtomicBool,
    /// Records waiting to be sent to rank 0 (each length-prefixed).
    outbox: Mutex<Vec<u8>>,
}

impl Shared {
    fn idle(&self) -> bool {
        self.roots.load(Ordering::Acquire) == 0 && ringio::sync::lock(&self.pending).is_empty()
    }
}

/// This rank's part of an MPI job.
pub struct Job {
    world: SimpleCommunicator,
    rank: i32,
    size: i32,
    sh: Arc<Shared>,
    sends: Vec<libcw::mpisend::Send>,
    /// A steal request is out.
    asked: bool,
    /// After a refusal the next request waits this long (doubling up to
    /// [`ASK_MAX`]): at the end of a walk every rank is idle, and asking
    /// at once would only bounce messages between them.
    ask_delay: Duration,
    next_ask: Instant,
    /// Ranks whose steal requests wait for this rank's walk to hand back
    /// work, and since when.
    thieves: Vec<(i32, Instant)>,
    rng: u64,
    /// Rank 0 said the job is over.
    finished: bool,
    started: bool,
    gen: u64,
    progname: String,
    // Last: dropping it finalizes MPI.
    _universe: mpi::environment::Universe,
}

impl Job {
    /// Initialises MPI when [`launched`] by mpirun; `None` otherwise.
    /// Ranks other than 0 have their stdout and stderr pointed at
    /// `/dev/null`: rank 0 prints everything (lines from several ranks
    /// corrupt each other through mpirun's forwarding).
    /// `progname` prefixes the job's own messages.
    ///
    /// A job of one rank (announced by the launcher) is `None` too: the
    /// single-process tool, but for [`Job::init_alone`].
    pub fn init(progname: &str) -> Option<Job> {
        if !launched() {
            return None;
        }
        // mpirun gives every rank a pseudo-terminal for stdout, one rank
        // too: the output is a file's.
        libcw::forget_terminals();
        if alone() {
            return None;
        }
        Job::init_mpi(progname)
    }

    /// In a job of one rank, for a walk the single-process tool would make
    /// ordered (one thread, GNU's order: lfind's `-ls`, `-quit`, `-ok`, …,
    /// ldu's `-L`): initialises MPI after all, so the walk stays parallel
    /// and rank 0 replays it in GNU's order — on a file system that caps
    /// each client, faster than one thread, which waits for each request.
    /// `None` when not [`alone`] (MPI is then already up, or not wanted).
    pub fn init_alone(progname: &str) -> Option<Job> {
        if !alone() {
            return None;
        }
        Job::init_mpi(progname)
    }

    fn init_mpi(progname: &str) -> Option<Job> {
        let Some((universe, provided)) = mpi::initialize_with_threading(Threading::Funneled) else {
            fatal(progname, "MPI_Init failed");
        };
        if provided < Threading::Funneled {
            fatal(progname, "MPI provides no MPI_THREAD_FUNNELED");
        }
        let world = universe.world();
        let (rank, size) = (world.rank(), world.size());
        if rank != 0 {
            let _ = libcw::stdfds::mute(1);
            let _ = libcw::stdfds::mute(2);
        }
        Some(Job {
            world,
            rank,
            size,
            sh: Arc::new(Shared {
                pending: Mutex::new(VecDeque::new()),
                cv: Condvar::new(),
                roots: AtomicUsize::new(0),
                starving: AtomicBool::new(false),
                wanted: AtomicBool::new(false),
                dead: AtomicU64::new(0),
                stop: AtomicBool::new(false),
                outbox: Mutex::new(Vec::new()),
            }),
            sends: Vec::new(),
            asked: false,
            thieves: Vec::new(),
            ask_delay: ASK_MIN,
            next_ask: Instant::now(),
            rng: 0x9e37_79b9_7f4a_7c15 ^ (rank as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d),
            finished: false,
            started: false,
            gen: 0,
            progname: progname.to_string(),
            _universe: universe,
        })
    }

    /// Rank 0: the rank that replays and prints.
    pub fn is_root(&self) -> bool {
        self.rank == 0
    }

    /// Every rank calls this once its command line is parsed (`ok`):
    /// true when all could start. It is also the point before which every
    /// rank has opened (and truncated) its output files, so rank 0 can't
    /// write into one another rank truncates later.
    pub fn start(&mut self, ok: bool) -> bool {
        let mut all = 0i32;
        self.world.all_reduce_into(&(ok as i32), &mut all, mpi::collective::SystemOperation::min());
        self.started = all == 1;
        self.started
    }

    /// Rank 0: walks `roots` over the job, calling `v` as the sequential
    /// walker would.
    pub fn walk<V: Visitor>(&mut self, roots: &[Vec<u8>], opts: &Options, hints: &Hints, v: &V) {
        // mpirun ends the other ranks with SIGTERM when one dies: noted, so
        // rank 0 can say the output is incomplete before going down.
        libcw::signal::note_signals();
        let store = Store::new(&self.progname, memory_budget());
        let done = AtomicBool::new(false);
        self.sh.stop.store(false, Ordering::Relaxed);
        let mut gen = self.gen;
        let mut announced = self.sh.dead.load(Ordering::Relaxed);
        let mut nap = Nap::new();
        let shared = Arc::clone(&self.sh);
        std::thread::scope(|s| {
            let (sh, store_ref, done) = (&*shared, &store, &done);
            let emit = move |rec: Vec<u8>| store_ref.insert(rec);
            s.spawn(move || walker(sh, opts, hints, v, &emit));
            let replay = Replay { store: store_ref, sh, follow_all: hints.follow_all };
            let gen = &mut gen;
            s.spawn(move || {
                replay.run(v, roots, || {
                    *gen += 1;
                    *gen
                });
                done.store(true, Ordering::Release);
            });
            loop {
                let busy = self.poll(Some(&store));
                let dead = self.sh.dead.load(Ordering::Relaxed);
                if dead > announced {
                    announced = dead;
                    self.end_gen(dead);
                }
                if done.load(Ordering::Acquire) {
                    break;
                }
                nap.after(busy);
            }
            self.sh.stop.store(true, Ordering::Relaxed);
            self.sh.cv.notify_all();
        });
        self.gen = gen;
        if let Some(why) = store.failure() {
            self.abort(&why);
        }
        let dead = self.sh.dead.load(Ordering::Relaxed);
        if dead > announced {
            self.end_gen(dead);
        }
    }

    /// The other ranks: walk what is asked until rank 0 ends the job.
    pub fn serve<V: Visitor>(&mut self, opts: &Options, hints: &Hints, v: &V) {
        libcw::signal::note_signals();
        if fault_here() {
            // The tests' lost rank (README "MPI"): dies as a crash would.
            std::process::abort();
        }
        let shared = Arc::clone(&self.sh);
        std::thread::scope(|s| {
            let sh = &*shared;
            let emit = move |rec: Vec<u8>| {
                let mut o = ringio::sync::lock(&sh.outbox);
                o.extend_from_slice(&(rec.len() as u64).to_le_bytes());
                o.extend_from_slice(&rec);
            };
            s.spawn(move || walker(sh, opts, hints, v, &emit));
            let mut nap = Nap::new();
            while !self.finished {
                let busy = self.poll(None);
                nap.after(busy);
            }
            self.sh.dead.store(u64::MAX, Ordering::Relaxed);
            self.sh.stop.store(true, Ordering::Relaxed);
            self.sh.cv.notify_all();
        });
        self.drain();
    }

    /// Tells the other ranks operand walks up to `gen` are over, and drops
    /// this rank's queued work of them.
    fn end_gen(&mut self, gen: u64) {
        ringio::sync::lock(&self.sh.pending).retain(|i| i.gen > gen);
        for r in 1..self.size {
            self.send(r, END, gen.to_le_bytes().to_vec());
        }
    }

    fn send(&mut self, to: i32, tag: i32, data: Vec<u8>) {
        let p = self.world.process_at_rank(to);
        self.sends.push(libcw::mpisend::Send::start(&p, tag, data));
    }

    fn random_other(&mut self) -> i32 {
        // xorshift64*: only needs to spread requests.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        let r = (self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as i32;
        let k = r.rem_euclid(self.size - 1);
        if k >= self.rank {
            k + 1
        } else {
            k
        }
    }

    /// One round of the coordinator: receives everything waiting, sends
    /// records, completes sends, asks for work when idle. True if anything
    /// happened.
    fn poll(&mut self, store: Option<&Store>) -> bool {
        if libcw::signal::interrupted() {
            self.abort("the job was ended (a rank died, or a signal): the output is incomplete");
        }
        let mut any = false;
        while let Some((msg, st)) = self.world.any_process().immediate_matched_probe() {
            any = true;
            let (tag, src) = (st.tag(), st.source_rank());
            let (data, _) = (msg, st).matched_receive_vec::<u8>();
            match tag {
                REQ => {
                    let queued = !ringio::sync::lock(&self.sh.pending).is_empty();
                    if queued || self.finished || self.sh.roots.load(Ordering::Acquire) == 0 {
                        self.give(src, 2);
                    } else {
                        // Busy with nothing queued: the walk hands back
                        // part of what it has queued inside.
                        self.thieves.push((src, Instant::now()));
                        self.sh.wanted.store(true, Ordering::Relaxed);
                    }
                }
                WORK => {
                    self.asked = false;
                    self.ask_delay = ASK_MIN;
                    let dead = self.sh.dead.load(Ordering::Relaxed);
                    let mut g = Get::new(&data);
                    let n = g.u64();
                    let mut q = ringio::sync::lock(&self.sh.pending);
                    for _ in 0..n {
                        let it = Item::get(&mut g);
                        if it.gen > dead && !self.finished {
                            q.push_back(it);
                        }
                    }
                    drop(q);
                    self.sh.cv.notify_all();
                }
                NONE => {
                    self.asked = false;
                    self.next_ask = Instant::now() + self.ask_delay;
                    self.ask_delay = (self.ask_delay * 2).min(ASK_MAX);
                }
                REC => {
                    if let Some(store) = store {
                        let mut g = Get::new(&data);
                        while !g.done() {
                            store.insert(g.bytes().to_vec());
                        }
                    }
                }
                END => {
                    let gen = Get::new(&data).u64();
                    self.sh.dead.fetch_max(gen, Ordering::Relaxed);
                    ringio::sync::lock(&self.sh.pending).retain(|i| i.gen > gen);
                }
                FINISH => self.finished = true,
                _ => {}
            }
        }
        if !self.thieves.is_empty() {
            any |= self.serve_thieves();
        }
        if self.rank != 0 && self.sends.len() < MAX_REC_SENDS {
            let out = std::mem::take(&mut *ringio::sync::lock(&self.sh.outbox));
            // Not counted as activity: records flow all through a walk,
            // and batching them over the coordinator's longer naps costs
            // less CPU than a message per round.
            if !out.is_empty() && !self.finished {
                self.send(0, REC, out);
            }
        }
        self.sends.retain_mut(|s| !s.test());
        // A walker thread's report of starving lasts until the next item
        // is taken: with items already waiting, asking again would only
        // pile up work taken from the others.
        let want = self.sh.idle()
            || (self.sh.starving.load(Ordering::Relaxed)
                && ringio::sync::lock(&self.sh.pending).is_empty());
        if self.size > 1 && !self.asked && !self.finished && want && Instant::now() >= self.next_ask
        {
            let to = self.random_other();
            self.send(to, REQ, Vec::new());
            self.asked = true;
        }
        any
    }

    /// Answers the waiting steal requests: with what the walk handed
    /// back, shared out, or with none once this rank is idle or a request
    /// waited too long.
    fn serve_thieves(&mut self) -> bool {
        let queued = ringio::sync::lock(&self.sh.pending).len();
        let done = self.finished || self.sh.idle();
        let mut any = false;
        if queued > 0 || done {
            let n = self.thieves.len();
            for (t, _) in std::mem::take(&mut self.thieves) {
                self.give(t, n);
            }
            any = true;
        } else {
            let old: Vec<i32> = self
                .thieves
                .iter()
                .filter(|(_, since)| since.elapsed() > THIEF_WAIT)
                .map(|&(t, _)| t)
                .collect();
            for t in old {
                self.thieves.retain(|&(r, _)| r != t);
                self.send(t, NONE, Vec::new());
                any = true;
            }
        }
        self.sh.wanted.store(!self.thieves.is_empty(), Ordering::Relaxed);
        any
    }

    /// Answers a steal request with the oldest 1/`share` of the queue
    /// (rounded up).
    fn give(&mut self, to: i32, share: usize) {
        let items: Vec<Item> = {
            let mut q = ringio::sync::lock(&self.sh.pending);
            let n = q.len().div_ceil(share.max(1)).min(MAX_STOLEN);
            if self.finished {
                Vec::new()
            } else {
                q.drain(..n).collect()
            }
        };
        if items.is_empty() {
            self.send(to, NONE, Vec::new());
            return;
        }
        let mut p = Put(Vec::new());
        p.u64(items.len() as u64);
        for it in &items {
            it.put(&mut p);
        }
        self.send(to, WORK, p.0);
    }

    /// Ends this rank's part: see the module docs ("Shutdown").
    fn drain(&mut self) {
        self.finished = true;
        ringio::sync::lock(&self.sh.pending).clear();
        while self.asked || !self.sends.is_empty() {
            if !self.poll(None) {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
        let mut barrier = self.world.immediate_barrier();
        loop {
            self.poll(None);
            match barrier.test() {
                Ok(_) => break,
                Err(b) => barrier = b,
            }
            std::thread::sleep(Duration::from_micros(50));
        }
        while !self.sends.is_empty() {
            self.poll(None);
        }
    }
}

impl Job {
    /// Rank 0: ends the job (the other ranks' `serve` returns) and waits
    /// until every rank has: call it before printing what must only be
    /// printed for a complete walk (du's total) — a rank lost by then
    /// never joins, mpirun ends the job, and [`Job::abort`] says so.
    /// Later calls (and the drop) do nothing.
    pub fn finish(&mut self) {
        if self.rank == 0 && self.started && !self.finished {
            for r in 1..self.size {
                self.send(r, FINISH, Vec::new());
            }
            self.drain();
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        self.finish();
    }
}

impl Job {
    /// Ends the whole job at once (`MPI_Abort`), rank 0 saying why first:
    /// nothing after this looks complete (no du total, exit status 1).
    fn abort(&self, why: &str) -> ! {
        if self.rank == 0 {
            let line = format!("{}: {why}\n", self.progname);
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
        self.world.abort(1)
    }
}

/// A rank's walk: one walk with the engine's threads, fed the items of
/// its queue (newest first) as its threads run out of work, so stolen
/// subtrees are walked side by side, each thread's engine and the rank's
/// request slots stay busy, and no item pays for a walk of its own.
fn walker<V: Visitor>(
    sh: &Shared,
    opts: &Options,
    hints: &Hints,
    v: &V,
    emit: &(dyn Fn(Vec<u8>) + Sync),
) {
    // The first item tells whether the tree is on a high-latency file
    // system (the walk's threads and engines depend on it).
    let policy = {
        let mut q = ringio::sync::lock(&sh.pending);
        while q.is_empty() && !sh.stop.load(Ordering::Relaxed) {
            q = ringio::sync::wait(&sh.cv, q);
        }
        match q.back() {
            Some(it) => ringio::Walkers::for_roots(&opts.engine, std::slice::from_ref(&it.path)),
            None => return,
        }
    };
    // Order between directories is the replay's business; within one, a
    // sorted walk (-s) must list sorted, which the fed walk's reader does.
    let wopts = Options { ordered: false, ..opts.clone() };
    let limit = crate::fds::threads_for_limit();
    let warm = policy.threads(wopts.threads, false).min(limit).max(1);
    let cold = policy.cold_threads(wopts.threads, false).min(limit).max(warm);
    let rec = Recorder { inner: v, hints, sh, emit };
    let feed = RankFeed { rec: &rec, opts, hints };
    crate::parallel::walk_fed((warm, cold), &wopts, policy, &rec, &feed);
}

/// What a rank's walk is fed from: its queue, which steals fill, and to
/// which it hands back its oldest directories when other ranks ask.
struct RankFeed<'r, V> {
    rec: &'r Recorder<'r, V>,
    opts: &'r Options,
    hints: &'r Hints<'r>,
}

impl<'r, V: Visitor> Feed<Recorder<'r, V>> for RankFeed<'r, V> {
    fn next(&self, rd: &mut Reader, _: &mut (), busy: usize) -> Fed<Recorder<'r, V>> {
        let sh = self.rec.sh;
        let item = {
            let mut q = ringio::sync::lock(&sh.pending);
            loop {
                if sh.stop.load(Ordering::Relaxed) {
                    return Fed::Stop;
                }
                if let Some(it) = q.pop_back() {
                    sh.starving.store(false, Ordering::Relaxed);
                    // Counted before the queue is seen empty: the rank is
                    // not idle while it sets the item up.
                    sh.roots.fetch_add(1, Ordering::AcqRel);
                    break it;
                }
                // A short wait: the walk's own threads may push work
                // meanwhile, which this thread should then help with.
                let (g, t) = ringio::sync::wait_timeout(&sh.cv, q, FEED_WAIT);
                q = g;
                if t.timed_out() && q.is_empty() {
                    sh.starving.store(busy < STARVING_BELOW, Ordering::Relaxed);
                    return Fed::Nothing;
                }
            }
        };
        match fed_root(self.rec, rd, &item, self.opts, self.hints) {
            Some(node) => Fed::Root(node),
            None => {
                sh.roots.fetch_sub(1, Ordering::AcqRel);
                Fed::Nothing
            }
        }
    }

    fn wanted(&self) -> bool {
        self.rec.sh.wanted.load(Ordering::Relaxed)
    }

    fn give(&self, dirs: &[Node<Recorder<'r, V>>]) {
        let sh = self.rec.sh;
        let mut q = ringio::sync::lock(&sh.pending);
        for d in dirs {
            let mut chain = d.acc.chain.clone();
            // An item's chain is its ancestors'; the directory's own
            // identity is added again where it is walked.
            if chain.last().is_some()
                && d.dev_ino().map(|i| (i.dev, i.ino)) == chain.last().copied()
            {
                chain.pop();
            }
            q.push_back(Item {
                gen: d.acc.ctx.gen,
                path: d.path.clone(),
                depth: d.depth,
                operand: false,
                root_dev: d.acc.ctx.root_dev.load(Ordering::Relaxed),
                chain,
            });
        }
        sh.wanted.store(false, Ordering::Relaxed);
    }
}

/// The node an item's walk starts from, after recording what its root
/// tells (an operand's own entry; a directory gone or replaced); `None`
/// when there is nothing to walk below it.
fn fed_root<'r, V: Visitor>(
    rec: &Recorder<'r, V>,
    rd: &mut Reader,
    item: &Item,
    opts: &Options,
    hints: &Hints,
) -> Option<Node<Recorder<'r, V>>> {
    if item.gen <= rec.sh.dead.load(Ordering::Relaxed) {
        return None;
    }
    let ctx = Arc::new(Ctx { gen: item.gen, root_dev: AtomicU64::new(item.root_dev) });
    // Below the operands a directory is only stat'ed when loops are
    // watched for: its listing came from its parent's, opening it checks
    // it is still a directory, and each stat by path costs a lookup per
    // component on a file system that caches nothing.
    let stat = if item.operand {
        Some(rd.stat_path(&item.path, opts.follow_roots))
    } else if hints.follow_all {
        Some(rd.stat_path(&item.path, true))
    } else {
        None
    };
    let (st, followed) = match stat {
        None => (None, false),
        Some(StatSlot::Ok { st, followed }) => (Some(st), followed),
        Some(StatSlot::Err(errno)) => {
            if item.operand {
                rec.root_record(item.gen, &item.path, Err(errno));
            } else {
                rec.list_error(item.gen, &item.path, errno);
            }
            return None;
        }
    };
    let d_type = st.as_ref().map_or(dtype::DIR, crate::node::dtype_of);
    let e = Entry {
        path: &item.path,
        name: if item.operand { &item.path } else { base_name(&item.path) },
        depth: item.depth,
        d_type,
        ino: st.as_ref().map_or(0, |s| s.stx_ino),
        stat: st.as_ref(),
        stat_error: None,
        followed,
        dirfd: libc::AT_FDCWD,
        rel_name: &item.path,
        index: 0,
    };
    if item.operand {
        if let Some(id) = record::id_of(&e) {
            ctx.root_dev.store(id.0, Ordering::Relaxed);
        }
        rec.root_record(item.gen, &item.path, Ok(&e));
        if !e.is_dir() || hints.max_depth == 0 {
            return None;
        }
    } else if !e.is_dir() {
        // Replaced since its parent was read.
        rec.list_error(item.gen, &item.path, Errno(libc::ENOTDIR));
        return None;
    }
    let mut chain = item.chain.clone();
    if hints.follow_all {
        chain.extend(record::id_of(&e));
    }
    let acc = DirRec { ctx, chain, ..DirRec::default() };
    Some(DirNode::from_entry(&e, st, None, acc))
}

fn base_name(path: &[u8]) -> &[u8] {
    let trimmed = path.strip_suffix(b"/").unwrap_or(path);
    match trimmed.iter().rposition(|&c| c == b'/') {
        Some(i) => &path[i + 1..],
        None => path,
    }
}

/// The coordinator's sleep between rounds (see [`NAP`]).
struct Nap(Duration);

impl Nap {
    fn new() -> Nap {
        Nap(NAP.0)
    }

    /// After a round: nothing happened (`busy` false) sleeps, longer each
    /// time; anything happening resets the sleep.
    fn after(&mut self, busy: bool) {
        if busy {
            self.0 = NAP.0;
        } else {
            std::thread::sleep(self.0);
            self.0 = (self.0 * 2).min(NAP.1);
        }
    }
}

/// `RINGUTILS_TEST_MPI_FAULT=die:R`: rank R (not 0) dies once the job starts (how
/// the tests show a lost rank fails the job loudly).
fn fault_here() -> bool {
    let Some(v) = std::env::var_os("RINGUTILS_TEST_MPI_FAULT") else { return false };
    let rank = std::env::var("OMPI_COMM_WORLD_RANK").or_else(|_| std::env::var("PMI_RANK"));
    match (v.to_str().and_then(|v| v.strip_prefix("die:")), rank) {
        (Some(r), Ok(me)) => r == me,
        _ => false,
    }
}

/// Bytes of records rank 0 holds in memory for its replay before the
/// rest go to a temporary file (`spill`): `RINGUTILS_MPI_MEMORY=BYTES`, for
/// the tests (a tiny budget spills nearly every record) and for nodes
/// short of memory.
fn memory_budget() -> usize {
    std::env::var("RINGUTILS_MPI_MEMORY")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(spill::DEFAULT_BUDGET)
}

/// An error of the job itself (not of the walk): reported GNU-style on
/// stderr before MPI is up.
fn fatal(progname: &str, msg: &str) -> ! {
    let line = format!("{progname}: {msg}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    std::process::exit(1)
}
