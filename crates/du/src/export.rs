//! `--export=FILE`: the scan in ncdu's JSON export format, version 1.2
//! (ncdu 1.16 and later read it with `-f`, gdu too), written as the scan
//! plays it, so the text is never held whole.
//!
//! `[1,2,{metadata},[{root},…]]`: a directory is an array whose first
//! element is its own object, a file an object. Fields as ncdu writes
//! them: `asize`/`dsize` left out when 0, `dev` only where it differs
//! from the parent's, `ino` for files with several links, `mtime`, `hlnkc` and `nlink` for files with
//! several links, `read_error`, `notreg`, `excluded`. Names are bytes: `"`,
//! `\` and control characters are escaped, other bytes go as they are
//! (ncdu's own choice, so any name survives the round trip). Every link of
//! a hard-linked file is written; a reader counts the first in file order,
//! which is GNU du's order. The metadata says when ldu counted otherwise
//! (`-l`, `-L`), for `--import` to count the same way.

use browse::tree::{Excluded, Item, Kind, LinkRule, TreeSink};
use cli::Out;

/// The JSON writer: a [`TreeSink`] onto an output.
pub struct Json {
    out: Out,
    /// The devices of the open directories.
    devs: Vec<u64>,
    /// `-L`: every file is counted once, so every file's inode is written.
    every_ino: bool,
}

impl Json {
    /// Starts the document: the version and the metadata.
    pub fn new(mut out: Out, rule: LinkRule, timestamp: i64) -> Json {
        let b = out.buf();
        b.extend_from_slice(b"[1,2,{\"progname\":\"ldu\",\"progver\":\"");
        b.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
        b.extend_from_slice(b"\",\"timestamp\":");
        num(b, timestamp.max(0) as u64);
        if rule.count_all {
            b.extend_from_slice(b",\"ldu_count_links\":true");
        }
        if rule.every_file {
            b.extend_from_slice(b",\"ldu_dereference\":true");
        }
        b.push(b'}');
        Json { out, devs: Vec::new(), every_ino: rule.every_file }
    }

    /// Ends the document; the output, to be finished by the caller.
    pub fn end(mut self) -> Out {
        self.out.write(b"]\n");
        self.out
    }

    fn object(&mut self, it: &Item) {
        let parent_dev = self.devs.last().copied();
        let every_ino = self.every_ino;
        let b = self.out.buf();
        b.extend_from_slice(b"{\"name\":\"");
        string(b, it.name);
        b.push(b'"');
        if it.asize != 0 {
            b.extend_from_slice(b",\"asize\":");
            num(b, it.asize);
        }
        if it.dsize != 0 {
            b.extend_from_slice(b",\"dsize\":");
            num(b, it.dsize);
        }
        if parent_dev != Some(it.dev) && (it.dev != 0 || parent_dev.is_none()) {
            b.extend_from_slice(b",\"dev\":");
            num(b, it.dev);
        }
        if it.ino != 0 && it.kind != Kind::Dir && (it.nlink > 1 || every_ino) {
            b.extend_from_slice(b",\"ino\":");
            num(b, it.ino);
        }
        if it.mtime > 0 {
            b.extend_from_slice(b",\"mtime\":");
            num(b, it.mtime as u64);
        }
        if it.kind != Kind::Dir && it.nlink > 1 {
            b.extend_from_slice(b",\"hlnkc\":true,\"nlink\":");
            num(b, it.nlink as u64);
        }
        if it.error {
            b.extend_from_slice(b",\"read_error\":true");
        }
        match it.excluded {
            Excluded::No => {
                if it.kind == Kind::Other && !it.error {
                    b.extend_from_slice(b",\"notreg\":true");
                }
            }
            Excluded::Pattern => b.extend_from_slice(b",\"excluded\":\"pattern\""),
            Excluded::OtherFs => b.extend_from_slice(b",\"excluded\":\"otherfs\""),
        }
        b.push(b'}');
        self.out.maybe_flush();
    }
}

impl TreeSink for Json {
    fn open_dir(&mut self, dir: &Item) {
        self.out.write(b",\n[");
        self.object(dir);
        self.devs.push(dir.dev);
    }

    fn entry(&mut self, e: &Item) {
        self.out.write(b",\n");
        self.object(e);
    }

    fn close_dir(&mut self) {
        self.devs.pop();
        self.out.write(b"]");
    }
}

fn num(b: &mut Vec<u8>, n: u64) {
    let mut a = [0u8; 20];
    let at = cli::num::digits_ending(&mut a, n);
    b.extend_from_slice(&a[at..]);
}

/// A JSON string's inside, as ncdu writes names.
fn string(b: &mut Vec<u8>, s: &[u8]) {
    // Most names need nothing escaped.
    if !s.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\' || c == 0x7f) {
        b.extend_from_slice(s);
        return;
    }
    for &c in s {
        match c {
            b'"' => b.extend_from_slice(b"\\\""),
            b'\\' => b.extend_from_slice(b"\\\\"),
            b'\n' => b.extend_from_slice(b"\\n"),
            b'\r' => b.extend_from_slice(b"\\r"),
            b'\t' => b.extend_from_slice(b"\\t"),
            0x08 => b.extend_from_slice(b"\\b"),
            0x0c => b.extend_from_slice(b"\\f"),
            0..=0x1f | 0x7f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                b.extend_from_slice(b"\\u00");
                b.push(HEX[(c >> 4) as usize]);
                b.push(HEX[(c & 15) as usize]);
            }
            _ => b.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_tree() {
        let (r, w) = std::io::pipe().unwrap();
        use std::os::fd::AsRawFd;
        let mut j = Json::new(Out::new(w.as_raw_fd(), 1 << 20), LinkRule::default(), 5);
        let d = Item { dev: 7, ino: 1, dsize: 4096, asize: 10, ..Item::named(b"/r", Kind::Dir) };
        j.open_dir(&d);
        j.entry(&Item {
            dev: 7,
            ino: 2,
            nlink: 2,
            mtime: 9,
            ..Item::named(b"a\"\n\x01", Kind::File)
        });
        j.open_dir(&Item { dev: 8, ino: 3, error: true, ..Item::named(b"s", Kind::Dir) });
        j.entry(&Item { dev: 8, excluded: Excluded::Pattern, ..Item::named(b"x", Kind::Other) });
        j.close_dir();
        j.close_dir();
        let mut out = j.end();
        assert!(out.finish());
        drop(out);
        drop(w);
        let text = std::io::read_to_string(r).unwrap();
        assert_eq!(
            text,
            "[1,2,{\"progname\":\"ldu\",\"progver\":\"0.1.0\",\"timestamp\":5},\n\
             [{\"name\":\"/r\",\"asize\":10,\"dsize\":4096,\"dev\":7},\n\
             {\"name\":\"a\\\"\\n\\u0001\",\"ino\":2,\"mtime\":9,\"hlnkc\":true,\"nlink\":2},\n\
             [{\"name\":\"s\",\"dev\":8,\"read_error\":true},\n\
             {\"name\":\"x\",\"excluded\":\"pattern\"}]]]\n"
        );
    }
}
