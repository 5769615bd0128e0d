//! Locale differential tests: sort order (`checklist` items 1–5 and 14).
//!
//! GNU ls sorts names with strcoll in a stable merge sort over readdir
//! order; both tools list the same directory, so ties (names strcoll calls
//! equal: invalid bytes, `a\xffb` / `a\xfeb`) come out in the same order.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::util::*;

/// Besides the collation corners ([`super::COLLATION_CORNERS`]): more
/// control bytes, zero-width and bidi characters, extensions, hidden names,
/// long names (on the heap in lsr) and names of exactly 21 and 22 bytes
/// (the inline limit).
const NAMES: &[&[u8]] = &[
    b"a\x01b",
    b"trunc\xe6\x97",
    "zw\u{200b}sp".as_bytes(),
    "\u{202e}RTL".as_bytes(),
    "\u{feff}bom".as_bytes(),
    b"x.tar.gz",
    "y.Ä".as_bytes(),
    b"A.b",
    b"c.B",
    b".hidden",
    b"file9",
    b"file10",
    b"File2",
    b"it's",
    b"00.a.",
    b",.00.~a",
    b"abcdefghijklmnopqrstu",
    b"abcdefghijklmnopqrstU",
    b"abcdefghijklmnopqrstuv",
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZ.tar",
    "Ärger-mit-sehr-langen-Dateinamen.txt".as_bytes(),
];

/// Directories (and a link to one) for --group-directories-first.
const DIRS: &[&[u8]] = &[b"Dir", b"dir", "é-dir".as_bytes(), b"d\xffir"];

/// An instant every file gets, so that -t/-c/-u tie on most names.
fn epoch() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
}

fn fixture() -> TempDir {
    let t = TempDir::new("loc-sort");
    for (i, n) in super::COLLATION_CORNERS.iter().chain(NAMES).enumerate() {
        let p = raw_name(t.path(), n);
        // A few sizes and mtimes differ; the rest tie (-S, -t ties go to
        // strcoll).
        let size = if i % 7 == 3 { 5 } else { 0 };
        fs::write(&p, vec![b'x'; size]).unwrap();
        let when = if i % 11 == 5 { epoch() + Duration::from_secs(60) } else { epoch() };
        fs::File::options().write(true).open(&p).unwrap().set_modified(when).unwrap();
    }
    for d in DIRS {
        fs::create_dir(raw_name(t.path(), d)).unwrap();
        fs::write(raw_name(t.path(), &[d, &b"/inner"[..]].concat()), b"").unwrap();
    }
    std::os::unix::fs::symlink("dir", t.join("link-to-dir")).unwrap();
    t
}

/// Option sets whose order depends on collation (or, for -v and -U,
/// must not).
const LISTINGS: &[&[&str]] = &[
    &["-A"],
    &["-Ar"],
    &["-AX"],
    &["-AXr"],
    &["-Av"],
    &["-Avr"],
    &["-AS"],
    &["-ASr"],
    &["-At"],
    &["-Atr"],
    &["-Ac"],
    &["-Au"],
    &["-AU"],
    &["-A", "--group-directories-first"],
    &["-Ar", "--group-directories-first"],
    &["-AU", "--group-directories-first"],
    &["-AR"],
];

fn ls(c: &mut Cases, dir: &Path, env: &[(&str, &str)], args: &[&str]) {
    let mut run = Run::new(args.iter().copied().chain(["."])).cwd(dir);
    for (k, v) in env {
        run = run.env(k, v);
    }
    c.run(|| {
        compare("lsr", &run, Stderr::Exact);
    });
}

#[test]
fn names_sort_as_gnu_in_every_locale() {
    let t = fixture();
    every_locale("names_sort_as_gnu_in_every_locale", |c, l| {
        for args in LISTINGS {
            ls(c, t.path(), &[("LC_ALL", l)], args);
        }
    });
}

/// Runs `cases` once per locale there is, each locale's cases as one
/// group, and fails at the end with every locale's failures: one run shows
/// them all.
fn every_locale(test: &str, mut cases: impl FnMut(&mut Cases, &str)) {
    let mut failed = Vec::new();
    for l in locales(test) {
        let mut c = Cases::new(l);
        cases(&mut c, l);
        if let Err(e) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| c.finish())) {
            failed.push(e.downcast_ref::<String>().cloned().unwrap_or_default());
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n==========\n"));
}

/// Operands are sorted like directory entries (files, then each directory),
/// starting from argv order.
#[test]
fn operands_sort_as_gnu_in_every_locale() {
    let t = fixture();
    let ops: &[&[u8]] = &[
        b"b",
        "É".as_bytes(),
        b"A",
        "ß".as_bytes(),
        b"dir",
        "~0~ß".as_bytes(),
        b"a\xfeb",
        "0ß".as_bytes(),
        b"a\xffb",
        "é".as_bytes(),
        b"ss",
        b"Dir",
        b"a",
        "あ".as_bytes(),
    ];
    every_locale("operands_sort_as_gnu_in_every_locale", |c, l| {
        for args in [&["-d"][..], &["-dr"], &["-dS"], &[], &["-r"], &["-U"], &["-dX"]] {
            let run = Run::new(args.iter().map(|a| a.as_bytes()).chain(ops.iter().copied()))
                .cwd(t.path())
                .env("LC_ALL", l);
            c.run(|| {
                compare("lsr", &run, Stderr::Exact);
            });
        }
    });
}

/// Which variable sets LC_COLLATE: LC_ALL over LC_COLLATE over LANG, an
/// empty one counting as unset.
#[test]
fn collation_follows_the_right_variable() {
    let t = fixture();
    if locales("collation_follows_the_right_variable").len() < LOCALES.len() {
        return;
    }
    let mut c = Cases::new("LC_COLLATE vs LANG vs LC_ALL");
    for env in [
        &[("LC_ALL", ""), ("LANG", "C"), ("LC_COLLATE", "en_US.UTF-8")][..],
        &[("LC_ALL", ""), ("LANG", "de_DE.UTF-8")],
        &[("LC_ALL", ""), ("LANG", "ja_JP.UTF-8"), ("LC_COLLATE", "de_DE.UTF-8")],
        &[("LC_ALL", ""), ("LANG", "en_US.UTF-8"), ("LC_COLLATE", "C")],
        &[("LC_ALL", "C"), ("LANG", "de_DE.UTF-8")],
        &[("LC_ALL", "ja_JP.UTF-8"), ("LANG", "en_US.UTF-8")],
        &[("LC_ALL", ""), ("LANG", "en_US.UTF-8"), ("LC_TIME", "xx_XX.UTF-8")],
    ] {
        ls(&mut c, t.path(), env, &["-A"]);
        ls(&mut c, t.path(), env, &["-Ar"]);
    }
    c.finish();
}

/// Width ties are broken by strcoll. ASCII names only: their widths don't
/// depend on the locale, so this checks the order alone.
#[test]
fn width_ties_sort_as_gnu_in_every_locale() {
    let t = TempDir::new("loc-sort-width");
    for n in [
        "a", "A", "b", "B", "_a", ".b", "a b", "ab", "a-b", "a.b", "AB", "Ab", "aB", "1", "10",
        "9", "x.y", "X-y", "0.a.", ",.0.~a", "~a", "a~", "it's",
    ] {
        fs::write(t.join(n), b"").unwrap();
    }
    every_locale("width_ties_sort_as_gnu_in_every_locale", |c, l| {
        ls(c, t.path(), &[("LC_ALL", l)], &["-1A", "--sort=width"]);
        ls(c, t.path(), &[("LC_ALL", l)], &["-1Ar", "--sort=width"]);
    });
}

/// `--sort=width` on multibyte and invalid names: the widths are wcwidth's
/// (invalid bytes one column each, as GNU's quote_name_width counts them:
/// the names' part of the locale work), the ties strcoll's.
#[test]
fn width_sort_of_multibyte_names_as_gnu() {
    let t = fixture();
    every_locale("width_sort_of_multibyte_names_as_gnu", |c, l| {
        ls(c, t.path(), &[("LC_ALL", l)], &["-1", "--sort=width"]);
        ls(c, t.path(), &[("LC_ALL", l)], &["-1r", "--sort=width"]);
    });
}

/// Random names from pieces that collate differently per locale: enough of
/// them (5000) that lsr's two-core paths run, and that many share first
/// levels and so go through strcoll runs.
fn random_dir(seed: u64, count: usize) -> TempDir {
    let pieces: &[&[u8]] = &[
        b"a",
        b"A",
        b"b",
        b"B",
        b"e",
        b"E",
        b"z",
        b"Z",
        "é".as_bytes(),
        "É".as_bytes(),
        "ä".as_bytes(),
        "Ä".as_bytes(),
        "ß".as_bytes(),
        b"s",
        b"ss",
        b"_",
        b"-",
        b".",
        b" ",
        b"~",
        b",",
        b"0",
        b"1",
        b"9",
        b"10",
        "日".as_bytes(),
        "あ".as_bytes(),
        "ア".as_bytes(),
        "ｆ".as_bytes(),
        "\u{301}".as_bytes(),
        "\u{200b}".as_bytes(),
        b"K",
        "\u{212a}".as_bytes(),
        b"\xff",
        b"\xfe",
        b"\x80",
        b"\xe6\x97",
    ];
    names_from(pieces, 8, seed, count, "loc-sort-rnd")
}

/// A directory of `count` distinct empty files, each name 1 to `max_len`
/// random `pieces` (`.` and `..` left out).
fn names_from(pieces: &[&[u8]], max_len: u64, seed: u64, count: usize, tag: &str) -> TempDir {
    let t = TempDir::new(tag);
    let mut rng = Rng(seed);
    let mut made = 0;
    while made < count {
        let len = 1 + rng.next() % max_len;
        let name: Vec<u8> = (0..len).flat_map(|_| rng.pick(pieces).to_vec()).collect();
        if name == b"." || name == b".." {
            continue;
        }
        let p = raw_name(t.path(), &name);
        if fs::symlink_metadata(&p).is_ok() {
            continue;
        }
        fs::write(&p, b"").unwrap();
        made += 1;
    }
    t
}

#[test]
fn many_random_names_sort_as_gnu_in_every_locale() {
    let t = random_dir(0x9e37_79b9_7f4a_7c15, 5000);
    every_locale("many_random_names_sort_as_gnu_in_every_locale", |c, l| {
        for args in [&["-A"][..], &["-Ar"], &["-AX"], &["-At"], &["-Atr"], &["-AS"]] {
            ls(c, t.path(), &[("LC_ALL", l)], args);
        }
    });
}

/// Printable-ASCII names only (most real listings): from 128 names on,
/// lsr orders them by a table of the locale's weights learnt from
/// `strxfrm` (ja_JP's whole keys, en_US's and de_DE's first levels) and
/// settles ties with strcoll; punctuation, case and digits in every
/// position, and enough names (5000) that without the table the two-core
/// path would run.
#[test]
fn many_random_ascii_names_sort_as_gnu_in_every_locale() {
    let pieces: &[&[u8]] = &[
        b"a", b"A", b"b", b"B", b"z", b"Z", b"0", b"1", b"9", b"10", b"_", b"-", b".", b" ", b"~",
        b",", b"$", b"'", b"@", b"[", b"`", b"{", b"^", b"#", b"ch", b"cz", b"aa", b"dd",
    ];
    let t = names_from(pieces, 10, 0x2545_f491_4f6c_dd1d, 5000, "loc-sort-ascii");
    every_locale("many_random_ascii_names_sort_as_gnu_in_every_locale", |c, l| {
        for args in [&["-A"][..], &["-Ar"], &["-At"]] {
            ls(c, t.path(), &[("LC_ALL", l)], args);
        }
    });
}
