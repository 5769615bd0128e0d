//! Shell wildcard matching as `fnmatch(3)` does it with no flags in the C
//! locale: `*` and `?` match any byte including `/`, a leading `.` is not
//! special, `[...]` sets with `!`/`^`, ranges and `[:class:]`, and `\`
//! quotes the next byte. This is what `du --exclude` uses.

/// Whether `name` matches `pat` as a whole.
pub fn matches(pat: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0usize, 0usize);
    // Where to resume after the last `*`: (pattern index after it, name index).
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    while p < pat.len() && pat[p] == b'*' {
                        p += 1;
                    }
                    if p == pat.len() {
                        return true;
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
                        // An unterminated set is a literal '['.
                        p += 1;
                        n += 1;
                        continue;
                    }
                }
                b'\\' if n < name.len() && p + 1 < pat.len() && pat[p + 1] == name[n] => {
                    p += 2;
                    n += 1;
                    continue;
                }
                c if n < name.len() && c != b'?' && c != b'[' && c != b'\\' && c == name[n] => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        } else if n == name.len() {
            return true;
        }
        // Mismatch: let the last star swallow one more byte.
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

/// Matches byte `c` against the set starting at `pat[start] == '['`.
/// Returns (matched, index after the set), or `None` if the set is not
/// terminated (then '[' is an ordinary character).
fn bracket(pat: &[u8], start: usize, c: u8) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(pat.get(i), Some(b'!') | Some(b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let &b = pat.get(i)?;
        if b == b']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        // A character class.
        if b == b'[' && pat.get(i + 1) == Some(&b':') {
            if let Some(end) = find_class_end(pat, i + 2) {
                let name = &pat[i + 2..end];
                if let Some(f) = class(name) {
                    matched |= f(c);
                    i = end + 2;
                    continue;
                }
                // An unknown class makes the whole pattern invalid; glibc
                // then matches nothing.
                return Some((false, pat.len()));
            }
        }
        let (lo, next) = literal(pat, i)?;
        i = next;
        // A range lo-hi (a '-' before ']' is literal).
        if pat.get(i) == Some(&b'-') && pat.get(i + 1).is_some_and(|&x| x != b']') {
            let (hi, next) = literal(pat, i + 1)?;
            i = next;
            if lo <= c && c <= hi {
                matched = true;
            }
        } else if lo == c {
            matched = true;
        }
    }
}

/// One possibly backslash-quoted byte of a set.
fn literal(pat: &[u8], i: usize) -> Option<(u8, usize)> {
    match pat.get(i)? {
        b'\\' => Some((*pat.get(i + 1)?, i + 2)),
        &b => Some((b, i + 1)),
    }
}

fn find_class_end(pat: &[u8], from: usize) -> Option<usize> {
    (from..pat.len().saturating_sub(1)).find(|&j| pat[j] == b':' && pat[j + 1] == b']')
}

fn class(name: &[u8]) -> Option<fn(u8) -> bool> {
    Some(match name {
        b"alnum" => |c: u8| c.is_ascii_alphanumeric(),
        b"alpha" => |c: u8| c.is_ascii_alphabetic(),
        b"blank" => |c: u8| c == b' ' || c == b'\t',
        b"cntrl" => |c: u8| c.is_ascii_control(),
        b"digit" => |c: u8| c.is_ascii_digit(),
        b"graph" => |c: u8| c.is_ascii_graphic(),
        b"lower" => |c: u8| c.is_ascii_lowercase(),
        b"print" => |c: u8| (0x20..0x7f).contains(&c),
        b"punct" => |c: u8| c.is_ascii_punctuation(),
        b"space" => |c: u8| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
        b"upper" => |c: u8| c.is_ascii_uppercase(),
        b"xdigit" => |c: u8| c.is_ascii_hexdigit(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::matches;

    fn m(p: &str, n: &str) -> bool {
        matches(p.as_bytes(), n.as_bytes())
    }

    #[test]
    fn wildcards() {
        assert!(m("*.c", "a.c"));
        assert!(m("*.c", "dir/a.c"));
        assert!(m("*", ".hidden"));
        assert!(!m("*.c", "a.h"));
        assert!(m("a?c", "abc"));
        assert!(!m("a?c", "ac"));
        assert!(m("a*b*c", "aXbYbZc"));
        assert!(!m("a*b*c", "aXbYbZ"));
        assert!(m("", ""));
        assert!(!m("", "a"));
        assert!(m("**", ""));
    }

    #[test]
    fn sets_and_escapes() {
        assert!(m("[abc]x", "bx"));
        assert!(!m("[!abc]x", "bx"));
        assert!(m("[^abc]x", "dx"));
        assert!(m("[a-c]", "b"));
        assert!(m("[]]", "]"));
        assert!(m("[!]]", "a"));
        assert!(m("[a-]", "-"));
        assert!(m("[[:digit:]]*", "7up"));
        assert!(!m("[[:digit:]]*", "up"));
        assert!(m("[", "["));
        assert!(m("a[", "a["));
        assert!(m("\\*", "*"));
        assert!(!m("\\*", "a"));
        assert!(m("[\\]]", "]"));
        assert!(!m("a\\", "a\\"));
    }
}
