//! The options beyond GNU as a command line meets them: lfind's leading
//! options out of place, a bare `--icons` on and off a terminal, and
//! abbreviations, which keep GNU's meaning wherever GNU's options share
//! them (so GNU's command lines stay GNU's, byte for byte).

use super::{gnu, run, text};
use crate::command_lines;
use crate::util::{self, build_tree, Run, TempDir, BACKENDS};

/// `-s` and `-j` after the starting points say where they go (status 1,
/// nothing walked); before them they work; GNU's own leading options out
/// of place keep GNU's message.
#[test]
fn lfind_leading_options_out_of_place() {
    let t = TempDir::new("extras-opts-find");
    build_tree(t.path(), &["d:d/e", "f:d/f:x"]);
    for b in BACKENDS {
        for (args, opt) in [
            (&[".", "-s"][..], "-s"),
            (&["d", "-j", "4"], "-j"),
            (&["d", "-name", "f", "-j2"], "-j2"),
            (&["-s", "d", "-print", "-s"], "-s"),
        ] {
            let o = run("lfind", t.path(), args, b, &[]);
            assert_eq!(o.status.code(), Some(1), "{args:?} [{b}]");
            assert!(o.stdout.is_empty(), "{args:?} [{b}]: walked");
            assert_eq!(
                text(&o.stderr),
                format!("lfind: {opt} is an option: put it before the starting points\n"),
                "{args:?} [{b}]"
            );
        }
        let o = run("lfind", t.path(), &["-s", "-j", "2", "d"], b, &[]);
        assert_eq!(text(&o.stdout), "d\nd/e\nd/f\n", "[{b}]: {}", text(&o.stderr));
        for args in [&[".", "-H"][..], &[".", "-O3"], &["d", "-jx"]] {
            let ours = run("lfind", t.path(), args, b, &[]);
            let g = gnu("find", t.path(), args, &[]);
            assert_eq!(ours.status.code(), g.status.code(), "{args:?}");
            assert_eq!(text(&ours.stderr).replace("lfind:", "find:"), text(&g.stderr), "{args:?}");
        }
    }
}

/// A bare `--icons` is `auto`: no glyph into a pipe, glyphs on a
/// terminal (the same as `--icons=always` there); `never` and `always`
/// as asked.
#[test]
fn bare_icons_mean_auto() {
    if !util::have("script") {
        util::prerequisite_missing("extras::options::bare_icons_mean_auto", "script(1)");
        return;
    }
    let t = TempDir::new("extras-opts-icons");
    build_tree(t.path(), &["d:src", "f:main.rs:", "f:notes.txt:"]);
    let plain = "main.rs\nnotes.txt\nsrc\n";
    let glyphs = "\u{e7a8} main.rs\n\u{f15c} notes.txt\n\u{f07b} src\n";
    for b in BACKENDS {
        for (args, want) in [
            (&["--icons", "-1"][..], plain),
            (&["--icons=auto", "-1"], plain),
            (&["--icons=never", "-1"], plain),
            (&["--icons=always", "-1"], glyphs),
            (&["--icons", "--tree"], ".\n├── main.rs\n├── notes.txt\n└── src\n"),
        ] {
            let o = run("lsr", t.path(), args, b, &[]);
            assert_eq!(text(&o.stdout), want, "{args:?} [{b}]");
        }
        let r = |args: &[&str]| Run::new(args).cwd(t.path());
        let lsr = util::ours("lsr");
        let bare = util::exec_on_tty(&r(&["--icons", "-1"]), &lsr, "lsr", Some(b));
        let always = util::exec_on_tty(&r(&["--icons=always", "-1"]), &lsr, "lsr", Some(b));
        let never = util::exec_on_tty(&r(&["--icons=never", "-1"]), &lsr, "lsr", Some(b));
        assert_eq!(text(&bare.stdout), glyphs.replace('\n', "\r\n"), "[{b}]");
        assert_eq!(bare.stdout, always.stdout, "[{b}]");
        assert_eq!(text(&never.stdout), plain.replace('\n', "\r\n"), "[{b}]");
    }
}

/// Abbreviations GNU's options share mean what they mean to GNU (the
/// same output or message, byte for byte); those only ours have reach
/// ours.
#[test]
fn abbreviations_keep_gnus_meaning() {
    let t = TempDir::new("extras-opts-abbrev");
    build_tree(t.path(), &["d:d", "f:d/a b:x", "f:d/c:yy", "l:d/l:c"]);
    for b in BACKENDS {
        for (tool, args) in command_lines::tools("extras/abbreviations_keep_gnus_meaning", 10) {
            let ours = run(tool, t.path(), args, b, &[]);
            let g = gnu(util::gnu_name(tool), t.path(), args, &[]);
            let name = util::gnu_name(tool);
            let norm = |e: &[u8]| {
                text(e)
                    .replace(&format!("{tool}:"), &format!("{name}:"))
                    .replace(&format!("'{tool} "), &format!("'{name} "))
            };
            assert_eq!(ours.status.code(), g.status.code(), "{tool} {args:?} [{b}]");
            assert_eq!(norm(&ours.stderr), text(&g.stderr), "{tool} {args:?} [{b}]");
            assert_eq!(text(&ours.stdout), text(&g.stdout), "{tool} {args:?} [{b}]");
        }
        // Prefixes GNU's options don't share reach ours.
        let o = run("lsr", t.path(), &["--tr=1", "--le=1", "--j=lines", "d"], b, &[]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout).lines().count(), 4);
        let o = run("ldu", t.path(), &["--j=lines", "--pro=never", "d"], b, &[]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(text(&o.stdout).starts_with("{\"path\":\"d\""), "{}", text(&o.stdout));
    }
}
