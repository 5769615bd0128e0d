//! Locale differential tests: times. Dates as GNU prints them in each
//! locale: `ls -l`'s translated formats and padded month names, its other
//! styles, `find -printf`'s time directives and `-ls`, and `du --time`.
//! Every case runs GNU and ours on the same files, TZ=UTC.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

#[allow(unused_imports)]
use crate::util::*;

/// Files at fixed dates in five months of 2023 (ls's padding shows in
/// de_DE's "Mär", ja_JP's " 1月"/"10月"), and files around the recency
/// bounds relative to now: ls's six months, find -ls's 180 days and one
/// hour ahead.
fn fixture() -> TempDir {
    let t = TempDir::new("loc-times");
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64;
    let day = 86_400;
    let mut files: Vec<(String, String)> = ["01", "03", "05", "10", "12"]
        .iter()
        .map(|m| (format!("old{m}"), format!("2023-{m}-05 13:45:07.123456789 UTC")))
        .collect();
    for (name, at) in [
        ("recent", now - 3 * day),
        ("d179", now - 179 * day),
        ("d181", now - 181 * day),
        ("f30m", now + 1800),
        ("f2h", now + 7200),
        ("future", now + 3 * day),
    ] {
        files.push((name.into(), format!("@{at}")));
    }
    for (name, when) in &files {
        let st = Command::new("touch").args(["-d", when]).arg(t.join(name)).status().unwrap();
        assert!(st.success(), "touch {name}");
    }
    t
}

/// Every file of the fixture, as operands: a directory listing would
/// start with "total", whose translation is the messages suite's.
const ALL: &[&str] = &[
    "old01", "old03", "old05", "old10", "old12", "recent", "d179", "d181", "f30m", "f2h", "future",
];

fn with_files<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.extend_from_slice(ALL);
    v
}

/// A `Cases` per locale, so a run reports its pass count per locale.
fn cases_for(what: &str, locale: &str) -> Cases {
    Cases::new(Box::leak(format!("{what} [{locale}]").into_boxed_str()))
}

fn in_dir(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut r = Run::new(args).cwd(dir);
    for (k, v) in env {
        r = r.env(k, v);
    }
    r
}

/// ls -l arguments compared in every locale (all files of the fixture).
const LS_ARGS: &[&[&str]] = &[
    &["-lgo"],
    &["-lgo", "--time-style=locale"],
    &["-lgo", "--time-style=posix-locale"],
    &["-lgo", "--time-style=posix-iso"],
    &["-lgo", "--time-style=posix-long-iso"],
    &["-lgo", "--time-style=posix-full-iso"],
    &["-lgo", "--time-style=iso"],
    &["-lgo", "--time-style=long-iso"],
    &["-lgo", "--time-style=full-iso"],
    &["-lgo", "--full-time"],
    &["-lgo", "--time-style=+%b|%c|%x|%p|%a"],
    &["-lgo", "--time-style=+%A %B %h %X %r %P %Z"],
    &["-lgo", "--time-style=+%^b|%#p|%10B|%-5a|%_10b|%010b|%^c|%#A|%-30c|%20r"],
    &["-lgo", "--time-style=+%Ec|%EC|%Ex|%EX|%Ey|%EY|%Ob|%OB|%Od|%Oe|%OH|%Om|%OM|%OS|%Oy"],
    &["-lgo", "--time-style=+%Ox|%Ea|%Oa|%OY|%Eb|%Oc|%Ed|%5Ox|%E%|%Oq"],
    &["-lgo", "--time-style=+%b %e\n%e. %b %H:%M"],
    &["-lgo", "--time-style=+[%b] %%b %b"],
    &["-lgo", "--time-style=+%N %:z %s %b"],
    &["-lgo", "--time-style=+"],
    &["-lgo", "--time-style=+%b\n%b\nx"],
    &["-lgo", "--time-style=posix-bogus"],
    &["-lgo", "--time-style=posix-posix-iso"],
    &["-lgo", "-u"],
    &["-lgo", "-c", "--time-style=+%b %d"],
    &["-lgot"],
];

#[test]
fn ls_long_dates_match_gnu_in_every_locale() {
    let t = fixture();
    for l in locales("ls_long_dates_match_gnu_in_every_locale") {
        let mut c = cases_for("ls dates", l);
        for args in LS_ARGS {
            c.run(|| {
                let refused = args.iter().any(|a| a.contains("bogus") || a.ends_with("\nx"));
                // Refusals: the message's wording is the messages suite's.
                let how = if refused { Stderr::Presence } else { Stderr::Exact };
                compare("lsr", &in_dir(t.path(), &with_files(args), &[("LC_ALL", l)]), how);
            });
        }
        for style in ["locale", "posix-iso", "posix-locale", "iso", "+%b %c", "+%b|%x\n%Y %b"] {
            c.run(|| {
                let env = [("LC_ALL", l), ("TIME_STYLE", style)];
                let r = in_dir(t.path(), &with_files(&["-lgo"]), &env);
                compare("lsr", &r, Stderr::Exact);
            });
        }
        // The comparison is only worth as much as GNU's side is localized.
        c.run(|| {
            let gnu = compare(
                "lsr",
                &in_dir(t.path(), &["-lgo", "old03"], &[("LC_ALL", l)]),
                Stderr::Exact,
            );
            let want: &[u8] = match l {
                "de_DE.UTF-8" => " 5. Mär 2023 ".as_bytes(),
                "ja_JP.UTF-8" => " 3月  5  2023 ".as_bytes(),
                _ => b"Mar  5  2023",
            };
            assert!(gnu.stdout.windows(want.len()).any(|w| w == want), "GNU's ls isn't localized");
        });
        // The option beats TIME_STYLE.
        c.run(|| {
            let env = [("LC_ALL", l), ("TIME_STYLE", "iso")];
            let args = with_files(&["-lgo", "--time-style=locale"]);
            compare("lsr", &in_dir(t.path(), &args, &env), Stderr::Exact);
        });
        c.finish();
    }
}

/// Where the three sources of ls's dates disagree: the format from the
/// catalog LC_TIME (or LANGUAGE) picks, month names from LC_TIME, their
/// widths from LC_CTYPE (checklist items 6-9).
#[test]
fn ls_dates_follow_each_category() {
    let t = fixture();
    if !locale_installed("de_DE.UTF-8") || !locale_installed("ja_JP.UTF-8") {
        prerequisite_missing("ls_dates_follow_each_category", "de_DE.UTF-8 and ja_JP.UTF-8");
        return;
    }
    let mut c = Cases::new("ls dates by category");
    let envs: &[&[(&str, &str)]] = &[
        &[("LANGUAGE", "de"), ("LC_ALL", "en_US.UTF-8")],
        &[("LANGUAGE", "de"), ("LC_ALL", "C.UTF-8")],
        &[("LANGUAGE", "de"), ("LC_ALL", "C")],
        &[("LC_ALL", ""), ("LANG", "C"), ("LC_TIME", "de_DE.UTF-8")],
        &[("LC_ALL", ""), ("LANG", "C"), ("LC_TIME", "ja_JP.UTF-8")],
        &[("LC_ALL", ""), ("LANG", "de_DE.UTF-8"), ("LC_TIME", "C")],
        &[("LC_ALL", ""), ("LANG", "ja_JP.UTF-8"), ("LC_TIME", "de_DE.UTF-8")],
        &[("LC_ALL", ""), ("LANG", "de_DE.UTF-8"), ("LC_TIME", "xx_XX.UTF-8")],
        &[("LC_ALL", ""), ("LANG", "C"), ("LC_TIME", "POSIX")],
    ];
    for env in envs {
        for args in
            [&["-lgo"][..], &["-lgo", "--time-style=posix-iso"], &["-lgo", "--time-style=+%b|%c"]]
        {
            c.run(|| {
                compare("lsr", &in_dir(t.path(), &with_files(args), env), Stderr::Exact);
            });
        }
    }
    c.finish();
}

/// Every letter find takes after %A, %C and %T, and the ctime forms.
const FIND_PRINTF: &str = "%Ta|%TA|%Tb|%Th|%TB|%Tc|%TC|%Td|%TD|%Te|%TF|%Tg|%TG|%TH|%TI|%Tj|%Tk|%Tl|%Tm|%TM|%Tn|%Tp|%Tr|%TR|%Ts|%TS|%Tt|%TT|%Tu|%TU|%TV|%Tw|%TW|%Tx|%TX|%Ty|%TY|%Tz|%TZ|%T+|%T@|%TQ|\n%Ab|%AX|%Ac|%Ap|%A+|%AS|%Cb|%CX|%Cc|%Cp|%Cr|%CT|\n%t|%a|%c|%10f|%-12TX|%20Tb|\n";

#[test]
fn find_times_match_gnu_in_every_locale() {
    let t = fixture();
    let all = ALL.to_vec();
    for l in locales("find_times_match_gnu_in_every_locale") {
        let mut c = cases_for("find times", l);
        let mut printf: Vec<&str> = all.clone();
        printf.extend(["-printf", FIND_PRINTF]);
        c.run(|| {
            compare_sorted("lfind", &in_dir(t.path(), &printf, &[("LC_ALL", l)]), Stderr::Exact);
        });
        let mut ls: Vec<&str> = all.clone();
        ls.push("-ls");
        c.run(|| {
            compare_sorted("lfind", &in_dir(t.path(), &ls, &[("LC_ALL", l)]), Stderr::Exact);
        });
        c.run(|| {
            let r =
                in_dir(t.path(), &[".", "-name", "old*", "-fls", "/dev/stdout"], &[("LC_ALL", l)]);
            compare_sorted("lfind", &r, Stderr::Exact);
        });
        c.finish();
    }
}

#[test]
fn du_times_match_gnu_in_every_locale() {
    let t = fixture();
    let runs: &[(&[&str], Option<&str>)] = &[
        (&["--time", "old03"], None),
        (&["--time", "old03"], Some("locale")),
        (&["--time", "old03"], Some("posix-iso")),
        (&["--time", "old03"], Some("posix-full-iso")),
        (&["--time", "old03"], Some("posix-+%b\nx")),
        (&["--time", "old03"], Some("+%b %c\n%Y")),
        (&["--time", "old03"], Some("+%b|%x|%p|%A|%Od")),
        (&["--time", "--time-style=+%b", "old03"], None),
        (&["--time", "--time-style=+%b %c|%x|%X|%r|%^a", "old05"], None),
        (&["--time", "--time-style=iso", "old05"], Some("+%b")),
        (&["--time", "--time-style=full-iso", "old05"], None),
        (&["--time", "--time-style=long-iso", "old05"], None),
        (&["--time=atime", "--time-style=+%B", "old10"], None),
        (&["-a", "--time", "--time-style=+%b %e", "."], None),
    ];
    // Refused: the message's wording is the messages suite's.
    let refused: &[(&[&str], Option<&str>)] = &[
        (&["--time", "--time-style=locale", "old03"], None),
        (&["--time", "--time-style=posix-iso", "old03"], None),
        (&["--time", "old03"], Some("posix-locale")),
    ];
    for l in locales("du_times_match_gnu_in_every_locale") {
        let mut c = cases_for("du times", l);
        for (list, how) in [(runs, Stderr::Exact), (refused, Stderr::Presence)] {
            for (args, style) in list {
                c.run(|| {
                    let mut env = vec![("LC_ALL", l)];
                    if let Some(s) = style {
                        env.push(("TIME_STYLE", s));
                    }
                    let r = in_dir(t.path(), args, &env);
                    if args.contains(&".") {
                        compare_sorted("ldu", &r, how);
                    } else {
                        compare("ldu", &r, how);
                    }
                });
            }
        }
        c.finish();
    }
}
