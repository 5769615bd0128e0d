//! One file name as ls shows it: quoted (or '?'-masked), padded when other
//! names of the listing are quoted, coloured, hyperlinked, with an icon and
//! the type indicator.

use cli::quote::Style;

use crate::args::Indicator;
use crate::colors::Key;
use crate::entry::{Entry, FileType};
use crate::plan::Plan;

/// How and where [`Painter::name`] prints a name.
#[derive(Clone, Copy, Debug, Default)]
pub struct Spot<'a> {
    /// The name is a symlink's target (`-> target`): coloured as the
    /// target, and no icon.
    pub target: bool,
    /// Other names of the listing are quoted: an unquoted name then gets
    /// GNU's leading space, and a quoted one keeps its quotes outside the
    /// hyperlink.
    pub align: bool,
    /// The output column, for GNU's clear-to-end-of-line after names that
    /// may wrap.
    pub start_col: usize,
    /// The absolute path to hyperlink the name to (--hyperlink).
    pub link: Option<&'a [u8]>,
}

/// A quoted name and its display width.
#[derive(Default)]
pub struct Quoted {
    pub bytes: Vec<u8>,
    pub width: usize,
    /// The quoting changed the name (GNU's "needs quoting").
    pub quoted: bool,
}

/// Quotes a name per the plan (GNU's quote_name_buf).
pub fn quote(plan: &Plan, name: &[u8], quoter: &cli::quote::Quoter) -> Quoted {
    let mut q = Quoted { bytes: Vec::new(), width: 0, quoted: false };
    quote_into(plan, name, quoter, &mut q);
    q
}

/// [`quote`] into `q`, reusing its buffer: printing a listing quotes each
/// name without allocating.
pub fn quote_into(plan: &Plan, name: &[u8], quoter: &cli::quote::Quoter, q: &mut Quoted) {
    quote_measured(plan, name, quoter, q, true);
}

/// [`quote_into`]; `measure`: whether `q.width` is wanted (left 0 when
/// not: only colours' line-wrap rule reads a long-format name's width,
/// and measuring decodes every character).
pub fn quote_measured(
    plan: &Plan,
    name: &[u8],
    quoter: &cli::quote::Quoter,
    q: &mut Quoted,
    measure: bool,
) {
    let bytes = &mut q.bytes;
    bytes.clear();
    quoter.quote_into(bytes, name);
    q.quoted = bytes.first() != name.first() || bytes.len() != name.len();
    let style = quoter.style;
    if plan.qmark && matches!(style, Style::Literal | Style::Shell | Style::ShellAlways) {
        q.width = cli::quote::qmark_in_place(bytes);
    } else {
        q.width = if measure { display_width(bytes) } else { 0 };
        if plan.tty_guard {
            // Beyond GNU: even --show-control-chars or --zero never send a
            // name's control bytes (ESC sequences…) to a terminal.
            tty_guard(bytes);
        }
    }
}

/// Masks control characters with `?`: the C0 bytes and DEL, and in a
/// multibyte locale also the C1 controls (U+0080–U+009F, two bytes in
/// UTF-8), which a UTF-8 terminal may act on (U+009B is CSI).
fn tty_guard(bytes: &mut Vec<u8>) {
    let mut c1 = false;
    for b in bytes.iter_mut() {
        if *b < 0x20 || *b == 0x7f {
            *b = b'?';
        }
        c1 |= *b == 0xc2;
    }
    if c1 && cli::locale::info().utf8 {
        let mut w = 0;
        let mut r = 0;
        while r < bytes.len() {
            if bytes[r] == 0xc2 && bytes.get(r + 1).is_some_and(|&n| (0x80..0xa0).contains(&n)) {
                bytes[w] = b'?';
                r += 2;
            } else {
                bytes[w] = bytes[r];
                r += 1;
            }
            w += 1;
        }
        bytes.truncate(w);
    }
}

/// Columns a quoted name takes on the terminal, in the locale's terms
/// (GNU's quote_name_width): see [`cli::quote::display_width`].
pub fn display_width(b: &[u8]) -> usize {
    cli::quote::display_width(b)
}

/// The indicator character of an entry, if any.
pub fn indicator(plan: &Plan, e: &Entry) -> Option<u8> {
    indicator_for(plan.indicator, e.file_type(), e.meta.map(|m| m.mode), e.meta.is_some())
}

/// The indicator for a type/mode (used for link targets too).
pub fn indicator_for(
    style: Indicator,
    t: FileType,
    mode: Option<u32>,
    stat_ok: bool,
) -> Option<u8> {
    if style == Indicator::None {
        return None;
    }
    let c = match t {
        FileType::Dir => b'/',
        _ if style == Indicator::Slash => return None,
        FileType::Link => b'@',
        FileType::Fifo => b'|',
        FileType::Socket => b'=',
        FileType::Regular
            if style == Indicator::Classify && stat_ok && mode.is_some_and(|m| m & 0o111 != 0) =>
        {
            b'*'
        }
        _ => return None,
    };
    Some(c)
}

/// Output state shared by everything that prints names: whether any colour
/// sequence has been written yet (GNU resets the terminal colour before the
/// first one), and the host name for hyperlinks.
#[derive(Default)]
pub struct Painter {
    pub used_color: bool,
    pub hostname: Vec<u8>,
    /// Bytes of colour and hyperlink sequences written so far. GNU's
    /// `--dired` offsets don't count them (it writes them past its
    /// position counter), so neither do ours.
    pub escapes: u64,
}

impl Painter {
    /// Writes bytes of a terminal sequence.
    fn esc(&mut self, out: &mut Vec<u8>, seq: &[u8]) {
        out.extend_from_slice(seq);
        self.escapes += seq.len() as u64;
    }

    fn put_indicator(&mut self, plan: &Plan, out: &mut Vec<u8>, seq: &[u8]) {
        if !self.used_color {
            self.used_color = true;
            self.end_color(plan, out);
        }
        self.esc(out, seq);
    }

    /// GNU's prep_non_filename_text: `ec`, or `lc rs rc`.
    fn end_color(&mut self, plan: &Plan, out: &mut Vec<u8>) {
        let Some(c) = &plan.colors else { return };
        let n = out.len();
        match c.get(Key::End) {
            Some(ec) => out.extend_from_slice(ec),
            None => {
                out.extend_from_slice(c.get(Key::Left).unwrap_or_default());
                out.extend_from_slice(c.get(Key::Reset).unwrap_or_default());
                out.extend_from_slice(c.get(Key::Right).unwrap_or_default());
            }
        }
        self.escapes += (out.len() - n) as u64;
    }

    /// At exit: restore the default colour unless lc/rc are the defaults.
    pub fn finish(&mut self, plan: &Plan, out: &mut Vec<u8>) {
        let Some(c) = &plan.colors else { return };
        if !self.used_color {
            return;
        }
        let l = c.get(Key::Left).unwrap_or_default();
        let r = c.get(Key::Right).unwrap_or_default();
        if !(l == b"\x1b[" && r == b"m") {
            let seq = [l, r].concat();
            self.esc(out, &seq);
        }
    }

    /// GNU's set_normal_color (only when `no` is coloured).
    pub fn normal(&mut self, plan: &Plan, out: &mut Vec<u8>) {
        if let Some(c) = &plan.colors {
            if c.is_colored(Key::Norm) {
                let (l, n, r) = (
                    c.get(Key::Left).unwrap_or_default().to_vec(),
                    c.get(Key::Norm).unwrap_or_default().to_vec(),
                    c.get(Key::Right).unwrap_or_default().to_vec(),
                );
                self.put_indicator(plan, out, &l);
                self.put_indicator(plan, out, &n);
                self.put_indicator(plan, out, &r);
            }
        }
    }

    /// Prints an entry's name (or its link target, see [`Spot`]) quoted
    /// as `q`, with colour and hyperlink. Returns the width printed.
    pub fn name(
        &mut self,
        plan: &Plan,
        out: &mut Vec<u8>,
        e: &Entry,
        q: &Quoted,
        spot: Spot<'_>,
    ) -> usize {
        let Spot { target, align, start_col, link } = spot;
        let pad = align && !q.quoted;
        if pad {
            out.push(b' ');
        }
        let used = match &plan.colors {
            Some(c) => self.start_color(plan, out, c, e, target),
            None => false,
        };
        if plan.icons && !target {
            out.extend_from_slice(crate::icons::icon(e).as_bytes());
            out.push(b' ');
        }
        match link {
            Some(path) => self.hyperlinked(out, q, path, align),
            None => out.extend_from_slice(&q.bytes),
        }
        let len = q.bytes.len();
        if used {
            self.end_color(plan, out);
            if plan.width > 0
                && len > 0
                && start_col / plan.width != (start_col + len - 1) / plan.width
            {
                if let Some(cl) = plan.colors.as_ref().and_then(|c| c.get(Key::ClrToEol)) {
                    let cl = cl.to_vec();
                    self.esc(out, &cl);
                }
            }
        }
        q.width + usize::from(pad) + if plan.icons && !target { 2 } else { 0 }
    }

    /// A symlink's ` -> target` after its name (which ends at column
    /// `col`), coloured as the target and marked as `-F` marks it; nothing
    /// when the target was not read.
    pub fn arrow_target(
        &mut self,
        plan: &Plan,
        out: &mut Vec<u8>,
        e: &Entry,
        col: usize,
        link: Option<&[u8]>,
    ) {
        let Some(t) = &e.target else { return };
        out.extend_from_slice(b" -> ");
        let tq = quote(plan, t, &plan.quoter);
        let spot = Spot { target: true, align: false, start_col: col + 4, link };
        self.name(plan, out, e, &tq, spot);
        let target_type = e.target_mode.map_or(FileType::Unknown, FileType::from_mode);
        if let Some(c) = indicator_for(plan.indicator, target_type, e.target_mode, true) {
            out.push(c);
        }
    }

    /// The colour sequences before a name; whether its colour is to be
    /// ended after it (it has one, or `no` is coloured).
    fn start_color(
        &mut self,
        plan: &Plan,
        out: &mut Vec<u8>,
        c: &crate::colors::Colors,
        e: &Entry,
        target: bool,
    ) -> bool {
        let norm = c.is_colored(Key::Norm);
        let Some(seq) = c.for_entry(e, target).map(|s| s.to_vec()) else { return norm };
        let l = c.get(Key::Left).unwrap_or_default().to_vec();
        let r = c.get(Key::Right).unwrap_or_default().to_vec();
        if norm {
            self.put_indicator(plan, out, &l);
            self.put_indicator(plan, out, &r);
        }
        self.put_indicator(plan, out, &l);
        self.put_indicator(plan, out, &seq);
        self.put_indicator(plan, out, &r);
        true
    }

    /// A quoted name wrapped in a hyperlink to `path` (OSC 8); an aligned
    /// quoted name keeps its quotes outside the link.
    fn hyperlinked(&mut self, out: &mut Vec<u8>, q: &Quoted, path: &[u8], align: bool) {
        let mut body: &[u8] = &q.bytes;
        let skip_quotes = align && q.quoted && body.len() >= 2;
        if skip_quotes {
            out.push(body[0]);
            body = &body[1..body.len() - 1];
        }
        let n = out.len();
        out.extend_from_slice(b"\x1b]8;;file://");
        out.extend_from_slice(&self.hostname);
        if path.first() != Some(&b'/') {
            out.push(b'/');
        }
        for &b in path {
            if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
                out.push(b);
            } else {
                out.extend_from_slice(format!("%{b:02x}").as_bytes());
            }
        }
        out.push(0x07);
        self.escapes += (out.len() - n) as u64;
        out.extend_from_slice(body);
        self.esc(out, b"\x1b]8;;\x07");
        if skip_quotes {
            out.push(q.bytes[q.bytes.len() - 1]);
        }
    }
}
