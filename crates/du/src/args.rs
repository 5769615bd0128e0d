//! The command line, parsed as GNU du's getopt_long does: long options may
//! be abbreviated to any unambiguous prefix, short options cluster,
//! options and operands mix (unless POSIXLY_CORRECT). Most mistakes are
//! collected and reported together before GNU's "Try --help" line; a few
//! (bad sizes) end the run at once, as in GNU.

use std::ffi::OsString;

use cli::opts::{Item, Parser};
use cli::quote;

use crate::exclude::Exclude;
use crate::plan::{Deref, Operands, Plan, TimeKind};
use crate::timestyle::TimeFormat;
use crate::units;
use crate::usage::{Id, GETOPT_ORDER, OPTIONS};
use cli::locale::tr;
use cli::num::{self, NumError};
use cli::size::SizeFormat;

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    Run(Box<Plan>),
    Help,
    Version,
}

/// A command-line error: messages for stderr (each after the program
/// name; lines within one go out as they are), and whether GNU's "Try 'du --help'" line follows. Exit status 1.
#[derive(Debug, PartialEq, Eq)]
pub struct ArgError {
    pub lines: Vec<Vec<u8>>,
    pub try_help: bool,
}

impl ArgError {
    fn fatal(msg: impl Into<Vec<u8>>) -> ArgError {
        ArgError { lines: vec![msg.into()], try_help: false }
    }

    fn usage(lines: Vec<Vec<u8>>) -> ArgError {
        ArgError { lines, try_help: true }
    }
}

/// `_(msgid)` with its one `%s` filled in.
fn tr_with(msgid: &'static std::ffi::CStr, arg: &[u8]) -> Vec<u8> {
    cli::locale::trf(msgid, &[arg])
}

fn num_error(e: NumError, opt: &str, arg: &[u8]) -> ArgError {
    ArgError::fatal(e.message(opt, arg))
}

/// GNU's argmatch ([`cli::argmatch::lookup`]): its report, then "Try".
fn argmatch<T: Copy + PartialEq>(
    arg: &[u8],
    table: &[(&str, T)],
    context: &str,
) -> Result<T, ArgError> {
    cli::argmatch::lookup(arg, table, context).map_err(|m| ArgError::usage(vec![m]))
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
pub fn parse(
    args: Vec<OsString>,
    env: &dyn Fn(&str) -> Option<String>,
    read_file: &FileReader,
) -> Result<Command, ArgError> {
    let posix = env("POSIXLY_CORRECT").is_some();
    let p = Parser::from_os(OPTIONS, GETOPT_ORDER, args, posix);

    let mut soft: Vec<Vec<u8>> = Vec::new();
    let mut operands: Vec<Vec<u8>> = Vec::new();
    let mut all = false;
    let mut apparent = false;
    let mut units: Option<SizeFormat> = None;
    let mut total = false;
    let mut max_depth: Option<usize> = None;
    let mut deref = Deref::Never;
    let mut count_links = false;
    let mut inodes = false;
    let mut null = false;
    let mut separate = false;
    let mut summarize = false;
    let mut threshold: i64 = 0;
    let mut time: Option<TimeKind> = None;
    let mut time_style: Option<Vec<u8>> = None;
    let mut one_fs = false;
    let mut exclude = Exclude::default();
    let mut files0: Option<Vec<u8>> = None;

    for item in p {
        // getopt complains about each bad option and goes on; GNU du then
        // stops with usage after the loop.
        let (opt, value, spelled) = match item {
            Item::Operand(v) => {
                operands.push(v);
                continue;
            }
            Item::Error(e) => {
                soft.push(e.message());
                continue;
            }
            Item::Opt { id, value, spelled } => (id, value, spelled),
        };
        let val = value.clone().unwrap_or_default();
        let text = String::from_utf8_lossy(&val).into_owned();
        match opt {
            Id::Help => return Ok(Command::Help),
            Id::Version => return Ok(Command::Version),
            Id::All => all = true,
            Id::Apparent => apparent = true,
            Id::Bytes => {
                apparent = true;
                units = Some(SizeFormat::BYTES);
            }
            Id::BlockSize => match cli::size::parse_block_size_checked(&text) {
                Ok(u) => units = Some(u),
                Err(e) => return Err(num_error(e, &spelled.shown(), &val)),
            },
            Id::Human => units = Some(SizeFormat::human(false)),
            Id::Si => units = Some(SizeFormat::human(true)),
            Id::Kilo => units = Some(SizeFormat::blocks(1024)),
            Id::Mega => units = Some(SizeFormat::blocks(1 << 20)),
            Id::Total => total = true,
            Id::MaxDepth => match num::parse_unsigned(&text, "", false) {
                Ok(n) if n.value <= i64::MAX as u64 && !n.no_digits => {
                    max_depth = Some(n.value as usize)
                }
                _ => soft.push(tr_with(
                    c"invalid maximum depth %s",
                    &quote::quote(&val, quote::Style::Locale),
                )),
            },
            Id::DerefArgs => deref = Deref::Args,
            Id::DerefAll => deref = Deref::Always,
            Id::NoDeref => deref = Deref::Never,
            Id::CountLinks => count_links = true,
            Id::Inodes => inodes = true,
            Id::Null => null = true,
            Id::Separate => separate = true,
            Id::Summarize => summarize = true,
            Id::Threshold => match num::parse_signed(&text, "kKmMGTPEZY0", true) {
                Ok(0) if val.first() == Some(&b'-') => {
                    return Err(ArgError::fatal(tr(c"invalid --threshold argument '-0'")))
                }
                Ok(n) => threshold = n,
                Err(e) => return Err(num_error(e, &spelled.shown(), &val)),
            },
            Id::Time => {
                time = Some(match &value {
                    None => TimeKind::Mtime,
                    Some(v) => argmatch(v, TIME_ARGS, "--time")?,
                })
            }
            Id::TimeStyle => time_style = Some(val),
            Id::OneFs => one_fs = true,
            Id::Exclude => exclude.add(&val),
            Id::ExcludeFrom => match read_file(&val) {
                Ok(data) => exclude.add_lines(&data),
                Err(e) => soft.push(
                    [quote::file(&val).as_slice(), b": ", e.errno().message().as_bytes()].concat(),
                ),
            },
            Id::Files0From => files0 = Some(val),
        }
    }
    if !soft.is_empty() {
        return Err(ArgError::usage(soft));
    }
    if all && summarize {
        return Err(ArgError::usage(vec![
            tr(c"cannot both summarize and show all entries").to_vec()
        ]));
    }
    let mut warnings = Vec::new();
    if summarize {
        match max_depth {
            Some(0) => warnings
                .push(tr(c"warning: summarizing is the same as using --max-depth=0").to_vec()),
            Some(d) => {
                return Err(ArgError::usage(vec![tr_with(
                    c"warning: summarizing conflicts with --max-depth=%lu",
                    d.to_string().as_bytes(),
                )]))
            }
            None => {}
        }
        max_depth = Some(0);
    }
    if inodes && apparent {
        warnings.push(
            tr(c"warning: options --apparent-size and -b are ineffective with --inodes").to_vec(),
        );
    }
    let time = match time {
        None => None,
        Some(kind) => Some((kind, time_format(time_style, env)?)),
    };
    let operands = match files0 {
        Some(f) => {
            if let Some(first) = operands.first() {
                // One message of two lines: GNU names the program once.
                let mut m =
                    tr_with(c"extra operand %s", &quote::quote(first, quote::Style::Locale));
                m.push(b'\n');
                m.extend_from_slice(tr(c"file operands cannot be combined with --files0-from"));
                return Err(ArgError::usage(vec![m]));
            }
            Operands::Files0(f)
        }
        None => Operands::Args(operands),
    };
    let units = units.unwrap_or_else(|| units::from_env(env));
    Ok(Command::Run(Box::new(Plan {
        operands,
        all,
        apparent,
        units,
        total,
        max_depth: max_depth.unwrap_or(usize::MAX),
        deref,
        count_links,
        inodes,
        null,
        separate_dirs: separate,
        threshold,
        time,
        one_file_system: one_fs,
        exclude,
        warnings,
    })))
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
