//! One shape for every tool's command line: arguments → [`Command`] (or a
//! [`BadUsage`] carrying GNU's bytes) → an [`Exit`] status.
//!
//! Each tool implements [`Tool`]; its crate's `run(args)` is
//! `cli::command::run(&mut tool, args)`, and its binary is one
//! [`main!`](crate::main) line. So help, version, usage errors and the
//! failure status are handled in one place, the same way for all four.

use std::ffi::OsString;
use std::io::Write;

/// What a command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command<P> {
    /// `--help` (lfind: `-help`): the tool's help text.
    Help,
    /// `--version` (lfind: `-version`).
    Version,
    /// Some other text to print instead of running (lfind's `-D help`).
    Print(String),
    /// Do the tool's work.
    Run(P),
}

/// A command line that can't run: GNU's message lines, printed each as
/// `prog: LINE`, then (`try_help`) GNU's "Try 'prog --help'" line; the run
/// ends with `status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadUsage {
    pub lines: Vec<Vec<u8>>,
    pub try_help: bool,
    pub status: u8,
}

impl BadUsage {
    /// One message followed by the "Try" line (GNU's usage error).
    pub fn with_help(line: impl Into<Vec<u8>>, status: u8) -> BadUsage {
        BadUsage { lines: vec![line.into()], try_help: true, status }
    }

    /// Messages without the "Try" line.
    pub fn plain(lines: Vec<Vec<u8>>, status: u8) -> BadUsage {
        BadUsage { lines, try_help: false, status }
    }

    /// The bytes written to stderr, in one piece.
    pub fn text(&self) -> Vec<u8> {
        let prog = crate::progname().as_bytes();
        let mut s = Vec::new();
        for l in &self.lines {
            s.extend_from_slice(prog);
            s.extend_from_slice(b": ");
            s.extend_from_slice(l);
            s.push(b'\n');
        }
        if self.try_help {
            s.extend_from_slice(&crate::msg::try_help());
        }
        s
    }
}

/// A process exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit(pub u8);

impl Exit {
    pub const SUCCESS: Exit = Exit(0);
    pub const FAILURE: Exit = Exit(1);

    /// Success when `ok`, else `failure`.
    pub fn from_ok(ok: bool, failure: u8) -> Exit {
        Exit(if ok { 0 } else { failure })
    }

    pub fn code(self) -> i32 {
        i32::from(self.0)
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(e: Exit) -> Self {
        std::process::ExitCode::from(e.0)
    }
}

/// A tool, as [`run`] drives it.
pub trait Tool {
    /// What a command line that runs becomes.
    type Plan;
    /// The status of trouble outside the tool's own work: a `--help` that
    /// can't be written, memory exhausted (GNU ls: 2; the others 1).
    const FAILURE: u8 = 1;
    fn parse(&mut self, args: Vec<OsString>) -> Result<Command<Self::Plan>, BadUsage>;
    /// The `--help` text (in GNU's layout, in our words).
    fn help(&self) -> String;
    fn version(&self) -> String;
    fn execute(&mut self, plan: Self::Plan) -> Exit;
}

/// Parses `args` (without the program name) and does what they ask.
#[cfg_attr(ringutils_small, optimize(size))]
pub fn run<T: Tool>(tool: &mut T, args: Vec<OsString>) -> Exit {
    libcw::mem::set_oom_status(i32::from(T::FAILURE));
    match tool.parse(args) {
        Err(e) => {
            let _ = std::io::stderr().lock().write_all(&e.text());
            Exit(e.status)
        }
        Ok(Command::Help) => print(&tool.help(), T::FAILURE),
        Ok(Command::Version) => print(&tool.version(), T::FAILURE),
        Ok(Command::Print(text)) => print(&text, T::FAILURE),
        Ok(Command::Run(plan)) => tool.execute(plan),
    }
}

/// Writes `text` to standard output; `failure` if that fails (GNU's
/// close_stdout reports it).
fn print(text: &str, failure: u8) -> Exit {
    let mut out = crate::Out::stdout();
    out.write(text.as_bytes());
    Exit::from_ok(out.finish(), failure)
}

/// A tool's binary: the start-up hook and a C `main` that sets the process
/// up ([`crate::init`]) and returns `$run(args)`'s status. Use in a
/// binary with `#![no_main]`:
///
/// ```ignore
/// #![no_main]
/// cli::main!("lsr", Coreutils, ls::run);
/// ```
///
/// A C `main` rather than Rust's: std's own start-up (stack guard, signal
/// stack, descriptor checks) costs 24 system calls a run here, a quarter
/// of a small listing's on the ring, and nothing in the tools needs it.
/// Arguments and the environment still work (std reads them from the C
/// runtime on Linux). The start hook runs `libcw::at_start` from
/// `.init_array`, before anything else: it records SIGPIPE's inherited
/// disposition (see `libcw::sigpipe`) and occupies closed standard
/// descriptors, so that `>&-` fails as GNU's does instead of writing into
/// whatever the tool opens first (see `libcw::stdfds`).
#[macro_export]
macro_rules! main {
    ($name:literal, $domain:ident, $run:path) => {
        #[used]
        #[link_section = ".init_array"]
        static START_HOOK: extern "C" fn() = $crate::__libcw::at_start;

        #[unsafe(no_mangle)]
        extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
            $crate::init($name, $crate::locale::Domain::$domain);
            $run(::std::env::args_os().skip(1).collect()).code()
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo {
        ran: Option<String>,
    }

    impl Tool for Echo {
        type Plan = String;
        const FAILURE: u8 = 2;
        fn parse(&mut self, args: Vec<OsString>) -> Result<Command<String>, BadUsage> {
            match args.first().and_then(|a| a.to_str()) {
                Some("--help") => Ok(Command::Help),
                Some("--version") => Ok(Command::Version),
                Some("--bad") => Err(BadUsage::with_help("unrecognized option '--bad'", 2)),
                Some(x) => Ok(Command::Run(x.to_string())),
                None => Err(BadUsage::plain(vec![b"one".to_vec(), b"two".to_vec()], 1)),
            }
        }
        fn help(&self) -> String {
            "help\n".into()
        }
        fn version(&self) -> String {
            "v\n".into()
        }
        fn execute(&mut self, plan: String) -> Exit {
            self.ran = Some(plan);
            Exit(3)
        }
    }

    #[test]
    fn dispatches_and_reports() {
        let p = crate::progname();
        let mut t = Echo { ran: None };
        assert_eq!(run(&mut t, vec!["x".into()]), Exit(3));
        assert_eq!(t.ran.as_deref(), Some("x"));
        assert_eq!(run(&mut t, vec!["--bad".into()]), Exit(2));
        assert_eq!(run(&mut t, vec![]), Exit(1));
        let e = BadUsage::plain(vec![b"one".to_vec(), b"two".to_vec()], 1);
        assert_eq!(e.text(), format!("{p}: one\n{p}: two\n").into_bytes());
        let e = BadUsage::with_help(b"bad".to_vec(), 2);
        let want = format!("{p}: bad\nTry '{p} --help'");
        assert!(e.text().starts_with(want.as_bytes()), "{:?}", e.text());
        assert_eq!(Exit::from_ok(false, 2), Exit(2));
        assert_eq!(Exit::from_ok(true, 2).code(), 0);
    }
}
