//! Quoting of file names, following GNU's quoting styles (quotearg) in the
//! C/POSIX locale, where every byte ≥ 0x80 counts as unprintable.
//!
//! Used for `ls --quoting-style`, and for names in every tool's messages:
//! ls and du quote operands in errors with `shell-escape-always`
//! (`cannot access 'x'`), cat with `shell-escape` (quotes only when needed),
//! find with `locale` ('x' with C escapes).

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
    /// C escapes without quotes; spaces escaped too.
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
            "escape" => Style::Escape,
            "locale" => Style::Locale,
            "clocale" => Style::CLocale,
            _ => return None,
        })
    }

    pub const NAMES: [&'static str; 9] = [
        "literal",
        "shell",
        "shell-always",
        "shell-escape",
        "shell-escape-always",
        "c",
        "escape",
        "locale",
        "clocale",
    ];
}

fn printable(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// Characters the shell treats specially anywhere in a word.
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
    )
}

/// Whether the shell styles must quote `name`.
fn needs_shell_quotes(name: &[u8]) -> bool {
    if name.is_empty() {
        return true;
    }
    if matches!(name[0], b'#' | b'~') {
        return true;
    }
    name.iter().any(|&b| shell_special(b) || !printable(b))
}

/// The C escape for `b` (used by C, Escape, Locale styles and inside `$'…'`).
fn push_c_escape(out: &mut Vec<u8>, b: u8) {
    let esc = match b {
        0x07 => b'a',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x0b => b'v',
        _ => {
            out.extend_from_slice(&[b'\\', b'0' + (b >> 6), b'0' + ((b >> 3) & 7), b'0' + (b & 7)]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', esc]);
}

/// Appends `name` quoted in `style` to `out`.
pub fn quote_into(out: &mut Vec<u8>, name: &[u8], style: Style) {
    match style {
        Style::Literal => out.extend_from_slice(name),
        Style::Shell | Style::ShellAlways | Style::ShellEscape | Style::ShellEscapeAlways => {
            shell(out, name, style)
        }
        Style::C | Style::CLocale => c_like(out, name, Some(b'"')),
        Style::Locale => c_like(out, name, Some(b'\'')),
        Style::Escape => c_like(out, name, None),
    }
}

/// `name` quoted in `style`.
pub fn quote(name: &[u8], style: Style) -> Vec<u8> {
    let mut v = Vec::with_capacity(name.len() + 2);
    quote_into(&mut v, name, style);
    v
}

fn c_like(out: &mut Vec<u8>, name: &[u8], q: Option<u8>) {
    if let Some(q) = q {
        out.push(q);
    }
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b' ' if q.is_none() => out.extend_from_slice(b"\\ "),
            _ if Some(b) == q => out.extend_from_slice(&[b'\\', b]),
            _ if printable(b) => out.push(b),
            _ => push_c_escape(out, b),
        }
    }
    if let Some(q) = q {
        out.push(q);
    }
}

fn shell(out: &mut Vec<u8>, name: &[u8], style: Style) {
    let always = matches!(style, Style::ShellAlways | Style::ShellEscapeAlways);
    let escape = matches!(style, Style::ShellEscape | Style::ShellEscapeAlways);
    if !always && !needs_shell_quotes(name) {
        out.extend_from_slice(name);
        return;
    }
    let has_unprintable = escape && name.iter().any(|&b| !printable(b));
    // A name with a single quote and nothing that is special inside double
    // quotes reads better as "it's" than as 'it'\''s', which GNU prefers too.
    if !has_unprintable
        && name.contains(&b'\'')
        && !name.iter().any(|&b| matches!(b, b'"' | b'$' | b'`' | b'\\' | b'!'))
    {
        out.push(b'"');
        out.extend_from_slice(name);
        out.push(b'"');
        return;
    }
    out.push(b'\'');
    let mut i = 0;
    while i < name.len() {
        let b = name[i];
        if b == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else if escape && !printable(b) {
            // Close the quote, emit a run of escapes in $'…', reopen.
            out.extend_from_slice(b"'$'");
            while i < name.len() && !printable(name[i]) {
                push_c_escape(out, name[i]);
                i += 1;
            }
            out.extend_from_slice(b"''");
            continue;
        } else {
            out.push(b);
        }
        i += 1;
    }
    out.push(b'\'');
    // GNU elides an empty '' pair produced at the ends by the escape runs.
    tidy_empty_quotes(out);
}

fn tidy_empty_quotes(out: &mut Vec<u8>) {
    // "''$'\n''x'" → "$'\n''x'" and "'x'$'\n'''" → "'x'$'\n'"
    if out.ends_with(b"'''") && out.len() >= 3 {
        out.truncate(out.len() - 2);
    }
    if out.starts_with(b"''$'") {
        out.drain(..2);
    }
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
        assert_eq!(q(b"plain", Style::ShellAlways), "'plain'");
        assert_eq!(q(b"a\nb", Style::ShellEscape), "'a'$'\\n''b'");
        assert_eq!(q(b"\nb", Style::ShellEscape), "$'\\n''b'");
        assert_eq!(q(b"a\n", Style::ShellEscape), "'a'$'\\n'");
        assert_eq!(q(b"\xff", Style::ShellEscapeAlways), "$'\\377'");
    }

    #[test]
    fn c_family() {
        assert_eq!(q(b"a\"b\n", Style::C), "\"a\\\"b\\n\"");
        assert_eq!(q(b"a b\\", Style::Escape), "a\\ b\\\\");
        assert_eq!(q(b"x'y", Style::Locale), "'x\\'y'");
    }
}
