//! -perm arguments (octal and symbolic modes) and how they test a mode.

use crate::expr::PermKind;

/// Parses a -perm argument: `[-/]MODE`.
pub fn parse(arg: &[u8]) -> Option<(PermKind, u32)> {
    let (kind, rest) = match arg.first() {
        Some(b'-') => (PermKind::All, &arg[1..]),
        Some(b'/') => (PermKind::Any, &arg[1..]),
        _ => (PermKind::Exact, arg),
    };
    if rest.is_empty() {
        return None;
    }
    if rest.iter().all(|c| (b'0'..=b'7').contains(c)) {
        let m = u32::from_str_radix(std::str::from_utf8(rest).ok()?, 8).ok()?;
        return (m <= 0o7777).then_some((kind, m));
    }
    symbolic(rest).map(|m| (kind, m))
}

/// Applies a symbolic mode (`u+rw,g=u,o-x`) to 0, as find does.
pub fn symbolic(s: &[u8]) -> Option<u32> {
    let mut mode: u32 = 0;
    for clause in s.split(|&c| c == b',') {
        let mut i = 0;
        let mut who = 0u32;
        while i < clause.len() && matches!(clause[i], b'u' | b'g' | b'o' | b'a') {
            who |= match clause[i] {
                b'u' => 0o4700,
                b'g' => 0o2070,
                b'o' => 0o1007,
                _ => 0o7777,
            };
            i += 1;
        }
        let whole = who == 0;
        if whole {
            who = 0o7777;
        }
        if i >= clause.len() {
            return None;
        }
        while i < clause.len() {
            let op = clause[i];
            if !matches!(op, b'+' | b'-' | b'=') {
                return None;
            }
            i += 1;
            let mut val = 0u32;
            if i < clause.len() && matches!(clause[i], b'u' | b'g' | b'o') {
                let src = match clause[i] {
                    b'u' => (mode >> 6) & 7,
                    b'g' => (mode >> 3) & 7,
                    _ => mode & 7,
                };
                val = (src << 6 | src << 3 | src) & who & 0o777;
                i += 1;
            } else {
                while i < clause.len()
                    && matches!(clause[i], b'r' | b'w' | b'x' | b'X' | b's' | b't')
                {
                    val |= match clause[i] {
                        b'r' => 0o444 & who,
                        b'w' => 0o222 & who,
                        b'x' | b'X' => 0o111 & who,
                        b's' => 0o6000 & who,
                        _ => {
                            if whole || who & 0o1000 != 0 {
                                0o1000
                            } else {
                                0
                            }
                        }
                    };
                    i += 1;
                }
            }
            match op {
                b'+' => mode |= val,
                b'-' => mode &= !val,
                _ => mode = (mode & !who) | val,
            }
        }
    }
    Some(mode)
}

/// Whether a file's permission bits pass a -perm test.
pub fn test(kind: PermKind, want: u32, mode: u32) -> bool {
    let m = mode & 0o7777;
    match kind {
        PermKind::Exact => m == want,
        PermKind::All => m & want == want,
        PermKind::Any => want == 0 || m & want != 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes() {
        assert_eq!(parse(b"644"), Some((PermKind::Exact, 0o644)));
        assert_eq!(parse(b"-220"), Some((PermKind::All, 0o220)));
        assert_eq!(parse(b"/u+w,g+w"), Some((PermKind::Any, 0o220)));
        assert_eq!(parse(b"u=rwx,go=rx"), Some((PermKind::Exact, 0o755)));
        assert_eq!(parse(b"a+r"), Some((PermKind::Exact, 0o444)));
        assert_eq!(parse(b"+w"), Some((PermKind::Exact, 0o222)));
        assert_eq!(parse(b"u+s"), Some((PermKind::Exact, 0o4000)));
        assert_eq!(parse(b"999"), None);
    }
}
