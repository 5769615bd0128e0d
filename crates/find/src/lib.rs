//! lfind: GNU find's command line and expression language, evaluated on the
//! parallel walker (`walk`) over the ringio engine.
//!
//! Phases: [`parse`] turns the arguments into a [`parse::Plan`] (expression
//! tree, options, opened output files); [`eval`] is the walk visitor, which
//! decides per entry whether a stat is needed (partial evaluation on the
//! name and d_type), evaluates, and buffers output per thread; [`printf`],
//! [`exec`], [`perm`], [`datetime`] (-newerXt dates), [`regex`] (glibc's
//! engine) hold the pieces; shell patterns are `cli::glob`'s.
//!
//! Ordering: the walk is parallel by default, so records from different
//! subtrees may interleave differently from GNU's (each record stays whole).
//! Where order is part of the meaning the walk is ordered (one thread,
//! GNU's depth-first order): `-quit`, `-ls`/`-fls` (their column widths
//! depend on the lines before), `-ok`/`-okdir`, `-exec … ;` and
//! `-execdir` (commands run one at a time, in GNU's sequence, their output
//! interleaved with ours as GNU's is), `-depth`/`-delete` when anything is
//! printed (children before parents in the output too), `-s`, and `-j 1`.
//! `-exec … {} +` batches are shared by the threads (one mutex) and run one
//! at a time.
//!
//! Stats: an entry is stat'ed only when the expression can need it, decided
//! by partial evaluation on what getdents gave (`-name X -size +4k` stats
//! only the entries named X); -L also stats links and directories (loop
//! detection), -xdev directories. Anything needed later (birth time,
//! -xtype's other stat, lazily after a wrong guess) is a dirfd-relative
//! statx of its own.
//!
//! Known deviations from GNU find 4.9: `A , B` is worth B's value, as
//! GNU's manual says, where GNU's optimiser swaps the operands of `,` when
//! B is cheaper (`find . -mtime -1 , -name '*.c'` prints what -mtime
//! matched, even with -O0); birth time (`-newerB*`,
//! `%B`) works where GNU's build here says the system lacks it; `\c` in
//! -printf doesn't flush (records stay whole across threads); in a parallel walk a message follows the output of its
//! own thread only (GNU's order, everything printed before it first, holds
//! single-threaded); `-context` is refused without SELinux, as GNU does,
//! and matches the `security.selinux` attribute where it is on; `-D`
//! flags other than `help` are accepted without GNU's diagnostics (they
//! trace GNU's own optimiser and fts).
//!
//! User and group names come from `cli::users` (name service only, cached
//! per walker thread); `timefmt` is find's layer over `cli::timefmt`.
// The small build (xtask/src/small.rs) sizes start-up code for size.
#![cfg_attr(ringutils_small, feature(optimize_attribute))]
#![forbid(unsafe_code)]

mod datetime;
mod eval;
mod exec;
mod expr;
#[cfg(test)]
mod gnu_answers;
mod parse;
mod perm;
pub mod primaries;
mod printf;
mod regex;
mod timefmt;

use std::ffi::OsString;

use cli::{BadUsage, Command, Exit, Tool};
use expr::Prim;
use parse::{Follow, ParseError, Plan};

/// Whether the walk must be single-threaded and in GNU's order.
fn needs_order(plan: &Plan) -> bool {
    let e = &plan.expr;
    let prints = e.any(&|p| {
        matches!(
            p,
            Prim::Print { .. }
                | Prim::Printf { .. }
                | Prim::Ls { .. }
                | Prim::Json { .. }
                | Prim::Exec(_)
        )
    });
    plan.sort
        || plan.threads == 1
        || e.any(&|p| matches!(p, Prim::Quit))
        // -ls/-fls widen their columns after a wider value and keep them
        // wide, so each line depends on those before it: GNU's order.
        || e.any(&|p| matches!(p, Prim::Ls { .. }))
        || plan.execs.iter().any(|x| !x.plus || x.ok || x.dir)
        || (plan.depth_first && prints)
}

/// Runs lfind with `args` (without `argv[0]`).
pub fn run(args: Vec<OsString>) -> Exit {
    // Under mpirun, before anything is printed: ranks other than 0 go
    // quiet (rank 0 prints everything).
    let job = walk::Job::join(cli::progname());
    cli::command::run(&mut Lfind { job }, args)
}

struct Lfind {
    job: walk::Job,
}

/// A command line that walks: the plan, and the warnings GNU prints before
/// the walk.
struct Search {
    plan: Plan,
    warnings: Vec<String>,
}

impl Tool for Lfind {
    type Plan = Search;

    fn parse(&mut self, args: Vec<OsString>) -> Result<Command<Search>, BadUsage> {
        match parse::parse(args) {
            Ok((plan, warnings)) => Ok(Command::Run(Search { plan, warnings })),
            Err(ParseError::Help) => Ok(Command::Help),
            Err(ParseError::Version) => Ok(Command::Version),
            Err(ParseError::Print(text)) => Ok(Command::Print(text)),
            Err(ParseError::Msg(m)) => Err(BadUsage::plain(vec![m.into_bytes()], 1)),
            Err(ParseError::Msgs(v)) => {
                Err(BadUsage::plain(v.into_iter().map(String::into_bytes).collect(), 1))
            }
        }
    }

    fn help(&self) -> String {
        primaries::help(cli::progname())
    }

    fn version(&self) -> String {
        cli::opts::version("lfind", "find", ringio::Workload::Batches)
    }

    fn execute(&mut self, s: Search) -> Exit {
        Exit(search(s.plan, &s.warnings, &mut self.job))
    }
}

fn search(mut plan: Plan, warnings: &[String], job: &mut walk::Job) -> u8 {
    for w in warnings {
        cli::msg::error(w);
    }
    match job.start(cli::progname(), needs_order(&plan), true) {
        walk::Role::Main => {}
        walk::Role::Failed => return 1,
        walk::Role::Helper => {
            let finder = eval::Finder::new(&plan);
            job.serve(&walk_options(&plan), &hints(&plan), &finder);
            return 0;
        }
    }
    // -files0-from: the starting points, and where the list's empty names
    // fall among them (each is reported when the walk reaches it).
    let mut list_errors: Vec<(usize, String)> = Vec::new();
    if let Some(list) = &plan.files0 {
        if plan.execs.iter().any(|x| x.ok) {
            if let Some(m) = list_is_stdin(list) {
                cli::msg::error(&m);
                return 1;
            }
        }
        match read_start_list(list) {
            Ok((roots, errors)) => {
                plan.roots = roots;
                list_errors = errors;
            }
            Err(m) => {
                cli::msg::error(&m);
                return 1;
            }
        }
    }
    libcw::time::tzset();
    libcw::signal::catch_signals();
    let finder = eval::Finder::new(&plan);
    let opts = walk_options(&plan);
    // Roots are walked one after another anyway: cut the list where an
    // error is due, so it comes out between the right starting points.
    let mut from = 0;
    let mut list_failed = false;
    let end = (plan.roots.len(), String::new());
    for (at, msg) in list_errors.iter().chain([&end]) {
        if *at > from && !finder.quitting() {
            let roots = &plan.roots[from..*at];
            job.walk(roots, &opts, &hints(&plan), &finder);
            from = *at;
        }
        if !msg.is_empty() && !finder.quitting() {
            cli::msg::error(msg);
            list_failed = true;
        }
    }
    // Every rank done (or the job aborted, saying so) before the status.
    job.finish();
    let mut ok = !finder.failed() && !list_failed;
    if !libcw::signal::interrupted() {
        for x in &plan.execs {
            if x.plus && !x.flush() {
                ok = false;
            }
        }
    }
    ok &= finder.finish_outputs();
    if libcw::signal::interrupted() {
        libcw::signal::die_of_signal();
    }
    u8::from(!ok)
}

fn walk_options(plan: &Plan) -> walk::Options {
    walk::Options {
        threads: plan.threads,
        engine: ringio::Config::default(),
        ordered: needs_order(plan),
        sort: plan.sort,
        follow_roots: plan.follow != Follow::Never,
    }
}

/// What the ranks reading directories for rank 0 can tell in advance of
/// which to descend (rank 0 evaluates the expression: see `walk::Job`).
fn hints(plan: &Plan) -> walk::Hints<'static> {
    walk::Hints {
        max_depth: plan.maxdepth,
        xdev: plan.xdev,
        follow_all: plan.follow == Follow::Always,
        skip: None,
    }
}

/// -ok and -okdir read their answers from standard input: a
/// `-files0-from` list that is standard input under another name (`FILE <
/// FILE`, a link to it, `/dev/stdin`) is refused as GNU refuses it, by
/// comparing the opened list's (dev, ino) with standard input's. The
/// message, or None (a list that can't be opened is reported when read;
/// `-` itself was refused while parsing).
fn list_is_stdin(list: &[u8]) -> Option<String> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    if list == b"-" {
        return None;
    }
    let f = std::fs::File::open(std::ffi::OsStr::from_bytes(list)).ok()?;
    let id = |fd| ringio::sys::fstatx(fd, libc::STATX_INO).ok().map(|st| ringio::DevIno::of(&st));
    let file = id(f.as_raw_fd())?;
    if id(0)? != file {
        return None;
    }
    let why = cli::locale::tr_str(
        c"option -files0-from: standard input must not refer to the same file when combined with -ok, -okdir",
    );
    // GNU's format ends in a newline of its own, before error()'s.
    Some(format!("{why}: {}\n", parse::quoted(list)))
}

/// A `-files0-from` list read: the starting points, and for each empty
/// name the message and how many starting points come before it.
type StartList = (Vec<Vec<u8>>, Vec<(usize, String)>);

/// Reads a `-files0-from` list; Err is the message for a list that can't
/// be opened or read.
fn read_start_list(list: &[u8]) -> Result<StartList, String> {
    let shown = if list == b"-" {
        "'(standard input)'".to_string()
    } else {
        String::from_utf8_lossy(&cli::quote::quote(list, cli::quote::Style::Locale)).into_owned()
    };
    let data = cli::files0::read_named_file(list).map_err(|e| match e {
        cli::files0::ReadError::Open(errno) => {
            let head = cli::locale::trf(c"cannot open %s for reading", &[shown.as_bytes()]);
            format!("{}: {}", String::from_utf8_lossy(&head), errno.message())
        }
        cli::files0::ReadError::Read(errno) => {
            let head = cli::locale::trf(c"%s: read error", &[shown.as_bytes()]);
            format!("{}: {}", String::from_utf8_lossy(&head), errno.message())
        }
    })?;
    let mut roots = Vec::new();
    let mut errors = Vec::new();
    // `-` in the list is a file named `-`, even when the list is stdin.
    for name in cli::files0::split(&data, false) {
        match name {
            cli::files0::Name::Ok(p) => roots.push(p),
            cli::files0::Name::Empty(n) => {
                let why = cli::locale::tr_str(c"invalid zero-length file name");
                errors.push((roots.len(), format!("{shown}:{n}: {why}")))
            }
            cli::files0::Name::StdinDash => roots.push(b"-".to_vec()),
        }
    }
    Ok((roots, errors))
}
