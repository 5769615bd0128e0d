//! Serving the FUSE connection: worker threads read requests from
//! /dev/fuse and answer them at once from the source tree, but park the
//! finished reply in a delay queue until `received + latency`; one timer
//! thread writes parked replies back when they fall due. So how many
//! requests are in flight is bounded by the callers, never by the number
//! of threads here, as on an NFS client waiting for a server's replies.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::ffi::CString;
use std::fs::{self, File, Metadata};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirEntryExt, FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::clients::{Clients, Waiting};
use super::nodes::{parent_of, DirEntry, Handles, Nodes};
use super::proto::*;
use super::sys::{self, as_bytes, read_struct, Pod};

/// Largest READ the kernel may send: max_pages (32) × 4 KiB.
const MAX_READ: u32 = 128 * 1024;
/// Request buffer: the largest request (a write of max_write bytes, never
/// sent to this read-only mount) plus headers, with room to spare.
const BUF_SIZE: usize = MAX_READ as usize + 64 * 1024;
const HEADER: usize = std::mem::size_of::<OutHeader>();

pub struct Config {
    /// The directory mirrored (canonical).
    pub source: PathBuf,
    /// Delay of every metadata request (see [`is_metadata`]).
    pub latency: Duration,
    /// Each delay is drawn uniformly from latency ± jitter.
    pub jitter: Duration,
    /// Delay of READ requests.
    pub read_latency: Duration,
    /// entry_valid and attr_valid given to the kernel (0: no caching).
    pub cache: Duration,
    /// Threads reading requests (the timer thread comes on top).
    pub threads: usize,
    /// Requests answered with EIO (`--inject-eio`).
    pub faults: Vec<Fault>,
    /// Delayed requests one client may have in service at once
    /// (`--per-client`; 0: no cap). See clients.rs.
    pub per_client: usize,
}

/// Which request an injected EIO hits (see `--inject-eio` in mod.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultOp {
    /// LOOKUP and GETATTR of the name: every stat of it fails.
    Stat,
    /// OPENDIR of the directory.
    Opendir,
    /// READDIR of the directory from entry `at` on (`.` and `..` are
    /// entries 0 and 1); the entries before it are served.
    Readdir,
    /// READ of the file from byte `at` on (the file is opened with direct
    /// I/O, so the bytes before it reach the reader whatever its read sizes).
    Read,
    /// OPEN of the file.
    Open,
    /// READLINK of the symlink.
    Readlink,
}

/// One injected failure: `op` on every node whose last path component is
/// `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub op: FaultOp,
    pub name: Vec<u8>,
    pub at: u64,
    /// EIO, or ENOENT for a name that vanishes between READDIR and its
    /// LOOKUP (`--vanish`).
    pub errno: i32,
}

impl Fault {
    /// Parses `OP:NAME[@N]`.
    pub fn parse(s: &str) -> Result<Fault, String> {
        let (op, rest) = s.split_once(':').ok_or("expected OP:NAME[@N]")?;
        let op = match op {
            "stat" => FaultOp::Stat,
            "opendir" => FaultOp::Opendir,
            "readdir" => FaultOp::Readdir,
            "read" => FaultOp::Read,
            "open" => FaultOp::Open,
            "readlink" => FaultOp::Readlink,
            _ => {
                return Err(format!(
                    "unknown operation '{op}' (stat, opendir, readdir, read, open, readlink)"
                ))
            }
        };
        let (name, at) = match rest.rsplit_once('@') {
            Some((n, a)) => (n, a.parse().map_err(|_| format!("bad offset '{a}'"))?),
            None => (rest, 0),
        };
        if name.is_empty() || name.contains('/') {
            return Err("NAME is one path component".into());
        }
        Ok(Fault { op, name: name.as_bytes().to_vec(), at, errno: libc::EIO })
    }

    /// A name still listed by READDIR whose LOOKUP and GETATTR say ENOENT:
    /// a file deleted between a reader's getdents and its stat.
    pub fn vanish(name: &str) -> Result<Fault, String> {
        let mut f = Fault::parse(&format!("stat:{name}"))?;
        f.errno = libc::ENOENT;
        Ok(f)
    }
}

/// The requests delayed by `latency`: what an NFS client sends a server a
/// round trip for when it caches nothing.
pub fn is_metadata(op: u32) -> bool {
    matches!(
        op,
        LOOKUP
            | GETATTR
            | OPENDIR
            | READDIR
            | READDIRPLUS
            | READLINK
            | OPEN
            | GETXATTR
            | LISTXATTR
            | STATFS
            | ACCESS
    )
}

/// Request counters and the in-flight gauge.
pub struct Stats {
    counts: [AtomicU64; OPCODE_SLOTS],
    in_flight: AtomicU64,
    max_in_flight: AtomicU64,
    interrupted: AtomicU64,
    /// Replies written by the timer, and how late in total (a loaded
    /// machine wakes the timer thread late).
    timed: AtomicU64,
    late_ns: AtomicU64,
    resets: AtomicU64,
    since: Mutex<Instant>,
}

impl Stats {
    fn new() -> Stats {
        Stats {
            counts: std::array::from_fn(|_| AtomicU64::new(0)),
            in_flight: AtomicU64::new(0),
            max_in_flight: AtomicU64::new(0),
            interrupted: AtomicU64::new(0),
            timed: AtomicU64::new(0),
            late_ns: AtomicU64::new(0),
            resets: AtomicU64::new(0),
            since: Mutex::new(Instant::now()),
        }
    }

    fn count(&self, op: u32) {
        let slot = (op as usize).min(OPCODE_SLOTS - 1);
        self.counts[slot].fetch_add(1, Ordering::Relaxed);
    }

    /// A delayed request arrived. Only those count as in flight: the rest
    /// (release, flush, forget, ...) are answered as soon as they are read,
    /// and asynchronous ones such as RELEASEDIR would otherwise make a
    /// single-threaded caller look concurrent.
    fn enter(&self) {
        let now = self.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
        self.max_in_flight.fetch_max(now, Ordering::Relaxed);
    }

    /// Its reply was written (or dropped) when due.
    fn leave(&self) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
    }

    fn late(&self, by: Duration) {
        self.timed.fetch_add(1, Ordering::Relaxed);
        self.late_ns.fetch_add(by.as_nanos() as u64, Ordering::Relaxed);
    }

    /// Mean lateness of delayed replies past their deadline.
    pub fn mean_late(&self) -> Duration {
        let n = self.timed.load(Ordering::Relaxed);
        Duration::from_nanos(self.late_ns.load(Ordering::Relaxed).checked_div(n).unwrap_or(0))
    }

    /// Zeroes the counters (the gauge keeps counting what is in flight).
    pub fn reset(&self) {
        for c in &self.counts {
            c.store(0, Ordering::Relaxed);
        }
        self.interrupted.store(0, Ordering::Relaxed);
        self.timed.store(0, Ordering::Relaxed);
        self.late_ns.store(0, Ordering::Relaxed);
        self.max_in_flight.store(self.in_flight.load(Ordering::Relaxed), Ordering::Relaxed);
        *self.since.lock().unwrap() = Instant::now();
        self.resets.fetch_add(1, Ordering::Relaxed);
    }

    /// (opcode name, count) for every opcode seen, busiest first.
    pub fn by_opcode(&self) -> Vec<(&'static str, u64)> {
        let mut v: Vec<(&'static str, u64)> = Vec::new();
        for (op, c) in self.counts.iter().enumerate() {
            let n = c.load(Ordering::Relaxed);
            if n == 0 {
                continue;
            }
            let name = if op == OPCODE_SLOTS - 1 { "other" } else { opcode_name(op as u32) };
            match v.iter_mut().find(|(k, _)| *k == name) {
                Some((_, total)) => *total += n,
                None => v.push((name, n)),
            }
        }
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    pub fn max_in_flight(&self) -> u64 {
        self.max_in_flight.load(Ordering::Relaxed)
    }

    pub fn elapsed(&self) -> Duration {
        self.since.lock().unwrap().elapsed()
    }

    /// The stats file: `key value` lines, fixed keys first, then one line
    /// per opcode seen.
    pub fn render(&self, cfg: &Config, clients: Option<&Clients>, last: bool) -> String {
        let mut s = String::new();
        let mut line = |k: &str, v: String| {
            s.push_str(k);
            s.push(' ');
            s.push_str(&v);
            s.push('\n');
        };
        line("latency_ns", cfg.latency.as_nanos().to_string());
        line("jitter_ns", cfg.jitter.as_nanos().to_string());
        line("read_latency_ns", cfg.read_latency.as_nanos().to_string());
        line("cache_ns", cfg.cache.as_nanos().to_string());
        line("elapsed_s", format!("{:.3}", self.elapsed().as_secs_f64()));
        line("resets", self.resets.load(Ordering::Relaxed).to_string());
        line("requests", self.total().to_string());
        line("max_in_flight", self.max_in_flight().to_string());
        line("in_flight", self.in_flight.load(Ordering::Relaxed).to_string());
        line("interrupted", self.interrupted.load(Ordering::Relaxed).to_string());
        line("mean_late_us", format!("{:.1}", self.mean_late().as_nanos() as f64 / 1e3));
        line("final", u8::from(last).to_string());
        for (name, n) in self.by_opcode() {
            line(name, n.to_string());
        }
        if let Some(c) = clients {
            c.render(&mut line);
        }
        s
    }
}

/// Replies waiting for their deadline, by request id.
struct DelayQueue {
    state: Mutex<QueueState>,
    due: Condvar,
}

/// A reply waiting for its deadline, and the capped client it is
/// counted against (None without `--per-client`).
type Parked = (Option<u32>, Vec<u8>);

#[derive(Default)]
struct QueueState {
    heap: BinaryHeap<Reverse<(Instant, u64)>>,
    parked: HashMap<u64, Parked>,
    stop: bool,
}

impl DelayQueue {
    fn park(&self, at: Instant, unique: u64, reply: Parked) {
        let mut st = self.state.lock().unwrap();
        let earliest = st.heap.peek().is_none_or(|Reverse((t, _))| at < *t);
        st.heap.push(Reverse((at, unique)));
        st.parked.insert(unique, reply);
        drop(st);
        if earliest {
            self.due.notify_one();
        }
    }

    /// Takes a parked reply out early (its request was interrupted).
    fn take(&self, unique: u64) -> Option<Parked> {
        self.state.lock().unwrap().parked.remove(&unique)
    }

    /// Blocks until some replies are due and moves them, with their
    /// deadlines, into `out`; false once the queue is stopped.
    fn wait_due(&self, out: &mut Vec<(Instant, Parked)>) -> bool {
        let mut st = self.state.lock().unwrap();
        loop {
            if st.stop {
                return false;
            }
            let now = Instant::now();
            while let Some(&Reverse((t, unique))) = st.heap.peek() {
                if t > now {
                    break;
                }
                st.heap.pop();
                if let Some(r) = st.parked.remove(&unique) {
                    out.push((t, r));
                }
            }
            if !out.is_empty() {
                return true;
            }
            st = match st.heap.peek() {
                Some(&Reverse((t, _))) => self.due.wait_timeout(st, t - now).unwrap().0,
                None => self.due.wait(st).unwrap(),
            };
        }
    }

    fn stop(&self) {
        ringio::sync::lock(&self.state).stop = true;
        self.due.notify_all();
    }
}

pub struct Server {
    dev: File,
    pub cfg: Config,
    nodes: Mutex<Nodes>,
    files: Mutex<Handles<Arc<File>>>,
    dirs: Mutex<Handles<Arc<Vec<DirEntry>>>>,
    /// Open files and directories with an injected failure from an offset
    /// (bytes, entries) on.
    faulty: Mutex<HashMap<(bool, u64), u64>>,
    pub stats: Stats,
    queue: DelayQueue,
    /// The per-client cap, when there is one.
    pub clients: Option<Clients>,
    initialized: Mutex<bool>,
    init_done: Condvar,
    /// What INIT settled: protocol minor, and the flags both sides accepted.
    negotiated: Mutex<(u32, u32)>,
    workers_alive: AtomicUsize,
    stopped: AtomicBool,
}

type Reply = Result<(), i32>;

fn errno(e: io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

fn push<T: Pod>(out: &mut Vec<u8>, v: &T) {
    out.extend_from_slice(as_bytes(v));
}

/// The bytes of a NUL-terminated name at the front of `body`.
fn name_arg(body: &[u8]) -> Result<&[u8], i32> {
    let end = body.iter().position(|&b| b == 0).ok_or(libc::EINVAL)?;
    Ok(&body[..end])
}

fn arg<T: Pod>(body: &[u8]) -> Result<T, i32> {
    read_struct(body).ok_or(libc::EINVAL)
}

fn path_cstring(p: &Path) -> Result<CString, i32> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| libc::EINVAL)
}

fn attr_of(md: &Metadata) -> Attr {
    Attr {
        ino: md.ino(),
        size: md.size(),
        blocks: md.blocks(),
        atime: md.atime() as u64,
        mtime: md.mtime() as u64,
        ctime: md.ctime() as u64,
        atimensec: md.atime_nsec() as u32,
        mtimensec: md.mtime_nsec() as u32,
        ctimensec: md.ctime_nsec() as u32,
        mode: md.mode(),
        nlink: md.nlink() as u32,
        uid: md.uid(),
        gid: md.gid(),
        // Userspace dev_t and the kernel's new_encode_dev agree on the low
        // 32 bits for every major < 4096 and minor < 2^20.
        rdev: md.rdev() as u32,
        blksize: md.blksize() as u32,
        flags: 0,
    }
}

/// The d_type of a file of type `ft`.
fn dtype(ft: fs::FileType) -> u32 {
    type Is = fn(&fs::FileType) -> bool;
    const KINDS: [(Is, u8); 7] = [
        (fs::FileType::is_dir, libc::DT_DIR),
        (fs::FileType::is_file, libc::DT_REG),
        (fs::FileType::is_symlink, libc::DT_LNK),
        (FileTypeExt::is_fifo, libc::DT_FIFO),
        (FileTypeExt::is_char_device, libc::DT_CHR),
        (FileTypeExt::is_block_device, libc::DT_BLK),
        (FileTypeExt::is_socket, libc::DT_SOCK),
    ];
    let dt = KINDS.iter().find(|(is, _)| is(&ft)).map_or(libc::DT_UNKNOWN, |&(_, dt)| dt);
    u32::from(dt)
}

/// A small xorshift generator for jitter (quality is irrelevant here).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

impl Server {
    /// Starts `cfg.threads` workers on the connection `dev` and the timer
    /// thread; they run until the file system is unmounted.
    pub fn start(dev: File, cfg: Config) -> (Arc<Server>, Vec<JoinHandle<()>>) {
        let threads = cfg.threads.max(1);
        let clients = (cfg.per_client > 0).then(|| Clients::new(cfg.per_client));
        let server = Arc::new(Server {
            dev,
            nodes: Mutex::new(Nodes::new(cfg.source.clone())),
            cfg,
            files: Mutex::new(Handles::new()),
            dirs: Mutex::new(Handles::new()),
            faulty: Mutex::new(HashMap::new()),
            stats: Stats::new(),
            queue: DelayQueue { state: Mutex::new(QueueState::default()), due: Condvar::new() },
            clients,
            initialized: Mutex::new(false),
            init_done: Condvar::new(),
            negotiated: Mutex::new((0, 0)),
            workers_alive: AtomicUsize::new(threads),
            stopped: AtomicBool::new(false),
        });
        let mut handles = Vec::new();
        for i in 0..threads {
            let s = Arc::clone(&server);
            let h = std::thread::Builder::new()
                .name(format!("slowfs-worker-{i}"))
                .spawn(move || s.worker(i))
                .expect("spawn slowfs worker");
            handles.push(h);
        }
        let s = Arc::clone(&server);
        let h = std::thread::Builder::new()
            .name("slowfs-timer".into())
            .spawn(move || s.timer())
            .expect("spawn slowfs timer");
        handles.push(h);
        (server, handles)
    }

    /// Waits for the kernel's INIT to be answered: the mount is live then.
    pub fn wait_initialized(&self, timeout: Duration) -> bool {
        let g = self.initialized.lock().unwrap();
        let (g, _) = self.init_done.wait_timeout_while(g, timeout, |done| !*done).unwrap();
        *g
    }

    /// The negotiated protocol, e.g. "7.38, parallel dirops, async read".
    pub fn protocol(&self) -> String {
        let (minor, flags) = *self.negotiated.lock().unwrap();
        let mut s = format!("{KERNEL_VERSION}.{minor}");
        for (bit, name) in [
            (FUSE_PARALLEL_DIROPS, "parallel dirops"),
            (FUSE_ASYNC_READ, "async read"),
            (FUSE_MAX_PAGES, "128 KiB requests"),
        ] {
            if flags & bit != 0 {
                s.push_str(", ");
                s.push_str(name);
            }
        }
        s
    }

    /// Whether every worker has seen the connection end.
    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// Live node ids and open handles, for the exit summary.
    pub fn table_sizes(&self) -> (usize, usize, usize) {
        (
            self.nodes.lock().unwrap().len(),
            self.files.lock().unwrap().len(),
            self.dirs.lock().unwrap().len(),
        )
    }

    fn worker(&self, index: usize) {
        /// Marks the worker gone however it ends (a panic included), so the
        /// last one out always stops the timer and the server can exit.
        struct Exit<'a>(&'a Server);
        impl Drop for Exit<'_> {
            fn drop(&mut self) {
                if self.0.workers_alive.fetch_sub(1, Ordering::AcqRel) == 1 {
                    self.0.stopped.store(true, Ordering::Release);
                    self.0.queue.stop();
                }
            }
        }
        let _exit = Exit(self);
        let mut buf = vec![0u8; BUF_SIZE];
        let clock = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let seed = clock ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut rng = Rng(seed | 1);
        loop {
            let n = match (&self.dev).read(&mut buf) {
                Ok(n) => n,
                Err(e) => match e.raw_os_error() {
                    // The request was interrupted before we read it, or a
                    // signal arrived: try again.
                    Some(libc::ENOENT | libc::EINTR | libc::EAGAIN) => continue,
                    // Unmounted (or the connection was aborted).
                    Some(libc::ENODEV) => break,
                    _ => {
                        eprintln!("slowfs: reading /dev/fuse: {e}");
                        break;
                    }
                },
            };
            let received = Instant::now();
            self.handle(&buf[..n], received, &mut rng);
        }
    }

    fn timer(&self) {
        // Deadlines are a millisecond apart: the default 50 µs of slack
        // would add 5 % to every request.
        let _ = sys::set_timer_slack(1);
        let mut due = Vec::new();
        while self.queue.wait_due(&mut due) {
            for (deadline, (client, reply)) in due.drain(..) {
                // Count it answered first: once written, the caller may
                // send its next request before this thread runs again.
                self.stats.leave();
                self.stats.late(deadline.elapsed());
                self.send(&reply);
                if let Some(c) = client {
                    self.release_slot(c);
                }
            }
        }
    }

    fn send(&self, reply: &[u8]) {
        if let Err(e) = (&self.dev).write(reply) {
            match e.raw_os_error() {
                // The caller went away (interrupted), or we are unmounted.
                Some(libc::ENOENT | libc::ENODEV) => {}
                _ => eprintln!("slowfs: writing a reply: {e}"),
            }
        }
    }

    fn delay(&self, op: u32, rng: &mut Rng) -> Duration {
        if op == READ {
            return self.cfg.read_latency;
        }
        if !is_metadata(op) {
            return Duration::ZERO;
        }
        let base = self.cfg.latency.as_nanos() as i128;
        let j = self.cfg.jitter.as_nanos() as i128;
        let off = if j == 0 { 0 } else { (rng.next() as i128 % (2 * j + 1)) - j };
        Duration::from_nanos((base + off).max(0) as u64)
    }

    fn handle(&self, msg: &[u8], received: Instant, rng: &mut Rng) {
        let Some(h) = read_struct::<InHeader>(msg) else { return };
        let end = (h.len as usize).min(msg.len());
        let body = msg.get(std::mem::size_of::<InHeader>()..end).unwrap_or(&[]);
        self.stats.count(h.opcode);
        if is_one_way(h.opcode) {
            self.one_way(&h, body);
            return;
        }
        let delay = self.delay(h.opcode, rng);
        if !delay.is_zero() {
            self.stats.enter();
        }
        let mut out = vec![0u8; HEADER];
        let r = self.dispatch(&h, body, &mut out);
        let err = match r {
            Ok(()) => 0,
            Err(e) => {
                out.truncate(HEADER);
                -e
            }
        };
        let header = OutHeader { len: out.len() as u32, error: err, unique: h.unique };
        out[..HEADER].copy_from_slice(as_bytes(&header));
        if delay.is_zero() {
            self.send(&out);
            return;
        }
        let Some(clients) = &self.clients else {
            self.queue.park(received + delay, h.unique, (None, out));
            return;
        };
        let client = clients.client_of(h.pid);
        let w = Waiting { unique: h.unique, delay, reply: out };
        if let Some(w) = clients.admit(client, opcode_name(h.opcode), w) {
            self.queue.park(received + w.delay, w.unique, (Some(client), w.reply));
        }
    }

    /// A reply of a capped client went out: its slot goes to the client's
    /// oldest waiting request, whose delay starts now.
    fn release_slot(&self, client: u32) {
        let Some(clients) = &self.clients else { return };
        if let Some(w) = clients.release(client) {
            self.queue.park(Instant::now() + w.delay, w.unique, (Some(client), w.reply));
        }
    }

    fn one_way(&self, h: &InHeader, body: &[u8]) {
        match h.opcode {
            FORGET => {
                if let Some(f) = read_struct::<ForgetIn>(body) {
                    self.nodes.lock().unwrap().forget(h.nodeid, f.nlookup);
                }
            }
            BATCH_FORGET => {
                let Some(b) = read_struct::<BatchForgetIn>(body) else { return };
                let mut nodes = self.nodes.lock().unwrap();
                let items = &body[std::mem::size_of::<BatchForgetIn>()..];
                for chunk in
                    items.chunks_exact(std::mem::size_of::<ForgetOne>()).take(b.count as usize)
                {
                    if let Some(f) = read_struct::<ForgetOne>(chunk) {
                        nodes.forget(f.nodeid, f.nlookup);
                    }
                }
            }
            INTERRUPT => {
                // Answer the interrupted request now with EINTR if its reply
                // is still parked; otherwise it is being answered already.
                // A request still waiting for its client's slot is answered
                // the same way, and holds no slot.
                let Some(i) = read_struct::<InterruptIn>(body) else { return };
                let slot = match self.queue.take(i.unique) {
                    Some((client, _)) => client,
                    None => match self.clients.as_ref().and_then(|c| c.cancel(i.unique)) {
                        Some(_) => None,
                        None => return,
                    },
                };
                let header =
                    OutHeader { len: HEADER as u32, error: -libc::EINTR, unique: i.unique };
                self.stats.leave();
                self.send(as_bytes(&header));
                self.stats.interrupted.fetch_add(1, Ordering::Relaxed);
                if let Some(c) = slot {
                    self.release_slot(c);
                }
            }
            _ => {}
        }
    }

    fn node_path(&self, id: u64) -> Result<PathBuf, i32> {
        self.nodes.lock().unwrap().path(id).ok_or(libc::ESTALE)
    }

    fn cache_times(&self) -> (u64, u32) {
        (self.cfg.cache.as_secs(), self.cfg.cache.subsec_nanos())
    }

    /// The injected fault of kind `op` for a node named `name`, if any.
    fn fault(&self, op: FaultOp, name: &[u8]) -> Option<&Fault> {
        self.cfg.faults.iter().find(|f| f.op == op && f.name == name)
    }

    /// The errno request `h` (on a node, or LOOKUP of a name) is to fail
    /// with outright, if any.
    fn injected(&self, h: &InHeader, body: &[u8]) -> Option<i32> {
        if self.cfg.faults.is_empty() {
            return None;
        }
        let (op, name) = match h.opcode {
            LOOKUP => match name_arg(body) {
                Ok(n) => (FaultOp::Stat, n.to_vec()),
                Err(_) => return None,
            },
            GETATTR | OPENDIR | OPEN | READLINK => {
                let op = match h.opcode {
                    GETATTR => FaultOp::Stat,
                    OPENDIR => FaultOp::Opendir,
                    OPEN => FaultOp::Open,
                    _ => FaultOp::Readlink,
                };
                let Ok(p) = self.node_path(h.nodeid) else { return None };
                (op, p.file_name().map_or(Vec::new(), |n| n.as_bytes().to_vec()))
            }
            _ => return None,
        };
        self.fault(op, &name).map(|f| f.errno)
    }

    /// The offset from which reads (`dir` false) or READDIRs of the node
    /// being opened fail, when it has such a fault.
    fn fault_from(&self, dir: bool, id: u64) -> Option<u64> {
        let p = self.node_path(id).ok()?;
        let name = p.file_name()?.as_bytes();
        let op = if dir { FaultOp::Readdir } else { FaultOp::Read };
        self.fault(op, name).map(|f| f.at)
    }

    fn dispatch(&self, h: &InHeader, body: &[u8], out: &mut Vec<u8>) -> Reply {
        if let Some(e) = self.injected(h, body) {
            return Err(e);
        }
        match h.opcode {
            INIT => self.init(body, out),
            DESTROY | FLUSH => Ok(()),
            LOOKUP => self.lookup(h.nodeid, name_arg(body)?, out),
            GETATTR => self.getattr(h.nodeid, out),
            READLINK => self.readlink(h.nodeid, out),
            OPEN => self.open(h.nodeid, body, out),
            READ => self.read(body, out),
            RELEASE => self.release(false, body),
            OPENDIR => self.opendir(h.nodeid, out),
            READDIR => self.readdir(body, out),
            RELEASEDIR => self.release(true, body),
            GETXATTR => self.getxattr(h.nodeid, body, out),
            LISTXATTR => self.listxattr(h.nodeid, body, out),
            STATFS => self.statfs(h.nodeid, out),
            ACCESS => {
                // The server runs as root and the mount is read-only (the
                // kernel refuses writes itself): every existing file passes.
                fs::symlink_metadata(self.node_path(h.nodeid)?).map_err(errno)?;
                Ok(())
            }
            _ => Err(libc::ENOSYS),
        }
    }

    /// The attributes of a node, valid for the cache time.
    fn getattr(&self, nodeid: u64, out: &mut Vec<u8>) -> Reply {
        let md = fs::symlink_metadata(self.node_path(nodeid)?).map_err(errno)?;
        let (secs, nsecs) = self.cache_times();
        let a = AttrOut { attr_valid: secs, attr_valid_nsec: nsecs, dummy: 0, attr: attr_of(&md) };
        push(out, &a);
        Ok(())
    }

    /// A symbolic link's target.
    fn readlink(&self, nodeid: u64, out: &mut Vec<u8>) -> Reply {
        let target = fs::read_link(self.node_path(nodeid)?).map_err(errno)?;
        out.extend_from_slice(target.as_os_str().as_bytes());
        Ok(())
    }

    /// Opens a file, read-only (the mount is); one with a read fault to
    /// come is read directly, so that the fault can't be cached over.
    fn open(&self, nodeid: u64, body: &[u8], out: &mut Vec<u8>) -> Reply {
        let o: OpenIn = arg(body)?;
        if o.flags as i32 & libc::O_ACCMODE != libc::O_RDONLY {
            return Err(libc::EROFS);
        }
        let f = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.node_path(nodeid)?)
            .map_err(errno)?;
        let fh = self.files.lock().unwrap().insert(Arc::new(f));
        let mut open_flags = 0;
        if let Some(at) = self.fault_from(false, nodeid) {
            self.faulty.lock().unwrap().insert((false, fh), at);
            open_flags |= FOPEN_DIRECT_IO;
        }
        push(out, &OpenOut { fh, open_flags, padding: 0 });
        Ok(())
    }

    /// Reads from an open file, failing with EIO from a fault's offset on.
    fn read(&self, body: &[u8], out: &mut Vec<u8>) -> Reply {
        let r: ReadIn = arg(body)?;
        let f = self.files.lock().unwrap().get(r.fh).ok_or(libc::EBADF)?;
        let mut want = r.size.min(MAX_READ) as usize;
        if let Some(&at) = self.faulty.lock().unwrap().get(&(false, r.fh)) {
            if r.offset >= at {
                return Err(libc::EIO);
            }
            want = want.min((at - r.offset) as usize);
        }
        out.resize(HEADER + want, 0);
        let mut got = 0;
        while got < want {
            match f.read_at(&mut out[HEADER + got..], r.offset + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(errno(e)),
            }
        }
        out.truncate(HEADER + got);
        Ok(())
    }

    /// As many entries of an open directory as fit, from the offset asked,
    /// failing with EIO from a fault's entry on.
    fn readdir(&self, body: &[u8], out: &mut Vec<u8>) -> Reply {
        let r: ReadIn = arg(body)?;
        let entries = self.dirs.lock().unwrap().get(r.fh).ok_or(libc::EBADF)?;
        let limit = r.size as usize;
        let mut used = 0;
        let fail_at = self.faulty.lock().unwrap().get(&(true, r.fh)).copied();
        if fail_at.is_some_and(|at| r.offset >= at) {
            return Err(libc::EIO);
        }
        let end = fail_at.map_or(entries.len(), |at| (at as usize).min(entries.len()));
        for (i, e) in entries[..end].iter().enumerate().skip(r.offset as usize) {
            let size = dirent_size(e.name.len());
            if used + size > limit {
                break;
            }
            let d =
                Dirent { ino: e.ino, off: i as u64 + 1, namelen: e.name.len() as u32, typ: e.typ };
            push(out, &d);
            out.extend_from_slice(&e.name);
            out.resize(out.len() + size - std::mem::size_of::<Dirent>() - e.name.len(), 0);
            used += size;
        }
        Ok(())
    }

    /// One extended attribute's value.
    fn getxattr(&self, nodeid: u64, body: &[u8], out: &mut Vec<u8>) -> Reply {
        let g: GetxattrIn = arg(body)?;
        let name = name_arg(&body[std::mem::size_of::<GetxattrIn>()..])?;
        let name = CString::new(name).map_err(|_| libc::EINVAL)?;
        let path = path_cstring(&self.node_path(nodeid)?)?;
        self.xattr_reply(g.size, out, |buf| sys::lgetxattr(&path, &name, buf))
    }

    /// The names of a node's extended attributes.
    fn listxattr(&self, nodeid: u64, body: &[u8], out: &mut Vec<u8>) -> Reply {
        let g: GetxattrIn = arg(body)?;
        let path = path_cstring(&self.node_path(nodeid)?)?;
        self.xattr_reply(g.size, out, |buf| sys::llistxattr(&path, buf))
    }

    /// The file system's numbers, as the source's.
    fn statfs(&self, nodeid: u64, out: &mut Vec<u8>) -> Reply {
        let st = sys::statvfs(&self.node_path(nodeid)?).map_err(errno)?;
        let k = Kstatfs {
            blocks: st.blocks,
            bfree: st.bfree,
            bavail: st.bavail,
            files: st.files,
            ffree: st.ffree,
            bsize: st.bsize as u32,
            namelen: st.namelen as u32,
            frsize: st.frsize as u32,
            padding: 0,
            spare: [0; 6],
        };
        push(out, &k);
        Ok(())
    }

    /// Closes an open file (or directory) and forgets its fault.
    fn release(&self, dir: bool, body: &[u8]) -> Reply {
        let r: ReleaseIn = arg(body)?;
        if dir {
            self.dirs.lock().unwrap().remove(r.fh);
        } else {
            self.files.lock().unwrap().remove(r.fh);
        }
        self.faulty.lock().unwrap().remove(&(dir, r.fh));
        Ok(())
    }

    /// GETXATTR/LISTXATTR: size 0 asks how big the value is.
    fn xattr_reply(
        &self,
        size: u32,
        out: &mut Vec<u8>,
        call: impl Fn(&mut [u8]) -> io::Result<usize>,
    ) -> Reply {
        if size == 0 {
            let n = call(&mut []).map_err(errno)?;
            push(out, &GetxattrOut { size: n as u32, padding: 0 });
        } else {
            out.resize(HEADER + size as usize, 0);
            let n = call(&mut out[HEADER..]).map_err(errno)?;
            out.truncate(HEADER + n);
        }
        Ok(())
    }

    fn init(&self, body: &[u8], out: &mut Vec<u8>) -> Reply {
        let i: InitIn = arg(body)?;
        if i.major > KERNEL_VERSION {
            // The kernel offers a newer major: tell it ours, it asks again.
            let o = InitOut {
                major: KERNEL_VERSION,
                minor: KERNEL_MINOR_VERSION,
                ..Default::default()
            };
            push(out, &o);
            return Ok(());
        }
        if i.major < KERNEL_VERSION || i.minor < MIN_MINOR_VERSION {
            eprintln!("slowfs: kernel FUSE protocol {}.{} is too old", i.major, i.minor);
            return Err(libc::EPROTO);
        }
        let wanted = FUSE_ASYNC_READ | FUSE_PARALLEL_DIROPS | FUSE_MAX_PAGES | FUSE_BIG_WRITES;
        let o = InitOut {
            major: KERNEL_VERSION,
            minor: i.minor.min(KERNEL_MINOR_VERSION),
            max_readahead: i.max_readahead,
            flags: i.flags & wanted,
            // Asynchronous requests (readahead, async reads) the kernel may
            // keep outstanding before it throttles callers.
            max_background: 1024,
            congestion_threshold: 768,
            max_write: MAX_READ,
            time_gran: 1,
            max_pages: (MAX_READ / 4096) as u16,
            map_alignment: 0,
            flags2: 0,
            unused: [0; 7],
        };
        push(out, &o);
        *self.negotiated.lock().unwrap() = (o.minor, o.flags);
        *self.initialized.lock().unwrap() = true;
        self.init_done.notify_all();
        Ok(())
    }

    fn lookup(&self, parent: u64, name: &[u8], out: &mut Vec<u8>) -> Reply {
        let path = self.nodes.lock().unwrap().child_path(parent, name).ok_or(libc::ENOENT)?;
        let (secs, nsecs) = self.cache_times();
        let md = match fs::symlink_metadata(&path) {
            Ok(md) => md,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !self.cfg.cache.is_zero() => {
                // A negative entry (node id 0) the kernel may cache.
                let e =
                    EntryOut { entry_valid: secs, entry_valid_nsec: nsecs, ..Default::default() };
                push(out, &e);
                return Ok(());
            }
            Err(e) => return Err(errno(e)),
        };
        let nodeid = self.nodes.lock().unwrap().remember(path);
        let e = EntryOut {
            nodeid,
            generation: 0,
            entry_valid: secs,
            attr_valid: secs,
            entry_valid_nsec: nsecs,
            attr_valid_nsec: nsecs,
            attr: attr_of(&md),
        };
        push(out, &e);
        Ok(())
    }

    /// Lists the whole directory now; READDIR serves slices of the list,
    /// with each entry's offset its index + 1.
    fn opendir(&self, id: u64, out: &mut Vec<u8>) -> Reply {
        let path = self.node_path(id)?;
        let me = fs::symlink_metadata(&path).map_err(errno)?;
        if !me.is_dir() {
            return Err(libc::ENOTDIR);
        }
        let parent_ino = fs::symlink_metadata(parent_of(&path)).map_or(me.ino(), |m| m.ino());
        let dt_dir = libc::DT_DIR as u32;
        let mut entries = vec![
            DirEntry::new(me.ino(), dt_dir, ".".into()),
            DirEntry::new(parent_ino, dt_dir, "..".into()),
        ];
        for e in fs::read_dir(&path).map_err(errno)? {
            let e = e.map_err(errno)?;
            let typ = e.file_type().map_or(libc::DT_UNKNOWN as u32, dtype);
            entries.push(DirEntry::new(e.ino(), typ, e.file_name()));
        }
        let fh = self.dirs.lock().unwrap().insert(Arc::new(entries));
        if let Some(at) = self.fault_from(true, id) {
            self.faulty.lock().unwrap().insert((true, fh), at);
        }
        push(out, &OpenOut { fh, open_flags: 0, padding: 0 });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_specs_parse() {
        let f = Fault::parse("readdir:big@10").unwrap();
        assert_eq!((f.op, f.name.as_slice(), f.at), (FaultOp::Readdir, &b"big"[..], 10));
        let f = Fault::parse("stat:a@b").unwrap_err();
        assert!(f.contains("offset"), "{f}");
        assert_eq!(Fault::parse("stat:x").unwrap().at, 0);
        assert!(Fault::parse("write:x").is_err());
        assert!(Fault::parse("stat:a/b").is_err());
        assert!(Fault::parse("stat").is_err());
    }

    #[test]
    fn metadata_requests_are_delayed_and_data_ones_are_not() {
        for op in [LOOKUP, GETATTR, OPENDIR, READDIR, READLINK, OPEN, GETXATTR, LISTXATTR] {
            assert!(is_metadata(op), "{}", opcode_name(op));
        }
        for op in [READ, RELEASE, RELEASEDIR, FLUSH, INIT, DESTROY, FORGET, INTERRUPT] {
            assert!(!is_metadata(op), "{}", opcode_name(op));
        }
    }

    #[test]
    fn delay_queue_releases_in_deadline_order() {
        let q = DelayQueue { state: Mutex::new(QueueState::default()), due: Condvar::new() };
        let now = Instant::now();
        q.park(now + Duration::from_millis(20), 2, (None, vec![2]));
        q.park(now + Duration::from_millis(5), 1, (Some(7), vec![1]));
        q.park(now + Duration::from_millis(40), 3, (None, vec![3]));
        assert_eq!(q.take(3), Some((None, vec![3])));
        let mut out = Vec::new();
        assert!(q.wait_due(&mut out));
        assert!(now.elapsed() >= Duration::from_millis(5));
        if out.len() == 1 {
            let mut more = Vec::new();
            assert!(q.wait_due(&mut more));
            out.append(&mut more);
        }
        let replies: Vec<Vec<u8>> = out.iter().map(|(_, (_, r))| r.clone()).collect();
        assert_eq!(out[0].1 .0, Some(7));
        assert_eq!(replies, vec![vec![1], vec![2]]);
        assert_eq!(out[0].0, now + Duration::from_millis(5));
        assert!(now.elapsed() >= Duration::from_millis(20));
        q.stop();
        assert!(!q.wait_due(&mut out));
    }

    #[test]
    fn stats_render_and_reset() {
        let s = Stats::new();
        s.count(LOOKUP);
        s.count(LOOKUP);
        s.count(GETATTR);
        s.count(9999);
        s.enter();
        s.enter();
        s.leave();
        let cfg = Config {
            source: PathBuf::from("/"),
            latency: Duration::from_millis(1),
            jitter: Duration::ZERO,
            read_latency: Duration::ZERO,
            cache: Duration::ZERO,
            threads: 1,
            faults: Vec::new(),
            per_client: 0,
        };
        let text = s.render(&cfg, None, true);
        assert!(text.contains("requests 4\n"), "{text}");
        assert!(text.contains("max_in_flight 2\n"), "{text}");
        assert!(text.contains("lookup 2\ngetattr 1\nother 1\n"), "{text}");
        assert!(text.contains("latency_ns 1000000\n"), "{text}");
        s.reset();
        let text = s.render(&cfg, None, false);
        assert!(text.contains("requests 0\n") && text.contains("max_in_flight 1\n"), "{text}");
        assert!(text.contains("resets 1\n") && text.contains("final 0\n"), "{text}");
    }
}
