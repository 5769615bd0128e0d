//! One thread, depth-first, each directory's entries in directory order
//! (or sorted): the order GNU find and du print in.
//!
//! A directory's descriptor is pinned while its own entries are visited
//! and unpinned while the walk is inside one of its subdirectories, so
//! that on a tree deeper than the descriptor budget the ancestors' can be
//! closed, and reopened when the walk comes back (see `fds`).

use crate::dirs::{self, Pinned};
use crate::fds::Fds;
use crate::reader::{Listing, Reader};
use crate::step::{self, Env, Node, Stop};
use crate::{Options, Visitor};
use ringio::Walkers;

struct Frame<V: Visitor> {
    node: Node<V>,
    list: Listing,
    next: usize,
    pin: Option<Pinned>,
    /// Unpinned while the walk was in a subdirectory: pin again on return.
    resume: bool,
}

pub(crate) fn walk<V: Visitor>(roots: &[Vec<u8>], opts: &Options, policy: Walkers, v: &V) {
    let stop = Stop::new(true);
    let fds = Fds::new(1);
    let mut rd = Reader::new(policy.engine(true));
    let mut local = v.local();
    let mut path = step::ChildPath::default();
    // Listings are kept per depth and reused, so a deep walk allocates once per level.
    let mut spare: Vec<Listing> = Vec::new();
    let mut stack: Vec<Frame<V>> = Vec::new();
    let mut w = Walk { rd: &mut rd, fds: &fds, spare: &mut spare, opts, v, stop: &stop };
    for r in roots {
        // The previous root is wholly done.
        if !stop.next_root() {
            break;
        }
        let Some(node) = step::root(w.rd, r, opts, v, &mut local, &stop) else { continue };
        w.descend(node, &mut stack, &mut local);
        while let Some(top) = stack.last_mut() {
            if stop.is_set() {
                break;
            }
            if top.next < top.list.len() {
                let i = top.next;
                top.next += 1;
                if top.resume {
                    // Back from a subdirectory: its descriptor may have been
                    // closed meanwhile; a directory that can't be reopened
                    // (removed or replaced) has its entries named by path.
                    top.resume = false;
                    top.pin = dirs::pin(&fds, None, &top.node).ok();
                }
                let dirfd = top.pin.as_ref().map_or(libc::AT_FDCWD, |p| p.fd);
                let env = Env { v, fds: &fds, stop: &stop };
                let child = step::entry(env, &top.node, dirfd, &top.list, i, &mut path, &mut local);
                if let Some(child) = child {
                    // Kept open, unpinned, while the walk is below it:
                    // counted in the budget (see `Fds::keep`).
                    fds.keep(&top.node);
                    top.pin = None;
                    top.resume = true;
                    w.descend(child, &mut stack, &mut local);
                }
            } else if let Some(f) = stack.pop() {
                drop(f.pin);
                step::after_entries(&fds, &f.node, v, &mut local);
                w.spare.push(f.list);
                step::finish(&fds, f.node, v, &mut local, &stop);
            }
        }
        // After a quit, release what is still open.
        for f in stack.drain(..).rev() {
            drop(f.pin);
            w.spare.push(f.list);
            step::finish(&fds, f.node, v, &mut local, &stop);
        }
    }
    v.finish(local);
}

struct Walk<'a, V: Visitor> {
    rd: &'a mut Reader,
    fds: &'a Fds,
    spare: &'a mut Vec<Listing>,
    opts: &'a Options,
    v: &'a V,
    stop: &'a Stop,
}

impl<V: Visitor> Walk<'_, V> {
    fn descend(&mut self, node: Node<V>, stack: &mut Vec<Frame<V>>, local: &mut V::Local) {
        let mut list = self.spare.pop().unwrap_or_default();
        let env = Env { v: self.v, fds: self.fds, stop: self.stop };
        match step::open_read(env, self.rd, &node, &mut list, self.opts, local) {
            Some(pin) => stack.push(Frame { node, list, next: 0, pin: Some(pin), resume: false }),
            None => {
                self.spare.push(list);
                step::finish(self.fds, node, self.v, local, self.stop);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use crate::testing::Scratch;
    use crate::{Entry, Options, StatNeed, Visit, Visitor, WalkError};

    /// Records the callbacks in order, as `v path` / `a path` / `l path`,
    /// paths relative to the scratch directory.
    struct Log {
        base: usize,
        events: Mutex<Vec<String>>,
        quit_at: Option<&'static str>,
    }

    impl Log {
        fn push(&self, kind: &str, path: &[u8]) {
            let rel = String::from_utf8_lossy(&path[self.base.min(path.len())..]).into_owned();
            self.events.lock().unwrap().push(format!("{kind} {rel}"));
        }
    }

    impl Visitor for Log {
        type Local = ();
        type Acc = ();

        fn local(&self) {}

        fn need_stat(&self, _: &[u8], _: u8, _: usize) -> StatNeed {
            StatNeed::None
        }

        fn visit(&self, _: &mut (), e: &Entry, _: Option<&()>) -> Visit {
            self.push("v", e.path);
            if self.quit_at.is_some_and(|q| e.path.ends_with(q.as_bytes())) {
                return Visit::Quit;
            }
            Visit::Descend
        }

        fn after_entries(&self, _: &mut (), e: &Entry, _: &()) {
            self.push("a", e.path);
        }

        fn leave(&self, _: &mut (), e: &Entry, _: &(), _: Option<&()>) {
            self.push("l", e.path);
        }

        fn error(&self, _: &mut (), err: &WalkError, _: Option<&()>) {
            self.push("e", err.path());
        }
    }

    fn run(s: &Scratch, roots: &[&str], quit_at: Option<&'static str>) -> Vec<String> {
        let base = s.0.as_os_str().len() + 1;
        let log = Log { base, events: Mutex::new(Vec::new()), quit_at };
        let roots: Vec<Vec<u8>> = roots.iter().map(|r| s.join_bytes(r)).collect();
        let opts = Options {
            sort: true,
            ordered: true,
            engine: ringio::Config {
                backend: Some(ringio::Backend::Inline),
                ..ringio::Config::default()
            },
            ..Options::default()
        };
        super::walk(&roots, &opts, ringio::Walkers::new(&opts.engine, false), &log);
        log.events.into_inner().unwrap()
    }

    fn tree() -> Scratch {
        let s = Scratch::new("ordered");
        for d in ["t/b/d", "t/a", "t/c"] {
            std::fs::create_dir_all(s.join(d)).unwrap();
        }
        for f in ["t/b/z", "t/b/d/f", "t/a/y", "t/0"] {
            std::fs::write(s.join(f), b"").unwrap();
        }
        s
    }

    #[test]
    fn depth_first_sorted_and_post_order() {
        let s = tree();
        let got = run(&s, &["t", "missing", "t/c"], None);
        // GNU find's order: each subdirectory walked as soon as it is met.
        let want = [
            "v t",
            "v t/0",
            "v t/a",
            "v t/a/y",
            "a t/a",
            "l t/a",
            "v t/b",
            "v t/b/d",
            "v t/b/d/f",
            "a t/b/d",
            "l t/b/d",
            "v t/b/z",
            "a t/b",
            "l t/b",
            "v t/c",
            "a t/c",
            "l t/c",
            "a t",
            "l t",
            "e missing",
            "v t/c",
            "a t/c",
            "l t/c",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn a_quit_stops_everything_and_still_closes() {
        let s = tree();
        let got = run(&s, &["t", "t/c"], Some("t/b/d"));
        // Nothing after the quitting visit: no more entries, no leaves of
        // the directories still open, no further roots.
        let want = ["v t", "v t/0", "v t/a", "v t/a/y", "a t/a", "l t/a", "v t/b", "v t/b/d"];
        assert_eq!(got, want);
    }
}
