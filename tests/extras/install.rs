//! `cargo xtask install`: the binaries, man pages and completions land
//! where man and each shell look, under a home's `~/.local` (this build's
//! binaries, `--bin-dir`, so the test needs no release build): `man`
//! finds and renders each page, bash-completion's loader, zsh's compinit
//! and fish each load each tool's completion and complete with it.

use std::path::Path;
use std::process::{Command, Output};

use super::text;
use crate::util::{self, TempDir};

const TOOLS: [&str; 4] = ["lsr", "lfind", "ldu", "lcat"];

/// A command in an environment of only `home` and a PATH with `bin` first.
fn in_home(cmd: &mut Command, home: &Path, bin: &Path) -> Output {
    cmd.env_clear()
        .env("HOME", home)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("LC_ALL", "C")
        .env("TERM", "dumb")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100");
    cmd.output().unwrap()
}

fn ok(o: &Output, what: &str) -> String {
    assert!(o.status.success(), "{what}: {}{}", text(&o.stdout), text(&o.stderr));
    text(&o.stdout)
}

#[test]
fn installs_where_man_and_the_shells_look() {
    let test = "extras::install::installs_where_man_and_the_shells_look";
    let Some(xtask) = util::xtask_bin() else {
        util::prerequisite_missing(test, "the xtask binary could not be built");
        return;
    };
    let t = TempDir::new("extras-install");
    let home = t.path();
    let prefix = home.join(".local");
    let bin = prefix.join("bin");
    let bins = util::ours("lsr").parent().unwrap().to_path_buf();
    let o = in_home(Command::new(&xtask).arg("install").arg("--bin-dir").arg(&bins), home, &bin);
    let listed = ok(&o, "xtask install");
    assert_eq!(listed.lines().count(), 4 * 5, "{listed}");
    // The default prefix is ~/.local, on PATH here: no hints but zsh's
    // (its $fpath never has a directory under a home).
    let hints: Vec<String> = text(&o.stderr).lines().map(str::to_string).collect();
    assert_eq!(hints.len(), 1, "{hints:?}");
    assert!(hints[0].starts_with("xtask: zsh: add fpath=("), "{hints:?}");
    for tool in TOOLS {
        let v = ok(&in_home(Command::new(tool).arg("--version"), home, &bin), tool);
        assert!(v.starts_with(&format!("{tool} (ringutils)")), "{v}");
    }

    // man: found through PATH (bin/../share/man), rendered without a
    // groff warning, showing the options beyond GNU.
    for (tool, shows) in
        [("lsr", "--tree"), ("lfind", "-json"), ("ldu", "--progress"), ("lcat", "--show-all")]
    {
        let w = ok(&in_home(Command::new("man").args(["-w", tool]), home, &bin), "man -w");
        assert_eq!(w.trim(), prefix.join(format!("share/man/man1/{tool}.1")).display().to_string());
        let o = in_home(Command::new("man").args(["--warnings", tool]), home, &bin);
        let page = ok(&o, "man");
        assert!(text(&o.stderr).trim().is_empty(), "{tool}: {}", text(&o.stderr));
        assert!(page.contains("SYNOPSIS") && page.contains(shows), "{tool}: {page}");
    }

    // bash: bash-completion's loader finds each file in the user's
    // directory and it registers the tool's function.
    let loader = Path::new("/usr/share/bash-completion/bash_completion");
    if loader.exists() {
        // `script` run by a bash without the user's rc files, after
        // sourcing the loader.
        let bash = |script: &str| {
            let script = format!("source {}; {script}", loader.display());
            in_home(Command::new("bash").args(["--norc", "--noprofile", "-c", &script]), home, &bin)
        };
        for tool in TOOLS {
            let o = bash(&format!("__load_completion {tool} && complete -p {tool}"));
            assert_eq!(ok(&o, "bash"), format!("complete -o default -F _{tool} {tool}\n"));
        }
        let o = bash("__load_completion lsr; COMP_WORDS=(lsr --tr); COMP_CWORD=1; _lsr; echo \"${COMPREPLY[@]}\"");
        assert_eq!(ok(&o, "bash completing"), "--tree --tree=\n");
    } else {
        util::prerequisite_missing(test, "bash-completion is not installed");
    }

    // zsh: compinit, with the installed directory on $fpath (the line the
    // hint gives), registers each tool's function.
    if util::have("zsh") {
        let site = prefix.join("share/zsh/site-functions");
        for tool in TOOLS {
            let script = format!(
                "fpath=({} $fpath); autoload -Uz compinit; compinit -u -D; print -r -- $_comps[{tool}]",
                site.display()
            );
            let o = in_home(Command::new("zsh").args(["-f", "-c", &script]), home, &bin);
            assert_eq!(ok(&o, "zsh"), format!("_{tool}\n"));
        }
    } else {
        util::prerequisite_missing(test, "zsh is not installed");
    }

    // fish: completes from ~/.local/share/fish/vendor_completions.d.
    if util::have("fish") {
        for (line, want) in [
            ("lsr --tr", "--tree"),
            ("lfind . -fj", "-fjson"),
            ("ldu --pro", "--progress"),
            ("lcat --show-a", "--show-all"),
        ] {
            let o = in_home(
                Command::new("fish").args(["-c", &format!("complete -C '{line}'")]),
                home,
                &bin,
            );
            let got = ok(&o, "fish");
            assert!(got.lines().any(|l| l.split('\t').next() == Some(want)), "{line}: {got}");
        }
    } else {
        util::prerequisite_missing(test, "fish is not installed");
    }

    // Installing again replaces the files in place (a running binary
    // keeps its own): the same list, nothing left behind.
    let o = in_home(Command::new(&xtask).arg("install").arg("--bin-dir").arg(&bins), home, &bin);
    ok(&o, "xtask install again");
    let stray: Vec<_> = std::fs::read_dir(&bin)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    // A missing binary installs nothing.
    let empty = t.join("nobins");
    std::fs::create_dir_all(&empty).unwrap();
    let other = t.join("elsewhere");
    let o = in_home(
        Command::new(&xtask)
            .arg("install")
            .arg("--prefix")
            .arg(&other)
            .arg("--bin-dir")
            .arg(&empty),
        home,
        &bin,
    );
    assert!(!o.status.success());
    assert!(!other.exists(), "something was installed");
}
