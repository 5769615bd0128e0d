//! A 25-item checklist of GNU's behaviour outside the C locale (the
//! behaviours docs/locale.md lists), as differential tests: each item is a short sequence of commands
//! (often one per locale); GNU's tools and ours run the same sequence on
//! the same fixture directory (so readdir order is the same for both), ours
//! once per engine backend, and the concatenated outputs must be equal.
//!
//! One test runs every item through `util::Cases`, so a run names every
//! item that fails, each with a line diff (`-` GNU only, `+` ours only) per
//! group of backends that printed the same thing.
//!
//! Each step's output is its stdout, then its stderr (program names
//! normalised), then `[exit N]` when N is not 0: stricter than a plain `diff`
//! lines, which see stdout only (17 and 25 redirect stderr into it). The
//! walks of `lfind` and `ldu -a` (items 18, 19, 22, 23) are compared as
//! sorted lines: their order between entries is unspecified (the suites'
//! `compare_sorted`/`compare_unordered`), while what a locale changes —
//! which names match, how each line is written — is compared exactly.

use std::path::{Path, PathBuf};

use crate::util::{self, line_diff, Cases, Run, TempDir};

/// The checklist's fixture, built in `root/fx`; commands run in `root` and name
/// `fx/...`.
fn fixture(root: &Path) {
    let fx = root.join("fx");
    std::fs::create_dir(&fx).unwrap();
    let more: &[&[u8]] = &[
        b"trunc\xe6\x97",    // a truncated sequence at the end
        b"zw\xe2\x80\x8bsp", // ZERO WIDTH SPACE
        b"\xe2\x80\xaeRTL",  // RIGHT-TO-LEFT OVERRIDE
        b"\xef\xbf\xbe",     // a noncharacter
        b"nl\nx",
        b"x.tar.gz",
        "y.Ä".as_bytes(),
        b"file9",
        b"file10",
        b"it's",
    ];
    for n in super::COLLATION_CORNERS.iter().chain(more) {
        std::fs::write(util::raw_name(&fx, n), b"").unwrap();
    }
    for m in ["01", "03", "05", "10", "12"] {
        let p = fx.join(format!("old{m}"));
        std::fs::write(&p, b"").unwrap();
        let st = std::process::Command::new("touch")
            .args(["-d", &format!("2023-{m}-05 13:45 UTC")])
            .arg(&p)
            .status()
            .unwrap();
        assert!(st.success());
    }
    std::fs::write(fx.join("big"), vec![0u8; 1_234_567]).unwrap();
    std::fs::write(fx.join("bin"), b"\xc3\xa9\t\xe6\x97\xa5\xff\x01\x7f\x80\r\n").unwrap();
    // Settle the directory's atime before anything compares listings.
    let _ = std::process::Command::new("ls").arg("-la").arg(&fx).output();
}

/// How a step's output is lined up before comparison.
#[derive(Clone, Copy, PartialEq)]
enum Lines {
    Exact,
    /// Sorted lines: a walk whose order is unspecified.
    Sorted,
}

/// One command of an item.
#[derive(Clone)]
struct Step {
    tool: &'static str,
    /// Ours runs this.
    run: Run,
    /// GNU runs this when set (item 4 compares GNU in C with ours in de).
    gnu_run: Option<Run>,
    tty: bool,
    lines: Lines,
}

impl Step {
    fn new(tool: &'static str, args: &[&str]) -> Step {
        Step { tool, run: Run::new(args), gnu_run: None, tty: false, lines: Lines::Exact }
    }

    fn lc(mut self, l: &str) -> Step {
        self.run = self.run.locale(l);
        self
    }

    fn env(mut self, k: &str, v: &str) -> Step {
        self.run = self.run.env(k, v);
        self
    }

    fn unset(mut self, k: &str) -> Step {
        self.run = self.run.unset(k);
        self
    }

    fn args_bytes(mut self, extra: impl IntoIterator<Item = Vec<u8>>) -> Step {
        self.run.args.extend(extra);
        self
    }

    fn gnu_lc(mut self, l: &str) -> Step {
        self.gnu_run = Some(self.run.clone().locale(l));
        self
    }

    fn tty(mut self) -> Step {
        self.tty = true;
        self
    }

    fn sorted(mut self) -> Step {
        self.lines = Lines::Sorted;
        self
    }

    /// What the step prints, as the item's output sees it.
    fn output(&self, root: &Path, gnu: bool, backend: Option<&str>) -> Vec<u8> {
        let gnu_path = Path::new(util::gnu(self.tool));
        let name = gnu_path.file_name().unwrap().to_str().unwrap();
        let run = if gnu { self.gnu_run.as_ref().unwrap_or(&self.run) } else { &self.run };
        let run = run.clone().cwd(root);
        let program: PathBuf = if gnu { gnu_path.to_path_buf() } else { util::ours(self.tool) };
        let o = if self.tty {
            util::exec_on_tty(&run, &program, name, backend)
        } else {
            run.exec(&program, name, backend)
        };
        let mut text = o.stdout;
        let err = util::normalize_stderr(&o.stderr, self.tool, name);
        let err = util::normalize_stderr(&err, &gnu_path.to_string_lossy(), name);
        text.extend_from_slice(&err);
        if self.lines == Lines::Sorted {
            let mut v: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
            v.sort();
            text = v.concat();
        }
        if let Some(c) = o.status.code().filter(|&c| c != 0) {
            text.extend_from_slice(format!("[exit {c}]\n").as_bytes());
        }
        if o.status.code().is_none() {
            text.extend_from_slice(format!("[killed: {:?}]\n", o.status).as_bytes());
        }
        text
    }

    fn describe(&self) -> String {
        let env: Vec<String> = self.run.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let unset: Vec<String> = self.run.unset.iter().map(|k| format!("-u {k}")).collect();
        let args: Vec<_> = self.run.args.iter().map(|a| String::from_utf8_lossy(a)).collect();
        let gnu = match &self.gnu_run {
            Some(g) => {
                let e: Vec<String> = g.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("  (GNU with {})", e.join(" "))
            }
            None => String::new(),
        };
        format!(
            "  {}{} {} {} {args:?}{gnu}",
            if self.tty { "[tty] " } else { "" },
            unset.join(" "),
            env.join(" "),
            self.tool
        )
    }
}

struct Item {
    n: u32,
    what: &'static str,
    steps: Vec<Step>,
}

/// The locales an item needs (those `util::locales` may lack).
fn needed(item: &Item) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for s in &item.steps {
        for r in std::iter::once(&s.run).chain(s.gnu_run.as_ref()) {
            for (k, val) in &r.env {
                // xx_XX is item 25's deliberately invalid locale.
                if (k.starts_with("LC_") || k == "LANG") && !val.starts_with("xx_") {
                    v.push(val.clone());
                }
            }
        }
    }
    v.sort();
    v.dedup();
    v
}

/// GNU's output, then ours per backend; fails with a diff per distinct
/// output of ours that differs from GNU's, step by step.
fn check(item: &Item, root: &Path) {
    let run_all = |gnu: bool, b: Option<&str>| -> Vec<Vec<u8>> {
        item.steps.iter().map(|s| s.output(root, gnu, b)).collect()
    };
    let want = run_all(true, None);
    assert!(want.iter().any(|o| !o.is_empty()), "item {}: GNU printed nothing", item.n);
    let mut groups: Vec<(Vec<&str>, Vec<Vec<u8>>)> = Vec::new();
    for b in util::BACKENDS {
        let got = run_all(false, Some(b));
        match groups.iter_mut().find(|(_, g)| *g == got) {
            Some((bs, _)) => bs.push(b),
            None => groups.push((vec![b], got)),
        }
    }
    let mut report = String::new();
    for (bs, got) in groups.iter().filter(|(_, got)| *got != want) {
        report.push_str(&format!("[{}]\n", bs.join(", ")));
        for ((step, w), g) in item.steps.iter().zip(&want).zip(got) {
            if w != g {
                report.push_str(&format!("{}\n{}", step.describe(), line_diff(w, g)));
            }
        }
    }
    if !report.is_empty() {
        let steps: Vec<String> = item.steps.iter().map(Step::describe).collect();
        panic!(
            "checklist item {}: {}\n{}\n--- diff per step (- GNU, + ours) ---\n{report}",
            item.n,
            item.what,
            steps.join("\n"),
        );
    }
}

/// One step per locale.
fn per_locale(ls: &[&str], f: impl Fn(&str) -> Vec<Step>) -> Vec<Step> {
    ls.iter().flat_map(|l| f(l)).collect()
}

fn items(root: &Path) -> Vec<Item> {
    const ALL: [&str; 5] = ["C", "C.UTF-8", "en_US.UTF-8", "de_DE.UTF-8", "ja_JP.UTF-8"];
    let ls = |a: &[&str]| Step::new("lsr", a);
    let find = |a: &[&str]| Step::new("lfind", a);
    let du = |a: &[&str]| Step::new("ldu", a);
    let cat = |a: &[&str]| Step::new("lcat", a);
    let old: Vec<Vec<u8>> =
        ["01", "03", "05", "10", "12"].iter().map(|m| format!("fx/old{m}").into_bytes()).collect();
    // `fx/e*` as the shell expands it (in C order).
    let mut e_star: Vec<Vec<u8>> = std::fs::read_dir(root.join("fx"))
        .unwrap()
        .map(|e| {
            use std::os::unix::ffi::OsStrExt;
            e.unwrap().file_name().as_bytes().to_vec()
        })
        .filter(|n| n.starts_with(b"e"))
        .map(|n| [b"fx/".as_slice(), &n].concat())
        .collect();
    e_star.sort();
    let nope = "fx/nö";
    vec![
        Item {
            n: 1,
            what: "strcoll order, ties, and 0ß before ~0~ß",
            steps: per_locale(&ALL, |l| vec![ls(&["-A", "fx"]).lc(l)]),
        },
        Item {
            n: 2,
            what: "strcoll ties keep readdir order under -r",
            steps: vec![ls(&["-Ar", "fx"]).lc("en_US.UTF-8")],
        },
        Item {
            n: 3,
            what: "-X extension order in de",
            steps: vec![ls(&["-AX", "fx"]).lc("de_DE.UTF-8")],
        },
        Item {
            n: 4,
            what: "-v is locale-independent (GNU in C, ours in de)",
            steps: vec![ls(&["-Av", "fx"]).lc("de_DE.UTF-8").gnu_lc("C")],
        },
        Item {
            n: 5,
            what: "size ties are broken by strcoll",
            steps: vec![ls(&["-AS", "fx"]).lc("en_US.UTF-8")],
        },
        Item {
            n: 6,
            what: "translated -l formats and month padding in de and ja",
            steps: per_locale(&["de_DE.UTF-8", "ja_JP.UTF-8"], |l| {
                vec![ls(&["-lgo", "--time-style=locale"]).args_bytes(old.clone()).lc(l)]
            }),
        },
        Item {
            n: 7,
            what: "LANGUAGE overrides the LC_TIME catalog",
            steps: vec![ls(&["-lgo", "--time-style=locale", "fx/old05"])
                .env("LANGUAGE", "de")
                .lc("en_US.UTF-8")],
        },
        Item {
            n: 8,
            what: "byte-width month padding when LC_CTYPE is C",
            steps: vec![ls(&["-lgo", "--time-style=locale", "fx/old03"])
                .unset("LC_ALL")
                .unset("LANGUAGE")
                .env("LANG", "C")
                .env("LC_TIME", "de_DE.UTF-8")],
        },
        Item {
            n: 9,
            what: "posix-iso in C, C.UTF-8 and de",
            steps: per_locale(&["C", "C.UTF-8", "de_DE.UTF-8"], |l| {
                vec![ls(&["-lgo", "--time-style=posix-iso", "fx/old05"]).lc(l)]
            }),
        },
        Item {
            n: 10,
            what: "tty defaults (columns, ? for unprintables)",
            steps: per_locale(&["C", "en_US.UTF-8"], |l| {
                vec![ls(&["fx"]).env("COLUMNS", "60").lc(l).tty()]
            }),
        },
        Item {
            n: 11,
            what: "-q and -b",
            steps: per_locale(&["C", "en_US.UTF-8"], |l| {
                vec![ls(&["-1q", "fx"]).lc(l), ls(&["-1b", "fx"]).lc(l)]
            }),
        },
        Item {
            n: 12,
            what: "quote marks from catalogs and charset",
            steps: per_locale(&["C", "C.UTF-8", "de_DE.UTF-8", "ja_JP.UTF-8"], |l| {
                vec![ls(&["-1", "--quoting-style=locale", "fx"]).lc(l)]
            }),
        },
        Item {
            n: 13,
            what: "column widths (bytes >= 0x80 count 0 in C)",
            steps: per_locale(&["C", "en_US.UTF-8", "ja_JP.UTF-8"], |l| {
                vec![ls(&["-C", "-w", "50", "fx"]).lc(l)]
            }),
        },
        Item {
            n: 14,
            what: "--sort=width",
            steps: per_locale(&["C", "en_US.UTF-8"], |l| {
                vec![ls(&["-1", "--sort=width", "fx"]).lc(l)]
            }),
        },
        Item {
            n: 15,
            what: "decimal comma and digit grouping in ls",
            steps: per_locale(&["de_DE.UTF-8", "ja_JP.UTF-8"], |l| {
                vec![
                    ls(&["-lgoh", "--time-style=+", "fx/big"]).lc(l),
                    ls(&["-s", "--block-size='1", "fx"]).lc(l),
                ]
            }),
        },
        Item {
            n: 16,
            what: "decimal comma, grouping and the translated total in du",
            steps: vec![
                du(&["-ch", "--si", "fx/big"]).lc("de_DE.UTF-8"),
                du(&["-c", "fx/big"]).env("BLOCK_SIZE", "'1").lc("de_DE.UTF-8"),
            ],
        },
        Item {
            n: 17,
            what: "translated errors with locale-dependent quoting",
            steps: per_locale(&["C", "de_DE.UTF-8"], |l| {
                vec![ls(&[nope]).lc(l), find(&[nope]).lc(l), du(&[nope]).lc(l), cat(&[nope]).lc(l)]
            }),
        },
        Item {
            n: 18,
            what: "multibyte fnmatch: case folding, classes, equivalence classes",
            steps: vec![find(&[
                "fx",
                "-iname",
                "k",
                "-o",
                "-name",
                "[[:upper:]]",
                "-o",
                "-name",
                "[[=e=]]",
            ])
            .lc("en_US.UTF-8")
            .sorted()],
        },
        Item {
            n: 19,
            what: "-regex '.*' drops names that are not valid UTF-8",
            steps: per_locale(&["C", "en_US.UTF-8"], |l| {
                vec![find(&["fx", "-regex", ".*"]).lc(l).sorted()]
            }),
        },
        Item {
            n: 20,
            what: "-printf time directives, nanosecond splicing and byte widths",
            steps: per_locale(&["de_DE.UTF-8", "ja_JP.UTF-8"], |l| {
                vec![find(&["fx/old05", "-printf", "%Tb|%TA|%Tc|%TX|%Tp|%t|%10f|\n"]).lc(l)]
            }),
        },
        Item {
            n: 21,
            what: "-ls times and byte-based name escaping",
            steps: per_locale(&["de_DE.UTF-8", "ja_JP.UTF-8"], |l| {
                vec![find(&["fx/old01", "fx/old03"])
                    .args_bytes(e_star.clone())
                    .args_bytes([b"-ls".to_vec()])
                    .lc(l)]
            }),
        },
        Item {
            n: 22,
            what: "? substitution on a tty",
            steps: per_locale(&["C", "en_US.UTF-8"], |l| vec![find(&["fx"]).lc(l).tty().sorted()]),
        },
        Item {
            n: 23,
            what: "du time styles and multibyte --exclude",
            steps: vec![
                du(&["--time", "fx/old05"]).env("TIME_STYLE", "locale").lc("de_DE.UTF-8"),
                du(&["--time", "--time-style=+%b", "fx/old03"]).lc("de_DE.UTF-8"),
                du(&["-a", "--exclude=?", "fx"]).lc("de_DE.UTF-8").sorted(),
            ],
        },
        Item {
            n: 24,
            what: "cat is byte-oriented",
            steps: per_locale(&["C", "en_US.UTF-8", "ja_JP.UTF-8"], |l| {
                vec![cat(&["-A", "fx/bin"]).lc(l)]
            }),
        },
        Item {
            n: 25,
            what: "all-or-nothing setlocale fallback, m?glich, LANGUAGE under C.UTF-8",
            steps: vec![
                ls(&[nope])
                    .unset("LC_ALL")
                    .env("LANG", "de_DE.UTF-8")
                    .env("LC_TIME", "xx_XX.UTF-8"),
                ls(&[nope]).unset("LC_ALL").env("LANG", "C").env("LC_MESSAGES", "de_DE.UTF-8"),
                ls(&[nope]).env("LANGUAGE", "de").lc("C.UTF-8"),
            ],
        },
    ]
}

#[test]
fn checklist_matches_gnu() {
    let installed = util::locales("checklist_matches_gnu");
    if !util::have("script") {
        util::prerequisite_missing("checklist_matches_gnu", "script (util-linux) for items 10, 22");
    }
    let t = TempDir::new("checklist");
    fixture(t.path());
    let mut c = Cases::new("locale checklist");
    let mut skipped = Vec::new();
    let failed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    for item in items(t.path()) {
        let missing: Vec<String> =
            needed(&item).into_iter().filter(|l| !installed.contains(&l.as_str())).collect();
        if !missing.is_empty() || (item.steps.iter().any(|s| s.tty) && !util::have("script")) {
            skipped.push(item.n);
            continue;
        }
        let root = t.path().to_path_buf();
        let failed = failed.clone();
        c.run(move || {
            let r = std::panic::catch_unwind(|| check(&item, &root));
            if let Err(e) = r {
                failed.lock().unwrap().push(item.n);
                std::panic::resume_unwind(e);
            }
        });
    }
    if !skipped.is_empty() {
        eprintln!("checklist items skipped (prerequisites): {skipped:?}");
    }
    eprintln!("checklist items that differ from GNU: {:?}", failed.lock().unwrap());
    c.finish();
}
