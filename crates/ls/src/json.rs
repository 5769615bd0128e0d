//! `--json`: each entry as a JSON object (the writer and the fields a
//! stat gives are `cli::json`'s, shared with ldu and lfind), framed as one
//! array or as JSON Lines (`--json=lines`); under `--tree`, directories
//! hold their entries in `children` (JSON Lines: each object has its
//! `depth` instead).
//!
//! Fields: `path` (how the file is reached: the operand, or the directory
//! joined with the name), `name` (an operand's last component), `type` (a word: file, directory, symlink,
//! fifo, socket, char, block, unknown), then [`cli::json::stat_fields`]'s
//! (size in bytes, blocks, mode as a number, in octal and as `ls -l`
//! shows it, links, inode, ids and names, the four times in ISO 8601 and
//! as seconds and nanoseconds), `target` and `target_ok` for symlinks, `acl`, and
//! `error` for a file that could not be stat'ed. Names that are not UTF-8
//! are also given exactly, as byte arrays (`name_bytes`, `path_bytes`).

use cli::json::{Obj, Seq};
use cli::users::Users;

use crate::entry::{Entry, FileType};

/// The type word when no stat says it (d_type).
fn type_word(t: FileType) -> &'static str {
    match t {
        FileType::Unknown => "unknown",
        FileType::Fifo => "fifo",
        FileType::Char => "char",
        FileType::Dir => "directory",
        FileType::Block => "block",
        FileType::Regular => "file",
        FileType::Link => "symlink",
        FileType::Socket => "socket",
    }
}

/// The last component of an operand (`a/b/` gives `b`, `/` stays `/`), as
/// find's `%f`: an operand's `name` is its file's, its `path` as given.
fn base(p: &[u8]) -> &[u8] {
    let end = p.iter().rposition(|&c| c != b'/').map_or(0, |i| i + 1);
    if end == 0 {
        return if p.is_empty() { p } else { &p[..1] };
    }
    let start = p[..end].iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1);
    &p[start..end]
}

/// Writes entry `e`'s fields into `o`. `path` is how the file is reached.
pub fn fields(o: &mut Obj, e: &Entry, path: &[u8], users: &mut Users) {
    let name = if e.cmdline { base(&e.name) } else { &e.name };
    o.bytes("path", path).bytes("name", name).text("type", type_word(e.file_type()));
    match &e.meta {
        Some(m) => {
            let st = cli::json::Stat {
                mode: m.mode,
                nlink: m.nlink,
                uid: m.uid,
                gid: m.gid,
                size: m.size,
                blocks: m.blocks,
                ino: m.ino,
                rdev_major: m.rdev_major,
                rdev_minor: m.rdev_minor,
                atime: m.atime(),
                mtime: m.mtime(),
                ctime: m.ctime(),
                btime: m.btime(),
            };
            cli::json::stat_fields(o, &st, users);
        }
        None => {
            if let Some(err) = e.stat_err {
                o.text("error", &err.message());
            }
        }
    }
    if let Some(t) = &e.target {
        o.bytes("target", t).bool("target_ok", e.target_mode.is_some());
    }
    o.bool("acl", e.acl);
}

/// Appends entry `e` as the next object of `seq`.
pub fn entry(out: &mut Vec<u8>, seq: &mut Seq, e: &Entry, path: &[u8], users: &mut Users) {
    seq.item(out);
    let mut o = Obj::new(out);
    fields(&mut o, e, path, users);
    o.close();
    seq.item_done(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::Meta;
    use cli::json::Framing;
    use cli::timefmt::Timestamp;

    #[test]
    fn one_object_per_line() {
        let mut e = Entry::new(b"a\"b\xff", ringio::dtype::REG, 7);
        e.meta = Some(
            Meta { mode: libc::S_IFREG | 0o644, nlink: 1, size: 3, ..Meta::default() }.with_times(
                Timestamp::new(2, 0),
                Timestamp::new(1, 5),
                Timestamp::new(3, 0),
                None,
            ),
        );
        let mut out = Vec::new();
        let mut u = Users::without_nss(b"root:x:0:0::/:/bin/sh\n", b"root:x:0:\n");
        let mut seq = Seq::new(Framing::Lines);
        entry(&mut out, &mut seq, &e, b"d/a\"b\xff", &mut u);
        let s = String::from_utf8(out).unwrap();
        assert!(s.starts_with("{\"path\":\"d/a\\\"b\u{fffd}\",\"path_bytes\":[100,47,97,34,98,255],\"name\":\"a\\\"b\u{fffd}\",\"name_bytes\":[97,34,98,255],\"type\":\"file\""), "{s}");
        assert!(s.contains("\"mtime_sec\":1,\"mtime_nsec\":5,"));
        assert!(s.contains("\"mode\":420,\"mode_octal\":\"0644\",\"mode_string\":\"-rw-r--r--\""));
        assert!(s.contains("\"user\":\"root\""));
        assert!(s.ends_with("\"acl\":false}\n"));
    }

    #[test]
    fn operand_names() {
        for (p, b) in [("a/b/", "b"), ("/", "/"), ("//", "/"), ("x", "x"), ("./x", "x"), ("", "")] {
            assert_eq!(base(p.as_bytes()), b.as_bytes(), "{p}");
        }
    }
}
