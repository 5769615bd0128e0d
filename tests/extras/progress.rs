//! ldu's progress line on a terminal (`script` gives it one): per
//! operand, naming the directory being read, within the terminal's width,
//! off with `--progress=never` or when standard error is not a terminal,
//! and never in the output. The walk is made to last through a slowfs
//! mount (a FUSE mirror delaying every request): a chain of directories
//! that can only be read one after the other takes seconds, whatever the
//! machine, so the line's one-second delay passes while it is walked; no
//! time is asserted.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use super::{gnu, text};
use crate::slowmount::{self, mounted};
use crate::util::{self, TempDir, BACKENDS};

/// Levels of the chain on the slow mount, each with a one-byte file.
const LEVELS: usize = 25;
/// The local operand's size on disk: more than the chain holds.
const BIG: usize = 8 << 20;

/// The slowfs server, unmounted and stopped when dropped.
struct Mount {
    xtask: PathBuf,
    child: Child,
    mp: PathBuf,
}

impl Drop for Mount {
    fn drop(&mut self) {
        if mounted(&self.mp) {
            let _ = Command::new(&self.xtask).arg("slowfs").arg("--umount").arg(&self.mp).status();
        }
        for _ in 0..1000 {
            if self.child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if mounted(&self.mp) {
            let _ = Command::new("umount").arg("-l").arg(&self.mp).status();
        }
    }
}

/// `big/` (local, BIG bytes) and `mnt/chain` (LEVELS directories deep on
/// a mount delaying each request by 40 ms); None when FUSE or the
/// tools are missing (said so).
fn setup(test: &str) -> Option<(TempDir, Mount)> {
    if !util::have("script") {
        util::prerequisite_missing(test, "script(1)");
        return None;
    }
    if let Some(why) = slowmount::unusable() {
        slowmount::fuse_missing(test, &why);
        return None;
    }
    let Some(xtask) = util::xtask_bin() else {
        util::prerequisite_missing(test, "the xtask binary could not be built");
        return None;
    };
    let t = TempDir::new("extras-progress");
    std::fs::create_dir_all(t.join("big")).unwrap();
    std::fs::write(t.join("big/blob"), vec![1u8; BIG]).unwrap();
    let mut d = t.join("src/chain");
    for _ in 0..LEVELS {
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("f"), b"x").unwrap();
        d = d.join("d");
    }
    let mp = t.join("mnt");
    let args = ["--latency".as_ref(), "40ms".as_ref()];
    let child = match slowmount::start(&xtask, &t.join("src"), &mp, &args) {
        Ok(c) => c,
        Err(e) => {
            slowmount::fuse_missing(test, &e);
            return None;
        }
    };
    Some((t, Mount { xtask, child, mp }))
}

/// Runs the shell `line` on a terminal `cols` wide in `dir`; returns what
/// the terminal received.
fn on_tty(dir: &Path, line: &str, backend: &str, cols: u16) -> String {
    let mut c = Command::new("script");
    c.arg("-qec").arg(format!("stty cols {cols} rows 24; {line}")).arg("/dev/null");
    c.current_dir(dir).env_clear();
    c.env("PATH", "/usr/local/bin:/usr/bin:/bin").env("LC_ALL", "C").env("TZ", "UTC");
    c.env("TERM", "xterm").env("SHELL", "/bin/bash").env("RINGIO_BACKEND", backend);
    let o = c.output().unwrap();
    assert!(o.status.success(), "{line}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// The frames of the progress line in a transcript: the texts drawn
/// after each `\r`, up to the clear-to-end-of-line after them.
fn frames(transcript: &str) -> Vec<&str> {
    transcript
        .split('\r')
        .filter_map(|f| f.strip_suffix("\x1b[K").or_else(|| f.split_once("\x1b[K").map(|x| x.0)))
        .filter(|f| !f.is_empty())
        .collect()
}

/// `2.0K`, `120K`, `8.1M` (the progress line's sizes) in bytes.
fn bytes(h: &str) -> f64 {
    let unit = h.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    let n: f64 = h[..h.len() - unit.len()].parse().unwrap();
    let k = match unit {
        "" => 1.0,
        "K" => 1024.0,
        "M" => 1024.0 * 1024.0,
        "G" => 1024.0 * 1024.0 * 1024.0,
        u => panic!("unit {u}"),
    };
    n * k
}

/// With standard output in a file and standard error on the terminal:
/// the file is GNU du's output byte for byte; the line names the operand
/// being walked and a directory under it, counts that operand alone (the
/// first one's 8 MiB never show beside the second's name), keeps within
/// the terminal's width, and is cleared at the end. On every backend.
#[test]
fn per_operand_naming_the_directory() {
    let test = "extras::progress::per_operand_naming_the_directory";
    let Some((t, _mount)) = setup(test) else { return };
    let want = gnu("du", t.path(), &["big", "mnt/chain"], &[]);
    assert!(want.status.success());
    let ldu = util::ours("ldu");
    for b in BACKENDS {
        let out = t.join(format!("out-{b}"));
        let line = format!("exec {} big mnt/chain > {}", ldu.display(), out.display());
        let tty = on_tty(t.path(), &line, b, 70);
        assert_eq!(std::fs::read(&out).unwrap(), want.stdout, "[{b}]: output");
        assert!(!tty.contains('\t'), "[{b}]: output on the terminal\n{tty:?}");
        let fr = frames(&tty);
        let chain: Vec<&str> =
            fr.iter().copied().filter(|f| f.starts_with("ldu: mnt/chain: ")).collect();
        assert!(!chain.is_empty(), "[{b}]: no progress line for the slow operand\n{tty:?}");
        assert!(
            chain.iter().any(|f| f.contains(", reading mnt/chain/") || f.contains(", reading …")),
            "[{b}]: no directory named\n{tty:?}"
        );
        for f in &fr {
            assert!(f.chars().count() < 70, "[{b}]: wider than the terminal: {f:?}");
            assert!(
                f.starts_with("ldu: big: ") || f.starts_with("ldu: mnt/chain: "),
                "[{b}]: {f:?}"
            );
        }
        for f in &chain {
            let size = f["ldu: mnt/chain: ".len()..].split(", ").nth(1).unwrap();
            assert!(bytes(size) < BIG as f64, "[{b}]: the first operand's bytes counted: {f:?}");
        }
        // Cleared at the end: the last thing written.
        assert!(tty.ends_with("\r\x1b[K"), "[{b}]: not cleared\n{tty:?}");
    }
}

/// Off: `--progress=never`, or by default when standard error is not a
/// terminal; forced by `--progress=always` with everything on one
/// terminal, each output line whole (the line cleared before it).
#[test]
fn off_forced_and_out_of_the_way() {
    let test = "extras::progress::off_forced_and_out_of_the_way";
    let Some((t, _mount)) = setup(test) else { return };
    let want = gnu("du", t.path(), &["big", "mnt/chain"], &[]);
    let ldu = util::ours("ldu");
    let b = "threads";
    let out = t.join("out");
    let tty = on_tty(
        t.path(),
        &format!("exec {} --progress=never big mnt/chain > {}", ldu.display(), out.display()),
        b,
        80,
    );
    assert_eq!(tty, "", "--progress=never drew");
    assert_eq!(std::fs::read(&out).unwrap(), want.stdout);
    let err = t.join("err");
    let tty = on_tty(
        t.path(),
        &format!("exec {} big mnt/chain > {} 2> {}", ldu.display(), out.display(), err.display()),
        b,
        80,
    );
    assert_eq!(tty, "");
    assert_eq!(std::fs::read(&err).unwrap(), b"", "progress into a file by default");
    assert_eq!(std::fs::read(&out).unwrap(), want.stdout);
    // Both streams on the terminal: lines and frames interleave, each
    // line after a cleared frame, whole.
    let tty =
        on_tty(t.path(), &format!("exec {} --progress=always big mnt/chain", ldu.display()), b, 80);
    assert!(!frames(&tty).is_empty(), "no progress line\n{tty:?}");
    let wanted: Vec<String> = text(&want.stdout).lines().map(str::to_string).collect();
    let mut seen = Vec::new();
    for seg in tty.split('\n').filter(|s| s.contains('\t')) {
        let line = seg.trim_end_matches('\r');
        let line = line.rsplit_once("\r\x1b[K").map_or(line, |(_, l)| l);
        assert!(wanted.iter().any(|w| w == line), "a line mixed with progress: {seg:?}\n{tty:?}");
        seen.push(line.to_string());
    }
    assert_eq!(seen, wanted);
    // And off again in a pipe, forced or not, stdout clean either way.
    let o = super::run("ldu", t.path(), &["--progress=auto", "big"], b, &[]);
    assert_eq!(o.stderr, b"");
    let o = super::run("ldu", t.path(), &["--progress=nope", "big"], b, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).starts_with("ldu: invalid argument 'nope' for '--progress'"),
        "{}",
        text(&o.stderr)
    );
}
