//! `--json`: one JSON object per line and entry, for scripts.
//!
//! Fields: `name`, `path`, `type`, `size`, `blocks`, `mode` (the permission
//! bits as a number, plus `mode_string`), `nlink`, `inode`, `uid`, `gid`,
//! `user`, `group`, `atime_ns`/`mtime_ns`/`ctime_ns`/`btime_ns` (nanoseconds
//! since the epoch, `null` when unknown), `target` for symlinks, `acl`.
//! Names that are not UTF-8 are given lossily in `name`/`path` and exactly
//! as byte arrays in `name_bytes`/`path_bytes`.

use cli::users::Users;

use cli::timefmt::Timestamp;

use crate::entry::{Entry, FileType};

fn string(out: &mut Vec<u8>, b: &[u8]) {
    let s = String::from_utf8_lossy(b);
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
            }
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

fn bytes_field(out: &mut Vec<u8>, key: &str, b: &[u8]) {
    out.extend_from_slice(format!(",\"{key}\":").as_bytes());
    string(out, b);
    if std::str::from_utf8(b).is_err() {
        out.extend_from_slice(format!(",\"{key}_bytes\":[").as_bytes());
        for (i, x) in b.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(x.to_string().as_bytes());
        }
        out.push(b']');
    }
}

fn time_ns(t: Option<Timestamp>) -> String {
    match t {
        Some(Timestamp { secs: s, nsec: ns }) => {
            (s as i128 * 1_000_000_000 + ns as i128).to_string()
        }
        None => "null".into(),
    }
}

fn type_name(t: FileType) -> &'static str {
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

/// Appends one entry's object and a newline. `path` is how the file is
/// reached (directory joined with the name, or the operand).
pub fn entry(out: &mut Vec<u8>, e: &Entry, path: &[u8], users: &mut Users) {
    out.push(b'{');
    out.extend_from_slice(b"\"type\":\"");
    out.extend_from_slice(type_name(e.file_type()).as_bytes());
    out.push(b'"');
    bytes_field(out, "name", &e.name);
    bytes_field(out, "path", path);
    match &e.meta {
        Some(m) => {
            let mut ms = Vec::new();
            cli::mode::mode_string(&mut ms, m.mode);
            out.extend_from_slice(
                format!(
                    ",\"size\":{},\"blocks\":{},\"mode\":{},\"mode_string\":\"{}\",\"nlink\":{},\"inode\":{},\"uid\":{},\"gid\":{}",
                    m.size,
                    m.blocks,
                    m.mode & 0o7777,
                    String::from_utf8_lossy(&ms),
                    m.nlink,
                    m.ino,
                    m.uid,
                    m.gid
                )
                .as_bytes(),
            );
            out.extend_from_slice(b",\"user\":");
            match users.user(m.uid) {
                Some(n) => string(out, n),
                None => out.extend_from_slice(b"null"),
            }
            out.extend_from_slice(b",\"group\":");
            match users.group(m.gid) {
                Some(n) => string(out, n),
                None => out.extend_from_slice(b"null"),
            }
            out.extend_from_slice(
                format!(
                    ",\"atime_ns\":{},\"mtime_ns\":{},\"ctime_ns\":{},\"btime_ns\":{}",
                    time_ns(Some(m.atime())),
                    time_ns(Some(m.mtime())),
                    time_ns(Some(m.ctime())),
                    time_ns(m.btime())
                )
                .as_bytes(),
            );
            if matches!(m.file_type(), FileType::Char | FileType::Block) {
                out.extend_from_slice(
                    format!(",\"major\":{},\"minor\":{}", m.rdev_major, m.rdev_minor).as_bytes(),
                );
            }
        }
        None => {
            if let Some(err) = e.stat_err {
                out.extend_from_slice(b",\"error\":");
                string(out, err.message().as_bytes());
            }
        }
    }
    if let Some(t) = &e.target {
        bytes_field(out, "target", t);
        out.extend_from_slice(if e.target_mode.is_some() {
            b",\"target_ok\":true"
        } else {
            b",\"target_ok\":false"
        });
    }
    out.extend_from_slice(if e.acl { b",\"acl\":true" } else { b",\"acl\":false" });
    out.extend_from_slice(b"}\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::Meta;

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
        entry(&mut out, &e, b"d/a\"b\xff", &mut u);
        let s = String::from_utf8(out).unwrap();
        assert!(s.starts_with(
            "{\"type\":\"file\",\"name\":\"a\\\"b\u{fffd}\",\"name_bytes\":[97,34,98,255]"
        ));
        assert!(s.contains("\"mtime_ns\":1000000005"));
        assert!(s.contains("\"user\":\"root\""));
        assert!(s.ends_with("}\n"));
    }
}
