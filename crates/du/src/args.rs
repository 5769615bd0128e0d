//! The command line, parsed as GNU du's getopt_long does: long options may
//! be abbreviated to any unambiguous prefix, short options cluster,
//! options and operands mix (unless POSIXLY_CORRECT). Most mistakes are
//! collected and reported together before GNU's "Try --help" line; a few
//! (bad sizes) end the run at once, as in GNU.

use std::ffi::OsString;

use cli::opts::{Item, Parser, Spelled};
use cli::quote;

use crate::exclude::Exclude;
use crate::plan::{Deref, Operands, Plan, TimeKind};
use crate::timestyle::TimeFormat;
use crate::units;
use crate::usage::{Id, GETOPT_ORDER, OPTIONS};
use cli::argmatch::When;
use cli::locale::tr;
use cli::num::{self, NumError};
use cli::size::SizeFormat;

/// What the command line asks for.
pub type Command = cli::Command<Box<Plan>>;

/// A command-line error in GNU du's words (exit status 1).
pub use cli::BadUsage as ArgError;

/// A message without the "Try" line.
fn fatal(msg: impl Into<Vec<u8>>) -> ArgError {
    ArgError::plain(vec![msg.into()], 1)
}

/// Messages followed by GNU's "Try 'du --help'" line.
fn usage(lines: Vec<Vec<u8>>) -> ArgError {
    ArgError { lines, try_help: true, status: 1 }
}

/// `_(msgid)` with its one `%s` filled in.
fn tr_with(msgid: &'static std::ffi::CStr, arg: &[u8]) -> Vec<u8> {
    cli::locale::trf(msgid, &[arg])
}

fn num_error(e: NumError, opt: &str, arg: &[u8]) -> ArgError {
    fatal(e.message(opt, arg))
}

/// GNU's argmatch ([`cli::argmatch::lookup`]): its report, then "Try".
fn argmatch<T: Copy + PartialEq>(
    arg: &[u8],
    table: &[(&str, T)],
    context: &str,
) -> Result<T, ArgError> {
    cli::argmatch::lookup(arg, table, context).map_err(|m| usage(vec![m]))
}

const TIME_ARGS: &[(&str, TimeKind)] = &[
    ("atime", TimeKind::Atime),
    ("access", TimeKind::Atime),
    ("use", TimeKind::Atime),
    ("ctime", TimeKind::Ctime),
    ("status", TimeKind::Ctime),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Full,
    Long,
    Iso,
}
const STYLE_ARGS: &[(&str, Style)] =
    &[("full-iso", Style::Full), ("long-iso", Style::Long), ("iso", Style::Iso)];

pub use cli::files0::{read_named_file, ReadError};

/// Reads a file named on the command line (`-X FILE`).
pub type FileReader = dyn Fn(&[u8]) -> Result<Vec<u8>, ReadError>;

/// Parses `args` (without the program name); `env` reads the environment,
/// `read_file` the files options name.
#[cfg_attr(ringutils_small, optimize(size))]
pub fn parse(
    args: Vec<OsString>,
    env: &dyn Fn(&str) -> Option<String>,
    read_file: &FileReader,
) -> Result<Command, ArgError> {
    let posix = env("POSIXLY_CORRECT").is_some();
    let mut given = Given::new();
    // getopt complains about each bad option and goes on; GNU du then
    // stops with usage after the loop.
    let mut soft: Vec<Vec<u8>> = Vec::new();
    for item in Parser::from_os(OPTIONS, GETOPT_ORDER, args, posix) {
        match item {
            Item::Operand(v) => given.operands.push(v),
            Item::Error(e) => soft.push(e.message()),
            Item::Opt { id, value, spelled } => {
                if let Some(c) = given.apply(id, value, spelled, read_file, &mut soft)? {
                    return Ok(c);
                }
            }
        }
    }
    if !soft.is_empty() {
        return Err(usage(soft));
    }
    Ok(Command::Run(Box::new(given.into_plan(env)?)))
}

/// What the options said, as given, before their combinations are checked.
struct Given {
    operands: Vec<Vec<u8>>,
    all: bool,
    apparent: bool,
    units: Option<SizeFormat>,
    total: bool,
    max_depth: Option<usize>,
    deref: Deref,
    count_links: bool,
    inodes: bool,
    null: bool,
    separate: bool,
    summarize: bool,
    threshold: i64,
    time: Option<TimeKind>,
    time_style: Option<Vec<u8>>,
    one_fs: bool,
    exclude: Exclude,
    files0: Option<Vec<u8>>,
    output_file: Option<Vec<u8>>,
    browse: crate::plan::Browse,
    json: Option<cli::json::Framing>,
    progress: When,
}

impl Given {
    fn new() -> Given {
        Given {
            operands: Vec::new(),
            all: false,
            apparent: false,
            units: None,
            total: false,
            max_depth: None,
            deref: Deref::Never,
            count_links: false,
            inodes: false,
            null: false,
            separate: false,
            summarize: false,
            threshold: 0,
            time: None,
            time_style: None,
            one_fs: false,
            exclude: Exclude::default(),
            files0: None,
            output_file: None,
            browse: crate::plan::Browse::default(),
            json: None,
            progress: When::Auto,
        }
    }

    /// One option. `Some` ends the parse (`--help`, `--version`); bad
    /// values GNU reports after the loop go to `soft`, those that end the
    /// run at once are the error.
    fn apply(
        &mut self,
        opt: Id,
        value: Option<Vec<u8>>,
        spelled: Spelled,
        read_file: &FileReader,
        soft: &mut Vec<Vec<u8>>,
    ) -> Result<Option<Command>, ArgError> {
        let val = value.clone().unwrap_or_default();
        let text = String::from_utf8_lossy(&val).into_owned();
        match opt {
            Id::Help => return Ok(Some(Command::Help)),
            Id::Version => return Ok(Some(Command::Version)),
            Id::All => self.all = true,
            Id::Apparent => self.apparent = true,
            Id::Bytes => {
                self.apparent = true;
                self.units = Some(SizeFormat::BYTES);
            }
            Id::BlockSize => match cli::size::parse_block_size_checked(&text) {
                Ok(u) => self.units = Some(u),
                Err(e) => return Err(num_error(e, &spelled.shown(), &val)),
            },
            Id::Human => self.units = Some(SizeFormat::human(false)),
            Id::Si => self.units = Some(SizeFormat::human(true)),
            Id::Kilo => self.units = Some(SizeFormat::blocks(1024)),
            Id::Mega => self.units = Some(SizeFormat::blocks(1 << 20)),
            Id::Total => self.total = true,
            Id::MaxDepth => match num::parse_unsigned(&text, "", false) {
                Ok(n) if n.value <= i64::MAX as u64 && !n.no_digits => {
                    self.max_depth = Some(n.value as usize)
                }
                _ => soft.push(tr_with(
                    c"invalid maximum depth %s",
                    &quote::quote(&val, quote::Style::Locale),
                )),
            },
            Id::DerefArgs => self.deref = Deref::Args,
            Id::DerefAll => self.deref = Deref::Always,
            Id::NoDeref => self.deref = Deref::Never,
            Id::CountLinks => self.count_links = true,
            Id::Inodes => self.inodes = true,
            Id::Null => self.null = true,
            Id::Separate => self.separate = true,
            Id::Summarize => self.summarize = true,
            Id::Threshold => match num::parse_signed(&text, "kKmMGTPEZY0", true) {
                Ok(0) if val.first() == Some(&b'-') => {
                    return Err(fatal(tr(c"invalid --threshold argument '-0'")))
                }
                Ok(n) => self.threshold = n,
                Err(e) => return Err(num_error(e, &spelled.shown(), &val)),
            },
            Id::Time => {
                self.time = Some(match &value {
                    None => TimeKind::Mtime,
                    Some(v) => argmatch(v, TIME_ARGS, "--time")?,
                })
            }
            Id::TimeStyle => self.time_style = Some(val),
            Id::OneFs => self.one_fs = true,
            Id::Exclude => self.exclude.add(&val),
            Id::ExcludeFrom => match read_file(&val) {
                Ok(data) => self.exclude.add_lines(&data),
                Err(e) => soft.push(
                    [quote::file(&val).as_slice(), b": ", e.errno().message().as_bytes()].concat(),
                ),
            },
            Id::Files0From => self.files0 = Some(val),
            #[cfg(feature = "mpi")]
            Id::OutputFile => self.output_file = Some(val),
            Id::Browse => self.browse.view = true,
            Id::Export => self.browse.export = Some(val),
            Id::Import => self.browse.import = Some(val),
            Id::ReadOnly => self.browse.read_only = true,
            Id::Json => {
                self.json = Some(match &value {
                    None => cli::json::Framing::Array,
                    Some(v) => argmatch(v, cli::json::Framing::WORDS, "--json")?,
                })
            }
            Id::Progress => {
                self.progress = match &value {
                    None => When::Always,
                    Some(v) => argmatch(v, cli::argmatch::WHEN, "--progress")?,
                }
            }
        }
        Ok(None)
    }

    /// The plan, once the options' combinations are checked as GNU du
    /// checks them after its loop.
    fn into_plan(self, env: &dyn Fn(&str) -> Option<String>) -> Result<Plan, ArgError> {
        let mut warnings = Vec::new();
        let max_depth = self.depth(&mut warnings)?;
        if self.inodes && self.apparent {
            warnings.push(
                tr(c"warning: options --apparent-size and -b are ineffective with --inodes")
                    .to_vec(),
            );
        }
        let time = match self.time {
            None => None,
            Some(kind) => Some((kind, time_format(self.time_style, env)?)),
        };
        check_browse(&self.browse, &self.operands, self.files0.is_some())?;
        if self.json.is_some() && self.browse.any() {
            // Not GNU's options: no catalog has this message.
            return Err(usage(vec![
                b"--json writes du's lines; --browse, --export and --import write none".to_vec(),
            ]));
        }
        let operands = operands(self.operands, self.files0)?;
        let units = self.units.unwrap_or_else(|| units::from_env(env));
        Ok(Plan {
            operands,
            all: self.all,
            apparent: self.apparent,
            units,
            total: self.total,
            max_depth,
            deref: self.deref,
            count_links: self.count_links,
            inodes: self.inodes,
            null: self.null,
            separate_dirs: self.separate,
            threshold: self.threshold,
            time,
            one_file_system: self.one_fs,
            exclude: self.exclude,
            output_file: self.output_file,
            warnings,
            browse: self.browse,
            json: self.json,
            progress: self.progress,
        })
    }

    /// The deepest level printed: `-s` is `-d 0`, and conflicts with
    /// `-a` and with any other `-d`.
    fn depth(&self, warnings: &mut Vec<Vec<u8>>) -> Result<usize, ArgError> {
        if self.all && self.summarize {
            return Err(usage(vec![tr(c"cannot both summarize and show all entries").to_vec()]));
        }
        if !self.summarize {
            return Ok(self.max_depth.unwrap_or(usize::MAX));
        }
        match self.max_depth {
            Some(0) => warnings
                .push(tr(c"warning: summarizing is the same as using --max-depth=0").to_vec()),
            Some(d) => {
                return Err(usage(vec![tr_with(
                    c"warning: summarizing conflicts with --max-depth=%lu",
                    d.to_string().as_bytes(),
                )]))
            }
            None => {}
        }
        Ok(0)
    }
}

/// The combinations `--browse`, `--export` and `--import` allow: one
/// directory scanned (the view and the file have one root, as ncdu's), or
/// a file read instead.
fn check_browse(
    b: &crate::plan::Browse,
    operands: &[Vec<u8>],
    files0: bool,
) -> Result<(), ArgError> {
    let bad = |m: &str| Err(usage(vec![m.as_bytes().to_vec()]));
    if b.import.is_some() {
        if b.export.is_some() {
            return bad("--import and --export cannot be combined");
        }
        if !operands.is_empty() || files0 {
            return bad("--import reads a saved scan: no FILE operands");
        }
    } else if b.any() && (operands.len() > 1 || files0) {
        return bad("--browse and --export scan one directory: give at most one FILE");
    } else if b.view && b.export.as_deref() == Some(b"-") {
        return bad("--browse draws on standard output: --export to a file with it");
    }
    Ok(())
}

/// The operands, or `--files0-from`'s file, which allows none beside it.
fn operands(args: Vec<Vec<u8>>, files0: Option<Vec<u8>>) -> Result<Operands, ArgError> {
    let Some(f) = files0 else {
        return Ok(Operands::Args(args));
    };
    if let Some(first) = args.first() {
        // One message of two lines: GNU names the program once.
        let mut m = tr_with(c"extra operand %s", &quote::quote(first, quote::Style::Locale));
        m.push(b'\n');
        m.extend_from_slice(tr(c"file operands cannot be combined with --files0-from"));
        return Err(usage(vec![m]));
    }
    Ok(Operands::Files0(f))
}

/// The `--time-style` (or `TIME_STYLE`) format. From the environment,
/// `locale` means the default, `posix-` prefixes are dropped and a
/// `+FORMAT` stops at a newline, as GNU du does for ls compatibility.
fn time_format(
    opt: Option<Vec<u8>>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<TimeFormat, ArgError> {
    let style = match opt {
        Some(s) => s,
        None => match env("TIME_STYLE") {
            None => return Ok(TimeFormat::long_iso()),
            Some(s) if s == "locale" => return Ok(TimeFormat::long_iso()),
            Some(s) if s.starts_with('+') => {
                let mut v = s.into_bytes();
                if let Some(nl) = v.iter().position(|&b| b == b'\n') {
                    v.truncate(nl);
                }
                v
            }
            // Only a keyword loses its posix- prefixes: "posix-+FMT" keeps
            // any newline in FMT, as GNU du.
            Some(s) => {
                let mut s = s.as_str();
                while let Some(r) = s.strip_prefix("posix-") {
                    s = r;
                }
                s.as_bytes().to_vec()
            }
        },
    };
    if let Some(f) = style.strip_prefix(b"+") {
        return Ok(TimeFormat(f.to_vec()));
    }
    Ok(match argmatch(&style, STYLE_ARGS, "time style")? {
        Style::Full => TimeFormat::full_iso(),
        Style::Long => TimeFormat::long_iso(),
        Style::Iso => TimeFormat::iso(),
    })
}
