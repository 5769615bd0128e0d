//! `--icons`: Nerd Font glyphs chosen by exact name, then by kind, then by
//! extension (the same precedence as the Zig lsr and eza).

use crate::entry::{Entry, FileType};

const BY_NAME: &[(&str, &str)] = &[
    (".git", "\u{e5fb}"),
    (".gitignore", "\u{f1d3}"),
    ("Cargo.toml", "\u{e7a8}"),
    ("Cargo.lock", "\u{e7a8}"),
    ("Makefile", "\u{e779}"),
    ("Dockerfile", "\u{f308}"),
    ("LICENSE", "\u{f0219}"),
    ("README.md", "\u{f48a}"),
];

const BY_EXT: &[(&str, &str)] = &[
    ("rs", "\u{e7a8}"),
    ("zig", "\u{e6a9}"),
    ("c", "\u{e61e}"),
    ("h", "\u{e61e}"),
    ("cpp", "\u{e61d}"),
    ("go", "\u{e627}"),
    ("py", "\u{e606}"),
    ("js", "\u{e74e}"),
    ("ts", "\u{e628}"),
    ("json", "\u{e60b}"),
    ("toml", "\u{e6b2}"),
    ("yaml", "\u{e6a8}"),
    ("yml", "\u{e6a8}"),
    ("md", "\u{e73e}"),
    ("txt", "\u{f15c}"),
    ("sh", "\u{f489}"),
    ("html", "\u{e736}"),
    ("css", "\u{e749}"),
    ("png", "\u{f1c5}"),
    ("jpg", "\u{f1c5}"),
    ("jpeg", "\u{f1c5}"),
    ("gif", "\u{f1c5}"),
    ("svg", "\u{f1c5}"),
    ("pdf", "\u{f1c1}"),
    ("zip", "\u{f410}"),
    ("gz", "\u{f410}"),
    ("xz", "\u{f410}"),
    ("zst", "\u{f410}"),
    ("tar", "\u{f410}"),
    ("mp3", "\u{f001}"),
    ("mp4", "\u{f03d}"),
    ("lock", "\u{f023}"),
];

const DIR: &str = "\u{f07b}";
const FILE: &str = "\u{f15b}";
const LINK: &str = "\u{f0c1}";
const EXEC: &str = "\u{f489}";
const OTHER: &str = "\u{f2dc}";

/// The glyph for an entry.
pub fn icon(e: &Entry) -> &'static str {
    if let Some((_, g)) = BY_NAME.iter().find(|(n, _)| n.as_bytes() == &e.name[..]) {
        return g;
    }
    match e.file_type() {
        FileType::Dir => DIR,
        FileType::Link => LINK,
        FileType::Regular => {
            if let Some(dot) = memchr::memrchr(b'.', &e.name) {
                let ext = &e.name[dot + 1..];
                if let Some((_, g)) =
                    BY_EXT.iter().find(|(x, _)| x.as_bytes().eq_ignore_ascii_case(ext))
                {
                    return g;
                }
            }
            if e.meta.is_some_and(|m| m.mode & 0o111 != 0) {
                EXEC
            } else {
                FILE
            }
        }
        _ => OTHER,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence() {
        let mut e = Entry::new(b"Cargo.toml", ringio::dtype::REG, 1);
        assert_eq!(icon(&e), "\u{e7a8}");
        e.name = b"notes.TXT".to_vec().into();
        assert_eq!(icon(&e), "\u{f15c}");
        e.dtype = ringio::dtype::DIR;
        e.name = b"src".to_vec().into();
        assert_eq!(icon(&e), DIR);
    }
}
