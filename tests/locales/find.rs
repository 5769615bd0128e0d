//! Locale differential tests: find's patterns (`-name` and friends by
//! glibc's fnmatch, `-regex` by glibc's GNU regex), du's `--exclude` and
//! ls's `-I`/`--hide`, in every locale, against GNU on one fixture whose
//! names are the corners of case folding, classes, equivalence classes,
//! collation ranges and invalid multibyte sequences.

use std::path::Path;

use crate::util::*;

/// Names at the corners: one-letter ASCII, Latin-1 letters and their cases,
/// dotless/dotted i, long s, the titlecase digraph, the three sigmas, the
/// Kelvin sign, a ligature, CJK, a decomposed é, an invalid byte, a
/// truncated sequence and a newline.
const NAMES: &[&[u8]] = &[
    b"a",
    b"A",
    b"b",
    b"B",
    b"e",
    b"E",
    b"i",
    b"I",
    b"k",
    b"K",
    b"x.c",
    b"s",
    "é".as_bytes(),
    "É".as_bytes(),
    "ß".as_bytes(),
    "ı".as_bytes(),
    "İ".as_bytes(),
    "ſ".as_bytes(),
    "Ǆ".as_bytes(),
    "ǅ".as_bytes(),
    "ǆ".as_bytes(),
    "σ".as_bytes(),
    "ς".as_bytes(),
    "Σ".as_bytes(),
    "\u{212a}".as_bytes(),
    "ﬁ".as_bytes(),
    "日本".as_bytes(),
    "e\u{301}".as_bytes(),
    b"a\xffb",
    b"bad\xffbyte",
    b"trunc\xe6\x97",
    b"\xc3\xa9\xff",
    b"nl\nx",
    b"Stra\xc3\x9fe.txt",
];

/// The fixture: NAMES at the top, a directory holding a few of them again
/// (for -path and du's tails), symbolic links to some (for -lname).
fn fixture(tag: &str) -> TempDir {
    let t = TempDir::new(tag);
    let root = t.path();
    std::fs::create_dir(root.join("dir")).unwrap();
    for n in NAMES {
        std::fs::write(raw_name(root, n), b"x").unwrap();
    }
    for n in [&b"\xc3\x89"[..], b"k", b"\xe2\x84\xaa", b"a\xffb"] {
        std::fs::write(raw_name(&root.join("dir"), n), b"xy").unwrap();
    }
    for (i, target) in
        [&b"\xc3\xa9"[..], b"\xc3\x89", b"a\xffb", b"K", b"\xe6\x97\xa5"].iter().enumerate()
    {
        std::os::unix::fs::symlink(std::ffi::OsStr::new(os(target)), root.join(format!("l{i}")))
            .unwrap();
    }
    t
}

fn bytes(args: &[&[u8]]) -> Vec<Vec<u8>> {
    args.iter().map(|a| a.to_vec()).collect()
}

/// Runs `tool` with each argument list in each locale under `cmp`,
/// collecting every difference.
fn run_all(
    name: &'static str,
    tool: &'static str,
    dir: &Path,
    cases: &[Vec<Vec<u8>>],
    cmp: fn(&str, &Run, Stderr) -> std::process::Output,
) {
    let mut c = Cases::new(name);
    for l in locales(name) {
        for args in cases {
            let run = Run::new(args.clone()).cwd(dir).env("LC_ALL", l);
            c.run(move || {
                cmp(tool, &run, Stderr::Exact);
            });
        }
    }
    c.finish();
}

/// `-name` and the other fnmatch tests: characters, case folding by
/// towlower, classes by isw*, ranges and `[[=e=]]` by collation, and a
/// byte-wise match as soon as either side is invalid.
#[test]
fn find_name_patterns() {
    let t = fixture("loc-find-name");
    let mut cases: Vec<Vec<Vec<u8>>> = Vec::new();
    let pats: &[&[u8]] = &[
        b"?",
        b"??",
        b"[a-z]",
        b"[A-Z]",
        b"[[=e=]]",
        b"[[=E=]]",
        b"[[:upper:]]",
        b"[[:lower:]]",
        b"[[:alpha:]]",
        b"[![:alpha:]]",
        b"[[:punct:]]*",
        "[é-f]".as_bytes(),
        b"[!a-z]",
        b"bad?byte",
        b"a?b",
        b"trunc?",
        b"trunc??",
        b"?\xff",
        b"??\xff",
        b"*\xff*",
        "*ß*".as_bytes(),
        "e?".as_bytes(),
        "[[.ß.]]".as_bytes(),
        b"*.TXT",
    ];
    for p in pats {
        cases.push(bytes(&[b".", b"-name", p]));
        cases.push(bytes(&[b".", b"-iname", p]));
    }
    let ipats: &[&[u8]] = &[
        b"k",
        b"K",
        b"i",
        b"I",
        "ǅ".as_bytes(),
        "É".as_bytes(),
        "é".as_bytes(),
        "σ".as_bytes(),
        "ß".as_bytes(),
        "SS".as_bytes(),
        "\u{212a}".as_bytes(),
        "STRASSE.TXT".as_bytes(),
        "STRAßE.TXT".as_bytes(),
    ];
    for p in ipats {
        cases.push(bytes(&[b".", b"-iname", p]));
    }
    let paths: &[(&[u8], &[u8])] = &[
        (b"-path", b"./dir/?"),
        (b"-path", b"./*/[[:upper:]]"),
        (b"-ipath", "./DIR/é".as_bytes()),
        (b"-ipath", b"./dir/K"),
        (b"-wholename", b"./?/*"),
        (b"-iwholename", "./DIR/[é]".as_bytes()),
        (b"-lname", b"?"),
        (b"-lname", b"a?b"),
        (b"-ilname", "é".as_bytes()),
        (b"-ilname", b"k"),
        (b"-lname", b"[[:alpha:]]"),
    ];
    for (op, p) in paths {
        cases.push(bytes(&[b".", op, p]));
    }
    // The checklist's line 18.
    cases.push(bytes(&[
        b".",
        b"-iname",
        b"k",
        b"-o",
        b"-name",
        b"[[:upper:]]",
        b"-o",
        b"-name",
        b"[[=e=]]",
    ]));
    run_all("find_name_patterns", "lfind", t.path(), &cases, compare_sorted);
}

/// `-regex`: glibc's engine in the locale — `.` a character and never an
/// invalid byte, classes and `\w` by character type, `[[=e=]]` and ranges
/// by collation, `-iregex` by towlower/towupper — for every -regextype.
#[test]
fn find_regex_patterns() {
    let t = fixture("loc-find-regex");
    let mut cases: Vec<Vec<Vec<u8>>> = Vec::new();
    let types: &[&[u8]] = &[
        b"findutils-default",
        b"emacs",
        b"posix-basic",
        b"posix-minimal-basic",
        b"posix-extended",
        b"posix-egrep",
        b"egrep",
        b"grep",
        b"awk",
        b"gnu-awk",
        b"posix-awk",
        b"ed",
        b"sed",
    ];
    let pats: &[&[u8]] = &[
        b".*",
        b"\\./.",
        b"\\./..",
        b"\\./.*[^ -~].*",
        b"\\./[[:upper:]]",
        b"\\./[[:alpha:]]*",
        b"\\./[[=e=]]",
        "\\./[é-f]".as_bytes(),
        b"\\./\\w*",
        b"\\./\\W.*",
        b".*[\\]].*",
        b"\\./bad.byte",
        b"\\./trunc.*",
        b"\\./..\xff",
        b".*\xff.*",
        b"\\./n.*x",
    ];
    for ty in types {
        for p in pats {
            cases.push(bytes(&[b".", b"-regextype", ty, b"-regex", p]));
        }
        cases.push(bytes(&[b".", b"-regextype", ty, b"-iregex", "\\./é".as_bytes()]));
    }
    let ipats: &[&[u8]] = &[
        "\\./é".as_bytes(),
        "\\./É".as_bytes(),
        b"\\./k",
        "\\./\u{212a}".as_bytes(),
        b"\\./i",
        "\\./ǅ".as_bytes(),
        "\\./σ".as_bytes(),
        "\\./[[:lower:]]".as_bytes(),
        "\\./dir/[^a-z]".as_bytes(),
        "\\./stra[ß]e.*".as_bytes(),
    ];
    for p in ipats {
        cases.push(bytes(&[b".", b"-iregex", p]));
    }
    // Compile errors: glibc's message, translated by the locale.
    let bad: &[(&[u8], &[u8])] = &[
        (b"emacs", b"["),
        (b"emacs", b"\\(a"),
        (b"posix-extended", b"[[:foo:]]"),
        (b"posix-extended", b"[z-a]"),
        (b"posix-extended", "[é-a]".as_bytes()),
        (b"posix-extended", b"*a"),
        (b"posix-basic", b"a\\{2,1\\}"),
        (b"posix-extended", b"a{1"),
        (b"emacs", b"a\\"),
    ];
    for (ty, p) in bad {
        cases.push(bytes(&[b".", b"-regextype", ty, b"-regex", p]));
    }
    run_all("find_regex_patterns", "lfind", t.path(), &cases, compare_sorted);
}

/// du's `--exclude`: fnmatch on the path and every tail, in the locale;
/// literal patterns compared as bytes.
#[test]
fn du_exclude_patterns() {
    let t = fixture("loc-du-exclude");
    let pats: &[&[u8]] = &[
        b"?",
        b"[[:upper:]]",
        b"[[=e=]]",
        "[é-f]".as_bytes(),
        "*ß*".as_bytes(),
        "É".as_bytes(),
        b"bad?byte",
        b"?\xff",
        b"??\xff",
        b"trunc??",
        b"dir/?",
        b"\\\xc3\xa9",
    ];
    let mut cases = Vec::new();
    for p in pats {
        let mut arg = b"--exclude=".to_vec();
        arg.extend_from_slice(p);
        cases.push(vec![b"-a".to_vec(), arg.clone(), b".".to_vec()]);
        cases.push(vec![b"-a".to_vec(), arg, b"dir".to_vec()]);
    }
    run_all("du_exclude_patterns", "ldu", t.path(), &cases, |tool, run, stderr| {
        compare_unordered(tool, run, stderr, b'\n', &|_| Ok(()))
    });
}

/// ls's `-I` and `--hide` (fnmatch with FNM_PERIOD), unsorted so that only
/// the pattern decides what differs.
#[test]
fn ls_ignore_patterns() {
    let t = fixture("loc-ls-ignore");
    let pats: &[&[u8]] = &[
        b"?",
        b"??",
        b"[[:upper:]]",
        b"[[:lower:]]*",
        b"[[=e=]]",
        "[é-f]".as_bytes(),
        "*ß*".as_bytes(),
        b"bad?byte",
        b"?\xff",
        b"??\xff",
        b"[!a-z]",
    ];
    let mut cases = Vec::new();
    for p in pats {
        let mut hide = b"--hide=".to_vec();
        hide.extend_from_slice(p);
        cases.push(vec![b"-U1".to_vec(), b"-I".to_vec(), p.to_vec()]);
        cases.push(vec![b"-U1".to_vec(), hide.clone()]);
        cases.push(vec![b"-U1A".to_vec(), hide]);
    }
    run_all("ls_ignore_patterns", "lsr", t.path(), &cases, compare);
}
