//! The print phase: formats gathered entries into the output buffer.
//! Pure formatting (plus user-name lookups through the cache), so every
//! layout is unit-testable without a file system.

use cli::timefmt::Timestamp;
use cli::users::Users;

use crate::args::{Format, Indicator};
use crate::columns::{fit, indent};
use crate::entry::Entry;
use crate::name::{indicator, quote, quote_into, Painter, Quoted, Spot};
use crate::plan::Plan;
use crate::sort::Order;

pub struct Printer<'a> {
    pub plan: &'a Plan,
    pub users: Users,
    pub now: Timestamp,
    pub painter: Painter,
    /// `--dired`: (start, end) of each name printed, as positions in the
    /// buffer less every colour/hyperlink byte written before (see
    /// [`Painter::escapes`]), relative to the
    /// output buffer; the caller turns them into stream offsets.
    pub dired: Vec<(i64, i64)>,
    /// `--dired`: the same for directory headers.
    pub subdired: Vec<(i64, i64)>,
    /// `--tree`: the branch drawing and note of each entry printed next.
    pub tree: Option<TreeRows>,
}

/// `--tree`'s rows, alongside the entries printed: each entry's branch
/// lines (`│   ├── `), drawn before its name, and a note after it.
#[derive(Debug, Default)]
pub struct TreeRows {
    /// The drawings one after another: row i's ends at `ends[i]`.
    text: Vec<u8>,
    ends: Vec<usize>,
    /// Each drawing's pieces (four columns each, whatever the locale
    /// makes of their bytes).
    levels: Vec<u16>,
    notes: Vec<Option<&'static str>>,
}

/// The columns one piece of a tree drawing takes.
const TREE_PIECE_COLS: usize = 4;

impl TreeRows {
    /// A row drawn with `levels` of the pieces below ([`TREE_BRANCH`]…).
    pub fn push(&mut self, drawing: &[u8], levels: usize) {
        self.text.extend_from_slice(drawing);
        self.ends.push(self.text.len());
        self.levels.push(levels as u16);
        self.notes.push(None);
    }

    /// Row `i`'s drawing and its width in columns.
    pub fn drawing(&self, i: usize) -> (&[u8], usize) {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        (&self.text[start..self.ends[i]], self.levels[i] as usize * TREE_PIECE_COLS)
    }

    pub fn note(&self, i: usize) -> Option<&'static str> {
        self.notes.get(i).copied().flatten()
    }

    pub fn set_note(&mut self, i: usize, note: &'static str) {
        self.notes[i] = Some(note);
    }
}

/// The pieces of a tree drawing: the branch to an entry that has later
/// siblings or is the last, and what continues below each level.
pub const TREE_BRANCH: &str = "├── ";
pub const TREE_LAST: &str = "└── ";
pub const TREE_DOWN: &str = "│   ";
pub const TREE_BLANK: &str = "    ";

impl<'a> Printer<'a> {
    pub fn new(plan: &'a Plan, users: Users, now: Timestamp) -> Printer<'a> {
        Printer {
            plan,
            users,
            now,
            painter: Painter::default(),
            dired: Vec::new(),
            subdired: Vec::new(),
            tree: None,
        }
    }

    /// The `total N` line of a directory listing.
    pub fn total(&mut self, out: &mut Vec<u8>, entries: &[Entry]) {
        let blocks: u64 = entries.iter().filter_map(|e| e.meta.map(|m| m.blocks)).sum();
        self.total_blocks(out, blocks);
    }

    /// The `total N` line for `blocks` 512-byte blocks.
    pub fn total_blocks(&mut self, out: &mut Vec<u8>, blocks: u64) {
        if self.plan.dired {
            out.extend_from_slice(b"  ");
        }
        // Looked up once: -lR prints it per directory.
        static TOTAL: std::sync::OnceLock<&'static [u8]> = std::sync::OnceLock::new();
        out.extend_from_slice(TOTAL.get_or_init(|| cli::locale::tr(c"total")));
        out.push(b' ');
        self.plan.block_size.format_into(out, blocks * 512);
        out.push(self.plan.eol);
    }

    /// A directory header (`dir:`), preceded by a blank line unless first.
    pub fn header(&mut self, out: &mut Vec<u8>, name: &[u8], first: bool, link: Option<&[u8]>) {
        // Headers and the blank lines between directories end in '\n'
        // even with --zero, as GNU's do.
        if !first {
            out.push(b'\n');
        }
        let q = quote(self.plan, name, &self.plan.dir_quoter);
        if self.plan.dired {
            out.extend_from_slice(b"  ");
            let at = out.len() as i64 - self.painter.escapes as i64;
            self.subdired.push((at, at + q.bytes.len() as i64));
        }
        match link {
            Some(path) => {
                let e = Entry::new(name, 0, 0);
                let mut p = Painter {
                    used_color: true,
                    hostname: self.painter.hostname.clone(),
                    escapes: 0,
                };
                // Headers are never coloured; only the hyperlink wraps them.
                let plan_nc = Plan { colors: None, ..self.plan.clone() };
                p.name(&plan_nc, out, &e, &q, Spot { link: Some(path), ..Spot::default() });
                self.painter.escapes += p.escapes;
            }
            None => out.extend_from_slice(&q.bytes),
        }
        out.push(b':');
        out.push(b'\n');
    }

    /// Prints a sorted listing in the plan's format. `links[i]` is the
    /// absolute path for --hyperlink (`links` is empty without it).
    /// `extra` are entries not printed here that still count for column
    /// widths (GNU sizes the command-line file list with the directory
    /// operands included).
    ///
    /// Nothing per entry is kept beyond the listing itself (a width each
    /// for the column layouts): names are quoted into one reused buffer as
    /// they are measured and again as they are printed, and `out` may write
    /// out complete lines as it fills, so a million-entry listing costs
    /// about what GNU's does.
    pub fn entries<S: Sink>(
        &mut self,
        out: &mut S,
        entries: &[Entry],
        links: &[Option<Vec<u8>>],
        extra: &[Entry],
    ) {
        let beside = &mut crate::beside::OwnThread;
        self.entries_in(out, entries, &Order::identity(), links, extra, None, beside);
    }

    /// [`Printer::entries`], shown in `order` (`links` runs alongside
    /// `entries`). Only the long format takes an order other than the
    /// identity: the other layouts index the entries as shown. `measured`:
    /// the long format's [`crate::long::measure`] of these entries, when
    /// taken already. A big long listing's rows are shared with `beside`.
    #[allow(clippy::too_many_arguments)]
    pub fn entries_in<S: Sink>(
        &mut self,
        out: &mut S,
        entries: &[Entry],
        order: &Order,
        links: &[Option<Vec<u8>>],
        extra: &[Entry],
        measured: Option<crate::long::Measured>,
        beside: &mut dyn crate::beside::Beside,
    ) {
        let plan = self.plan;
        debug_assert!(plan.format == Format::Long || order.is_identity());
        let mut s = Scratch::default();
        let some_quoted = aligns_quotes(plan)
            && entries.iter().chain(extra).any(|e| {
                quote_into(plan, &e.name, &plan.quoter, &mut s.q);
                s.q.quoted
            });
        if plan.format == Format::Long {
            crate::long::print(
                &mut crate::long::Printing {
                    plan,
                    painter: &mut self.painter,
                    users: &mut self.users,
                    now: &mut self.now,
                    dired: &mut self.dired,
                },
                out,
                &crate::long::Rows {
                    entries,
                    order,
                    links,
                    extra,
                    some_quoted,
                    tree: self.tree.as_ref(),
                },
                measured,
                beside,
            );
            return;
        }
        let mut cells = Cells::new(plan, entries, links, extra, some_quoted, &mut s);
        cells.tree = self.tree.as_ref();
        let painter = &mut self.painter;
        match plan.format {
            Format::OnePerLine => cells.one_per_line(painter, out, &mut s),
            // -m, and -C/-x with no width limit: GNU's separator layout.
            Format::Commas | Format::Columns | Format::Across
                if plan.format == Format::Commas || plan.width == 0 =>
            {
                cells.separated(painter, out, &mut s)
            }
            Format::Columns => cells.down_columns(painter, out, &mut s),
            Format::Across => cells.across(painter, out, &mut s),
            Format::Long | Format::Commas => unreachable!("handled above"),
        }
    }
}

/// Buffers reused from cell to cell: the quoted name and a number's text.
#[derive(Default)]
struct Scratch {
    q: Quoted,
    num: Vec<u8>,
}

/// A short-format listing (every format but -l), laid out in cells: a
/// name with its frills (inode, blocks, context, icon, indicator), their
/// column widths taken over the whole listing.
struct Cells<'a> {
    plan: &'a Plan,
    entries: &'a [Entry],
    links: &'a [Option<Vec<u8>>],
    /// Some name is quoted: unquoted ones get a space to align (GNU's
    /// align_variable_outer_quotes).
    some_quoted: bool,
    commas: bool,
    w_inode: usize,
    w_blocks: usize,
    w_context: usize,
    /// `--tree`: each entry's drawing, and `-> target` after links.
    tree: Option<&'a TreeRows>,
}

fn inode_text(e: &Entry, v: &mut Vec<u8>) {
    v.clear();
    match e.meta {
        Some(m) => v.extend_from_slice(m.ino.to_string().as_bytes()),
        None => v.push(b'?'),
    }
}

fn blocks_text(plan: &Plan, e: &Entry, v: &mut Vec<u8>) {
    v.clear();
    match e.meta {
        Some(m) => plan.block_size.format_into(v, m.blocks * 512),
        None => v.push(b'?'),
    }
}

impl<'a> Cells<'a> {
    fn new(
        plan: &'a Plan,
        entries: &'a [Entry],
        links: &'a [Option<Vec<u8>>],
        extra: &[Entry],
        some_quoted: bool,
        s: &mut Scratch,
    ) -> Cells<'a> {
        let commas = plan.format == Format::Commas;
        let mut w_inode = 0;
        let mut w_blocks = 0;
        // -Z: contexts right-aligned to the widest (none in -m).
        let w_context = if plan.context && !commas {
            entries.iter().chain(extra).map(|e| crate::long::context_of(e).len()).max().unwrap_or(1)
        } else {
            0
        };
        if !commas && (plan.inode || plan.size_blocks) {
            // Directory operands count too, as in GNU, whose widths grow as
            // each command-line argument is stat'ed, before the directories
            // are set aside.
            for e in entries.iter().chain(extra) {
                if plan.inode {
                    inode_text(e, &mut s.num);
                    w_inode = w_inode.max(s.num.len());
                }
                if plan.size_blocks {
                    blocks_text(plan, e, &mut s.num);
                    // Measured in columns but padded in bytes below, as
                    // GNU's printf("%*s") pads (they differ only for a
                    // multibyte thousands separator).
                    w_blocks = w_blocks.max(cli::size::columns(&s.num));
                }
            }
        }
        Cells {
            plan,
            entries,
            links,
            some_quoted,
            commas,
            w_inode,
            w_blocks,
            w_context,
            tree: None,
        }
    }

    /// The display width of entry `e` (its name quoted into `s.q`).
    fn measure(&self, e: &Entry, s: &mut Scratch) -> usize {
        let plan = self.plan;
        quote_into(plan, &e.name, &plan.quoter, &mut s.q);
        let mut w = s.q.width + usize::from(self.some_quoted && !s.q.quoted);
        if plan.icons {
            w += 2;
        }
        if plan.inode {
            inode_text(e, &mut s.num);
            w += 1 + if self.commas { s.num.len() } else { self.w_inode };
        }
        if plan.size_blocks {
            blocks_text(plan, e, &mut s.num);
            w += 1 + if self.commas { s.num.len() } else { self.w_blocks };
        }
        if plan.context {
            w += 1 + self.w_context.max(crate::long::context_of(e).len());
        }
        if plan.indicator != Indicator::None && indicator(plan, e).is_some() {
            w += 1;
        }
        w
    }

    /// Prints entry `i` at column `pos`; returns its width.
    fn draw(
        &self,
        painter: &mut Painter,
        out: &mut Vec<u8>,
        i: usize,
        pos: usize,
        s: &mut Scratch,
    ) -> usize {
        let plan = self.plan;
        let e = &self.entries[i];
        let w = self.measure(e, s);
        painter.normal(plan, out);
        let pad_left = |out: &mut Vec<u8>, s: &[u8], w: usize| {
            out.resize(out.len() + w.saturating_sub(s.len()), b' ');
            out.extend_from_slice(s);
            out.push(b' ');
        };
        let mut col = pos;
        if plan.inode {
            inode_text(e, &mut s.num);
            pad_left(out, &s.num, self.w_inode);
            col += 1 + self.w_inode.max(s.num.len());
        }
        if plan.size_blocks {
            blocks_text(plan, e, &mut s.num);
            pad_left(out, &s.num, self.w_blocks);
            col += 1 + self.w_blocks.max(s.num.len());
        }
        if plan.context {
            let c = crate::long::context_of(e);
            out.resize(out.len() + self.w_context.saturating_sub(c.len()), b' ');
            out.extend_from_slice(c);
            out.push(b' ');
            col += 1 + self.w_context.max(c.len());
        }
        if let Some(t) = self.tree {
            let (drawing, cols) = t.drawing(i);
            out.extend_from_slice(drawing);
            col += cols;
        }
        let link = self.links.get(i).and_then(|l| l.as_deref());
        let spot = Spot { target: false, align: self.some_quoted, start_col: col, link };
        let named = painter.name(plan, out, e, &s.q, spot);
        match self.tree {
            // A tree shows where each link leads, as tree(1) and eza do.
            Some(t) => {
                if e.file_type() == crate::entry::FileType::Link {
                    painter.arrow_target(plan, out, e, col + named, link);
                } else if let Some(c) = indicator(plan, e) {
                    out.push(c);
                }
                if let Some(n) = t.note(i) {
                    out.push(b' ');
                    out.push(b' ');
                    out.extend_from_slice(n.as_bytes());
                }
            }
            None => {
                if let Some(c) = indicator(plan, e) {
                    out.push(c);
                }
            }
        }
        w
    }

    /// `-1`: one entry a line.
    fn one_per_line<S: Sink>(&self, painter: &mut Painter, out: &mut S, s: &mut Scratch) {
        for i in 0..self.entries.len() {
            self.draw(painter, out.buf(), i, 0, s);
            out.buf().push(self.plan.eol);
            out.line_done();
        }
    }

    /// `-m`, and `-C`/`-x` with no width limit: entries joined by `, ` or
    /// two spaces, a line broken before an entry that would reach the
    /// width.
    fn separated<S: Sink>(&self, painter: &mut Painter, out: &mut S, s: &mut Scratch) {
        let plan = self.plan;
        let sep_byte = if plan.format == Format::Commas { b',' } else { b' ' };
        let line = plan.width;
        let mut pos = 0usize;
        for (i, e) in self.entries.iter().enumerate() {
            if i != 0 {
                let len = if line > 0 { self.measure(e, s) } else { 0 };
                let sep;
                if line == 0 || pos + 2 + len < line {
                    pos += 2;
                    sep = b' ';
                } else {
                    pos = 0;
                    sep = plan.eol;
                }
                out.buf().push(sep_byte);
                out.buf().push(sep);
                if sep == plan.eol {
                    out.line_done();
                }
            }
            pos += self.draw(painter, out.buf(), i, pos, s);
        }
        if !self.entries.is_empty() {
            out.buf().push(plan.eol);
            out.line_done();
        }
    }

    /// The column widths that fit the line, entries running down (`-C`)
    /// or across (`-x`); None when there is nothing to print.
    fn fit(&self, down: bool, s: &mut Scratch) -> Option<Vec<usize>> {
        if self.entries.is_empty() {
            return None;
        }
        let widths: Vec<usize> = self.entries.iter().map(|e| self.measure(e, s)).collect();
        Some(fit(&widths, self.plan.width, down))
    }

    /// `-C`: entries run down the columns.
    fn down_columns<S: Sink>(&self, painter: &mut Painter, out: &mut S, s: &mut Scratch) {
        let Some(cols) = self.fit(true, s) else { return };
        let (n, ncols) = (self.entries.len(), cols.len());
        let rows = n.div_ceil(ncols);
        for row in 0..rows {
            let mut col = 0;
            let mut k = row;
            let mut pos = 0;
            loop {
                let w = self.draw(painter, out.buf(), k, pos, s);
                let max = cols[col];
                col += 1;
                k += rows;
                if k >= n {
                    break;
                }
                indent(out.buf(), pos + w, pos + max, self.plan.tabsize);
                pos += max;
            }
            out.buf().push(self.plan.eol);
            out.line_done();
        }
    }

    /// `-x`: entries run across the rows.
    fn across<S: Sink>(&self, painter: &mut Painter, out: &mut S, s: &mut Scratch) {
        let Some(cols) = self.fit(false, s) else { return };
        let (n, ncols) = (self.entries.len(), cols.len());
        let mut pos = 0;
        let mut w = self.draw(painter, out.buf(), 0, 0, s);
        let mut max = cols[0];
        for k in 1..n {
            let col = k % ncols;
            if col == 0 {
                out.buf().push(self.plan.eol);
                out.line_done();
                pos = 0;
            } else {
                indent(out.buf(), pos + w, pos + max, self.plan.tabsize);
                pos += max;
            }
            w = self.draw(painter, out.buf(), k, pos, s);
            max = cols[col];
        }
        out.buf().push(self.plan.eol);
        out.line_done();
    }
}

/// Where a listing is printed: a plain buffer (tests), or the tool's
/// output ([`Flushing`]), which writes out whole lines as its buffer fills.
pub trait Sink {
    fn buf(&mut self) -> &mut Vec<u8>;
    /// A line is complete: what is buffered may be written out.
    fn line_done(&mut self) {}
}

impl Sink for Vec<u8> {
    fn buf(&mut self) -> &mut Vec<u8> {
        self
    }
}

/// The tool's output, flushed between lines — except with `--dired`,
/// whose marks are offsets into the buffer until the caller converts them.
pub struct Flushing<'o> {
    pub out: &'o mut cli::Out,
    pub flush: bool,
}

impl Sink for Flushing<'_> {
    fn buf(&mut self) -> &mut Vec<u8> {
        self.out.buf()
    }

    fn line_done(&mut self) {
        if self.flush {
            self.out.maybe_flush();
        }
    }
}

/// Whether names that need no quotes get a space where others have their
/// opening quote (GNU's alignment of shell/c-maybe quoted names, in long
/// format and in columns of a known width), when any name of the listing
/// is quoted.
pub fn aligns_quotes(plan: &Plan) -> bool {
    matches!(
        plan.quoter.style,
        cli::quote::Style::Shell | cli::quote::Style::ShellEscape | cli::quote::Style::CMaybe
    ) && (plan.format == Format::Long
        || (matches!(plan.format, Format::Columns | Format::Across) && plan.width > 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::parse;
    use crate::entry::Meta;
    use crate::plan::Env;

    fn plan(args: &[&str]) -> Plan {
        let a = parse(args.iter().map(std::ffi::OsString::from)).unwrap();
        Plan::new(&a, &Env::default()).unwrap().0
    }

    fn file(name: &str, mode: u32, size: u64, mtime: i64) -> Entry {
        let mut e = Entry::new(name.as_bytes(), 0, 0);
        e.meta = Some(
            Meta {
                mode,
                nlink: 1,
                uid: 0,
                gid: 0,
                size,
                blocks: size.div_ceil(4096) * 8,
                ..Meta::default()
            }
            .with_times(
                Timestamp::default(),
                Timestamp::new(mtime, 0),
                Timestamp::default(),
                None,
            ),
        );
        e
    }

    fn render(p: &Plan, entries: &[Entry]) -> String {
        let users = Users::without_nss(b"root:x:0:0::/:/bin/sh\n", b"root:x:0:\n");
        // "Now" is 2024-03-01; times below are in UTC (TZ is unset in tests
        // only if the environment says so, so use full-iso-free formats).
        let mut pr = Printer::new(p, users, Timestamp::new(1_709_251_200, 0));
        let mut out = Vec::new();
        let links = vec![None; entries.len()];
        pr.entries(&mut out, entries, &links, &[]);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn long_format_aligns_columns() {
        std::env::set_var("TZ", "UTC");
        libcw::time::tzset();
        let p = plan(&["-l", "--time-style=long-iso"]);
        let entries = [
            file("a", libc::S_IFREG | 0o644, 5, 1_709_000_000),
            file("big", libc::S_IFREG | 0o4755, 123_456, 1_709_000_000),
            file("d", libc::S_IFDIR | 0o1777, 4096, 1_600_000_000),
        ];
        assert_eq!(
            render(&p, &entries),
            "-rw-r--r-- 1 root root      5 2024-02-27 02:13 a\n\
             -rwsr-xr-x 1 root root 123456 2024-02-27 02:13 big\n\
             drwxrwxrwt 1 root root   4096 2020-09-13 12:26 d\n"
        );
        let p = plan(&["-lgh", "--time-style=+%Y"]);
        assert_eq!(
            render(&p, &entries[..2]),
            "-rw-r--r-- 1 root    5 2024 a\n-rwsr-xr-x 1 root 121K 2024 big\n"
        );
    }

    #[test]
    fn columns_and_commas() {
        let names = ["one", "two", "three", "four", "five", "six", "seven"];
        let entries: Vec<Entry> =
            names.iter().map(|n| Entry::new(n.as_bytes(), ringio::dtype::REG, 1)).collect();
        let p = plan(&["-C", "-w", "20", "-U"]);
        assert_eq!(render(&p, &entries), "one    four  seven\ntwo    five\nthree  six\n");
        let p = plan(&["-x", "-w", "20", "-U"]);
        assert_eq!(render(&p, &entries), "one    two   three\nfour   five  six\nseven\n");
        let p = plan(&["-m", "-w", "20", "-U"]);
        assert_eq!(render(&p, &entries), "one, two, three,\nfour, five, six,\nseven\n");
        // Checked against GNU ls: tab stops every 4 columns.
        let p = plan(&["-C", "-w", "30", "-T", "4"]);
        let mut sorted = entries.clone();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(render(&p, &sorted), "five  one\t six\ttwo\nfour  seven  three\n");
    }

    #[test]
    fn quoting_padding_and_indicators() {
        let mut d = Entry::new(b"a dir", ringio::dtype::DIR, 1);
        d.meta = None;
        let f = Entry::new(b"plain", ringio::dtype::REG, 2);
        let p = plan(&["-x", "-w", "80", "--quoting-style=shell", "-p"]);
        assert_eq!(render(&p, &[d.clone(), f.clone()]), "'a dir'/   plain\n");
        // -i numbers come from stat; an entry whose stat failed shows '?'.
        let p = plan(&["-1", "-b", "-i"]);
        let mut f = f;
        f.meta = Some(Meta { mode: libc::S_IFREG | 0o644, ino: 77, ..Meta::default() });
        assert_eq!(render(&p, &[d, f]), " ? a\\ dir\n77 plain\n");
    }
}
