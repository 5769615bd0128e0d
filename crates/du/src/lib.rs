//! ldu: GNU du on a parallel directory walk.
//!
//! Three phases, as every ringutils tool: [`args`] turns the command line
//! into a [`plan::Plan`]; the walk ([`visitor`] over the `walk` crate)
//! gathers and sums sizes, printing each directory once its subtree is
//! done; [`line`] formats. Hard links are counted once per run, as GNU
//! does, even though the walk is parallel ([`links`]).

#![forbid(unsafe_code)]

pub mod args;
pub mod exclude;
pub mod line;
pub mod links;
pub mod plan;
pub mod progress;
pub mod report;
pub mod sink;
pub mod tally;
pub mod timestyle;
pub mod units;
pub mod usage;
pub mod visitor;

use std::ffi::OsString;
use std::io::Write;

use hashbrown::HashSet;

use cli::files0;

use crate::args::{ArgError, Command};
use crate::links::Id;
use crate::plan::{Deref, Operands, Plan};
use crate::progress::Progress;
use crate::report::DuError;
use crate::sink::Sink;
use crate::visitor::{Du, LinkMode, RootSet};

/// Runs ldu with `args` (without the program name); returns the exit status.
pub fn run(args: Vec<OsString>) -> i32 {
    // Under mpirun, before anything is printed: ranks other than 0 go
    // quiet (rank 0 prints everything).
    #[cfg(feature = "mpi")]
    let mut job = walk::dist::Job::init(cli::progname());
    #[cfg(not(feature = "mpi"))]
    let mut job = NoJob;
    let env = |k: &str| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned());
    match args::parse(args, &env, &args::read_named_file) {
        Err(e) => {
            usage_error(&e);
            1
        }
        Ok(Command::Help) => print_and_exit(&usage::help(cli::progname())),
        Ok(Command::Version) => print_and_exit(&usage::version()),
        Ok(Command::Run(plan)) => execute(&plan, &mut job),
    }
}

/// The default build's stand-in for an MPI job: there never is one.
#[cfg(not(feature = "mpi"))]
struct NoJob;

#[cfg(not(feature = "mpi"))]
type Job = NoJob;
#[cfg(feature = "mpi")]
type Job = Option<walk::dist::Job>;

/// What the ranks reading directories for rank 0 can tell in advance of
/// which to descend (rank 0 counts: see `walk::dist`).
#[cfg(feature = "mpi")]
fn hints<'a>(plan: &Plan, excluded: &'a (dyn Fn(&[u8]) -> bool + Sync)) -> walk::dist::Hints<'a> {
    walk::dist::Hints {
        max_depth: usize::MAX,
        xdev: plan.one_file_system,
        follow_all: plan.deref == Deref::Always,
        skip: (!plan.exclude.is_empty()).then_some(excluded),
    }
}

fn print_and_exit(text: &str) -> i32 {
    let mut out = cli::Out::stdout();
    out.write(text.as_bytes());
    if out.finish() {
        0
    } else {
        1
    }
}

fn usage_error(e: &ArgError) {
    let styled = cli::msg::styled_progname();
    let mut s = Vec::new();
    for l in &e.lines {
        s.extend_from_slice(styled.as_bytes());
        s.extend_from_slice(b": ");
        s.extend_from_slice(l);
        s.push(b'\n');
    }
    if e.try_help {
        s.extend_from_slice(&cli::msg::try_help());
    }
    let _ = std::io::stderr().lock().write_all(&s);
}

/// GNU (fts) trims a run of trailing slashes on an operand to one.
fn trim_slashes(mut p: Vec<u8>) -> Vec<u8> {
    if p.len() > 2 && p.ends_with(b"/") {
        while p.len() > 1 && p[p.len() - 2] == b'/' {
            p.pop();
        }
    }
    p
}

fn walk_options(plan: &Plan, ordered: bool) -> walk::Options {
    walk::Options { ordered, follow_roots: plan.deref != Deref::Never, ..walk::Options::default() }
}

type NameErrors = Vec<(usize, DuError)>;

/// The operands, and the errors for unusable names (empty ones, `-` in a
/// list read from stdin), each with the number of good names before it so
/// it is reported in its place.
fn operands(plan: &Plan) -> Result<(Vec<Vec<u8>>, NameErrors), DuError> {
    let mut names = Vec::new();
    let mut errors = Vec::new();
    match &plan.operands {
        Operands::Args(v) if v.is_empty() => names.push(b".".to_vec()),
        Operands::Args(v) => {
            for a in v {
                if a.is_empty() {
                    errors.push((names.len(), DuError::EmptyOperand));
                } else {
                    names.push(trim_slashes(a.clone()));
                }
            }
        }
        Operands::Files0(list) => {
            let data = args::read_named_file(list).map_err(|e| match e {
                args::ReadError::Open(errno) => DuError::Files0Open { list: list.clone(), errno },
                args::ReadError::Read(errno) => DuError::Files0Read { list: list.clone(), errno },
            })?;
            let stdin = list == b"-";
            for n in files0::split(&data, stdin) {
                match n {
                    files0::Name::Ok(p) => names.push(trim_slashes(p)),
                    files0::Name::Empty(i) => {
                        errors.push((names.len(), DuError::EmptyName { list: list.clone(), n: i }))
                    }
                    files0::Name::StdinDash => errors.push((names.len(), DuError::StdinDash)),
                }
            }
        }
    }
    Ok((names, errors))
}

/// The (dev, ino) of non-directory operands, which another operand's walk
/// may meet: with several operands GNU counts such a file once.
fn root_ids(roots: &[Vec<u8>], follow: bool) -> HashSet<Id> {
    let mut ids = HashSet::new();
    for r in roots {
        let Ok(c) = std::ffi::CString::new(r.as_slice()) else { continue };
        let mut st = ringio::sys::statx_zeroed();
        let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
        let mask = libc::STATX_TYPE | libc::STATX_INO;
        if ringio::sys::statx(libc::AT_FDCWD, &c, flags, mask, &mut st).is_ok()
            && st.stx_mode as u32 & libc::S_IFMT != libc::S_IFDIR
        {
            ids.insert(ringio::DevIno::of(&st));
        }
    }
    ids
}

fn execute(plan: &Plan, job: &mut Job) -> i32 {
    #[cfg(feature = "mpi")]
    let excluded = |p: &[u8]| plan.exclude.matches(p);
    // A job of one rank is the single-process tool, but its ordered walk
    // (-L) is faster as a parallel walk replayed in order
    // (`Job::init_alone`).
    #[cfg(feature = "mpi")]
    if job.is_none() && plan.deref == Deref::Always && !plan.count_links {
        *job = walk::dist::Job::init_alone(cli::progname());
    }
    #[cfg(feature = "mpi")]
    if let Some(j) = job.as_mut() {
        // Before anything rank 0 alone does (reading --files0-from's list
        // from stdin) can fail and leave the others waiting.
        if !j.start(true) {
            return 1;
        }
        if !j.is_root() {
            let sink = Sink::new(cli::Out::stdout(), false);
            let set = RootSet {
                mode: LinkMode::Sequential,
                hash_all: false,
                root_ids: HashSet::new(),
                name_errors: Vec::new(),
                count: 0,
            };
            let du = Du::new(plan, &sink, None, set);
            j.serve(&walk_options(plan, false), &hints(plan, &excluded), &du);
            return 0;
        }
    }
    for w in &plan.warnings {
        cli::msg::error_bytes(&[w]);
    }
    let (roots, name_errors) = match operands(plan) {
        Ok(x) => x,
        Err(e) => {
            cli::msg::error_bytes(&[&e.message()]);
            return 1;
        }
    };
    // One descriptor per directory level is held open while walking: let
    // deep trees use the hard limit, not a 1024 soft limit.
    libcw::rlimit::raise_nofile();
    // Under MPI rank 0 replays the walk sequentially (`walk::dist`): the
    // first link met counts, as in GNU's own walk.
    #[cfg(feature = "mpi")]
    let replayed = job.is_some();
    #[cfg(not(feature = "mpi"))]
    let replayed = false;
    let sequential = (plan.deref == Deref::Always || replayed) && !plan.count_links;
    let mode = if plan.count_links {
        LinkMode::CountAll
    } else if sequential {
        LinkMode::Sequential
    } else {
        LinkMode::Parallel
    };
    let several = roots.len() > 1 || matches!(plan.operands, Operands::Files0(_));
    let hash_all = several || plan.deref == Deref::Always;
    let ids = if several && mode != LinkMode::CountAll {
        root_ids(&roots, plan.deref != Deref::Never)
    } else {
        HashSet::new()
    };
    if plan.time.is_some() {
        // Once, before threads format times.
        libcw::time::tzset();
    }
    let sink = match &plan.output_file {
        None => Sink::new(cli::Out::stdout(), libcw::isatty(1)),
        Some(name) => {
            use std::os::unix::ffi::OsStrExt;
            match std::fs::File::create(std::ffi::OsStr::from_bytes(name)) {
                Ok(f) => Sink::to_file(name.clone(), f),
                Err(e) => {
                    let errno = ringio::Errno(e.raw_os_error().unwrap_or(libc::EIO));
                    let head =
                        cli::locale::trf(c"cannot open %s for writing", &[&cli::quote::file(name)]);
                    cli::msg::error_bytes(&[&head, b": ", errno.message().as_bytes()]);
                    return 1;
                }
            }
        }
    };
    let tty = plan.output_file.is_none() && libcw::isatty(1);
    line::set_qmark(tty);
    let progress = libcw::isatty(2).then(Progress::default);
    let opts = walk_options(plan, sequential);
    let set = RootSet { mode, hash_all, root_ids: ids, name_errors, count: roots.len() };
    let du = Du::new(plan, &sink, progress.as_ref(), set);
    std::thread::scope(|s| {
        // No progress line if its thread can't be started (`ulimit -u`):
        // Scope::spawn would panic.
        let mut shown = None;
        if let Some(p) = &progress {
            let sink = &sink;
            let b = std::thread::Builder::new().name("du-progress".into());
            if b.spawn_scoped(s, move || p.run(sink)).is_ok() {
                shown = Some(p);
            }
        }
        #[cfg(feature = "mpi")]
        let walked = job.as_mut().map(|j| j.walk(&roots, &opts, &hints(plan, &excluded), &du));
        #[cfg(not(feature = "mpi"))]
        let walked: Option<()> = {
            let _ = &job;
            None
        };
        if walked.is_none() {
            walk::walk(&roots, &opts, &du);
        }
        if let Some(p) = shown {
            p.stop();
        }
    });
    du.end_walk();
    du.flush_name_errors(usize::MAX);
    // The total only once every rank is known to have finished its part.
    #[cfg(feature = "mpi")]
    if let Some(j) = job.as_mut() {
        j.finish();
    }
    if plan.total {
        let mut lines = Vec::new();
        line::push(&mut lines, plan, &du.grand_total(), cli::locale::tr(c"total"));
        sink.write(&mut lines);
    }
    let ok = sink.finish();
    if du.failed() || !ok {
        1
    } else {
        0
    }
}
