//! The walk visitor: evaluates the expression on each entry, asking the
//! walker for a stat only when the expression can need one (decided per
//! entry from its name and d_type by partial evaluation), and buffering
//! output per thread in whole records.

use std::ffi::CString;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use cli::timefmt::Timestamp;
use cli::Out;
use ringio::{dtype, Errno, Statx};
use walk::{Entry, StatNeed, Visit, Visitor, WalkError};

use crate::exec::{self, Cwd, Outcome};
use crate::expr::{tmask, Cmp, Expr, Prim, TimeKind};
use crate::parse::{quoted, Follow, OutTarget, Plan};
use crate::printf::{self, Info};
use cli::users::Users;

/// Flush a thread's buffer to its output at this size: whole records, few
/// writes, and `| head` still stops the walk early.
const FLUSH_AT: usize = 32 * 1024;

pub struct Finder<'p> {
    pub plan: &'p Plan,
    outs: Vec<Mutex<Out>>,
    /// Each output is a terminal: names printed there have their
    /// non-printable bytes shown as `?`, as GNU find does.
    ttys: Vec<bool>,
    failed: AtomicBool,
    quit: AtomicBool,
    cur_root: AtomicUsize,
    root_dev: AtomicU64,
    mounts: OnceLock<Vec<(u64, Vec<u8>)>>,
    /// Some primary can need a stat (then partial evaluation decides per entry).
    stat_some: bool,
    /// The expression only prints every entry (`find DIR`, `find DIR
    /// -print`, `-print0`, `-fprint F`): its output and terminator.
    print_only: Option<(usize, u8)>,
}

pub struct Local {
    bufs: Vec<Vec<u8>>,
    names: Users,
    ls_widths: [usize; 6],
}

/// What partial evaluation (from the name and d_type alone) foresees of
/// an expression on one entry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Prediction {
    /// Known to be true.
    True,
    /// Known to be false.
    False,
    /// Only evaluating tells (side effects, path tests), but that needs no
    /// stat.
    Unknown,
    /// Evaluating may need a stat: ask the walker for one.
    NeedsStat,
}

impl<'p> Finder<'p> {
    pub fn new(plan: &'p Plan) -> Finder<'p> {
        let ttys = plan.outs.iter().map(|o| libcw::isatty(o.fd())).collect();
        let outs = plan.outs.iter().map(|o| Mutex::new(Out::new(o.fd(), 0))).collect();
        let mut stat_some = false;
        plan.expr.each(&mut |p| match p {
            Prim::Size { .. }
            | Prim::Newer { .. }
            | Prim::Age { .. }
            | Prim::Used { .. }
            | Prim::Perm { .. }
            | Prim::Uid(..)
            | Prim::Gid(..)
            | Prim::NoUser
            | Prim::NoGroup
            | Prim::Links(..)
            | Prim::Inum(..)
            | Prim::SameFile(_)
            | Prim::FsType(_)
            | Prim::Ls { .. }
            | Prim::Json { .. }
            | Prim::Empty => stat_some = true,
            Prim::Printf { fmt, .. } if fmt.needs_stat() => stat_some = true,
            _ => {}
        });
        Finder {
            plan,
            outs,
            ttys,
            failed: AtomicBool::new(false),
            quit: AtomicBool::new(false),
            cur_root: AtomicUsize::new(usize::MAX),
            root_dev: AtomicU64::new(0),
            mounts: OnceLock::new(),
            stat_some,
            print_only: print_only(&plan.expr),
        }
    }

    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// -quit was reached, or a signal asks to stop: no more starting points.
    pub fn quitting(&self) -> bool {
        self.quit.load(Ordering::Relaxed) || libcw::signal::interrupted()
    }

    pub fn fail(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    /// Flushes every output and reports write errors; false if any.
    pub fn finish_outputs(&self) -> bool {
        let mut ok = true;
        for (i, o) in self.outs.iter().enumerate() {
            let mut o = ringio::sync::lock(o);
            o.flush();
            if let Some(e) = o.error() {
                let name = match &self.plan.outs[i] {
                    OutTarget::File { name, .. } => name.clone(),
                    OutTarget::Stdout => b"standard output".to_vec(),
                    OutTarget::Stderr => b"/dev/stderr".to_vec(),
                };
                cli::msg::error(&format!("{}: {}", quoted(&name), e.message()));
                if i == 0 {
                    // GNU's close_stdout adds this line, with the errno only
                    // when closing failed too: stdout was closed from the
                    // start (`>&-`).
                    cli::msg::write_error(libcw::stdfds::was_closed(1).then_some(e));
                }
                ok = false;
            }
        }
        ok
    }

    /// Writes out this thread's records and everything handed over before
    /// them (by other threads too): before a message or a command, so that
    /// what was printed before it, in the walk's order, comes first.
    fn flush_local(&self, local: &mut Local) {
        self.hand_over(local, usize::MAX);
        for o in &self.outs {
            let mut o = ringio::sync::lock(o);
            if !o.buf().is_empty() {
                o.flush();
            }
        }
    }

    /// `-print` (`term` b'\n') and `-print0` (b'\0') of `path` to output
    /// `out`, through this thread's buffer.
    #[inline]
    fn print_path(&self, local: &mut Local, path: &[u8], out: usize, term: u8) {
        let b = &mut local.bufs[out];
        // -print0 is for programs: raw even to a terminal (as GNU's).
        if term == b'\n' && self.ttys[out] {
            cli::quote::qmark_into(b, path);
        } else {
            b.extend_from_slice(path);
        }
        b.push(term);
        if b.len() >= FLUSH_AT {
            self.flush_block(out, b);
        }
    }

    /// Writes this thread's block `b` of finished records for output `out`
    /// (after what the shared buffer holds), and empties it.
    fn flush_block(&self, out: usize, b: &mut Vec<u8>) {
        ringio::sync::lock(&self.outs[out]).flush_with(b);
        b.clear();
    }

    /// Moves this thread's buffered records into the shared outputs, in
    /// order, writing only what has grown past [`FLUSH_AT`] there.
    fn publish_local(&self, local: &mut Local) {
        self.hand_over(local, FLUSH_AT);
    }

    /// Appends this thread's buffers to the shared outputs and writes each
    /// output holding at least `write_at` bytes (0: every one).
    fn hand_over(&self, local: &mut Local, write_at: usize) {
        for (i, b) in local.bufs.iter_mut().enumerate() {
            if !b.is_empty() {
                let mut o = ringio::sync::lock(&self.outs[i]);
                if o.buf().len() + b.len() >= write_at {
                    o.flush_with(b);
                } else {
                    o.buf().extend_from_slice(b);
                }
                b.clear();
            }
        }
    }

    fn report(&self, path: &[u8], e: Errno) {
        if e == Errno::ENOENT && self.plan.ignore_race {
            return;
        }
        cli::msg::error(&format!("{}: {}", quoted(path), e.message()));
        self.fail();
    }

    fn mounts(&self) -> &[(u64, Vec<u8>)] {
        self.mounts.get_or_init(read_mounts)
    }

    /// `a -and b` (`decisive` False) or `a -or b` (`decisive` True): `a`
    /// alone decides when it is `decisive`; else `b` counts, and a stat
    /// that either may need is asked for.
    fn predict_junction(
        &self,
        a: &Expr,
        b: &Expr,
        decisive: Prediction,
        name: &[u8],
        d_type: u8,
    ) -> Prediction {
        match self.predict(a, name, d_type) {
            Prediction::NeedsStat => Prediction::NeedsStat,
            x if x == decisive => decisive,
            Prediction::Unknown => match self.predict(b, name, d_type) {
                Prediction::NeedsStat => Prediction::NeedsStat,
                y if y == decisive => decisive,
                _ => Prediction::Unknown,
            },
            _ => self.predict(b, name, d_type),
        }
    }

    /// Partial evaluation of `e` on an entry known by its name and d_type.
    fn predict(&self, e: &Expr, name: &[u8], d_type: u8) -> Prediction {
        match e {
            Expr::And(a, b) => self.predict_junction(a, b, Prediction::False, name, d_type),
            Expr::Or(a, b) => self.predict_junction(a, b, Prediction::True, name, d_type),
            Expr::Not(a) => match self.predict(a, name, d_type) {
                Prediction::True => Prediction::False,
                Prediction::False => Prediction::True,
                x => x,
            },
            Expr::Comma(a, b) => match self.predict(a, name, d_type) {
                Prediction::NeedsStat => Prediction::NeedsStat,
                _ => self.predict(b, name, d_type),
            },
            Expr::Prim(p) => self.predict_prim(p, name, d_type),
        }
    }

    fn predict_prim(&self, p: &Prim, name: &[u8], d_type: u8) -> Prediction {
        let follow_all = self.plan.follow == Follow::Always;
        let known = |b: bool| if b { Prediction::True } else { Prediction::False };
        match p {
            Prim::True | Prim::Print { .. } | Prim::Prune | Prim::Quit => Prediction::True,
            Prim::False => Prediction::False,
            Prim::Name(g) => known(g.matches(name)),
            Prim::Path(_) | Prim::Regex(_) | Prim::Access(_) | Prim::Exec(_) | Prim::Context(_) => {
                Prediction::Unknown
            }
            Prim::Lname(_) => {
                if d_type != dtype::UNKNOWN && d_type != dtype::LNK && !follow_all {
                    Prediction::False
                } else {
                    Prediction::Unknown
                }
            }
            Prim::Type(m) => {
                if d_type == dtype::UNKNOWN || (follow_all && d_type == dtype::LNK) {
                    Prediction::NeedsStat
                } else {
                    known(m & type_bit(d_type) != 0)
                }
            }
            Prim::XType(m) => {
                if d_type == dtype::UNKNOWN {
                    Prediction::NeedsStat
                } else if d_type == dtype::LNK {
                    Prediction::Unknown
                } else {
                    known(m & type_bit(d_type) != 0)
                }
            }
            Prim::Printf { fmt, .. } => {
                if fmt.needs_stat() {
                    Prediction::NeedsStat
                } else {
                    Prediction::True
                }
            }
            Prim::Delete => {
                if d_type == dtype::UNKNOWN {
                    Prediction::NeedsStat
                } else {
                    Prediction::Unknown
                }
            }
            _ => Prediction::NeedsStat,
        }
    }

    /// Evaluates an entry that can't be followed as the symlink it is
    /// (its lstat), never descending.
    fn visit_as_link(&self, local: &mut Local, e: &Entry) -> Visit {
        let mut st = ringio::sys::statx_zeroed();
        let name = cstr(e.rel_name);
        let flags = libc::AT_SYMLINK_NOFOLLOW | libc::AT_NO_AUTOMOUNT;
        let mask = libc::STATX_BASIC_STATS | libc::STATX_BTIME;
        if ringio::sys::statx(e.dirfd, &name, flags, mask, &mut st).is_err() {
            return Visit::Skip;
        }
        if e.depth < self.plan.mindepth {
            return Visit::Skip;
        }
        let link = Entry {
            path: e.path,
            name: e.name,
            depth: e.depth,
            d_type: dtype::from_mode(st.stx_mode as u32),
            ino: e.ino,
            stat: Some(&st),
            stat_error: None,
            followed: false,
            dirfd: e.dirfd,
            rel_name: e.rel_name,
            index: e.index,
        };
        if self.eval_entry(local, &link).quit {
            self.quit.store(true, Ordering::Relaxed);
            return Visit::Quit;
        }
        Visit::Skip
    }

    /// Evaluates the expression on one entry.
    fn eval_entry(&self, local: &mut Local, entry: &Entry) -> Verdict {
        // The common `find DIR` needn't walk `-true -print` for each entry
        // (two thirds of a warm lfind's instructions in user space were
        // that walk: callgrind, 217 an entry, of which the print is ~10),
        // nor set up an evaluation.
        if let Some((out, term)) = self.print_only {
            self.print_path(local, entry.path, out, term);
            return Verdict { prune: false, quit: false, stat_failed: false };
        }
        let mut ev = EntryEval {
            finder: self,
            entry,
            local,
            st: None,
            st_err: false,
            prune: false,
            quit: false,
            stopped: false,
        };
        ev.eval(&self.plan.expr);
        Verdict { prune: ev.prune, quit: ev.quit, stat_failed: ev.st_err }
    }
}

/// The output and terminator of an expression that only prints: `-print`
/// (or `-print0`, `-fprint`, `-fprint0`) alone, or after `-true` (the
/// implicit action of an expression without one, or `find DIR`).
fn print_only(expr: &Expr) -> Option<(usize, u8)> {
    let print = |e: &Expr| match e {
        Expr::Prim(Prim::Print { out, term }) => Some((*out, *term)),
        _ => None,
    };
    match expr {
        Expr::And(a, b) if matches!(**a, Expr::Prim(Prim::True)) => print(b),
        e => print(e),
    }
}

fn type_bit(d: u8) -> u16 {
    match d {
        dtype::BLK => tmask::BLK,
        dtype::CHR => tmask::CHR,
        dtype::DIR => tmask::DIR,
        dtype::FIFO => tmask::FIFO,
        dtype::REG => tmask::REG,
        dtype::LNK => tmask::LNK,
        dtype::SOCK => tmask::SOCK,
        _ => 0,
    }
}

fn type_letter(d: u8) -> u8 {
    match d {
        dtype::BLK => b'b',
        dtype::CHR => b'c',
        dtype::DIR => b'd',
        dtype::FIFO => b'p',
        dtype::REG => b'f',
        dtype::LNK => b'l',
        dtype::SOCK => b's',
        _ => b'U',
    }
}

fn dev_of(st: &Statx) -> u64 {
    ringio::sys::DevIno::of(st).dev
}

/// (dev, fstype) of every mount, from /proc/self/mountinfo.
fn read_mounts() -> Vec<(u64, Vec<u8>)> {
    let Ok(text) = std::fs::read("/proc/self/mountinfo") else { return Vec::new() };
    let mut v = Vec::new();
    for line in text.split(|&c| c == b'\n') {
        let fields: Vec<&[u8]> = line.split(|&c| c == b' ').collect();
        if fields.len() < 7 {
            continue;
        }
        let Some(sep) = fields.iter().position(|f| *f == b"-") else { continue };
        let Some(fstype) = fields.get(sep + 1) else { continue };
        let mm = fields[2];
        let Some(colon) = mm.iter().position(|&c| c == b':') else { continue };
        let num = |b: &[u8]| std::str::from_utf8(b).ok().and_then(|s| s.parse::<u32>().ok());
        if let (Some(ma), Some(mi)) = (num(&mm[..colon]), num(&mm[colon + 1..])) {
            v.push((libc::makedev(ma, mi), fstype.to_vec()));
        }
    }
    v
}

fn cstr(b: &[u8]) -> CString {
    CString::new(b.to_vec()).unwrap_or_default()
}

/// What evaluating the expression on one entry decided for the walk.
struct Verdict {
    /// -prune was reached: don't descend (unless -depth).
    prune: bool,
    /// -quit was reached: stop the walk.
    quit: bool,
    /// The entry's stat failed (and was reported): don't descend either.
    stat_failed: bool,
}

/// One entry's evaluation state.
struct EntryEval<'a, 'e> {
    finder: &'a Finder<'a>,
    entry: &'a Entry<'e>,
    local: &'a mut Local,
    /// The stat, once fetched (`e.stat` or a lazy one).
    st: Option<Statx>,
    /// Fetching failed (reported once).
    st_err: bool,
    prune: bool,
    quit: bool,
    /// `\c` in a -printf or -quit: stop evaluating.
    stopped: bool,
}

impl EntryEval<'_, '_> {
    /// Reports an error about the current file, after writing out what
    /// this thread printed so far: GNU's error() flushes stdout first, so
    /// on a pipe shared with stderr each message lands where it happened.
    fn report(&mut self, path: &[u8], e: Errno) {
        self.finder.flush_local(self.local);
        self.finder.report(path, e);
    }

    /// A message of our own, flushed like [`EntryEval::report`]'s.
    fn message(&mut self, m: &str) {
        self.finder.flush_local(self.local);
        cli::msg::error(m);
    }

    fn follow(&self) -> bool {
        match self.finder.plan.follow {
            Follow::Always => true,
            Follow::Roots => self.entry.depth == 0,
            Follow::Never => false,
        }
    }

    fn stat(&mut self) -> Option<Statx> {
        if let Some(s) = self.st {
            return Some(s);
        }
        if self.st_err {
            return None;
        }
        if let Some(s) = self.entry.stat {
            self.st = Some(*s);
            return self.st;
        }
        let r = match self.entry.stat_error {
            Some(err) => Err(err),
            None => self.lazy_stat(self.follow()),
        };
        match r {
            Ok(s) => {
                self.st = Some(s);
                Some(s)
            }
            Err(err) => {
                self.st_err = true;
                self.report(self.entry.path, err);
                None
            }
        }
    }

    fn lazy_stat(&self, follow: bool) -> Result<Statx, Errno> {
        let name = cstr(self.entry.rel_name);
        let mut st = ringio::sys::statx_zeroed();
        let mask = libc::STATX_BASIC_STATS | libc::STATX_BTIME;
        let nofollow = libc::AT_SYMLINK_NOFOLLOW | libc::AT_NO_AUTOMOUNT;
        if follow {
            match ringio::sys::statx(self.entry.dirfd, &name, libc::AT_NO_AUTOMOUNT, mask, &mut st)
            {
                Ok(()) => return Ok(st),
                // GNU's fallback to lstat covers both "no target" and "a
                // target path through a non-directory" (`l -> file/x`).
                Err(e) if e == Errno::ENOENT || e == Errno::ENOTDIR => {}
                Err(e) => return Err(e),
            }
        }
        ringio::sys::statx(self.entry.dirfd, &name, nofollow, mask, &mut st).map(|_| st)
    }

    /// The birth time, when the file system records one (the walker's
    /// stat doesn't ask for it, so this is a stat of its own).
    fn birth(&mut self) -> Option<Timestamp> {
        let st = match self.st {
            Some(s) if s.stx_mask & libc::STATX_BTIME != 0 => s,
            _ => self.lazy_stat(self.follow()).ok()?,
        };
        if st.stx_mask & libc::STATX_BTIME == 0 {
            return None;
        }
        Some(Timestamp::of(&st.stx_btime))
    }

    /// The entry's type as d_type (stat'ing when getdents didn't say).
    fn d_type(&mut self) -> u8 {
        let mut d = self.entry.d_type;
        if d == dtype::UNKNOWN || (d == dtype::LNK && self.follow() && self.entry.stat.is_none()) {
            if let Some(st) = self.stat() {
                d = dtype::from_mode(st.stx_mode as u32);
            }
        }
        d
    }

    fn time(&mut self, k: TimeKind) -> Option<Timestamp> {
        let st = self.stat()?;
        let t = match k {
            TimeKind::Access => st.stx_atime,
            TimeKind::Birth => return self.birth(),
            TimeKind::Change => st.stx_ctime,
            TimeKind::Modify => st.stx_mtime,
        };
        Some(Timestamp::of(&t))
    }

    fn base(&self) -> &[u8] {
        if self.entry.depth == 0 {
            // The root's name: its last component, trailing slashes dropped.
            let p = self.entry.path;
            let end = p.iter().rposition(|&c| c != b'/').map_or(0, |x| x + 1);
            if end == 0 {
                return if p.is_empty() { p } else { &p[..1] };
            }
            let start = p[..end].iter().rposition(|&c| c == b'/').map_or(0, |x| x + 1);
            &p[start..end]
        } else {
            self.entry.name
        }
    }

    fn emit(&mut self, out: usize, data: &[u8]) {
        let b = &mut self.local.bufs[out];
        b.extend_from_slice(data);
        if b.len() >= FLUSH_AT {
            self.flush_one(out);
        }
    }

    fn flush_one(&mut self, out: usize) {
        self.finder.flush_block(out, &mut self.local.bufs[out]);
    }

    fn eval(&mut self, e: &Expr) -> bool {
        if self.stopped {
            return false;
        }
        match e {
            Expr::And(a, b) => self.eval(a) && self.eval(b),
            Expr::Or(a, b) => self.eval(a) || self.eval(b),
            Expr::Not(a) => !self.eval(a),
            Expr::Comma(a, b) => {
                self.eval(a);
                self.eval(b)
            }
            Expr::Prim(p) => self.prim(p),
        }
    }

    fn prim(&mut self, p: &Prim) -> bool {
        match p {
            Prim::True => true,
            Prim::False => false,
            Prim::Name(g) => {
                let b = self.base();
                g.matches(b)
            }
            Prim::Path(g) => g.matches(self.entry.path),
            Prim::Regex(r) => r.matches(self.entry.path),
            Prim::Lname(g) => {
                if self.d_type() != dtype::LNK {
                    return false;
                }
                self.link_target().is_some_and(|t| g.matches(&t))
            }
            Prim::Context(g) => self.context().is_some_and(|c| g.matches(&c)),
            Prim::Type(m) => {
                let d = self.d_type();
                m & type_bit(d) != 0
            }
            Prim::XType(m) => {
                let d = self.xtype();
                m & type_bit(d) != 0
            }
            Prim::Size { cmp, n, unit } => {
                let Some(st) = self.stat() else { return false };
                let units = st.stx_size.div_ceil(*unit);
                cmp.test(units, *n)
            }
            Prim::Empty => self.empty(),
            Prim::Newer { kind, t } => self.time(*kind).is_some_and(|ft| ft > *t),
            Prim::Age { kind, cmp, n, unit, origin } => {
                let Some(ft) = self.time(*kind) else { return false };
                age_test(ft, *origin, *cmp, *n, *unit)
            }
            Prim::Used { cmp, n } => {
                let Some(st) = self.stat() else { return false };
                used_test(Timestamp::of(&st.stx_atime), Timestamp::of(&st.stx_ctime), *cmp, *n)
            }
            Prim::Perm { kind, mode } => self.stat().is_some_and(|s| {
                let dir = s.stx_mode as u32 & libc::S_IFMT == libc::S_IFDIR;
                crate::perm::test(*kind, mode[dir as usize], s.stx_mode as u32)
            }),
            Prim::Uid(c, n) => self.stat().is_some_and(|s| c.test(s.stx_uid as u64, *n)),
            Prim::Gid(c, n) => self.stat().is_some_and(|s| c.test(s.stx_gid as u64, *n)),
            Prim::NoUser => {
                let Some(s) = self.stat() else { return false };
                self.local.names.user(s.stx_uid).is_none()
            }
            Prim::NoGroup => {
                let Some(s) = self.stat() else { return false };
                self.local.names.group(s.stx_gid).is_none()
            }
            Prim::Links(c, n) => self.stat().is_some_and(|s| c.test(s.stx_nlink as u64, *n)),
            Prim::Inum(c, n) => self.stat().is_some_and(|s| c.test(s.stx_ino, *n)),
            Prim::SameFile(id) => self.stat().is_some_and(|s| ringio::sys::DevIno::of(&s) == *id),
            Prim::Access(mode) => {
                let name = cstr(self.entry.rel_name);
                libcw::access::access(self.entry.dirfd, &name, *mode).is_ok()
            }
            Prim::FsType(t) => {
                let Some(s) = self.stat() else { return false };
                self.fstype(dev_of(&s)) == *t
            }
            Prim::Print { out, term } => self.print(*out, *term),
            Prim::Printf { out, fmt } => self.printf(*out, fmt),
            Prim::Ls { out } => self.ls(*out),
            Prim::Json { out } => self.json(*out),
            Prim::Prune => {
                self.prune = true;
                true
            }
            Prim::Quit => {
                self.quit = true;
                self.stopped = true;
                true
            }
            Prim::Delete => self.delete(),
            Prim::Exec(i) => self.exec(*i),
        }
    }

    /// -empty: an empty directory or regular file.
    fn empty(&mut self) -> bool {
        let d = self.d_type();
        if d == dtype::DIR {
            self.dir_is_empty()
        } else if d == dtype::REG {
            self.stat().is_some_and(|s| s.stx_size == 0)
        } else {
            false
        }
    }

    /// -print, -print0, -fprint, -fprint0: the name and `term`.
    fn print(&mut self, out: usize, term: u8) -> bool {
        self.finder.print_path(self.local, self.entry.path, out, term);
        true
    }

    fn printf(&mut self, out: usize, fmt: &printf::Format) -> bool {
        let mut buf = Vec::new();
        let tty = self.finder.ttys[out];
        let go_on = fmt.render(&mut buf, self, tty);
        self.emit(out, &buf);
        // \c (go_on false) drops the rest of this format only;
        // evaluation goes on, as GNU's does. GNU also flushes there;
        // here records stay whole so parallel threads can't split them.
        let _ = go_on;
        true
    }

    /// -ls and -fls: one `ls -dils` line.
    fn ls(&mut self, out: usize) -> bool {
        let mut buf = Vec::new();
        if self.ls_line(&mut buf) {
            self.emit(out, &buf);
        }
        true
    }

    /// -json and -fjson: the file as one JSON object and a newline (the
    /// file schema of `cli::json`, as lsr's `--json` writes it), with its
    /// depth; true, as -ls is, even when the stat failed (reported, no
    /// object).
    fn json(&mut self, out: usize) -> bool {
        let Some(st) = self.stat() else { return true };
        let mode = st.stx_mode as u32;
        let target = if mode & libc::S_IFMT == libc::S_IFLNK { self.link_target() } else { None };
        let btime = self.birth();
        let mut buf = Vec::with_capacity(640);
        let mut o = cli::json::Obj::new(&mut buf);
        o.bytes("path", self.entry.path)
            .bytes("name", printf::base_name(self.entry.path))
            .num("depth", self.entry.depth)
            .text("type", cli::json::type_word(mode));
        let mut facts = cli::json::Stat::of(&st);
        // The walk's stats leave the birth time out; asked as %B asks it.
        facts.btime = btime;
        cli::json::stat_fields(&mut o, &facts, &mut self.local.names);
        if let Some(t) = &target {
            o.bytes("target", t);
        }
        o.close();
        buf.push(b'\n');
        self.emit(out, &buf);
        true
    }

    fn xtype(&mut self) -> u8 {
        let follow = self.follow();
        if follow {
            // -L: the type of the link itself.
            if self.entry.d_type != dtype::LNK
                && self.entry.stat.is_none()
                && self.entry.d_type != 0
            {
                // Not followed (d_type from getdents): lstat type is d_type.
                return self.entry.d_type;
            }
            match self.lazy_stat(false) {
                Ok(s) => dtype::from_mode(s.stx_mode as u32),
                Err(e) => {
                    self.report(self.entry.path, e);
                    dtype::UNKNOWN
                }
            }
        } else {
            let d = self.d_type();
            if d != dtype::LNK {
                return d;
            }
            match self.lazy_stat(true) {
                Ok(s) => dtype::from_mode(s.stx_mode as u32),
                Err(e) => {
                    self.report(self.entry.path, e);
                    dtype::UNKNOWN
                }
            }
        }
    }

    /// `security.selinux` of the file (followed as find follows), without
    /// its NUL; on failure GNU's "getfilecon failed" message and status 1.
    fn context(&mut self) -> Option<Vec<u8>> {
        let name = cstr(self.entry.rel_name);
        let mut buf = Vec::with_capacity(256);
        let r = ringio::sys::getxattrat(
            self.entry.dirfd,
            &name,
            c"security.selinux",
            self.follow(),
            &mut buf,
        );
        match r {
            Ok(_) => {
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                Some(buf)
            }
            Err(e) => {
                let what = cli::locale::trf(
                    c"getfilecon failed: %s",
                    &[quoted(self.entry.path).as_bytes()],
                );
                self.message(&format!("{}: {}", String::from_utf8_lossy(&what), e.message()));
                self.finder.fail();
                None
            }
        }
    }

    fn link_target(&mut self) -> Option<Vec<u8>> {
        let name = cstr(self.entry.rel_name);
        let mut buf = Vec::new();
        match ringio::sys::readlinkat(self.entry.dirfd, &name, &mut buf) {
            Ok(_) => Some(buf),
            Err(_) => None,
        }
    }

    fn fstype(&self, dev: u64) -> Vec<u8> {
        self.finder
            .mounts()
            .iter()
            .rev()
            .find(|(d, _)| *d == dev)
            .map_or_else(|| b"unknown".to_vec(), |(_, t)| t.clone())
    }

    fn dir_is_empty(&mut self) -> bool {
        let name = cstr(self.entry.rel_name);
        let mut flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NONBLOCK;
        if !self.entry.followed && !self.follow() {
            flags |= libc::O_NOFOLLOW;
        }
        let dir = match ringio::sys::openat_owned(self.entry.dirfd, &name, flags, 0) {
            Ok(fd) => fd,
            Err(e) => {
                self.report(self.entry.path, e);
                return false;
            }
        };
        let mut buf = Vec::with_capacity(4096);
        let mut empty = true;
        loop {
            buf.clear();
            match ringio::sys::getdents64(dir.as_raw_fd(), &mut buf) {
                Ok(0) => break,
                Ok(_) => {
                    if ringio::DirentIter::new(&buf).any(|d| !d.is_dot_or_dotdot()) {
                        empty = false;
                        break;
                    }
                }
                Err(e) => {
                    self.report(self.entry.path, e);
                    empty = false;
                    break;
                }
            }
        }
        empty
    }

    fn ls_line(&mut self, out: &mut Vec<u8>) -> bool {
        let Some(st) = self.stat() else { return false };
        let field = |out: &mut Vec<u8>, k: usize, s: &[u8], left: bool, w: &mut [usize; 6]| {
            if s.len() > w[k] {
                w[k] = s.len();
            }
            let pad = w[k] - s.len();
            if !left {
                out.resize(out.len() + pad, b' ');
            }
            out.extend_from_slice(s);
            if left {
                out.resize(out.len() + pad, b' ');
            }
        };
        let mut w = self.local.ls_widths;
        field(out, 0, st.stx_ino.to_string().as_bytes(), false, &mut w);
        out.push(b' ');
        field(out, 1, st.stx_blocks.div_ceil(2).to_string().as_bytes(), false, &mut w);
        out.push(b' ');
        cli::mode::mode_string(out, st.stx_mode as u32);
        out.push(b' ');
        field(out, 2, st.stx_nlink.to_string().as_bytes(), false, &mut w);
        out.push(b' ');
        // Names pad to a width that grows with the longest seen; an id
        // with no name pads to 8 and widens later names' column past
        // itself, as GNU's -ls does.
        let user = self.local.names.user(st.stx_uid).map(<[u8]>::to_vec);
        id_field(out, 3, user, st.stx_uid, &mut w);
        out.push(b' ');
        let group = self.local.names.group(st.stx_gid).map(<[u8]>::to_vec);
        id_field(out, 4, group, st.stx_gid, &mut w);
        out.push(b' ');
        let ft = st.stx_mode as u32 & libc::S_IFMT;
        let size = if ft == libc::S_IFCHR || ft == libc::S_IFBLK {
            format!("{:>3}, {:>3}", st.stx_rdev_major, st.stx_rdev_minor)
        } else {
            st.stx_size.to_string()
        };
        field(out, 5, size.as_bytes(), false, &mut w);
        self.local.ls_widths = w;
        out.push(b' ');
        crate::timefmt::ls_date(out, Timestamp::of(&st.stx_mtime), self.finder.plan.now);
        out.push(b' ');
        ls_name(out, self.entry.path);
        if ft == libc::S_IFLNK {
            if let Some(t) = self.link_target() {
                out.extend_from_slice(b" -> ");
                ls_name(out, &t);
            }
        }
        out.push(b'\n');
        true
    }

    fn delete(&mut self) -> bool {
        let path = self.entry.path;
        if self.entry.depth == 0 && (path == b"." || path == b"./") {
            return true;
        }
        let is_dir = self.d_type() == dtype::DIR;
        let name = cstr(self.entry.rel_name);
        match libcw::unlinkat(self.entry.dirfd, &name, is_dir) {
            Ok(()) => true,
            Err(e) => {
                if e == Errno::ENOENT && self.finder.plan.ignore_race {
                    return true;
                }
                let what = cli::locale::trf(c"cannot delete %s", &[quoted(path).as_bytes()]);
                self.message(&format!("{}: {}", String::from_utf8_lossy(&what), e.message()));
                self.finder.fail();
                false
            }
        }
    }

    /// For -execdir on this entry: (base fd, directory relative to it,
    /// the directory's path, the `./name` argument).
    fn execdir_parts(&self) -> (RawFd, CString, Vec<u8>, Vec<u8>) {
        let path = self.entry.path;
        if self.entry.depth > 0 {
            let dir = printf::dir_name(path).to_vec();
            let mut arg = b"./".to_vec();
            arg.extend_from_slice(self.entry.name);
            return (self.entry.dirfd, c".".to_owned(), dir, arg);
        }
        // A root: run in its parent directory.
        let end = path.iter().rposition(|&c| c != b'/').map_or(0, |x| x + 1);
        if end == 0 {
            return (libc::AT_FDCWD, c"/".to_owned(), b"/".to_vec(), b"/".to_vec());
        }
        let trimmed = &path[..end];
        let (dir, base) = match trimmed.iter().rposition(|&c| c == b'/') {
            None => (b".".to_vec(), trimmed.to_vec()),
            Some(0) => (b"/".to_vec(), trimmed[1..].to_vec()),
            Some(p) => (trimmed[..p].to_vec(), trimmed[p + 1..].to_vec()),
        };
        let mut arg = b"./".to_vec();
        arg.extend_from_slice(&base);
        (libc::AT_FDCWD, cstr(&dir), dir, arg)
    }

    fn exec(&mut self, i: usize) -> bool {
        let spec = &self.finder.plan.execs[i];
        let (fd, rel, dir, dir_arg) = if spec.dir {
            self.execdir_parts()
        } else {
            (libc::AT_FDCWD, c".".to_owned(), Vec::new(), Vec::new())
        };
        let arg: &[u8] = if spec.dir { &dir_arg } else { self.entry.path };
        if spec.plus {
            let f = self.finder;
            let local = &mut *self.local;
            let ok = spec.add(
                arg,
                spec.dir.then_some((fd, rel.as_c_str(), dir.as_slice())),
                &mut || f.flush_local(local),
            );
            if !ok {
                self.finder.fail();
            }
            return true;
        }
        // What was printed before comes out before the question, as GNU
        // flushes stdout before prompting.
        self.finder.flush_local(self.local);
        if spec.ok && !spec.confirm(self.entry.path) {
            return false;
        }
        let argv = spec.expand(arg);
        let cwd = if !spec.dir {
            Cwd::Here
        } else if self.entry.depth > 0 {
            Cwd::Fd(fd)
        } else {
            Cwd::Path(&dir)
        };
        matches!(exec::run(&argv, cwd, spec.ok), Outcome::Success)
    }
}

fn id_field(out: &mut Vec<u8>, k: usize, name: Option<Vec<u8>>, id: u32, w: &mut [usize; 6]) {
    let (s, width) = match name {
        Some(n) => {
            w[k] = w[k].max(n.len());
            (n, w[k])
        }
        None => {
            // A group number is padded as a name. An owner number is
            // printed in 8 columns, and GNU then widens the owner column
            // to all it wrote with the separator (uid 12345 makes it 9, a
            // ten-digit uid 11).
            let n = id.to_string().into_bytes();
            if k == 3 {
                w[k] = w[k].max(n.len().max(8) + 1);
                (n, 8)
            } else {
                w[k] = w[k].max(n.len());
                (n, w[k])
            }
        }
    };
    out.extend_from_slice(&s);
    out.resize(out.len() + width.saturating_sub(s.len()), b' ');
}

/// -mtime and friends: `n` whole `unit`s between the file time and `origin`.
/// `-used N`: x = (access - change) in days. As GNU find 4.9 measures
/// (a table of files with x from -1 to 3 days, to the microsecond): never
/// true when the access came before the change; `N` holds for
/// N-1 <= x < N (so an access at the change itself is day 1), `+N` for
/// x > N, `-N` for x < N.
fn used_test(at: Timestamp, ct: Timestamp, cmp: Cmp, n: f64) -> bool {
    let ns = at.nanos_since(ct);
    if ns < 0 {
        return false;
    }
    let x = ns as f64 / 86_400e9;
    match cmp {
        Cmp::Eq => n - 1.0 <= x && x < n,
        Cmp::Gt => x > n,
        Cmp::Lt => x < n,
    }
}

fn age_test(ft: Timestamp, origin: Timestamp, cmp: Cmp, n: f64, unit: i64) -> bool {
    let age = origin.seconds_since(ft);
    let lo = n * unit as f64;
    match cmp {
        Cmp::Gt => age >= lo + unit as f64,
        Cmp::Lt => age < lo,
        Cmp::Eq => age >= lo && age < lo + unit as f64,
    }
}

impl Info for EntryEval<'_, '_> {
    fn path(&self) -> &[u8] {
        self.entry.path
    }
    fn root(&self) -> &[u8] {
        let i = self.finder.cur_root.load(Ordering::Relaxed);
        self.finder.plan.roots.get(i).map_or(b"", |r| r.as_slice())
    }
    fn depth(&self) -> usize {
        self.entry.depth
    }
    fn type_letter(&mut self) -> u8 {
        let d = self.d_type();
        type_letter(d)
    }
    fn follow_type_letter(&mut self) -> u8 {
        let d = self.d_type();
        if d != dtype::LNK {
            return type_letter(d);
        }
        match self.lazy_stat(true) {
            Ok(s) => {
                let t = dtype::from_mode(s.stx_mode as u32);
                if t == dtype::LNK {
                    b'N'
                } else {
                    type_letter(t)
                }
            }
            Err(e) if e == Errno::ELOOP => b'L',
            Err(e) if e == Errno::ENOENT || e == Errno::ENOTDIR => b'N',
            Err(_) => b'?',
        }
    }
    fn stat(&mut self) -> Option<Statx> {
        EntryEval::stat(self)
    }
    fn birth(&mut self) -> Option<Timestamp> {
        EntryEval::birth(self)
    }
    /// The target, for a file that is a symlink as find sees it: under -L
    /// (or -H on a root) a followed link is its target, and GNU prints
    /// nothing for %l.
    fn link_target(&mut self) -> Option<Vec<u8>> {
        if self.d_type() != dtype::LNK {
            return None;
        }
        EntryEval::link_target(self)
    }
    fn context(&mut self) -> Option<Vec<u8>> {
        EntryEval::context(self)
    }
    fn user(&mut self, uid: u32) -> Option<Vec<u8>> {
        self.local.names.user(uid).map(|n| n.to_vec())
    }
    fn group(&mut self, gid: u32) -> Option<Vec<u8>> {
        self.local.names.group(gid).map(|n| n.to_vec())
    }
    fn fstype(&mut self, dev: u64) -> Vec<u8> {
        EntryEval::fstype(self, dev)
    }
}

impl Visitor for Finder<'_> {
    type Local = Local;
    type Acc = ();

    /// A directory is evaluated again when left only under `-depth` (its
    /// `-execdir`, `-delete`… then run relative to its parent); there is
    /// nothing to do after its entries.
    fn dirfd_after_visit(&self) -> bool {
        self.plan.depth_first
    }

    fn local(&self) -> Local {
        Local {
            bufs: vec![Vec::new(); self.outs.len()],
            names: Users::name_service(),
            ls_widths: [9, 6, 3, 8, 8, 8],
        }
    }

    fn finish(&self, mut local: Local) {
        self.flush_local(&mut local);
    }

    fn publish(&self, local: &mut Local) {
        self.publish_local(local);
    }

    fn need_stat(&self, name: &[u8], d_type: u8, depth: usize) -> StatNeed {
        let plan = self.plan;
        if plan.follow == Follow::Always {
            // Links must be resolved, and directories need their identity
            // for loop detection.
            if matches!(d_type, dtype::LNK | dtype::DIR | dtype::UNKNOWN) {
                return StatNeed::Follow;
            }
        } else if plan.xdev && d_type == dtype::DIR {
            return StatNeed::Lstat;
        }
        if !self.stat_some || depth < plan.mindepth {
            return StatNeed::None;
        }
        if self.predict(&plan.expr, name, d_type) == Prediction::NeedsStat {
            if plan.follow == Follow::Always {
                StatNeed::Follow
            } else {
                StatNeed::Lstat
            }
        } else {
            StatNeed::None
        }
    }

    fn stats_none_at(&self, depth: usize) -> bool {
        let plan = self.plan;
        plan.follow != Follow::Always && !plan.xdev && (!self.stat_some || depth < plan.mindepth)
    }

    fn visit(&self, local: &mut Local, e: &Entry, _parent: Option<&()>) -> Visit {
        if self.quit.load(Ordering::Relaxed) || libcw::signal::interrupted() {
            return Visit::Quit;
        }
        let plan = self.plan;
        if e.depth == 0 {
            // Roots are visited in order, one at a time: find this one
            // after the previous (operands may repeat).
            let prev = self.cur_root.load(Ordering::Relaxed);
            let start = if prev == usize::MAX { 0 } else { prev + 1 };
            let found = plan.roots.iter().skip(start).position(|r| r.as_slice() == e.path);
            let i = match found {
                Some(k) => start + k,
                None => plan.roots.iter().position(|r| r.as_slice() == e.path).unwrap_or(0),
            };
            self.cur_root.store(i, Ordering::Relaxed);
            if let Some(st) = e.stat {
                self.root_dev.store(dev_of(st), Ordering::Relaxed);
            }
        }
        // An entry the walker stat'ed (because the expression needs it)
        // and couldn't: reported, not evaluated, not descended, as GNU does.
        // (Under -L that includes links that can't be followed.)
        if let Some(err) = e.stat_error {
            if e.depth >= plan.mindepth || plan.follow == Follow::Always {
                self.flush_local(local);
                self.report(e.path, err);
            }
            // A link under -L whose target path runs through a non-directory
            // (`l -> file/x`): GNU's fts reports it, and find then still
            // evaluates it as the link itself (it lists it, `-type l`).
            if err == Errno::ENOTDIR && e.depth > 0 && plan.follow == Follow::Always {
                return self.visit_as_link(local, e);
            }
            return Visit::Skip;
        }
        let is_dir = e.d_type == dtype::DIR;
        let mut descend = is_dir && e.depth < plan.maxdepth && e.stat_error.is_none();
        if descend && plan.xdev && e.depth > 0 {
            if let Some(st) = e.stat {
                if dev_of(st) != self.root_dev.load(Ordering::Relaxed) {
                    descend = false;
                }
            }
        }
        if plan.depth_first && descend {
            return Visit::Descend;
        }
        if e.depth >= plan.mindepth {
            let verdict = self.eval_entry(local, e);
            if verdict.quit {
                self.quit.store(true, Ordering::Relaxed);
                return Visit::Quit;
            }
            // A directory that could not be stat'ed is reported once, not
            // again by a failing open (GNU doesn't descend it either).
            if (verdict.prune && !plan.depth_first) || verdict.stat_failed {
                descend = false;
            }
        }
        if descend {
            Visit::Descend
        } else {
            Visit::Skip
        }
    }

    fn leave(&self, local: &mut Local, dir: &Entry, _acc: &(), _parent: Option<&()>) {
        if !self.plan.depth_first || self.quit.load(Ordering::Relaxed) {
            return;
        }
        if libcw::signal::interrupted() {
            return;
        }
        if dir.depth >= self.plan.mindepth && self.eval_entry(local, dir).quit {
            self.quit.store(true, Ordering::Relaxed);
        }
    }

    fn error(&self, local: &mut Local, err: &WalkError, _acc: Option<&()>) {
        // What this thread printed goes out first, as with GNU's error().
        self.flush_local(local);
        match err {
            WalkError::Root { path, errno } => {
                cli::msg::error(&format!("{}: {}", quoted(path), errno.message()));
                self.fail();
            }
            WalkError::Open { path, errno } | WalkError::Read { path, errno } => {
                self.report(path, *errno);
            }
            WalkError::Loop { path, ancestor } => {
                cli::msg::error_bytes(&[&cli::locale::trf(
                    c"File system loop detected; %s is part of the same file system loop as %s.",
                    &[quoted(path).as_bytes(), quoted(ancestor).as_bytes()],
                )]);
                self.fail();
            }
            // A directory moved out of its parent while it was walked: the
            // walk of this starting point ended there, and GNU's find then
            // skips the remaining starting points too (its fts_read failed;
            // the message is not in its catalog).
            WalkError::Moved { errno, .. } => {
                let i = self.cur_root.load(Ordering::Relaxed);
                let root = self.plan.roots.get(i).map_or(&[][..], |r| r.as_slice());
                cli::msg::error(&format!(
                    "failed to read file names from file system at or below {}: {}",
                    quoted(root),
                    errno.message()
                ));
                self.fail();
                self.quit.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// A name as GNU find's -ls writes it (findutils' own escaping, not
/// quotearg's): backslash, double quote, space, \b \f \n \r \t with a
/// backslash, every other non-printable byte in octal (`\007`, not `\a`),
/// so nothing reaches a terminal raw.
fn ls_name(out: &mut Vec<u8>, name: &[u8]) {
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            b' ' => out.extend_from_slice(b"\\ "),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b if cli::quote::printable(b) => out.push(b),
            b => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    /// Where the walker skips asking per entry (`stats_none_at`), asking
    /// would have said `None` for every name and type: the shortcut never
    /// drops a stat an expression needs.
    #[test]
    fn no_stats_at_a_depth_means_none_asked_there() {
        let exprs: &[&[&str]] = &[
            &[],
            &["-name", "*.c"],
            &["-type", "f"],
            &["-size", "+4k"],
            &["-name", "x", "-o", "-newer", "."],
            &["-mindepth", "2", "-size", "+1"],
            &["-xdev"],
            &["-L"],
            &["-L", "-name", "x"],
            &["-depth", "-empty"],
            &["-maxdepth", "1", "-perm", "-u+r"],
        ];
        let types = [
            dtype::UNKNOWN,
            dtype::FIFO,
            dtype::CHR,
            dtype::DIR,
            dtype::BLK,
            dtype::REG,
            dtype::LNK,
            dtype::SOCK,
        ];
        let mut skipped = 0;
        for args in exprs {
            let (opts, expr): (Vec<&str>, Vec<&str>) = if args.first() == Some(&"-L") {
                (vec!["-L"], args[1..].to_vec())
            } else {
                (vec![], args.to_vec())
            };
            let argv = opts.iter().chain(&["."]).chain(&expr).map(OsString::from).collect();
            let (plan, _) = crate::parse::parse(argv).unwrap_or_else(|_| panic!("{args:?}"));
            let f = Finder::new(&plan);
            for depth in 0..4 {
                if !f.stats_none_at(depth) {
                    continue;
                }
                skipped += 1;
                for t in types {
                    for name in [&b"x"[..], b"a.c", b"."] {
                        let n = f.need_stat(name, t, depth);
                        assert_eq!(n, StatNeed::None, "{args:?} depth {depth} type {t}");
                    }
                }
            }
        }
        // The shortcut is taken for the plain walks, and not for the rest.
        assert!(skipped >= 8, "{skipped}");
    }
}
