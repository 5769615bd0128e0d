//! Directories' records, from a walk that finishes them in any order, to
//! a [`Sink`] in document order: a directory, its entries in listing
//! order with each subdirectory's own records in its place, then the
//! directory's end. That is ncdu's JSON order and the order GNU du meets
//! entries in, which decides which hard link counts.
//!
//! A directory's records arrive once its listing is done. They are played
//! as soon as everything before them has been: under MPI (whose replay
//! visits in document order) and in the ordered walk that is at once; in
//! the parallel walk a sibling subtree another thread finished early
//! waits. What waits is held in memory up to a budget, then in an unnamed
//! temporary file (`O_TMPFILE`: nothing is left behind however the run
//! ends), so memory stays bounded whatever the tree.

use std::fs::File;
use std::os::unix::fs::FileExt;

use hashbrown::HashMap;

use browse::tree::Sink;

use super::record::{self, Rec};

/// Records held in memory before they go to the temporary file.
const MEMORY: usize = 8 << 20;

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

struct Cursor {
    no: u32,
    bytes: Vec<u8>,
    at: usize,
}

pub struct Order<S> {
    pub sink: S,
    waiting: HashMap<Key, Dir>,
    open: Vec<Cursor>,
    /// The root being played, or next.
    root: Key,
    held: usize,
    budget: usize,
    spill: Option<File>,
    spill_end: u64,
    spilled: usize,
    /// The temporary file could not be made: everything stays in memory.
    no_spill: bool,
}

impl<S: Sink> Order<S> {
    pub fn new(sink: S) -> Order<S> {
        let budget = std::env::var("RINGUTILS_SCAN_MEMORY")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(MEMORY);
        Order {
            sink,
            waiting: HashMap::new(),
            open: Vec::new(),
            root: (ROOT, 0),
            held: 0,
            budget,
            spill: None,
            spill_end: 0,
            spilled: 0,
            no_spill: false,
        }
    }

    /// Directory `key`, numbered `no`, is listed: `head` is its own
    /// entry's record, `bytes` its entries'.
    pub fn arrive(&mut self, key: Key, no: u32, head: Vec<u8>, bytes: Vec<u8>) {
        let playable = match self.open.last() {
            None => key == self.root,
            Some(top) => {
                top.at < top.bytes.len()
                    && matches!(record::get(&top.bytes, top.at).0, Rec::Child(i) if key == (top.no, i))
            }
        };
        // What is played at once never goes to the file.
        let bytes = if playable {
            self.held += bytes.len();
            Bytes::Held(bytes)
        } else {
            self.hold(bytes)
        };
        self.waiting.insert(key, Dir { no, head, bytes });
        self.play();
    }

    /// Whether every root so far has been played to its end.
    pub fn idle(&self) -> bool {
        self.open.is_empty() && self.waiting.is_empty()
    }

    /// The next root operand is `k`.
    pub fn expect_root(&mut self, k: u32) {
        self.root = (ROOT, k);
    }

    fn hold(&mut self, bytes: Vec<u8>) -> Bytes {
        if self.held + bytes.len() <= self.budget || self.no_spill {
            self.held += bytes.len();
            return Bytes::Held(bytes);
        }
        if self.spill.is_none() {
            self.spill = tmpfile();
            if self.spill.is_none() {
                self.no_spill = true;
                self.held += bytes.len();
                return Bytes::Held(bytes);
            }
        }
        let f = self.spill.as_ref().expect("made above");
        if f.write_all_at(&bytes, self.spill_end).is_err() {
            self.no_spill = true;
            self.held += bytes.len();
            return Bytes::Held(bytes);
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
                    // All read back: the file can start again from nothing.
                    let _ = f.set_len(0);
                    self.spill_end = 0;
                }
                v
            }
        }
    }

    fn enter(&mut self, no: u32, head: &[u8], bytes: Vec<u8>) {
        let (Rec::Item(it), _) = record::get(head, 0) else {
            unreachable!("a directory's own record is an entry")
        };
        self.sink.open_dir(&it);
        self.open.push(Cursor { no, bytes, at: 0 });
    }

    /// Plays everything whose turn has come.
    fn play(&mut self) {
        loop {
            let Some(top) = self.open.last_mut() else {
                match self.waiting.remove(&self.root) {
                    Some(d) => {
                        let b = self.load(d.bytes);
                        self.enter(d.no, &d.head, b);
                        continue;
                    }
                    None => return,
                }
            };
            if top.at == top.bytes.len() {
                self.open.pop();
                self.sink.close_dir();
                if self.open.is_empty() {
                    // The next operand's root, if any, is asked for by key.
                    self.root.1 = self.root.1.wrapping_add(1);
                }
                continue;
            }
            match record::get(&top.bytes, top.at) {
                (Rec::Item(it), n) => {
                    top.at += n;
                    self.sink.entry(&it);
                }
                (Rec::Child(i), n) => {
                    let key = (top.no, i);
                    let Some(d) = self.waiting.remove(&key) else { return };
                    top.at += n;
                    let b = self.load(d.bytes);
                    self.enter(d.no, &d.head, b);
                }
            }
        }
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

    impl Sink for Log {
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

    /// r = [a, (1: s), b, (3: t)], s = [x], t = [(0: u)], u = []
    fn arrivals() -> Vec<(Key, u32, (Vec<u8>, Vec<u8>))> {
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
                let mut ord = Order::new(Log::default());
                ord.budget = budget;
                let a = arrivals();
                for &i in &o {
                    let (k, no, (h, b)) = a[i].clone();
                    ord.arrive(k, no, h, b);
                }
                assert_eq!(ord.sink.0, WANT, "order {o:?} budget {budget}");
                assert!(ord.idle());
            }
        }
    }

    #[test]
    fn in_order_arrivals_are_played_at_once() {
        let mut ord = Order::new(Log::default());
        let a = arrivals();
        let (k, no, (h, b)) = a[0].clone();
        ord.arrive(k, no, h, b);
        assert_eq!(ord.sink.0, "[r a");
        assert!(ord.waiting.is_empty());
    }
}
