//! What ldu does instead of printing du's lines when `--browse`,
//! `--export` or `--import` is given: scan one directory with du's
//! counting rules ([`crate::scan`]) into the full-screen view (the
//! `browse` crate) and/or ncdu's JSON format ([`crate::export`]), or read
//! such a file back ([`crate::import`]). `--export` also runs as an MPI
//! job, rank 0 writing the file.

use std::sync::atomic::{AtomicBool, Ordering};

use browse::app::{App, Config, SizeMode};
use browse::term::Screen;
use browse::tree::{Builder, Idx, Item, LinkRule, Tree, TreeSink};
use cli::size::SizeFormat;
use ringio::Errno;

use crate::export::Json;
use crate::plan::{Deref, Operands, Plan};
use crate::report::DuError;
use crate::scan::{Counters, Messages, Scan};

/// Runs the plan's `--browse`/`--export`/`--import`; the exit status.
pub(crate) fn execute(plan: &Plan, job: &mut walk::Job) -> u8 {
    // Only the file can come out of a job: its ranks' terminals are
    // mpirun's.
    let in_job = job.in_job();
    let ok = !in_job || (!plan.browse.view && plan.browse.import.is_none());
    match job.start(cli::progname(), false, ok) {
        walk::Role::Main => {}
        walk::Role::Failed => {
            if in_job {
                usage(b"--browse and --import don't run under mpirun: --export there, then --browse --import the file");
            }
            return 1;
        }
        walk::Role::Helper => {
            let (counters, stop) = (Counters::default(), AtomicBool::new(false));
            let scan = Scan::new(plan, Null, Vec::new(), &counters, &stop, Messages::Stderr);
            let excluded = |p: &[u8]| plan.exclude.matches(p);
            job.serve(&options(plan, false), &crate::hints(plan, &excluded), &scan);
            return 0;
        }
    }
    for w in &plan.warnings {
        cli::msg::error_bytes(&[w]);
    }
    libcw::rlimit::raise_nofile();
    // Records are made on the walkers' threads and freed on the player's:
    // with an arena per thread each freed batch was trimmed and regrown
    // (3,000 mprotect calls for 170,000 entries). One arena, not trimmed.
    libcw::mem::tune_for_batch();
    if let Some(file) = &plan.browse.import {
        return imported(plan, file);
    }
    let root = match &plan.operands {
        Operands::Args(v) if !v.is_empty() => v[0].clone(),
        _ => b".".to_vec(),
    };
    if root.is_empty() {
        cli::msg::error_bytes(&[&DuError::EmptyOperand.message()]);
        return 1;
    }
    if let Err(e) = check_dir(plan, &root) {
        cli::msg::error_bytes(&[&e]);
        return 1;
    }
    let name = absolute(&root);
    if plan.browse.view {
        scanned(plan, &root, name)
    } else {
        exported(plan, job, &root, name)
    }
}

/// A usage problem found only now: GNU's shape of message, then "Try".
fn usage(m: &[u8]) {
    cli::msg::error_bytes(&[m]);
    let _ = std::io::Write::write_all(&mut std::io::stderr(), &cli::msg::try_help());
}

/// A sink that drops everything (the MPI ranks that only read).
struct Null;

impl TreeSink for Null {
    fn open_dir(&mut self, _: &Item) {}
    fn entry(&mut self, _: &Item) {}
    fn close_dir(&mut self) {}
}

/// Both at once: `--browse --export=FILE`.
struct Tee<A, B>(A, B);

impl<A: TreeSink, B: TreeSink> TreeSink for Tee<A, B> {
    fn open_dir(&mut self, d: &Item) {
        self.0.open_dir(d);
        self.1.open_dir(d);
    }
    fn entry(&mut self, e: &Item) {
        self.0.entry(e);
        self.1.entry(e);
    }
    fn close_dir(&mut self) {
        self.0.close_dir();
        self.1.close_dir();
    }
}

/// The walk: ordered under `-L` (as du: the first link met counts), else
/// parallel. Only an operand is followed under `-H`.
fn options(plan: &Plan, operand: bool) -> walk::Options {
    let follow = match plan.deref {
        Deref::Always => true,
        Deref::Args => operand,
        Deref::Never => false,
    };
    walk::Options {
        ordered: plan.deref == Deref::Always,
        follow_roots: follow,
        ..walk::Options::default()
    }
}

fn rule(plan: &Plan) -> LinkRule {
    LinkRule { count_all: plan.count_links, every_file: plan.deref == Deref::Always }
}

/// The view and the file have one root, a directory, as ncdu's.
fn check_dir(plan: &Plan, root: &[u8]) -> Result<(), Vec<u8>> {
    let c = std::ffi::CString::new(root).map_err(|_| b"invalid file name".to_vec())?;
    let mut st = ringio::sys::statx_zeroed();
    let flags = if options(plan, true).follow_roots { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    match ringio::sys::statx(libc::AT_FDCWD, &c, flags, libc::STATX_TYPE, &mut st) {
        Err(e) => Err(DuError::Access { path: root.to_vec(), errno: Some(e) }.message()),
        Ok(()) if st.stx_mode as u32 & libc::S_IFMT != libc::S_IFDIR => {
            let what = if plan.browse.view { "--browse" } else { "--export" };
            Err([what.as_bytes(), b": ", &cli::quote::operand(root), b" is not a directory"]
                .concat())
        }
        Ok(()) => Ok(()),
    }
}

/// The root's name in the file and the view: an absolute path, as ncdu
/// writes it (not resolved: symlinks on the way stay as typed).
fn absolute(root: &[u8]) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut p = if root.first() == Some(&b'/') {
        root.to_vec()
    } else {
        let mut cwd = std::env::current_dir()
            .map(|d| d.as_os_str().as_bytes().to_vec())
            .unwrap_or_else(|_| b".".to_vec());
        if root != b"." {
            if cwd.last() != Some(&b'/') {
                cwd.push(b'/');
            }
            cwd.extend_from_slice(root.strip_prefix(b"./").unwrap_or(root));
        }
        cwd
    };
    while p.len() > 1 && (p.ends_with(b"/") || p.ends_with(b"/.")) {
        p.pop();
        if p.ends_with(b"/") && p.len() > 1 {
            p.pop();
        }
    }
    p
}

fn now() -> i64 {
    libcw::time::now().0
}

/// `--export` alone: the walk (or the job) straight into the file.
fn exported(plan: &Plan, job: &mut walk::Job, root: &[u8], name: Vec<u8>) -> u8 {
    let file = plan.browse.export.clone().unwrap_or_else(|| b"-".to_vec());
    let (out, _keep) = match open_out(&file) {
        Ok(x) => x,
        Err(m) => {
            cli::msg::error_bytes(&[&m]);
            return 1;
        }
    };
    let json = Json::new(out, rule(plan), now());
    let (counters, stop) = (Counters::default(), AtomicBool::new(false));
    let scan = Scan::new(plan, json, name, &counters, &stop, Messages::Stderr);
    let opts = options(plan, true);
    let roots = [root.to_vec()];
    let excluded = |p: &[u8]| plan.exclude.matches(p);
    scan.run(|| job.walk(&roots, &opts, &crate::hints(plan, &excluded), &scan));
    let failed = scan.failed();
    let (json, complete) = scan.into_sink();
    job.finish();
    if !complete {
        cli::msg::error_bytes(&[
            b"the scan is incomplete: ",
            &cli::quote::file(&file),
            b" was not finished",
        ]);
        return 1;
    }
    let mut out = json.end();
    out.flush();
    if let Some(e) = out.error() {
        if file == b"-" {
            cli::msg::write_error(Some(e));
        } else {
            cli::msg::error_bytes(&[&cli::quote::file(&file), b": ", e.message().as_bytes()]);
        }
        return 1;
    }
    u8::from(failed)
}

/// The output for `file` (`-`: standard output), and the file to keep
/// open as long as it is written.
fn open_out(file: &[u8]) -> Result<(cli::Out, Option<std::fs::File>), Vec<u8>> {
    if file == b"-" {
        return Ok((cli::Out::stdout(), None));
    }
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    match std::fs::File::create(std::ffi::OsStr::from_bytes(file)) {
        Ok(f) => Ok((cli::Out::new(f.as_raw_fd(), cli::out::DEFAULT_LIMIT), Some(f))),
        Err(e) => {
            let errno = Errno(e.raw_os_error().unwrap_or(libc::EIO));
            let mut m = cli::locale::trf(c"cannot open %s for writing", &[&cli::quote::file(file)]);
            m.extend_from_slice(b": ");
            m.extend_from_slice(errno.message().as_bytes());
            Err(m)
        }
    }
}

fn config(plan: &Plan, root_path: Option<Vec<u8>>) -> Config {
    let mode = if plan.inodes {
        SizeMode::Items
    } else if plan.apparent {
        SizeMode::Apparent
    } else {
        SizeMode::Disk
    };
    Config {
        read_only: plan.browse.read_only || root_path.is_none(),
        si: plan.units == SizeFormat::human(true),
        mode,
        root_path,
    }
}

fn need_terminal() -> Option<u8> {
    if libcw::isatty(1) {
        return None;
    }
    usage(b"--browse needs a terminal on standard output");
    Some(1)
}

/// `--import`: the file into the view.
fn imported(plan: &Plan, file: &[u8]) -> u8 {
    // The file first: a broken one is reported wherever ldu runs.
    let im = match crate::import::import(file) {
        Ok(im) => im,
        Err(e) => {
            cli::msg::error_bytes(&[&e.message()]);
            return 1;
        }
    };
    if let Some(s) = need_terminal() {
        return s;
    }
    let mut screen = match Screen::enter() {
        Ok(s) => s,
        Err(e) => return no_screen(e),
    };
    let mut app = App::new(im.tree, config(plan, None));
    browse::browse(&mut screen, &mut app, None);
    0
}

fn no_screen(e: Errno) -> u8 {
    cli::msg::error_bytes(&[b"cannot set up the terminal: ", e.message().as_bytes()]);
    1
}

/// `--browse`: the scan, its count on screen, then the view.
fn scanned(plan: &Plan, root: &[u8], name: Vec<u8>) -> u8 {
    if let Some(s) = need_terminal() {
        return s;
    }
    let export = match &plan.browse.export {
        None => None,
        Some(f) => match open_out(f) {
            Ok((out, keep)) => Some((f.clone(), Json::new(out, rule(plan), now()), keep)),
            Err(m) => {
                cli::msg::error_bytes(&[&m]);
                return 1;
            }
        },
    };
    let mut screen = match Screen::enter() {
        Ok(s) => s,
        Err(e) => return no_screen(e),
    };
    let (counters, stop) = (Counters::default(), AtomicBool::new(false));
    let builder = Builder::new(rule(plan));
    let (file, json, _keep) = match export {
        Some((f, j, k)) => (Some(f), Some(j), k),
        None => (None, None, None),
    };
    let kept = Messages::Kept(Default::default());
    let counts = || counts_of(&counters);
    let shown = browse::view::safe_name(&name);
    let si = plan.units == SizeFormat::human(true);
    let roots = [root.to_vec()];
    let (tree, json, failed, messages) = match json {
        Some(j) => {
            let scan = Scan::new(plan, Tee(builder, j), name, &counters, &stop, kept);
            browse::with_progress(&mut screen, &shown, si, &counts, &stop, || {
                scan.run(|| walk::walk(&roots, &options(plan, true), &scan))
            });
            let failed = scan.failed();
            let messages = take_messages(&scan.messages);
            let (Tee(b, j), complete) = scan.into_sink();
            (complete.then(|| b.finish()), Some(j), failed, messages)
        }
        None => {
            let scan = Scan::new(plan, builder, name, &counters, &stop, kept);
            browse::with_progress(&mut screen, &shown, si, &counts, &stop, || {
                scan.run(|| walk::walk(&roots, &options(plan, true), &scan))
            });
            let failed = scan.failed();
            let messages = take_messages(&scan.messages);
            let (b, complete) = scan.into_sink();
            (complete.then(|| b.finish()), None, failed, messages)
        }
    };
    let tree = match tree {
        Some((tree, Ok(Some(_)))) if !stop.load(Ordering::Relaxed) => tree,
        _ => {
            drop(screen);
            print_messages(&messages);
            cli::msg::error_bytes(&[b"the scan was stopped: nothing to show"]);
            return 1;
        }
    };
    let mut status = u8::from(failed);
    if let (Some(j), Some(f)) = (json, &file) {
        let mut out = j.end();
        out.flush();
        if let Some(e) = out.error() {
            drop(screen);
            cli::msg::error_bytes(&[&cli::quote::file(f), b": ", e.message().as_bytes()]);
            return 1;
        }
    }
    let scanner = Rescanner { plan, counters: Counters::default() };
    let mut app = App::new(tree, config(plan, Some(root.to_vec())));
    browse::browse(&mut screen, &mut app, Some(&scanner));
    drop(screen);
    if !messages.is_empty() {
        print_messages(&messages);
        status = 1;
    }
    status
}

fn counts_of(c: &Counters) -> (u64, u64, u64) {
    (
        c.entries.load(Ordering::Relaxed),
        c.bytes.load(Ordering::Relaxed),
        c.errors.load(Ordering::Relaxed),
    )
}

fn take_messages(m: &Messages) -> Vec<Vec<u8>> {
    match m {
        Messages::Kept(v) => std::mem::take(&mut *ringio::sync::lock(v)),
        Messages::Stderr => Vec::new(),
    }
}

/// What the scan could not read, as du says it, once the terminal is back.
fn print_messages(m: &[Vec<u8>]) {
    for l in m {
        cli::msg::error_bytes(&[l]);
    }
}

/// Rescans for the view, with the scan's rules.
struct Rescanner<'a> {
    plan: &'a Plan,
    counters: Counters,
}

impl browse::Scanner for Rescanner<'_> {
    fn scan(&self, tree: Tree, path: &[u8], stop: &AtomicBool) -> (Tree, Result<Idx, String>) {
        for c in [&self.counters.entries, &self.counters.bytes, &self.counters.errors] {
            c.store(0, Ordering::Relaxed);
        }
        let b = Builder::extending(tree, rule(self.plan));
        let kept = Messages::Kept(Default::default());
        let scan = Scan::new(self.plan, b, path.to_vec(), &self.counters, stop, kept);
        scan.run(|| walk::walk(&[path.to_vec()], &options(self.plan, false), &scan));
        let messages = take_messages(&scan.messages);
        let (b, complete) = scan.into_sink();
        let (tree, got) = b.finish();
        let why = || {
            let first = messages.first().map(|m| String::from_utf8_lossy(m).into_owned());
            first.unwrap_or_else(|| "the scan was stopped".into())
        };
        match got {
            Ok(Some(root)) if complete && !stop.load(Ordering::Relaxed) => (tree, Ok(root)),
            Ok(_) => (tree, Err(why())),
            Err(_) => (tree, Err("more names than the view can hold".into())),
        }
    }

    fn counts(&self) -> (u64, u64, u64) {
        counts_of(&self.counters)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn absolute_paths() {
        assert_eq!(super::absolute(b"/a/b/"), b"/a/b");
        assert_eq!(super::absolute(b"/"), b"/");
        let cwd = std::env::current_dir().unwrap();
        let want = format!("{}/x", cwd.display());
        assert_eq!(super::absolute(b"./x/."), want.as_bytes());
        assert_eq!(super::absolute(b"."), cwd.as_os_str().as_encoded_bytes());
    }
}
