//! Reading small regular files ahead of the copy loop.
//!
//! `cat *.log` of many small files cost GNU's sequence per file — open,
//! fstat, read (or splice), read to see the end, close — one after another,
//! one request in flight; on a cold cache each waits for the device. Here
//! the next operands are stat'ed, and the small regular files among them
//! read whole ([`Engine::read_whole`]: open, reads, close) ahead of the
//! copy loop, which takes each file's bytes in operand order. The engine
//! runs them as measured best: on this thread while the cache is warm, and
//! tens of files in flight through the ring while the device is cold.
//!
//! What may be read ahead, and what keeps its place:
//! - Only regular files of at most [`SMALL_MAX`] bytes, known from a statx
//!   of the name first: opening a FIFO waits for a writer, opening a device
//!   can have effects, so neither is opened before its turn. Big files,
//!   directories, names statx can't resolve, and an input that is the output
//!   file are left to the copy loop ([`Taken::InOrder`]), which meets their
//!   data or error exactly as before.
//! - Nothing past standard input (`-`) or a FIFO, device or socket operand
//!   is opened until that operand was copied: whoever writes the pipe may
//!   change the files after it, and GNU reads those only afterwards.
//! - Each file is read until a read returns 0 (a size is a hint: the file
//!   may have grown or shrunk since the stat). One that outgrows
//!   [`GROW_MAX`] stops being read ahead: its descriptor and the bytes read
//!   so far go to the copy loop ([`Taken::Partial`]), which continues from
//!   there. No file is read twice.
//! - At most [`WINDOW`] operands are looked at ahead, at most `fd_budget`
//!   descriptors are open at once, and at most [`MEM_BUDGET`] bytes of
//!   buffers are held besides the next operand's.

use std::collections::VecDeque;
use std::os::fd::OwnedFd;

use ringio::{Completion, Engine, Whole, Workload};

use crate::error::FileErrorKind;

/// Files up to this size are read ahead; bigger ones take the zero-copy
/// path in order (to /dev/null or a pipe a splice moves pages without
/// copying, where reading ahead copies each byte twice).
pub const SMALL_MAX: u64 = 128 * 1024;
/// A file read ahead that grows past this is handed to the copy loop.
pub const GROW_MAX: usize = 2 * SMALL_MAX as usize;
/// Operands looked at ahead of the one being copied: enough requests in
/// flight to keep a cold device busy (a stat, then a read, each waiting
/// for it), few enough that a run of small files costs no wait.
pub const WINDOW: usize = 64;
/// Buffered bytes of files read ahead, besides the next one's.
pub const MEM_BUDGET: usize = 8 << 20;
/// Operations worth one submit while the next operand is ready anyway.
const SUBMIT_BATCH: usize = 16;
/// Spare buffers kept for reuse.
const SPARES: usize = 2 * WINDOW;

/// An operand as the copy loop gets it.
pub enum Taken {
    /// Copy it as before: open, check, copy.
    InOrder,
    /// Its whole content, then the error that ended it, if any (a read
    /// error after the bytes before it; the open's error with no bytes).
    Whole(Vec<u8>, Option<FileErrorKind>),
    /// Its first bytes; the rest is read from the descriptor, positioned
    /// after them.
    Partial(Vec<u8>, OwnedFd),
}

enum Slot {
    /// Nothing asked yet.
    Idle,
    /// statx in flight.
    Stat,
    /// A regular file of this size, waiting for a descriptor or memory.
    Stated(u64),
    /// Being read whole (the buffer travels with the request; its
    /// capacity is counted in `held`).
    Reading(usize),
    Whole(Vec<u8>, Option<FileErrorKind>),
    Partial(Vec<u8>, OwnedFd),
    /// Left to the copy loop; `barrier`: nothing after it is opened before
    /// it was copied.
    InOrder {
        barrier: bool,
    },
}

impl Slot {
    fn settled(&self) -> bool {
        matches!(self, Slot::Whole(..) | Slot::Partial(..) | Slot::InOrder { .. })
    }
}

/// The read-ahead state over a command line's operands.
pub struct Ahead<'a> {
    names: &'a [Vec<u8>],
    eng: Engine,
    /// `slots[k]` is operand `base + k`.
    slots: VecDeque<Slot>,
    base: usize,
    /// The first slot not yet asked its statx (each is asked once).
    stat_at: usize,
    /// The first slot not yet given a read, or settled without one: reads
    /// go out in operand order.
    open_at: usize,
    /// Standard output's (device, inode) when it is a regular file: an input
    /// that is the output is left to the copy loop's check.
    output: Option<(u64, u64)>,
    /// Buffer capacity held by slots.
    held: usize,
    /// Descriptors that may be open: a file being read, or one handed over
    /// partially and not yet taken.
    fds: usize,
    fd_budget: usize,
    done: Vec<Completion>,
    spares: Vec<Vec<u8>>,
    /// Operations pushed since the last submit or wait.
    unsent: usize,
}

impl<'a> Ahead<'a> {
    /// Read-ahead over `names`, or `None` where it can't gain: one operand
    /// (its statx would only add a syscall), or none that isn't `-`.
    pub fn new(names: &'a [Vec<u8>], output: Option<(u64, u64)>) -> Option<Ahead<'a>> {
        if names.iter().filter(|n| n.as_slice() != b"-").count() < 2 {
            return None;
        }
        // A quarter of the soft limit: the rest is the copy loop's (pipes,
        // the operand in order) and room for a low limit's margin.
        let limit = libcw::rlimit::nofile_soft().min(1 << 20) as usize;
        let fd_budget = (limit / 4).clamp(1, WINDOW);
        Some(Ahead {
            names,
            // Independent chains, many files at once: the engine picks.
            eng: Engine::for_workload(Workload::Files),
            slots: VecDeque::with_capacity(WINDOW),
            base: 0,
            stat_at: 0,
            open_at: 0,
            output,
            held: 0,
            fds: 0,
            fd_budget,
            done: Vec::new(),
            spares: Vec::new(),
            unsent: 0,
        })
    }

    /// Operand `i` (taken in order, each once), waiting for what was
    /// asked of it to complete.
    pub fn take(&mut self, i: usize) -> Taken {
        debug_assert_eq!(i, self.base, "operands are taken in order");
        self.fill_window();
        loop {
            self.pump();
            if self.slots.front().is_some_and(Slot::settled) {
                // What was asked starts once there is a batch of it, or
                // when too little else is in flight to keep the executor
                // busy (a wait submits it in the same system call anyway):
                // one ring enter per file taken was most of the ring's cost.
                let in_flight = self.eng.outstanding() - self.unsent;
                if self.unsent >= SUBMIT_BATCH || in_flight < SUBMIT_BATCH / 4 {
                    self.eng.submit();
                    self.unsent = 0;
                }
                break;
            }
            if self.eng.outstanding() == 0 {
                // Nothing in flight for it (cannot happen: pump asks for the
                // first slot whatever the budgets): the copy loop does it.
                break;
            }
            self.wait();
        }
        self.base += 1;
        self.stat_at = self.stat_at.saturating_sub(1);
        self.open_at = self.open_at.saturating_sub(1);
        match self.slots.pop_front() {
            Some(Slot::Whole(buf, err)) => {
                self.held -= buf.capacity();
                Taken::Whole(buf, err)
            }
            Some(Slot::Partial(buf, fd)) => {
                self.held -= buf.capacity();
                self.fds -= 1;
                Taken::Partial(buf, fd)
            }
            _ => Taken::InOrder,
        }
    }

    /// Gives a taken buffer back for reuse.
    pub fn recycle(&mut self, mut buf: Vec<u8>) {
        if self.spares.len() < SPARES && buf.capacity() <= GROW_MAX {
            buf.clear();
            self.spares.push(buf);
        }
    }

    fn fill_window(&mut self) {
        while self.slots.len() < WINDOW && self.base + self.slots.len() < self.names.len() {
            let name = &self.names[self.base + self.slots.len()];
            let slot =
                if name.as_slice() == b"-" { Slot::InOrder { barrier: true } } else { Slot::Idle };
            self.slots.push_back(slot);
        }
    }

    /// Asks what the budgets allow: a statx for every operand before the
    /// first barrier, and a read of each small regular file while
    /// descriptors and memory last (the first slot's always), in order and
    /// never past an operand whose type is not known yet: it may be a FIFO,
    /// after which nothing is opened before its turn.
    fn pump(&mut self) {
        while self.stat_at < self.slots.len() {
            let k = self.stat_at;
            match &self.slots[k] {
                Slot::InOrder { barrier: true } => break,
                Slot::Idle => {
                    let name = &self.names[self.base + k];
                    let mask = libc::STATX_TYPE | libc::STATX_SIZE | libc::STATX_INO;
                    self.eng.statx((self.base + k) as u64, libc::AT_FDCWD, name, 0, mask);
                    self.unsent += 1;
                    self.slots[k] = Slot::Stat;
                }
                _ => {}
            }
            self.stat_at += 1;
        }
        while self.open_at < self.slots.len() {
            let k = self.open_at;
            match &self.slots[k] {
                Slot::Idle | Slot::Stat | Slot::InOrder { barrier: true } => break,
                &Slot::Stated(size) => {
                    // Size 0 is often a generated file (/proc): some room.
                    let want = if size == 0 { 4096 } else { size as usize + 1 };
                    let first = k == 0;
                    if !first && (self.fds >= self.fd_budget || self.held + want > MEM_BUDGET) {
                        break;
                    }
                    let buf = self.buffer(want);
                    let cap = buf.capacity();
                    self.held += cap;
                    self.fds += 1;
                    let name = &self.names[self.base + k];
                    let token = (self.base + k) as u64;
                    self.eng.read_whole(token, libc::AT_FDCWD, name, 0, buf, GROW_MAX);
                    self.unsent += 1;
                    self.slots[k] = Slot::Reading(cap);
                }
                _ => {}
            }
            self.open_at += 1;
        }
    }

    fn buffer(&mut self, want: usize) -> Vec<u8> {
        let mut buf = self.spares.pop().unwrap_or_default();
        if buf.capacity() < want {
            buf.reserve_exact(want);
        }
        buf
    }

    fn wait(&mut self) {
        let mut done = std::mem::take(&mut self.done);
        self.eng.wait(1, &mut done);
        self.unsent = 0;
        for c in done.drain(..) {
            self.complete(c);
        }
        self.done = done;
    }

    fn complete(&mut self, mut c: Completion) {
        let Some(k) = (c.token as usize).checked_sub(self.base) else { return };
        let Some(slot) = self.slots.get_mut(k) else { return };
        let old = std::mem::replace(slot, Slot::Idle);
        self.slots[k] = match old {
            Slot::Stat => match c.stat() {
                Ok(st) => self.stated(st),
                // The copy loop's open meets the error (or, should the name
                // have appeared, the file) as GNU's would.
                Err(_) => Slot::InOrder { barrier: false },
            },
            Slot::Reading(cap) => {
                self.held -= cap;
                match c.take_whole() {
                    Some(Whole::Partial(buf, fd)) => {
                        self.held += buf.capacity();
                        Slot::Partial(buf, fd)
                    }
                    Some(Whole::Done(buf, err)) => {
                        self.fds -= 1;
                        self.held += buf.capacity();
                        Slot::Whole(buf, err.map(FileErrorKind::from))
                    }
                    // Cannot happen: the request always answers with a Whole.
                    None => {
                        self.fds -= 1;
                        Slot::InOrder { barrier: false }
                    }
                }
            }
            other => other,
        };
    }

    /// What a statx of an operand says to do with it.
    fn stated(&self, st: &ringio::Statx) -> Slot {
        let mode = u32::from(st.stx_mode) & libc::S_IFMT;
        let id = (libc::makedev(st.stx_dev_major, st.stx_dev_minor), st.stx_ino);
        match mode {
            libc::S_IFREG if self.output == Some(id) || st.stx_size > SMALL_MAX => {
                Slot::InOrder { barrier: false }
            }
            libc::S_IFREG => Slot::Stated(st.stx_size),
            // An error in its place, and no data.
            libc::S_IFDIR => Slot::InOrder { barrier: false },
            _ => Slot::InOrder { barrier: true },
        }
    }
}

impl Drop for Ahead<'_> {
    fn drop(&mut self) {
        // Descriptors still being read ahead when the run ends early (a
        // write error): their operations complete before the slots close
        // them.
        while self.eng.outstanding() > 0 {
            self.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_is_not_read_ahead() {
        let names = [b"a".to_vec(), b"-".to_vec()];
        assert!(Ahead::new(&names, None).is_none());
    }

    #[test]
    fn errors_keep_their_place() {
        let dir = std::env::temp_dir().join(format!("lcat-ahead-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a");
        std::fs::write(&a, b"first\n").unwrap();
        let missing = dir.join("missing");
        let path = |p: &std::path::Path| p.as_os_str().as_encoded_bytes().to_vec();
        let names = vec![path(&a), path(&missing), path(&dir), path(&a)];
        let mut ahead = Ahead::new(&names, None).unwrap();
        assert!(matches!(ahead.take(0), Taken::Whole(b, None) if b == b"first\n"));
        assert!(matches!(ahead.take(1), Taken::InOrder));
        assert!(matches!(ahead.take(2), Taken::InOrder));
        assert!(matches!(ahead.take(3), Taken::Whole(b, None) if b == b"first\n"));
        drop(ahead);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
