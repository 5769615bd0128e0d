//! Locale differential tests: names as GNU prints them in the user's
//! locale. Printability (quotearg: decodes and iswprint), `-q` masking
//! (wcwidth ≥ 0), column widths (wcwidth of the quoted name), the quote
//! marks of the `locale`/`clocale` styles (the tool's catalog, else ‘ ’ in
//! UTF-8), on a pipe and on a terminal, for lsr, lfind and ldu.
//!
//! Listings use `-U` (directory order, the same for GNU and us) so that
//! they test names, not collation; `--sort=width`, whose ties fall back to
//! collation, runs with LC_COLLATE=C and the rest of the locale from LANG.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::*;

/// Names whose rendering differs between locales: precomposed and
/// combining é, wide CJK and full-width letters, zero-width and format
/// characters (printable, width 0), U+00AD (width 1), unprintable U+2028
/// and U+FFFE, a C1 control, the right quotes of C.UTF-8 and de, an invalid
/// byte, a truncated sequence, C0 controls, `'` and spaces.
const NAMES: &[&[u8]] = &[
    b"\xc3\xa9",
    b"e\xcc\x81",
    "日本".as_bytes(),
    "ｆｕｌｌ".as_bytes(),
    b"zw\xe2\x80\x8bsp",
    b"\xe2\x80\xaeRTL",
    b"\xef\xbb\xbfbom",
    b"soft\xc2\xadhy",
    b"ls\xe2\x80\xa8sep",
    b"\xef\xbf\xbe",
    b"c1\xc2\x9bx",
    b"q\xe2\x80\x99r",
    b"de\xe2\x80\x9cx",
    b"a\xffb",
    b"trunc\xe6\x97",
    b"new\nline",
    b"tab\tx",
    b"it's",
    b"it's \xc3\xa9",
    b"a b",
    b"plain",
    "Zoë".as_bytes(),
    "émile".as_bytes(),
];

fn fixture() -> TempDir {
    let t = TempDir::new("names");
    for n in NAMES {
        std::fs::write(raw_name(t.path(), n), b"").unwrap();
    }
    t
}

/// The locale's names with collation left out (for --sort=width).
fn ctype_only(r: Run, l: &str) -> Run {
    r.env("LC_ALL", "").env("LANG", l).env("LC_COLLATE", "C")
}

fn case(c: &mut Cases, tool: &'static str, run: Run) {
    c.run(move || {
        if tool == "lfind" {
            // The parallel walk orders records freely.
            compare_sorted(tool, &run, Stderr::Exact);
        } else {
            compare(tool, &run, Stderr::Exact);
        }
    });
}

const STYLES: [&str; 11] = [
    "",
    "--quoting-style=literal",
    "--quoting-style=shell",
    "--quoting-style=shell-always",
    "--quoting-style=shell-escape",
    "--quoting-style=shell-escape-always",
    "--quoting-style=c",
    "--quoting-style=c-maybe",
    "--quoting-style=escape",
    "--quoting-style=locale",
    "--quoting-style=clocale",
];

#[test]
fn ls_quoting_styles_and_widths() {
    let t = fixture();
    let mut c = Cases::new("locales::names::ls_quoting_styles_and_widths");
    let layouts: &[&[&str]] = &[
        &[],
        &["-q"],
        &["-C", "-w", "50"],
        &["-x", "-w", "50"],
        &["-m", "-w", "50"],
        &["-q", "-C", "-w", "50"],
        &["-F", "-C", "-w", "60"],
    ];
    for l in locales("ls_quoting_styles_and_widths") {
        for style in STYLES {
            for layout in layouts {
                let mut args = vec!["-U"];
                args.extend_from_slice(layout);
                if !style.is_empty() {
                    args.push(style);
                }
                case(&mut c, "lsr", Run::new(&args).cwd(t.path()).env("LC_ALL", l));
            }
            let mut args = vec!["--sort=width", "-x", "-w", "70"];
            if !style.is_empty() {
                args.push(style);
            }
            case(&mut c, "lsr", ctype_only(Run::new(&args).cwd(t.path()), l));
            args.push("-q");
            case(&mut c, "lsr", ctype_only(Run::new(&args).cwd(t.path()), l));
        }
        for short in ["-b", "-N", "-Q", "-qN", "-bC", "-QC", "-NqC"] {
            let run = Run::new(["-U", short, "-w", "50"]).cwd(t.path()).env("LC_ALL", l);
            case(&mut c, "lsr", run);
        }
        // -l: the name is last (and aligned when others are quoted); names
        // as operands, so no "total" line (translated in de/ja).
        for style in ["", "--quoting-style=shell-escape", "--quoting-style=locale"] {
            let mut args: Vec<&[u8]> = vec![b"-lU", b"--time-style=+T"];
            if !style.is_empty() {
                args.push(style.as_bytes());
            }
            args.push(b"--");
            args.extend_from_slice(NAMES);
            case(&mut c, "lsr", Run::new(&args).cwd(t.path()).env("LC_ALL", l));
        }
    }
    // The catalog's marks count even in C.UTF-8 when LANGUAGE picks one
    // (coreutils de: „ “, ja: ` ' with `\'` inside).
    for (lang, l) in [("de", "C.UTF-8"), ("ja", "en_US.UTF-8"), ("de", "C")] {
        if !locale_installed(l) {
            continue;
        }
        for style in ["--quoting-style=locale", "--quoting-style=clocale"] {
            let run = Run::new(["-U", style]).cwd(t.path()).env("LC_ALL", l).env("LANGUAGE", lang);
            case(&mut c, "lsr", run);
        }
    }
    c.finish();
}

/// `-R` directory headers: quoted like names with `:` added, but (GNU)
/// without -b's escaped space.
#[test]
fn ls_recursive_headers() {
    let t = TempDir::new("names-r");
    for d in [&b"a b:c/\xe6\x97\xa5 x"[..], b"ls\xe2\x80\xa8sep d", b"it's \xc3\xa9", b"bad\xff d"]
    {
        std::fs::create_dir_all(raw_name(t.path(), d)).unwrap();
    }
    std::fs::write(raw_name(t.path(), b"a b:c/\xe6\x97\xa5 x/\xc3\xbc"), b"").unwrap();
    let mut c = Cases::new("locales::names::ls_recursive_headers");
    for l in locales("ls_recursive_headers") {
        for style in STYLES {
            for extra in ["-b", "-q", "-F"] {
                let mut args = vec!["-RU", extra];
                if !style.is_empty() {
                    args.push(style);
                }
                case(&mut c, "lsr", Run::new(&args).cwd(t.path()).env("LC_ALL", l));
            }
        }
    }
    c.finish();
}

/// Error messages name files in the locale's terms: ls, du and cat with
/// shell-escape quoting (é printable in UTF-8), find with the locale style
/// and findutils' marks (none in its catalogs: ‘ ’ in every UTF-8 locale).
#[test]
fn names_in_error_messages() {
    let t = fixture();
    let mut c = Cases::new("locales::names::names_in_error_messages");
    let missing: &[&[u8]] = &[b"x\xc3\xa9", b"it's", b"x\xffy", b"q\xe2\x80\x99r\xe2\x80\xa8"];
    for l in locales("names_in_error_messages") {
        let run = Run::new(missing).cwd(t.path()).env("LC_ALL", l);
        case(&mut c, "lfind", run);
        // coreutils' own message text is translated in de/ja; the names
        // are what is under test here, so messages stay English.
        for tool in ["lsr", "ldu", "lcat"] {
            let run = Run::new(missing).cwd(t.path()).env("LC_ALL", "").env("LANG", l);
            case(&mut c, tool, run.env("LC_MESSAGES", "C"));
        }
    }
    c.finish();
}

/// find -ls escapes names byte by byte whatever the locale.
#[test]
fn find_ls_is_locale_blind() {
    let t = fixture();
    let mut c = Cases::new("locales::names::find_ls_is_locale_blind");
    for l in ["C", "en_US.UTF-8"] {
        if !locale_installed(l) {
            prerequisite_missing("find_ls_is_locale_blind", &format!("locale {l}"));
            continue;
        }
        for args in [&[".", "-ls"][..], &[".", "-name", "*t*", "-ls"], &[".", "-print"]] {
            case(&mut c, "lfind", Run::new(args).cwd(t.path()).env("LC_ALL", l));
        }
    }
    c.finish();
}

/// Runs `argv0 ARGS` (`program` under the name `argv0`) on a pseudo-terminal
/// (util-linux `script`) and returns what the terminal received.
fn on_tty(argv0: &str, program: &str, args: &[&[u8]], cwd: &Path, env: &[(&str, &str)]) -> Vec<u8> {
    let mut cmd = format!("exec -a {argv0} {program}").into_bytes();
    for a in args {
        cmd.extend_from_slice(b" '");
        for &b in *a {
            if b == b'\'' {
                cmd.extend_from_slice(b"'\\''");
            } else {
                cmd.push(b);
            }
        }
        cmd.push(b'\'');
    }
    // `exec -a` needs bash: script runs $SHELL, which would be dash.
    let mut c = Command::new("script");
    c.arg("-qec").arg(std::ffi::OsStr::from_bytes(&cmd)).arg("/dev/null");
    c.current_dir(cwd).env_clear().stdin(Stdio::null()).env("SHELL", "/bin/bash");
    c.env("PATH", "/usr/local/bin:/usr/bin:/bin").env("TZ", "UTC").env("TERM", "xterm");
    c.env("COLUMNS", "80");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap().stdout;
    // A command that didn't run would make GNU and us agree vacuously.
    assert!(
        !out.is_empty() && !out.windows(9).any(|w| w == b"not found"),
        "{program} did not run on the terminal: {}",
        String::from_utf8_lossy(&out)
    );
    out
}

fn tty_case(
    c: &mut Cases,
    tool: &'static str,
    dir: &Path,
    args: Vec<Vec<u8>>,
    env: Vec<(&'static str, String)>,
) {
    let dir = dir.to_path_buf();
    c.run(move || {
        let args: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        let argv0 = Path::new(gnu(tool)).file_name().unwrap().to_str().unwrap();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let want = on_tty(argv0, gnu(tool), &args, &dir, &env);
        for b in BACKENDS {
            let mut e = env.clone();
            e.push(("RINGIO_BACKEND", b));
            let got = on_tty(argv0, ours(tool).to_str().unwrap(), &args, &dir, &e);
            // lfind's and ldu's parallel walks order lines freely.
            let same = if tool == "lsr" {
                got == want
            } else {
                sorted_records_by(&got, b'\n') == sorted_records_by(&want, b'\n')
            };
            assert!(
                same,
                "{tool} on a tty {args:?} {env:?} [{b}]\n--- gnu ---\n{}\n--- ours ---\n{}",
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got)
            );
        }
    });
}

fn words(args: &[&str]) -> Vec<Vec<u8>> {
    args.iter().map(|a| a.as_bytes().to_vec()).collect()
}

/// On a terminal: ls defaults to shell-escape, -q and columns (é and Zoë
/// raw in UTF-8 locales, escaped in C); find masks with `?` per character.
#[test]
fn names_on_a_terminal() {
    if !require("script", "names_on_a_terminal") {
        return;
    }
    let t = fixture();
    let mut c = Cases::new("locales::names::names_on_a_terminal");
    for l in locales("names_on_a_terminal") {
        let all = || vec![("LC_ALL", l.to_string())];
        let ctype = || vec![("LANG", l.to_string()), ("LC_COLLATE", "C".to_string())];
        for args in [
            &["-U"][..],
            &["-U", "-x"],
            &["-U", "-m"],
            &["-U", "-N"],
            &["-U", "-b"],
            &["-U", "--quoting-style=literal"],
            &["-U", "--quoting-style=shell", "-C"],
            &["-U", "--quoting-style=locale"],
        ] {
            tty_case(&mut c, "lsr", t.path(), words(args), all());
        }
        tty_case(&mut c, "lsr", t.path(), words(&["--sort=width"]), ctype());
        let mut long = words(&["-lU", "--time-style=+T", "--"]);
        long.extend(NAMES.iter().map(|n| n.to_vec()));
        tty_case(&mut c, "lsr", t.path(), long, all());
        for args in [
            &["."][..],
            &[".", "-printf", "%p|%f|%12f|%-9h|\n"],
            &[".", "-fprint", "/dev/stdout"],
            &[".", "-name", "*e*", "-print", "-fprintf", "/dev/tty", "[%P]\n"],
        ] {
            tty_case(&mut c, "lfind", t.path(), words(args), all());
        }
    }
    c.finish();
    // Beyond GNU: with --show-control-chars (or --zero) lsr still never
    // sends a control character to a terminal: C0 bytes, DEL, and in UTF-8
    // the C1 controls (U+009B is CSI to some terminals).
    for l in locales("names_on_a_terminal") {
        let lsr = ours("lsr");
        for args in [
            &[&b"-U"[..], b"--show-control-chars"][..],
            &[b"-U", b"--zero"],
            &[b"-UlN", b"--show-control-chars"],
        ] {
            let got = on_tty("ls", lsr.to_str().unwrap(), args, t.path(), &[("LC_ALL", l)]);
            let bad = got.iter().any(|&b| (b < 0x20 && !b"\r\n\t\0".contains(&b)) || b == 0x7f);
            assert!(!bad, "{l} {args:?}: control byte reached the terminal");
            // (In C, bytes ≥ 0x80 go out as they are, as before.)
            let csi = got.windows(2).any(|w| w == b"\xc2\x9b");
            assert!(l == "C" || !csi, "{l} {args:?}: C1 CSI reached the terminal");
        }
    }
}

/// ldu on a terminal: printable names as GNU du prints them (raw, so é and
/// 日本 show in UTF-8 locales); unprintable characters are masked with `?`
/// as find masks them (a deliberate difference: GNU du prints them raw).
#[test]
fn du_names_on_a_terminal() {
    if !require("script", "du_names_on_a_terminal") {
        return;
    }
    let t = TempDir::new("du-names");
    for n in ["é", "e\u{301}", "日本", "ｆｕｌｌ", "Zoë", "a b", "it's", "zw\u{200b}sp"] {
        std::fs::write(t.join(n), b"").unwrap();
    }
    let mut c = Cases::new("locales::names::du_names_on_a_terminal");
    // In C every byte ≥ 0x80 is unprintable, so there ldu shows é as `??`.
    for l in locales("du_names_on_a_terminal").into_iter().filter(|&l| l != "C") {
        tty_case(&mut c, "ldu", t.path(), words(&["-a"]), vec![("LC_ALL", l.to_string())]);
    }
    c.finish();
    let f = fixture();
    for l in locales("du_names_on_a_terminal") {
        let ldu = ours("ldu");
        let got = on_tty("du", ldu.to_str().unwrap(), &[b"-a"], f.path(), &[("LC_ALL", l)]);
        for line in got.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            assert!(
                !line.iter().any(|&b| b < 0x20 && b != b'\t'),
                "{l}: control byte in ldu's line {:?}",
                String::from_utf8_lossy(line)
            );
            assert!(!line.windows(2).any(|w| w == b"\xc2\x9b"), "{l}: C1 CSI reached the terminal");
        }
    }
}
