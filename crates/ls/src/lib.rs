//! lsr: a GNU-compatible `ls` on the ringio engine.
//!
//! Three phases, as all four tools do: [`args`] parses the command line
//! and [`plan`] resolves it against the environment; [`read`] does all
//! I/O through the engine; [`print`] (with [`long`], [`columns`], [`name`])
//! formats into one buffer. [`run`] drives them the way GNU ls walks its
//! operands: files first, then each directory, `-R` depth-first.
// The small build (xtask/src/small.rs) sizes start-up code for size.
#![cfg_attr(ringutils_small, feature(optimize_attribute))]
#![forbid(unsafe_code)]

mod ahead;
mod args;
mod beside;
mod collate;
mod colors;
mod columns;
mod entry;
mod error;
pub mod help;
mod icons;
mod json;
mod long;
mod name;
mod plan;
mod print;
mod questions;
mod read;
mod sort;
mod tree;

use std::ffi::OsString;

use cli::users::Users;
use cli::Out;
use listing::read_ahead::{GoOn, Taken};
use ringio::Errno;

use args::{Deref, Format, Sort, TimeKind};
use cli::{BadUsage, Command, Exit, Tool};
use entry::Entry;
use error::LsError;
use plan::{Env, Plan};
use print::{Flushing, Printer};
use read::DirReader;
use sort::Order;

/// Exit statuses: GNU's 0 / 1 (minor problem) / 2 (serious trouble).
const EXIT_MINOR: u8 = 1;
const EXIT_SERIOUS: u8 = 2;

/// Runs lsr with these arguments (after the program name).
pub fn run(args: Vec<OsString>) -> Exit {
    cli::command::run(&mut Lsr, args)
}

struct Lsr;

/// A command line that lists: the plan, what to warn about first, and the
/// operands.
struct Listing {
    plan: Plan,
    warnings: plan::Warnings,
    files: Vec<Vec<u8>>,
}

impl Tool for Lsr {
    type Plan = Listing;
    // GNU ls's exit_failure: serious trouble, running out of memory too.
    const FAILURE: u8 = EXIT_SERIOUS;

    #[cfg_attr(ringutils_small, optimize(size))]
    fn parse(&mut self, args: Vec<OsString>) -> Result<Command<Listing>, BadUsage> {
        let a = args::parse(args)?;
        if a.help {
            return Ok(Command::Help);
        }
        if a.version {
            return Ok(Command::Version);
        }
        let (plan, warnings) = Plan::new(&a, &Env::from_process())?;
        Ok(Command::Run(Listing { plan, warnings, files: a.files }))
    }

    fn help(&self) -> String {
        help::text(cli::progname())
    }

    fn version(&self) -> String {
        help::version()
    }

    // Start-up and the end: the listing itself is `Ls::main`.
    #[cfg_attr(ringutils_small, optimize(size))]
    fn execute(&mut self, l: Listing) -> Exit {
        libcw::mem::tune_for_batch();
        for w in &l.warnings.0 {
            cli::msg::error_bytes(&[w]);
        }
        let mut ls = Ls::new(&l.plan);
        ls.main(&l.files);
        Exit(ls.finish())
    }
}

/// A `--time-style` GNU ls doesn't know: argmatch's complaint, then the
/// list GNU ls spells out itself (with the `posix-` prefixes and the
/// `+FORMAT` line), not argmatch's.
pub(crate) fn bad_time_style(why: cli::argmatch::NoMatch, value: &[u8]) -> Vec<u8> {
    use cli::locale::tr;
    let mut s = cli::argmatch::complaint(why, value, b"time style");
    s.push(b'\n');
    s.extend_from_slice(tr(c"Valid arguments are:\n"));
    for n in ["full-iso", "long-iso", "iso", "locale"] {
        s.extend_from_slice(format!("  - [posix-]{n}\n").as_bytes());
    }
    s.extend_from_slice(tr(c"  - +FORMAT (e.g., +%H:%M) for a 'date'-style format\n"));
    s.pop();
    s
}

/// A directory waiting to be listed.
struct Pending {
    name: Vec<u8>,
    cmdline: bool,
    /// Handed to the read-ahead (see [`ahead`]).
    requested: bool,
    /// A marker, not a directory: the subtree of this (dev, ino) is done
    /// (-R loop detection only refuses ancestors, as GNU does).
    done: Option<ringio::DevIno>,
}

impl Pending {
    /// Directory `name` to list (`cmdline`: an operand).
    #[inline]
    fn dir(name: Vec<u8>, cmdline: bool) -> Pending {
        Pending { name, cmdline, requested: false, done: None }
    }

    /// The marker that ends the subtree of directory `id`.
    #[inline]
    fn end_of(id: ringio::DevIno) -> Pending {
        Pending { name: Vec::new(), cmdline: false, requested: false, done: Some(id) }
    }
}

/// The walk over operands and directories.
pub struct Ls<'a> {
    plan: &'a Plan,
    /// `--dired` offsets in the output stream.
    dired: Vec<u64>,
    subdired: Vec<u64>,
    reader: DirReader,
    printer: Printer<'a>,
    out: Out,
    status: u8,
    pending: Vec<Pending>,
    first_header: bool,
    print_dir_name: bool,
    /// (dev, ino) of directories being listed, for -R loop detection.
    active: Vec<ringio::DevIno>,
    /// `-R` read-ahead (see [`ahead`]).
    ahead: Option<ahead::Ahead>,
    ahead_tried: bool,
    /// Read-ahead threads started warm, and the most the descriptor limit
    /// allows (the cold count is capped by it).
    ahead_warm: usize,
    /// Whether the readers keep a listed directory open for its
    /// subdirectories (so the main thread does too, when it reads one).
    ahead_keep: bool,
    ahead_max: usize,
    /// `--json`: the objects written so far, at the top level.
    json: cli::json::Seq,
    /// Messages held back until the tree they belong to is printed (see
    /// `tree`): Some while a tree is gathered.
    deferred: Option<Vec<LsError>>,
}

impl<'a> Ls<'a> {
    pub fn new(plan: &'a Plan) -> Ls<'a> {
        let birth = plan.time == TimeKind::Birth || plan.json;
        let mut reader = DirReader::new(birth);
        let users =
            if plan.long() && (plan.show_owner || plan.show_group || plan.author) && !plan.numeric
                || plan.json
            {
                let f = reader.read_files(&[b"/etc/passwd", b"/etc/group"]);
                Users::from_files(&f[0], &f[1])
            } else {
                Users::default()
            };
        if plan.long() || plan.json {
            libcw::time::tzset();
        }
        let now = cli::timefmt::Timestamp::now();
        let mut printer = Printer::new(plan, users, now);
        if plan.hyperlink {
            printer.painter.hostname = hostname();
        }
        Ls {
            plan,
            dired: Vec::new(),
            subdired: Vec::new(),
            reader,
            printer,
            // Listings are printed as they are formatted (see
            // print::Flushing): a megabyte per write keeps writes rare (one
            // for a 10,000-entry -l) without holding a huge listing twice.
            out: Out::new(1, 1 << 20),
            status: 0,
            pending: Vec::new(),
            first_header: true,
            print_dir_name: true,
            active: Vec::new(),
            ahead: None,
            ahead_tried: false,
            ahead_warm: 0,
            ahead_keep: false,
            ahead_max: 0,
            json: cli::json::Seq::new(plan.json_framing),
            deferred: None,
        }
    }

    fn fail(&mut self, serious: bool) {
        if serious {
            self.status = EXIT_SERIOUS;
        } else if self.status == 0 {
            self.status = EXIT_MINOR;
        }
    }

    /// Reports a problem like GNU's error(): standard output is flushed
    /// first, so messages land where they belong when both streams go to
    /// one terminal; then the exit status is raised.
    fn report(&mut self, e: LsError) {
        if let Some(held) = self.deferred.as_mut() {
            let serious = e.serious();
            held.push(e);
            self.fail(serious);
            return;
        }
        self.take_marks();
        self.out.flush();
        cli::msg::error_bytes(&[&e.message()]);
        self.fail(e.serious());
    }

    /// Reports a directory's failed stats and readlinks, in directory order
    /// as GNU meets them.
    fn report_entry_errors(&mut self, dir: &[u8], listing: &read::Listing) {
        let (mut a, mut b) =
            (listing.errors.iter().peekable(), listing.link_errors.iter().peekable());
        loop {
            let stat_first = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => x.0 <= y.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return,
            };
            let (i, errno, link) = if stat_first {
                let &(i, e) = a.next().unwrap_or(&(0, Errno::EINVAL));
                (i, e, false)
            } else {
                let &(i, e) = b.next().unwrap_or(&(0, Errno::EINVAL));
                (i, e, true)
            };
            let path = attach(dir, &listing.entries[i].name);
            self.report(if link {
                LsError::ReadLink { path, errno, operand: false }
            } else {
                LsError::Access { path, errno, operand: false }
            });
        }
    }

    /// Lists the operands (or `.`).
    pub fn main(&mut self, files: &[Vec<u8>]) {
        let plan = self.plan;
        let operands: Vec<Vec<u8>> =
            if files.is_empty() { vec![b".".to_vec()] } else { files.to_vec() };
        let mut listed: Vec<Entry> = Vec::new();
        if files.is_empty() && !plan.directory && plan.tree.is_none() {
            self.pending.push(Pending::dir(b".".to_vec(), true));
        } else {
            let results = self.reader.operands(plan, &operands);
            let link_errors = std::mem::take(&mut self.reader.operand_link_errors);
            for (i, (name, r)) in operands.iter().zip(results).enumerate() {
                match r {
                    Ok(e) => listed.push(e),
                    Err(errno) => {
                        self.report(LsError::Access { path: name.clone(), errno, operand: true })
                    }
                }
                if let Some(&(_, errno)) = link_errors.iter().find(|(k, _)| *k == i) {
                    self.report(LsError::ReadLink { path: name.clone(), errno, operand: true });
                }
            }
        }
        self.sort(&mut listed, None);
        let mut files_out: Vec<Entry> = Vec::new();
        let mut dirs: Vec<Entry> = Vec::new();
        for e in listed {
            if !plan.directory && e.is_dir() {
                dirs.push(e);
            } else {
                files_out.push(e);
            }
        }
        for d in dirs.iter().rev() {
            self.pending.push(Pending::dir(d.name.to_vec(), true));
        }
        if let Some(depth) = plan.tree {
            self.pending.clear();
            self.tree(files_out, dirs, depth);
            return;
        }
        if plan.json {
            for e in &files_out {
                json::entry(self.out.buf(), &mut self.json, e, &e.name, &mut self.printer.users);
            }
            self.out.maybe_flush();
            while let Some(p) = self.pending.pop() {
                self.list_dir(&p);
            }
            return;
        }
        if !files_out.is_empty() {
            let links = self.links(None, &files_out);
            self.printer.entries(
                &mut Flushing { out: &mut self.out, flush: !plan.dired },
                &files_out,
                &links,
                &dirs,
            );
            if !self.pending.is_empty() {
                self.out.buf().push(b'\n');
            }
            self.take_marks();
            self.out.maybe_flush();
        } else if files.len() <= 1 && self.pending.len() == 1 {
            self.print_dir_name = false;
        }
        while let Some(p) = self.pending.pop() {
            self.list_dir(&p);
        }
    }

    /// Puts `v` in the order shown: `early` when the lister took it (see
    /// [`early_order`]), else sorted now.
    fn sort(&self, v: &mut [Entry], early: Option<Order>) {
        early.unwrap_or_else(|| order_of(self.plan, v)).apply(v);
    }

    /// The order of a listing (`early` when the lister took it already,
    /// see [`early_order`]) and, in the long format, its measures (widths,
    /// and the blocks of `total`: one pass). Otherwise a big listing on a
    /// machine with a second core is measured beside the sort, on the
    /// engine's idle pool worker or a thread of its own (`beside`): both
    /// read every entry and neither needs the other, so they need not
    /// follow each other in the serial stretch between the last stat and
    /// the first line (100,000 entries, C locale: sort ~7 ms, measures
    /// ~2 ms).
    fn order_and_measure(
        &mut self,
        v: &[Entry],
        early: Option<Order>,
    ) -> (Order, Option<long::Measured>) {
        let plan = self.plan;
        if plan.format != Format::Long {
            return (early.unwrap_or_else(|| order_of(plan, v)), None);
        }
        if let Some(order) = early {
            return (order, Some(long::measure(plan, &mut self.printer.users, v, &[])));
        }
        let users = &mut self.printer.users;
        let mut own = beside::OwnThread;
        let beside = beside::pick(self.reader.engine(), &mut own);
        let least = if beside.free() { long::SHARE_FREE_MIN } else { long::MEASURE_APART_MIN };
        if v.len() < least || ringio::sys::available_cpus() < 2 {
            return (order_of(plan, v), Some(long::measure(plan, users, v, &[])));
        }
        let (mut order, mut measured) = (None, None);
        let measuring = Box::new(|| measured = Some(long::measure(plan, users, v, &[])));
        beside.run(measuring, &mut || order = Some(order_of(plan, v)));
        let order = order.expect("Beside::run runs its main closure");
        // No thread to be had: measured here.
        let measured = measured.unwrap_or_else(|| long::measure(plan, users, v, &[]));
        (order, Some(measured))
    }
    /// Absolute paths for --hyperlink.
    fn links(&mut self, dir: Option<&[u8]>, entries: &[Entry]) -> Vec<Option<Vec<u8>>> {
        if !self.plan.hyperlink {
            // No links: the printer takes an empty slice for "none".
            return Vec::new();
        }
        // The directory is resolved once; only links need their own walk.
        let base = dir.map(canonical);
        entries
            .iter()
            .map(|e| match (dir, &base) {
                (Some(d), Some(b)) => {
                    if e.file_type() == entry::FileType::Link
                        || e.name[..] == *b".."
                        || e.name[..] == *b"."
                    {
                        Some(canonical(&join(d, &e.name)))
                    } else {
                        Some(join(b, &e.name))
                    }
                }
                _ => Some(canonical(&e.name)),
            })
            .collect()
    }

    /// Lists directory `p` (or, for a marker, leaves the directory it
    /// marks).
    fn list_dir(&mut self, p: &Pending) {
        if let Some(id) = p.done {
            if let Some(i) = self.active.iter().rposition(|&a| a == id) {
                self.active.remove(i);
            }
            return;
        }
        let Some(listing) = self.read_listing(p) else { return };
        if self.plan.json {
            self.list_json(p, listing);
        } else {
            self.list_shown(p, listing);
        }
    }

    /// Reads directory `p` (or takes what the read-ahead read of it), or
    /// reports why it can't be listed.
    fn read_listing(&mut self, p: &Pending) -> Option<read::Listing> {
        // -R refuses a directory that is one of its own ancestors, as GNU
        // does (by the open directory's device and inode): with -L a
        // symlink loop, without it a bind mount of a directory below
        // itself.
        let want_id = self.plan.recursive;
        let read = match self.ahead.as_mut().map(|pf| pf.take(&p.name)) {
            Some(Taken::Read(r)) => r,
            Some(Taken::Yours(job)) => self.read_here(p, job.as_ref(), want_id),
            None => self.read_here(p, None, want_id),
        };
        let listing = match read {
            Ok(l) => l,
            Err(e) => {
                self.report(LsError::OpenDir {
                    path: p.name.clone(),
                    errno: e,
                    operand: p.cmdline,
                });
                return None;
            }
        };
        if let Some(id) = listing.id {
            if self.active.contains(&id) {
                self.report(LsError::Loop { path: p.name.clone() });
                return None;
            }
        }
        Some(listing)
    }

    /// Reads `p` on this thread (no reader had started it, or there is no
    /// read-ahead): from the parent a reader kept open when `job` has one,
    /// and kept open itself for its subdirectories where the readers keep
    /// theirs (`ahead_keep`, false without read-ahead).
    fn read_here(
        &mut self,
        p: &Pending,
        job: Option<&listing::read_ahead::Job>,
        want_id: bool,
    ) -> Result<read::Listing, Errno> {
        let parent = job.and_then(|j| j.parent());
        let how = (want_id, self.ahead_keep);
        let mut r = self.reader.read_dir_in(self.plan, parent, &p.name, how);
        if let (Ok(l), Some(pf)) = (&mut r, self.ahead.as_mut()) {
            if let Some(fd) = l.kept.take() {
                pf.adopt(&p.name, fd);
            }
        }
        r
    }

    /// `--json`: one object per entry of directory `p`, sorted; with `-R`
    /// its subdirectories are listed next.
    fn list_json(&mut self, p: &Pending, listing: read::Listing) {
        self.report_entry_errors(&p.name, &listing);
        let mut entries = listing.entries;
        self.sort(&mut entries, listing.order);
        for e in &entries {
            let path = join(&p.name, &e.name);
            json::entry(self.out.buf(), &mut self.json, e, &path, &mut self.printer.users);
        }
        if self.plan.recursive {
            self.push_subdirs(&p.name, listing.id, &entries, &Order::identity());
        }
        self.out.maybe_flush();
    }

    /// Prints directory `p`'s listing (its header, `total`, the entries in
    /// the plan's layout); with `-R` its subdirectories are listed next.
    fn list_shown(&mut self, p: &Pending, listing: read::Listing) {
        let plan = self.plan;
        if plan.recursive || self.print_dir_name {
            let link = if plan.hyperlink { Some(canonical(&p.name)) } else { None };
            let first = self.first_header;
            self.printer.header(self.out.buf(), &p.name, first, link.as_deref());
            self.first_header = false;
        }
        self.report_entry_errors(&p.name, &listing);
        if let Some(e) = listing.read_error {
            self.report(LsError::ReadDir { path: p.name.clone(), errno: e, operand: p.cmdline });
        }
        let mut entries = listing.entries;
        let early = listing.order;
        // The long format prints through the order (see sort::Order); the
        // other layouts work on the entries as shown, moved into place.
        let (mut order, measured) = self.order_and_measure(&entries, early);
        if plan.format != Format::Long {
            order.apply(&mut entries);
            order = Order::identity();
        }
        if plan.recursive {
            self.push_subdirs(&p.name, listing.id, &entries, &order);
        }
        if plan.long() || plan.size_blocks {
            match &measured {
                Some(m) => self.printer.total_blocks(self.out.buf(), m.blocks),
                None => self.printer.total(self.out.buf(), &entries),
            }
        }
        let links = self.links(Some(&p.name), &entries);
        self.printer.entries_in(
            &mut Flushing { out: &mut self.out, flush: !plan.dired },
            &entries,
            &order,
            &links,
            &[],
            measured,
            beside::pick(self.reader.engine(), &mut beside::OwnThread),
        );
        self.take_marks();
        self.out.maybe_flush();
        if self.pending.is_empty() && self.ahead.is_none() {
            // The last listing: the process ends next, so its entries (and
            // their mapping) are left to the exit rather than freed one by
            // one (100,000 entries: ~3 ms).
            std::mem::forget(entries);
            std::mem::forget(order);
        }
    }

    /// `-R`: puts the subdirectories of `dir` (its `entries` in `order`)
    /// on the pending stack, the first shown on top, below them the marker
    /// that ends `dir`'s subtree (when its identity `id` is known: see
    /// [`Pending::done`]); then sets the read-ahead on them.
    fn push_subdirs(
        &mut self,
        dir: &[u8],
        id: Option<ringio::DevIno>,
        entries: &[Entry],
        order: &Order,
    ) {
        if let Some(id) = id {
            self.active.push(id);
            self.pending.push(Pending::end_of(id));
        }
        for e in (0..entries.len()).rev().map(|k| &entries[order.at(k)]) {
            if e.is_dir() && e.name[..] != *b"." && e.name[..] != *b".." {
                self.pending.push(Pending::dir(join(dir, &e.name), false));
            }
        }
        self.read_ahead(true);
    }

    /// With `-R` on a high-latency file system: hands the directories that
    /// come next (the top of the pending stack) to the read-ahead threads,
    /// starting them the first time.
    fn read_ahead(&mut self, want_id: bool) {
        let plan = self.plan;
        if self.ahead.is_none() {
            // Threads are started only once there is a directory to read
            // ahead: `lsr -R` of a directory without subdirectories (the
            // common small case) starts none.
            if self.ahead_tried || !self.pending.iter().any(|p| p.done.is_none()) {
                return;
            }
            self.ahead_tried = true;
            // The engine says how many readers are worth it here (and each
            // one's workers): a reader per core on a local file system, many
            // on a high-latency one, where listings are chains of round trips.
            let want = self.reader.engine().list_ahead(ahead::READERS, ahead::LOCAL_READERS);
            if want.threads == 0 {
                return;
            }
            // The readers hold descriptors of their own (a directory each,
            // and O_PATH descriptors for -l): take the hard limit, as ldu
            // does, and fewer readers (or none) under a tight one.
            let per = ahead::DESCRIPTORS_PER_READER;
            let fit = listing::budget::threads_raised(per);
            let max = fit.min(ahead::READERS);
            self.ahead_max = max;
            let readers = want.threads.min(max);
            if readers == 0 {
                return;
            }
            let birth = plan.time == TimeKind::Birth || plan.json;
            // The readers take what they found in the walk's order, by
            // name: backwards under -r (other sorts are nearer to neither).
            let go_on = match plan.deref {
                Deref::Always => GoOn::No,
                _ if plan.reverse && plan.sort != Sort::None => GoOn::ByNameReversed,
                _ => GoOn::ByName,
            };
            // Parents held open for their subdirectories (a high-latency
            // file system) are at most the directories held: only where the
            // limit has room for them besides the readers' own.
            let keep = fit >= max + listing::read_ahead::HELD.div_ceil(per);
            let workers = want.workers_each;
            let how = ((birth, want_id), (go_on, keep));
            self.ahead = ahead::start(plan, how.0, how.1, readers, workers);
            self.ahead_keep = keep;
            self.ahead_warm = self.ahead.as_ref().map_or(0, |p| p.readers());
        }
        let Some(pf) = self.ahead.as_mut() else { return };
        // A cold cache: listings wait on the disk, so more of them in
        // flight (the readers go on into subdirectories on their own).
        // `grow` starts only what is missing.
        pf.grow(ringio::helper_threads_now(self.ahead_warm, self.ahead_max));
        let mut next: Vec<&[u8]> = Vec::new();
        for p in self.pending.iter_mut().rev().take(ahead::AHEAD) {
            if p.done.is_none() && !p.requested {
                p.requested = true;
                next.push(&p.name);
            }
        }
        pf.request(&next);
    }

    /// Turns the printer's buffer-relative dired marks into stream
    /// offsets; call before the buffer may be flushed.
    fn take_marks(&mut self) {
        let base = self.out.written();
        let at = |p: i64| (base as i64 + p).max(0) as u64;
        for (s, e) in self.printer.dired.drain(..) {
            self.dired.extend([at(s), at(e)]);
        }
        for (s, e) in self.printer.subdired.drain(..) {
            self.subdired.extend([at(s), at(e)]);
        }
    }

    /// Flushes output; returns the exit status.
    pub fn finish(mut self) -> u8 {
        let plan = self.plan;
        // GNU restores the colour before the dired trailer.
        self.printer.painter.finish(plan, self.out.buf());
        if plan.json {
            self.json.finish(self.out.buf());
        }
        if plan.dired {
            self.take_marks();
            let mut tail = Vec::new();
            for (label, v) in [("//DIRED//", &self.dired), ("//SUBDIRED//", &self.subdired)] {
                if !v.is_empty() {
                    tail.extend_from_slice(label.as_bytes());
                    for n in v.iter() {
                        tail.extend_from_slice(format!(" {n}").as_bytes());
                    }
                    tail.push(b'\n');
                }
            }
            let style = cli::quote::Style::NAMES
                .iter()
                .find(|n| cli::quote::Style::parse(n) == Some(plan.quoter.style))
                .unwrap_or(&"literal");
            tail.extend_from_slice(
                format!("//DIRED-OPTIONS// --quoting-style={style}\n").as_bytes(),
            );
            self.out.buf().extend_from_slice(&tail);
        }
        let ok = self.out.finish();
        // The process ends now: skip freeing the listing and the engine.
        let status = self.status;
        if let Some(pf) = self.ahead.take() {
            pf.abandon();
        }
        self.reader.leak();
        std::mem::forget(self.printer);
        if !ok {
            return EXIT_SERIOUS;
        }
        status
    }
}

/// The order `plan` shows the entries `v` in, when their names alone
/// decide it (sorting by name, extension, version or width, directories
/// not grouped first): the lister computes it once every name is read,
/// while the stats still run, so that the sort is not left to the serial
/// stretch after the last stat (100,000 entries: ~7 ms in C, ~13 ms in
/// en_US, beside ~8 ms of stats left to the pool's worker then). `None`
/// when the order needs what the stats bring.
pub(crate) fn early_order(plan: &Plan, v: &[Entry]) -> Option<Order> {
    let names_only =
        matches!(plan.sort, Sort::Name | Sort::Extension | Sort::Version | Sort::Width);
    (names_only && !plan.dirs_first).then(|| order_of(plan, v))
}

/// The order `plan` shows the entries `v` in.
fn order_of(plan: &Plan, v: &[Entry]) -> Order {
    // --sort=width measures names as printed: with the alignment space
    // of unquoted names when some are quoted (GNU's quote_name_width).
    let pad = plan.sort == Sort::Width
        && print::aligns_quotes(plan)
        && v.iter().any(|e| name::quote(plan, &e.name, &plan.quoter).quoted);
    let width = |e: &Entry| {
        let q = name::quote(plan, &e.name, &plan.quoter);
        q.width + usize::from(pad && !q.quoted)
    };
    let by = sort::SortBy {
        key: plan.sort,
        time: plan.time,
        reverse: plan.reverse,
        dirs_first: plan.dirs_first,
    };
    sort::order_entries(v, by, &width)
}

/// `dir/name` as GNU joins them (no doubled slash, `.` kept).
pub fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    // Sized at once: `-R` joins a path per subdirectory, twice.
    let mut v = Vec::with_capacity(dir.len() + 1 + name.len());
    v.extend_from_slice(dir);
    if v.last() != Some(&b'/') {
        v.push(b'/');
    }
    v.extend_from_slice(name);
    v
}

/// The path GNU names an entry by in messages: `dir/name`, or just `name`
/// in `.`.
pub fn attach(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if dir == b"." {
        name.to_vec()
    } else {
        join(dir, name)
    }
}

/// The absolute path with every symlink resolved, allowing missing
/// components (GNU's canonicalize_filename_mode with CAN_MISSING), for
/// --hyperlink.
fn canonical(path: &[u8]) -> Vec<u8> {
    canonical_depth(path, 0)
}

fn canonical_depth(path: &[u8], depth: usize) -> Vec<u8> {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let p = std::path::Path::new(std::ffi::OsStr::from_bytes(path));
    if let Ok(c) = std::fs::canonicalize(p) {
        return c.into_os_string().into_vec();
    }
    let parent =
        p.parent().filter(|x| !x.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let base = p.file_name().map(|b| b.as_bytes().to_vec()).unwrap_or_default();
    let dir = if depth < 40 {
        canonical_depth(parent.as_os_str().as_bytes(), depth + 1)
    } else {
        parent.as_os_str().as_bytes().to_vec()
    };
    match std::fs::read_link(p) {
        Ok(t) if depth < 40 => {
            let t = t.into_os_string().into_vec();
            if t.first() == Some(&b'/') {
                canonical_depth(&t, depth + 1)
            } else {
                canonical_depth(&join(&dir, &t), depth + 1)
            }
        }
        _ => join(&dir, &base),
    }
}

fn hostname() -> Vec<u8> {
    std::fs::read("/proc/sys/kernel/hostname")
        .map(|mut v| {
            while v.last() == Some(&b'\n') {
                v.pop();
            }
            v
        })
        .unwrap_or_default()
}
