//! The formatting state machine behind -b -E -n -s -T -v: pure, no I/O.
//!
//! Input arrives in chunks of any size (a line may span many chunks, a chunk
//! many files); [`Formatter::feed`] appends the formatted bytes to an output
//! vector. All state that GNU cat carries across file boundaries lives here:
//! the line number, whether the next byte starts a line, and whether the
//! previous line was empty (for -s).
//!
//! Semantics (GNU cat 9.1, checked by the differential tests):
//! - a line is the bytes up to and including `\n`; an *empty* line is a lone
//!   `\n` (a line holding only `\r` or spaces is not empty);
//! - -s drops an empty line that follows an empty line; the start of input
//!   counts as the start of a line, so leading empty lines shrink to one;
//! - -n numbers every output line, -b only non-empty ones (and wins over -n);
//!   the number is written when the line's first byte arrives, so input that
//!   ends with `\n` gets no dangling number; numbers are right-aligned in 6
//!   columns (wider once they need more digits) and followed by a TAB;
//! - -E writes `$` before each `\n`, and a `\r` right before a `\n` (even
//!   across chunks and files) as `^M`, as GNU 9.x does; a `\r` at the end
//!   of a chunk is therefore held back until the next byte is known;
//! - -T writes TAB as `^I`;
//! - -v writes bytes 0–31 (except TAB and `\n`) as `^@`…`^_`, 127 as `^?`,
//!   and bytes ≥ 128 as `M-` followed by the notation of the low 7 bits.

/// Which transformations are on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FormatOpts {
    /// -n: number all lines.
    pub number: bool,
    /// -b: number non-empty lines (overrides -n).
    pub number_nonblank: bool,
    /// -E: `$` at the end of each line.
    pub show_ends: bool,
    /// -T: TAB as `^I`.
    pub show_tabs: bool,
    /// -v: `^` and `M-` notation for control and high bytes.
    pub show_nonprinting: bool,
    /// -s: squeeze runs of empty lines into one.
    pub squeeze_blank: bool,
}

impl FormatOpts {
    /// Whether any option changes the bytes: if not, cat copies verbatim.
    pub fn any(&self) -> bool {
        self.number
            || self.number_nonblank
            || self.show_ends
            || self.show_tabs
            || self.show_nonprinting
            || self.squeeze_blank
    }
}

/// The line-number prefix (`     1\t`), kept as ASCII digits and
/// incremented in place, so numbering costs no integer formatting per line.
#[derive(Clone, Debug)]
struct LineNumber {
    /// Right-aligned digits, then a TAB in the last byte.
    buf: [u8; 24],
    /// Where the prefix starts: 6 columns before the TAB, or earlier once the
    /// number has more digits.
    start: usize,
}

impl LineNumber {
    const TAB: usize = 23;

    fn new() -> LineNumber {
        let mut buf = [b' '; 24];
        buf[Self::TAB] = b'\t';
        buf[Self::TAB - 1] = b'0';
        LineNumber { buf, start: Self::TAB - 6 }
    }

    /// Adds one and returns the new prefix.
    fn next(&mut self) -> &[u8] {
        let mut i = Self::TAB - 1;
        loop {
            match self.buf[i] {
                b'9' => {
                    self.buf[i] = b'0';
                    if i == 0 {
                        // 10^23 lines: not reachable; keep the low digits.
                        break;
                    }
                    i -= 1;
                }
                b' ' => {
                    self.buf[i] = b'1';
                    break;
                }
                d => {
                    self.buf[i] = d + 1;
                    break;
                }
            }
        }
        self.start = self.start.min(i);
        &self.buf[self.start..]
    }

    /// Adds one and appends the new prefix to `out`.
    #[inline(always)]
    fn push_next(&mut self, out: &mut Vec<u8>) {
        let last = &mut self.buf[Self::TAB - 1];
        if (b'0'..=b'8').contains(last) {
            // Nine times in ten: no carry.
            *last += 1;
        } else {
            self.next();
        }
        if self.start == Self::TAB - 6 {
            // 6 columns + TAB: a fixed-size copy, two moves, no call.
            let p: &[u8; 7] = self.buf[Self::TAB - 6..].try_into().unwrap_or(&[b' '; 7]);
            out.extend_from_slice(p);
        } else {
            out.extend_from_slice(&self.buf[self.start..]);
        }
    }
}

/// How -v (and -T) render one byte: up to 4 bytes (`M-^X`).
#[derive(Clone, Copy)]
struct Glyph {
    bytes: [u8; 4],
    len: u8,
}

const fn glyph_of(b: u8, show_tabs: bool, show_nonprinting: bool) -> Glyph {
    let mut g = Glyph { bytes: [b, 0, 0, 0], len: 1 };
    if b == b'\t' {
        if show_tabs {
            g = Glyph { bytes: [b'^', b'I', 0, 0], len: 2 };
        }
        return g;
    }
    if b == b'\n' || !show_nonprinting {
        return g;
    }
    let (high, low) = (b >= 128, b & 0x7f);
    let mut out = [0u8; 4];
    let mut n = 0;
    if high {
        out[0] = b'M';
        out[1] = b'-';
        n = 2;
    }
    if low < 32 {
        out[n] = b'^';
        out[n + 1] = low + 64;
        n += 2;
    } else if low == 127 {
        out[n] = b'^';
        out[n + 1] = b'?';
        n += 2;
    } else {
        out[n] = low;
        n += 1;
    }
    Glyph { bytes: out, len: n as u8 }
}

/// The rendering of every byte value for one option set.
struct Table {
    glyphs: [Glyph; 256],
}

/// Whether -v leaves byte `b` as it is: printable ASCII, `\n`, and TAB
/// unless -T (must agree with [`glyph_of`]; a unit test checks).
#[inline(always)]
fn plain_under_v(b: u8, tab_plain: bool) -> bool {
    (0x20..0x7f).contains(&b) || b == b'\n' || (tab_plain && b == b'\t')
}

impl Table {
    fn new(show_tabs: bool, show_nonprinting: bool) -> Table {
        let mut glyphs = [Glyph { bytes: [0; 4], len: 1 }; 256];
        for b in 0..=255u8 {
            glyphs[b as usize] = glyph_of(b, show_tabs, show_nonprinting);
        }
        Table { glyphs }
    }
}

/// The formatter: options plus the state carried from one chunk (and one
/// file) to the next.
pub struct Formatter {
    opts: FormatOpts,
    number_all: bool,
    numbering: bool,
    /// Every line boundary matters (numbers, `$`, squeezing); otherwise the
    /// input is a stream of bytes to render.
    line_oriented: bool,
    table: Option<Box<Table>>,
    line: LineNumber,
    /// The next byte starts a line.
    at_line_start: bool,
    /// The last line seen (output or squeezed) was empty.
    prev_empty: bool,
    /// -E without -v: a `\r` right before `\n` shows as `^M`.
    cr_mode: bool,
    /// A `\r` ended the last chunk and is not written yet.
    pending_cr: bool,
    /// -v with line handling: lines are checked against `dirty` (one bit
    /// per 32-byte block of the current chunk holding a byte -v rewrites),
    /// so a clean line is copied without a byte-level look.
    use_dirty: bool,
    dirty: Vec<u64>,
}

impl Formatter {
    pub fn new(opts: FormatOpts) -> Formatter {
        let numbering = opts.number || opts.number_nonblank;
        let transforms = opts.show_tabs || opts.show_nonprinting;
        Formatter {
            opts,
            number_all: opts.number && !opts.number_nonblank,
            numbering,
            line_oriented: numbering || opts.show_ends || opts.squeeze_blank,
            table: transforms.then(|| Box::new(Table::new(opts.show_tabs, opts.show_nonprinting))),
            line: LineNumber::new(),
            at_line_start: true,
            prev_empty: false,
            cr_mode: opts.show_ends && !opts.show_nonprinting,
            pending_cr: false,
            use_dirty: opts.show_nonprinting && (numbering || opts.show_ends || opts.squeeze_blank),
            dirty: Vec::new(),
        }
    }

    /// Ends the input: writes a `\r` still held back.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.pending_cr {
            self.pending_cr = false;
            out.push(b'\r');
        }
    }

    /// Formats `input` (the next bytes of the concatenated input) onto `out`.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) {
        if !self.line_oriented {
            self.render(input, out);
            return;
        }
        let mut rest = input;
        if self.pending_cr {
            let Some(&first) = rest.first() else { return };
            self.pending_cr = false;
            if first == b'\n' {
                out.extend_from_slice(b"^M$\n");
                self.at_line_start = true;
                rest = &rest[1..];
            } else {
                out.push(b'\r');
            }
        }
        // One vectorised scan over the chunk yields every line end; most
        // lines are short, so a memchr call per line would cost more.
        if self.use_dirty {
            self.mark_dirty(rest);
        }
        let mut start = 0;
        while let Some(nl) = find_newline(rest, start) {
            self.line(rest, start, nl, out);
            start = nl + 1;
        }
        if start < rest.len() {
            self.partial_line(&rest[start..], out);
        }
    }

    /// Sets a bit in `dirty` for each 32-byte block of `chunk` with a byte
    /// that -v rewrites.
    fn mark_dirty(&mut self, chunk: &[u8]) {
        let tab_plain = !self.opts.show_tabs;
        self.dirty.clear();
        self.dirty.resize(chunk.len().div_ceil(32).div_ceil(64), 0);
        let mut blocks = chunk.chunks_exact(32);
        for (i, block) in (&mut blocks).enumerate() {
            if !block32_plain(block.try_into().unwrap_or(&[0; 32]), tab_plain) {
                self.dirty[i / 64] |= 1 << (i % 64);
            }
        }
        let i = chunk.len() / 32;
        if !block_plain(blocks.remainder(), tab_plain) {
            self.dirty[i / 64] |= 1 << (i % 64);
        }
    }

    /// Whether `chunk[from..to]` holds no byte that -v rewrites.
    #[inline]
    fn clean(&self, from: usize, to: usize) -> bool {
        if from == to {
            return true;
        }
        let (b0, b1) = (from / 32, (to - 1) / 32);
        if b0 / 64 == b1 / 64 {
            // One word of the bitmap (2 KiB of input) covers the line.
            let mask = (u64::MAX << (b0 % 64)) & (u64::MAX >> (63 - b1 % 64));
            return self.dirty[b0 / 64] & mask == 0;
        }
        (b0..=b1).all(|b| self.dirty[b / 64] & (1 << (b % 64)) == 0)
    }

    /// The rest of a line, `chunk[start..=nl]`, `\n` included (the line may
    /// have begun in an earlier chunk).
    #[inline]
    fn line(&mut self, chunk: &[u8], start: usize, nl: usize, out: &mut Vec<u8>) {
        let with_nl = &chunk[start..=nl];
        if self.at_line_start {
            if with_nl.len() == 1 {
                self.empty_line(out);
                return;
            }
            if self.numbering {
                self.line.push_next(out);
            }
            self.prev_empty = false;
        }
        self.at_line_start = true;
        if self.table.is_none() && !self.opts.show_ends {
            out.extend_from_slice(with_nl);
            return;
        }
        let content = &with_nl[..with_nl.len() - 1];
        if self.use_dirty && self.clean(start, nl) {
            out.extend_from_slice(content);
        } else {
            self.line_content(content, out);
        }
        if self.opts.show_ends {
            out.extend_from_slice(b"$\n");
        } else {
            out.push(b'\n');
        }
    }

    fn line_content(&self, content: &[u8], out: &mut Vec<u8>) {
        match content.split_last() {
            Some((b'\r', before)) if self.cr_mode => {
                self.render(before, out);
                out.extend_from_slice(b"^M");
            }
            _ => self.render(content, out),
        }
    }

    /// The start (or middle) of a line whose end is in a later chunk; not
    /// empty.
    fn partial_line(&mut self, mut content: &[u8], out: &mut Vec<u8>) {
        if self.at_line_start {
            if self.numbering {
                self.line.push_next(out);
            }
            self.at_line_start = false;
            self.prev_empty = false;
        }
        if let Some((b'\r', before)) = content.split_last() {
            if self.cr_mode {
                self.pending_cr = true;
                content = before;
            }
        }
        self.render(content, out);
    }

    fn empty_line(&mut self, out: &mut Vec<u8>) {
        if self.opts.squeeze_blank && self.prev_empty {
            return;
        }
        self.prev_empty = true;
        if self.number_all {
            self.line.push_next(out);
        }
        if self.opts.show_ends {
            out.push(b'$');
        }
        out.push(b'\n');
    }

    /// Renders bytes within a line (or, when not line-oriented, any bytes:
    /// `\n` is plain in every table).
    fn render(&self, input: &[u8], out: &mut Vec<u8>) {
        let Some(t) = self.table.as_deref() else {
            out.extend_from_slice(input);
            return;
        };
        if !self.opts.show_nonprinting {
            // -T alone: TAB is the only byte to rewrite.
            let mut rest = input;
            while let Some(i) = memchr::memchr(b'\t', rest) {
                out.extend_from_slice(&rest[..i]);
                out.extend_from_slice(b"^I");
                rest = &rest[i + 1..];
            }
            out.extend_from_slice(rest);
            return;
        }
        // 32-byte blocks: a block of plain bytes (text) is checked without
        // branches (the compiler vectorises the fold) and copied later as
        // part of one run; from a block's first other byte on, bytes are
        // rendered one by one, each glyph a fixed 4-byte store into a stack
        // buffer, its length added.
        let tab_plain = !self.opts.show_tabs;
        let mut run_start = 0;
        let mut pos = 0;
        let mut tmp = [0u8; 4 * 32];
        while pos < input.len() {
            let block = &input[pos..(pos + 32).min(input.len())];
            if block_plain(block, tab_plain) {
                pos += block.len();
                continue;
            }
            let k = block.iter().position(|&b| !plain_under_v(b, tab_plain)).unwrap_or(0);
            out.extend_from_slice(&input[run_start..pos + k]);
            let mut n = 0;
            for &b in &block[k..] {
                let g = &t.glyphs[b as usize];
                tmp[n..n + 4].copy_from_slice(&g.bytes);
                n += g.len as usize;
            }
            out.extend_from_slice(&tmp[..n]);
            pos += block.len();
            run_start = pos;
        }
        out.extend_from_slice(&input[run_start..]);
    }
}

/// The position of the first `\n` in `hay[from..]`. Most lines are
/// short: the first 64 bytes are searched a word at a time in registers
/// (a memchr call costs more than that), the rest with memchr.
#[inline(always)]
fn find_newline(hay: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = ONES * b'\n' as u64;
    let mut i = from;
    let near = hay.len().min(from + 64);
    while let Some(w) = hay.get(i..i + 8).filter(|_| i + 8 <= near) {
        let x = u64::from_le_bytes(w.try_into().unwrap_or([0; 8])) ^ NL;
        // The lowest set high bit marks the first zero byte of x exactly
        // (borrows can only mark bytes above it).
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr(b'\n', &hay[i.min(hay.len())..]).map(|p| i + p)
}

/// Whether every byte of `block` (at most 32 bytes) is plain under -v.
#[inline(always)]
fn block_plain(block: &[u8], tab_plain: bool) -> bool {
    match <&[u8; 32]>::try_from(block) {
        Ok(b) => block32_plain(b, tab_plain),
        Err(_) => block.iter().all(|&b| plain_under_v(b, tab_plain)),
    }
}

/// [`plain_under_v`] over a full block, written as byte arithmetic OR-ed
/// into one accumulator, which the compiler turns into a few vector
/// compares (the bool form vectorised poorly).
#[inline(always)]
fn block32_plain(block: &[u8; 32], tab_plain: bool) -> bool {
    // Without -T a TAB is plain: let it pass as a second `\n` test would.
    let tab = if tab_plain { b'\t' } else { b'\n' };
    let mut bad = 0u8;
    for &b in block {
        bad |= ((b.wrapping_sub(0x20) >= 0x5f) & (b != b'\n') & (b != tab)) as u8;
    }
    bad == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(flags: &str) -> FormatOpts {
        let mut o = FormatOpts::default();
        for c in flags.chars() {
            match c {
                'n' => o.number = true,
                'b' => o.number_nonblank = true,
                'E' => o.show_ends = true,
                'T' => o.show_tabs = true,
                'v' => o.show_nonprinting = true,
                's' => o.squeeze_blank = true,
                'A' => {
                    o.show_nonprinting = true;
                    o.show_ends = true;
                    o.show_tabs = true;
                }
                _ => panic!("flag {c}"),
            }
        }
        o
    }

    fn fmt(flags: &str, chunks: &[&[u8]]) -> Vec<u8> {
        let mut f = Formatter::new(opts(flags));
        let mut out = Vec::new();
        for c in chunks {
            f.feed(c, &mut out);
        }
        f.finish(&mut out);
        out
    }

    /// A deliberately naive byte-at-a-time model of the same rules, to check
    /// the fast paths against.
    fn reference(o: FormatOpts, input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut n = 0u64;
        let mut start = true;
        let mut prev_empty = false;
        for (i, &b) in input.iter().enumerate() {
            if start {
                if b == b'\n' {
                    if o.squeeze_blank && prev_empty {
                        continue;
                    }
                    prev_empty = true;
                    if o.number && !o.number_nonblank {
                        n += 1;
                        out.extend_from_slice(format!("{n:>6}\t").as_bytes());
                    }
                    if o.show_ends {
                        out.push(b'$');
                    }
                    out.push(b'\n');
                    continue;
                }
                if o.number || o.number_nonblank {
                    n += 1;
                    out.extend_from_slice(format!("{n:>6}\t").as_bytes());
                }
                start = false;
                prev_empty = false;
            }
            if b == b'\n' {
                if o.show_ends {
                    out.push(b'$');
                }
                out.push(b'\n');
                start = true;
            } else if b == b'\t' {
                out.extend_from_slice(if o.show_tabs { b"^I" } else { b"\t" });
            } else if b == b'\r'
                && o.show_ends
                && !o.show_nonprinting
                && input.get(i + 1) == Some(&b'\n')
            {
                out.extend_from_slice(b"^M");
            } else if o.show_nonprinting {
                let mut c = b;
                if c >= 128 {
                    out.extend_from_slice(b"M-");
                    c -= 128;
                }
                if c < 32 {
                    out.push(b'^');
                    out.push(c + 64);
                } else if c == 127 {
                    out.extend_from_slice(b"^?");
                } else {
                    out.push(c);
                }
            } else {
                out.push(b);
            }
        }
        out
    }

    #[test]
    fn numbering_and_ends() {
        assert_eq!(fmt("n", &[b"a\nb"]), b"     1\ta\n     2\tb");
        assert_eq!(fmt("n", &[b"a\n"]), b"     1\ta\n");
        assert_eq!(fmt("n", &[b""]), b"");
        assert_eq!(fmt("n", &[b"\n"]), b"     1\t\n");
        assert_eq!(fmt("nE", &[b"a\n\n"]), b"     1\ta$\n     2\t$\n");
        assert_eq!(fmt("b", &[b"a\n\nb\n"]), b"     1\ta\n\n     2\tb\n");
        assert_eq!(fmt("bE", &[b"\n"]), b"$\n");
        assert_eq!(fmt("bn", &[b"\nx\n"]), b"\n     1\tx\n");
        assert_eq!(fmt("E", &[b"x"]), b"x");
        assert_eq!(fmt("A", &[b"\r\n"]), b"^M$\n");
    }

    #[test]
    fn carriage_return_before_newline_with_show_ends() {
        assert_eq!(fmt("E", &[b"a\r\nb\r\r\n\r"]), b"a^M$\nb\r^M$\n\r");
        assert_eq!(fmt("E", &[b"a\r", b"\nb\r", b"x\n"]), b"a^M$\nb\rx$\n");
        assert_eq!(fmt("nE", &[b"\r", b"\n\r"]), b"     1\t^M$\n     2\t\r");
        assert_eq!(fmt("bE", &[b"\r\r\n\r"]), b"     1\t\r^M$\n     2\t\r");
        assert_eq!(fmt("sE", &[b"\r\n\r\n\n"]), b"^M$\n^M$\n$\n");
        assert_eq!(fmt("n", &[b"\r\n"]), b"     1\t\r\n");
        assert_eq!(fmt("ET", &[b"\t\r", b"\n"]), b"^I^M$\n");
    }

    #[test]
    fn state_crosses_chunks() {
        assert_eq!(fmt("n", &[b"a", b"b\n", b"c"]), b"     1\tab\n     2\tc");
        assert_eq!(fmt("sn", &[b"a\n\n", b"\n\nb"]), b"     1\ta\n     2\t\n     3\tb");
        assert_eq!(fmt("b", &[b"a\n\n", b"\n\nb"]), b"     1\ta\n\n\n\n     2\tb");
    }

    #[test]
    fn squeeze() {
        assert_eq!(fmt("s", &[b"\n\n\na\n\n\nb\n\n"]), b"\na\n\nb\n\n");
        assert_eq!(fmt("s", &[b"\r\n\r\n"]), b"\r\n\r\n");
    }

    #[test]
    fn wide_numbers() {
        let input = "x\n".repeat(1_000_001);
        let out = fmt("n", &[input.as_bytes()]);
        assert!(out.starts_with(b"     1\tx\n"));
        assert!(out.ends_with(b"999999\tx\n1000000\tx\n1000001\tx\n"));
        let mut l = LineNumber::new();
        for _ in 0..99 {
            l.next();
        }
        assert_eq!(l.next(), b"   100\t");
    }

    #[test]
    fn find_newline_agrees_with_memchr() {
        let mut hay = vec![b'x'; 300];
        for &p in &[0usize, 1, 7, 8, 9, 63, 64, 65, 71, 72, 150, 299] {
            hay[p] = b'\n';
        }
        // Bytes that trip naive zero-byte tricks (0x0b = '\n' ^ 1, high bits).
        for (i, b) in hay.iter_mut().enumerate() {
            if *b != b'\n' && i % 5 == 0 {
                *b = if i % 2 == 0 { 0x0b } else { 0x8a };
            }
        }
        for from in 0..hay.len() {
            for end in [hay.len(), from + 3, from + 64, from + 70] {
                let h = &hay[..end.min(hay.len())];
                if from > h.len() {
                    continue;
                }
                let want = memchr::memchr(b'\n', &h[from..]).map(|p| from + p);
                assert_eq!(find_newline(h, from), want, "from {from} len {}", h.len());
            }
        }
    }

    #[test]
    fn plain_bytes_are_exactly_those_rendered_as_themselves() {
        for show_tabs in [false, true] {
            for b in 0..=255u8 {
                let g = glyph_of(b, show_tabs, true);
                let identity = g.len == 1 && g.bytes[0] == b;
                assert_eq!(plain_under_v(b, !show_tabs), identity, "byte {b} -T {show_tabs}");
                let mut block = [b'a'; 32];
                block[b as usize % 32] = b;
                assert_eq!(block32_plain(&block, !show_tabs), identity, "block, byte {b}");
            }
        }
    }

    #[test]
    fn all_bytes_with_v() {
        let all: Vec<u8> = (0..=255u8).collect();
        let out = fmt("v", &[&all]);
        let s = String::from_utf8(out).unwrap();
        assert!(s.starts_with("^@^A^B^C^D^E^F^G^H\t\n^K^L^M"));
        assert!(s.contains(" !\"#"));
        assert!(s.contains("}~^?M-^@M-^A"));
        assert!(s.contains("M-^IM-^JM-^K"));
        assert!(s.contains("M-^_M- M-!"));
        assert!(s.ends_with("M-~M-^?"));
        assert_eq!(fmt("T", &[b"\t\x89\x01"]), b"^I\x89\x01");
        assert_eq!(fmt("vT", &[b"\t\x89"]), b"^IM-^I");
    }

    /// Every option combination, random inputs rich in the bytes that
    /// matter, cut into random chunks: the fast paths must agree with the
    /// naive model.
    #[test]
    fn fast_paths_match_the_model() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet = b"\n\n\n\t\r a\x00\x7f\x80\x89\x8a\xff";
        for mask in 0..64u32 {
            let o = FormatOpts {
                number: mask & 1 != 0,
                number_nonblank: mask & 2 != 0,
                show_ends: mask & 4 != 0,
                show_tabs: mask & 8 != 0,
                show_nonprinting: mask & 16 != 0,
                squeeze_blank: mask & 32 != 0,
            };
            for _ in 0..40 {
                let len = (rnd() % 300) as usize;
                let input: Vec<u8> = (0..len)
                    .map(|_| {
                        let r = rnd();
                        if r % 4 == 0 {
                            r as u8 >> 1
                        } else {
                            alphabet[(r % alphabet.len() as u64) as usize]
                        }
                    })
                    .collect();
                let mut f = Formatter::new(o);
                let mut out = Vec::new();
                let mut rest = &input[..];
                while !rest.is_empty() {
                    let k = 1 + (rnd() as usize % rest.len().min(17));
                    f.feed(&rest[..k], &mut out);
                    rest = &rest[k..];
                }
                f.finish(&mut out);
                assert_eq!(out, reference(o, &input), "opts {o:?} input {input:?}");
            }
        }
    }
}
