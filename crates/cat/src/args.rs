//! Command line → [`Command`], with glibc getopt_long's behaviour and error
//! messages: options may follow operands (unless `POSIXLY_CORRECT` is set),
//! `--` ends options, `-` is an operand (standard input), long options may
//! be abbreviated to any unambiguous prefix.

use std::ffi::OsString;

use crate::format::FormatOpts;

/// What the command line asks for.
pub type Command = cli::Command<Plan>;

/// The options and the operands to concatenate, in order (`-` = stdin).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub format: FormatOpts,
    pub operands: Vec<Vec<u8>>,
}

pub use cli::opts::UsageError;
use cli::opts::{Arg, Doc, Item, Opt, Parser};

/// What each option does; [`parse`] dispatches on these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Id {
    ShowAll,
    NumberNonblank,
    ShowNonprintingEnds,
    ShowEnds,
    Number,
    SqueezeBlank,
    ShowNonprintingTabs,
    ShowTabs,
    Unbuffered,
    ShowNonprinting,
    Help,
    Version,
}

/// Every option lcat accepts, in `--help` order: the one source of the
/// parser, `--help`, completions and the man page.
pub const OPTIONS: &[Opt<Id>] = &[
    Opt::flag(b'A', "show-all", Id::ShowAll, "the same as -vET"),
    Opt::flag(
        b'b',
        "number-nonblank",
        Id::NumberNonblank,
        "number the lines that are not empty (wins over -n)",
    ),
    Opt::short(b'e', Id::ShowNonprintingEnds, "the same as -vE"),
    Opt::flag(b'E', "show-ends", Id::ShowEnds, "mark the end of each line with $"),
    Opt::flag(b'n', "number", Id::Number, "number every output line"),
    Opt::flag(
        b's',
        "squeeze-blank",
        Id::SqueezeBlank,
        "print one empty line for a run of empty lines",
    ),
    Opt::short(b't', Id::ShowNonprintingTabs, "the same as -vT"),
    Opt::flag(b'T', "show-tabs", Id::ShowTabs, "show tab characters as ^I"),
    Opt::short(b'u', Id::Unbuffered, "accepted and ignored (output is never held back)"),
    Opt::flag(
        b'v',
        "show-nonprinting",
        Id::ShowNonprinting,
        "show control bytes as ^X and bytes above 127 as M-X, except newline and tab",
    ),
    Opt::new(None, Some("help"), Arg::None, Id::Help, "print this help and exit"),
    Opt::new(
        None,
        Some("version"),
        Arg::None,
        Id::Version,
        "print the version and the I/O engine, and exit",
    ),
];

/// GNU cat's long-option table order: ambiguity messages list the
/// candidates in this order.
pub const GETOPT_ORDER: &[&str] = &[
    "number-nonblank",
    "number",
    "squeeze-blank",
    "show-nonprinting",
    "show-ends",
    "show-tabs",
    "show-all",
    "help",
    "version",
];

/// Parses the arguments after the program name.
pub fn parse(args: Vec<OsString>) -> Result<Command, UsageError> {
    parse_with(args, std::env::var_os("POSIXLY_CORRECT").is_some())
}

/// [`parse`] with POSIXLY_CORRECT given: the first operand ends options.
/// The first mistake ends parsing, as in GNU cat; so do --help and
/// --version.
#[cfg_attr(ringutils_small, optimize(size))]
pub fn parse_with(args: Vec<OsString>, posixly_correct: bool) -> Result<Command, UsageError> {
    let mut plan = Plan::default();
    let f = &mut plan.format;
    for item in Parser::from_os(OPTIONS, GETOPT_ORDER, args, posixly_correct) {
        let id = match item {
            Item::Operand(v) => {
                plan.operands.push(v);
                continue;
            }
            Item::Error(e) => return Err(e),
            Item::Opt { id, .. } => id,
        };
        match id {
            Id::ShowAll => {
                f.show_nonprinting = true;
                f.show_ends = true;
                f.show_tabs = true;
            }
            Id::NumberNonblank => f.number_nonblank = true,
            Id::ShowNonprintingEnds => {
                f.show_nonprinting = true;
                f.show_ends = true;
            }
            Id::ShowEnds => f.show_ends = true,
            Id::Number => f.number = true,
            Id::SqueezeBlank => f.squeeze_blank = true,
            Id::ShowNonprintingTabs => {
                f.show_nonprinting = true;
                f.show_tabs = true;
            }
            Id::ShowTabs => f.show_tabs = true,
            Id::Unbuffered => {}
            Id::ShowNonprinting => f.show_nonprinting = true,
            Id::Help => return Ok(Command::Help),
            Id::Version => return Ok(Command::Version),
        }
    }
    if plan.operands.is_empty() {
        plan.operands.push(b"-".to_vec());
    }
    Ok(Command::Run(plan))
}

const ABOUT: &str = "\
Write the FILEs, one after the other, to standard output (GNU cat
compatible). With no FILE, or where FILE is -, read standard input.";

const NOTES: &str = "\
Examples:
  {prog} f - g  f's contents, then standard input, then g's.
  {prog}        standard input to standard output.

RINGIO_BACKEND=uring|threads|sync picks the I/O engine's executor (see
--version for the one chosen here).

Exit status: 0 on success, 1 if any FILE could not be read or the output
could not be written.";

/// lcat's documentation, for `--help`, the man page and completions.
pub fn doc() -> Doc {
    Doc::from_opts(
        "lcat",
        "cat",
        "concatenate files to standard output (GNU cat compatible)",
        &["[OPTION]... [FILE]..."],
        ABOUT,
        OPTIONS,
        NOTES,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        cli::opts::check_table(OPTIONS, GETOPT_ORDER).unwrap();
    }

    fn p(args: &[&[u8]]) -> Result<Command, UsageError> {
        use std::os::unix::ffi::OsStringExt;
        parse_with(args.iter().map(|a| OsString::from_vec(a.to_vec())).collect(), false)
    }

    fn plan(args: &[&[u8]]) -> Plan {
        match p(args) {
            Ok(Command::Run(plan)) => plan,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn options_and_operands() {
        let pl = plan(&[b"f", b"-n", b"-", b"--", b"-E"]);
        assert!(pl.format.number && !pl.format.show_ends);
        assert_eq!(pl.operands, vec![b"f".to_vec(), b"-".to_vec(), b"-E".to_vec()]);
        assert_eq!(plan(&[]).operands, vec![b"-".to_vec()]);
        let pl = plan(&[b"-A"]);
        assert!(pl.format.show_nonprinting && pl.format.show_ends && pl.format.show_tabs);
        let pl = plan(&[b"-ut", b"--number-", b"--sq"]);
        assert!(pl.format.show_tabs && pl.format.number_nonblank && pl.format.squeeze_blank);
        assert!(!pl.format.show_ends);
        assert!(!plan(&[b"-u"]).format.any());
    }

    #[test]
    fn help_version_and_order() {
        assert_eq!(p(&[b"--he"]), Ok(Command::Help));
        assert_eq!(p(&[b"--v", b"--help"]), Ok(Command::Version));
        assert_eq!(p(&[b"-x", b"--help"]), Err(UsageError::InvalidShort(b'x')));
    }

    #[test]
    fn error_messages() {
        let msg =
            |args: &[&[u8]]| String::from_utf8_lossy(&p(args).unwrap_err().message()).into_owned();
        assert_eq!(msg(&[b"-nx"]), "invalid option -- 'x'");
        assert_eq!(msg(&[b"--foo=bar"]), "unrecognized option '--foo=bar'");
        assert_eq!(
            msg(&[b"--numb=x"]),
            "option '--numb=x' is ambiguous; possibilities: '--number-nonblank' '--number'"
        );
        assert_eq!(msg(&[b"--help=3"]), "option '--help' doesn't allow an argument");
        assert_eq!(msg(&[b"--ver=1"]), "option '--version' doesn't allow an argument");
        assert_eq!(msg(&[b"---"]), "unrecognized option '---'");
        assert!(msg(&[b"--="]).ends_with("'--show-all' '--help' '--version'"));
        assert_eq!(p(&[b"-\xc3\xa9"]), Err(UsageError::InvalidShort(0xc3)));
        assert_eq!(p(&[b"-n\xff"]), Err(UsageError::InvalidShort(0xff)));
        assert_eq!(p(&[b"--\xff"]), Err(UsageError::Unrecognized(b"--\xff".to_vec())));
    }

    #[test]
    fn posixly_correct_stops_at_first_operand() {
        use std::os::unix::ffi::OsStringExt;
        let args = [b"-n".as_slice(), b"f", b"-E", b"--"]
            .iter()
            .map(|a| OsString::from_vec(a.to_vec()))
            .collect();
        let Ok(Command::Run(pl)) = parse_with(args, true) else { panic!() };
        assert!(pl.format.number && !pl.format.show_ends);
        assert_eq!(pl.operands, vec![b"f".to_vec(), b"-E".to_vec(), b"--".to_vec()]);
    }
}
