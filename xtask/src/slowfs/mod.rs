//! `cargo xtask slowfs`: a read-only FUSE mirror of a directory that
//! delays every metadata request, to measure tools the way they behave on
//! NFS or a FUSE home directory with attribute caching off.
//!
//! The FUSE protocol is spoken by hand over /dev/fuse (proto.rs has the
//! structures, server.rs the dispatch and the delay queue, nodes.rs the
//! node-id table, sys.rs the few raw system calls). The mount is made with
//! mount(2), so it needs root (or CAP_SYS_ADMIN) and a usable /dev/fuse.

pub(crate) mod child;
mod clients;
mod nodes;
mod proto;
mod server;
pub(crate) mod sys;

use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use server::{Config, Server};

pub const USAGE: &str = "\
usage: cargo xtask slowfs MOUNTPOINT --source DIR [OPTIONS]
       cargo xtask slowfs --umount MOUNTPOINT

Mounts a read-only FUSE mirror of DIR on MOUNTPOINT that answers every
metadata request (lookup, getattr, opendir, readdir, readlink, open,
getxattr, listxattr, statfs, access) only after a delay, with attribute and
entry caching off, like NFS with actimeo=0. Requests are served
concurrently: each finished reply waits in a timer queue, so any number can
be in flight. Prints \"ready\" on stdout once the mount is live; serves until
unmounted (--umount, umount(8), Ctrl-C or SIGTERM), then prints request
counts by type and the most delayed requests seen in flight at once on
stderr.

options:
  --source DIR         directory to mirror (required)
  --latency DUR        delay of each metadata request (default 1ms); DUR is a
                       number with ns, us, ms or s (a bare number means ms)
  --jitter DUR         each delay is drawn uniformly from latency ± jitter
  --read-latency DUR   delay of each read request (default 0)
  --cache SECS         entry/attribute cache time given to the kernel
                       (default 0: every access is a request)
  --threads N          threads reading requests (default 4)
  --per-client K       at most K delayed requests of one client in service at
                       once; the others wait in arrival order (none is
                       refused). A client is a process: the FUSE request's
                       thread id grouped by thread group. K = 8 is a Lustre
                       client's metadata RPC limit. The stats file then gets
                       per-client lines (client.PID.max_in_service, ...,
                       client.PID.op.NAME: requests by type)
  --stats FILE         write counters to FILE as `key value` lines: on exit
                       (with `final 1`), on SIGUSR1, and on SIGUSR2 after
                       zeroing the counters (`resets` counts those)
  --daemon             serve in the background: the command returns once the
                       mount is live (after printing \"ready\")
  --log FILE           with --daemon, where the server's stderr goes
                       (default /dev/null)
  --inject-eio OP:NAME[@N]
                       answer OP on every node named NAME with EIO (repeatable):
                       stat (LOOKUP and GETATTR), opendir, open, readlink,
                       readdir (from entry N on; . and .. are entries 0 and 1),
                       read (from byte N on; such files are opened with direct
                       I/O, so every byte before N reaches the reader)
  --vanish NAME        LOOKUP and GETATTR of NAME answer ENOENT while READDIR
                       still lists it: a file deleted between getdents and stat
  --umount             unmount a slowfs mount (lazily if it is busy)";

struct Options {
    mountpoint: PathBuf,
    source: Option<PathBuf>,
    latency: Duration,
    jitter: Duration,
    read_latency: Duration,
    cache: Duration,
    threads: usize,
    per_client: usize,
    stats: Option<PathBuf>,
    daemon: bool,
    log: Option<PathBuf>,
    umount: bool,
    faults: Vec<server::Fault>,
}

pub fn main(args: &[String]) -> Result<(), String> {
    let Some(opts) = parse_args(args)? else {
        println!("{USAGE}");
        return Ok(());
    };
    if opts.umount {
        return umount_command(&opts.mountpoint);
    }
    let source = opts.source.as_ref().ok_or("slowfs: --source DIR is required")?;
    let source = fs::canonicalize(source)
        .map_err(|e| format!("slowfs: source {}: {e}", source.display()))?;
    if !source.is_dir() {
        return Err(format!("slowfs: source {} is not a directory", source.display()));
    }
    let mountpoint = absolute_mountpoint(&opts.mountpoint)?;
    if slowfs_mounted_at(&mountpoint) {
        return Err(format!(
            "slowfs: a slowfs is already mounted on {} (cargo xtask slowfs --umount {0})",
            mountpoint.display()
        ));
    }
    match fs::metadata(&mountpoint) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(format!("slowfs: {} is not a directory", mountpoint.display())),
        Err(e) => return Err(format!("slowfs: mount point {}: {e}", mountpoint.display())),
    }
    let cfg = Config {
        source,
        latency: opts.latency,
        jitter: opts.jitter,
        read_latency: opts.read_latency,
        cache: opts.cache,
        threads: opts.threads,
        faults: opts.faults.clone(),
        per_client: opts.per_client,
    };
    if !opts.daemon {
        return serve(cfg, &mountpoint, opts.stats.as_deref(), None);
    }
    // Daemon: fork while still single-threaded; the parent waits for the
    // child's "ready" (or its error) on a pipe.
    let (mut rx, tx) = sys::pipe().map_err(|e| format!("slowfs: pipe: {e}"))?;
    match sys::fork().map_err(|e| format!("slowfs: fork: {e}"))? {
        Some(pid) => {
            drop(tx);
            let mut msg = String::new();
            let _ = rx.read_to_string(&mut msg);
            if msg.starts_with("ready") {
                println!("ready");
                eprintln!("slowfs: serving {} in the background (pid {pid})", mountpoint.display());
                Ok(())
            } else if msg.is_empty() {
                Err("slowfs: the server exited before the mount was ready".into())
            } else {
                Err(msg.trim_end().to_string())
            }
        }
        None => {
            drop(rx);
            let _ = sys::setsid();
            let daemon = Daemon { ready: Some(tx), log: opts.log.clone() };
            let mut daemon = Some(daemon);
            let r = serve(cfg, &mountpoint, opts.stats.as_deref(), daemon.as_mut());
            if let (Err(e), Some(Daemon { ready: Some(mut tx), .. })) = (&r, daemon) {
                let _ = tx.write_all(e.as_bytes());
            }
            std::process::exit(i32::from(r.is_err()));
        }
    }
}

/// A daemon child's duties at readiness: tell the parent, leave its stdio.
struct Daemon {
    ready: Option<File>,
    log: Option<PathBuf>,
}

fn parse_duration(s: &str, bare_unit_ns: f64) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num.parse().map_err(|_| format!("bad duration '{s}'"))?;
    let scale = match unit {
        "" => bare_unit_ns,
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return Err(format!("bad duration '{s}' (units: ns, us, ms, s)")),
    };
    let ns = n * scale;
    if !(0.0..=1e15).contains(&ns) {
        return Err(format!("bad duration '{s}'"));
    }
    Ok(Duration::from_nanos(ns.round() as u64))
}

fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        mountpoint: PathBuf::new(),
        source: None,
        latency: Duration::from_millis(1),
        jitter: Duration::ZERO,
        read_latency: Duration::ZERO,
        cache: Duration::ZERO,
        threads: 4,
        per_client: 0,
        stats: None,
        daemon: false,
        log: None,
        umount: false,
        faults: Vec::new(),
    };
    let mut mountpoint = None;
    let mut words = crate::Words::new(args);
    while let Some(a) = words.next_word() {
        let flag = a.as_str();
        let mut value = || words.value(flag).map_err(|e| format!("slowfs: {e}"));
        let bad = |e: String| format!("slowfs: {flag}: {e}");
        match flag {
            "-h" | "--help" => return Ok(None),
            "--source" => o.source = Some(PathBuf::from(value()?)),
            "--latency" => o.latency = parse_duration(&value()?, 1e6).map_err(bad)?,
            "--jitter" => o.jitter = parse_duration(&value()?, 1e6).map_err(bad)?,
            "--read-latency" => o.read_latency = parse_duration(&value()?, 1e6).map_err(bad)?,
            "--cache" => o.cache = parse_duration(&value()?, 1e9).map_err(bad)?,
            "--threads" => {
                o.threads = value()?
                    .parse()
                    .ok()
                    .filter(|&n| (1..=256).contains(&n))
                    .ok_or("slowfs: --threads needs a number from 1 to 256")?
            }
            "--per-client" => {
                o.per_client = value()?
                    .parse()
                    .ok()
                    .filter(|&n| (1..=1 << 20).contains(&n))
                    .ok_or("slowfs: --per-client needs a positive number")?
            }
            "--stats" => o.stats = Some(PathBuf::from(value()?)),
            "--log" => o.log = Some(PathBuf::from(value()?)),
            "--daemon" => o.daemon = true,
            "--inject-eio" => o.faults.push(server::Fault::parse(&value()?).map_err(bad)?),
            "--vanish" => o.faults.push(server::Fault::vanish(&value()?).map_err(bad)?),
            "--umount" | "-u" => o.umount = true,
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(format!("slowfs: unknown option '{f}' (see --help)"))
            }
            _ if mountpoint.is_none() => mountpoint = Some(PathBuf::from(a)),
            _ => return Err(format!("slowfs: unexpected argument '{a}'")),
        }
    }
    o.mountpoint = mountpoint.ok_or("slowfs: MOUNTPOINT is missing (see --help)")?;
    Ok(Some(o))
}

/// The mount point as an absolute path without symbolic links, as
/// mountinfo shows it. Resolved through its parent first: a dead FUSE
/// mount's own stat fails (ENOTCONN), and a live slowfs mount is not to be
/// touched (that would be a counted request).
fn absolute_mountpoint(mp: &Path) -> Result<PathBuf, String> {
    let err = |e: std::io::Error| format!("slowfs: {}: {e}", mp.display());
    let name = match mp.file_name() {
        Some(n) if mp.as_os_str().as_bytes().last() != Some(&b'/') => n,
        _ => return fs::canonicalize(mp).map_err(err),
    };
    let parent = match mp.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let p = fs::canonicalize(parent).map_err(err)?.join(name);
    if !slowfs_mounted_at(&p) && fs::symlink_metadata(&p).is_ok_and(|m| m.is_symlink()) {
        return fs::canonicalize(&p).map_err(err);
    }
    Ok(p)
}

/// Undoes mountinfo's octal escapes (`\040` for a space, and so on).
pub(crate) fn unescape_mountinfo(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        if field[i] == b'\\' && i + 4 <= field.len() {
            let oct = &field[i + 1..i + 4];
            if oct.iter().all(|c| (b'0'..=b'7').contains(c)) {
                out.push((oct[0] - b'0') * 64 + (oct[1] - b'0') * 8 + (oct[2] - b'0'));
                i += 4;
                continue;
            }
        }
        out.push(field[i]);
        i += 1;
    }
    out
}

/// Whether /proc/self/mountinfo lists a slowfs mount on `mp`.
fn slowfs_mounted_at(mp: &Path) -> bool {
    let Ok(text) = fs::read("/proc/self/mountinfo") else { return false };
    text.split(|&b| b == b'\n').any(|line| {
        let fields: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
        let Some(dash) = fields.iter().position(|f| *f == b"-") else { return false };
        fields.len() > 4
            && fields.get(dash + 1) == Some(&&b"fuse.slowfs"[..])
            && unescape_mountinfo(fields[4]) == mp.as_os_str().as_bytes()
    })
}

/// Unmounts; a busy mount is detached lazily (it goes once its last user
/// does, and the server serves that user until then).
fn unmount(mp: &Path) -> Result<(), String> {
    match sys::umount(mp, false) {
        Ok(()) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
            eprintln!("slowfs: {} is busy; detaching it lazily", mp.display());
            sys::umount(mp, true).map_err(|e| format!("slowfs: umount {}: {e}", mp.display()))
        }
        Err(e) => Err(format!("slowfs: umount {}: {e}", mp.display())),
    }
}

fn umount_command(mp: &Path) -> Result<(), String> {
    let mp = absolute_mountpoint(mp)?;
    if !slowfs_mounted_at(&mp) {
        return Err(format!("slowfs: no slowfs is mounted on {}", mp.display()));
    }
    unmount(&mp)
}

fn write_stats(server: &Server, path: Option<&Path>, last: bool) {
    let Some(path) = path else { return };
    // Write a sibling file and rename it, so readers never see half a file.
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let text = server.stats.render(&server.cfg, server.clients.as_ref(), last);
    let r = fs::write(&tmp, text).and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = r {
        eprintln!("slowfs: writing {}: {e}", path.display());
    }
}

fn summary(server: &Server, mp: &Path) -> String {
    let s = &server.stats;
    let mut out = format!(
        "slowfs: {} unmounted: {} requests in {:.1} s, at most {} in flight, \
         delayed replies {:.0} us late on average\n",
        mp.display(),
        s.total(),
        s.elapsed().as_secs_f64(),
        s.max_in_flight(),
        s.mean_late().as_nanos() as f64 / 1e3,
    );
    if let Some(c) = &server.clients {
        out.push_str(&c.summary());
    }
    for (name, n) in s.by_opcode() {
        out.push_str(&format!("  {name:<14}{n:>10}\n"));
    }
    out
}

/// Mounts, serves until unmounted, reports.
fn serve(
    cfg: Config,
    mp: &Path,
    stats_file: Option<&Path>,
    daemon: Option<&mut Daemon>,
) -> Result<(), String> {
    use libc::{SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2};
    // Blocked here, before any thread starts, so every thread inherits the
    // mask and the signals are only taken by the wait loop below.
    let signals = sys::Signals::block(&[SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2])
        .map_err(|e| format!("slowfs: blocking signals: {e}"))?;
    let dev = sys::open_fuse_device().map_err(|e| format!("slowfs: /dev/fuse: {e}"))?;
    let (uid, gid) = sys::euid_egid();
    let data =
        format!("fd={},rootmode=40000,user_id={uid},group_id={gid},allow_other", dev.as_raw_fd());
    sys::mount("slowfs", mp, "fuse.slowfs", sys::MS_RDONLY | sys::MS_NOSUID | sys::MS_NODEV, &data)
        .map_err(|e| format!("slowfs: mount(2) of {} failed: {e}", mp.display()))?;
    let source = cfg.source.clone();
    let (latency, jitter, cache) = (cfg.latency, cfg.jitter, cfg.cache);
    let cap = match cfg.per_client {
        0 => String::new(),
        k => format!(", at most {k} in service per client"),
    };
    let (server, threads) = Server::start(File::from(dev), cfg);
    if !server.wait_initialized(Duration::from_secs(10)) {
        let _ = sys::umount(mp, true);
        return Err("slowfs: the kernel did not initialise the connection".into());
    }
    write_stats(&server, stats_file, false);
    eprintln!(
        "slowfs: {} mirrors {} (latency {latency:?} ± {jitter:?}, cache {cache:?}{cap}; FUSE {})",
        mp.display(),
        source.display(),
        server.protocol()
    );
    announce_ready(daemon);
    serve_signals(&server, &signals, mp, stats_file);
    for t in threads {
        let _ = t.join();
    }
    // The workers stop when the kernel ends the connection, which normally
    // means the mount is gone; if they stopped for another reason (a read
    // error), do not leave a dead mount behind.
    if slowfs_mounted_at(mp) {
        eprintln!("slowfs: the connection failed; detaching {}", mp.display());
        let _ = sys::umount(mp, true);
    }
    let server = Arc::into_inner(server).expect("threads joined");
    let (nodes, files, dirs) = server.table_sizes();
    eprint!("{}", summary(&server, mp));
    if files + dirs > 0 {
        eprintln!("  (at unmount: {nodes} node ids, {files} open files, {dirs} open dirs)");
    }
    write_stats(&server, stats_file, true);
    Ok(())
}

/// Says the mount is ready: on standard output, or to the parent of a
/// daemon, whose standard streams then go to its log (or nowhere).
fn announce_ready(daemon: Option<&mut Daemon>) {
    match daemon {
        None => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "ready");
            let _ = out.flush();
        }
        Some(d) => {
            if let Some(mut tx) = d.ready.take() {
                let _ = tx.write_all(b"ready\n");
            }
            let target = match &d.log {
                Some(p) => fs::OpenOptions::new().create(true).append(true).open(p),
                None => fs::OpenOptions::new().read(true).write(true).open("/dev/null"),
            };
            if let Ok(f) = target {
                let _ = sys::redirect_stdio(&f);
            }
        }
    }
}

/// Takes the signals until the server stops: SIGUSR1 writes the counters,
/// SIGUSR2 resets them, an ending signal unmounts, a second one stops
/// serving at once.
fn serve_signals(server: &Server, signals: &sys::Signals, mp: &Path, stats_file: Option<&Path>) {
    use libc::{SIGUSR1, SIGUSR2};
    let mut unmount_requested: Option<Instant> = None;
    while !server.stopped() {
        let Some(sig) = signals.wait(Duration::from_millis(100)) else { continue };
        match sig {
            SIGUSR1 => write_stats(server, stats_file, false),
            SIGUSR2 => {
                server.stats.reset();
                if let Some(c) = &server.clients {
                    c.reset();
                }
                write_stats(server, stats_file, false);
            }
            _ if unmount_requested.is_none() => {
                unmount_requested = Some(Instant::now());
                if let Err(e) = unmount(mp) {
                    eprintln!("{e}");
                }
            }
            _ => {
                // A second Ctrl-C: stop serving now. Exiting closes
                // /dev/fuse, which aborts the connection; a lazily detached
                // mount then fails its users' requests with ENOTCONN.
                eprint!("{}", summary(server, mp));
                write_stats(server, stats_file, true);
                eprintln!("slowfs: stopped before the mount was released");
                std::process::exit(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args_of as args;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1ms", 1e6), Ok(Duration::from_millis(1)));
        assert_eq!(parse_duration("0.2ms", 1e6), Ok(Duration::from_micros(200)));
        assert_eq!(parse_duration("250us", 1e6), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("2", 1e6), Ok(Duration::from_millis(2)));
        assert_eq!(parse_duration("1.5", 1e9), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("0", 1e6), Ok(Duration::ZERO));
        assert!(parse_duration("1m", 1e6).is_err());
        assert!(parse_duration("-1ms", 1e6).is_err());
        assert!(parse_duration("", 1e6).is_err());
    }

    #[test]
    fn command_line() {
        let o = parse_args(&args("/mnt --source /src --latency=2ms --jitter 0.2ms --cache 1"))
            .unwrap()
            .unwrap();
        assert_eq!(o.mountpoint, Path::new("/mnt"));
        assert_eq!(o.source.as_deref(), Some(Path::new("/src")));
        assert_eq!(o.latency, Duration::from_millis(2));
        assert_eq!(o.jitter, Duration::from_micros(200));
        assert_eq!(o.cache, Duration::from_secs(1));
        assert!(!o.daemon && !o.umount);
        assert_eq!(o.per_client, 0);
        let o = parse_args(&args("/mnt --source /s --per-client 8")).unwrap().unwrap();
        assert_eq!(o.per_client, 8);
        assert!(parse_args(&args("/mnt --per-client 0")).is_err());
        let o = parse_args(&args("--umount /mnt")).unwrap().unwrap();
        assert!(o.umount);
        assert!(parse_args(&args("--help")).unwrap().is_none());
        assert!(parse_args(&args("/a /b")).is_err());
        assert!(parse_args(&args("/a --bogus")).is_err());
        assert!(parse_args(&args("/a --latency")).is_err());
        assert!(parse_args(&args("--source /s")).is_err());
    }

    #[test]
    fn mountinfo_escapes() {
        assert_eq!(unescape_mountinfo(br"/tmp/a\040b\012c\134d"), b"/tmp/a b\nc\\d");
        assert_eq!(unescape_mountinfo(br"/x\04"), br"/x\04");
    }
}
