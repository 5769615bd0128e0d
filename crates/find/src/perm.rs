//! -perm arguments (octal and symbolic modes) and how they test a mode.

use crate::expr::PermKind;

/// Parses a -perm argument: `[-/]MODE`. The mode is worked out twice, as
/// GNU does: `[0]` for files that aren't directories, `[1]` for
/// directories (`X` and the set-id bits depend on it).
pub fn parse(arg: &[u8]) -> Option<(PermKind, [u32; 2])> {
    // `+` and an octal digit is the old `-perm +MODE` (any of the bits),
    // which GNU refuses rather than read as the symbolic `+MODE`.
    if arg.first() == Some(&b'+') && matches!(arg.get(1), Some(b'0'..=b'7')) {
        return None;
    }
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
        return (m <= 0o7777).then_some((kind, [m, m]));
    }
    let changes = compile(rest)?;
    Some((kind, [adjust(&changes, false), adjust(&changes, true)]))
}

const ALL: u32 = 0o7777;
const SETID: u32 = 0o6000;

/// How a change finds its value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Flag {
    /// The bits named (`rwxst`, or octal).
    Plain,
    /// `X`: execute bits too when the mode so far has any or it is a
    /// directory.
    XIfAnyX,
    /// `u`/`g`/`o`: the mode so far's bits of that class, in every class.
    Copy,
}

#[derive(Clone, Copy, Debug)]
struct Change {
    op: u8,
    flag: Flag,
    /// Bits the `ugoa` letters name; 0 when none were given (all then).
    who: u32,
    value: u32,
    /// Bits the clause names, which keep directories' set-id bits.
    mentioned: u32,
}

/// One change per operator of each comma-separated clause, in order.
fn compile(s: &[u8]) -> Option<Vec<Change>> {
    let mut out = Vec::new();
    for clause in s.split(|&c| c == b',') {
        let mut i = 0;
        let mut who = 0u32;
        while let Some(&c) = clause.get(i) {
            who |= match c {
                b'u' => 0o4700,
                b'g' => 0o2070,
                b'o' => 0o1007,
                b'a' => ALL,
                _ => break,
            };
            i += 1;
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
            let (mut value, mut flag, mut mentioned) = (0u32, Flag::Plain, 0u32);
            match clause.get(i) {
                Some(b'0'..=b'7') => {
                    let from = i;
                    while let Some(d @ b'0'..=b'7') = clause.get(i) {
                        value = value * 8 + (d - b'0') as u32;
                        if value > ALL {
                            return None;
                        }
                        i += 1;
                    }
                    // A number only stands alone after the operator.
                    if who != 0 || i < clause.len() {
                        return None;
                    }
                    mentioned = if i - from < 5 { (value & SETID) | 0o1777 } else { ALL };
                }
                Some(&c @ (b'u' | b'g' | b'o')) => {
                    flag = Flag::Copy;
                    value = match c {
                        b'u' => 0o700,
                        b'g' => 0o070,
                        _ => 0o007,
                    };
                    i += 1;
                }
                _ => {
                    while let Some(&c) = clause.get(i) {
                        match c {
                            b'r' => value |= 0o444,
                            b'w' => value |= 0o222,
                            b'x' => value |= 0o111,
                            b'X' => flag = Flag::XIfAnyX,
                            b's' => value |= SETID,
                            b't' => value |= 0o1000,
                            _ => break,
                        }
                        i += 1;
                    }
                }
            }
            if mentioned == 0 {
                mentioned = if who != 0 { who & value } else { value };
            }
            out.push(Change { op, flag, who, value, mentioned });
        }
    }
    Some(out)
}

/// The mode the changes make of 0 (find's starting mode; no umask).
fn adjust(changes: &[Change], dir: bool) -> u32 {
    let mut mode = 0u32;
    for c in changes {
        let omit = if dir { SETID & !c.mentioned } else { 0 };
        let mut value = c.value;
        match c.flag {
            Flag::Plain => {}
            Flag::Copy => {
                value &= mode;
                let spread = |bits: u32| if value & bits != 0 { bits } else { 0 };
                value |= spread(0o444) | spread(0o222) | spread(0o111);
            }
            Flag::XIfAnyX => {
                if mode & 0o111 != 0 || dir {
                    value |= 0o111;
                }
            }
        }
        let affected = if c.who != 0 { c.who } else { ALL };
        value &= affected & !omit;
        match c.op {
            b'+' => mode |= value,
            b'-' => mode &= !value,
            _ => {
                let keep = if c.who != 0 { !c.who } else { 0 } | omit;
                mode = (mode & keep) | value;
            }
        }
    }
    mode & ALL
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
        let one = |m| [m, m];
        assert_eq!(parse(b"644"), Some((PermKind::Exact, one(0o644))));
        assert_eq!(parse(b"-220"), Some((PermKind::All, one(0o220))));
        assert_eq!(parse(b"/u+w,g+w"), Some((PermKind::Any, one(0o220))));
        assert_eq!(parse(b"u=rwx,go=rx"), Some((PermKind::Exact, one(0o755))));
        assert_eq!(parse(b"a+r"), Some((PermKind::Exact, one(0o444))));
        assert_eq!(parse(b"+w"), Some((PermKind::Exact, one(0o222))));
        assert_eq!(parse(b"u+s"), Some((PermKind::Exact, one(0o4000))));
        assert_eq!(parse(b"999"), None);
        assert_eq!(parse(b"-u=rwX"), Some((PermKind::All, [0o600, 0o700])));
        assert_eq!(parse(b"/g+wX-w"), Some((PermKind::Any, [0, 0o010])));
        assert_eq!(parse(b"a+x,u+X"), Some((PermKind::Exact, one(0o111))));
        assert_eq!(parse(b"g=s"), Some((PermKind::Exact, [0o2000, 0o2000])));
        assert_eq!(parse(b"=s"), Some((PermKind::Exact, [0o6000, 0o6000])));
    }

    /// The scratch files the GNU tables were made on: name, whether a
    /// directory, permission bits (as `stat -c %a` showed them).
    const FILES: &[(&str, bool, u32)] = &[
        ("d0000", true, 0o0000),
        ("d0010", true, 0o0010),
        ("d0066", true, 0o0066),
        ("d0311", true, 0o0311),
        ("d0644", true, 0o0644),
        ("d0700", true, 0o0700),
        ("d0755", true, 0o0755),
        ("d1777", true, 0o1777),
        ("d2000", true, 0o2000),
        ("d2755", true, 0o2755),
        ("d4755", true, 0o4755),
        ("d7777", true, 0o7777),
        ("f0000", false, 0o0000),
        ("f0002", false, 0o0002),
        ("f0007", false, 0o0007),
        ("f0010", false, 0o0010),
        ("f0020", false, 0o0020),
        ("f0070", false, 0o0070),
        ("f0111", false, 0o0111),
        ("f0222", false, 0o0222),
        ("f0400", false, 0o0400),
        ("f0600", false, 0o0600),
        ("f0640", false, 0o0640),
        ("f0644", false, 0o0644),
        ("f0711", false, 0o0711),
        ("f0755", false, 0o0755),
        ("f0777", false, 0o0777),
        ("f1000", false, 0o1000),
        ("f1777", false, 0o1777),
        ("f2000", false, 0o2000),
        ("f2710", false, 0o2710),
        ("f2755", false, 0o2755),
        ("f4000", false, 0o4000),
        ("f4755", false, 0o4755),
        ("f6777", false, 0o6777),
        ("f7777", false, 0o7777),
    ];

    /// The names of the FILES that `-perm arg` matches (in name order,
    /// space-separated), as the walk tests them: the directory mode for
    /// directories; None when the mode is refused.
    fn matching(arg: &str) -> Option<String> {
        let (kind, mode) = parse(arg.as_bytes())?;
        let names: Vec<&str> = FILES
            .iter()
            .filter(|&&(_, dir, bits)| {
                let kind_bits = if dir { libc::S_IFDIR } else { libc::S_IFREG };
                test(kind, mode[dir as usize], bits | kind_bits)
            })
            .map(|f| f.0)
            .collect();
        Some(names.join(" "))
    }

    fn check(rows: &[(&str, Option<&str>)]) {
        let bad: Vec<String> = rows
            .iter()
            .filter_map(|&(arg, want)| {
                let got = matching(arg);
                (got.as_deref() != want)
                    .then(|| format!("{arg:?}:\n  ours:  {got:?}\n  GNU's: {want:?}"))
            })
            .collect();
        assert!(bad.is_empty(), "{} of {} rows differ:\n{}", bad.len(), rows.len(), bad.join("\n"));
    }

    // Octal modes, exact, `-` (all of these bits) and `/` (any of them; none given matches all).
    // GNU: in a directory of the files in FILES (made with mkdir/touch and
    // chmod): LC_ALL=C find . -mindepth 1 -perm MODE -printf '%f\n' | sort
    // (None: exit 1, "invalid mode").
    #[test]
    fn octal_modes() {
        check(&[
            ("644", Some("d0644 f0644")),
            ("-644", Some("d0644 d0755 d1777 d2755 d4755 d7777 f0644 f0755 f0777 f1777 f2755 f4755 f6777 f7777")),
            ("/644", Some("d0066 d0311 d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0007 f0070 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("755", Some("d0755 f0755")),
            ("-755", Some("d0755 d1777 d2755 d4755 d7777 f0755 f0777 f1777 f2755 f4755 f6777 f7777")),
            ("/755", Some("d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0007 f0010 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("0", Some("d0000 f0000")),
            ("-0", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("/0", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("7777", Some("d7777 f7777")),
            ("-7777", Some("d7777 f7777")),
            ("/7777", Some("d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("4000", Some("f4000")),
            ("-4000", Some("d4755 d7777 f4000 f4755 f6777 f7777")),
            ("/4000", Some("d4755 d7777 f4000 f4755 f6777 f7777")),
            ("2000", Some("d2000 f2000")),
            ("-2000", Some("d2000 d2755 d7777 f2000 f2710 f2755 f6777 f7777")),
            ("/2000", Some("d2000 d2755 d7777 f2000 f2710 f2755 f6777 f7777")),
            ("1000", Some("f1000")),
            ("-1000", Some("d1777 d7777 f1000 f1777 f7777")),
            ("/1000", Some("d1777 d7777 f1000 f1777 f7777")),
            ("111", Some("f0111")),
            ("-111", Some("d0311 d0755 d1777 d2755 d4755 d7777 f0111 f0711 f0755 f0777 f1777 f2755 f4755 f6777 f7777")),
            ("/111", Some("d0010 d0311 d0700 d0755 d1777 d2755 d4755 d7777 f0007 f0010 f0070 f0111 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("020", Some("f0020")),
            ("-020", Some("d0066 d1777 d7777 f0020 f0070 f0222 f0777 f1777 f6777 f7777")),
            ("/020", Some("d0066 d1777 d7777 f0020 f0070 f0222 f0777 f1777 f6777 f7777")),
            ("2710", Some("f2710")),
            ("-2710", Some("d2755 d7777 f2710 f2755 f6777 f7777")),
            ("/2710", Some("d0010 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0010 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2000 f2710 f2755 f4755 f6777 f7777")),
        ]);
    }

    // Symbolic modes: who, `+ - =`, r w x s t; set-id bits only where `u`/`g` (or nobody: all) is named.
    // GNU: in a directory of the files in FILES (made with mkdir/touch and
    // chmod): LC_ALL=C find . -mindepth 1 -perm MODE -printf '%f\n' | sort
    // (None: exit 1, "invalid mode").
    #[test]
    fn symbolic_modes() {
        check(&[
            ("u=rwx,g+w", Some("")),
            ("-u=rwx,g+w", Some("d1777 d7777 f0777 f1777 f6777 f7777")),
            ("/u=rwx,g+w", Some("d0066 d0311 d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("a-x", Some("d0000 f0000")),
            ("-a-x", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("/a-x", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("+t", Some("f1000")),
            ("-+t", Some("d1777 d7777 f1000 f1777 f7777")),
            ("/+t", Some("d1777 d7777 f1000 f1777 f7777")),
            ("u+s", Some("f4000")),
            ("-u+s", Some("d4755 d7777 f4000 f4755 f6777 f7777")),
            ("/u+s", Some("d4755 d7777 f4000 f4755 f6777 f7777")),
            ("g+s", Some("d2000 f2000")),
            ("-g+s", Some("d2000 d2755 d7777 f2000 f2710 f2755 f6777 f7777")),
            ("/g+s", Some("d2000 d2755 d7777 f2000 f2710 f2755 f6777 f7777")),
            ("o=t", Some("f1000")),
            ("-o=t", Some("d1777 d7777 f1000 f1777 f7777")),
            ("/o=t", Some("d1777 d7777 f1000 f1777 f7777")),
            ("+rwx", Some("f0777")),
            ("-+rwx", Some("d1777 d7777 f0777 f1777 f6777 f7777")),
            ("/+rwx", Some("d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("=s", Some("")),
            ("-=s", Some("d7777 f6777 f7777")),
            ("/=s", Some("d2000 d2755 d4755 d7777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("u+t", Some("d0000 f0000")),
            ("-u+t", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("/u+t", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("o+t", Some("f1000")),
            ("-o+t", Some("d1777 d7777 f1000 f1777 f7777")),
            ("/o+t", Some("d1777 d7777 f1000 f1777 f7777")),
        ]);
    }

    // `X` (execute for directories, or where some x is already set) and copies from u/g/o of the mode built so far.
    // GNU: in a directory of the files in FILES (made with mkdir/touch and
    // chmod): LC_ALL=C find . -mindepth 1 -perm MODE -printf '%f\n' | sort
    // (None: exit 1, "invalid mode").
    #[test]
    fn symbolic_copies_and_capital_x() {
        check(&[
            ("g=u", Some("d0000 f0000")),
            ("-g=u", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("/g=u", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("ug+X", Some("f0000")),
            ("-ug+X", Some("d0311 d0755 d1777 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("/ug+X", Some("d0010 d0311 d0700 d0755 d1777 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("u=rwX", Some("d0700 f0600")),
            ("-u=rwX", Some("d0700 d0755 d1777 d2755 d4755 d7777 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("/u=rwX", Some("d0311 d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("a+X", Some("f0000")),
            ("-a+X", Some("d0311 d0755 d1777 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("/a+X", Some("d0010 d0311 d0700 d0755 d1777 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("=X", Some("f0000")),
            ("-=X", Some("d0311 d0755 d1777 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("/=X", Some("d0010 d0311 d0700 d0755 d1777 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("u+x,g=u", Some("")),
            ("-u+x,g=u", Some("d0311 d0755 d1777 d2755 d4755 d7777 f0111 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("/u+x,g=u", Some("d0010 d0311 d0700 d0755 d1777 d2755 d4755 d7777 f0010 f0070 f0111 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("go=u-w", Some("d0000 f0000")),
            ("-go=u-w", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("/go=u-w", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
        ]);
    }

    // Comma-separated clauses applied in order, starting from no bits.
    // GNU: in a directory of the files in FILES (made with mkdir/touch and
    // chmod): LC_ALL=C find . -mindepth 1 -perm MODE -printf '%f\n' | sort
    // (None: exit 1, "invalid mode").
    #[test]
    fn symbolic_lists() {
        check(&[
            ("a=r,u+w", Some("d0644 f0644")),
            ("-a=r,u+w", Some("d0644 d0755 d1777 d2755 d4755 d7777 f0644 f0755 f0777 f1777 f2755 f4755 f6777 f7777")),
            ("/a=r,u+w", Some("d0066 d0311 d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0007 f0070 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("g-s,u+r", Some("f0400")),
            ("-g-s,u+r", Some("d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("/g-s,u+r", Some("d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("ugo=rx,u+w", Some("d0755 f0755")),
            ("-ugo=rx,u+w", Some("d0755 d1777 d2755 d4755 d7777 f0755 f0777 f1777 f2755 f4755 f6777 f7777")),
            ("/ugo=rx,u+w", Some("d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0007 f0010 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("u=rw,g=u,o=g", Some("")),
            ("-u=rw,g=u,o=g", Some("d1777 d7777 f0777 f1777 f6777 f7777")),
            ("/u=rw,g=u,o=g", Some("d0066 d0311 d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0002 f0007 f0020 f0070 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("=,u+r", Some("f0400")),
            ("-=,u+r", Some("d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("/=,u+r", Some("d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("a=rwx,o-rwx", Some("")),
            ("-a=rwx,o-rwx", Some("d1777 d7777 f0777 f1777 f6777 f7777")),
            ("/a=rwx,o-rwx", Some("d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("u=x,u+X", Some("")),
            ("-u=x,u+X", Some("d0311 d0700 d0755 d1777 d2755 d4755 d7777 f0111 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("/u=x,u+X", Some("d0311 d0700 d0755 d1777 d2755 d4755 d7777 f0111 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
        ]);
    }

    // What GNU refuses (exit 1: invalid mode), and odd modes it takes.
    // GNU: in a directory of the files in FILES (made with mkdir/touch and
    // chmod): LC_ALL=C find . -mindepth 1 -perm MODE -printf '%f\n' | sort
    // (None: exit 1, "invalid mode").
    #[test]
    fn refused_and_odd_modes() {
        check(&[
            ("999", None),
            ("u+q", None),
            ("", None),
            ("-", None),
            ("/", None),
            ("17777", None),
            ("u=rwx,", None),
            (",u=r", None),
            ("u", None),
            ("ug", None),
            ("8", None),
            ("u+r,", None),
            ("-/644", None),
            ("a+9", None),
            ("+644", None),
            ("+0", None),
            ("+7", None),
            ("+8", None),
            ("u=644", None),
            ("+", Some("d0000 f0000")),
            ("--644", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("=644", Some("d0644 f0644")),
            ("u+rw+x", Some("d0700")),
            ("-+644", Some("d0644 d0755 d1777 d2755 d4755 d7777 f0644 f0755 f0777 f1777 f2755 f4755 f6777 f7777")),
            ("/+644", Some("d0066 d0311 d0644 d0700 d0755 d1777 d2755 d4755 d7777 f0007 f0070 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1777 f2710 f2755 f4755 f6777 f7777")),
            ("+t", Some("f1000")),
            ("ug=s", Some("")),
            ("o-t", Some("d0000 f0000")),
            ("a=", Some("d0000 f0000")),
            ("u=,g=,o=", Some("d0000 f0000")),
            ("/o-w", Some("d0000 d0010 d0066 d0311 d0644 d0700 d0755 d1777 d2000 d2755 d4755 d7777 f0000 f0002 f0007 f0010 f0020 f0070 f0111 f0222 f0400 f0600 f0640 f0644 f0711 f0755 f0777 f1000 f1777 f2000 f2710 f2755 f4000 f4755 f6777 f7777")),
            ("-u=s", Some("d4755 d7777 f4000 f4755 f6777 f7777")),
        ]);
    }
}
