//! `LS_COLORS`: parsing, GNU's built-in defaults, and choosing the colour
//! of one file the way GNU ls 9.1 does.

use crate::entry::{Entry, FileType};

/// The indicator keys, in GNU's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Key {
    Left,
    Right,
    End,
    Reset,
    Norm,
    File,
    Dir,
    Link,
    Fifo,
    Sock,
    Blk,
    Chr,
    Missing,
    Orphan,
    Exec,
    Door,
    Setuid,
    Setgid,
    Sticky,
    OtherWritable,
    StickyOtherWritable,
    Cap,
    MultiHardlink,
    ClrToEol,
}

const KEYS: [&str; 24] = [
    "lc", "rc", "ec", "rs", "no", "fi", "di", "ln", "pi", "so", "bd", "cd", "mi", "or", "ex", "do",
    "su", "sg", "st", "ow", "tw", "ca", "mh", "cl",
];

const ALL_KEYS: [Key; 24] = [
    Key::Left,
    Key::Right,
    Key::End,
    Key::Reset,
    Key::Norm,
    Key::File,
    Key::Dir,
    Key::Link,
    Key::Fifo,
    Key::Sock,
    Key::Blk,
    Key::Chr,
    Key::Missing,
    Key::Orphan,
    Key::Exec,
    Key::Door,
    Key::Setuid,
    Key::Setgid,
    Key::Sticky,
    Key::OtherWritable,
    Key::StickyOtherWritable,
    Key::Cap,
    Key::MultiHardlink,
    Key::ClrToEol,
];

/// Parsed colour settings.
#[derive(Clone, Debug)]
pub struct Colors {
    seq: [Option<Vec<u8>>; 24],
    /// `*suffix=seq` entries, later entries first (they take precedence).
    exts: Vec<(Vec<u8>, Vec<u8>)>,
    /// `ln=target`: colour links as what they point to.
    pub link_as_target: bool,
}

/// Terminal names GNU's built-in colour database recognises (used only
/// when neither LS_COLORS nor COLORTERM is set).
const TERMS: &[&str] = &[
    "Eterm",
    "ansi",
    "*color*",
    "con[0-9]*x[0-9]*",
    "cons25",
    "console",
    "cygwin",
    "*direct*",
    "dtterm",
    "gnome",
    "hurd",
    "jfbterm",
    "konsole",
    "kterm",
    "linux",
    "linux-c",
    "mlterm",
    "putty",
    "rxvt*",
    "screen*",
    "st",
    "terminator",
    "tmux*",
    "vt100",
    "xterm*",
];

/// Outcome of reading the environment.
pub enum Setup {
    Colors(Box<Colors>),
    /// Colour turned off (unknown terminal, no LS_COLORS).
    Off,
    /// LS_COLORS could not be parsed: GNU warns (naming an unknown key if
    /// that was the problem) and turns colour off.
    Unparsable(Option<Vec<u8>>),
}

impl Colors {
    /// GNU ls's built-in defaults.
    pub fn builtin() -> Colors {
        let mut seq: [Option<Vec<u8>>; 24] = Default::default();
        let mut set = |k: Key, v: &[u8]| seq[k as usize] = Some(v.to_vec());
        set(Key::Left, b"\x1b[");
        set(Key::Right, b"m");
        set(Key::Reset, b"0");
        set(Key::Dir, b"01;34");
        set(Key::Link, b"01;36");
        set(Key::Fifo, b"33");
        set(Key::Sock, b"01;35");
        set(Key::Blk, b"01;33");
        set(Key::Chr, b"01;33");
        set(Key::Exec, b"01;32");
        set(Key::Door, b"01;35");
        set(Key::Setuid, b"37;41");
        set(Key::Setgid, b"30;43");
        set(Key::Sticky, b"37;44");
        set(Key::OtherWritable, b"34;42");
        set(Key::StickyOtherWritable, b"30;42");
        set(Key::ClrToEol, b"\x1b[K");
        Colors { seq, exts: Vec::new(), link_as_target: false }
    }

    /// Reads LS_COLORS / COLORTERM / TERM as GNU does.
    pub fn from_env(
        ls_colors: Option<&[u8]>,
        colorterm: Option<&[u8]>,
        term: Option<&[u8]>,
    ) -> Setup {
        match ls_colors {
            Some(v) if !v.is_empty() => match Colors::parse(v) {
                Ok(c) => Setup::Colors(Box::new(c)),
                Err(k) => Setup::Unparsable(k),
            },
            _ => {
                let ct = colorterm.is_some_and(|c| !c.is_empty());
                let known = term.is_some_and(|t| {
                    !t.is_empty()
                        && TERMS
                            .iter()
                            .any(|p| cli::glob::fnmatch(p.as_bytes(), t, Default::default()))
                });
                if ct || known {
                    Setup::Colors(Box::new(Colors::builtin()))
                } else {
                    Setup::Off
                }
            }
        }
    }

    /// Parses an LS_COLORS value on top of the built-in defaults.
    #[cfg_attr(ringutils_small, optimize(size))]
    pub fn parse(v: &[u8]) -> Result<Colors, Option<Vec<u8>>> {
        let mut c = Colors::builtin();
        let mut i = 0;
        while i < v.len() {
            match v[i] {
                b':' => i += 1,
                b'*' => {
                    let (suffix, next) = unescape(v, i + 1, true).ok_or(None)?;
                    if v.get(next) != Some(&b'=') {
                        return Err(None);
                    }
                    let (val, next) = unescape(v, next + 1, false).ok_or(None)?;
                    c.exts.insert(0, (suffix, val));
                    i = next;
                }
                _ => {
                    let key = v.get(i..i + 2).ok_or(None)?;
                    if v.get(i + 2) != Some(&b'=') {
                        return Err(None);
                    }
                    // A value that doesn't parse is reported as GNU 9.1 does:
                    // as an unrecognized prefix (its check after the key
                    // lookup sees the failed state), then unparsable.
                    let (val, next) =
                        unescape(v, i + 3, false).ok_or_else(|| Some(key.to_vec()))?;
                    match KEYS.iter().position(|k| k.as_bytes() == key) {
                        Some(idx) => {
                            if ALL_KEYS[idx] == Key::Link && val == b"target" {
                                c.link_as_target = true;
                            } else {
                                c.seq[idx] = Some(val);
                            }
                        }
                        None => return Err(Some(key.to_vec())),
                    }
                    i = next;
                }
            }
        }
        Ok(c)
    }

    pub fn get(&self, k: Key) -> Option<&[u8]> {
        self.seq[k as usize].as_deref()
    }

    /// GNU's is_colored: set and not empty, "0" or "00".
    pub fn is_colored(&self, k: Key) -> bool {
        match self.get(k) {
            None => false,
            Some(s) => !(s.is_empty() || s == b"0" || s == b"00"),
        }
    }

    /// Whether stat results beyond d_type change colours of regular files.
    pub fn needs_regular_stat(&self) -> bool {
        self.is_colored(Key::Exec)
            || self.is_colored(Key::Setuid)
            || self.is_colored(Key::Setgid)
            // GNU stats regular files when `ca` is coloured even though
            // it never finds a capability (see `for_entry`).
            || self.is_colored(Key::Cap)
            || self.is_colored(Key::MultiHardlink)
    }

    pub fn needs_dir_stat(&self) -> bool {
        self.is_colored(Key::OtherWritable)
            || self.is_colored(Key::Sticky)
            || self.is_colored(Key::StickyOtherWritable)
    }

    /// GNU's check_symlink_mode: links must be followed to colour them.
    pub fn needs_link_target(&self, long: bool) -> bool {
        self.is_colored(Key::Orphan)
            || self.link_as_target
            || (self.is_colored(Key::Missing) && long)
    }

    /// The sequence for `e` (or its link target when `target`), `None` when
    /// it is printed uncoloured.
    pub fn for_entry(&self, e: &Entry, target: bool) -> Option<&[u8]> {
        let (name, mode, linkok, stat_ok): (&[u8], u32, i8, bool) = if target {
            let n = e.target.as_deref().unwrap_or(&[]);
            (n, e.target_mode.unwrap_or(0), if e.target_mode.is_some() { 0 } else { -1 }, true)
        } else {
            let mode = match (self.link_as_target, e.target_mode) {
                (true, Some(m)) => m,
                _ => e.meta.map_or(0, |m| m.mode),
            };
            let linkok = i8::from(e.target_mode.is_some());
            (&e.name, mode, linkok, e.meta.is_some())
        };
        let mut key;
        if linkok == -1 && self.is_colored(Key::Missing) {
            key = Key::Missing;
        } else if !stat_ok {
            key = match FileType::from_dtype(e.dtype) {
                FileType::Unknown => Key::Orphan,
                FileType::Fifo => Key::Fifo,
                FileType::Char => Key::Chr,
                FileType::Dir => Key::Dir,
                FileType::Block => Key::Blk,
                FileType::Regular => Key::File,
                FileType::Link => Key::Link,
                FileType::Socket => Key::Sock,
            };
        } else {
            key = match FileType::from_mode(mode) {
                FileType::Regular => {
                    // Never `ca`: GNU's ls as Debian builds it (without
                    // libcap) finds no capability, so neither does lsr,
                    // which then asks no getxattr per file for one.
                    let nlink = e.meta.map_or(1, |m| m.nlink);
                    if mode & libc::S_ISUID != 0 && self.is_colored(Key::Setuid) {
                        Key::Setuid
                    } else if mode & libc::S_ISGID != 0 && self.is_colored(Key::Setgid) {
                        Key::Setgid
                    } else if mode & 0o111 != 0 && self.is_colored(Key::Exec) {
                        Key::Exec
                    } else if nlink > 1 && self.is_colored(Key::MultiHardlink) && !target {
                        Key::MultiHardlink
                    } else {
                        Key::File
                    }
                }
                FileType::Dir => {
                    if mode & libc::S_ISVTX != 0
                        && mode & 0o002 != 0
                        && self.is_colored(Key::StickyOtherWritable)
                    {
                        Key::StickyOtherWritable
                    } else if mode & 0o002 != 0 && self.is_colored(Key::OtherWritable) {
                        Key::OtherWritable
                    } else if mode & libc::S_ISVTX != 0 && self.is_colored(Key::Sticky) {
                        Key::Sticky
                    } else {
                        Key::Dir
                    }
                }
                FileType::Link => Key::Link,
                FileType::Fifo => Key::Fifo,
                FileType::Socket => Key::Sock,
                FileType::Block => Key::Blk,
                FileType::Char => Key::Chr,
                FileType::Unknown => Key::Orphan,
            };
        }
        if key == Key::File {
            for (suffix, seq) in &self.exts {
                if suffix.len() <= name.len()
                    && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
                {
                    return Some(seq);
                }
            }
        }
        if key == Key::Link && linkok == 0 && (self.link_as_target || self.is_colored(Key::Orphan))
        {
            key = Key::Orphan;
        }
        self.get(key)
    }
}

/// Decodes one LS_COLORS field starting at `i` up to ':' (or '=' for a
/// suffix): backslash escapes and ^X caret notation. Returns the bytes and
/// the index of the terminator.
fn unescape(v: &[u8], mut i: usize, stop_at_eq: bool) -> Option<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    while i < v.len() {
        let b = v[i];
        if b == b':' || (stop_at_eq && b == b'=') {
            break;
        }
        match b {
            b'\\' => {
                i += 1;
                let c = *v.get(i)?;
                match c {
                    // Every digit counts, in a byte that wraps, as GNU's
                    // get_funky_string does (`\1234` is one byte, 0234).
                    b'0'..=b'7' => {
                        let mut n: u8 = 0;
                        while i < v.len() && (b'0'..=b'7').contains(&v[i]) {
                            n = n.wrapping_shl(3).wrapping_add(v[i] - b'0');
                            i += 1;
                        }
                        out.push(n);
                        continue;
                    }
                    b'x' | b'X' => {
                        i += 1;
                        let mut n: u8 = 0;
                        while i < v.len() && v[i].is_ascii_hexdigit() {
                            let d = (v[i] as char).to_digit(16).unwrap_or(0) as u8;
                            n = n.wrapping_shl(4).wrapping_add(d);
                            i += 1;
                        }
                        out.push(n);
                        continue;
                    }
                    b'a' => out.push(7),
                    b'b' => out.push(8),
                    b'e' => out.push(27),
                    b'f' => out.push(12),
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    b'v' => out.push(11),
                    b'?' => out.push(127),
                    b'_' => out.push(b' '),
                    other => out.push(other),
                }
                i += 1;
            }
            b'^' => {
                i += 1;
                let c = *v.get(i)?;
                if (b'@'..=b'~').contains(&c) {
                    out.push(c & 0x1f);
                } else if c == b'?' {
                    out.push(127);
                } else {
                    return None;
                }
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some((out, i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::Meta;

    #[test]
    fn parses_keys_suffixes_and_escapes() {
        let c = Colors::parse(b"di=01;31:*.TXT=32:ln=target:lc=\\e[:*.txt=33").unwrap();
        assert_eq!(c.get(Key::Dir), Some(&b"01;31"[..]));
        assert!(c.link_as_target);
        assert_eq!(c.get(Key::Left), Some(&b"\x1b["[..]));
        let mut e = Entry::new(b"a.txt", ringio::dtype::REG, 1);
        e.meta = Some(Meta { mode: libc::S_IFREG | 0o644, nlink: 1, ..Meta::default() });
        // Later entries win, case-insensitively.
        assert_eq!(c.for_entry(&e, false), Some(&b"33"[..]));
        assert!(Colors::parse(b"di").is_err());
        assert_eq!(Colors::parse(b"zz=1").err(), Some(Some(b"zz".to_vec())));
        assert_eq!(Colors::parse(b"no=\\").err(), Some(Some(b"no".to_vec())));
        assert_eq!(Colors::parse(b"*.x=\\").err(), Some(None));
        let c = Colors::parse(b"fi=\\1234:di=\\x123456789abcdef0123").unwrap();
        assert_eq!(c.get(Key::File), Some(&[0o234u8][..]));
        assert_eq!(c.get(Key::Dir), Some(&[0x23u8][..]));
    }
}
