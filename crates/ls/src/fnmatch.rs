//! Shell pattern matching (fnmatch) over bytes, for `-I`/`--hide` and the
//! terminal-name list: `*`, `?`, `[...]` (with `!`/`^`, ranges and
//! `[:class:]`), backslash escapes; `period` makes a leading '.' match only
//! a literal '.' (FNM_PERIOD).

pub fn fnmatch(pat: &[u8], name: &[u8], period: bool) -> bool {
    if period && name.first() == Some(&b'.') && !matches!(pat.first(), Some(b'.')) {
        // Only an escaped '.' could still match.
        if !(pat.len() >= 2 && pat[0] == b'\\' && pat[1] == b'.') {
            return false;
        }
    }
    matches(pat, name)
}

fn matches(pat: &[u8], name: &[u8]) -> bool {
    // Iterative matcher with backtracking to the last '*'.
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    while p < pat.len() && pat[p] == b'*' {
                        p += 1;
                    }
                    star = Some((p, n));
                    continue;
                }
                b'?' if n < name.len() => {
                    p += 1;
                    n += 1;
                    continue;
                }
                b'[' if n < name.len() => {
                    if let Some((ok, next)) = bracket(pat, p, name[n]) {
                        if ok {
                            p = next;
                            n += 1;
                            continue;
                        }
                    } else if name[n] == b'[' {
                        p += 1;
                        n += 1;
                        continue;
                    }
                }
                b'\\' if p + 1 < pat.len() && n < name.len() && pat[p + 1] == name[n] => {
                    p += 2;
                    n += 1;
                    continue;
                }
                c if c != b'\\' && c != b'?' && n < name.len() && c == name[n] => {
                    p += 1;
                    n += 1;
                    continue;
                }
                b'\\' if p + 1 == pat.len() && n < name.len() && name[n] == b'\\' => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        } else if n == name.len() {
            return true;
        }
        match star {
            Some((sp, sn)) if sn < name.len() => {
                star = Some((sp, sn + 1));
                p = sp;
                n = sn + 1;
            }
            _ => return false,
        }
    }
}

/// Matches `c` against the bracket expression at `pat[p] == '['`.
/// Returns (matched, index after ']'), or None when the bracket is unterminated.
fn bracket(pat: &[u8], p: usize, c: u8) -> Option<(bool, usize)> {
    let mut i = p + 1;
    let negate = matches!(pat.get(i), Some(b'!') | Some(b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let b = *pat.get(i)?;
        if b == b']' && !first {
            i += 1;
            break;
        }
        first = false;
        if b == b'[' && pat.get(i + 1) == Some(&b':') {
            if let Some(end) = pat[i + 2..].windows(2).position(|w| w == b":]") {
                let class = &pat[i + 2..i + 2 + end];
                if class_match(class, c) {
                    matched = true;
                }
                i += 2 + end + 2;
                continue;
            }
        }
        let lo = if b == b'\\' {
            i += 1;
            *pat.get(i)?
        } else {
            b
        };
        i += 1;
        if pat.get(i) == Some(&b'-') && pat.get(i + 1).is_some_and(|&x| x != b']') {
            let mut hi = pat[i + 1];
            i += 2;
            if hi == b'\\' {
                hi = *pat.get(i)?;
                i += 1;
            }
            if lo <= c && c <= hi {
                matched = true;
            }
        } else if lo == c {
            matched = true;
        }
    }
    Some((matched != negate, i))
}

fn class_match(class: &[u8], c: u8) -> bool {
    match class {
        b"alpha" => c.is_ascii_alphabetic(),
        b"digit" => c.is_ascii_digit(),
        b"alnum" => c.is_ascii_alphanumeric(),
        b"upper" => c.is_ascii_uppercase(),
        b"lower" => c.is_ascii_lowercase(),
        b"space" => matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        b"blank" => matches!(c, b' ' | b'\t'),
        b"punct" => c.is_ascii_punctuation(),
        b"print" => (0x20..0x7f).contains(&c),
        b"graph" => (0x21..0x7f).contains(&c),
        b"cntrl" => c < 0x20 || c == 0x7f,
        b"xdigit" => c.is_ascii_hexdigit(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    #[test]
    fn patterns() {
        assert!(fnmatch(b"*~", b"a~", true));
        assert!(!fnmatch(b"*~", b".a~", true));
        assert!(fnmatch(b".*~", b".a~", true));
        assert!(fnmatch(b"a?c", b"abc", false));
        assert!(fnmatch(b"[a-c]x", b"bx", false));
        assert!(!fnmatch(b"[!a-c]x", b"bx", false));
        assert!(fnmatch(b"[[:digit:]]*", b"9z", false));
        assert!(fnmatch(b"xterm*", b"xterm-256color", false));
        assert!(fnmatch(b"*color*", b"foo-256color", false));
        assert!(fnmatch(b"\\*", b"*", false));
        assert!(!fnmatch(b"\\*", b"a", false));
        assert!(fnmatch(b"*.rs", b"main.rs", false));
        assert!(!fnmatch(b"*.rs", b"main.rsx", false));
    }
}
