//! Quoting of file names, following GNU's quoting styles (quotearg) in the
//! user's locale: in single-byte locales (C, POSIX) every byte ≥ 0x80 is
//! unprintable; in multibyte ones names are decoded with `mbrtowc`, and a
//! character is printable when it decodes and `iswprint` says so. An
//! invalid byte is escaped alone, an incomplete sequence at the end and an
//! unprintable character (U+2028) with all their bytes.
//!
//! Used for `ls --quoting-style`, and for names in every tool's messages:
//! ls and du quote operands in errors with `shell-escape-always`
//! (`cannot access 'x'`), cat with `shell-escape` (quotes only when needed),
//! find with `locale` (C escapes between the locale's quote marks: 'x' in C,
//! ‘x’ in UTF-8 locales, a catalog's own marks where it has them).
//!
//! The behaviour was worked out by running GNU ls 9.1 over every byte in
//! several positions (see the differential tests in `tests/ls.rs`). Some of
//! it is surprising and kept on purpose for byte-identical output:
//! - the "maybe" styles (`shell`, `shell-escape`, `c-maybe`) first try the
//!   name bare and, when any byte needs quoting, render it again in the
//!   always-quoting style *without* the extra characters of [`Quoter`];
//! - a shell-quoted name containing `'` whose every byte is also harmless
//!   inside C double quotes is printed as `"it's"`;
//! - otherwise, in the escape styles, a name that ends with an escaped byte
//!   and contains `'` is rendered a second time with the "inside `$'…'`"
//!   state left over from the first rendering (`'''it'\''s'$'\n'`).

use libcw::locale;

/// GNU's quoting styles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Bytes as they are.
    Literal,
    /// Quote with '...' only when the shell would need it; unprintables raw.
    Shell,
    /// Always '...'; unprintables raw.
    ShellAlways,
    /// Like Shell, unprintables as `$'\n'` segments.
    ShellEscape,
    /// Like ShellAlways, unprintables as `$'\n'` segments.
    ShellEscapeAlways,
    /// "..." with C escapes.
    C,
    /// Like C, but without the quotes when nothing needs escaping.
    CMaybe,
    /// C escapes without quotes (ls -b adds the space to the bytes to
    /// escape in file names, not in directory headers).
    Escape,
    /// ‘x’ with C escapes, in the locale's quote marks ('x' in C).
    Locale,
    /// Like Locale, but "x" where Locale has 'x'.
    CLocale,
}

impl Style {
    #[cfg_attr(ringutils_small, optimize(size))]
    pub fn parse(s: &str) -> Option<Style> {
        Some(match s {
            "literal" => Style::Literal,
            "shell" => Style::Shell,
            "shell-always" => Style::ShellAlways,
            "shell-escape" => Style::ShellEscape,
            "shell-escape-always" => Style::ShellEscapeAlways,
            "c" => Style::C,
            "c-maybe" => Style::CMaybe,
            "escape" => Style::Escape,
            "locale" => Style::Locale,
            "clocale" => Style::CLocale,
            _ => return None,
        })
    }

    /// The names GNU accepts, in the order its error message lists them.
    pub const NAMES: [&'static str; 10] = [
        "literal",
        "shell",
        "shell-always",
        "shell-escape",
        "shell-escape-always",
        "c",
        "c-maybe",
        "escape",
        "locale",
        "clocale",
    ];
}

/// A style plus extra bytes that must be quoted or escaped (GNU's
/// `set_char_quoting`: ls adds `:` for directory headers, the space for
/// `escape`, and `=>@|` or `*=>@|` with indicators).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quoter {
    pub style: Style,
    extra: [u64; 2],
}

impl Quoter {
    pub fn new(style: Style) -> Quoter {
        Quoter { style, extra: [0; 2] }
    }

    /// Also quote/escape these (ASCII) bytes.
    pub fn with_extra(mut self, bytes: &[u8]) -> Quoter {
        for &b in bytes {
            if b < 128 {
                self.extra[(b >> 6) as usize] |= 1 << (b & 63);
            }
        }
        self
    }

    fn is_extra(&self, b: u8) -> bool {
        b < 128 && self.extra[(b >> 6) as usize] >> (b & 63) & 1 == 1
    }

    /// Appends `name` quoted to `out`.
    pub fn quote_into(&self, out: &mut Vec<u8>, name: &[u8]) {
        // One copy of the code per kind of locale: the single-byte one
        // compiles to plain byte loops, with no decoding to skip per byte.
        if multibyte() {
            self.quote_in::<true>(out, name)
        } else {
            self.quote_in::<false>(out, name)
        }
    }

    fn quote_in<const MB: bool>(&self, out: &mut Vec<u8>, name: &[u8]) {
        match self.style {
            Style::Literal => out.extend_from_slice(name),
            Style::Shell | Style::ShellEscape => {
                let escape = self.style == Style::ShellEscape;
                if shell_needs_quotes::<MB>(name, escape, self) {
                    // The fallback rendering drops the extra bytes (GNU
                    // restarts quotearg without them).
                    shell_always::<MB>(out, name, escape, &Quoter::new(Style::ShellAlways));
                } else {
                    out.extend_from_slice(name);
                }
            }
            Style::ShellAlways => shell_always::<MB>(out, name, false, self),
            Style::ShellEscapeAlways => shell_always::<MB>(out, name, true, self),
            Style::C => c_like::<MB>(out, name, b"\"", b"\"", self),
            Style::CMaybe => {
                let needs = units::<MB>(name).any(|u| {
                    !u.printable
                        || (u.bytes.len() == 1 && (u.bytes[0] == b'"' || self.is_extra(u.bytes[0])))
                });
                if needs {
                    c_like::<MB>(out, name, b"\"", b"\"", &Quoter::new(Style::C));
                } else {
                    out.extend_from_slice(name);
                }
            }
            Style::Locale | Style::CLocale => {
                let (l, r) = marks(self.style == Style::CLocale);
                c_like::<MB>(out, name, l, r, self)
            }
            Style::Escape => c_like::<MB>(out, name, b"", b"", self),
        }
    }

    pub fn quote(&self, name: &[u8]) -> Vec<u8> {
        let mut v = Vec::with_capacity(name.len() + 2);
        self.quote_into(&mut v, name);
        v
    }
}

/// Whether names are decoded as multibyte characters (LC_CTYPE has
/// `MB_CUR_MAX > 1`). In single-byte locales every byte is a character and
/// only printable ASCII is printable, with no call into the locale.
fn multibyte() -> bool {
    crate::locale::info().multibyte
}

/// The quote marks of the `locale` (or `clocale`) style: gnulib's
/// `gettext_quote`. The tool's catalog decides when it has any entry for the
/// msgids "`" and "'" (coreutils de: „ “, ja: ` '); otherwise a UTF-8
/// charset gets ‘ ’, any other `'` (`"` for clocale).
fn marks(clocale: bool) -> (&'static [u8], &'static [u8]) {
    use std::sync::OnceLock;
    static MARKS: OnceLock<[(&'static [u8], &'static [u8]); 2]> = OnceLock::new();
    let m = MARKS.get_or_init(|| {
        let one = |msgid: &'static std::ffi::CStr, utf8: &'static [u8], other: &'static [u8]| {
            if crate::locale::has_translation(msgid) {
                crate::locale::tr(msgid)
            } else if crate::locale::info().utf8 {
                utf8
            } else {
                other
            }
        };
        [
            (one(c"`", "\u{2018}".as_bytes(), b"'"), one(c"'", "\u{2019}".as_bytes(), b"'")),
            (one(c"`", "\u{2018}".as_bytes(), b"\""), one(c"'", "\u{2019}".as_bytes(), b"\"")),
        ]
    });
    m[usize::from(clocale)]
}

/// One character of a name as quotearg steps through it: a single byte, or
/// in a multibyte locale a decoded character, an invalid byte, or an
/// incomplete sequence at the end (all its bytes).
#[derive(Clone, Copy)]
struct Unit<'a> {
    bytes: &'a [u8],
    /// isprint (single-byte), or decodes and iswprint.
    printable: bool,
}

struct Units<'a, const MB: bool> {
    rest: &'a [u8],
}

fn units<const MB: bool>(name: &[u8]) -> Units<'_, MB> {
    Units { rest: name }
}

impl<'a, const MB: bool> Iterator for Units<'a, MB> {
    type Item = Unit<'a>;

    #[inline]
    fn next(&mut self) -> Option<Unit<'a>> {
        let rest = self.rest;
        if rest.is_empty() {
            return None;
        }
        let (len, printable) = step::<MB>(rest);
        self.rest = &rest[len..];
        Some(Unit { bytes: &rest[..len], printable })
    }
}

/// The length and printability of the character `rest` starts with
/// (non-empty). ASCII is itself in every multibyte charset glibc offers
/// here (UTF-8, EUC-JP), so only bytes ≥ 0x80 are decoded.
#[inline(always)]
fn step<const MB: bool>(rest: &[u8]) -> (usize, bool) {
    let b = rest[0];
    if !MB || b < 0x80 {
        return (1, printable(b));
    }
    match locale::decode(rest) {
        locale::Decoded::Char(wc, n) => (n, locale::is_print(wc)),
        locale::Decoded::Invalid => (1, false),
        locale::Decoded::Incomplete => (rest.len(), false),
    }
}

/// Printable in the C locale.
pub fn printable(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// Appends `name` with every character that is not printable replaced by
/// `?` (GNU's `-q`, and find's -print to a terminal: lib/qmark.c), so no
/// file name can send escape sequences (or a fake newline) to a terminal.
/// Returns the display width of what was appended.
///
/// In a multibyte locale a character is kept when `wcwidth` accepts it,
/// else it becomes one `?`; an invalid byte is one `?`, an incomplete
/// sequence at the end one `?` for all its bytes. In a single-byte locale
/// every byte that is not printable ASCII is a `?`.
pub fn qmark_into(out: &mut Vec<u8>, name: &[u8]) -> usize {
    if !multibyte() {
        out.extend(name.iter().map(|&b| if printable(b) { b } else { b'?' }));
        return name.len();
    }
    let start = out.len();
    out.extend_from_slice(name);
    qmark_tail(out, start)
}

/// [`qmark_into`] on a buffer in place (the result is never longer).
/// Returns the display width.
pub fn qmark_in_place(buf: &mut Vec<u8>) -> usize {
    if !multibyte() {
        for b in buf.iter_mut() {
            if !printable(*b) {
                *b = b'?';
            }
        }
        return buf.len();
    }
    qmark_tail(buf, 0)
}

/// The multibyte `?` masking of `buf[start..]`, in place: what is kept moves
/// down over what was replaced, never past what is still to be read.
fn qmark_tail(buf: &mut Vec<u8>, start: usize) -> usize {
    let mut width = 0;
    let (mut r, mut w) = (start, start);
    while r < buf.len() {
        let b = buf[r];
        if b < 0x80 {
            buf[w] = if printable(b) { b } else { b'?' };
            width += 1;
            r += 1;
            w += 1;
            continue;
        }
        let skip = match locale::decode(&buf[r..]) {
            locale::Decoded::Char(wc, n) => match locale::width(wc) {
                cols if cols >= 0 => {
                    buf.copy_within(r..r + n, w);
                    width += cols as usize;
                    r += n;
                    w += n;
                    continue;
                }
                _ => n,
            },
            locale::Decoded::Invalid => 1,
            locale::Decoded::Incomplete => buf.len() - r,
        };
        buf[w] = b'?';
        width += 1;
        r += skip;
        w += 1;
    }
    buf.truncate(w);
    width
}

/// Columns a quoted name takes on a terminal (ls's `quote_name_width`,
/// gnulib's `mbsnwidth`). In a multibyte locale a printable character
/// counts its `wcwidth`, an invalid byte or an incomplete sequence at the
/// end 1, any other character 1, or 0 if it is a control character. In a
/// single-byte locale printable ASCII counts 1 and every other byte 0.
pub fn display_width(s: &[u8]) -> usize {
    if !multibyte() {
        return s.iter().filter(|&&c| printable(c)).count();
    }
    let mut width = 0;
    let mut rest = s;
    while let Some(&b) = rest.first() {
        if b < 0x80 {
            width += usize::from(printable(b));
            rest = &rest[1..];
            continue;
        }
        let len = match locale::decode(rest) {
            locale::Decoded::Char(wc, n) => {
                let w = locale::width(wc);
                width += if w >= 0 { w as usize } else { usize::from(!locale::is_cntrl(wc)) };
                n
            }
            locale::Decoded::Invalid => {
                width += 1;
                1
            }
            locale::Decoded::Incomplete => {
                width += 1;
                rest.len()
            }
        };
        rest = &rest[len..];
    }
    width
}

/// Bytes that the shell styles quote wherever they appear.
fn shell_special(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'!'
            | b'"'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b';'
            | b'<'
            | b'='
            | b'>'
            | b'?'
            | b'['
            | b'\\'
            | b'^'
            | b'`'
            | b'|'
            | b'\t'
            | b'\n'
            | b'\r'
    )
}

/// Whether `shell`/`shell-escape` must fall back to quoting `name`.
fn shell_needs_quotes<const MB: bool>(name: &[u8], escape: bool, q: &Quoter) -> bool {
    if name.is_empty() {
        return true;
    }
    if matches!(name[0], b'#' | b'~') {
        return true;
    }
    if name.len() == 1 && matches!(name[0], b'{' | b'}') {
        return true;
    }
    if !MB {
        return name
            .iter()
            .any(|&b| shell_special(b) || (escape && !printable(b)) || q.is_extra(b));
    }
    if name.iter().any(|&b| shell_special(b) || q.is_extra(b)) {
        return true;
    }
    escape && units::<MB>(name).any(|u| !u.printable)
}

/// Bytes that read the same inside C double quotes and shell double quotes.
fn c_and_shell_compat(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(b, b' ' | b'%' | b'\'' | b'+' | b',' | b'-' | b'.' | b'/' | b':' | b'@')
        || matches!(b, b']' | b'_')
}

/// The letter of a C escape (`\n`), or `None` for an octal escape.
fn c_escape_letter(b: u8) -> Option<u8> {
    Some(match b {
        0x07 => b'a',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x0b => b'v',
        _ => return None,
    })
}

fn push_c_escape(out: &mut Vec<u8>, b: u8) {
    match c_escape_letter(b) {
        Some(l) => out.extend_from_slice(&[b'\\', l]),
        None => {
            out.extend_from_slice(&[b'\\', b'0' + (b >> 6), b'0' + ((b >> 3) & 7), b'0' + (b & 7)])
        }
    }
}

/// One rendering in single quotes; returns the "inside `$'…'`" state at
/// the end, whether a `'` was seen, and whether every character was
/// compatible with double quotes (a printable multibyte character is).
fn shell_pass<const MB: bool>(
    out: &mut Vec<u8>,
    name: &[u8],
    escape: bool,
    mut pending: bool,
) -> (bool, bool, bool) {
    out.push(b'\'');
    let mut quote_seen = false;
    let mut compat = true;
    let mut i = 0;
    while i < name.len() {
        let b = name[i];
        let (len, printable) = step::<MB>(&name[i..]);
        compat &= if len == 1 && b < 0x80 { c_and_shell_compat(b) } else { printable };
        if b == b'\'' {
            quote_seen = true;
            out.extend_from_slice(b"'\\''");
            pending = false;
        } else if escape && !printable {
            if !pending {
                out.extend_from_slice(b"'$'");
                pending = true;
            }
            for &b in &name[i..i + len] {
                push_c_escape(out, b);
            }
        } else {
            if pending {
                out.extend_from_slice(b"''");
                pending = false;
            }
            if len == 1 {
                out.push(b);
            } else {
                out.extend_from_slice(&name[i..i + len]);
            }
        }
        i += len;
    }
    out.push(b'\'');
    (pending, quote_seen, compat)
}

fn shell_always<const MB: bool>(out: &mut Vec<u8>, name: &[u8], escape: bool, extra: &Quoter) {
    let start = out.len();
    let (pending, quote_seen, compat) = shell_pass::<MB>(out, name, escape, false);
    if !quote_seen {
        return;
    }
    out.truncate(start);
    if compat {
        c_like::<MB>(out, name, b"\"", b"\"", extra);
    } else {
        shell_pass::<MB>(out, name, escape, pending);
    }
}

/// The C-escape styles between `left` and `right` (both empty for
/// `escape`). A backslash goes before every occurrence of `right` inside
/// the name.
fn c_like<const MB: bool>(
    out: &mut Vec<u8>,
    name: &[u8],
    left: &[u8],
    right: &[u8],
    quoter: &Quoter,
) {
    if !MB && left.len() <= 1 && right.len() <= 1 {
        return c_like_bytes(out, name, left.first().copied(), right.first().copied(), quoter);
    }
    out.extend_from_slice(left);
    let right0 = right.first().copied();
    let mut i = 0;
    while i < name.len() {
        let b = name[i];
        if MB && b >= 0x80 {
            let (len, printable) = step::<MB>(&name[i..]);
            let ch = &name[i..i + len];
            if !printable {
                for &b in ch {
                    push_c_escape(out, b);
                }
            } else {
                if Some(b) == right0 && name[i..].starts_with(right) {
                    out.push(b'\\');
                }
                out.extend_from_slice(ch);
            }
            i += len;
            continue;
        }
        if b == b'\\' {
            out.extend_from_slice(b"\\\\");
        } else if (Some(b) == right0 && name[i..].starts_with(right)) || quoter.is_extra(b) {
            out.extend_from_slice(&[b'\\', b]);
        } else if printable(b) {
            out.push(b);
        } else {
            push_c_escape(out, b);
        }
        i += 1;
    }
    out.extend_from_slice(right);
}

/// [`c_like`] in a single-byte locale with one-byte quote marks (all of
/// them but a catalog's multibyte marks in a non-UTF-8 locale): a plain
/// loop over bytes.
fn c_like_bytes(
    out: &mut Vec<u8>,
    name: &[u8],
    left: Option<u8>,
    right: Option<u8>,
    quoter: &Quoter,
) {
    if let Some(q) = left {
        out.push(q);
    }
    for &b in name {
        if b == b'\\' {
            out.extend_from_slice(b"\\\\");
        } else if Some(b) == right || quoter.is_extra(b) {
            out.extend_from_slice(&[b'\\', b]);
        } else if printable(b) {
            out.push(b);
        } else {
            push_c_escape(out, b);
        }
    }
    if let Some(q) = right {
        out.push(q);
    }
}

/// Appends `name` quoted in `style` to `out`.
pub fn quote_into(out: &mut Vec<u8>, name: &[u8], style: Style) {
    Quoter::new(style).quote_into(out, name)
}

/// `name` quoted in `style`.
pub fn quote(name: &[u8], style: Style) -> Vec<u8> {
    Quoter::new(style).quote(name)
}

/// How ls/du name an operand in an error: always quoted, shell-escaped.
pub fn operand(name: &[u8]) -> Vec<u8> {
    quote(name, Style::ShellEscapeAlways)
}

/// How cat (GNU's quotef) names a file: quoted only when needed.
pub fn file(name: &[u8]) -> Vec<u8> {
    quote(name, Style::ShellEscape)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &[u8], st: Style) -> String {
        String::from_utf8(quote(s, st)).unwrap()
    }

    /// Each family's corners: when a style quotes, with which quotes, and
    /// how it writes what it cannot show.
    #[test]
    fn styles() {
        for (name, style, want) in [
            (&b"plain.txt"[..], Style::Shell, "plain.txt"),
            (b"a b", Style::Shell, "'a b'"),
            (b"it's", Style::Shell, "\"it's\""),
            (b"a'b\"", Style::Shell, "'a'\\''b\"'"),
            (b"plain", Style::ShellAlways, "'plain'"),
            (b"a\nb", Style::ShellEscape, "'a'$'\\n''b'"),
            (b"\nb", Style::ShellEscape, "''$'\\n''b'"),
            (b"a\n", Style::ShellEscape, "'a'$'\\n'"),
            (b"\xff", Style::ShellEscapeAlways, "''$'\\377'"),
            (b"it's\n", Style::ShellEscape, "'''it'\\''s'$'\\n'"),
            (b"\x01a'\x01", Style::ShellEscape, "'\\001''a'\\'''$'\\001'"),
            (b"\x01", Style::Shell, "\x01"),
            (b"#x", Style::Shell, "'#x'"),
            (b"x#", Style::Shell, "x#"),
            (b"{", Style::Shell, "'{'"),
            (b"a{", Style::Shell, "a{"),
            // The C family.
            (b"a\"b\n", Style::C, "\"a\\\"b\\n\""),
            (b"a b\\", Style::Escape, "a b\\\\"),
            (b"x'y", Style::Locale, "'x\\'y'"),
            (b"ab", Style::CMaybe, "ab"),
            (b"a\tb", Style::CMaybe, "\"a\\tb\""),
        ] {
            assert_eq!(q(name, style), want, "{:?} {style:?}", String::from_utf8_lossy(name));
        }
        let esc = Quoter::new(Style::Escape).with_extra(b" ");
        assert_eq!(esc.quote(b"a b"), b"a\\ b");
    }
}
