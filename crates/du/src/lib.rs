//! ldu: GNU du on a parallel directory walk.
//!
//! Three phases, as every ringutils tool: [`args`] turns the command line
//! into a [`plan::Plan`]; the walk ([`visitor`] over the `walk` crate)
//! gathers and sums sizes, printing each directory once its subtree is
//! done; [`line`] formats. Hard links are counted once per run, as GNU
//! does, even though the walk is parallel ([`links`]).
// The small build (xtask/src/small.rs) sizes start-up code for size.
#![cfg_attr(ringutils_small, feature(optimize_attribute))]
#![forbid(unsafe_code)]

mod args;
mod exclude;
mod export;
mod import;
mod line;
mod links;
mod plan;
mod progress;
mod report;
mod scan;
mod sink;
mod tally;
mod timestyle;
mod units;
pub mod usage;
mod view;
mod visitor;

use std::ffi::OsString;

use hashbrown::HashSet;

use cli::{files0, BadUsage, Exit, Tool};

use crate::links::Id;
use crate::plan::{Deref, Operands, Plan};
use crate::progress::Progress;
use crate::report::DuError;
use crate::sink::Sink;
use crate::visitor::{Du, LinkMode, RootSet};
use cli::argmatch::When;

/// Runs ldu with `args` (without the program name).
pub fn run(args: Vec<OsString>) -> Exit {
    // Under mpirun, before anything is printed: ranks other than 0 go
    // quiet (rank 0 prints everything).
    let job = walk::Job::join(cli::progname());
    cli::command::run(&mut Ldu { job }, args)
}

struct Ldu {
    job: walk::Job,
}

impl Tool for Ldu {
    type Plan = Box<Plan>;

    #[cfg_attr(ringutils_small, optimize(size))]
    fn parse(&mut self, args: Vec<OsString>) -> Result<cli::Command<Box<Plan>>, BadUsage> {
        let env = |k: &str| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned());
        args::parse(args, &env, &args::read_named_file)
    }

    fn help(&self) -> String {
        usage::doc().help(cli::progname())
    }

    fn version(&self) -> String {
        usage::doc().version(ringio::Workload::Batches)
    }

    fn execute(&mut self, plan: Box<Plan>) -> Exit {
        Exit(execute(&plan, &mut self.job))
    }
}

/// What the ranks reading directories for rank 0 can tell in advance of
/// which to descend (rank 0 counts: see `walk::Job`).
pub(crate) fn hints<'a>(plan: &Plan, excluded: walk::PathTest<'a>) -> walk::Hints<'a> {
    walk::Hints {
        max_depth: usize::MAX,
        xdev: plan.one_file_system,
        follow_all: plan.deref == Deref::Always,
        skip: (!plan.exclude.is_empty()).then_some(excluded),
    }
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

/// A helper rank's part of an MPI job: walks what it is given, for the
/// counts rank 0 prints.
fn serve(plan: &Plan, job: &mut walk::Job, hints: &walk::Hints<'_>) {
    let sink = Sink::new(cli::Out::stdout(), false);
    let set = RootSet {
        mode: LinkMode::Sequential,
        hash_all: false,
        root_ids: HashSet::new(),
        name_errors: Vec::new(),
        count: 0,
    };
    let du = Du::new(plan, &sink, None, set);
    job.serve(&walk_options(plan, false), hints, &du);
}

/// How hard links are counted across the operands: which rule, and the
/// operands' own identities when several could hold the same file.
fn root_set(plan: &Plan, roots: &[Vec<u8>], name_errors: NameErrors, sequential: bool) -> RootSet {
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
        root_ids(roots, plan.deref != Deref::Never)
    } else {
        HashSet::new()
    };
    RootSet { mode, hash_all, root_ids: ids, name_errors, count: roots.len() }
}

/// Where the lines go: standard output, or the `--output-file` (None, the
/// message printed, when it can't be created).
fn output(plan: &Plan) -> Option<Sink> {
    let Some(name) = &plan.output_file else {
        return Some(Sink::new(cli::Out::stdout(), libcw::isatty(1)).json(plan.json));
    };
    use std::os::unix::ffi::OsStrExt;
    match std::fs::File::create(std::ffi::OsStr::from_bytes(name)) {
        Ok(f) => Some(Sink::to_file(name.clone(), f).json(plan.json)),
        Err(e) => {
            let errno = ringio::Errno(e.raw_os_error().unwrap_or(libc::EIO));
            let head = cli::locale::trf(c"cannot open %s for writing", &[&cli::quote::file(name)]);
            cli::msg::error_bytes(&[&head, b": ", errno.message().as_bytes()]);
            None
        }
    }
}

fn execute(plan: &Plan, job: &mut walk::Job) -> u8 {
    if plan.browse.any() {
        return view::execute(plan, job);
    }
    let excluded = |p: &[u8]| plan.exclude.matches(p);
    let hints = hints(plan, &excluded);
    // -L walks in GNU's order (see `walk::Job::start`).
    let ordered = plan.deref == Deref::Always && !plan.count_links;
    match job.start(cli::progname(), ordered, true) {
        walk::Role::Main => {}
        walk::Role::Failed => return 1,
        walk::Role::Helper => {
            serve(plan, job, &hints);
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
    // Under MPI rank 0 replays the walk sequentially: the first link met
    // counts, as in GNU's own walk.
    let sequential = (plan.deref == Deref::Always || job.replays()) && !plan.count_links;
    let set = root_set(plan, &roots, name_errors, sequential);
    if plan.time.is_some() {
        // Once, before threads format times.
        libcw::time::tzset();
    }
    let Some(sink) = output(plan) else { return 1 };
    let tty = plan.output_file.is_none() && libcw::isatty(1);
    line::set_qmark(tty);
    let tty2 = libcw::isatty(2);
    let progress = match plan.progress {
        When::Never => None,
        When::Auto if !tty2 => None,
        _ => Some(Progress::new(if tty2 { libcw::terminal_width(2).unwrap_or(0) } else { 0 })),
    };
    let opts = walk_options(plan, sequential);
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
        job.walk(&roots, &opts, &hints, &du);
        if let Some(p) = shown {
            p.stop();
        }
    });
    du.end_walk();
    du.flush_name_errors(usize::MAX);
    // The total only once every rank is known to have finished its part.
    job.finish();
    if plan.total {
        let mut lines = Vec::new();
        line::push_total(&mut lines, plan, &du.grand_total());
        sink.write(&mut lines);
    }
    let ok = sink.finish();
    if du.failed() || !ok {
        1
    } else {
        0
    }
}
