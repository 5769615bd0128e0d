//! Counts the entries below the given roots, optionally statting each
//! (`--stat`): a quick way to time the walker alone.
use std::sync::atomic::{AtomicU64, Ordering};

use walk::{Entry, Options, StatNeed, Visit, Visitor, WalkError};

struct Count {
    stat: bool,
    n: AtomicU64,
    blocks: AtomicU64,
}

impl Visitor for Count {
    type Local = (u64, u64);
    type Acc = ();
    fn local(&self) -> (u64, u64) {
        (0, 0)
    }
    fn finish(&self, l: (u64, u64)) {
        self.n.fetch_add(l.0, Ordering::Relaxed);
        self.blocks.fetch_add(l.1, Ordering::Relaxed);
    }
    fn need_stat(&self, _: &[u8], _: u8, _: usize) -> StatNeed {
        if self.stat {
            StatNeed::Lstat
        } else {
            StatNeed::None
        }
    }
    fn visit(&self, l: &mut (u64, u64), e: &Entry, _: Option<&()>) -> Visit {
        l.0 += 1;
        l.1 += e.stat.map_or(0, |s| s.stx_blocks);
        Visit::Descend
    }
    fn error(&self, _: &mut (u64, u64), e: &WalkError, _: Option<&()>) {
        eprintln!("{e:?}");
    }
}

fn main() {
    let mut roots = Vec::new();
    let mut c = Count { stat: false, n: AtomicU64::new(0), blocks: AtomicU64::new(0) };
    for a in std::env::args().skip(1) {
        if a == "--stat" {
            c.stat = true;
        } else {
            roots.push(a.into_bytes());
        }
    }
    walk::walk(&roots, &Options::default(), &c);
    println!(
        "{} entries, {} blocks",
        c.n.load(Ordering::Relaxed),
        c.blocks.load(Ordering::Relaxed)
    );
}
