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

    /// The scratch files the GNU tables were made on: `d` for a directory
    /// or `f` for a file, then the permission bits (as `stat -c %a` showed
    /// them) in octal.
    const FILES: &[&str] = &[
        "d0000", "d0010", "d0066", "d0311", "d0644", "d0700", "d0755", "d1777", "d2000", "d2755",
        "d4755", "d7777", "f0000", "f0002", "f0007", "f0010", "f0020", "f0070", "f0111", "f0222",
        "f0400", "f0600", "f0640", "f0644", "f0711", "f0755", "f0777", "f1000", "f1777", "f2000",
        "f2710", "f2755", "f4000", "f4755", "f6777", "f7777",
    ];

    /// The names of the FILES that `-perm arg` matches (in name order,
    /// space-separated), as the walk tests them: the directory mode for
    /// directories; None when the mode is refused.
    fn matching(arg: &str) -> Option<String> {
        let (kind, mode) = parse(arg.as_bytes())?;
        let names: Vec<&str> = FILES
            .iter()
            .copied()
            .filter(|name| {
                let dir = name.starts_with('d');
                let bits = u32::from_str_radix(&name[1..], 8).expect("octal mode in the name");
                let kind_bits = if dir { libc::S_IFDIR } else { libc::S_IFREG };
                test(kind, mode[dir as usize], bits | kind_bits)
            })
            .collect();
        Some(names.join(" "))
    }

    /// Checks `-perm MODE` for each row of the section `name` of perm.tsv
    /// against the files GNU matched; lists every row that differs.
    fn check(name: &str, count: usize) {
        use crate::gnu_answers::{section, text};
        section(include_str!("gnu_answers/perm.tsv"), name, count).check(|row| {
            let (arg, want) = (text(&row[0]), text(&row[1]));
            let want = (want != "invalid mode").then_some(want);
            let got = matching(arg);
            (got.as_deref() != want)
                .then(|| format!("{arg:?}:\n  ours:  {got:?}\n  GNU's: {want:?}"))
        });
    }

    // Octal modes, exact, `-` (all of these bits) and `/` (any of them; none given matches all).
    // GNU's answers: gnu_answers/perm.tsv.
    #[test]
    fn octal_modes() {
        check("octal_modes", 30);
    }

    // Symbolic modes: who, `+ - =`, r w x s t; set-id bits only where `u`/`g` (or nobody: all) is named.
    // GNU's answers: gnu_answers/perm.tsv.
    #[test]
    fn symbolic_modes() {
        check("symbolic_modes", 30);
    }

    // `X` (execute for directories, or where some x is already set) and copies from u/g/o of the mode built so far.
    // GNU's answers: gnu_answers/perm.tsv.
    #[test]
    fn symbolic_copies_and_capital_x() {
        check("symbolic_copies_and_capital_x", 21);
    }

    // Comma-separated clauses applied in order, starting from no bits.
    // GNU's answers: gnu_answers/perm.tsv.
    #[test]
    fn symbolic_lists() {
        check("symbolic_lists", 21);
    }

    // What GNU refuses (exit 1: invalid mode), and odd modes it takes.
    // GNU's answers: gnu_answers/perm.tsv.
    #[test]
    fn refused_and_odd_modes() {
        check("refused_and_odd_modes", 32);
    }
}
