//! The long format (`-l`, `-g`, `-o`, `-n`): mode string, link count,
//! owner, group, size or device numbers, time, name, `-> target`, with
//! column widths computed over the whole listing as GNU does.

use cli::num::{digit_count, digits_ending};
use cli::timefmt::Timestamp;
use cli::users::Users;

use crate::args::TimeKind;
use crate::beside::Beside;

use crate::entry::{Entry, FileType};
use crate::name::{Painter, Quoted, Spot};
use crate::plan::Plan;
use crate::print::Sink;

/// A short field text kept inline (numbers, "?"), or a longer one on the
/// heap: the long format must not allocate per file.
#[derive(Clone)]
enum Text {
    Inline(u8, [u8; 23]),
    Heap(Box<[u8]>),
}

impl Default for Text {
    fn default() -> Text {
        Text::Inline(0, [0; 23])
    }
}

impl Text {
    fn from_bytes(b: &[u8]) -> Text {
        if b.len() <= 23 {
            let mut a = [0u8; 23];
            a[..b.len()].copy_from_slice(b);
            Text::Inline(b.len() as u8, a)
        } else {
            Text::Heap(b.into())
        }
    }

    fn num(n: u64) -> Text {
        let mut a = [0u8; 23];
        let i = digits_ending(&mut a, n);
        let len = a.len() - i;
        a.copy_within(i.., 0);
        Text::Inline(len as u8, a)
    }

    fn unknown() -> Text {
        Text::from_bytes(b"?")
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Text::Inline(n, a) => &a[..*n as usize],
            Text::Heap(b) => b,
        }
    }

    fn len(&self) -> usize {
        self.bytes().len()
    }

    /// Display columns: a size grouped with a multibyte separator (fr_FR's
    /// U+202F) is narrower than its bytes, and GNU pads sizes by columns.
    fn columns(&self) -> usize {
        cli::size::columns(self.bytes())
    }
}

fn size_text(f: cli::size::SizeFormat, bytes: u64) -> Text {
    if f == cli::size::SizeFormat::BYTES {
        Text::num(bytes)
    } else {
        let mut v = Vec::with_capacity(24);
        f.format_into(&mut v, bytes);
        Text::from_bytes(&v)
    }
}

/// Owner and group texts with the last of each kept: a directory's files
/// mostly share them, so most rows skip the name lookup (a hash of the id)
/// and the copy of the name.
#[derive(Default)]
struct Ids {
    user: LastId,
    group: LastId,
}

/// One kind of id's last text and, for the printing pass, its column as
/// last written (padded to the listing's width, with the space after): a
/// row copies it whole.
#[derive(Default)]
struct LastId {
    text: Option<(u32, Text, bool)>,
    cell: Option<(u32, Vec<u8>)>,
}

impl Ids {
    fn of(&mut self, group: bool) -> &mut LastId {
        if group {
            &mut self.group
        } else {
            &mut self.user
        }
    }

    /// The id's text (its name, or the number when `numeric` or nameless)
    /// and whether it is a number.
    fn text(&mut self, users: &mut Users, id: u32, numeric: bool, group: bool) -> (&Text, bool) {
        let last = &mut self.of(group).text;
        if !matches!(last, Some(l) if l.0 == id) {
            *last = None;
        }
        let (_, t, n) = last.get_or_insert_with(|| {
            let (t, n) = id_text(users, id, numeric, group);
            (id, t, n)
        });
        (t, *n)
    }

    /// The owner (or group) column of `id`, padded to `w` as [`pad_id`]
    /// pads it.
    fn cell(
        &mut self,
        users: &mut Users,
        id: u32,
        (numeric, group): (bool, bool),
        w: usize,
    ) -> &[u8] {
        if !matches!(&self.of(group).cell, Some((i, _)) if *i == id) {
            let (t, num) = self.text(users, id, numeric, group);
            let mut cell = Vec::with_capacity(w + 1);
            pad_id(&mut cell, t.bytes(), w, num);
            self.of(group).cell = Some((id, cell));
        }
        self.of(group).cell.as_ref().map_or(&[], |(_, c)| c)
    }
}

/// The last mode string written: a directory's files mostly share their
/// mode.
#[derive(Default)]
struct LastMode(Option<(u32, [u8; 10])>);

impl LastMode {
    /// [`cli::mode::mode_string`] of `mode`.
    fn put(&mut self, out: &mut Vec<u8>, mode: u32) {
        match &self.0 {
            Some((m, s)) if *m == mode => out.extend_from_slice(s),
            _ => {
                let at = out.len();
                cli::mode::mode_string(out, mode);
                if let Some(Ok(s)) = out.get(at..).map(<[u8; 10]>::try_from) {
                    self.0 = Some((mode, s));
                }
            }
        }
    }
}

fn id_text(users: &mut Users, id: u32, numeric: bool, group: bool) -> (Text, bool) {
    if numeric {
        return (Text::num(id as u64), true);
    }
    let name = if group { users.group(id) } else { users.user(id) };
    match name {
        Some(n) => (Text::from_bytes(n), false),
        None => (Text::num(id as u64), true),
    }
}

pub fn time_of(e: &Entry, kind: TimeKind) -> Option<Timestamp> {
    let m = e.meta.as_ref()?;
    Some(match kind {
        TimeKind::Mtime => m.mtime(),
        TimeKind::Atime => m.atime(),
        TimeKind::Ctime => m.ctime(),
        TimeKind::Birth => m.btime()?,
    })
}

/// The width GNU pads unknown times to: the old format applied to the epoch.
fn expected_time_width(plan: &Plan) -> usize {
    let mut v = Vec::new();
    plan.time_style.format(&mut v, Timestamp::default(), Timestamp::new(i64::MAX / 2, 0));
    crate::name::display_width(&v)
}

/// The printer's state the long format uses and updates.
pub struct Printing<'a> {
    pub plan: &'a Plan,
    pub painter: &'a mut Painter,
    pub users: &'a mut Users,
    /// The current time, for the six-month rule; read again when a file
    /// turns out newer.
    pub now: &'a mut Timestamp,
    /// `--dired` name spans, as in [`crate::print::Printer`].
    pub dired: &'a mut Vec<(i64, i64)>,
}

/// What a long listing prints: `entries`, with `links[i]` the hyperlink
/// path of entry i (empty without --hyperlink), and `extra`, entries not
/// printed that still count for column widths. `some_quoted`: some name
/// of the listing is quoted, so unquoted ones get a leading space.
pub struct Rows<'a> {
    /// Shown in `order`; `links` (when not empty) runs alongside `entries`.
    pub entries: &'a [Entry],
    pub order: &'a crate::sort::Order,
    pub links: &'a [Option<Vec<u8>>],
    pub extra: &'a [Entry],
    pub some_quoted: bool,
    /// `--tree`: each entry's drawing before its name, and its note.
    pub tree: Option<&'a crate::print::TreeRows>,
}

/// The column widths of a long listing, over all its rows.
#[derive(Default)]
struct Widths {
    /// GNU widens every mode by a marker column when any file has an ACL
    /// (`+`) or a security context (`.`).
    any_acl: bool,
    context: usize,
    inode: usize,
    blocks: usize,
    nlink: usize,
    owner: usize,
    group: usize,
    size: usize,
    major: usize,
    minor: usize,
    /// Of `?` for an unknown time: the old format's width.
    time: usize,
}

/// What the long format measures over a whole listing before it prints a
/// line: the column widths, the owner and group last looked up, and the
/// blocks of the `total` line.
pub struct Measured {
    w: Widths,
    ids: Ids,
    /// 512-byte blocks of the entries shown (`total`).
    pub blocks: u64,
}

/// Measures `entries` (and `extra`, which count for widths only; see
/// [`Rows`]) in one pass: a listing of 100,000 is ~20 MB, and each pass
/// reads all of it again. Needs no order, so a big listing's measuring
/// runs beside its sorting (see `Ls::list_dir`).
pub fn measure(plan: &Plan, users: &mut Users, entries: &[Entry], extra: &[Entry]) -> Measured {
    let mut ids = Ids::default();
    let (w, blocks) = Widths::of(plan, users, &mut ids, entries, extra);
    Measured { w, ids, blocks }
}

impl Widths {
    fn of(
        plan: &Plan,
        users: &mut Users,
        ids: &mut Ids,
        entries: &[Entry],
        extra: &[Entry],
    ) -> (Widths, u64) {
        let mut w = Widths { context: 1, time: expected_time_width(plan), ..Widths::default() };
        let mut blocks = 0;
        for (k, e) in entries.iter().chain(extra).enumerate() {
            if k < entries.len() {
                blocks += e.meta.map_or(0, |m| m.blocks);
            }
            w.any_acl |= e.acl || e.labeled();
            w.context = w.context.max(context_of(e).len());
            let Some(m) = &e.meta else {
                // Every field of an entry that could not be stat'ed is `?`.
                w.inode = w.inode.max(usize::from(plan.inode));
                w.blocks = w.blocks.max(usize::from(plan.size_blocks));
                w.nlink = w.nlink.max(1);
                w.owner = w.owner.max(1);
                w.group = w.group.max(1);
                w.size = w.size.max(1);
                continue;
            };
            // The widths of what `columns` writes, numbers measured rather
            // than written (this pass runs over every entry before the
            // printing pass formats them).
            if plan.inode {
                w.inode = w.inode.max(digit_count(m.ino));
            }
            if plan.size_blocks {
                w.blocks = w.blocks.max(size_columns(plan.block_size, m.blocks * 512));
            }
            w.nlink = w.nlink.max(digit_count(m.nlink));
            if plan.show_owner || plan.author {
                w.owner = w.owner.max(ids.text(users, m.uid, plan.numeric, false).0.len());
            }
            if plan.show_group {
                w.group = w.group.max(ids.text(users, m.gid, plan.numeric, true).0.len());
            }
            if matches!(m.file_type(), FileType::Char | FileType::Block) {
                w.major = w.major.max(digit_count(m.rdev_major as u64));
                w.minor = w.minor.max(digit_count(m.rdev_minor as u64));
            } else {
                w.size = w.size.max(size_columns(plan.file_size, m.size));
            }
        }
        if w.major > 0 {
            w.size = w.size.max(w.major + 2 + w.minor);
        }
        (w, blocks)
    }
}

/// The display columns of [`size_text`]'s text, counted without writing
/// it in the common case of plain byte counts.
fn size_columns(f: cli::size::SizeFormat, bytes: u64) -> usize {
    if f == cli::size::SizeFormat::BYTES {
        digit_count(bytes)
    } else {
        size_text(f, bytes).columns()
    }
}

fn pad_left(out: &mut Vec<u8>, s: &[u8], w: usize) {
    blanks(out, w.saturating_sub(s.len()));
    out.extend_from_slice(s);
}

/// `n` spaces: padding is a few columns, cheaper copied from a constant
/// than filled in by `resize`.
fn blanks(out: &mut Vec<u8>, n: usize) {
    const SPACES: [u8; 32] = [b' '; 32];
    match SPACES.get(..n) {
        Some(s) => out.extend_from_slice(s),
        None => out.resize(out.len() + n, b' '),
    }
}

/// `n` in decimal, right-aligned in `w` columns: written in place, as
/// [`Text::num`] would spell it.
fn pad_num(out: &mut Vec<u8>, n: u64, w: usize) {
    // Digits written into the end of blanks, then copied padded and all
    // (one copy: a row writes several short numbers).
    let mut a = [b' '; 40];
    let i = digits_ending(&mut a, n);
    match a.len().checked_sub(w) {
        Some(from) => out.extend_from_slice(&a[from.min(i)..]),
        None => pad_left(out, &a[i..], w),
    }
}

fn pad_cols(out: &mut Vec<u8>, t: &Text, w: usize) {
    blanks(out, w.saturating_sub(t.columns()));
    out.extend_from_slice(t.bytes());
}

/// A name column: numbers right-aligned, names left-aligned.
fn pad_id(out: &mut Vec<u8>, s: &[u8], w: usize, numeric: bool) {
    if numeric {
        pad_left(out, s, w);
    } else {
        out.extend_from_slice(s);
        blanks(out, w.saturating_sub(s.len()));
    }
    out.push(b' ');
}

/// The last time formatted: files made together share their second, so
/// consecutive rows mostly format the same text.
struct TimeCache {
    /// (seconds, nanoseconds when the style shows them, recent).
    key: Option<(i64, u32, bool)>,
    text: Vec<u8>,
    ns_matters: bool,
}

impl TimeCache {
    fn new(plan: &Plan) -> TimeCache {
        TimeCache {
            key: None,
            text: Vec::with_capacity(64),
            ns_matters: plan.time_style.shows_nanoseconds(),
        }
    }

    fn put(&mut self, out: &mut Vec<u8>, plan: &Plan, t: Timestamp, now: &mut Timestamp) {
        if t > *now {
            *now = Timestamp::now();
        }
        let recent = cli::timefmt::is_recent(t, *now);
        let key = (t.secs, if self.ns_matters { t.nsec } else { 0 }, recent);
        if self.key != Some(key) {
            self.text.clear();
            plan.time_style.format(&mut self.text, t, *now);
            self.key = Some(key);
        }
        out.extend_from_slice(&self.text);
    }
}

/// Prints `rows` in the long format: one pass for the column widths,
/// one that formats each line again and prints it (GNU's two passes; no
/// per-entry texts are kept, so a huge listing costs only its entries).
/// `measured`: [`measure`]'s result for these rows, when taken already.
pub fn print<S: Sink>(
    p: &mut Printing,
    sink: &mut S,
    rows: &Rows,
    measured: Option<Measured>,
    beside: &mut dyn Beside,
) {
    let plan = p.plan;
    let Measured { w, ids, .. } =
        measured.unwrap_or_else(|| measure(plan, p.users, rows.entries, rows.extra));
    let mut st = RowState::new(plan, ids);
    if split_ok(plan, rows, beside.free()) {
        print_split(p, sink, rows, &w, &mut st, beside);
        return;
    }
    for k in 0..rows.entries.len() {
        row(p, &mut st, sink.buf(), rows, &w, k);
        sink.line_done();
    }
}

/// What formatting keeps from one row to the next.
struct RowState {
    ids: Ids,
    mode: LastMode,
    times: TimeCache,
    name: Quoted,
}

impl RowState {
    fn new(plan: &Plan, ids: Ids) -> RowState {
        RowState {
            ids,
            mode: LastMode::default(),
            times: TimeCache::new(plan),
            name: Quoted::default(),
        }
    }
}

/// Rows ahead whose entries are prefetched when printing through an order.
const PREFETCH_AHEAD: usize = 8;

/// Formats row `k` (the entry shown at position `k`) into `out`.
fn row(p: &mut Printing, st: &mut RowState, out: &mut Vec<u8>, rows: &Rows, w: &Widths, k: usize) {
    let plan = p.plan;
    if !rows.order.is_identity() && k + PREFETCH_AHEAD < rows.entries.len() {
        // Entries in sorted order lie scattered: each row's work is long
        // enough that the next rows' misses would not overlap by themselves.
        libcw::mem::prefetch(&rows.entries[rows.order.at(k + PREFETCH_AHEAD)]);
    }
    let i = rows.order.at(k);
    let e = &rows.entries[i];
    // GNU sets the normal colour before the dired indent.
    p.painter.normal(plan, out);
    if plan.dired {
        out.extend_from_slice(b"  ");
    }
    let line_start_vis = columns(out, (plan, &mut *p.users), st, e, w);
    match time_of(e, plan.time) {
        Some(t) => st.times.put(out, plan, t, p.now),
        None => pad_left(out, b"?", w.time),
    }
    out.push(b' ');
    let mut col = out.len() - line_start_vis;
    if let Some(t) = rows.tree {
        let (drawing, cols) = t.drawing(i);
        out.extend_from_slice(drawing);
        col += cols;
    }
    let link = rows.links.get(i).and_then(|l| l.as_deref());
    name_column(p, out, e, &mut st.name, rows.some_quoted, col, link);
    if let Some(n) = rows.tree.and_then(|t| t.note(i)) {
        out.extend_from_slice(b"  ");
        out.extend_from_slice(n.as_bytes());
    }
    out.push(plan.eol);
}

/// Fewest entries whose long-format measures are taken beside the sort
/// (see `Ls::order_and_measure`) on a thread started for it: below, the
/// start costs about what the overlap saves. A pool worker lent by the
/// engine costs nothing to start ([`Beside::free`]): then from
/// [`SHARE_FREE_MIN`].
pub const MEASURE_APART_MIN: usize = 16 * 1024;

/// Fewest entries whose measures, or rows, are shared with a helper that
/// needs no start: two threads' handing over costs ~0.1 ms.
pub const SHARE_FREE_MIN: usize = 4096;

/// Rows formatted at a time by either thread (about 75 KB of text).
const SPLIT_CHUNK: usize = 1024;
/// Fewest rows formatted by two threads when the second must be started
/// (see [`split_ok`]).
const SPLIT_MIN: usize = 32 * 1024;

/// Whether the rows are formatted by two threads: a listing big enough
/// that its formatting, the serial tail of a big `ls -l` once every stat is
/// in, outweighs handing work over (a thread start, ~20 syscalls, unless
/// `free`: interleaved runs, C locale, on a started thread: 100,000 rows
/// 208 -> 196 ms, but 10,000 rows 25.3 -> 27.0), on a machine with a
/// second core, and without the output state only one thread can carry
/// from row to row (colours and hyperlinks count their bytes for
/// `--dired`, which counts positions itself).
fn split_ok(plan: &Plan, rows: &Rows, free: bool) -> bool {
    rows.entries.len() >= if free { SHARE_FREE_MIN } else { SPLIT_MIN }
        && plan.colors.is_none()
        && !plan.hyperlink
        && !plan.dired
        && !plan.icons
        && ringio::sys::available_cpus() >= 2
}

/// [`print`]'s rows in chunks of [`SPLIT_CHUNK`], shared with a helper:
/// each thread claims the next chunk in turn; the helper formats its
/// chunks into buffers of its own and sends them, while this thread
/// formats its chunks straight into `sink` and, in order, copies the
/// helper's in between. The helper sends in the order it claimed, and a
/// chunk claimed is being formatted, so waiting for one ends; a helper
/// that starts late (or never) just claims fewer chunks. At most two of
/// its chunks wait at a time, so the output is still written as it is
/// formatted. Every user and group of the listing is in `p.users` after
/// the widths pass: the helper's copy asks the system nothing.
fn print_split<S: Sink>(
    p: &mut Printing,
    sink: &mut S,
    rows: &Rows,
    w: &Widths,
    st: &mut RowState,
    beside: &mut dyn Beside,
) {
    let plan = p.plan;
    let n = rows.entries.len();
    let chunks = n.div_ceil(SPLIT_CHUNK);
    let range = |c: usize| c * SPLIT_CHUNK..((c + 1) * SPLIT_CHUNK).min(n);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let claim = || next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (done_tx, done_rx) = std::sync::mpsc::sync_channel::<(usize, Vec<u8>)>(1);
    let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let (mut users, mut now) = (p.users.clone(), *p.now);
    let helper = Box::new(move || {
        let (mut painter, mut dired) = (Painter::default(), Vec::new());
        let mut hp = Printing {
            plan,
            painter: &mut painter,
            users: &mut users,
            now: &mut now,
            dired: &mut dired,
        };
        let mut hst = RowState::new(plan, Ids::default());
        loop {
            let c = claim();
            if c >= chunks {
                return;
            }
            let mut buf = spare_rx.try_recv().unwrap_or_default();
            buf.clear();
            for k in range(c) {
                row(&mut hp, &mut hst, &mut buf, rows, w, k);
            }
            if done_tx.send((c, buf)).is_err() {
                return;
            }
        }
    });
    // Chunks before `emitted` are in the sink.
    let mut emitted = 0;
    let mut main = || {
        let format_here = |c: usize, p: &mut Printing, st: &mut RowState, sink: &mut S| {
            for k in range(c) {
                row(p, st, sink.buf(), rows, w, k);
                sink.line_done();
            }
        };
        loop {
            let c = claim();
            let upto = c.min(chunks);
            // The chunks between were claimed by the helper.
            while emitted < upto {
                match done_rx.recv() {
                    Ok((k, buf)) => {
                        debug_assert_eq!(k, emitted);
                        sink.buf().extend_from_slice(&buf);
                        sink.line_done();
                        let _ = spare_tx.send(buf);
                    }
                    // The helper is gone (it panicked): its chunk is
                    // formatted here.
                    Err(_) => format_here(emitted, p, st, sink),
                }
                emitted += 1;
            }
            if c >= chunks {
                return;
            }
            format_here(c, p, st, sink);
            emitted = c + 1;
        }
    };
    beside.run(helper, &mut main);
}

/// The columns before the time: inode, blocks, mode, links, owner,
/// group, author, context, size. Returns where GNU's
/// clear-to-end-of-line rule counts the name's column from: the start of
/// the line, or, when owner, group, author or context columns are
/// printed, their end (GNU writes its line buffer out before them and
/// counts only what it holds after).
fn columns(
    out: &mut Vec<u8>,
    (plan, users): (&Plan, &mut Users),
    st: &mut RowState,
    e: &Entry,
    w: &Widths,
) -> usize {
    let ids = &mut st.ids;
    let m = e.meta.as_ref();
    let mut line_start_vis = out.len();
    if plan.inode {
        match m {
            Some(m) => pad_num(out, m.ino, w.inode),
            None => pad_left(out, b"?", w.inode),
        }
        out.push(b' ');
    }
    if plan.size_blocks {
        let t = m.map_or_else(Text::unknown, |m| size_text(plan.block_size, m.blocks * 512));
        pad_cols(out, &t, w.blocks);
        out.push(b' ');
    }
    match m {
        Some(m) => st.mode.put(out, m.mode),
        None => {
            out.push(cli::mode::dtype_letter(e.dtype));
            out.extend_from_slice(b"?????????");
        }
    }
    if w.any_acl {
        out.push(if e.acl {
            b'+'
        } else if e.labeled() {
            b'.'
        } else if m.is_none() {
            b'?'
        } else {
            b' '
        });
    }
    out.push(b' ');
    match m {
        Some(m) => pad_num(out, m.nlink, w.nlink),
        None => pad_left(out, b"?", w.nlink),
    }
    out.push(b' ');
    // The owner's text serves the author column too (GNU's author is the
    // owner on Linux).
    let owner = |out: &mut Vec<u8>, users: &mut Users, ids: &mut Ids| match m {
        Some(m) => out.extend_from_slice(ids.cell(users, m.uid, (plan.numeric, false), w.owner)),
        None => pad_id(out, b"?", w.owner, false),
    };
    if plan.show_owner {
        owner(out, users, ids);
    }
    if plan.show_group {
        match m {
            Some(m) => out.extend_from_slice(ids.cell(users, m.gid, (plan.numeric, true), w.group)),
            None => pad_id(out, b"?", w.group, false),
        }
    }
    if plan.author {
        owner(out, users, ids);
    }
    if plan.context {
        let c = context_of(e);
        out.extend_from_slice(c);
        out.resize(out.len() + w.context.saturating_sub(c.len()), b' ');
        out.push(b' ');
    }
    if plan.show_owner || plan.show_group || plan.author || plan.context {
        line_start_vis = out.len();
    }
    match m {
        Some(m) if matches!(m.file_type(), FileType::Char | FileType::Block) => {
            let blanks = w.size.saturating_sub(w.major + 2 + w.minor);
            pad_num(out, m.rdev_major as u64, w.major + blanks);
            out.extend_from_slice(b", ");
            pad_num(out, m.rdev_minor as u64, w.minor);
        }
        // Plain byte counts are digits: as many columns as bytes.
        Some(m) if plan.file_size == cli::size::SizeFormat::BYTES => pad_num(out, m.size, w.size),
        Some(m) => pad_cols(out, &size_text(plan.file_size, m.size), w.size),
        None => pad_left(out, b"?", w.size),
    }
    out.push(b' ');
    line_start_vis
}

/// The name (quoted into the reused `name`), a symlink's `-> target`,
/// and the indicator; records the name's `--dired` span. `col`: the
/// name's column as GNU counts it.
fn name_column(
    p: &mut Printing,
    out: &mut Vec<u8>,
    e: &Entry,
    name: &mut Quoted,
    align: bool,
    col: usize,
    link: Option<&[u8]>,
) {
    let plan = p.plan;
    crate::name::quote_measured(plan, &e.name, &plan.quoter, name, plan.colors.is_some());
    // The name's span as GNU's dired counts: without the colour and
    // hyperlink bytes, after the alignment space (and our icon).
    let icon = if plan.icons { crate::icons::icon(e).len() + 1 } else { 0 };
    let name_start =
        (out.len() + usize::from(align && !name.quoted) + icon) as i64 - p.painter.escapes as i64;
    let w = p.painter.name(plan, out, e, name, Spot { target: false, align, start_col: col, link });
    if plan.dired {
        p.dired.push((name_start, name_start + name.bytes.len() as i64));
    }
    if e.file_type() == FileType::Link {
        p.painter.arrow_target(plan, out, e, col + w, link);
    } else if let Some(c) = crate::name::indicator(plan, e) {
        out.push(c);
    }
}

/// The security context as `-Z` shows it: `?` when there is none.
pub fn context_of(e: &Entry) -> &[u8] {
    match e.scontext.as_deref() {
        Some(c) if e.labeled() => c,
        _ => b"?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The widths pass measures numbers; the printing pass writes them.
    #[test]
    fn digits_match_written_numbers() {
        for n in [0, 1, 9, 10, 99, 100, 4096, 999_999, 1_000_000, u64::MAX / 10, u64::MAX] {
            assert_eq!(digit_count(n), Text::num(n).len(), "{n}");
        }
    }

    /// Numbers written in place pad and spell as the texts did.
    #[test]
    fn pad_num_matches_padded_text() {
        for (n, w) in [(0, 0), (0, 3), (7, 1), (42, 5), (4096, 4), (u64::MAX, 25), (123, 2)] {
            let (mut a, mut b) = (b"x".to_vec(), b"x".to_vec());
            pad_num(&mut a, n, w);
            pad_left(&mut b, Text::num(n).bytes(), w);
            assert_eq!(a, b, "{n} in {w}");
        }
    }
}
