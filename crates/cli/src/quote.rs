//! Quoting of file names, following GNU's quoting styles (quotearg) in the
//! C/POSIX locale, where every byte ≥ 0x80 counts as unprintable.
//!
//! Used for `ls --quoting-style`, and for names in every tool's messages:
//! ls and du quote operands in errors with `shell-escape-always`
//! (`cannot access 'x'`), cat with `shell-escape` (quotes only when needed),
//! find with `locale` ('x' with C escapes).
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
    /// C escapes without quotes; spaces escaped too (as ls -b and find -ls
    /// print them).
    Escape,
    /// 'x' with C escapes (the C locale's rendering of ‘x’).
    Locale,
    /// "x" with C escapes.
    CLocale,
}

impl Style {
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
        match self.style {
            Style::Literal => out.extend_from_slice(name),
            Style::Shell | Style::ShellEscape => {
                let escape = self.style == Style::ShellEscape;
                if shell_needs_quotes(name, escape, self) {
                    // The fallback rendering drops the extra bytes (GNU
                    // restarts quotearg without them).
                    shell_always(out, name, escape, &Quoter::new(Style::ShellAlways));
                } else {
                    out.extend_from_slice(name);
                }
            }
            Style::ShellAlways => shell_always(out, name, false, self),
            Style::ShellEscapeAlways => shell_always(out, name, true, self),
            Style::C | Style::CLocale => c_like(out, name, Some(b'"'), self),
            Style::CMaybe => {
                if name.iter().any(|&b| b == b'"' || !printable(b) || self.is_extra(b)) {
                    c_like(out, name, Some(b'"'), &Quoter::new(Style::C));
                } else {
                    out.extend_from_slice(name);
                }
            }
            Style::Locale => c_like(out, name, Some(b'\''), self),
            Style::Escape => c_like(out, name, None, self),
        }
    }

    pub fn quote(&self, name: &[u8]) -> Vec<u8> {
        let mut v = Vec::with_capacity(name.len() + 2);
        self.quote_into(&mut v, name);
        v
    }
}

/// Printable in the C locale.
pub fn printable(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// Appends `name` with every byte that is not printable in the C locale
/// replaced by `?`: what GNU find's -print does when its output is a
/// terminal, so that no file name can send escape sequences (or a fake
/// newline) to it.
pub fn qmark_into(out: &mut Vec<u8>, name: &[u8]) {
    out.extend(name.iter().map(|&b| if printable(b) { b } else { b'?' }));
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
fn shell_needs_quotes(name: &[u8], escape: bool, q: &Quoter) -> bool {
    if name.is_empty() {
        return true;
    }
    if matches!(name[0], b'#' | b'~') {
        return true;
    }
    if name.len() == 1 && matches!(name[0], b'{' | b'}') {
        return true;
    }
    name.iter().any(|&b| shell_special(b) || (escape && !printable(b)) || q.is_extra(b))
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
/// the end, whether a `'` was seen, and whether every byte was compatible
/// with double quotes.
fn shell_pass(
    out: &mut Vec<u8>,
    name: &[u8],
    escape: bool,
    mut pending: bool,
) -> (bool, bool, bool) {
    out.push(b'\'');
    let mut quote_seen = false;
    let mut compat = true;
    for &b in name {
        compat &= c_and_shell_compat(b);
        if b == b'\'' {
            quote_seen = true;
            out.extend_from_slice(b"'\\''");
            pending = false;
        } else if escape && !printable(b) {
            if !pending {
                out.extend_from_slice(b"'$'");
                pending = true;
            }
            push_c_escape(out, b);
        } else {
            if pending {
                out.extend_from_slice(b"''");
                pending = false;
            }
            out.push(b);
        }
    }
    out.push(b'\'');
    (pending, quote_seen, compat)
}

fn shell_always(out: &mut Vec<u8>, name: &[u8], escape: bool, extra: &Quoter) {
    let start = out.len();
    let (pending, quote_seen, compat) = shell_pass(out, name, escape, false);
    if !quote_seen {
        return;
    }
    out.truncate(start);
    if compat {
        c_like(out, name, Some(b'"'), extra);
    } else {
        shell_pass(out, name, escape, pending);
    }
}

fn c_like(out: &mut Vec<u8>, name: &[u8], q: Option<u8>, quoter: &Quoter) {
    if let Some(q) = q {
        out.push(q);
    }
    for &b in name {
        if b == b'\\' {
            out.extend_from_slice(b"\\\\");
        } else if Some(b) == q || quoter.is_extra(b) || (b == b' ' && q.is_none()) {
            out.extend_from_slice(&[b'\\', b]);
        } else if printable(b) {
            out.push(b);
        } else {
            push_c_escape(out, b);
        }
    }
    if let Some(q) = q {
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

    #[test]
    fn shell_family() {
        assert_eq!(q(b"plain.txt", Style::Shell), "plain.txt");
        assert_eq!(q(b"a b", Style::Shell), "'a b'");
        assert_eq!(q(b"it's", Style::Shell), "\"it's\"");
        assert_eq!(q(b"a'b\"", Style::Shell), "'a'\\''b\"'");
        assert_eq!(q(b"plain", Style::ShellAlways), "'plain'");
        assert_eq!(q(b"a\nb", Style::ShellEscape), "'a'$'\\n''b'");
        assert_eq!(q(b"\nb", Style::ShellEscape), "''$'\\n''b'");
        assert_eq!(q(b"a\n", Style::ShellEscape), "'a'$'\\n'");
        assert_eq!(q(b"\xff", Style::ShellEscapeAlways), "''$'\\377'");
        assert_eq!(q(b"it's\n", Style::ShellEscape), "'''it'\\''s'$'\\n'");
        assert_eq!(q(b"\x01a'\x01", Style::ShellEscape), "'\\001''a'\\'''$'\\001'");
        assert_eq!(q(b"\x01", Style::Shell), "\x01");
        assert_eq!(q(b"#x", Style::Shell), "'#x'");
        assert_eq!(q(b"x#", Style::Shell), "x#");
        assert_eq!(q(b"{", Style::Shell), "'{'");
        assert_eq!(q(b"a{", Style::Shell), "a{");
    }

    #[test]
    fn c_family() {
        assert_eq!(q(b"a\"b\n", Style::C), "\"a\\\"b\\n\"");
        assert_eq!(q(b"a b\\", Style::Escape), "a\\ b\\\\");
        assert_eq!(q(b"x'y", Style::Locale), "'x\\'y'");
        assert_eq!(q(b"ab", Style::CMaybe), "ab");
        assert_eq!(q(b"a\tb", Style::CMaybe), "\"a\\tb\"");
        let esc = Quoter::new(Style::Escape).with_extra(b" ");
        assert_eq!(esc.quote(b"a b"), b"a\\ b");
    }
}
