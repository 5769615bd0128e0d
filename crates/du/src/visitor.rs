//! The walk visitor: counts every entry once into its directory, prints a
//! directory's line when its subtree is done (post-order, so never before
//! its descendants' lines), and reports what could not be read.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use cli::timefmt::Timestamp;
use hashbrown::HashSet;
use ringio::{DevIno, Errno, Statx};
use walk::{dtype, Entry, StatNeed, Visit, Visitor, WalkError};

use crate::line;
use crate::links::{DirWaits, FileWait, Id, Key, Links};
use crate::plan::{Deref, Plan, TimeKind};
use crate::progress::Progress;
use crate::report::DuError;
use crate::sink::Sink;
use crate::tally::{Dui, Tally};

/// How files reached more than once are handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkMode {
    /// `-l`: counted every time.
    CountAll,
    /// The walk is sequential in GNU's order: the first met counts.
    Sequential,
    /// The walk is parallel: multiply-linked files are decided per operand
    /// (see [`crate::links`]).
    Parallel,
}

/// What du remembers per directory while its subtree is walked.
pub struct Acc {
    /// The children's sizes (and, without `-S`, the subdirectories' totals).
    sum: Tally,
    /// Some total below depends on undecided hard links.
    dirty: AtomicBool,
    /// Position in the walk (only kept in [`LinkMode::Parallel`]).
    key: Key,
    /// Its number in [`Links`] once it holds a candidate.
    dir_no: AtomicU32,
    /// Its candidates' `-a` lines.
    waits: Mutex<DirWaits>,
}

const NO_DIR: u32 = u32::MAX;

impl Default for Acc {
    fn default() -> Self {
        Acc {
            sum: Tally::default(),
            dirty: AtomicBool::new(false),
            key: Key::default(),
            dir_no: AtomicU32::new(NO_DIR),
            waits: Mutex::default(),
        }
    }
}

/// What the operands decide about a count: how hard links are counted
/// and which identities are remembered across operands.
pub struct RootSet {
    pub mode: LinkMode,
    /// Several operands (or `-L`): files seen under one are not counted
    /// again under another.
    pub hash_all: bool,
    /// Non-directory operands, which a walk of another operand may meet.
    pub root_ids: HashSet<Id>,
    /// `--files0-from` name errors, each with the number of operands before it.
    pub name_errors: Vec<(usize, DuError)>,
    /// How many operands there are.
    pub count: usize,
}

/// One walker thread's state.
pub struct Local {
    /// Lines not yet handed to the sink.
    lines: Vec<u8>,
    /// Everything this thread counted (for `-c`).
    total: Dui,
    /// Counts for the progress line not yet added to it, made under
    /// operand `operand` (see [`Progress::add`]).
    entries: u64,
    bytes: u64,
    operand: u64,
}

/// Progress is published in steps this big, to keep threads apart.
const PROGRESS_STEP: u64 = 2048;

pub struct Du<'a> {
    plan: &'a Plan,
    sink: &'a Sink,
    progress: Option<&'a Progress>,
    links: Links,
    mode: LinkMode,
    /// Directories (and operands) are deduplicated too: several operands or `-L`.
    hash_all: bool,
    /// Every file is deduplicated: `-L`, where symlinks reach files twice.
    hash_every_file: bool,
    /// Non-directory operands, which a walk of another operand may meet.
    root_ids: HashSet<Id>,
    root_dev: AtomicU64,
    failed: AtomicBool,
    total: Mutex<Dui>,
    /// `--files0-from` name errors, each with the number of operands before it.
    name_errors: Mutex<Vec<(usize, DuError)>>,
    roots_started: AtomicUsize,
    /// How many operands there are.
    roots: usize,
    /// The current operand's walk ended early (`WalkError::Moved`): its
    /// hard links are still to be decided, unprinted, once it is over.
    aborted: AtomicBool,
    with_time: bool,
    /// `--json`: both byte counts are kept (`Dui::alt`).
    both_sizes: bool,
}

impl<'a> Du<'a> {
    pub fn new(
        plan: &'a Plan,
        sink: &'a Sink,
        progress: Option<&'a Progress>,
        roots: RootSet,
    ) -> Du<'a> {
        let RootSet { mode, hash_all, root_ids, name_errors, count: roots } = roots;
        Du {
            plan,
            sink,
            progress,
            links: Links::default(),
            mode,
            hash_all: hash_all && mode != LinkMode::CountAll,
            hash_every_file: plan.deref == Deref::Always && mode != LinkMode::CountAll,
            root_ids,
            root_dev: AtomicU64::new(0),
            failed: AtomicBool::new(false),
            // GNU's grand total starts from a zero time, not from "no
            // time": `-c --time` with nothing counted shows the epoch, and
            // the total's time is never before it.
            total: Mutex::new(Dui { time: Timestamp::default(), ..Dui::default() }),
            name_errors: Mutex::new(name_errors),
            roots_started: AtomicUsize::new(0),
            roots,
            aborted: AtomicBool::new(false),
            with_time: plan.time.is_some(),
            both_sizes: plan.json.is_some(),
        }
    }

    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// Everything counted (valid once the walk is over).
    pub fn grand_total(&self) -> Dui {
        *ringio::sync::lock(&self.total)
    }

    pub fn fail(&self, e: &DuError) {
        self.failed.store(true, Ordering::Relaxed);
        self.sink.error(&e.message());
    }

    /// A root operand, `path`, starts (the previous one's walk is over):
    /// report the list errors that came before it.
    fn start_root(&self, local: &mut Local, path: &[u8]) {
        self.end_aborted(local);
        let k = self.roots_started.fetch_add(1, Ordering::Relaxed);
        if let Some(p) = self.progress {
            p.start_operand(k as u64 + 1, path);
        }
        self.flush_name_errors(k);
    }

    /// The walk is over: what an operand that ended early left.
    pub fn end_walk(&self) {
        let mut local = self.local();
        self.end_aborted(&mut local);
        ringio::sync::lock(&self.total).add(&local.total);
    }

    /// If the last operand's walk ended early, decides its hard links for
    /// the totals (and for the operands after it) without printing the
    /// lines that waited for them: GNU prints nothing more of an operand
    /// once fts_read failed. Called only once that walk is wholly over
    /// (no thread still records candidates).
    fn end_aborted(&self, local: &mut Local) {
        if self.aborted.swap(false, Ordering::Relaxed) {
            let more = self.roots_started.load(Ordering::Relaxed) < self.roots;
            let grand = self.links.resolve(self.plan.separate_dirs, more, |_| {});
            local.total.add(&grand);
        }
    }

    /// Reports the `--files0-from` errors positioned before operand `k`
    /// (all of them for `usize::MAX`).
    pub fn flush_name_errors(&self, k: usize) {
        let mut errs = ringio::sync::lock(&self.name_errors);
        let n = errs.iter().take_while(|(pos, _)| *pos <= k).count();
        for (_, e) in errs.drain(..n) {
            self.fail(&e);
        }
    }

    fn dui_of(&self, st: &Statx) -> Dui {
        let apparent = (st.stx_size as i64).max(0) as u64;
        let disk = st.stx_blocks.saturating_mul(512);
        let (bytes, alt) = if self.plan.apparent { (apparent, disk) } else { (disk, apparent) };
        let alt = if self.both_sizes { alt } else { 0 };
        let time = match &self.plan.time {
            None => Timestamp::default(),
            Some((kind, _)) => {
                let t = match kind {
                    TimeKind::Mtime => st.stx_mtime,
                    TimeKind::Atime => st.stx_atime,
                    TimeKind::Ctime => st.stx_ctime,
                };
                Timestamp::of(&t)
            }
        };
        Dui { bytes, alt, inodes: 1, time }
    }

    /// Whether symlinks at `depth` should have been followed.
    fn follows(&self, depth: usize) -> bool {
        match self.plan.deref {
            Deref::Always => true,
            Deref::Args => depth == 0,
            Deref::Never => false,
        }
    }

    fn count_progress(&self, local: &mut Local, dui: &Dui) {
        if let Some(p) = self.progress {
            let now = p.operand();
            if local.operand != now {
                // Counts of an operand that is over don't go to the next.
                local.operand = now;
                local.entries = 0;
                local.bytes = 0;
            }
            local.entries += 1;
            local.bytes += dui.bytes;
            if local.entries >= PROGRESS_STEP {
                p.add(local.operand, local.entries, local.bytes);
                local.entries = 0;
                local.bytes = 0;
            }
        }
    }

    /// Decides whether an entry is counted now: false for one already
    /// counted, and for multiply-linked files in a parallel walk, which are
    /// recorded as candidates instead (see [`crate::links`]).
    fn counted(&self, e: &Entry, id: Id, nlink: u32, dui: &Dui, parent: Option<&Acc>) -> bool {
        if self.mode == LinkMode::CountAll {
            return true;
        }
        let is_dir = e.d_type == dtype::DIR;
        let multi = !is_dir && nlink > 1;
        let hashed = if is_dir {
            self.hash_all
        } else {
            multi
                || self.hash_every_file
                || (self.hash_all && (e.depth == 0 || self.root_ids.contains(&id)))
        };
        if !hashed {
            return true;
        }
        match parent {
            Some(p) if multi && self.mode == LinkMode::Parallel => {
                if !self.links.seen_before(id) {
                    // Only this thread visits the directory's entries.
                    let no = match p.dir_no.load(Ordering::Relaxed) {
                        NO_DIR => {
                            let dir_path = &e.path[..e.path.len() - e.name.len()];
                            let no = self.links.register_dir(&p.key, dir_path);
                            p.dir_no.store(no, Ordering::Relaxed);
                            no
                        }
                        no => no,
                    };
                    let extras = self.with_time || self.both_sizes;
                    self.links.candidate(id, no, e.index as u32, dui, extras);
                    p.dirty.store(true, Ordering::Relaxed);
                    if self.plan.all && e.depth <= self.plan.max_depth {
                        let mut w = ringio::sync::lock(&p.waits);
                        let off = w.names.len() as u32;
                        w.names.extend_from_slice(e.name);
                        w.files.push(FileWait {
                            idx: e.index as u32,
                            depth: e.depth as u32,
                            name: (off, e.name.len() as u32),
                            id,
                        });
                    }
                }
                false
            }
            _ => self.links.first_time(id),
        }
    }

    /// The operand whose root directory was just left is done: decide its
    /// hard links and print the lines that waited for them.
    fn finish_root(&self, local: &mut Local) {
        let plan = self.plan;
        let mut lines = std::mem::take(&mut local.lines);
        let more = self.roots_started.load(Ordering::Relaxed) < self.roots;
        let grand = self.links.resolve(plan.separate_dirs, more, |r| {
            if r.depth <= plan.max_depth && line::shown(plan, &r.dui) {
                line::push(&mut lines, plan, &r.dui, r.path);
            }
        });
        local.total.add(&grand);
        self.sink.write(&mut lines);
        local.lines = lines;
    }
}

impl Visitor for Du<'_> {
    type Local = Local;
    type Acc = Acc;
    /// du names directories by path only (its lines and messages).
    fn dirfd_after_visit(&self) -> bool {
        false
    }

    fn local(&self) -> Local {
        Local { lines: Vec::new(), total: Dui::default(), entries: 0, bytes: 0, operand: 0 }
    }

    fn finish(&self, mut local: Local) {
        self.sink.write(&mut local.lines);
        ringio::sync::lock(&self.total).add(&local.total);
        if let Some(p) = self.progress {
            p.add(local.operand, local.entries, local.bytes);
        }
    }

    fn need_stat(&self, _name: &[u8], _d_type: u8, _depth: usize) -> StatNeed {
        self.plan.deref.entry_stat()
    }

    fn visit(&self, local: &mut Local, e: &Entry, parent: Option<&Acc>) -> Visit {
        if e.depth == 0 {
            self.start_root(local, e.path);
        }
        let plan = self.plan;
        if !plan.exclude.is_empty() && plan.exclude.matches(e.path) {
            return Visit::Skip;
        }
        let st = match (e.stat, e.stat_error) {
            (Some(st), None) => st,
            (_, err) => {
                let errno = Some(err.unwrap_or(Errno(libc::EIO)));
                self.fail(&DuError::Access { path: e.path.to_vec(), errno });
                return Visit::Skip;
            }
        };
        if e.d_type == dtype::LNK && !e.followed && self.follows(e.depth) {
            // A dangling symlink where links are followed: GNU gives no reason.
            self.fail(&DuError::Access { path: e.path.to_vec(), errno: None });
            return Visit::Skip;
        }
        let id = DevIno::of(st);
        if e.depth == 0 {
            self.root_dev.store(id.dev, Ordering::Relaxed);
        } else if plan.one_file_system && id.dev != self.root_dev.load(Ordering::Relaxed) {
            return Visit::Skip;
        }
        let dui = self.dui_of(st);
        if !self.counted(e, id, st.stx_nlink, &dui, parent) {
            return Visit::Skip;
        }
        self.count_progress(local, &dui);
        if e.d_type == dtype::DIR {
            // Its own size is added when it is left, with its subtree's.
            return Visit::Descend;
        }
        local.total.add(&dui);
        if let Some(p) = parent {
            p.sum.add(&dui, self.with_time);
        }
        if ((plan.all && e.depth <= plan.max_depth) || e.depth == 0) && line::shown(plan, &dui) {
            line::push(&mut local.lines, plan, &dui, e.path);
        }
        if e.depth == 0 {
            self.sink.write(&mut local.lines);
        }
        Visit::Skip
    }

    fn make_acc(&self, dir: &Entry, parent: Option<&Acc>) -> Acc {
        if let Some(p) = self.progress {
            p.entering(dir.path);
        }
        let mut acc = Acc::default();
        if self.mode == LinkMode::Parallel {
            if let Some(p) = parent {
                let mut k = Vec::with_capacity(p.key.len() + 1);
                k.extend_from_slice(&p.key);
                k.push(dir.index as u32);
                acc.key = k.into();
            }
        }
        acc
    }

    fn after_entries(&self, local: &mut Local, _dir: &Entry, _acc: &Acc) {
        self.sink.write(&mut local.lines);
        // A directory's worth goes to the progress line too: on a slow
        // file system a thread takes seconds to count PROGRESS_STEP
        // entries.
        if let Some(p) = self.progress {
            if local.entries > 0 {
                p.add(local.operand, local.entries, local.bytes);
                local.entries = 0;
                local.bytes = 0;
            }
        }
    }

    fn leave(&self, local: &mut Local, dir: &Entry, acc: &Acc, parent: Option<&Acc>) {
        let plan = self.plan;
        if let Some(st) = dir.stat {
            let own = self.dui_of(st);
            local.total.add(&own);
            let total = own.plus(&acc.sum.get());
            if !plan.separate_dirs {
                if let Some(p) = parent {
                    p.sum.add(&total, self.with_time);
                }
            }
            if acc.dirty.load(Ordering::Relaxed) {
                // The parent waits too, even under -S where its size doesn't
                // depend on this one: its line must not come first.
                if let Some(p) = parent {
                    p.dirty.store(true, Ordering::Relaxed);
                }
                let path =
                    if dir.depth <= plan.max_depth { dir.path.into() } else { Box::default() };
                self.links.wait_dir(acc.key.clone(), dir.depth, path, total);
                let no = acc.dir_no.load(Ordering::Relaxed);
                if no != NO_DIR {
                    let waits = std::mem::take(&mut *ringio::sync::lock(&acc.waits));
                    self.links.wait_files(no, waits);
                }
            } else if dir.depth <= plan.max_depth && line::shown(plan, &total) {
                line::push(&mut local.lines, plan, &total, dir.path);
            }
            self.sink.write(&mut local.lines);
        }
        if dir.depth == 0 {
            self.finish_root(local);
        }
    }

    fn error(&self, local: &mut Local, err: &WalkError, _acc: Option<&Acc>) {
        match err {
            WalkError::Root { path, errno } => {
                self.start_root(local, path);
                self.fail(&DuError::Access { path: path.clone(), errno: Some(*errno) });
            }
            WalkError::Open { path, errno } => {
                self.fail(&DuError::ReadDir { path: path.clone(), errno: *errno })
            }
            WalkError::Read { path, errno } => {
                self.fail(&DuError::Read { path: path.clone(), errno: *errno })
            }
            // A directory cycle: through followed links, or through a
            // mount point (the walker finds no other, see walk's
            // `mounts`), GNU du skips it silently.
            WalkError::Loop { .. } => {}
            WalkError::Moved { path, errno } => {
                self.fail(&DuError::Walk { path: path.clone(), errno: *errno });
                self.aborted.store(true, Ordering::Relaxed);
            }
        }
    }
}
