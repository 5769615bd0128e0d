//! The descriptor budget: how many threads a descriptor limit leaves room
//! for (walkers, ls's read-ahead readers), and the walk's kept directory
//! descriptors.
//!
//! A directory's descriptor is kept open after its listing while its
//! subtree is walked: children are opened relative to it (a one-component
//! lookup instead of a whole path), and visitors use it as the `dirfd` of
//! their entries. Kept naively, that is one descriptor per level of depth
//! and per walker thread, and a tree deeper than `ulimit -n` fails with
//! EMFILE where GNU's fts keeps going.
//!
//! So, as bfs does, descriptors past the listing are kept only within a
//! budget taken from the soft limit, and when the budget is reached — or an
//! open fails with EMFILE/ENFILE anyway — the least recently used kept
//! descriptor that nobody is using right now is closed. A directory whose
//! descriptor was closed is reopened when next needed, by its path relative
//! to the nearest ancestor that is still open (or from the root operand),
//! in hops short enough for PATH_MAX, so trees deeper than PATH_MAX work
//! with any budget.
//!
//! "Using right now" is a pin count: a thread pins a directory's
//! descriptor while a system call may use it (opening a child relative to
//! it, its entries' visits, `leave`), so another thread never closes a
//! descriptor under a call that uses it (which, with descriptor numbers
//! reused, could silently redirect that call to another directory).

use std::cell::Cell;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use ringio::Errno;

/// Threads reading a directory that lists this process's own descriptors
/// right now (see [`hold_closes`]): a copy of [`HELD`]'s count that closes
/// can read without the lock.
static HOLDS: AtomicUsize = AtomicUsize::new(0);
/// The count itself, and where closes wait for it to come back to 0.
static HELD: Mutex<usize> = Mutex::new(0);
static RELEASED: Condvar = Condvar::new();
/// Closes under way that found no hold: a new hold waits for them, so a
/// descriptor that a close saw as unheld can't be listed and then vanish.
/// Counted per thread, each count on cache lines of its own: every walker
/// thread closes a descriptor per directory, and one shared count bounced
/// between the cores on each (threads beyond [`SHARDS`] share counts).
static CLOSING: [Closing; SHARDS] = [const { Closing(AtomicUsize::new(0)) }; SHARDS];
const SHARDS: usize = 32;
/// The next thread's count.
static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

#[repr(align(128))]
struct Closing(AtomicUsize);

thread_local! {
    /// Guards this thread holds: its own closes never wait for itself.
    static HOLDING: Cell<usize> = const { Cell::new(0) };
    /// This thread's count of closes under way.
    static SHARD: usize = NEXT_SHARD.fetch_add(1, Ordering::Relaxed) % SHARDS;
}

/// While the returned guard lives, the walk's kept descriptors are not
/// closed: a thread about to close one waits until the last guard drops.
///
/// For a walk of /proc reaching this process's own `fd` and `fdinfo`
/// directories (one pair per thread, under `task/`): their entries are
/// the process's descriptors, and the other walker threads keep opening
/// and closing theirs, so entries listed would vanish before their stat
/// and be reported ("cannot access '/proc/PID/fd/7'"), dozens per run
/// where GNU's single fts reports the one it closes itself. Holding the
/// closes while such a directory is read and stat'ed (a few hundred
/// entries, well under a millisecond on the walker's engines) leaves only
/// what changed outside the walk. Waiting, not deferring: with many walker
/// threads such reads overlap, and deferred descriptors would pile up.
pub fn hold_closes() -> CloseHold {
    *ringio::sync::lock(&HELD) += 1;
    HOLDS.fetch_add(1, Ordering::SeqCst);
    HOLDING.with(|h| h.set(h.get() + 1));
    // A close that saw no hold (before the count above went up) is still
    // allowed to finish; the listing starts after it. Each is one syscall.
    for c in &CLOSING {
        while c.0.load(Ordering::SeqCst) != 0 {
            std::thread::yield_now();
        }
    }
    CloseHold(())
}

/// See [`hold_closes`].
pub struct CloseHold(());

impl Drop for CloseHold {
    fn drop(&mut self) {
        HOLDING.with(|h| h.set(h.get() - 1));
        let mut n = ringio::sync::lock(&HELD);
        *n -= 1;
        HOLDS.fetch_sub(1, Ordering::SeqCst);
        if *n == 0 {
            RELEASED.notify_all();
        }
    }
}

/// Closes a kept descriptor, once no other thread holds closes.
fn close(fd: OwnedFd) {
    if HOLDING.with(Cell::get) != 0 {
        drop(fd);
        return;
    }
    // Announced before the hold count is read (both SeqCst): either this
    // close sees a hold and waits, or the hold sees this close and waits
    // for it; never a listing that includes `fd` and then loses it.
    let closing = &CLOSING[SHARD.with(|s| *s)].0;
    closing.fetch_add(1, Ordering::SeqCst);
    if HOLDS.load(Ordering::SeqCst) == 0 {
        drop(fd);
        closing.fetch_sub(1, Ordering::SeqCst);
        return;
    }
    closing.fetch_sub(1, Ordering::SeqCst);
    let mut n = ringio::sync::lock(&HELD);
    while *n != 0 {
        n = ringio::sync::wait(&RELEASED, n);
    }
    drop(fd);
}

/// What holds a descriptor slot: the slot alone, or a walk's directory
/// node with its slot inside (one allocation per directory fewer). Pins
/// and the registry keep the holder alive.
pub trait Slotted: Send + Sync + 'static {
    fn slot(&self) -> &FdSlot;
}

impl Slotted for FdSlot {
    fn slot(&self) -> &FdSlot {
        self
    }
}

/// A shared holder of a slot.
type SlotRef = Arc<dyn Slotted>;

/// A directory's descriptor slot.
#[derive(Debug)]
pub struct FdSlot {
    st: Mutex<SlotState>,
}

#[derive(Debug)]
struct SlotState {
    /// None when closed (never opened, evicted, or done).
    fd: Option<OwnedFd>,
    /// Calls in progress that use `fd`.
    pins: u32,
    /// The walk's clock at the last pin: least recently used goes first.
    used: u64,
    /// The directory's subtree is done: never reopen.
    done: bool,
    /// A descriptor was installed at some point (so opening again is a
    /// reopen, to be checked against what the walk saw).
    ever: bool,
    /// In the registry of kept descriptors (see [`Fds::keep`]).
    kept: bool,
}

impl Default for FdSlot {
    fn default() -> Self {
        FdSlot {
            st: Mutex::new(SlotState {
                fd: None,
                pins: 0,
                used: 0,
                done: false,
                ever: false,
                kept: false,
            }),
        }
    }
}

/// A pinned descriptor: usable for system calls until dropped.
pub struct Pinned {
    /// The slot it is pinned in (unpinned on drop).
    slot: Option<SlotRef>,
    /// The descriptor itself when no slot keeps it (closed on drop).
    owned: Option<OwnedFd>,
    pub fd: RawFd,
}

impl Pinned {
    /// `fd`, already pinned in `slot`.
    pub fn slot<S: Slotted>(slot: &Arc<S>, fd: RawFd) -> Pinned {
        Pinned { slot: Some(Arc::clone(slot) as SlotRef), owned: None, fd }
    }

    fn owned(fd: OwnedFd) -> Pinned {
        Pinned { slot: None, fd: fd.as_raw_fd(), owned: Some(fd) }
    }
}

/// A descriptor pinned for the length of a borrow of its slot (a parent's,
/// while a child is opened relative to it): no reference count taken or
/// dropped on the slot, which the threads opening its other children
/// share.
pub struct PinnedFor<'a> {
    slot: &'a FdSlot,
    pub fd: RawFd,
}

impl Drop for PinnedFor<'_> {
    fn drop(&mut self) {
        self.slot.unpin();
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if let Some(s) = &self.slot {
            s.slot().unpin();
        }
        // An unkept descriptor closes as the kept ones do: not while a
        // thread lists this process's own descriptors.
        if let Some(fd) = self.owned.take() {
            close(fd);
        }
    }
}

/// What [`FdSlot::install`] did with a fresh descriptor.
enum Install {
    /// Installed in the slot.
    Kept(Pinned),
    /// Another thread's, already installed, pinned instead (the fresh one closed).
    Theirs(Pinned),
    /// The slot is finished: the fresh one, owned by the pin.
    Unkept(Pinned),
}

impl FdSlot {
    fn lock(&self) -> MutexGuard<'_, SlotState> {
        ringio::sync::lock(&self.st)
    }

    /// Whether a descriptor was ever installed.
    pub fn was_opened(&self) -> bool {
        self.lock().ever
    }

    /// Pins the descriptor if it is open.
    pub fn try_pin(&self, clock: u64) -> Option<RawFd> {
        let mut s = self.lock();
        let fd = s.fd.as_ref()?.as_raw_fd();
        s.pins += 1;
        s.used = clock;
        Some(fd)
    }

    /// Pins the descriptor if it is open, for the length of the borrow.
    pub fn pin_for(&self, clock: u64) -> Option<PinnedFor<'_>> {
        self.try_pin(clock).map(|fd| PinnedFor { slot: self, fd })
    }

    pub fn unpin(&self) {
        let mut s = self.lock();
        s.pins = s.pins.saturating_sub(1);
    }

    /// Installs a freshly opened descriptor in `holder`'s slot, pinned
    /// once. If another thread reopened it meanwhile, `fd` is closed and
    /// theirs pinned instead.
    fn install<S: Slotted>(holder: &Arc<S>, fd: OwnedFd, clock: u64) -> Install {
        let mut s = holder.slot().lock();
        if let Some(theirs) = s.fd.as_ref().map(AsRawFd::as_raw_fd) {
            s.pins += 1;
            s.used = clock;
            drop(s);
            close(fd);
            return Install::Theirs(Pinned::slot(holder, theirs));
        }
        if s.done {
            // Finished meanwhile (cannot happen while a caller holds a pin
            // on a descendant, but be safe): the caller uses it unregistered,
            // and it closes when the caller is done with it.
            return Install::Unkept(Pinned::owned(fd));
        }
        let raw = fd.as_raw_fd();
        // Evicted (closed, removed from the registry) and now reopened: the
        // caller registers it again.
        s.kept = false;
        s.fd = Some(fd);
        s.pins = 1;
        s.used = clock;
        s.ever = true;
        Install::Kept(Pinned::slot(holder, raw))
    }

    /// Closes the descriptor if nobody uses it. Returns whether it did.
    pub fn try_evict(&self) -> bool {
        let Ok(mut s) = self.st.try_lock() else { return false };
        if s.pins > 0 {
            return false;
        }
        let fd = s.fd.take();
        // The caller takes it out of the registry.
        s.kept = false;
        drop(s);
        // Closed here, outside the lock.
        fd.map(close).is_some()
    }

    /// The subtree is done: closes the descriptor for good. Returns
    /// whether it was in the registry.
    fn finish(&self) -> bool {
        let mut s = self.lock();
        s.done = true;
        let fd = s.fd.take();
        let kept = s.kept && fd.is_some();
        drop(s);
        if let Some(fd) = fd {
            close(fd);
        }
        kept
    }

    /// Marks the slot as registered, used at `clock`; false when there is
    /// nothing to keep (closed, or its subtree already done) or it already
    /// is.
    fn mark_kept(&self, clock: &AtomicU64) -> bool {
        let mut s = self.lock();
        if s.kept || s.done || s.fd.is_none() {
            return false;
        }
        s.kept = true;
        s.used = clock.fetch_add(1, Ordering::Relaxed) + 1;
        true
    }

    fn used(&self) -> u64 {
        self.st.try_lock().map_or(u64::MAX, |s| if s.pins > 0 { u64::MAX } else { s.used })
    }
}

/// The budget and the registry of slots holding a descriptor.
pub struct Fds {
    /// Most descriptors kept open (pinned ones included).
    budget: AtomicUsize,
    open: Mutex<Vec<SlotRef>>,
    clock: AtomicU64,
}

/// Descriptors left for everything but kept directories: the standard
/// ones, the visitor's own (find's -execdir batches, output files), and
/// per walker thread its engine's ring, a directory being opened and a
/// reopening hop.
const RESERVE_FIXED: usize = 8;
/// Descriptors assumed open when the walk starts (standard ones and a few
/// more).
const ASSUMED_OPEN: usize = 8;
const RESERVE_PER_THREAD: usize = 3;

impl Fds {
    /// A budget from the soft `RLIMIT_NOFILE`, for `threads` walker
    /// threads. What else is open is not counted (that would cost a read of
    /// /proc/self/fd per walk): a few descriptors are assumed, and if more
    /// are, an EMFILE lowers the budget to what is then kept ([`Fds::relieve`]).
    /// `RINGUTILS_TEST_FD_BUDGET` (a number) overrides it, for tests.
    pub fn new(threads: usize) -> Fds {
        let budget = std::env::var("RINGUTILS_TEST_FD_BUDGET")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| {
                let limit = libcw::rlimit::nofile_soft() as usize;
                limit.saturating_sub(ASSUMED_OPEN + RESERVE_FIXED + RESERVE_PER_THREAD * threads)
            });
        Fds {
            budget: AtomicUsize::new(budget),
            open: Mutex::new(Vec::new()),
            clock: AtomicU64::new(0),
        }
    }

    fn registry(&self) -> MutexGuard<'_, Vec<SlotRef>> {
        ringio::sync::lock(&self.open)
    }

    /// The walk's clock, for a pin. It only advances when a descriptor is
    /// kept ([`Fds::keep`]): pins and opens happen several times per
    /// directory on every thread, and a shared counter written by each
    /// would bounce between the cores; eviction only needs "least recently
    /// used" among kept descriptors, to within one keep.
    pub fn tick(&self) -> u64 {
        self.clock.load(Ordering::Relaxed)
    }

    /// Installs `fd` (just opened for `slot`), pinned, and keeps within the
    /// budget by evicting others. Returns the descriptor to use, pinned.
    pub fn adopt<S: Slotted>(&self, slot: &Arc<S>, fd: OwnedFd) -> Pinned {
        let p = self.adopt_listing(slot, fd);
        self.keep(slot);
        p
    }

    /// Installs `fd`, just opened for `slot` to be listed, pinned, without
    /// registering it: while its listing is read it is pinned (never
    /// evictable) and counted in the walker thread's reserve, and most
    /// directories (those without subdirectories) are done right after, so
    /// they never touch the registry (two locks of a lock every walker
    /// thread takes per directory). [`Fds::keep`] registers it when it
    /// stays open past its listing.
    pub fn adopt_listing<S: Slotted>(&self, slot: &Arc<S>, fd: OwnedFd) -> Pinned {
        // The clock advances when a descriptor is kept (`keep`), not here:
        // one shared write per directory fewer, and only kept descriptors
        // are ever compared.
        match FdSlot::install(slot, fd, self.tick()) {
            Install::Kept(p) | Install::Theirs(p) | Install::Unkept(p) => p,
        }
    }

    /// `slot`'s descriptor stays open while the directory is not in use
    /// (its subtree is walked, or waits): registered, so that it counts in
    /// the budget and can be evicted. Keeps within the budget by evicting
    /// others. Nothing when it is registered already or closed.
    pub fn keep<S: Slotted>(&self, slot: &Arc<S>) {
        // Marked under the registry's lock: a finish, which takes a marked
        // slot out under that lock, can't come between the mark and the
        // push and leave a closed slot registered.
        let mut reg = self.registry();
        if !slot.slot().mark_kept(&self.clock) {
            return;
        }
        reg.push(Arc::clone(slot) as SlotRef);
        let budget = self.budget.load(Ordering::Relaxed);
        while reg.len() > budget && evict_lru(&mut reg) {}
    }

    /// After EMFILE/ENFILE: closes the least recently used idle descriptor
    /// and lowers the budget to what is open now (something else holds the
    /// rest). Returns false if there was nothing to close.
    pub fn relieve(&self) -> bool {
        let mut reg = self.registry();
        let n = reg.len();
        self.budget.fetch_min(n.saturating_sub(1), Ordering::Relaxed);
        evict_lru(&mut reg)
    }

    /// The directory's subtree is done: closes and forgets its descriptor.
    pub fn finish<S: Slotted>(&self, slot: &Arc<S>) {
        if slot.slot().finish() {
            let mut reg = self.registry();
            let me = Arc::as_ptr(slot);
            if let Some(i) = reg.iter().rposition(|s| std::ptr::addr_eq(Arc::as_ptr(s), me)) {
                reg.swap_remove(i);
            }
        }
    }
}

/// Closes the least recently used unpinned descriptor in `reg`.
fn evict_lru(reg: &mut Vec<SlotRef>) -> bool {
    let mut order: Vec<(u64, usize)> = reg
        .iter()
        .enumerate()
        .map(|(i, s)| (s.slot().used(), i))
        .filter(|p| p.0 != u64::MAX)
        .collect();
    order.sort_unstable();
    for (_, i) in order {
        if reg[i].slot().try_evict() {
            reg.swap_remove(i);
            return true;
        }
    }
    false
}

/// How many walker threads the soft descriptor limit leaves room for
/// (each takes [`RESERVE_PER_THREAD`] and one more for its engine's
/// helpers on a high-latency file system), at least one.
pub fn threads_for_limit() -> usize {
    let limit = libcw::rlimit::nofile_soft() as usize;
    threads_within(limit, ASSUMED_OPEN + RESERVE_FIXED, RESERVE_PER_THREAD + 1).max(1)
}

/// Raises the soft descriptor limit to the hard one, and says how many
/// threads holding `per_thread` descriptors each it leaves room for, as
/// many again kept for everything else (ls's read-ahead readers).
pub fn threads_raised(per_thread: usize) -> usize {
    let limit = libcw::rlimit::raise_nofile() as usize;
    threads_within(limit, per_thread, per_thread)
}

/// How many threads holding `per_thread` descriptors each fit in `limit`
/// with `reserve` kept for everything else (possibly 0).
pub fn threads_within(limit: usize, reserve: usize, per_thread: usize) -> usize {
    limit.saturating_sub(reserve) / per_thread.max(1)
}

/// Whether an open failed for lack of descriptors.
pub fn exhausted(e: Errno) -> bool {
    e == Errno::EMFILE || e == Errno(libc::ENFILE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{is_open, some_fd, watched_fd};

    fn with_budget(n: usize) -> Fds {
        Fds { budget: AtomicUsize::new(n), open: Mutex::new(Vec::new()), clock: AtomicU64::new(0) }
    }

    fn open_count(fds: &Fds) -> usize {
        fds.registry().len()
    }

    /// Adopts a fresh descriptor into a new slot and unpins it.
    fn idle(fds: &Fds) -> (Arc<FdSlot>, RawFd) {
        let slot = Arc::new(FdSlot::default());
        let fd = fds.adopt(&slot, some_fd()).fd;
        (slot, fd)
    }

    /// A directory opened to be listed is registered only when kept past
    /// its listing: one done right after (no subdirectories) never is,
    /// and still closes; a kept one counts in the budget and is evicted
    /// when idle and least recently used.
    #[test]
    fn listings_register_only_when_kept() {
        let fds = with_budget(2);
        let leaf = Arc::new(FdSlot::default());
        let (fd, closing) = watched_fd();
        let pin = fds.adopt_listing(&leaf, fd);
        assert_eq!(open_count(&fds), 0);
        drop(pin);
        fds.finish(&leaf);
        assert!(closing.closed(), "a finished listing closes its descriptor");
        assert_eq!(open_count(&fds), 0);

        let kept: Vec<Arc<FdSlot>> = (0..3).map(|_| Arc::new(FdSlot::default())).collect();
        let pins: Vec<Pinned> = kept.iter().map(|s| fds.adopt_listing(s, some_fd())).collect();
        assert_eq!(open_count(&fds), 0);
        drop(pins);
        fds.keep(&kept[0]);
        fds.keep(&kept[0]);
        assert_eq!(open_count(&fds), 1, "kept once");
        fds.keep(&kept[1]);
        fds.keep(&kept[2]);
        // Over the budget of 2: the least recently used idle one closed.
        assert_eq!(open_count(&fds), 2);
        assert!(kept[0].try_pin(fds.tick()).is_none(), "kept[0] should have been evicted");
        // Finishing an evicted one leaves the registry alone; a kept one
        // leaves it.
        fds.finish(&kept[0]);
        assert_eq!(open_count(&fds), 2);
        fds.finish(&kept[1]);
        assert_eq!(open_count(&fds), 1);
        // Done: never registered again.
        fds.keep(&kept[1]);
        assert_eq!(open_count(&fds), 1);
        fds.finish(&kept[2]);
        assert_eq!(open_count(&fds), 0);
    }

    #[test]
    fn over_budget_the_least_recently_used_idle_one_closes() {
        let fds = with_budget(3);
        let (a, fa) = idle(&fds);
        let (b, _) = idle(&fds);
        let (c, fc) = idle(&fds);
        // Using `a` after `b` was opened makes `b` the least recently used.
        assert_eq!(a.try_pin(fds.tick()), Some(fa));
        a.unpin();
        let (d, fd) = idle(&fds);
        assert_eq!(open_count(&fds), 3);
        assert!(b.try_pin(fds.tick()).is_none(), "b should have been evicted");
        assert!(b.was_opened());
        for (s, f) in [(&a, fa), (&c, fc), (&d, fd)] {
            assert_eq!(s.try_pin(fds.tick()), Some(f));
            s.unpin();
        }
        // Untouched since, `a` (opened first) goes next.
        let (e, _) = idle(&fds);
        assert!(a.try_pin(fds.tick()).is_none(), "a should have been evicted");
        for s in [&a, &b, &c, &d, &e] {
            fds.finish(s);
        }
        assert_eq!(open_count(&fds), 0);
    }

    #[test]
    fn pinned_descriptors_are_never_closed() {
        let fds = with_budget(1);
        let a = Arc::new(FdSlot::default());
        let pa = fds.adopt(&a, some_fd());
        let fa = pa.fd;
        let b = Arc::new(FdSlot::default());
        let pb = fds.adopt(&b, some_fd());
        let fb = pb.fd;
        // Both pinned: over budget, but nothing may close.
        assert_eq!(open_count(&fds), 2);
        assert!(is_open(fa) && is_open(fb));
        assert!(!fds.relieve());
        // After EMFILE the budget follows what is open (minus one).
        assert_eq!(fds.budget.load(Ordering::Relaxed), 1);
        drop(pa);
        assert!(fds.relieve());
        assert!(a.try_pin(0).is_none());
        assert_eq!(open_count(&fds), 1);
        assert_eq!(fds.budget.load(Ordering::Relaxed), 1);
        drop(pb);
        fds.finish(&b);
    }

    #[test]
    fn a_finished_slot_stays_closed() {
        let fds = with_budget(8);
        let (a, _) = idle(&fds);
        fds.finish(&a);
        assert_eq!(open_count(&fds), 0);
        assert!(a.try_pin(0).is_none());
        // A late reopen of a finished directory is used, not kept, and
        // closes when its user is done with it.
        let (late, watch) = watched_fd();
        let raw = late.as_raw_fd();
        let p = fds.adopt(&a, late);
        assert_eq!(p.fd, raw);
        assert_eq!(open_count(&fds), 0);
        assert!(a.try_pin(0).is_none());
        assert!(!watch.closed());
        drop(p);
        assert!(watch.closed(), "the unkept descriptor leaked");
    }

    #[test]
    fn a_racing_reopen_keeps_the_first_descriptor() {
        let fds = with_budget(8);
        let a = Arc::new(FdSlot::default());
        let first = fds.adopt(&a, some_fd());
        let second = some_fd();
        // Another thread had reopened it: theirs is pinned and returned,
        // the new one closed.
        let again = fds.adopt(&a, second);
        assert_eq!(again.fd, first.fd);
        assert_eq!(open_count(&fds), 1);
        drop(first);
        assert!(!a.try_evict(), "still pinned once");
        drop(again);
        assert!(a.try_evict());
        assert!(!a.try_evict());
    }

    #[test]
    fn the_clock_moves_on_opens_only() {
        let fds = with_budget(8);
        let t0 = fds.tick();
        let (a, _) = idle(&fds);
        assert_eq!(fds.tick(), t0 + 1);
        a.try_pin(fds.tick());
        assert_eq!(fds.tick(), t0 + 1);
        a.unpin();
        fds.finish(&a);
    }

    #[test]
    fn exhaustion_errors() {
        assert!(exhausted(Errno::EMFILE));
        assert!(exhausted(Errno(libc::ENFILE)));
        assert!(!exhausted(Errno::ENOENT));
        assert!(threads_for_limit() >= 1);
        assert_eq!(threads_within(1024, 64, 64), 15);
        assert_eq!(threads_within(50, 64, 64), 0);
    }
}
