//! The per-client cap (`--per-client K`): at most K delayed requests of one
//! client in service at once, the rest queued in arrival order, as a
//! Lustre client keeps at most `max_rpcs_in_flight` (8) metadata RPCs on
//! the wire and holds the others back. A client is a calling process: the
//! FUSE header carries the caller's thread id, grouped here by its thread
//! group (`Tgid:` in /proc/TID/status), so the threads of one process, and
//! the io-wq workers of its io_uring, share one client's slots, and each
//! MPI rank stands for one client node.
//!
//! Requests over the cap wait; none is refused. A waiting request enters
//! service (its delay starts) when one of its client's replies goes out.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

/// Above this many cached thread ids the cache is dropped and rebuilt:
/// thread ids are reused, and a stale entry would file a new process's
/// requests under a dead one.
const TGID_CACHE_MAX: usize = 1 << 16;

/// A request held back by its client's cap, its reply already built.
pub struct Waiting {
    pub unique: u64,
    pub delay: Duration,
    pub reply: Vec<u8>,
}

#[derive(Default)]
struct Client {
    in_service: usize,
    waiting: VecDeque<Waiting>,
    requests: u64,
    /// Requests that had to wait for a slot.
    queued: u64,
    max_in_service: usize,
    /// In service plus waiting: how many the client had asked for at once.
    max_outstanding: usize,
    /// Requests by opcode name: where one client's extra requests come from.
    ops: BTreeMap<&'static str, u64>,
}

#[derive(Default)]
struct State {
    tgids: HashMap<u32, u32>,
    clients: HashMap<u32, Client>,
    /// In service over all clients, now and at most.
    in_service: usize,
    max_in_service: usize,
}

pub struct Clients {
    cap: usize,
    state: Mutex<State>,
}

/// The thread group of thread `tid`, from /proc; the tid itself when the
/// thread is gone (its requests still count, as a client of their own).
fn read_tgid(tid: u32) -> u32 {
    std::fs::read_to_string(format!("/proc/{tid}/status"))
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| l.strip_prefix("Tgid:")).and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(tid)
}

impl Clients {
    pub fn new(cap: usize) -> Clients {
        Clients { cap: cap.max(1), state: Mutex::new(State::default()) }
    }

    /// The client a request from thread `pid` belongs to. Pid 0 (requests
    /// the kernel makes itself, or callers outside the server's pid
    /// namespace) is one client of its own.
    pub fn client_of(&self, pid: u32) -> u32 {
        if pid == 0 {
            return 0;
        }
        if let Some(&t) = ringio::sync::lock(&self.state).tgids.get(&pid) {
            return t;
        }
        // Read outside the lock: /proc is a file system read, and the
        // other workers should not wait for it.
        let tgid = read_tgid(pid);
        let mut st = ringio::sync::lock(&self.state);
        if st.tgids.len() >= TGID_CACHE_MAX {
            st.tgids.clear();
        }
        st.tgids.insert(pid, tgid);
        tgid
    }

    /// A delayed request of `client` arrived: Some (to be parked for its
    /// delay now) if the client has a free slot, else None and it waits.
    pub fn admit(&self, client: u32, op: &'static str, w: Waiting) -> Option<Waiting> {
        let mut st = ringio::sync::lock(&self.state);
        let cap = self.cap;
        let c = st.clients.entry(client).or_default();
        c.requests += 1;
        *c.ops.entry(op).or_default() += 1;
        if c.in_service >= cap {
            c.queued += 1;
            c.waiting.push_back(w);
            c.max_outstanding = c.max_outstanding.max(c.in_service + c.waiting.len());
            return None;
        }
        c.in_service += 1;
        c.max_in_service = c.max_in_service.max(c.in_service);
        c.max_outstanding = c.max_outstanding.max(c.in_service + c.waiting.len());
        st.in_service += 1;
        st.max_in_service = st.max_in_service.max(st.in_service);
        Some(w)
    }

    /// A reply of `client` went out (or was cancelled): its slot goes to
    /// the client's oldest waiting request, returned to be parked now.
    pub fn release(&self, client: u32) -> Option<Waiting> {
        let mut st = ringio::sync::lock(&self.state);
        let c = st.clients.get_mut(&client)?;
        if let Some(next) = c.waiting.pop_front() {
            return Some(next);
        }
        c.in_service = c.in_service.saturating_sub(1);
        st.in_service = st.in_service.saturating_sub(1);
        None
    }

    /// Takes a waiting request out (its caller was interrupted).
    pub fn cancel(&self, unique: u64) -> Option<Waiting> {
        let mut st = ringio::sync::lock(&self.state);
        st.clients.values_mut().find_map(|c| {
            let i = c.waiting.iter().position(|w| w.unique == unique)?;
            c.waiting.remove(i)
        })
    }

    /// Zeroes the counters (SIGUSR2): clients with nothing in service or
    /// waiting are forgotten, and so are cached thread ids.
    pub fn reset(&self) {
        let mut st = ringio::sync::lock(&self.state);
        st.tgids.clear();
        st.clients.retain(|_, c| c.in_service > 0 || !c.waiting.is_empty());
        for c in st.clients.values_mut() {
            c.requests = 0;
            c.queued = 0;
            c.ops.clear();
            c.max_in_service = c.in_service;
            c.max_outstanding = c.in_service + c.waiting.len();
        }
        st.max_in_service = st.in_service;
    }

    /// One line for the exit summary.
    pub fn summary(&self) -> String {
        let st = ringio::sync::lock(&self.state);
        let queued: u64 = st.clients.values().map(|c| c.queued).sum();
        format!(
            "  per client: at most {} in service; {} clients, {queued} requests waited for a slot\n",
            self.cap,
            st.clients.len()
        )
    }

    /// Stats-file lines: the cap, totals, then `client.TGID.KEY` lines for
    /// every client seen, busiest first.
    pub fn render(&self, line: &mut dyn FnMut(&str, String)) {
        let st = ringio::sync::lock(&self.state);
        line("per_client", self.cap.to_string());
        line("clients", st.clients.len().to_string());
        line("in_service_max", st.max_in_service.to_string());
        let client_max = st.clients.values().map(|c| c.max_in_service).max().unwrap_or(0);
        line("client_max_in_service", client_max.to_string());
        line("queued", st.clients.values().map(|c| c.queued).sum::<u64>().to_string());
        let mut v: Vec<(&u32, &Client)> = st.clients.iter().collect();
        v.sort_by(|a, b| b.1.requests.cmp(&a.1.requests).then(a.0.cmp(b.0)));
        for (tgid, c) in v {
            line(&format!("client.{tgid}.requests"), c.requests.to_string());
            line(&format!("client.{tgid}.queued"), c.queued.to_string());
            line(&format!("client.{tgid}.max_in_service"), c.max_in_service.to_string());
            line(&format!("client.{tgid}.max_outstanding"), c.max_outstanding.to_string());
            for (op, n) in &c.ops {
                line(&format!("client.{tgid}.op.{op}"), n.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(unique: u64) -> Waiting {
        Waiting { unique, delay: Duration::from_millis(1), reply: vec![unique as u8] }
    }

    fn rendered(c: &Clients) -> String {
        let mut s = String::new();
        c.render(&mut |k, v| s.push_str(&format!("{k} {v}\n")));
        s
    }

    #[test]
    fn a_client_gets_k_slots_and_the_rest_wait_in_order() {
        let c = Clients::new(2);
        assert!(c.admit(7, "lookup", w(1)).is_some());
        assert!(c.admit(7, "lookup", w(2)).is_some());
        assert!(c.admit(7, "lookup", w(3)).is_none());
        assert!(c.admit(7, "lookup", w(4)).is_none());
        // Another client is not held back by the first one's queue.
        assert!(c.admit(9, "lookup", w(5)).is_some());
        // Each reply hands the slot to the oldest waiting request.
        assert_eq!(c.release(7).map(|w| w.unique), Some(3));
        assert_eq!(c.cancel(4).map(|w| w.unique), Some(4));
        assert!(c.cancel(4).is_none());
        assert!(c.release(7).is_none());
        assert!(c.release(7).is_none());
        assert!(c.release(9).is_none());
        let s = rendered(&c);
        assert!(s.contains("per_client 2\nclients 2\nin_service_max 3\n"), "{s}");
        assert!(s.contains("client_max_in_service 2\nqueued 2\n"), "{s}");
        assert!(s.contains("client.7.requests 4\nclient.7.queued 2\n"), "{s}");
        assert!(s.contains("client.7.max_in_service 2\nclient.7.max_outstanding 4\n"), "{s}");
        assert!(s.contains("client.9.max_in_service 1\n"), "{s}");
        // Nothing left in service: a slot is free again at once.
        assert!(c.admit(7, "lookup", w(6)).is_some());
        c.reset();
        let s = rendered(&c);
        assert!(s.contains("clients 1\nin_service_max 1\n"), "{s}");
        assert!(s.contains("client.7.requests 0\n"), "{s}");
    }

    #[test]
    fn threads_of_one_process_are_one_client() {
        let c = Clients::new(8);
        let me = std::process::id();
        assert_eq!(c.client_of(me), me);
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let h = std::thread::spawn(move || {
            let p = std::fs::read_link("/proc/thread-self").unwrap();
            tx.send(p.file_name().unwrap().to_str().unwrap().parse::<u32>().unwrap()).unwrap();
            let _ = done_rx.recv();
        });
        let live = rx.recv().unwrap();
        assert_ne!(live, me);
        assert_eq!(c.client_of(live), me);
        assert_eq!(c.client_of(0), 0);
        done_tx.send(()).unwrap();
        h.join().unwrap();
    }
}
