//! -printf formats: parsed once into items, rendered per file from an
//! [`Info`] that fetches what a directive needs (lazily: a format without
//! stat directives never causes a stat).

use crate::parse::translated;
use crate::timefmt;
use cli::timefmt::Timestamp;

/// What a format can ask about the current file.
pub trait Info {
    fn path(&self) -> &[u8];
    /// The starting point this file was found under.
    fn root(&self) -> &[u8];
    fn depth(&self) -> usize;
    /// `ls`-style type letter of the file itself (`d`, `f`, `l`…).
    fn type_letter(&mut self) -> u8;
    /// Type letter following symlinks: `L` loop, `N` dangling, `?` error.
    fn follow_type_letter(&mut self) -> u8;
    /// The stat (None after an error, which the implementation reported).
    fn stat(&mut self) -> Option<ringio::Statx>;
    /// Birth time, if the file system records it.
    fn birth(&mut self) -> Option<Timestamp>;
    fn link_target(&mut self) -> Option<Vec<u8>>;
    /// The SELinux context (the `security.selinux` attribute, as GNU's
    /// getfilecon reads it), or None after the implementation reported
    /// why not.
    fn context(&mut self) -> Option<Vec<u8>>;
    fn user(&mut self, uid: u32) -> Option<Vec<u8>>;
    fn group(&mut self, gid: u32) -> Option<Vec<u8>>;
    fn fstype(&mut self, dev: u64) -> Vec<u8>;
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    hash: bool,
    zero: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// %a %c %t: ctime-style access/change/modify time.
    CTime(u8),
    /// %A? %C? %T?: strftime letter of a time.
    Time(u8, u8),
    Blocks512,
    Blocks1k,
    Size,
    Depth,
    Dev,
    Base,
    FsType,
    Group,
    Gid,
    Dirname,
    Root,
    Inode,
    Link,
    ModeOctal,
    ModeString,
    Links,
    Path,
    RelPath,
    Sparse,
    User,
    Uid,
    Type,
    FollowType,
    Context,
}

impl Dir {
    /// Whether the directive prints something only the file's stat knows.
    pub fn needs_stat(self) -> bool {
        !matches!(
            self,
            Dir::Depth
                | Dir::Base
                | Dir::Dirname
                | Dir::Root
                | Dir::Link
                | Dir::Path
                | Dir::RelPath
                | Dir::Type
                | Dir::FollowType
                | Dir::Context
        )
    }
}

#[derive(Clone, Debug)]
pub enum Item {
    /// Text printed as it is (escapes already decoded).
    Lit(Vec<u8>),
    /// A `%` directive: its flags, width, precision and letter(s).
    Directive(Spec, Dir),
    /// `\c`: stop here and flush.
    Stop,
}

#[derive(Clone, Debug)]
pub struct Format {
    pub items: Vec<Item>,
}

/// A format error, GNU's message text.
#[derive(Debug)]
pub struct FormatError(pub String);

impl Format {
    /// Parses a format; warnings (unknown escapes/directives) go to `warn`.
    pub fn parse(f: &[u8], warn: &mut dyn FnMut(String)) -> Result<Format, FormatError> {
        let mut items = Vec::new();
        let mut lit = Vec::new();
        let mut i = 0;
        while i < f.len() {
            let c = f[i];
            if c == b'\\' {
                i += 1;
                escape(f, &mut i, &mut items, &mut lit, warn);
                continue;
            }
            if c != b'%' {
                lit.push(c);
                i += 1;
                continue;
            }
            // A directive.
            let start = i;
            i += 1;
            if i >= f.len() {
                return Err(FormatError(translated(c"error: %s at end of format string", &[b"%"])));
            }
            if f[i] == b'%' {
                lit.push(b'%');
                i += 1;
                continue;
            }
            let sp = spec(f, &mut i);
            let Some(&d) = f.get(i) else {
                // Flags, a width or a precision and then the end: GNU
                // reads the string's terminating NUL as the directive.
                return Err(FormatError(translated(
                    c"error: the format directive `%%%c' is reserved for future use",
                    &[&[0]],
                )));
            };
            i += 1;
            let dir = match d {
                b'A' | b'B' | b'C' | b'T' => {
                    let Some(&k) = f.get(i) else {
                        // GNU warns and prints the directive as it is.
                        warn(translated(
                            c"warning: format directive `%%%c' should be followed by another character",
                            &[&[d]],
                        ));
                        lit.extend_from_slice(&f[start..i]);
                        continue;
                    };
                    i += 1;
                    Dir::Time(d, k)
                }
                // GNU keeps these for later and refuses the format.
                b'{' | b'[' | b'(' => {
                    return Err(FormatError(translated(
                        c"error: the format directive `%%%c' is reserved for future use",
                        &[&[d]],
                    )));
                }
                _ => match simple_directive(d) {
                    Some(dir) => dir,
                    None => {
                        warn(translated(c"warning: unrecognized format directive `%%%c'", &[&[d]]));
                        lit.extend_from_slice(&f[start..i]);
                        continue;
                    }
                },
            };
            flush_lit(&mut items, &mut lit);
            items.push(Item::Directive(sp, dir));
        }
        flush_lit(&mut items, &mut lit);
        Ok(Format { items })
    }

    /// Whether rendering needs the file's stat.
    pub fn needs_stat(&self) -> bool {
        self.items.iter().any(|it| matches!(it, Item::Directive(_, d) if d.needs_stat()))
    }

    /// Renders into `out`. Returns false after `\c` (stop, flush). For a
    /// terminal (`tty`), the text of every directive (names above all) has
    /// its non-printable bytes shown as `?`, as GNU find's print_quoted
    /// does; the format's own text is left alone.
    pub fn render(&self, out: &mut Vec<u8>, info: &mut dyn Info, tty: bool) -> bool {
        let mut tmp = Vec::new();
        let mut masked = Vec::new();
        for it in &self.items {
            match it {
                Item::Lit(l) => out.extend_from_slice(l),
                Item::Stop => return false,
                Item::Directive(sp, d) => {
                    tmp.clear();
                    match directive(&mut tmp, *d, info) {
                        Value::Str if tty => {
                            masked.clear();
                            cli::quote::qmark_into(&mut masked, &tmp);
                            pad_str(out, &masked, sp)
                        }
                        Value::Str => pad_str(out, &tmp, sp),
                        Value::Float(v) => {
                            let fs = libcw::locale::FloatSpec {
                                minus: sp.minus,
                                plus: sp.plus,
                                space: sp.space,
                                hash: sp.hash,
                                zero: sp.zero,
                                width: sp.width,
                                prec: sp.prec,
                            };
                            libcw::locale::printf_double(out, fs, b'g', v)
                        }
                        Value::Int(n) => pad_int(out, n, sp, 10),
                        Value::Oct(n) => pad_int(out, n, sp, 8),
                    }
                }
            }
        }
        true
    }
}

/// The escape after a `\` at `f[*i]`: its byte goes to `lit`, `\c` ends
/// the format's output, others are warned about and kept as written.
fn escape(
    f: &[u8],
    i: &mut usize,
    items: &mut Vec<Item>,
    lit: &mut Vec<u8>,
    warn: &mut dyn FnMut(String),
) {
    let Some(&e) = f.get(*i) else {
        warn(translated(c"warning: escape `\\' followed by nothing at all", &[]));
        lit.push(b'\\');
        return;
    };
    *i += 1;
    match e {
        b'a' => lit.push(7),
        b'b' => lit.push(8),
        b'f' => lit.push(12),
        b'n' => lit.push(b'\n'),
        b'r' => lit.push(b'\r'),
        b't' => lit.push(b'\t'),
        b'v' => lit.push(11),
        b'\\' => lit.push(b'\\'),
        b'c' => {
            flush_lit(items, lit);
            items.push(Item::Stop);
        }
        b'0'..=b'7' => {
            let mut v = (e - b'0') as u32;
            let mut n = 1;
            while n < 3 && *i < f.len() && (b'0'..=b'7').contains(&f[*i]) {
                v = v * 8 + (f[*i] - b'0') as u32;
                *i += 1;
                n += 1;
            }
            lit.push(v as u8);
        }
        other => {
            warn(translated(c"warning: unrecognized escape `\\%c'", &[&[other]]));
            lit.push(b'\\');
            lit.push(other);
        }
    }
}

/// A directive's flags, width and precision, from `f[*i]` on.
fn spec(f: &[u8], i: &mut usize) -> Spec {
    let mut sp = Spec::default();
    while *i < f.len() {
        match f[*i] {
            b'-' => sp.minus = true,
            b'+' => sp.plus = true,
            b' ' => sp.space = true,
            b'#' => sp.hash = true,
            b'0' => sp.zero = true,
            _ => break,
        }
        *i += 1;
    }
    let num = |i: &mut usize| {
        let s = *i;
        while *i < f.len() && f[*i].is_ascii_digit() {
            *i += 1;
        }
        std::str::from_utf8(&f[s..*i]).ok().and_then(|t| t.parse::<usize>().ok())
    };
    sp.width = num(i);
    if *i < f.len() && f[*i] == b'.' {
        *i += 1;
        sp.prec = Some(num(i).unwrap_or(0));
    }
    sp
}

/// The directive a letter names, for letters that take nothing more.
fn simple_directive(d: u8) -> Option<Dir> {
    Some(match d {
        b'a' | b'c' | b't' => Dir::CTime(d),
        b'b' => Dir::Blocks512,
        b'k' => Dir::Blocks1k,
        b's' => Dir::Size,
        b'd' => Dir::Depth,
        b'D' => Dir::Dev,
        b'f' => Dir::Base,
        b'F' => Dir::FsType,
        b'g' => Dir::Group,
        b'G' => Dir::Gid,
        b'h' => Dir::Dirname,
        b'H' => Dir::Root,
        b'i' => Dir::Inode,
        b'l' => Dir::Link,
        b'm' => Dir::ModeOctal,
        b'M' => Dir::ModeString,
        b'n' => Dir::Links,
        b'p' => Dir::Path,
        b'P' => Dir::RelPath,
        b'S' => Dir::Sparse,
        b'u' => Dir::User,
        b'U' => Dir::Uid,
        b'y' => Dir::Type,
        b'Y' => Dir::FollowType,
        b'Z' => Dir::Context,
        _ => return None,
    })
}

fn flush_lit(items: &mut Vec<Item>, lit: &mut Vec<u8>) {
    if !lit.is_empty() {
        items.push(Item::Lit(std::mem::take(lit)));
    }
}

enum Value {
    Str,
    /// Printed as C's `%g` with the directive's flags, width and precision
    /// (GNU find hands them to printf: `%.2S`, `%+S`, `%08S`), with
    /// LC_NUMERIC's decimal point.
    Float(f64),
    Int(i64),
    Oct(i64),
}

/// %u and %g: the name, or the number where there is none (as GNU).
fn push_name_or_id(out: &mut Vec<u8>, name: Option<Vec<u8>>, id: u32) {
    match name {
        Some(n) => out.extend_from_slice(&n),
        None => push_u(out, id as u64),
    }
}

fn push_u(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(n.to_string().as_bytes());
}

/// The last component as find's %f shows it (`d/` for the root `d/`,
/// `/` for `/`).
pub fn base_name(path: &[u8]) -> &[u8] {
    let trimmed_len = path.iter().rposition(|&c| c != b'/').map_or(0, |p| p + 1);
    if trimmed_len == 0 {
        return if path.is_empty() { path } else { &path[path.len() - 1..] };
    }
    let start = path[..trimmed_len].iter().rposition(|&c| c == b'/').map_or(0, |p| p + 1);
    // One trailing slash stays (`a//` is `a/`), as GNU's base_name keeps it.
    &path[start..path.len().min(trimmed_len + 1)]
}

/// %h: what comes before the last name. Only a starting point can end in
/// slashes; GNU drops them first, except after a one-byte name or when
/// there is nothing but slashes, where the last slash alone goes (`a//`
/// gives `a/`, `///` gives `//`, `ab//` gives `.`, `x/ab/` gives `x`).
pub fn dir_name(path: &[u8]) -> &[u8] {
    let trimmed_len = path.iter().rposition(|&c| c != b'/').map_or(0, |p| p + 1);
    let p = if trimmed_len <= 1 { path } else { &path[..trimmed_len] };
    match p.iter().rposition(|&c| c == b'/') {
        None => b".",
        Some(i) => &p[..i],
    }
}

fn time_of(st: &ringio::Statx, which: u8) -> Timestamp {
    let t = match which {
        b'a' | b'A' => st.stx_atime,
        b'c' | b'C' => st.stx_ctime,
        b'B' => st.stx_btime,
        _ => st.stx_mtime,
    };
    Timestamp::of(&t)
}

fn directive(out: &mut Vec<u8>, d: Dir, info: &mut dyn Info) -> Value {
    let st = if d.needs_stat() {
        match info.stat() {
            Some(s) => Some(s),
            None => return Value::Str,
        }
    } else {
        None
    };
    let st = st.as_ref();
    let s = |st: Option<&ringio::Statx>| *st.expect("stat fetched above");
    match d {
        Dir::CTime(w) => {
            timefmt::ctime(out, time_of(&s(st), w));
        }
        Dir::Time(b'B', k) => {
            // No birth time: GNU prints nothing useful either; leave it empty.
            if let Some(t) = info.birth() {
                if !timefmt::strftime_one(out, k, t) {
                    out.push(b'%');
                    out.push(k);
                }
            }
        }
        Dir::Time(w, k) => {
            if !timefmt::strftime_one(out, k, time_of(&s(st), w)) {
                out.push(b'%');
                out.push(k);
            }
        }
        Dir::Blocks512 => push_u(out, s(st).stx_blocks),
        Dir::Blocks1k => push_u(out, s(st).stx_blocks.div_ceil(2)),
        Dir::Size => push_u(out, s(st).stx_size),
        Dir::Depth => return Value::Int(info.depth() as i64),
        Dir::Dev => {
            let st = s(st);
            push_u(out, ringio::sys::DevIno::of(&st).dev);
        }
        Dir::Base => out.extend_from_slice(base_name(info.path())),
        Dir::FsType => {
            let st = s(st);
            out.extend_from_slice(&info.fstype(ringio::sys::DevIno::of(&st).dev))
        }
        Dir::Group => {
            let gid = s(st).stx_gid;
            push_name_or_id(out, info.group(gid), gid);
        }
        Dir::Gid => push_u(out, s(st).stx_gid as u64),
        Dir::Dirname => out.extend_from_slice(dir_name(info.path())),
        Dir::Root => out.extend_from_slice(info.root()),
        Dir::Inode => push_u(out, s(st).stx_ino),
        Dir::Link => {
            if let Some(t) = info.link_target() {
                out.extend_from_slice(&t);
            }
        }
        Dir::ModeOctal => return Value::Oct((s(st).stx_mode & 0o7777) as i64),
        Dir::ModeString => cli::mode::mode_string(out, s(st).stx_mode as u32),
        Dir::Links => push_u(out, s(st).stx_nlink as u64),
        Dir::Path => out.extend_from_slice(info.path()),
        Dir::RelPath => {
            let (p, r) = (info.path(), info.root());
            let rest = p.strip_prefix(r).unwrap_or(b"");
            let rest = rest.strip_prefix(b"/").unwrap_or(rest);
            out.extend_from_slice(rest);
        }
        Dir::Sparse => {
            let st = s(st);
            let v = if st.stx_size == 0 {
                1.0
            } else {
                (st.stx_blocks as f64 * 512.0) / st.stx_size as f64
            };
            return Value::Float(v);
        }
        Dir::User => {
            let uid = s(st).stx_uid;
            push_name_or_id(out, info.user(uid), uid);
        }
        Dir::Uid => push_u(out, s(st).stx_uid as u64),
        Dir::Type => out.push(info.type_letter()),
        Dir::FollowType => out.push(info.follow_type_letter()),
        Dir::Context => {
            if let Some(c) = info.context() {
                out.extend_from_slice(&c);
            }
        }
    }
    Value::Str
}

fn pad_str(out: &mut Vec<u8>, s: &[u8], sp: &Spec) {
    let s = match sp.prec {
        Some(p) if p < s.len() => &s[..p],
        _ => s,
    };
    let w = sp.width.unwrap_or(0);
    if !sp.minus {
        out.resize(out.len() + w.saturating_sub(s.len()), b' ');
    }
    out.extend_from_slice(s);
    if sp.minus {
        out.resize(out.len() + w.saturating_sub(s.len()), b' ');
    }
}

fn pad_int(out: &mut Vec<u8>, n: i64, sp: &Spec, radix: u32) {
    let mut digits =
        if radix == 8 { format!("{:o}", n.unsigned_abs()) } else { n.unsigned_abs().to_string() };
    if let Some(p) = sp.prec {
        while digits.len() < p {
            digits.insert(0, '0');
        }
    }
    if radix == 8 && sp.hash && !digits.starts_with('0') {
        digits.insert(0, '0');
    }
    let sign = if n < 0 {
        "-"
    } else if sp.plus && radix == 10 {
        "+"
    } else if sp.space && radix == 10 {
        " "
    } else {
        ""
    };
    let w = sp.width.unwrap_or(0);
    let len = sign.len() + digits.len();
    if sp.minus {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(digits.as_bytes());
        out.resize(out.len() + w.saturating_sub(len), b' ');
    } else if sp.zero && sp.prec.is_none() {
        out.extend_from_slice(sign.as_bytes());
        out.resize(out.len() + w.saturating_sub(len), b'0');
        out.extend_from_slice(digits.as_bytes());
    } else {
        out.resize(out.len() + w.saturating_sub(len), b' ');
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(digits.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(base_name(b"d/"), b"d/");
        assert_eq!(base_name(b"/"), b"/");
        assert_eq!(base_name(b"a/b/c"), b"c");
        assert_eq!(dir_name(b"a/b/c"), b"a/b");
        assert_eq!(dir_name(b"c"), b".");
        assert_eq!(dir_name(b"/"), b"");
        assert_eq!(dir_name(b"d/"), b"d");
        assert_eq!(dir_name(b"/x"), b"");
        assert_eq!(dir_name(b"ab/"), b".");
        assert_eq!(dir_name(b"a//"), b"a/");
        assert_eq!(dir_name(b"///"), b"//");
        assert_eq!(dir_name(b"x/ab//"), b"x");
        assert_eq!(dir_name(b".//a/"), b"./");
        assert_eq!(base_name(b"a//"), b"a/");
        assert_eq!(base_name(b"x/ab//"), b"ab/");
    }

    /// GNU's scratch file a/b/file as the walk would describe it, without
    /// a file system: its `stat -c` values (5 bytes, 8 blocks, 2 links,
    /// uid 1234 and gid 5678 with no names, mode 0100640, inode 10133665,
    /// device 254:0, atime 1000000000.25, mtime 1234567890.5), on ext4.
    struct Fake {
        path: &'static [u8],
        root: &'static [u8],
        depth: usize,
        st: ringio::Statx,
    }

    impl Fake {
        fn new(path: &'static [u8], root: &'static [u8], depth: usize) -> Fake {
            let mut st = ringio::sys::statx_zeroed();
            st.stx_size = 5;
            st.stx_blocks = 8;
            st.stx_nlink = 2;
            st.stx_uid = 1234;
            st.stx_gid = 5678;
            st.stx_mode = 0o100640;
            st.stx_ino = 10133665;
            st.stx_dev_major = 254;
            st.stx_dev_minor = 0;
            st.stx_atime.tv_sec = 1_000_000_000;
            st.stx_atime.tv_nsec = 250_000_000;
            st.stx_mtime.tv_sec = 1_234_567_890;
            st.stx_mtime.tv_nsec = 500_000_000;
            Fake { path, root, depth, st }
        }
    }

    impl Info for Fake {
        fn path(&self) -> &[u8] {
            self.path
        }
        fn root(&self) -> &[u8] {
            self.root
        }
        fn depth(&self) -> usize {
            self.depth
        }
        fn type_letter(&mut self) -> u8 {
            b'f'
        }
        fn follow_type_letter(&mut self) -> u8 {
            b'f'
        }
        fn stat(&mut self) -> Option<ringio::Statx> {
            Some(self.st)
        }
        fn birth(&mut self) -> Option<Timestamp> {
            None
        }
        fn link_target(&mut self) -> Option<Vec<u8>> {
            None
        }
        fn context(&mut self) -> Option<Vec<u8>> {
            None
        }
        fn user(&mut self, _: u32) -> Option<Vec<u8>> {
            None
        }
        fn group(&mut self, _: u32) -> Option<Vec<u8>> {
            None
        }
        fn fstype(&mut self, _: u64) -> Vec<u8> {
            b"ext4".to_vec()
        }
    }

    /// Compiles the format of each row of the section `name` of
    /// printf.tsv and renders it for a/b/file in the section's zone;
    /// compares the bytes and the warnings with GNU's, listing every row
    /// that differs.
    fn check(name: &str, count: usize) {
        use crate::gnu_answers::{section, text};
        let sec = section(include_str!("gnu_answers/printf.tsv"), name, count);
        let zone = &sec.header[0];
        let _g = crate::datetime::tests::zone_lock();
        sec.check(|row| {
            let [fmt, out, warnings @ ..] = row else { panic!("short row {row:?}") };
            let (fmt, warnings): (&str, Vec<&str>) =
                (text(fmt), warnings.iter().map(|w| text(w)).collect());
            let mut warned = Vec::new();
            let got = libcw::time::with_zone(zone.as_bytes(), || {
                let f = Format::parse(fmt.as_bytes(), &mut |w| warned.push(w)).map_err(|e| e.0)?;
                let mut buf = Vec::new();
                f.render(&mut buf, &mut Fake::new(b"a/b/file", b"a/b/file", 0), false);
                Ok::<_, String>(buf)
            })
            .expect("zone");
            let ok = got.as_ref() == Ok(out) && warned == warnings;
            (!ok).then(|| {
                let got = got.map(|b| String::from_utf8_lossy(&b).into_owned());
                format!(
                    "{fmt:?}\n  ours:  {got:?} {warned:?}\n  GNU's: {:?} {warnings:?}",
                    String::from_utf8_lossy(out)
                )
            })
        });
    }

    // Backslash escapes: the C ones, octal (at most three digits, the byte kept), `\\c` stopping the output, unknown ones kept with a warning; `%%`; unknown directives kept as written.
    // GNU: cd SCRATCH && TZ=UTC0 LC_ALL=C find a/b/file -maxdepth 0 -printf FORMAT
    // (stdout; warnings from stderr without `find: `), a/b/file as in Fake.
    #[test]
    fn escapes() {
        check("escapes", 20);
    }

    // Flags, width and precision: %d and %m take numeric flags (%m: `#` but no sign), %s %n %U %G %k %b %i are strings (width, and precision cuts), %S is C's %g.
    // GNU: cd SCRATCH && TZ=UTC0 LC_ALL=C find a/b/file -maxdepth 0 -printf FORMAT
    // (stdout; warnings from stderr without `find: `), a/b/file as in Fake.
    #[test]
    fn numeric_directives_and_flags() {
        check("numeric_directives_and_flags", 11);
    }

    // Times in UTC: %t/%a as ctime with nanoseconds, %T@, and %Tk for each strftime letter (%TS with the fraction, %T+ GNU's own).
    // GNU: cd SCRATCH && TZ=UTC0 LC_ALL=C find a/b/file -maxdepth 0 -printf FORMAT
    // (stdout; warnings from stderr without `find: `), a/b/file as in Fake.
    #[test]
    fn times_in_utc() {
        check("times_in_utc", 11);
    }

    // The same in Europe/Berlin (winter: CET, +0100; the mtime falls on the next day).
    // GNU: cd SCRATCH && TZ=Europe/Berlin LC_ALL=C find a/b/file -maxdepth 0 -printf FORMAT
    // (stdout; warnings from stderr without `find: `), a/b/file as in Fake.
    #[test]
    fn times_in_berlin() {
        check("times_in_berlin", 11);
    }

    // The same in America/New_York (winter: EST, -0500; the atime falls on the previous day).
    // GNU: cd SCRATCH && TZ=America/New_York LC_ALL=C find a/b/file -maxdepth 0 -printf FORMAT
    // (stdout; warnings from stderr without `find: `), a/b/file as in Fake.
    #[test]
    fn times_in_new_york() {
        check("times_in_new_york", 11);
    }

    // %f, %h, %P (and a width, a precision) for the starting points
    // ., a, a/, a//, ./a, ./a/b/, /, //, //tmp, /tmp/, ../pf/a/b, a/b/file and
    // what lies below them: the walk gives the path, its starting point
    // (%H) and depth.
    // GNU: cd SCRATCH && LC_ALL=C find ROOT -maxdepth N -printf
    //   '%p %H %d [%f][%h][%P][%-4f|][%.1h]' (N: 0 for /, //, //tmp, /tmp/).
    #[test]
    fn path_pieces() {
        let f = Format::parse(b"[%f][%h][%P][%-4f|][%.1h]", &mut |w| panic!("{w}")).unwrap();
        // Path, starting point, depth, what the format printed.
        type Row = (&'static [u8], &'static [u8], usize, &'static [u8]);
        let rows: &[Row] = &[
            (b".", b".", 0, b"[.][.][][.   |][.]"),
            (b"./a", b".", 1, b"[a][.][a][a   |][.]"),
            (b"./a/b", b".", 2, b"[b][./a][a/b][b   |][.]"),
            (b"./a/b/file", b".", 3, b"[file][./a/b][a/b/file][file|][.]"),
            (b"a", b"a", 0, b"[a][.][][a   |][.]"),
            (b"a/b", b"a", 1, b"[b][a][b][b   |][a]"),
            (b"a/b/file", b"a", 2, b"[file][a/b][b/file][file|][a]"),
            (b"a/", b"a/", 0, b"[a/][a][][a/  |][a]"),
            (b"a/b", b"a/", 1, b"[b][a][b][b   |][a]"),
            (b"a/b/file", b"a/", 2, b"[file][a/b][b/file][file|][a]"),
            (b"a//", b"a//", 0, b"[a/][a/][][a/  |][a]"),
            (b"a//b", b"a//", 1, b"[b][a/][b][b   |][a]"),
            (b"a//b/file", b"a//", 2, b"[file][a//b][b/file][file|][a]"),
            (b"./a", b"./a", 0, b"[a][.][][a   |][.]"),
            (b"./a/b", b"./a", 1, b"[b][./a][b][b   |][.]"),
            (b"./a/b/file", b"./a", 2, b"[file][./a/b][b/file][file|][.]"),
            (b"./a/b/", b"./a/b/", 0, b"[b/][./a][][b/  |][.]"),
            (b"./a/b/file", b"./a/b/", 1, b"[file][./a/b][file][file|][.]"),
            (b"/", b"/", 0, b"[/][][][/   |][]"),
            (b"//", b"//", 0, b"[/][/][][/   |][/]"),
            (b"//tmp", b"//tmp", 0, b"[tmp][/][][tmp |][/]"),
            (b"/tmp/", b"/tmp/", 0, b"[tmp/][][][tmp/|][]"),
            (b"../pf/a/b", b"../pf/a/b", 0, b"[b][../pf/a][][b   |][.]"),
            (b"../pf/a/b/file", b"../pf/a/b", 1, b"[file][../pf/a/b][file][file|][.]"),
            (b"a/b/file", b"a/b/file", 0, b"[file][a/b][][file|][a]"),
        ];
        for &(path, root, depth, want) in rows {
            let mut out = Vec::new();
            f.render(&mut out, &mut Fake::new(path, root, depth), false);
            assert_eq!(
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(want),
                "{} under {}",
                String::from_utf8_lossy(path),
                String::from_utf8_lossy(root)
            );
        }
    }
}
