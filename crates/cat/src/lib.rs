//! lcat: GNU cat 9.1's behaviour on the ringio engine.
//!
//! Three phases as in every ringutils tool: [`args`] turns the command line
//! into a plan; [`copy`] moves the bytes (zero-copy where the kernel allows,
//! see its module docs); [`format`] is the pure state machine for -b -E -n
//! -s -T -v, unit-tested without any file system.
//! With several operands, [`ahead`] reads the next small regular files
//! ahead, many at once, and the copy loop takes their bytes in order.
// The small build (xtask/src/small.rs) sizes start-up code for size.
#![cfg_attr(ringutils_small, feature(optimize_attribute))]
#![forbid(unsafe_code)]

mod ahead;
pub mod args;
mod copy;
mod error;
mod format;

use std::ffi::OsString;

use ahead::{Ahead, Taken};
use args::Plan;
use cli::{BadUsage, Command, Exit, Tool};
use copy::{Cat, FinishError};
use error::{Error, Fatal};
use libcw::sigpipe;
use ringio::Errno;

/// Runs lcat with these arguments (after the program name).
pub fn run(args: Vec<OsString>) -> Exit {
    cli::command::run(&mut Lcat, args)
}

struct Lcat;

impl Tool for Lcat {
    type Plan = Plan;
    #[cfg_attr(ringutils_small, optimize(size))]
    fn parse(&mut self, args: Vec<OsString>) -> Result<Command<Plan>, BadUsage> {
        args::parse(args).map_err(|e| e.bad_usage(1))
    }
    fn help(&self) -> String {
        args::doc().help(cli::progname())
    }
    fn version(&self) -> String {
        // The copy loop is one dependent chain (see copy::engine).
        args::doc().version(ringio::Workload::Chain)
    }
    fn execute(&mut self, plan: Plan) -> Exit {
        Exit(concatenate(&plan))
    }
}

/// Copies every operand in order; a failing operand is reported and the
/// rest still copied; a write error ends the run.
fn concatenate(plan: &Plan) -> u8 {
    let mut cat = match Cat::new(plan.format, copy::engine()) {
        Ok(c) => c,
        Err(f) => return fatal(&f),
    };
    let mut ahead = Ahead::new(&plan.operands, cat.output_id());
    let mut status = 0;
    for (i, name) in plan.operands.iter().enumerate() {
        let taken = match ahead.as_mut() {
            Some(a) => a.take(i),
            None => Taken::InOrder,
        };
        let r = match taken {
            Taken::InOrder => cat.operand(name),
            Taken::Whole(buf, err) => {
                let r = cat.whole(name, &buf, err);
                if let Some(a) = ahead.as_mut() {
                    a.recycle(buf);
                }
                r
            }
            Taken::Partial(buf, fd) => cat.partial(name, &buf, fd),
        };
        match r {
            Ok(()) => {}
            Err(Error::File(e)) => {
                // Formatted output still pending goes first, so the message
                // lands after the data it follows (and a write error is met
                // before it, as GNU meets it).
                if let Err(w) = cat.flush() {
                    return fatal(&Fatal::Write(w));
                }
                cli::msg::error_bytes(&[&e.message()]);
                status = 1;
            }
            Err(Error::Fatal(f)) => return fatal(&f),
        }
    }
    match cat.finish() {
        Ok(()) => status,
        Err(FinishError::Fatal(f)) => fatal(&f),
        Err(FinishError::CloseStdin(e)) => {
            cli::msg::error_bytes(&[&error::with_errno(c"closing standard input", e)]);
            1
        }
    }
}

/// Reports a fatal error. A write into a closed pipe ends the process by
/// SIGPIPE, silently, as GNU cat does — unless the parent ignored SIGPIPE,
/// in which case it is an ordinary write error.
fn fatal(f: &Fatal) -> u8 {
    if *f == Fatal::Write(Errno::EPIPE) && !sigpipe::ignored_at_start() {
        sigpipe::die();
    }
    cli::msg::error_bytes(&[&f.message()]);
    1
}
