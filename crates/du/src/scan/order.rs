//! Directories' records, from a walk that finishes them in any order, to
//! a [`TreeSink`] in document order: a directory, its entries in listing
//! order with each subdirectory's own records in its place, then the
//! directory's end. That is ncdu's JSON order and the order GNU du meets
//! entries in, which decides which hard link counts.
//!
//! The walker threads drop each listed directory's records into the
//! [`Inbox`] and go on walking; one [`Player`] thread takes them out in
//! document order and plays them into the sink, waiting when the next one
//! hasn't come. So a subtree finished early by one walker waits without
//! holding back the others (a player on the walkers' own threads, under
//! one lock, left a core idle whenever a big backlog was played). Under
//! MPI (whose replay visits in document order) and in the ordered walk
//! everything is played as it comes. What waits is held in memory up to
//! a budget, then in an unnamed temporary file (`O_TMPFILE`: nothing is
//! left behind however the run ends), so memory stays bounded whatever
//! the tree.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::{Condvar, Mutex};

use hashbrown::HashMap;

use browse::tree::TreeSink;

use super::record::{self, Rec};

/// Records held in memory before they go to the temporary file.
const MEMORY: usize = 8 << 20;

/// The player, waiting for a directory, is woken once it has come and this
/// many more have (or the walk ended, or a quarter of the budget waits):
/// one wake per directory cost a futex call each way per directory, more
/// system time than the playing saved.
const WAKE_AFTER: usize = 32;

/// Where a directory is found: its parent's number and its index in the
/// parent's listing (roots: [`ROOT`] and the operand's number).
pub type Key = (u32, u32);

/// The parent number of roots.
pub const ROOT: u32 = u32::MAX;

enum Bytes {
    Held(Vec<u8>),
    Spilled { at: u64, len: usize },
}

/// One directory's records: its own entry, then its entries'.
struct Dir {
    /// Its number (its subdirectories' keys start with it).
    no: u32,
    /// Its own entry, apart: joining it to the body would copy the body.
    head: Vec<u8>,
    bytes: Bytes,
}

struct State {
    waiting: HashMap<Key, Dir>,
    /// What the player waits for.
    wanted: Option<Key>,
    /// It came, and how many after it.
    wanted_came: Option<usize>,
    /// The walk is over: nothing more will come.
    done: bool,
    held: usize,
    budget: usize,
    spill: Option<File>,
    spill_end: u64,
    spilled: usize,
    /// The temporary file could not be made or written: memory it is.
    no_spill: bool,
}

/// Where the walkers leave listed directories.
pub struct Inbox {
    state: Mutex<State>,
    came: Condvar,
}

impl Default for Inbox {
    fn default() -> Self {
        let budget = std::env::var("RINGUTILS_SCAN_MEMORY")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(MEMORY);
        Inbox {
            state: Mutex::new(State {
                waiting: HashMap::new(),
                wanted: None,
                wanted_came: None,
                done: false,
                held: 0,
                budget,
                spill: None,
                spill_end: 0,
                spilled: 0,
                no_spill: false,
            }),
            came: Condvar::new(),
        }
    }
}

impl Inbox {
    /// Directory `key`, numbered `no`, is listed: `head` is its own
    /// entry's record, `bytes` its entries'.
    pub fn arrive(&self, key: Key, no: u32, head: Vec<u8>, bytes: Vec<u8>) {
        let mut s = ringio::sync::lock(&self.state);
        let wanted = s.wanted == Some(key);
        // What is played soon never goes to the file.
        let bytes = if wanted { s.keep(bytes) } else { s.hold(bytes) };
        s.waiting.insert(key, Dir { no, head, bytes });
        if wanted {
            s.wanted_came = Some(0);
        } else if let Some(n) = s.wanted_came.as_mut() {
            *n += 1;
        }
        if s.wanted_came.is_some_and(|n| n >= WAKE_AFTER || s.held > s.budget / 4) {
            s.wanted = None;
            s.wanted_came = None;
            self.came.notify_one();
        }
    }

    /// The walk is over.
    pub fn close(&self) {
        ringio::sync::lock(&self.state).done = true;
        self.came.notify_one();
    }

    /// Directory `key`'s records, waiting for them; `None` once the walk is
    /// over without them.
    fn take(&self, key: Key) -> Option<(u32, Vec<u8>, Vec<u8>)> {
        let mut s = ringio::sync::lock(&self.state);
        loop {
            if let Some(d) = s.waiting.remove(&key) {
                s.wanted = None;
                s.wanted_came = None;
                let body = s.load(d.bytes);
                return Some((d.no, d.head, body));
            }
            if s.done {
                return None;
            }
            s.wanted = Some(key);
            s = ringio::sync::wait(&self.came, s);
        }
    }

    fn empty(&self) -> bool {
        ringio::sync::lock(&self.state).waiting.is_empty()
    }

    #[cfg(test)]
    fn budget(&self, b: usize) {
        ringio::sync::lock(&self.state).budget = b;
    }
}

impl State {
    fn keep(&mut self, bytes: Vec<u8>) -> Bytes {
        self.held += bytes.len();
        Bytes::Held(bytes)
    }

    fn hold(&mut self, bytes: Vec<u8>) -> Bytes {
        if self.held + bytes.len() <= self.budget || self.no_spill {
            return self.keep(bytes);
        }
        if self.spill.is_none() {
            self.spill = tmpfile();
            if self.spill.is_none() {
                self.no_spill = true;
                return self.keep(bytes);
            }
        }
        let f = self.spill.as_ref().expect("made above");
        if f.write_all_at(&bytes, self.spill_end).is_err() {
            self.no_spill = true;
            return self.keep(bytes);
        }
        let at = self.spill_end;
        self.spill_end += bytes.len() as u64;
        self.spilled += 1;
        Bytes::Spilled { at, len: bytes.len() }
    }

    fn load(&mut self, b: Bytes) -> Vec<u8> {
        match b {
            Bytes::Held(v) => {
                self.held -= v.len();
                v
            }
            Bytes::Spilled { at, len } => {
                let mut v = vec![0; len];
                let f = self.spill.as_ref().expect("spilled into it");
                if let Err(e) = f.read_exact_at(&mut v, at) {
                    // What was written a moment ago can't be read back: the
                    // scan can't be completed honestly.
                    cli::msg::error_bytes(&[
                        b"cannot read back the scan's temporary file: ",
                        e.to_string().as_bytes(),
                    ]);
                    std::process::exit(1);
                }
                self.spilled -= 1;
                if self.spilled == 0 {
                    // All read back: the file is written again from its
                    // start, over pages it already has (truncating it each
                    // time cost ext4 a truncation per backlog: with a 1 MiB
                    // budget, 15 s of system time for a million entries).
                    self.spill_end = 0;
                }
                v
            }
        }
    }
}

struct Cursor {
    no: u32,
    bytes: Vec<u8>,
    at: usize,
}

/// Plays the records into the sink, in document order.
pub struct Player<S> {
    pub sink: S,
    open: Vec<Cursor>,
    /// The next root's key.
    root: Key,
}

impl<S: TreeSink> Player<S> {
    pub fn new(sink: S) -> Player<S> {
        Player { sink, open: Vec::new(), root: (ROOT, 0) }
    }

    /// Plays until the walk is over and nothing more can be played.
    pub fn play(&mut self, inbox: &Inbox) {
        loop {
            let key = match self.advance() {
                Some(k) => k,
                None => self.root,
            };
            let Some((no, head, bytes)) = inbox.take(key) else { return };
            let (Rec::Item(it), _) = record::get(&head, 0) else {
                unreachable!("a directory's own record is an entry")
            };
            self.sink.open_dir(&it);
            self.open.push(Cursor { no, bytes, at: 0 });
        }
    }

    /// Plays the open directories' records up to the next subdirectory,
    /// whose key it returns; `None` when none is open any more.
    fn advance(&mut self) -> Option<Key> {
        loop {
            let top = self.open.last_mut()?;
            if top.at == top.bytes.len() {
                self.open.pop();
                self.sink.close_dir();
                if self.open.is_empty() {
                    self.root.1 = self.root.1.wrapping_add(1);
                    return None;
                }
                continue;
            }
            match record::get(&top.bytes, top.at) {
                (Rec::Item(it), n) => {
                    top.at += n;
                    self.sink.entry(&it);
                }
                (Rec::Child(i), n) => {
                    top.at += n;
                    return Some((top.no, i));
                }
            }
        }
    }

    /// Whether everything that came was played, every directory closed.
    pub fn complete(&self, inbox: &Inbox) -> bool {
        self.open.is_empty() && inbox.empty()
    }
}

/// An unnamed temporary file in `$TMPDIR` (else /tmp).
fn tmpfile() -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = std::env::var_os("TMPDIR").unwrap_or_else(|| "/tmp".into());
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(0o600)
        .open(dir)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use browse::tree::{Item, Kind};

    #[derive(Default)]
    struct Log(String);

    impl TreeSink for Log {
        fn open_dir(&mut self, d: &Item) {
            self.0.push_str(&format!("[{}", String::from_utf8_lossy(d.name)));
        }
        fn entry(&mut self, e: &Item) {
            self.0.push_str(&format!(" {}", String::from_utf8_lossy(e.name)));
        }
        fn close_dir(&mut self) {
            self.0.push(']');
        }
    }

    fn dir(name: &[u8], parts: &[Result<&[u8], u32>]) -> (Vec<u8>, Vec<u8>) {
        let mut h = Vec::new();
        record::put_item(&mut h, &Item::named(name, Kind::Dir));
        let mut b = Vec::new();
        for p in parts {
            match p {
                Ok(n) => record::put_item(&mut b, &Item::named(n, Kind::File)),
                Err(i) => record::put_child(&mut b, *i),
            }
        }
        (h, b)
    }

    /// A directory's arrival: its key, number, own record and body.
    type Arrival = (Key, u32, (Vec<u8>, Vec<u8>));

    /// r = [a, (1: s), b, (3: t)], s = [x], t = [(0: u)], u = []
    fn arrivals() -> Vec<Arrival> {
        vec![
            ((ROOT, 0), 0, dir(b"r", &[Ok(b"a"), Err(1), Ok(b"b"), Err(3)])),
            ((0, 1), 1, dir(b"s", &[Ok(b"x")])),
            ((0, 3), 2, dir(b"t", &[Err(0)])),
            ((2, 0), 3, dir(b"u", &[])),
        ]
    }

    const WANT: &str = "[r a[s x] b[t[u]]]";

    #[test]
    fn any_arrival_order_plays_in_document_order() {
        let orders: [[usize; 4]; 5] =
            [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1], [0, 3, 2, 1]];
        for o in orders {
            for budget in [usize::MAX, 0] {
                let inbox = Inbox::default();
                inbox.budget(budget);
                let mut p = Player::new(Log::default());
                std::thread::scope(|s| {
                    let player = s.spawn(|| {
                        p.play(&inbox);
                        p
                    });
                    let a = arrivals();
                    for &i in &o {
                        let (k, no, (h, b)) = a[i].clone();
                        inbox.arrive(k, no, h, b);
                    }
                    inbox.close();
                    let p = player.join().unwrap();
                    assert_eq!(p.sink.0, WANT, "order {o:?} budget {budget}");
                    assert!(p.complete(&inbox));
                });
            }
        }
    }

    #[test]
    fn a_missing_directory_leaves_the_play_incomplete() {
        let inbox = Inbox::default();
        let a = arrivals();
        for (k, no, (h, b)) in [a[0].clone(), a[2].clone(), a[3].clone()] {
            inbox.arrive(k, no, h, b);
        }
        inbox.close();
        let mut p = Player::new(Log::default());
        p.play(&inbox);
        assert_eq!(p.sink.0, "[r a");
        assert!(!p.complete(&inbox));
    }
}
