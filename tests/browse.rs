//! `ldu --browse`, `--export`, `--import` end to end: the view under a
//! real terminal (tmux: a session of a given size, keys sent, the screen
//! captured), its numbers against `ldu`'s own lines for the same paths,
//! deletion inside scratch trees only, the terminal restored however the
//! view ends; the export against GNU du's totals and the real ncdu; the
//! import of ncdu's files and of broken ones.
//!
//! Waits are bounded (a hang fails the test after a generous deadline);
//! nothing is timed.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{self, build_tree, TempDir};

const DEADLINE: Duration = Duration::from_secs(60);

/// Whether `tools` are all installed; the missing ones are reported as
/// [`util::prerequisite_missing`] (a failure under CI=true).
fn have_all(test: &str, tools: &[&str]) -> bool {
    let mut ok = true;
    for t in tools {
        if !util::have(t) {
            util::prerequisite_missing(test, &format!("{t} is not installed"));
            ok = false;
        }
    }
    ok
}

/// One tmux server of our own (its own socket), one session, killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// Runs `script` (sh) in a `w`×`h` terminal, in `dir`.
    fn start(dir: &Path, w: u16, h: u16, script: &str, backend: Option<&str>) -> Tmux {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "ringutils-browse-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        let mut env = String::from("LC_ALL=C.UTF-8 TZ=UTC TERM=xterm ");
        if let Some(b) = backend {
            env.push_str(&format!("RINGIO_BACKEND={b} "));
        }
        let st = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d", "-s", "t"])
            .args(["-x", &w.to_string(), "-y", &h.to_string()])
            .arg("-c")
            .arg(dir)
            .arg(format!("env {env} sh -c '{script}; echo EXITED=$?; sleep 600'"))
            .env_remove("TMUX")
            .status()
            .expect("tmux");
        assert!(st.success(), "tmux new-session failed");
        Tmux { socket }
    }

    fn tmux(&self, args: &[&str]) -> String {
        let o = Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", "-t", "t", k]);
        }
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
    }

    /// The screen once `pred` holds for it and it has stopped changing
    /// (fails after [`DEADLINE`]). A capture can land in the middle of a
    /// program's redraw (CI caught ncdu's list half drawn), so a screen
    /// counts only when a second capture a moment later is the same.
    fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                std::thread::sleep(Duration::from_millis(40));
                if self.screen() == s {
                    return s;
                }
                continue;
            }
            if start.elapsed() > DEADLINE {
                panic!("waiting for {what}; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends `keys`, then waits until the screen changed and `pred` holds.
    /// `q`, and the program exits with status 0.
    fn quit(&self) {
        self.after(&["q"], "exit", |s| s.contains("EXITED=0"));
    }

    fn after(&self, keys: &[&str], what: &str, pred: impl Fn(&str) -> bool) -> String {
        self.keys(keys);
        self.wait(what, pred)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}

fn ldu() -> PathBuf {
    util::ours("ldu")
}

fn sh_quote(p: &Path) -> String {
    format!("\"{}\"", p.display())
}

/// What `ldu -a ARGS t` (one run, in `dir`) prints per path: the numbers
/// the view must show for the same paths.
fn du_lines(dir: &Path, args: &[&str]) -> BTreeMap<String, String> {
    let o = Command::new(ldu())
        .args(["-a"])
        .args(args)
        .arg("t")
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(n, p)| (p.to_string(), n.to_string()))
        .collect()
}

/// `ldu -s ARGS path` (in `dir`): the size column as printed.
fn du_size(dir: &Path, args: &[&str], path: &str) -> String {
    let o = Command::new(ldu())
        .args(args)
        .arg("-s")
        .arg(path)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout).into_owned();
    s.split('\t').next().unwrap_or("").trim().to_string()
}

/// The list rows on a screen: (size, flag, name), the name as shown.
fn rows(screen: &str) -> Vec<(String, char, String)> {
    screen
        .lines()
        .skip(2)
        .filter(|l| l.starts_with(' ') && l.contains('%'))
        .map(|l| {
            let size = l[..7].trim().to_string();
            // " SIZE  SHARE% [BAR] Fname": the flag is after the bar.
            let rest = &l[l.find(']').map_or(15, |i| i + 2)..];
            let flag = rest.chars().next().unwrap_or(' ');
            (size, flag, rest.chars().skip(1).collect::<String>().trim_end().to_string())
        })
        .collect()
}

fn header_ok(s: &str) -> bool {
    s.contains("--browse") && s.contains("Disk usage:")
}

/// A tree of a few sizes: big/ (two sub-trees), mid/, small files, a hard
/// link across directories, a name with a newline, a wide name; in a new
/// scratch directory named after `tag`.
fn fixture(tag: &str) -> TempDir {
    let t = TempDir::new(tag);
    build_tree(
        t.path(),
        &[
            "d:t/big/deep/er",
            "d:t/big/other",
            "d:t/mid",
            "d:t/empty",
            "f:t/top:top",
            "f:t/mid/m1:m",
            "h:t/mid/link:t/top",
        ],
    );
    std::fs::write(t.join("t/big/deep/er/blob"), vec![7u8; 300_000]).unwrap();
    std::fs::write(t.join("t/big/other/b2"), vec![7u8; 120_000]).unwrap();
    std::fs::write(t.join("t/big/f"), vec![7u8; 50_000]).unwrap();
    std::fs::write(t.join("t/mid/m2"), vec![7u8; 60_000]).unwrap();
    std::fs::write(util::raw_name(&t.join("t"), b"new\nline"), b"n").unwrap();
    std::fs::write(t.join("t/日本語"), vec![1u8; 9000]).unwrap();
    t
}

fn start_browse(t: &TempDir, args: &str, backend: Option<&str>) -> Tmux {
    let script = format!("{} --browse {args} t", sh_quote(&ldu()));
    let tm = Tmux::start(t.path(), 100, 30, &script, backend);
    tm.wait("the view", header_ok);
    tm
}

#[test]
fn numbers_match_ldu_moving_sorting_toggling() {
    if !have_all("browse::numbers_match_ldu_moving_sorting_toggling", &["tmux"]) {
        return;
    }
    let t = fixture("browse-nums");
    let dir = t.path();
    let disk = du_lines(dir, &["-h"]);
    let apparent = du_lines(dir, &["-h", "--apparent-size"]);
    // Each row against ldu's line for the same path; a link counted
    // elsewhere (H) has no line, as in `du -a`.
    let check = |s: &str, at: &str, want: &BTreeMap<String, String>| {
        for (size, flag, name) in rows(s) {
            if flag == 'H' || name.starts_with('$') || name.starts_with('\'') {
                continue;
            }
            let p = format!("{at}/{}", name.trim_end_matches('/'));
            assert_eq!(Some(&size), want.get(&p), "{p}: {s}");
        }
    };
    for backend in util::BACKENDS {
        let tm = start_browse(&t, "", Some(backend));
        let s = tm.screen();
        let r = rows(&s);
        // The biggest directory first, with the size ldu -sh prints for it.
        assert_eq!(r[0].2, "big/", "{backend}: {s}");
        assert_eq!(r[0].0, du_size(dir, &["-h"], "t/big"), "{backend}: {s}");
        check(&s, "t", &disk);
        assert!(s.contains(&format!("Disk usage: {} ", disk["t"])), "{s}");
        // Control characters are escaped, as ls shows them; wide names stay.
        assert!(r.iter().any(|x| x.2 == "'new'$'\\n''line'"), "{s}");
        assert!(r.iter().any(|x| x.2 == "日本語"), "{s}");
        // The hard link: t/top is met first (du's order), mid/link not.
        let s = tm.after(&["Down", "Enter"], "mid/", |s| s.contains("/t/mid ---"));
        assert!(rows(&s).iter().any(|x| x.1 == 'H' && x.2 == "link"), "{s}");
        check(&s, "t/mid", &disk);
        let s = tm.after(&["BSpace", "Home", "Enter"], "big/", |s| s.contains("/t/big ---"));
        assert_eq!(rows(&s)[0].2, "deep/");
        check(&s, "t/big", &disk);
        // Apparent sizes, as ldu --apparent-size -h.
        let s = tm.after(&["a"], "apparent", |s| s.contains("apparent size desc"));
        check(&s, "t/big", &apparent);
        // By name (byte order).
        let s = tm.after(&["n"], "name order", |s| s.contains("Sort: name asc"));
        let names: Vec<String> = rows(&s).into_iter().map(|x| x.2).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        // Back out: the root again, big/ selected.
        let s = tm.after(&["BSpace"], "the root", |s| s.contains("/t ---"));
        assert!(rows(&s).iter().any(|x| x.2 == "big/"));
        let s = tm.after(&["a", "s"], "disk usage", |s| s.contains("Sort: disk usage"));
        assert_eq!(rows(&s)[0].2, "big/", "{s}");
        // Info on the selection: its path and sizes.
        let s = tm.after(&["i"], "info", |s| s.contains("Path:"));
        assert!(s.contains("/t/big"), "{s}");
        tm.quit();
    }
}

/// Selects `name` in the shown directory (rows by size, so it is found
/// by moving down).
fn select(tm: &Tmux, name: &str) {
    let s = tm.screen();
    let k = rows(&s).iter().position(|x| x.2 == name).unwrap_or_else(|| panic!("{name} in {s}"));
    for _ in 0..k {
        tm.keys(&["Down"]);
    }
}

fn count_files(p: &Path) -> usize {
    let o = Command::new("find").arg(p).output().unwrap();
    o.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count()
}

#[test]
fn deleting_a_file_and_a_subtree() {
    if !have_all("browse::deleting_a_file_and_a_subtree", &["tmux"]) {
        return;
    }
    for backend in util::BACKENDS {
        let t = fixture("browse-del");
        let dir = t.path();
        let before = count_files(&t.join("t"));
        let tm = start_browse(&t, "", Some(backend));
        // Declined: nothing goes.
        select(&tm, "mid/");
        tm.after(&["d"], "the question", |s| s.contains("Delete ") && s.contains("/t/mid"));
        tm.after(&["n"], "declined", |s| s.contains("Nothing deleted"));
        assert_eq!(count_files(&t.join("t")), before);
        // A subtree, confirmed: exactly it goes, the totals follow.
        tm.after(&["d"], "the question", |s| s.contains("/t/mid"));
        let s = tm.after(&["y"], "deleted", |s| s.contains("Deleted 4 entries"));
        assert!(!t.join("t/mid").exists());
        assert_eq!(count_files(&t.join("t")), before - 4);
        assert!(!rows(&s).iter().any(|x| x.2 == "mid/"), "{s}");
        let s = tm.after(&["Escape"], "totals", |s| s.contains("Disk usage:"));
        assert!(
            s.contains(&format!("Disk usage: {} ", du_size(dir, &["-h"], "t"))),
            "{backend}: {s}"
        );
        // A file, inside a directory.
        tm.keys(&["Home"]);
        select(&tm, "big/");
        tm.after(&["Enter"], "big/", |s| s.contains("/t/big ---"));
        select(&tm, "f");
        tm.after(&["d"], "the question", |s| s.contains("/t/big/f"));
        tm.after(&["y"], "deleted", |s| s.contains("Deleted 1 entries"));
        assert!(!t.join("t/big/f").exists() && t.join("t/big/other/b2").exists());
        let s = tm.after(&["BSpace"], "the root", |s| s.contains("/t ---"));
        let big = rows(&s).into_iter().find(|x| x.2 == "big/").unwrap();
        assert_eq!(big.0, du_size(dir, &["-h"], "t/big"), "{s}");
        assert!(s.contains(&format!("Disk usage: {} ", du_size(dir, &["-h"], "t"))), "{s}");
        tm.quit();
    }
}

#[test]
fn a_subtree_swapped_for_a_symlink_is_refused() {
    if !have_all("browse::a_subtree_swapped_for_a_symlink_is_refused", &["tmux"]) {
        return;
    }
    let t = fixture("browse-swap");
    build_tree(t.path(), &["d:outside/keep", "f:outside/keep/precious:p", "f:outside/other:o"]);
    let outside = count_files(&t.join("outside"));
    let tm = start_browse(&t, "", None);
    // Between the scan and the deletion, t/big becomes a link to outside.
    std::fs::rename(t.join("t/big"), t.join("was-big")).unwrap();
    std::os::unix::fs::symlink(t.join("outside"), t.join("t/big")).unwrap();
    select(&tm, "big/");
    tm.after(&["d"], "the question", |s| s.contains("/t/big"));
    let s = tm.after(&["y"], "the refusal", |s| s.contains("changed since the scan"));
    assert!(s.contains("not deleted"), "{s}");
    assert_eq!(count_files(&t.join("outside")), outside);
    assert!(std::fs::symlink_metadata(t.join("t/big")).unwrap().file_type().is_symlink());
    assert_eq!(count_files(&t.join("was-big")), 7);
    // Also from above: deleting t's other entries never follows it.
    tm.after(&["Escape"], "the list", |s| s.contains("Disk usage:"));
    tm.quit();
}

#[test]
fn a_rescan_shows_what_changed() {
    if !have_all("browse::a_rescan_shows_what_changed", &["tmux"]) {
        return;
    }
    let t = fixture("browse-rescan");
    let dir = t.path();
    let tm = start_browse(&t, "", None);
    let before = rows(&tm.screen())[0].clone();
    // Grown after the scan: the view still shows the scan, until `r`.
    std::fs::write(t.join("t/big/other/new"), vec![3u8; 2_000_000]).unwrap();
    let s = tm.after(&["r"], "the rescan", |s| s.contains("Rescanned"));
    let after = rows(&s)[0].clone();
    assert_eq!(after.2, "big/");
    assert_ne!(after.0, before.0, "{s}");
    assert_eq!(after.0, du_size(dir, &["-h"], "t/big"), "{s}");
    let s = tm.after(&["Escape"], "totals", |s| s.contains("Disk usage:"));
    assert!(s.contains(&format!("Disk usage: {} ", du_size(dir, &["-h"], "t"))), "{s}");
    let s = tm.after(&["Enter", "Enter"], "other/", |s| s.contains("/t/big/other ---"));
    assert!(rows(&s).iter().any(|x| x.2 == "new"), "{s}");
    tm.quit();
}

#[test]
fn read_only_refuses() {
    if !have_all("browse::read_only_refuses", &["tmux"]) {
        return;
    }
    let t = fixture("browse-ro");
    let before = count_files(&t.join("t"));
    let tm = start_browse(&t, "--read-only", None);
    let s = tm.after(&["d"], "the refusal", |s| s.contains("Read-only"));
    assert!(!s.contains("Delete "), "{s}");
    tm.keys(&["y"]);
    tm.quit();
    assert_eq!(count_files(&t.join("t")), before);
}

/// Starts the view through `run.sh`, which leaves ldu's pid in `pid` (the
/// tests run at once: looking ldu up by name could find another test's)
/// and `stty -a` before and after it in `before` and `after`.
fn start_with_pid(t: &TempDir, w: u16, h: u16) -> Tmux {
    let script = format!(
        "stty -a > before\nsh -c 'echo $$ > pid; exec {} --browse t'\necho status=$? > status\nstty -a > after\n",
        sh_quote(&ldu())
    );
    std::fs::write(t.join("run.sh"), script).unwrap();
    let tm = Tmux::start(t.path(), w, h, "sh run.sh", None);
    tm.wait("the view", header_ok);
    tm
}

fn pid_of(t: &TempDir) -> u32 {
    std::fs::read_to_string(t.join("pid")).unwrap().trim().parse().unwrap()
}

/// `stty -a` before and after the view, however it ended.
fn stty_around(how: &str) {
    let t = fixture("browse-tty");
    let tm = start_with_pid(&t, 80, 24);
    tm.wait("the view", header_ok);
    match how {
        "quit" => tm.keys(&["q"]),
        "ctrl-c" => tm.keys(&["C-c"]),
        sig => util::kill_pid(pid_of(&t), sig),
    }
    let s = tm.wait("the end", |s| s.contains("EXITED="));
    let before = std::fs::read_to_string(t.join("before")).unwrap();
    let after = std::fs::read_to_string(t.join("after")).unwrap();
    assert_eq!(before, after, "{how}: the terminal's settings changed");
    // The normal screen is back: the view's frame is gone from it.
    assert!(!s.contains("Disk usage:"), "{how}: {s}");
    let status = std::fs::read_to_string(t.join("status")).unwrap();
    let want = match how {
        "quit" => "status=0",
        "ctrl-c" | "INT" => "status=130",
        "TERM" => "status=143",
        _ => unreachable!(),
    };
    assert_eq!(status.trim(), want, "{how}");
}

#[test]
fn the_terminal_is_restored_on_quit_and_on_signals() {
    if !have_all("browse::the_terminal_is_restored_on_quit_and_on_signals", &["tmux"]) {
        return;
    }
    for how in ["quit", "ctrl-c", "INT", "TERM"] {
        stty_around(how);
    }
}

#[test]
fn resizes_redraw_and_a_stop_gives_the_terminal_back() {
    if !have_all("browse::resizes_redraw_and_a_stop_gives_the_terminal_back", &["tmux", "bash"]) {
        return;
    }
    let t = fixture("browse-resize");
    // An interactive shell with job control, as a user has: a stopped
    // job's group is not orphaned there (in an orphaned group the kernel
    // drops the stop, and the view just carries on).
    let tm = Tmux::start(t.path(), 100, 30, "PS1=prompt$\\  bash --norc --noprofile -i", None);
    tm.wait("the shell", |s| s.contains("prompt$"));
    let cmd = format!("sh -c 'echo $$ > pid; exec {} --browse t'", ldu().display());
    tm.tmux(&["send-keys", "-t", "t", "-l", &cmd]);
    tm.keys(&["Enter"]);
    let s = tm.wait("the view", header_ok);
    assert!(s.lines().nth(2).unwrap().contains('['), "a bar at 100 columns: {s}");
    // Narrower than 40: no bar, the rows still there and whole.
    tm.tmux(&["resize-window", "-t", "t", "-x", "32", "-y", "12"]);
    let s = tm.wait("a redraw at 32 columns", |s| {
        s.lines().all(|l| l.chars().count() <= 32) && s.contains("big/") && !s.contains('[')
    });
    assert!(s.lines().nth(1).unwrap().starts_with("--- "), "{s}");
    tm.tmux(&["resize-window", "-t", "t", "-x", "90", "-y", "20"]);
    tm.wait("a redraw at 90 columns", |s| s.contains('[') && s.contains("big/"));
    // Ctrl-Z, then SIGTSTP from outside: the shell's screen back, the
    // view again on fg (SIGCONT).
    tm.keys(&["C-z"]);
    tm.wait("the shell after Ctrl-Z", |s| s.contains("Stopped") && !s.contains("Disk usage:"));
    tm.after(&["fg", "Enter"], "the view again", header_ok);
    util::kill_pid(pid_of(&t), "TSTP");
    tm.wait("the shell after SIGTSTP", |s| s.contains("Stopped") && !s.contains("Disk usage:"));
    tm.after(&["fg", "Enter"], "the view again", header_ok);
    tm.after(&["q"], "the shell", |s| !s.contains("Disk usage:") && s.contains("prompt$"));
}

// ---- export / import ----

/// One entry of an exported file, as a minimal reader independent of
/// ldu's sees it (path relative to the root's parent, as `root_as`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Rec {
    path: String,
    dir: bool,
    asize: u64,
    dsize: u64,
    dev: u64,
    ino: u64,
    hlnkc: bool,
    excluded: bool,
    error: bool,
}

/// The entries of an exported file in file order; a directory's own entry
/// comes before its contents.
fn parse_export(json: &[u8], root_as: &str) -> Vec<Rec> {
    struct P<'a> {
        b: &'a [u8],
        i: usize,
    }
    impl P<'_> {
        fn peek(&mut self) -> u8 {
            while matches!(self.b[self.i], b' ' | b'\n' | b'\r' | b'\t') {
                self.i += 1;
            }
            self.b[self.i]
        }
        fn eat(&mut self, c: u8) {
            assert_eq!(self.peek() as char, c as char, "at {}", self.i);
            self.i += 1;
        }
        fn string(&mut self) -> Vec<u8> {
            self.eat(b'"');
            let mut v = Vec::new();
            loop {
                let c = self.b[self.i];
                self.i += 1;
                match c {
                    b'"' => return v,
                    b'\\' => {
                        let e = self.b[self.i];
                        self.i += 1;
                        v.push(match e {
                            b'n' => b'\n',
                            b't' => b'\t',
                            b'u' => {
                                let h = std::str::from_utf8(&self.b[self.i..self.i + 4]).unwrap();
                                self.i += 4;
                                u8::from_str_radix(h, 16).unwrap()
                            }
                            c => c,
                        });
                    }
                    c => v.push(c),
                }
            }
        }
        fn scalar(&mut self) -> String {
            self.peek();
            let s = self.i;
            while !matches!(self.b[self.i], b',' | b'}' | b']') {
                self.i += 1;
            }
            String::from_utf8_lossy(&self.b[s..self.i]).trim().to_string()
        }
        /// An object of strings and scalars: (name, fields).
        fn object(&mut self) -> (Vec<u8>, BTreeMap<String, String>) {
            let mut name = Vec::new();
            let mut f = BTreeMap::new();
            self.eat(b'{');
            loop {
                let k = String::from_utf8(self.string()).unwrap();
                self.eat(b':');
                if self.peek() == b'"' {
                    let v = self.string();
                    if k == "name" {
                        name = v;
                    } else {
                        f.insert(k, String::from_utf8_lossy(&v).into_owned());
                    }
                } else {
                    let v = self.scalar();
                    f.insert(k, v);
                }
                if self.peek() == b',' {
                    self.i += 1;
                } else {
                    self.eat(b'}');
                    return (name, f);
                }
            }
        }
    }
    let mut p = P { b: json, i: 0 };
    p.eat(b'[');
    p.scalar();
    p.eat(b',');
    p.scalar();
    p.eat(b',');
    p.object();
    p.eat(b',');
    let mut out = Vec::new();
    // (path, dev) of the open directories.
    let mut stack: Vec<(String, u64)> = Vec::new();
    let mut first = true;
    loop {
        let dir = if first {
            first = false;
            p.eat(b'[');
            true
        } else {
            match p.peek() {
                b',' => {
                    p.i += 1;
                    let d = p.peek() == b'[';
                    if d {
                        p.i += 1;
                    }
                    d
                }
                b']' => {
                    p.i += 1;
                    stack.pop();
                    if stack.is_empty() {
                        return out;
                    }
                    continue;
                }
                c => panic!("unexpected {} at {}", c as char, p.i),
            }
        };
        let (name, f) = p.object();
        let num = |k: &str| f.get(k).map_or(0, |v| v.parse().unwrap());
        let (path, dev) = match stack.last() {
            None => (root_as.to_string(), num("dev")),
            Some((up, d)) => (
                format!("{up}/{}", String::from_utf8_lossy(&name)),
                f.get("dev").map_or(*d, |v| v.parse().unwrap()),
            ),
        };
        out.push(Rec {
            path: path.clone(),
            dir,
            asize: num("asize"),
            dsize: num("dsize"),
            dev,
            ino: num("ino"),
            hlnkc: f.get("hlnkc").is_some_and(|v| v == "true"),
            excluded: f.contains_key("excluded"),
            error: f.get("read_error").is_some_and(|v| v == "true"),
        });
        if dir {
            stack.push((path, dev));
        }
    }
}

/// Per directory, the totals a reader counting the first link in file
/// order gets: (disk, apparent).
fn totals(json: &[u8], root_as: &str) -> BTreeMap<String, (u64, u64)> {
    totals_by(json, root_as, false)
}

/// [`totals`]; `every_file`: every file counted once by inode (`-L`).
fn totals_by(json: &[u8], root_as: &str, every_file: bool) -> BTreeMap<String, (u64, u64)> {
    let recs = parse_export(json, root_as);
    let mut seen = HashSet::new();
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for r in &recs {
        let once = r.hlnkc || (every_file && !r.dir);
        if r.excluded || (once && !seen.insert((r.dev, r.ino))) {
            continue;
        }
        // Into its own total (a directory) and every directory above it.
        let mut p = r.path.as_str();
        if r.dir {
            let e = out.entry(p.to_string()).or_default();
            e.0 += r.dsize;
            e.1 += r.asize;
        }
        while let Some(i) = p.rfind('/') {
            p = &p[..i];
            let e = out.entry(p.to_string()).or_default();
            e.0 += r.dsize;
            e.1 += r.asize;
        }
    }
    out
}

/// `du -B1 [--apparent-size] t` (GNU's), per directory.
fn gnu_du(dir: &Path, apparent: bool) -> BTreeMap<String, u64> {
    gnu_du_with(dir, apparent, &[])
}

fn gnu_du_with(dir: &Path, apparent: bool, more: &[&str]) -> BTreeMap<String, u64> {
    let mut c = Command::new("/usr/bin/du");
    c.arg("-B1").args(more);
    if apparent {
        c.arg("--apparent-size");
    }
    let o = c.arg("t").current_dir(dir).env("LC_ALL", "C").output().unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let (n, p) = l.split_once('\t').unwrap();
            (p.to_string(), n.parse().unwrap())
        })
        .collect()
}

/// A tree for the export: hard links within and across directories and
/// out of it, a sparse file, a symlink, a FIFO, an empty directory; over
/// [`fixture`]'s.
fn export_fixture(tag: &str) -> TempDir {
    let t = fixture(tag);
    build_tree(
        t.path(),
        &[
            "d:t/links/a",
            "d:t/links/b",
            "f:t/links/a/orig:12345",
            "h:t/links/b/second:t/links/a/orig",
            "h:t/links/a/third:t/links/a/orig",
            "h:t/big/far:t/links/a/orig",
            "f:outside:o",
            "h:t/links/to-outside:outside",
            "l:t/links/sym:a",
            "p:t/fifo",
        ],
    );
    let f = std::fs::File::create(t.join("t/links/sparse")).unwrap();
    f.set_len(10 << 20).unwrap();
    t
}

#[test]
fn export_totals_equal_gnu_du() {
    let t = export_fixture("browse-export");
    let dir = t.path();
    let disk = gnu_du(dir, false);
    let apparent = gnu_du(dir, true);
    for backend in util::BACKENDS {
        let o = Command::new(ldu())
            .args(["--export=-", "t"])
            .current_dir(dir)
            .env("RINGIO_BACKEND", backend)
            .output()
            .unwrap();
        assert!(o.status.success(), "{backend}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stderr.is_empty());
        let got = totals(&o.stdout, "t");
        let want: BTreeMap<String, (u64, u64)> =
            disk.iter().map(|(p, d)| (p.clone(), (*d, apparent[p]))).collect();
        assert_eq!(got, want, "{backend}:\n{}", String::from_utf8_lossy(&o.stdout));
    }
    // The memory budget at 0: every directory's records through the file.
    let o = Command::new(ldu())
        .args(["--export=-", "t"])
        .current_dir(dir)
        .env("RINGUTILS_SCAN_MEMORY", "0")
        .output()
        .unwrap();
    let got = totals(&o.stdout, "t");
    assert_eq!(got["t"], (disk["t"], apparent["t"]));
    assert_eq!(got.len(), disk.len());
    // -L: symlinks followed, every file and directory counted once.
    let disk = gnu_du_with(dir, false, &["-L"]);
    let apparent = gnu_du_with(dir, true, &["-L"]);
    let o = Command::new(ldu()).args(["-L", "--export=-", "t"]).current_dir(dir).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = totals_by(&o.stdout, "t", true);
    let want: BTreeMap<String, (u64, u64)> =
        disk.iter().map(|(p, d)| (p.clone(), (*d, apparent[p]))).collect();
    assert_eq!(got, want, "-L:\n{}", String::from_utf8_lossy(&o.stdout));
}

/// An unreadable directory is marked in the file (`read_error`) and in
/// the view (`!`, and `.` above it), reported as du reports it, never
/// shown as merely small.
#[test]
fn unreadable_directories_are_marked() {
    if !util::root() {
        util::skip("browse::unreadable_directories_are_marked", "needs root to run as nobody");
        return;
    }
    if !have_all("browse::unreadable_directories_are_marked", &["tmux", "setpriv"]) {
        return;
    }
    let t = fixture("browse-unreadable");
    util::chmod(&t.join("t/big/deep"), 0o000);
    let uid = util::NOBODY.to_string();
    let o = Command::new("setpriv")
        .args(["--reuid", &uid, "--regid", &uid, "--clear-groups", "--"])
        .arg(ldu())
        .args(["--export=-", "t"])
        .current_dir(t.path())
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    util::chmod(&t.join("t/big/deep"), 0o755);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "ldu: cannot read directory 't/big/deep': Permission denied\n"
    );
    let recs = parse_export(&o.stdout, "t");
    let deep = recs.iter().find(|r| r.path == "t/big/deep").unwrap();
    assert!(deep.dir && deep.error, "{deep:?}");
    std::fs::write(t.join("scan.json"), &o.stdout).unwrap();
    let script = format!("{} --browse -f scan.json", sh_quote(&ldu()));
    let tm = Tmux::start(t.path(), 100, 30, &script, None);
    let s = tm.wait("the view", header_ok);
    assert!(rows(&s).iter().any(|x| x.1 == '.' && x.2 == "big/"), "{s}");
    let s = tm.after(&["Enter"], "big/", |s| s.contains("/t/big ---"));
    assert!(rows(&s).iter().any(|x| x.1 == '!' && x.2 == "deep/"), "{s}");
    tm.quit();
}

#[test]
fn ncdu_opens_the_export_and_ldu_imports_ncdus() {
    if !have_all("browse::ncdu_opens_the_export_and_ldu_imports_ncdus", &["tmux", "ncdu"]) {
        return;
    }
    let t = fixture("browse-ncdu");
    let dir = t.path();
    let o =
        Command::new(ldu()).args(["--export=scan.json", "t"]).current_dir(dir).output().unwrap();
    assert!(o.status.success());
    // ncdu 1.18 reads it: the same entries, biggest first.
    let tm = Tmux::start(dir, 100, 30, "ncdu -f scan.json", None);
    let s = tm.wait("ncdu", |s| s.contains("big") && s.contains("Items:"));
    let names: Vec<&str> = s
        .lines()
        .filter_map(|l| l.split_once(']').map(|(_, n)| n.trim().trim_start_matches('/')))
        .filter(|n| !n.is_empty())
        .collect();
    assert_eq!(names.first(), Some(&"big"), "{s}");
    assert!(names.contains(&"mid") && names.contains(&"top"), "{s}");
    tm.keys(&["q"]);
    drop(tm);
    // ncdu's own file, imported: the same numbers as ldu prints (no hard
    // links across the tree here, where ncdu and du count differently).
    std::fs::remove_file(t.join("t/mid/link")).unwrap();
    let o = Command::new("ncdu").args(["-o", "ncdu.json", "t"]).current_dir(dir).output().unwrap();
    assert!(o.status.success());
    let script = format!("{} --browse -f ncdu.json", sh_quote(&ldu()));
    let tm = Tmux::start(dir, 100, 30, &script, None);
    let s = tm.wait("the imported view", header_ok);
    assert!(s.contains("[read-only]"), "{s}");
    let r = rows(&s);
    assert_eq!(r[0].2, "big/", "{s}");
    for (size, _, name) in &r {
        if let Some(d) = name.strip_suffix('/') {
            assert_eq!(*size, du_size(dir, &["-h"], &format!("t/{d}")), "{name}: {s}");
        }
    }
    tm.after(&["d"], "the refusal", |s| s.contains("Read-only"));
    tm.quit();
}

#[test]
fn gdu_reads_the_export() {
    if !have_all("browse::gdu_reads_the_export", &["gdu"]) {
        return;
    }
    let t = fixture("browse-gdu");
    let o = Command::new(ldu())
        .args(["--export=scan.json", "t"])
        .current_dir(t.path())
        .output()
        .unwrap();
    assert!(o.status.success());
    let o = Command::new("gdu")
        .args(["-n", "-p", "-f", "scan.json"])
        .current_dir(t.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out} {}", String::from_utf8_lossy(&o.stderr));
    for n in ["big", "mid", "top"] {
        assert!(out.contains(n), "{n} in {out}");
    }
}

#[test]
fn broken_files_get_a_clear_error_and_nothing_else() {
    let t = fixture("browse-broken");
    let dir = t.path();
    let o =
        Command::new(ldu()).args(["--export=good.json", "t"]).current_dir(dir).output().unwrap();
    assert!(o.status.success());
    let good = std::fs::read(t.join("good.json")).unwrap();
    std::fs::write(t.join("cut.json"), &good[..good.len() / 2]).unwrap();
    let mut bad = good.clone();
    bad[good.len() / 3] = b'#';
    std::fs::write(t.join("bad.json"), &bad).unwrap();
    std::fs::write(t.join("text.json"), b"hello\n").unwrap();
    for (f, says) in [
        ("cut.json", "truncated"),
        ("bad.json", "not an ncdu export file"),
        ("text.json", "not an ncdu export file: expected '[' at byte 0"),
        ("missing.json", "No such file or directory"),
    ] {
        let o = Command::new(ldu()).args(["--browse", "-f", f]).current_dir(dir).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{f}");
        assert!(o.stdout.is_empty(), "{f}");
        assert!(
            err.starts_with("ldu: ") && err.contains(says) && err.lines().count() == 1,
            "{f}: {err}"
        );
    }
}

/// `mpirun -n 2 ldu --export` writes what the single process writes.
#[cfg(feature = "mpi")]
#[test]
fn mpi_export_equals_the_single_process_export() {
    if !have_all("browse::mpi_export_equals_the_single_process_export", &["mpirun"]) {
        return;
    }
    let t = export_fixture("browse-mpi");
    let dir = t.path();
    let single = Command::new(ldu()).args(["--export=-", "t"]).current_dir(dir).output().unwrap();
    assert!(single.status.success());
    let o = Command::new("timeout")
        .args([
            "-k",
            "5",
            "300",
            "mpirun",
            "-q",
            "--allow-run-as-root",
            "--oversubscribe",
            "-n",
            "2",
        ])
        .arg(ldu())
        .args(["--export=mpi.json", "t"])
        .current_dir(dir)
        .env("TMPDIR", dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = std::fs::read(t.join("mpi.json")).unwrap();
    let set =
        |b: &[u8]| parse_export(b, "t").into_iter().collect::<std::collections::BTreeSet<_>>();
    assert_eq!(set(&got), set(&single.stdout));
    assert_eq!(totals(&got, "t"), totals(&single.stdout, "t"));
}

#[test]
fn options_and_gnus_abbreviations() {
    let o = Command::new(ldu()).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    for opt in ["--browse", "--export=FILE", "-f, --import=FILE", "--read-only"] {
        assert!(help.contains(opt), "{opt} in --help");
    }
    // Abbreviations keep GNU's meaning beside the new options.
    let t = fixture("browse-abbrev");
    for args in [&["--i", "t"][..], &["--b", "t"], &["--ex=x", "t"], &["--exp=-", "t"]] {
        let ours = Command::new(ldu())
            .args(args)
            .current_dir(t.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        if args[0] == "--exp=-" {
            assert!(ours.status.success() && ours.stdout.starts_with(b"[1,2,"));
            continue;
        }
        let gnu = Command::new("/usr/bin/du")
            .args(args)
            .current_dir(t.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        let norm =
            |b: &[u8]| String::from_utf8_lossy(b).replace("/usr/bin/du", "du").replace("ldu", "du");
        let sorted = |b: &[u8]| {
            let mut v: Vec<String> = norm(b).lines().map(String::from).collect();
            v.sort();
            v
        };
        assert_eq!(sorted(&ours.stdout), sorted(&gnu.stdout), "{args:?}");
        assert_eq!(norm(&ours.stderr), norm(&gnu.stderr), "{args:?}");
        assert_eq!(ours.status.code(), gnu.status.code(), "{args:?}");
    }
    // Combinations the view can't do are usage errors.
    for args in [
        &["--browse", "a", "b"][..],
        &["-f", "x", "t"],
        &["--import=x", "--export=y"],
        &["--browse", "--export=-", "t"],
    ] {
        let o = Command::new(ldu()).args(args).current_dir(t.path()).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("Try 'ldu --help'"), "{args:?}");
    }
    let o = Command::new(ldu()).args(["--browse", "t"]).current_dir(t.path()).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs a terminal"));
}
