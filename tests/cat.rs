//! lcat against GNU cat 9.1 (/usr/bin/cat), every comparison under every
//! engine backend (see `util::compare`).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::util::{self, build_tree, compare, compare_script, Rng, Run, Stderr, TempDir};

/// Differential cases run (each under GNU and all three backends); printed
/// with `--nocapture`, to tell how much a run covered.
static CASES: AtomicUsize = AtomicUsize::new(0);

fn cmp(run: &Run) {
    CASES.fetch_add(1, Ordering::Relaxed);
    let run = run.clone();
    util::soft(move || {
        compare("lcat", &run, Stderr::Exact);
    });
}

// The tests of formatting, operands and messages run again in C.UTF-8,
// en_US.UTF-8, de_DE.UTF-8 and ja_JP.UTF-8, whole, on every backend
// (`util::in_locales!`: `cat::usage_errors_help_and_version::de_de` …;
// cat is byte-oriented, `-v` must not become multibyte-aware), each
// comparison through `util::soft` so one run lists every difference;
// pipes, sockets, write errors and syscalls stay in C. About 13 s per
// locale on an idle core, most of it the 63 option combinations.
util::in_locales!(
    plain_copy_of_every_fixture,
    every_option_alone_short_and_long,
    every_combination_of_formatting_options,
    standard_input_once_twice_and_between_files,
    missing_directories_and_bad_names,
    usage_errors_help_and_version,
);

fn cmp_script(script: &str, setup: &dyn Fn(&Path)) {
    CASES.fetch_add(1, Ordering::Relaxed);
    // Unwind-safe in fact: each run sets up its own fresh directory, so a
    // failed comparison leaves nothing shared half-done.
    util::soft(std::panic::AssertUnwindSafe(|| {
        compare_script("lcat", script, setup, Stderr::Exact, false);
    }));
}

fn report(test: &str) {
    eprintln!("cat differential cases so far ({test}): {}", CASES.load(Ordering::Relaxed));
}

/// Generated file contents for cat's cases.
impl Rng {
    /// Bytes rich in what formatting cares about: newlines (often several
    /// in a row), TAB, CR, control and high bytes.
    fn text(&mut self, len: usize) -> Vec<u8> {
        let special = b"\n\n\n\n\t\r\x00\x1b\x7f\x80\x89\x8a\xa0\xff";
        (0..len)
            .map(|_| {
                let r = self.next();
                match r % 8 {
                    0 => special[(r >> 8) as usize % special.len()],
                    1 => (r >> 8) as u8,
                    _ => b'a' + (r >> 8) as u8 % 26,
                }
            })
            .collect()
    }
}

/// Generated text, made once per (seed, length) and shared: setups run
/// before every one of a script's four runs, and generating megabytes in a
/// debug build is slow.
fn cached_text(seed: u64, len: usize) -> std::sync::Arc<Vec<u8>> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Cache = Mutex<HashMap<(u64, usize), Arc<Vec<u8>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let mut c = CACHE.get_or_init(Default::default).lock().unwrap();
    c.entry((seed, len)).or_insert_with(|| Arc::new(Rng(seed).text(len))).clone()
}

fn all_bytes() -> Vec<u8> {
    let mut v: Vec<u8> = (0..=255u8).collect();
    v.push(b'\n');
    v.extend(0..=255u8);
    v
}

/// The shared fixture files, one per trait that matters to cat.
const FIXTURES: [&str; 9] =
    ["all256", "crlf", "empty", "nonl", "blanks", "tabs", "mixed", "lead_blank", "only_nl"];

fn fixtures(dir: &Path) {
    let w = |name: &str, data: &[u8]| std::fs::write(dir.join(name), data).unwrap();
    w("all256", &all_bytes());
    w("crlf", b"a\r\nb\r\n\r\n\r\nc\r\n");
    w("empty", b"");
    w("nonl", b"no newline at the end");
    w("blanks", b"\n\n\nx\n\n\n\ny\n\n");
    w("tabs", b"\ta\tb\t\n\t\n\t");
    // Bigger than any read or write buffer, so lines and -s runs cross
    // chunk boundaries.
    w("mixed", &cached_text(0x9e37_79b9_7f4a_7c15, 700_000));
    w("lead_blank", b"\n\nfirst\n");
    w("only_nl", b"\n\n\n\n");
}

fn fixture_dir() -> TempDir {
    let t = TempDir::new("cat");
    fixtures(t.path());
    t
}

fn args_with(opts: &[&str], files: &[&str]) -> Vec<String> {
    opts.iter().chain(files.iter()).map(|s| s.to_string()).collect()
}

#[test]
fn plain_copy_of_every_fixture() {
    let t = fixture_dir();
    for f in FIXTURES {
        cmp(&Run::new([f]).cwd(t.path()));
    }
    cmp(&Run::new(FIXTURES).cwd(t.path()));
    cmp(&Run::new(["-u", "mixed", "all256"]).cwd(t.path()));
    report("plain");
}

#[test]
fn every_option_alone_short_and_long() {
    let t = fixture_dir();
    let opts = [
        "-A",
        "-b",
        "-e",
        "-E",
        "-n",
        "-s",
        "-t",
        "-T",
        "-u",
        "-v",
        "--show-all",
        "--number-nonblank",
        "--show-ends",
        "--number",
        "--squeeze-blank",
        "--show-tabs",
        "--show-nonprinting",
        "--show-a",
        "--number-n",
        "--sq",
        "--show-n",
    ];
    for o in opts {
        // All fixtures in one run: state (numbers, -s, partial lines)
        // crosses file boundaries.
        cmp(&Run::new(args_with(&[o], &FIXTURES)).cwd(t.path()));
        for f in ["all256", "blanks", "nonl"] {
            cmp(&Run::new([o, f]).cwd(t.path()));
        }
    }
    report("options");
}

#[test]
fn every_combination_of_formatting_options() {
    let t = fixture_dir();
    let order = ["blanks", "nonl", "blanks", "crlf", "only_nl", "all256", "empty", "tabs", "mixed"];
    for mask in 1..64u32 {
        let mut cluster = String::from("-");
        for (bit, c) in "bEnsTv".chars().enumerate() {
            if mask & (1 << bit) != 0 {
                cluster.push(c);
            }
        }
        cmp(&Run::new(args_with(&[&cluster], &order)).cwd(t.path()));
    }
    // Separate and repeated flags, options after operands.
    cmp(&Run::new(["-n", "blanks", "-b", "-s", "tabs", "-ET"]).cwd(t.path()));
    cmp(&Run::new(["-vet", "-A", "mixed"]).cwd(t.path()));
    report("combinations");
}

#[test]
fn standard_input_once_twice_and_between_files() {
    let t = fixture_dir();
    let data = Rng(7).text(300_000);
    cmp(&Run::new::<[&str; 0], &str>([]).stdin(&data));
    cmp(&Run::new(["-"]).stdin(&data));
    cmp(&Run::new(["-n"]).stdin(&data));
    cmp(&Run::new(["crlf", "-", "tabs"]).cwd(t.path()).stdin(b"from stdin\n"));
    // The second `-` finds the pipe at its end.
    cmp(&Run::new(["-", "-"]).stdin(&data));
    cmp(&Run::new(["-n", "-", "nonl", "-", "-"]).cwd(t.path()).stdin(b"a\nb"));
    cmp(&Run::new(["-s", "blanks", "-"]).cwd(t.path()).stdin(b"\n\n\nz\n"));
    cmp(&Run::new(["-A", "-"]).stdin(&all_bytes()));
    cmp(&Run::new(["-"]).stdin(b""));
    // Standard input that is a regular file: `-` twice reads it once, from
    // the shared position.
    cmp_script("cat - - < mixed | md5sum; cat -n - crlf - < blanks", &fixtures);
    cmp_script("{ head -c 5 >/dev/null; cat -; } < crlf", &fixtures);
    report("stdin");
}

#[test]
fn many_operands() {
    let t = TempDir::new("cat-many");
    let mut names = Vec::new();
    for i in 0..600 {
        let name = format!("f{i:03}");
        let content = match i % 4 {
            0 => format!("line {i}\n"),
            1 => format!("partial {i}"),
            2 => String::new(),
            _ => "\n\n".to_string(),
        };
        std::fs::write(t.join(&name), content).unwrap();
        names.push(name);
    }
    cmp(&Run::new(&names).cwd(t.path()));
    cmp(&Run::new(args_with(&["-n"], &names.iter().map(|s| s.as_str()).collect::<Vec<_>>()))
        .cwd(t.path()));
    cmp(&Run::new(args_with(&["-sb"], &names.iter().map(|s| s.as_str()).collect::<Vec<_>>()))
        .cwd(t.path()));
    report("many");
}

/// Small files are read ahead (crates/cat/src/ahead.rs): many at once,
/// yet the bytes, each error's place among them, and the exit status stay
/// GNU's, whatever sits between the small files.
#[test]
fn small_files_read_ahead_keep_order_and_errors() {
    let setup = |dir: &Path| {
        fixtures(dir);
        let mut rng = Rng(29);
        for i in 0..150 {
            let len = match i % 7 {
                0 => 0,
                1 => 1,
                // Around the read-ahead limit (128 KiB) and the size at
                // which a file read ahead is handed on (256 KiB).
                2 if i % 3 == 0 => 128 * 1024 + i,
                2 => 256 * 1024 + i,
                _ => (rng.next() % 5000) as usize,
            };
            std::fs::write(dir.join(format!("s{i:03}")), rng.text(len)).unwrap();
        }
        build_tree(dir, &["d:dir", "p:fifo", "f:out:previous output\n"]);
    };
    for opts in ["", "-n ", "-sA "] {
        for script in [
            "cat OPTS s* | md5sum; echo rc=$?",
            // A missing file and a directory in the middle.
            "cat OPTS s00* missing s01* dir s02*; echo rc=$?",
            // A device that looks cold (latency added to what ringio's
            // detector measures): after the first files, the ring reads
            // the rest in parts (open, positioned reads, close).
            "RINGUTILS_TEST_FAULT=slow:500 cat OPTS s* | md5sum; echo rc=$?",
            "RINGUTILS_TEST_FAULT=slow:500 cat OPTS s00* missing s01* dir s02*; echo rc=$?",
            "cat OPTS s00* missing s01* dir s02* | md5sum",
            // Standard input among them, twice.
            "printf 'in\\n' | cat OPTS s00* - s01* - s02*; echo rc=$?",
            // A FIFO among them: its writer starts after cat does.
            "(timeout 20 sh -c 'cat crlf > fifo' &); cat OPTS s00* fifo s01*; echo rc=$?",
            // The output file among the inputs.
            "cat OPTS s00* out s01* >> out; echo rc=$?; md5sum out",
            "cat OPTS s00* out s01* > out; echo rc=$?; md5sum out",
            // Empty files only, and files the kernel generates (size 0 in
            // their stat, so read until the end; kallsyms is megabytes:
            // handed on part-way).
            "cat OPTS empty empty empty; echo rc=$?",
            "cat OPTS /proc/version empty /proc/filesystems /proc/kallsyms nonl | md5sum",
        ] {
            cmp_script(&script.replace("OPTS ", opts), &setup);
        }
    }
    report("read-ahead");
}

/// Files that grow while read ahead (their stat's size is a hint): each is
/// read to its end, once, in its place.
#[test]
fn files_that_grow_while_read_ahead() {
    use std::io::Write;
    let t = TempDir::new("cat-grow");
    let names: Vec<String> = (0..40).map(|i| format!("g{i:02}")).collect();
    for n in &names {
        std::fs::write(t.join(n), b"start\n").unwrap();
    }
    let dir = t.path().to_path_buf();
    let writer_names = names.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop_w = stop.clone();
    let writer = std::thread::spawn(move || {
        let mut files: Vec<std::fs::File> = writer_names
            .iter()
            .map(|n| std::fs::OpenOptions::new().append(true).open(dir.join(n)).unwrap())
            .collect();
        // Paced and capped: unpaced, the files outgrew the runs reading
        // them (each run reads every byte, and this test's own check of
        // the output is slow in a debug build), and a slow run let them
        // grow faster still, until the disk was full (seen: 40 GB).
        let mut written = 0;
        while !stop_w.load(Ordering::Relaxed) && written < 8 << 20 {
            for f in &mut files {
                f.write_all(&b"grown line\n".repeat(20)).unwrap();
            }
            written += 220;
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
    });
    let mut runs = 0;
    for b in util::BACKENDS {
        for _ in 0..5 {
            let out = Command::new(util::ours("lcat"))
                .args(&names)
                .current_dir(t.path())
                .env("RINGIO_BACKEND", b)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{b}: {}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(grown_files(&out.stdout), Some(names.len()), "{b}: not 40 grown files");
            runs += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    assert_eq!(runs, 15);
}

/// How many files `out` holds, each `start\n`, then whole `grown line\n`s,
/// then maybe part of one (the writer was mid-write at the end); `None` if
/// anything else is there (a byte repeated, lost or out of place).
fn grown_files(mut out: &[u8]) -> Option<usize> {
    let (start, line): (&[u8], &[u8]) = (b"start\n", b"grown line\n");
    let mut files = 0;
    while !out.is_empty() {
        out = out.strip_prefix(start)?;
        files += 1;
        while let Some(rest) = out.strip_prefix(line) {
            out = rest;
        }
        let part = out.iter().take_while(|&&c| c != b's').count().min(line.len() - 1);
        if !line.starts_with(&out[..part]) {
            return None;
        }
        out = &out[part..];
    }
    Some(files)
}

#[test]
fn ten_megabyte_single_line() {
    let t = TempDir::new("cat-long");
    let mut line = Rng(3).text(10 << 20);
    for b in line.iter_mut() {
        if *b == b'\n' {
            *b = b'x';
        }
    }
    std::fs::write(t.join("noeol"), &line).unwrap();
    line.push(b'\n');
    std::fs::write(t.join("eol"), &line).unwrap();
    for opts in [&[][..], &["-n"], &["-E"], &["-vE"], &["-bs"], &["-A"]] {
        cmp(&Run::new(args_with(opts, &["eol", "noeol"])).cwd(t.path()));
    }
    report("long line");
}

#[test]
fn numbers_wider_than_six_digits() {
    let t = TempDir::new("cat-wide");
    std::fs::write(t.join("lines"), "x\n\n".repeat(500_100)).unwrap();
    for opts in [&["-n"][..], &["-b"], &["-sn"], &["-nE"]] {
        cmp(&Run::new(args_with(opts, &["lines"])).cwd(t.path()));
    }
    report("wide numbers");
}

#[test]
fn named_pipes_and_symlinks() {
    let setup = |dir: &Path| {
        fixtures(dir);
        build_tree(dir, &["p:fifo", "l:loop:loop", "l:link:crlf", "l:dangling:nowhere"]);
    };
    for opts in ["", "-n "] {
        for script in [
            // The writer opens the FIFO under `timeout`, so a reader that
            // never opens it fails the test instead of hanging it.
            "(timeout 20 sh -c 'cat mixed crlf > fifo' &); cat OPTS fifo | md5sum",
            "(timeout 20 sh -c 'cat mixed > fifo' &); cat OPTS nonl fifo > out; md5sum out",
            "(timeout 20 sh -c 'cat mixed > fifo' &); cat OPTS fifo > /dev/null; echo rc=$?",
            "cat OPTS link loop dangling nonl; echo rc=$?",
        ] {
            cmp_script(&script.replace("OPTS ", opts), &setup);
        }
    }
    report("fifos");
}

#[test]
fn large_binary_file() {
    let t = TempDir::new("cat-big");
    let mut rng = Rng(11);
    let data: Vec<u8> = (0..(24 << 20) / 8).flat_map(|_| rng.next().to_le_bytes()).collect();
    std::fs::write(t.join("big"), &data).unwrap();
    for opts in [&[][..], &["-v"], &["-n"], &["-s"]] {
        cmp(&Run::new(args_with(opts, &["big"])).cwd(t.path()));
    }
    report("binary");
}

#[test]
fn missing_directories_and_bad_names() {
    let t = fixture_dir();
    build_tree(t.path(), &["d:dir", "f:a b:spaced\n", "f:a:b:colon\n"]);
    for opts in [&[][..], &["-n"]] {
        cmp(&Run::new(args_with(opts, &["dir"])).cwd(t.path()));
        cmp(&Run::new(args_with(opts, &["crlf", "missing", "nonl", "dir", "tabs"])).cwd(t.path()));
        cmp(&Run::new(args_with(opts, &["nope", "a b", "a:b", "no pe", "x:y", "it's"]))
            .cwd(t.path()));
        cmp(&Run::new(args_with(opts, &["crlf/x", "", "/"])).cwd(t.path()));
    }
    let odd = util::raw_name(t.path(), b"new\nline\xff");
    let mut run =
        Run::new([b"nonl".to_vec(), odd.file_name().unwrap().as_encoded_bytes().to_vec()]);
    run.cwd = Some(t.path().to_path_buf());
    cmp(&run);
    // A directory as standard input.
    cmp_script("cat - < .; echo rc=$?; cat -n nonl - < .", &fixtures);
    report("errors");
}

#[test]
fn unreadable_files_as_unprivileged_user() {
    // SAFETY: geteuid has no preconditions.
    if libcw::euid() != 0 {
        util::skipped(
            "unreadable_files_as_unprivileged_user",
            "needs root to switch to an unprivileged user",
        );
        return;
    }
    let setup = |dir: &Path| {
        fixtures(dir);
        build_tree(dir, &["f:secret:hidden\n", "m:secret:000", "d:locked", "m:locked:000"]);
    };
    for script in [
        "cat crlf secret nonl; echo rc=$?",
        "cat -n secret locked blanks; echo rc=$?",
        "cat locked/x; echo rc=$?",
    ] {
        CASES.fetch_add(1, Ordering::Relaxed);
        compare_script("lcat", script, &setup, Stderr::Exact, true);
    }
    report("unprivileged");
}

#[test]
fn usage_errors_help_and_version() {
    for args in [
        &["-x"][..],
        &["-nx", "f"],
        &["--foo"],
        &["--foo=bar"],
        &["--numb"],
        &["--numbe=x"],
        &["--s"],
        &["--show"],
        &["--help=3"],
        &["--ver=1"],
        &["---"],
        &["--="],
        &["-n="],
        &["-n-"],
        &["missing", "-k"],
    ] {
        cmp(&Run::new(args));
    }
    let mut run = Run::new([b"-\xc3\xa9".to_vec()]);
    cmp(&run);
    run.args = vec![b"-n\xff".to_vec()];
    cmp(&run);
    run.args = vec![b"--\xff=1".to_vec()];
    cmp(&run);

    // --help is in GNU's layout (its own words), generated from the table.
    let ours = Run::new(["--help"]).exec(&util::ours("lcat"), "cat", Some("sync"));
    let help = String::from_utf8(ours.stdout.clone()).unwrap();
    assert!(help.starts_with("Usage: cat [OPTION]... [FILE]...\n"), "{help}");
    for line in ["  -A, --show-all ", "  -e    ", "  -u    ", "      --help  "] {
        assert!(help.contains(line), "{line:?} in {help}");
    }
    assert_eq!(ours.status.code(), Some(0));
    for args in [&["--help", "-x"][..], &["-n", "--he"], &["--h"]] {
        let o = Run::new(args).exec(&util::ours("lcat"), "cat", Some("sync"));
        assert!(o.stdout.starts_with(b"Usage: cat [OPTION]... [FILE]...\n"), "{args:?}");
    }
    let v = Run::new(["--vers"]).exec(&util::ours("lcat"), "cat", Some("sync"));
    assert!(v.stdout.starts_with(b"lcat (ringutils) "));
    assert_eq!(v.status.code(), Some(0));
    // Help and version into /dev/full fail like GNU's.
    cmp_script("cat --help > /dev/full; echo rc=$?", &|_| ());
    report("usage");
}

#[test]
fn posixly_correct_operands_end_options() {
    let t = fixture_dir();
    cmp(&Run::new(["nonl", "-n", "crlf"]).cwd(t.path()));
    cmp(&Run::new(["nonl", "-n", "crlf"]).cwd(t.path()).env("POSIXLY_CORRECT", "1"));
    cmp(&Run::new(["-E", "nonl", "--", "-n"]).cwd(t.path()).env("POSIXLY_CORRECT", "1"));
    cmp(&Run::new(["-n", "--", "-n", "--"]).cwd(t.path()));
    report("posix");
}

#[test]
fn input_file_is_output_file() {
    let setup = |dir: &Path| {
        fixtures(dir);
        std::fs::write(dir.join("f"), b"hello\n").unwrap();
    };
    for opts in ["", "-n "] {
        for script in [
            "cat OPTS f >> f; echo rc=$?; md5sum f",
            "cat OPTS crlf f nonl >> f; echo rc=$?; od -c f",
            "cat OPTS - >> f < f; echo rc=$?; od -c f",
            "cat OPTS f 1<>f; echo rc=$?; od -c f",
            // Truncated first: empty, nothing to copy, no error.
            "cat OPTS f > f; echo rc=$?; od -c f",
            "cat OPTS crlf f > f; echo rc=$?; od -c f",
            // Standard input already at its end: allowed.
            "{ head -c 100 >/dev/null; cat OPTS - >> f; } < f; echo rc=$?; od -c f",
            "{ head -c 2 >/dev/null; cat OPTS - >> f; } < f; echo rc=$?; od -c f",
            "echo x | cat OPTS - f - >> f; echo rc=$?; od -c f",
            "cat OPTS empty >> empty; echo rc=$?",
            // Same file, different output kinds: no check.
            "cat OPTS f > /dev/null; echo rc=$?",
        ] {
            cmp_script(&script.replace("OPTS ", opts), &setup);
        }
    }
    report("input==output");
}

#[test]
fn write_errors_end_the_run() {
    for script in [
        "cat mixed > /dev/full; echo rc=$?",
        "cat -n nonl > /dev/full; echo rc=$?",
        "cat crlf missing crlf > /dev/full; echo rc=$?",
        "cat -n crlf missing > /dev/full; echo rc=$?",
        "cat empty > /dev/full; echo rc=$?",
        "cat missing empty > /dev/full; echo rc=$?",
        "cat - < mixed > /dev/full; echo rc=$?",
        "cat -n - < mixed > /dev/full; echo rc=$?",
        // Standard output open read-only: every method must fail with
        // EBADF as a write error, nothing silently dropped.
        "cat mixed 1</dev/null; echo rc=$?",
        "cat -n mixed 1</dev/null; echo rc=$?",
        "cat mixed 1<crlf; echo rc=$?",
        "echo x | cat 1</dev/null; echo rc=$?",
        "cat mixed 1<>/dev/full; echo rc=$?",
        // Closed standard output, closed standard input.
        "cat nonl >&-; echo rc=$?",
        "cat empty >&-; echo rc=$?",
        "cat <&-; echo rc=$?",
        "cat -n - <&-; echo rc=$?",
        "cat nonl - nonl <&-; echo rc=$?",
    ] {
        cmp_script(script, &fixtures);
    }
    report("write errors");
}

#[test]
fn closed_pipe_ends_quietly_or_reports_when_sigpipe_ignored() {
    let setup = |dir: &Path| {
        fixtures(dir);
        std::fs::write(dir.join("big"), &*cached_text(5, 8 << 20)).unwrap();
    };
    for opts in ["", "-n ", "-v "] {
        for script in [
            "(cat OPTS big; echo \"cat=$?\" >&2) | head -c 1 | od -c",
            "(cat OPTS big big; echo \"cat=$?\" >&2) | head -n 2 > /dev/null",
            "(cat OPTS - < big; echo \"cat=$?\" >&2) | head -c 10 | od -c",
            "(cat OPTS - < big; echo \"cat=$?\" >&2) | true",
            "trap '' PIPE; (cat OPTS big; echo \"cat=$?\" >&2) | head -c 1 | od -c",
        ] {
            cmp_script(&script.replace("OPTS ", opts), &setup);
        }
    }
    report("sigpipe");
}

#[test]
fn every_kind_of_output() {
    // Each fast path: regular file (copy_file_range / sendfile / O_APPEND
    // read-write), /dev/null (private-pipe splice), pipe (splice), and the
    // pipe-to-file splice from standard input.
    let setup = |dir: &Path| {
        fixtures(dir);
        std::fs::write(dir.join("big"), &*cached_text(9, 5 << 20)).unwrap();
    };
    for opts in ["", "-n "] {
        for script in [
            "cat OPTS big crlf empty nonl big > out; echo rc=$?; md5sum out",
            "echo start > out; cat OPTS big nonl >> out; echo rc=$?; md5sum out",
            "cat OPTS big crlf missing > /dev/null; echo rc=$?",
            "cat OPTS - < big > /dev/null; echo rc=$?",
            "cat big | cat OPTS - nonl - > out; echo rc=$?; md5sum out",
            "cat big | cat OPTS - nonl > /dev/null; echo rc=$?",
            "echo start > out; cat big | cat OPTS - nonl >> out; echo rc=$?; md5sum out",
            "cat OPTS big all256 | md5sum",
            "cat OPTS /proc/self/stat | wc -l",
            "cat OPTS /dev/null big < /dev/null | md5sum",
            "exec 3<>out; cat OPTS nonl >&3; echo rc=$?; md5sum out",
            "cat OPTS big > out; cat OPTS crlf 1<>out; echo rc=$?; md5sum out",
        ] {
            cmp_script(&script.replace("OPTS ", opts), &setup);
        }
    }
    report("outputs");
}

/// Output into a socket (sendfile from a file, splice from a pipe).
#[test]
fn socket_output() {
    use std::os::unix::net::UnixStream;
    let t = fixture_dir();
    let big = Rng(13).text(3 << 20);
    std::fs::write(t.join("big"), &big).unwrap();
    let mut want = big.clone();
    want.extend_from_slice(b"no newline at the end");
    want.extend_from_slice(&big);
    for b in util::BACKENDS {
        // Standard input a file (sendfile), then a pipe (splice).
        for piped in [false, true] {
            let (ours_end, mut reader) = UnixStream::pair().unwrap();
            let mut feeder = None;
            let stdin = if piped {
                let mut f =
                    Command::new("cat").arg(t.join("big")).stdout(Stdio::piped()).spawn().unwrap();
                let s = Stdio::from(f.stdout.take().unwrap());
                feeder = Some(f);
                s
            } else {
                Stdio::from(std::fs::File::open(t.join("big")).unwrap())
            };
            let mut child = Command::new(util::ours("lcat"))
                .args(["big", "nonl", "-"])
                .current_dir(t.path())
                .env("RINGIO_BACKEND", b)
                .stdin(stdin)
                .stdout(Stdio::from(std::os::fd::OwnedFd::from(ours_end)))
                .spawn()
                .unwrap();
            let mut got = Vec::new();
            reader.read_to_end(&mut got).unwrap();
            assert!(child.wait().unwrap().success());
            if let Some(mut f) = feeder {
                assert!(f.wait().unwrap().success());
            }
            assert!(
                got == want,
                "backend {b} piped {piped}: {} of {} bytes",
                got.len(),
                want.len()
            );
        }
    }
}

/// 100 MB through a pipe whose reader drains slowly, in odd-sized reads:
/// every byte must arrive, in order (io_uring WRITE to a pipe completes
/// short; splice moves at most a pipe-full).
#[test]
fn hundred_megabytes_through_a_slow_pipe() {
    let t = TempDir::new("cat-slow");
    let mut rng = Rng(17);
    let data: Vec<u8> = (0..(100 << 20) / 8).flat_map(|_| rng.next().to_le_bytes()).collect();
    std::fs::write(t.join("big"), &data).unwrap();
    let want = checksum(&data);
    drop(data);
    for b in util::BACKENDS {
        for (opts, stdin) in [(&["big"][..], false), (&["-"][..], true)] {
            let mut cmd = Command::new(util::ours("lcat"));
            cmd.args(opts).current_dir(t.path()).env("RINGIO_BACKEND", b).stdout(Stdio::piped());
            let mut feeder = None;
            if stdin {
                // A pipe as input too: splice pipe → pipe.
                let mut f =
                    Command::new("cat").arg(t.join("big")).stdout(Stdio::piped()).spawn().unwrap();
                cmd.stdin(Stdio::from(f.stdout.take().unwrap()));
                feeder = Some(f);
            }
            let mut child = cmd.spawn().unwrap();
            let mut out = child.stdout.take().unwrap();
            let got = slow_checksum(&mut out);
            assert!(child.wait().unwrap().success());
            if let Some(mut f) = feeder {
                assert!(f.wait().unwrap().success());
            }
            assert_eq!(got, want, "backend {b} args {opts:?}");
            assert_eq!(got.1, 100 << 20);
        }
    }
    // Formatted output (read/format/write through the engine) slowly
    // drained: compare with GNU's bytes.
    let gnu =
        Command::new("/usr/bin/cat").args(["-n", "big"]).current_dir(t.path()).output().unwrap();
    let want = checksum(&gnu.stdout);
    drop(gnu);
    for b in util::BACKENDS {
        let mut child = Command::new(util::ours("lcat"))
            .args(["-n", "big"])
            .current_dir(t.path())
            .env("RINGIO_BACKEND", b)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let got = slow_checksum(&mut out);
        assert!(child.wait().unwrap().success());
        assert_eq!(got, want, "backend {b} -n");
    }
}

/// An order-sensitive checksum over 8-byte words (FNV-style), fed in
/// pieces of any size: word-wise so a debug build hashes 100 MB quickly.
struct Sum {
    h: u64,
    pending: Vec<u8>,
    len: u64,
}

impl Sum {
    fn new() -> Sum {
        Sum { h: 0xcbf2_9ce4_8422_2325, pending: Vec::with_capacity(8), len: 0 }
    }

    fn word(&mut self, w: u64) {
        self.h = (self.h ^ w).wrapping_mul(0x0100_0000_01b3).rotate_left(29);
    }

    fn update(&mut self, mut data: &[u8]) {
        self.len += data.len() as u64;
        if !self.pending.is_empty() {
            let take = (8 - self.pending.len()).min(data.len());
            self.pending.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.pending.len() < 8 {
                return;
            }
            let w = u64::from_le_bytes(self.pending[..].try_into().unwrap());
            self.word(w);
            self.pending.clear();
        }
        let mut words = data.chunks_exact(8);
        for w in &mut words {
            self.word(u64::from_le_bytes(w.try_into().unwrap()));
        }
        self.pending.extend_from_slice(words.remainder());
    }

    fn finish(mut self) -> (u64, u64) {
        let mut last = [0u8; 8];
        last[..self.pending.len()].copy_from_slice(&self.pending);
        self.word(u64::from_le_bytes(last) ^ (self.pending.len() as u64) << 60);
        (self.h, self.len)
    }
}

fn checksum(data: &[u8]) -> (u64, u64) {
    let mut s = Sum::new();
    s.update(data);
    s.finish()
}

/// Drains `r` slowly, in reads of changing (odd) sizes with pauses.
fn slow_checksum(r: &mut impl Read) -> (u64, u64) {
    let mut s = Sum::new();
    let mut buf = vec![0u8; 77_777];
    let mut reads = 0u64;
    loop {
        let n = r.read(&mut buf[..1 + (reads as usize * 7919) % 77_776]).unwrap();
        if n == 0 {
            return s.finish();
        }
        s.update(&buf[..n]);
        reads += 1;
        if reads % 64 == 0 {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}

/// Syscall counts (strace): the fast paths really are taken, and the
/// formatted path writes in large blocks.
#[test]
fn syscalls_of_the_fast_paths() {
    if !util::require("strace", "syscalls_of_the_fast_paths") {
        return;
    }
    let t = TempDir::new("cat-strace");
    let mut rng = Rng(19);
    let data = rng.text(32 << 20);
    std::fs::write(t.join("big"), &data).unwrap();
    let trace = |script: &str| -> String {
        let out = Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(t.path())
            .env("LCAT", util::ours("lcat"))
            .env("RINGIO_BACKEND", "sync")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read_to_string(t.join("trace")).unwrap()
    };
    let count = |trace: &str, name: &str| {
        trace.lines().filter(|l| l.starts_with(&format!("{name}("))).count()
    };
    // Into a pipe: the pipe grows to 1 MiB and the data moves by splice
    // only, through a private pipe: 32 splices of 1 MiB in, and out each
    // moves what the reader has made room for (GNU cat reads 128 KiB at a
    // time): between 32 and 32 MiB / 64 KiB calls.
    let tr =
        trace("strace -o trace -e trace=splice,read,write,fcntl \"$LCAT\" big | cat > /dev/null");
    assert!(tr.contains("F_SETPIPE_SZ, 1048576"), "{tr}");
    let splices = count(&tr, "splice");
    assert!((64..=560).contains(&splices), "{splices} splices:\n{tr}");
    assert_eq!(count(&tr, "write"), 0, "{tr}");
    // To /dev/null: two splices per MiB through the private pipe.
    let tr = trace("strace -o trace -e trace=splice,read,write \"$LCAT\" big > /dev/null");
    let splices = count(&tr, "splice");
    assert!((64..=80).contains(&splices), "{splices} splices:\n{tr}");
    assert_eq!(count(&tr, "write"), 0, "{tr}");
    // File to file: copy_file_range.
    let tr = trace("strace -o trace -e trace=copy_file_range,read,write \"$LCAT\" big > out");
    assert!(count(&tr, "copy_file_range") <= 3, "{tr}");
    assert_eq!(count(&tr, "write"), 0, "{tr}");
    assert_eq!(std::fs::read(t.join("out")).unwrap(), data);
    // Formatted: 32 MiB of input read in 64 KiB chunks (the size that
    // keeps the chunk and its formatted output in cache: copy.rs
    // FORMAT_CHUNK), written in blocks of at least as much but the last.
    let tr = trace("strace -o trace -e trace=read,write \"$LCAT\" -n big > /dev/null");
    let result = |l: &str| l.rsplit("= ").next().and_then(|n| n.trim().parse::<usize>().ok());
    let writes: Vec<usize> =
        tr.lines().filter(|l| l.starts_with("write(1,")).filter_map(result).collect();
    assert!(!writes.is_empty() && writes.iter().sum::<usize>() > 32 << 20, "{tr}");
    let small = writes[..writes.len() - 1].iter().filter(|&&n| n < 64 << 10).count();
    assert_eq!(small, 0, "writes below 64 KiB before the last:\n{tr}");
    // 512 full chunks (the end is met by a read of another size or known
    // from the size: either way not a 64 KiB read).
    let chunks = tr.lines().filter(|l| l.starts_with("read(") && l.contains(", 65536) = ")).count();
    assert_eq!(chunks, (32 << 20) / (64 << 10), "{tr}");
}
