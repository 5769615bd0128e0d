//! JSON output, beyond GNU: `lsr --json`, `ldu --json`, `lfind -json`.
//! One writer and one description of a file for the three tools, so a
//! script reads the same fields whichever tool made them (the schemas are
//! in docs/extras.md).
//!
//! Names are bytes and JSON strings are Unicode: a name that is not UTF-8
//! is given lossily (U+FFFD) and, exactly, as an array of its bytes in a
//! second field named with `_bytes`. Times are given as ISO 8601 local
//! time with its offset, to the nanosecond (what a reader wants), and as
//! seconds and nanoseconds since the epoch, apart (what a program
//! compares): nanoseconds since the epoch in one number pass 2^53, where
//! parsers that read numbers as doubles (JavaScript's, jq 1.6's) round
//! them. Numbers are JSON integers; the mode also as its `ls -l` string
//! and in octal, which JSON has no notation for.

use std::fmt::Display;

use crate::timefmt::Timestamp;
use crate::users::Users;

/// How a stream of objects is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// One JSON document: an array, each object starting its own line.
    Array,
    /// JSON Lines: one object per line, nothing around them; each line
    /// can be read as soon as it is written (huge listings, `head`).
    Lines,
}

impl Framing {
    /// `--json=WORD`'s words (none given: [`Framing::Array`]).
    pub const WORDS: &'static [(&'static str, Framing)] =
        &[("array", Framing::Array), ("lines", Framing::Lines)];
}

/// A sequence of objects at one level: the top level of the output, or
/// a directory's `children` in a tree.
#[derive(Debug)]
pub struct Seq {
    framing: Framing,
    items: u64,
    /// An array whose `[` is written already (see [`Obj::open_children`]).
    nested: bool,
}

impl Seq {
    pub fn new(framing: Framing) -> Seq {
        Seq { framing, items: 0, nested: false }
    }

    /// The items of an array opened by [`Obj::open_children`].
    pub fn children() -> Seq {
        Seq { framing: Framing::Array, items: 0, nested: true }
    }

    /// Before an object: the array's opening or the separator.
    pub fn item(&mut self, out: &mut Vec<u8>) {
        if self.framing == Framing::Array {
            out.extend_from_slice(match (self.items, self.nested) {
                (0, false) => b"[\n",
                (0, true) => b"\n",
                _ => b",\n",
            });
        }
        self.items += 1;
    }

    /// After an object: JSON Lines ends its line.
    pub fn item_done(&self, out: &mut Vec<u8>) {
        if self.framing == Framing::Lines {
            out.push(b'\n');
        }
    }

    /// After the last object: the array's end (an empty array when there
    /// was none).
    pub fn finish(&self, out: &mut Vec<u8>) {
        if self.framing == Framing::Array {
            out.extend_from_slice(if self.items == 0 { b"[]\n" } else { b"\n]\n" });
        }
    }

    /// A nested array's end (after [`Obj::open_children`]): `]}` closes
    /// the array and the object holding it.
    pub fn close_children(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(if self.items == 0 { b"]}" } else { b"\n]}" });
    }
}

/// A JSON string of `b`, lossily decoded.
pub fn string(out: &mut Vec<u8>, b: &[u8]) {
    out.push(b'"');
    for chunk in b.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                // Controls (DEL and C1 too) escaped: a terminal showing the
                // JSON never receives a raw one.
                c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                    out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
                }
                c => {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        if !chunk.invalid().is_empty() {
            out.extend_from_slice("\u{fffd}".as_bytes());
        }
    }
    out.push(b'"');
}

/// An object being written: `{` on creation, fields, [`Obj::close`].
pub struct Obj<'a> {
    pub out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> Obj<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Obj<'a> {
        out.push(b'{');
        Obj { out, first: true }
    }

    fn key(&mut self, k: &str) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.out.push(b'"');
        self.out.extend_from_slice(k.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    /// A byte string: `"k":"…"`, and `"k_bytes":[…]` when it is not UTF-8.
    pub fn bytes(&mut self, k: &str, v: &[u8]) -> &mut Self {
        self.key(k);
        string(self.out, v);
        if std::str::from_utf8(v).is_err() {
            self.key(&format!("{k}_bytes"));
            self.out.push(b'[');
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    self.out.push(b',');
                }
                self.out.extend_from_slice(x.to_string().as_bytes());
            }
            self.out.push(b']');
        }
        self
    }

    /// A text the tool made (always UTF-8).
    pub fn text(&mut self, k: &str, v: &str) -> &mut Self {
        self.key(k);
        string(self.out, v.as_bytes());
        self
    }

    pub fn num(&mut self, k: &str, v: impl Display) -> &mut Self {
        self.key(k);
        self.out.extend_from_slice(v.to_string().as_bytes());
        self
    }

    pub fn bool(&mut self, k: &str, v: bool) -> &mut Self {
        self.key(k);
        self.out.extend_from_slice(if v { b"true" } else { b"false" });
        self
    }

    pub fn null(&mut self, k: &str) -> &mut Self {
        self.key(k);
        self.out.extend_from_slice(b"null");
        self
    }

    /// `"k":"<ISO 8601>","k_sec":S,"k_nsec":N`; all `null` for an
    /// unknown time, the first alone for one the C library can't break
    /// down.
    pub fn time(&mut self, k: &str, t: Option<Timestamp>) -> &mut Self {
        self.key(k);
        match t {
            Some(t) if iso8601(self.out, t) => {}
            _ => self.out.extend_from_slice(b"null"),
        }
        match t {
            Some(t) => self.num(&format!("{k}_sec"), t.secs).num(&format!("{k}_nsec"), t.nsec),
            None => self.null(&format!("{k}_sec")).null(&format!("{k}_nsec")),
        }
    }

    /// `"k":[`: the object's last field, an array whose items follow
    /// through a [`Seq::children`], closed by [`Seq::close_children`].
    pub fn open_children(mut self, k: &str) {
        self.key(k);
        self.out.push(b'[');
    }

    pub fn close(self) {
        self.out.push(b'}');
    }
}

/// `2026-12-01T09:30:00.123456789+01:00`: the local time of `t` (TZ), to
/// the nanosecond, with its UTC offset as `date +%:z` gives it. False,
/// writing nothing, when the C library can't break it down.
pub fn iso8601(out: &mut Vec<u8>, t: Timestamp) -> bool {
    let Some(tm) = libcw::time::localtime(t.secs) else { return false };
    let year = if (0..=9999).contains(&tm.year) {
        format!("{:04}", tm.year)
    } else {
        // ISO 8601's expanded years: a sign and at least five digits.
        format!("{:+06}", tm.year)
    };
    let off = tm.gmtoff;
    let sign = if off < 0 { '-' } else { '+' };
    let off = off.unsigned_abs();
    let s = format!(
        "\"{year}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}{sign}{:02}:{:02}\"",
        tm.mon + 1,
        tm.mday,
        tm.hour,
        tm.min,
        tm.sec,
        t.nsec,
        off / 3600,
        off / 60 % 60
    );
    out.extend_from_slice(s.as_bytes());
    true
}

/// The word for a file type (`st_mode & S_IFMT`).
pub fn type_word(mode: u32) -> &'static str {
    match mode & libc::S_IFMT {
        libc::S_IFREG => "file",
        libc::S_IFDIR => "directory",
        libc::S_IFLNK => "symlink",
        libc::S_IFIFO => "fifo",
        libc::S_IFSOCK => "socket",
        libc::S_IFCHR => "char",
        libc::S_IFBLK => "block",
        _ => "unknown",
    }
}

/// What a stat says about a file, as the JSON shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stat {
    pub mode: u32,
    pub nlink: u64,
    pub uid: u32,
    pub gid: u32,
    pub size: u64,
    /// 512-byte blocks allocated.
    pub blocks: u64,
    pub ino: u64,
    pub rdev_major: u32,
    pub rdev_minor: u32,
    pub atime: Timestamp,
    pub mtime: Timestamp,
    pub ctime: Timestamp,
    /// None where the file system doesn't record it.
    pub btime: Option<Timestamp>,
}

impl Stat {
    pub fn of(st: &ringio::Statx) -> Stat {
        let t = Timestamp::of;
        let btime = (st.stx_mask & libc::STATX_BTIME != 0).then(|| Timestamp::of(&st.stx_btime));
        Stat {
            mode: u32::from(st.stx_mode),
            nlink: u64::from(st.stx_nlink),
            uid: st.stx_uid,
            gid: st.stx_gid,
            size: st.stx_size,
            blocks: st.stx_blocks,
            ino: st.stx_ino,
            rdev_major: st.stx_rdev_major,
            rdev_minor: st.stx_rdev_minor,
            atime: t(&st.stx_atime),
            mtime: t(&st.stx_mtime),
            ctime: t(&st.stx_ctime),
            btime,
        }
    }
}

/// The fields of a file's stat: `size` (bytes), `blocks`, `mode` (the
/// permission bits, a number), `mode_octal`, `mode_string` (as `ls -l`),
/// `nlink`, `inode`, `uid`, `user`, `gid`, `group` (`null` without a
/// name), the four times, and `major`/`minor` for devices.
pub fn stat_fields(o: &mut Obj, st: &Stat, users: &mut Users) {
    let mut ms = Vec::with_capacity(10);
    crate::mode::mode_string(&mut ms, st.mode);
    o.num("size", st.size)
        .num("blocks", st.blocks)
        .num("mode", st.mode & 0o7777)
        .text("mode_octal", &format!("{:04o}", st.mode & 0o7777))
        .bytes("mode_string", &ms)
        .num("nlink", st.nlink)
        .num("inode", st.ino)
        .num("uid", st.uid);
    match users.user(st.uid) {
        Some(n) => o.bytes("user", n),
        None => o.null("user"),
    };
    o.num("gid", st.gid);
    match users.group(st.gid) {
        Some(n) => o.bytes("group", n),
        None => o.null("group"),
    };
    o.time("atime", Some(st.atime))
        .time("mtime", Some(st.mtime))
        .time("ctime", Some(st.ctime))
        .time("btime", st.btime);
    if matches!(st.mode & libc::S_IFMT, libc::S_IFCHR | libc::S_IFBLK) {
        o.num("major", st.rdev_major).num("minor", st.rdev_minor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_tz<T>(tz: &str, f: impl FnOnce() -> T) -> T {
        libcw::time::with_zone(tz.as_bytes(), f).unwrap()
    }

    #[test]
    fn strings_escape_and_keep_bytes() {
        let mut out = Vec::new();
        let mut o = Obj::new(&mut out);
        o.bytes("name", b"a\"b\\\n\x01\x7f\xff").text("t", "x");
        o.close();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"name\":\"a\\\"b\\\\\\n\\u0001\\u007f\u{fffd}\",\
             \"name_bytes\":[97,34,98,92,10,1,127,255],\"t\":\"x\"}"
        );
    }

    #[test]
    fn times_in_iso_8601_with_their_offset() {
        let mut out = Vec::new();
        with_tz("Asia/Kolkata", || {
            let mut o = Obj::new(&mut out);
            o.time("mtime", Some(Timestamp::new(1_700_000_000, 5))).time("btime", None);
            o.close();
        });
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"mtime\":\"2023-11-15T03:43:20.000000005+05:30\",\
             \"mtime_sec\":1700000000,\"mtime_nsec\":5,\
             \"btime\":null,\"btime_sec\":null,\"btime_nsec\":null}"
        );
        let mut out = Vec::new();
        with_tz("America/St_Johns", || iso8601(&mut out, Timestamp::new(-1, 0)));
        assert_eq!(out, b"\"1969-12-31T20:29:59.000000000-03:30\"");
    }

    #[test]
    fn framing() {
        for (f, none, two) in [(Framing::Array, "[]\n", "[\n{}\n]\n"), (Framing::Lines, "", "{}\n")]
        {
            let mut out = Vec::new();
            Seq::new(f).finish(&mut out);
            assert_eq!(String::from_utf8_lossy(&out), none);
            let mut out = Vec::new();
            let mut s = Seq::new(f);
            s.item(&mut out);
            Obj::new(&mut out).close();
            s.item_done(&mut out);
            s.finish(&mut out);
            assert_eq!(String::from_utf8_lossy(&out), two);
        }
    }
}
