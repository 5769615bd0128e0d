//! Locale differential tests: numbers. Sizes under `-h`/`--si` take
//! LC_NUMERIC's decimal point, the `'` of a block size groups digits by
//! its thousands separator and grouping, find's `%S` is printf's `%g`, and
//! cat stays byte-oriented everywhere (checklist items 15, 16 and 24).
//!
//! The `total` lines of ls and du carry a translated word ("insgesamt",
//! "合計") besides their number; the cases with such a line are kept apart
//! from the ones without, so a failure shows whether the number or the
//! word differs.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use crate::util::*;

/// Sizes from nothing to gigabytes: real data (its allocated blocks make
/// the `-s` and du numbers), sparse files (big apparent sizes, no blocks),
/// a size just under 1024 KiB that `-h` shows as `1016K` (grouped with
/// `'h`), and one of 1000 bytes (grouped even unscaled).
fn fixture() -> TempDir {
    let t = TempDir::new("numbers");
    let fx = t.join("fx");
    std::fs::create_dir_all(fx.join("sub")).unwrap();
    let put = |name: &str, len: usize| std::fs::write(fx.join(name), vec![b'x'; len]).unwrap();
    put("empty", 0);
    put("small", 100);
    put("b1000", 1000);
    put("k1016", 1_040_000);
    put("big", 1_234_567);
    put("real12", 12_345_678);
    put("sub/inner", 5000);
    let sparse = |name: &str, len: u64| {
        std::fs::File::create(fx.join(name)).unwrap().set_len(len).unwrap();
    };
    sparse("sp123", 123_456_789);
    sparse("sparse5g", 5 << 30);
    // Reading the directories once now updates their atime (relatime) before
    // GNU's run, so %A@ is the same for both sides.
    for d in [t.path().to_path_buf(), fx.clone(), fx.join("sub")] {
        let _ = std::fs::read_dir(&d).unwrap().count();
    }
    t
}

/// How a tool's output is compared.
#[derive(Clone, Copy)]
enum How {
    Exact,
    /// du: lines of sibling subtrees in any order.
    Du,
    /// find: records in any order.
    Sorted,
}

/// One differential case in `locale` (with `LOCPATH` when the locale is
/// one of [`extra_locales`]), its environment and locale named in a
/// failure.
#[allow(clippy::too_many_arguments)]
fn case(
    cases: &mut Cases,
    tool: &'static str,
    how: How,
    dir: &Path,
    locpath: Option<&Path>,
    locale: &str,
    env: &[(&str, &str)],
    args: &[&str],
    stdin: Option<&[u8]>,
) {
    let mut run = Run::new(args).cwd(dir).env("LC_ALL", locale);
    if let Some(p) = locpath {
        run = run.env("LOCPATH", p.to_str().unwrap());
    }
    for (k, v) in env {
        run = run.env(k, v);
    }
    if let Some(data) = stdin {
        run = run.stdin(data);
    }
    let what = format!("[LC_ALL={locale} {env:?}] {tool} {args:?}");
    cases.run(move || {
        let r = std::panic::catch_unwind(|| match how {
            How::Exact => {
                compare(tool, &run, Stderr::Exact);
            }
            How::Du => {
                compare_unordered(tool, &run, Stderr::Exact, b'\n', &|_| Ok(()));
            }
            How::Sorted => {
                compare_sorted(tool, &run, Stderr::Exact);
            }
        });
        if let Err(e) = r {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{what}\n{msg}");
        }
    });
}

/// A case: environment variables, then arguments.
type Case = (&'static [(&'static str, &'static str)], &'static [&'static str]);

/// ls cases without a `total` line (file operands): numbers only.
const LS_OPERANDS: &[Case] = &[
    (&[], &["-lgoh", "--time-style=+"]),
    (&[], &["-lgo", "--si", "--time-style=+"]),
    (&[], &["-lsgoh", "--time-style=+"]),
    (&[], &["-s", "--block-size='1"]),
    (&[], &["-sh"]),
    (&[], &["-sC", "-w", "80", "--block-size='1"]),
    (&[], &["-sx", "--block-size='1"]),
    (&[], &["-sm", "--block-size='1"]),
    (&[], &["-lsgo", "--block-size='1", "--time-style=+"]),
    (&[], &["-lsgo", "--block-size=1", "--time-style=+"]),
    (&[], &["-lgo", "--block-size='h", "--time-style=+"]),
    (&[], &["-lgo", "--block-size='si", "--time-style=+"]),
    (&[], &["-lsgo", "--block-size='K", "--time-style=+"]),
    (&[], &["-lsgo", "--block-size='KB", "--time-style=+"]),
    (&[], &["-lsgo", "--block-size='1K", "--time-style=+"]),
    (&[], &["-lsgo", "--block-size='1", "-h", "--time-style=+"]),
    (&[], &["-lsgoi", "--block-size='1", "--time-style=+"]),
    (&[("LS_BLOCK_SIZE", "'1")], &["-lsgo", "--time-style=+"]),
    (&[("LS_BLOCK_SIZE", "'h")], &["-lsgo", "--time-style=+"]),
    (&[("BLOCK_SIZE", "'1")], &["-lsgo", "--time-style=+"]),
    (&[("BLOCK_SIZE", "'1K")], &["-lsgok", "--time-style=+"]),
    (&[("BLOCKSIZE", "'1")], &["-lsgo", "--time-style=+"]),
    (&[("BLOCKSIZE", "'1")], &["-s"]),
    (&[("LS_BLOCK_SIZE", "'1"), ("POSIXLY_CORRECT", "1")], &["-s"]),
    // human_options' corners: a zero keeps the ' (default block, grouped),
    // any error drops it.
    (&[("BLOCK_SIZE", "'0")], &["-lsgo", "--time-style=+"]),
    (&[("LS_BLOCK_SIZE", "'0"), ("POSIXLY_CORRECT", "1")], &["-lsgo", "--time-style=+"]),
    (&[("BLOCK_SIZE", "'1x")], &["-lsgo", "--time-style=+"]),
    (&[("BLOCKSIZE", "'1Z")], &["-s"]),
];

/// The files the operand cases list (no directory: no `total`).
const FILES: &[&str] = &["b1000", "big", "empty", "k1016", "real12", "small", "sp123", "sparse5g"];

/// ls cases listing the directory: the same numbers plus the `total` line.
const LS_DIRECTORY: &[Case] = &[
    (&[], &["-lgoh", "--time-style=+", "fx"]),
    (&[], &["-s", "--block-size='1", "fx"]),
    (&[], &["-sh", "fx"]),
    (&[], &["-lsgo", "--si", "--time-style=+", "fx"]),
    (&[], &["-lsgo", "--block-size='1", "--time-style=+", "fx"]),
    (&[], &["-lsgo", "--block-size='h", "--time-style=+", "fx"]),
    (&[("LS_BLOCK_SIZE", "'1")], &["-lsgo", "--time-style=+", "fx"]),
    (&[("BLOCK_SIZE", "'1K")], &["-lsgok", "--time-style=+", "fx"]),
    (&[("BLOCKSIZE", "'1")], &["-sC", "-w", "70", "fx"]),
];

fn ls_cases(cases: &mut Cases, dir: &Path, locpath: Option<&Path>, locale: &str) {
    for (env, args) in LS_OPERANDS {
        let files = FILES.iter().map(|f| format!("fx/{f}"));
        let argv: Vec<String> = args.iter().map(|a| a.to_string()).chain(files).collect();
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        case(cases, "lsr", How::Exact, dir, locpath, locale, env, &argv, None);
    }
    for (env, args) in LS_DIRECTORY {
        case(cases, "lsr", How::Exact, dir, locpath, locale, env, args, None);
    }
}

/// du cases without a `total` line.
const DU_PLAIN: &[Case] = &[
    (&[], &["-ah", "fx"]),
    (&[], &["-a", "--si", "fx"]),
    (&[], &["-ah", "--apparent-size", "fx"]),
    (&[], &["-a", "--block-size='1", "fx"]),
    (&[], &["-a", "--block-size='h", "fx"]),
    (&[], &["-a", "--block-size='KB", "fx"]),
    (&[], &["-a", "--block-size='1", "-b", "fx"]),
    (&[], &["-a", "-b", "--block-size='1", "fx"]),
    (&[], &["-s", "--inodes", "--block-size='1", "fx"]),
    (&[], &["-s", "--inodes", "-B'K", "fx"]),
    (&[], &["-s", "--inodes", "-h", "fx"]),
    (&[("DU_BLOCK_SIZE", "'1")], &["-a", "fx"]),
    (&[("BLOCK_SIZE", "'1")], &["-a", "--apparent-size", "fx"]),
    (&[("BLOCKSIZE", "'1")], &["-a", "fx"]),
    (&[("BLOCK_SIZE", "'1K")], &["-k", "fx/real12"]),
    (&[("BLOCK_SIZE", "'1")], &["-b", "fx/real12"]),
    (&[("BLOCK_SIZE", "'1")], &["-m", "fx/real12"]),
    (&[("DU_BLOCK_SIZE", "'h")], &["-a", "fx"]),
    (&[("DU_BLOCK_SIZE", "'0")], &["-a", "fx"]),
    (&[("BLOCK_SIZE", "'0"), ("POSIXLY_CORRECT", "1")], &["-a", "fx"]),
    (&[("BLOCK_SIZE", "'1x")], &["-a", "fx"]),
    (&[("BLOCKSIZE", "'0x")], &["-a", "fx"]),
];

/// du cases with the `-c` total line.
const DU_TOTAL: &[Case] = &[
    (&[], &["-ch", "--si", "fx/big"]),
    (&[], &["-ch", "fx/big", "fx/real12"]),
    (&[("BLOCK_SIZE", "'1")], &["-c", "fx/big"]),
    (&[], &["-c", "--block-size='1", "fx/big", "fx/sub"]),
];

fn du_cases(cases: &mut Cases, dir: &Path, locpath: Option<&Path>, locale: &str) {
    for (env, args) in DU_PLAIN.iter().chain(DU_TOTAL) {
        case(cases, "ldu", How::Du, dir, locpath, locale, env, args, None);
    }
}

const FIND_FORMATS: &[&str] = &[
    "%s %k %b %S %A@ %T@ %C@ %d %i %n %p\\n",
    "[%10S][%-12T@][%.3S][%5.2S][%TS][%T+]\\n",
    "[%.3s][%05s][%+s][%-8k][%.2S][%08S][%-8S][%+S][%#S][% S][%.0S][%.10S][%#.0S][%-+12.4S]\\n",
];

fn find_cases(cases: &mut Cases, dir: &Path, locpath: Option<&Path>, locale: &str) {
    for f in FIND_FORMATS {
        case(cases, "lfind", How::Sorted, dir, locpath, locale, &[], &["fx", "-printf", f], None);
    }
}

/// Runs `cases_of` on the fixture in every locale there is, for the test
/// `name` (its path).
fn on_fixture(name: &'static str, cases_of: fn(&mut Cases, &Path, Option<&Path>, &str)) {
    let t = fixture();
    let mut cases = Cases::new(name);
    for l in locales(name.rsplit("::").next().unwrap_or(name)) {
        cases_of(&mut cases, t.path(), None, l);
    }
    cases.finish();
}

#[test]
fn ls_sizes_follow_lc_numeric() {
    on_fixture("locales::numbers::ls_sizes_follow_lc_numeric", ls_cases);
}

#[test]
fn du_sizes_follow_lc_numeric() {
    on_fixture("locales::numbers::du_sizes_follow_lc_numeric", du_cases);
}

#[test]
fn find_printf_numbers() {
    on_fixture("locales::numbers::find_printf_numbers", find_cases);
}

/// The commands of `checklist` items 15 and 16, in every locale tested.
#[test]
fn checklist_15_16() {
    let t = fixture();
    let d = t.path();
    let mut cases = Cases::new("locales::numbers::checklist_15_16");
    for l in locales("checklist_15_16") {
        let c = &mut cases;
        case(c, "lsr", How::Exact, d, None, l, &[], &["-lgoh", "--time-style=+", "fx/big"], None);
        case(c, "lsr", How::Exact, d, None, l, &[], &["-s", "--block-size='1", "fx"], None);
        case(c, "ldu", How::Du, d, None, l, &[], &["-ch", "--si", "fx/big"], None);
        case(c, "ldu", How::Du, d, None, l, &[("BLOCK_SIZE", "'1")], &["-c", "fx/big"], None);
    }
    cases.finish();
}

/// cat is byte-oriented in every locale: ^ and M- notation per byte, line
/// numbers never grouped (checklist item 24 and more).
#[test]
fn cat_is_byte_oriented() {
    let t = TempDir::new("numbers-cat");
    let mut data = "é\t日\u{ff}".as_bytes().to_vec();
    data.extend_from_slice(
        b"\xff\x01\x7f\x80\xa0\xc3\r\n\n\n\xe6\x97\nlast\xe2\x80\xaf no newline",
    );
    std::fs::write(t.join("bin"), &data).unwrap();
    let seq: Vec<u8> = (1..=1500).flat_map(|n| format!("{n}\n").into_bytes()).collect();
    let mut cases = Cases::new("locales::numbers::cat_is_byte_oriented");
    for l in locales("cat_is_byte_oriented") {
        let c = &mut cases;
        let d = t.path();
        for opt in ["-A", "-v", "-e", "-t", "-n", "-b", "-s", "-vET", "-ns", "-T", "-E", "-bsA"] {
            case(c, "lcat", How::Exact, d, None, l, &[], &[opt, "bin"], None);
        }
        case(c, "lcat", How::Exact, d, None, l, &[], &["-n"], Some(&seq));
        case(c, "lcat", How::Exact, d, None, l, &[], &["-bA", "-", "bin"], Some(&seq));
    }
    cases.finish();
}

/// Locales beyond the five, built with `localedef` into a private
/// `LOCPATH` once per machine: fr_FR (U+202F, a 3-byte thousands separator
/// and a decimal comma) and en_IN (grouping 3;2). Empty when localedef or
/// the locale sources are missing (these are extra coverage, not a
/// prerequisite).
fn extra_locales() -> Option<(&'static Path, Vec<&'static str>)> {
    static DIR: OnceLock<Option<(std::path::PathBuf, Vec<&'static str>)>> = OnceLock::new();
    let got = DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join("ringutils-locpath");
        std::fs::create_dir_all(&dir).ok()?;
        let mut ok = Vec::new();
        for (name, src) in [("fr_FR.UTF-8", "fr_FR"), ("en_IN.UTF-8", "en_IN")] {
            let target = dir.join(name);
            if !target.join("LC_NUMERIC").exists() {
                // Built aside and renamed, so a concurrent run never sees
                // half a locale.
                let tmp = dir.join(format!("{src}.tmp{}.UTF-8", std::process::id()));
                let built = Command::new("localedef")
                    .args(["-i", src, "-f", "UTF-8"])
                    .arg(&tmp)
                    .output()
                    .is_ok_and(|o| tmp.join("LC_NUMERIC").exists() && o.status.code() != Some(4));
                if !built || std::fs::rename(&tmp, &target).is_err() {
                    let _ = std::fs::remove_dir_all(&tmp);
                }
            }
            if target.join("LC_NUMERIC").exists() {
                ok.push(name);
            }
        }
        Some((dir, ok))
    });
    got.as_ref().map(|(d, l)| (d.as_path(), l.clone()))
}

#[test]
fn sizes_in_fr_and_en_in() {
    let Some((locpath, locs)) = extra_locales().filter(|(_, l)| !l.is_empty()) else {
        eprintln!("SKIPPED sizes_in_fr_and_en_in: localedef could not build fr_FR/en_IN");
        return;
    };
    let t = fixture();
    let mut cases = Cases::new("locales::numbers::sizes_in_fr_and_en_in");
    for l in locs {
        ls_cases(&mut cases, t.path(), Some(locpath), l);
        du_cases(&mut cases, t.path(), Some(locpath), l);
        find_cases(&mut cases, t.path(), Some(locpath), l);
    }
    cases.finish();
}
