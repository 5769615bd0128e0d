//! Locale differential tests: messages. Every diagnostic comes from GNU's
//! catalogs (coreutils, findutils, and glibc's `libc` domain for getopt and
//! regex texts) under GNU's msgids, so stderr must be byte-identical to
//! GNU's in every locale, and under the LANGUAGE / partial-category /
//! uninstalled-locale rules (`checklist` items 17 and 25).
//!
//! Each case is one shell script (so stdout can go to /dev/full) run once
//! with GNU's tool and once per backend with ours, both first on PATH
//! under GNU's name; every command's exit status is echoed.

use std::path::Path;

use crate::util::*;

/// The environments: each locale of [`LOCALES`] through LC_ALL, then the
/// those rules (LC_ALL emptied counts as unset).
fn environments(test: &str) -> Vec<String> {
    let mut v: Vec<String> = locales(test).iter().map(|l| format!("LC_ALL={l}")).collect();
    for l in ["de_DE.UTF-8", "ja_JP.UTF-8"] {
        if !locale_installed(l) {
            return v;
        }
    }
    v.extend(
        [
            // LANGUAGE wins over C.UTF-8 (not over C).
            "LANGUAGE=de LC_ALL=C.UTF-8",
            "LANGUAGE=ja:de LC_ALL= LANG=de_DE.UTF-8",
            // One uninstalled category: setlocale fails, all stays C.
            "LC_ALL= LANG=de_DE.UTF-8 LC_TIME=xx_XX.UTF-8",
            // German text converted to LC_CTYPE's ASCII (m?glich).
            "LC_ALL= LANG=C LC_MESSAGES=de_DE.UTF-8",
            "LC_ALL= LANG=xx_YY.UTF-8",
        ]
        .map(String::from),
    );
    v
}

fn setup(w: &Path) {
    std::fs::write(w.join("f"), b"x\n").unwrap();
    std::fs::create_dir(w.join("d")).unwrap();
    std::fs::write(w.join("d/g"), vec![b'y'; 5000]).unwrap();
    std::fs::create_dir(w.join("u")).unwrap();
    chmod(&w.join("u"), 0o000);
}

/// The commands, per tool, whose stderr matches GNU's today.
const PLAIN: &[(&str, &[&str])] = &[
    (
        "lsr",
        &[
            "ls nope",
            "ls -z",
            "ls --sort",
            "ls -w",
            "ls --all=x",
            "ls --foo=bar",
            "ls --al",
            "ls --block-size=x",
            "ls --block-size=1Q",
            "ls --block-size=99999999999999999999999999",
            "ls --dired --zero -l f",
            "ls -s d",
            "ls -s --block-size=1 d",
            "ls f d nope > /dev/full",
            "LS_COLORS=x ls --color=always f",
        ],
    ),
    (
        "ldu",
        &[
            "du -c f d",
            "du -z",
            "du --foo",
            "du --tim",
            "du nope",
            "du -s -a",
            "du -s --max-depth=2",
            "du -s --max-depth=0 -b --inodes f",
            "du --threshold=-0 f",
            "du --block-size=1Q f",
            "du f > /dev/full",
        ],
    ),
    ("lcat", &["cat nope", "cat d", "cat -z", "cat --foo", "cat f > /dev/full", "cat f - < f"]),
    (
        "lfind",
        &[
            "find -foo",
            "find --sort",
            "find -name",
            "find f -name x c",
            "find f -regex '['",
            "find f -regex 'a\\{1'",
            "find f -regextype posix-extended -regex '(a'",
            "find f -size 3x",
            "find f -size 3k5",
            "find f -type q",
            "find f -type f,f",
            "find f -mtime x",
            "find '('",
            "find f '(' ')'",
            "find f -user ''",
            "find f -group ''",
            "find f -printf 'a%5T\\q\\n'",
            "find f -printf '%'",
            "find f -perm /000 -quit",
        ],
    ),
];

/// Commands whose messages quote a name or value with quote()'s `locale`
/// style: in UTF-8 locales GNU shows the catalog's or Unicode quote marks
/// („x“, `x', ‘x’), which come with the quoting helper's change to
/// `cli::quote` (until it is merged these differ only in those marks).
const QUOTED: &[(&str, &[&str])] = &[
    (
        "lsr",
        &[
            "ls --sort=x",
            "ls --sort=",
            "ls --color=x",
            "ls --quoting-style=x",
            "ls -l --time-style=x f",
            "ls -l --time-style=l f",
            "ls -w x",
            "ls -T x",
            "ls -T 99999999999999999999999",
            "QUOTING_STYLE=x ls f",
            "TABSIZE=x ls -C f",
            "LS_COLORS='zz=1:' ls --color=always f",
        ],
    ),
    (
        "ldu",
        &[
            "du --time=x f",
            "du --time --time-style=x f",
            "du --max-depth=x",
            "du --files0-from=f x",
        ],
    ),
    (
        "lfind",
        &[
            "find nope",
            "find f -maxdepth x",
            "find f -regextype foo",
            "find f > /dev/full",
            "find f -fprint /dev/full",
        ],
    ),
];

/// Run as nobody: directories that can't be read (du's order of siblings
/// is the walk's, so only -s over the tree).
const UNREADABLE: &[(&str, &[&str])] =
    &[("lsr", &["ls u", "ls -R ."]), ("ldu", &["du -s .", "du u"])];

/// As nobody, and quoting the name in find's `locale` style (see [`QUOTED`]).
const UNREADABLE_QUOTED: &[(&str, &[&str])] = &[("lfind", &["find u", "find d/g u f"])];

fn script(env: &str, cmds: &[&str]) -> String {
    let mut s = format!("export {env}; ");
    for c in cmds {
        s.push_str(&format!("{c}; echo \"rc=$?\"; "));
    }
    s
}

fn run_all(name: &'static str, table: &[(&str, &[&str])], unprivileged: bool) {
    let envs = environments(name);
    let mut cases = Cases::new(name);
    for env in &envs {
        for (tool, cmds) in table {
            let s = script(env, cmds);
            let tool = *tool;
            cases.run(move || {
                compare_script(tool, &s, &setup, Stderr::Exact, unprivileged);
            });
        }
    }
    cases.finish();
}

#[test]
fn messages_match_gnu() {
    run_all("messages_match_gnu", PLAIN, false);
}

#[test]
fn quoted_messages_match_gnu() {
    run_all("quoted_messages_match_gnu", QUOTED, false);
}

#[test]
fn unreadable_directories_match_gnu() {
    if !require("setpriv", "unreadable_directories_match_gnu") {
        return;
    }
    run_all("unreadable_directories_match_gnu", UNREADABLE, true);
}

#[test]
fn unreadable_directories_quoted_match_gnu() {
    if !require("setpriv", "unreadable_directories_quoted_match_gnu") {
        return;
    }
    run_all("unreadable_directories_quoted_match_gnu", UNREADABLE_QUOTED, true);
}
