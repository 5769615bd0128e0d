//! The scan behind `--browse` and `--export`: the ordinary walk with du's
//! rules of what is counted (`--exclude`/`-X`, `-x`, `-L`, the stat
//! errors), turned into a tree in document order ([`order`]) for a
//! [`TreeSink`] — the JSON writer or the view's tree builder. Which hard link
//! counts is decided by the sink in that order, as GNU du decides it.

pub mod order;
pub mod record;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

use browse::tree::{Excluded, Item, Kind, TreeSink};
use hashbrown::HashSet;
use ringio::{dtype, DevIno, Errno, Statx};
use walk::{Entry, StatNeed, Visit, Visitor, WalkError};

use crate::plan::{Deref, Plan};
use crate::report::DuError;
use order::{Inbox, Key, Player, ROOT};

/// What a scan has seen so far, for a live count.
#[derive(Default)]
pub struct Counters {
    pub entries: AtomicU64,
    pub bytes: AtomicU64,
    pub errors: AtomicU64,
}

/// Per directory: where its records go.
pub struct Acc {
    no: u32,
    key: Key,
    body: Mutex<Vec<u8>>,
    error: AtomicBool,
    shipped: AtomicBool,
}

impl Default for Acc {
    fn default() -> Self {
        Acc {
            no: 0,
            key: (ROOT, 0),
            body: Mutex::default(),
            error: AtomicBool::new(false),
            shipped: AtomicBool::new(false),
        }
    }
}

/// Where the scan's problems go: stderr at once (export), or kept for
/// after the full-screen view (browse), where stderr would scribble over it.
pub enum Messages {
    Stderr,
    Kept(Mutex<Vec<Vec<u8>>>),
}

/// One walker thread's counts not yet added to [`Counters`]: added in
/// steps, so the threads don't share a cache line per entry.
#[derive(Default)]
pub struct Local {
    entries: u64,
    bytes: u64,
}

const COUNT_STEP: u64 = 512;

/// Messages kept for after the view, at most.
const KEPT_MAX: usize = 1000;

pub struct Scan<'a, S> {
    plan: &'a Plan,
    inbox: Inbox,
    player: Mutex<Player<S>>,
    counters: &'a Counters,
    stop: &'a AtomicBool,
    /// The name the root's entry gets (an absolute path, as ncdu writes).
    root_name: Vec<u8>,
    next_no: AtomicU32,
    root_dev: AtomicU64,
    /// `-L`: directories reached twice are counted (and walked) once.
    seen_dirs: Mutex<HashSet<DevIno>>,
    failed: AtomicBool,
    pub messages: Messages,
}

impl<'a, S: TreeSink + Send> Scan<'a, S> {
    pub fn new(
        plan: &'a Plan,
        sink: S,
        root_name: Vec<u8>,
        counters: &'a Counters,
        stop: &'a AtomicBool,
        messages: Messages,
    ) -> Scan<'a, S> {
        Scan {
            plan,
            inbox: Inbox::default(),
            player: Mutex::new(Player::new(sink)),
            counters,
            stop,
            root_name,
            next_no: AtomicU32::new(0),
            root_dev: AtomicU64::new(0),
            seen_dirs: Mutex::default(),
            failed: AtomicBool::new(false),
            messages,
        }
    }

    /// Runs `walk` (which walks with this visitor) while a thread of its
    /// own plays what the walk lists into the sink.
    pub fn run<R>(&self, walk: impl FnOnce() -> R) -> R {
        std::thread::scope(|s| {
            let player = s.spawn(|| ringio::sync::lock(&self.player).play(&self.inbox));
            let r = walk();
            self.inbox.close();
            if let Err(p) = player.join() {
                std::panic::resume_unwind(p);
            }
            r
        })
    }

    /// The sink, once [`Scan::run`] is over, and whether every directory
    /// the walk entered came (not so in a walk cut short).
    pub fn into_sink(self) -> (S, bool) {
        let player = self.player.into_inner().unwrap_or_else(|e| e.into_inner());
        let complete = player.complete(&self.inbox);
        (player.sink, complete)
    }

    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    fn fail(&self, e: &DuError) {
        self.failed.store(true, Ordering::Relaxed);
        self.counters.errors.fetch_add(1, Ordering::Relaxed);
        match &self.messages {
            Messages::Stderr => cli::msg::error_bytes(&[&e.message()]),
            Messages::Kept(m) => {
                let mut m = ringio::sync::lock(m);
                if m.len() < KEPT_MAX {
                    m.push(e.message());
                }
            }
        }
    }

    fn item<'e>(&self, name: &'e [u8], st: &Statx, kind: Kind) -> Item<'e> {
        Item {
            name,
            kind,
            asize: (st.stx_size as i64).max(0) as u64,
            dsize: st.stx_blocks.saturating_mul(512),
            dev: DevIno::of(st).dev,
            ino: st.stx_ino,
            nlink: st.stx_nlink,
            mtime: st.stx_mtime.tv_sec,
            error: false,
            excluded: Excluded::No,
        }
    }

    fn push(&self, parent: Option<&Acc>, it: &Item) {
        if let Some(p) = parent {
            record::put_item(&mut ringio::sync::lock(&p.body), it);
        }
    }

    /// The directory's records are complete: its own entry goes first.
    fn ship(&self, dir: &Entry, acc: &Acc) {
        if acc.shipped.swap(true, Ordering::Relaxed) {
            return;
        }
        let body = std::mem::take(&mut *ringio::sync::lock(&acc.body));
        let name = if dir.depth == 0 { &self.root_name[..] } else { dir.name };
        let mut it = match dir.stat {
            Some(st) => self.item(name, st, Kind::Dir),
            None => Item::named(name, Kind::Dir),
        };
        it.error = acc.error.load(Ordering::Relaxed);
        let mut head = Vec::with_capacity(64 + name.len());
        record::put_item(&mut head, &it);
        self.inbox.arrive(acc.key, acc.no, head, body);
    }
}

fn kind_of(d_type: u8) -> Kind {
    match d_type {
        dtype::DIR => Kind::Dir,
        dtype::REG => Kind::File,
        _ => Kind::Other,
    }
}

impl<S: TreeSink + Send> Scan<'_, S> {
    fn count(&self, local: &mut Local, bytes: u64) {
        local.entries += 1;
        local.bytes += bytes;
        if local.entries >= COUNT_STEP {
            self.flush(local);
        }
    }

    fn flush(&self, local: &mut Local) {
        self.counters.entries.fetch_add(std::mem::take(&mut local.entries), Ordering::Relaxed);
        self.counters.bytes.fetch_add(std::mem::take(&mut local.bytes), Ordering::Relaxed);
    }
}

impl<S: TreeSink + Send> Visitor for Scan<'_, S> {
    type Local = Local;
    type Acc = Acc;
    fn dirfd_after_visit(&self) -> bool {
        false
    }

    fn local(&self) -> Local {
        Local::default()
    }

    fn finish(&self, mut local: Local) {
        self.flush(&mut local);
    }

    fn need_stat(&self, _name: &[u8], _d_type: u8, _depth: usize) -> StatNeed {
        self.plan.deref.entry_stat()
    }

    fn visit(&self, local: &mut Local, e: &Entry, parent: Option<&Acc>) -> Visit {
        if self.stop.load(Ordering::Relaxed) {
            return Visit::Quit;
        }
        let plan = self.plan;
        if !plan.exclude.is_empty() && plan.exclude.matches(e.path) {
            self.count(local, 0);
            let it = Item { excluded: Excluded::Pattern, ..Item::named(e.name, kind_of(e.d_type)) };
            self.push(parent, &it);
            return Visit::Skip;
        }
        let followed_dangling = e.d_type == dtype::LNK
            && !e.followed
            && match plan.deref {
                Deref::Always => true,
                Deref::Args => e.depth == 0,
                Deref::Never => false,
            };
        let st = match (e.stat, e.stat_error) {
            (Some(st), None) if !followed_dangling => st,
            (_, err) => {
                let errno =
                    if followed_dangling { None } else { Some(err.unwrap_or(Errno(libc::EIO))) };
                self.fail(&DuError::Access { path: e.path.to_vec(), errno });
                self.count(local, 0);
                let it = Item { error: true, ..Item::named(e.name, kind_of(e.d_type)) };
                self.push(parent, &it);
                return Visit::Skip;
            }
        };
        let kind = kind_of(e.d_type);
        let id = DevIno::of(st);
        if e.depth == 0 {
            self.root_dev.store(id.dev, Ordering::Relaxed);
        } else if plan.one_file_system && id.dev != self.root_dev.load(Ordering::Relaxed) {
            let it = Item { excluded: Excluded::OtherFs, ..self.item(e.name, st, kind) };
            self.push(parent, &it);
            return Visit::Skip;
        }
        if kind == Kind::Dir
            && plan.deref == Deref::Always
            && !plan.count_links
            && !ringio::sync::lock(&self.seen_dirs).insert(id)
        {
            // Met before through another link: du counts it once.
            return Visit::Skip;
        }
        self.count(local, st.stx_blocks.saturating_mul(512));
        if kind == Kind::Dir {
            if let Some(p) = parent {
                record::put_child(&mut ringio::sync::lock(&p.body), e.index as u32);
            }
            return Visit::Descend;
        }
        self.push(parent, &self.item(e.name, st, kind));
        Visit::Skip
    }

    fn make_acc(&self, dir: &Entry, parent: Option<&Acc>) -> Acc {
        let no = self.next_no.fetch_add(1, Ordering::Relaxed);
        let key = match parent {
            Some(p) => (p.no, dir.index as u32),
            None => (ROOT, 0),
        };
        Acc { no, key, ..Acc::default() }
    }

    fn after_entries(&self, _: &mut Local, dir: &Entry, acc: &Acc) {
        self.ship(dir, acc);
    }

    fn leave(&self, _: &mut Local, dir: &Entry, acc: &Acc, _parent: Option<&Acc>) {
        // A directory that could not be opened has no `after_entries`.
        self.ship(dir, acc);
    }

    fn error(&self, _: &mut Local, err: &WalkError, acc: Option<&Acc>) {
        match err {
            WalkError::Root { path, errno } => {
                self.fail(&DuError::Access { path: path.clone(), errno: Some(*errno) })
            }
            WalkError::Open { path, errno } => {
                self.fail(&DuError::ReadDir { path: path.clone(), errno: *errno })
            }
            WalkError::Read { path, errno } => {
                self.fail(&DuError::Read { path: path.clone(), errno: *errno })
            }
            // A cycle through followed links: du skips it silently.
            WalkError::Loop { .. } => return,
            // The walk of the root ended early: the scan stays incomplete
            // (no file or view claims what was never seen), with du's
            // message.
            WalkError::Moved { path, errno } => {
                self.fail(&DuError::Walk { path: path.clone(), errno: *errno })
            }
        }
        if let Some(a) = acc {
            a.error.store(true, Ordering::Relaxed);
        }
    }
}
