//! Command line → [`Command`], with glibc getopt_long's behaviour and error
//! messages: options may follow operands (unless `POSIXLY_CORRECT` is set),
//! `--` ends options, `-` is an operand (standard input), long options may
//! be abbreviated to any unambiguous prefix.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use crate::format::FormatOpts;

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    Version,
    Cat(Plan),
}

/// The options and the operands to concatenate, in order (`-` = stdin).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub format: FormatOpts,
    pub operands: Vec<Vec<u8>>,
}

/// A command-line error, rendered exactly as glibc's getopt_long does.
#[derive(Debug, PartialEq, Eq)]
pub enum UsageError {
    /// `invalid option -- 'x'` (one byte, as getopt reports it).
    InvalidShort(u8),
    /// `unrecognized option '--foo=bar'` (the whole argument).
    Unrecognized(Vec<u8>),
    /// `option '--s' is ambiguous; possibilities: '--squeeze-blank' ...`
    Ambiguous(Vec<u8>, Vec<&'static str>),
    /// `option '--help' doesn't allow an argument`
    NoArgument(&'static str),
}

impl UsageError {
    pub fn message(&self) -> Vec<u8> {
        let mut m = Vec::new();
        match self {
            UsageError::InvalidShort(b) => {
                m.extend_from_slice(b"invalid option -- '");
                m.push(*b);
                m.push(b'\'');
            }
            UsageError::Unrecognized(arg) => {
                m.extend_from_slice(b"unrecognized option '");
                m.extend_from_slice(arg);
                m.push(b'\'');
            }
            UsageError::Ambiguous(arg, names) => {
                m.extend_from_slice(b"option '");
                m.extend_from_slice(arg);
                m.extend_from_slice(b"' is ambiguous; possibilities:");
                for n in names {
                    m.extend_from_slice(format!(" '--{n}'").as_bytes());
                }
            }
            UsageError::NoArgument(name) => {
                m.extend_from_slice(
                    format!("option '--{name}' doesn't allow an argument").as_bytes(),
                );
            }
        }
        m
    }
}

/// The long options, in GNU cat's table order (which is the order
/// getopt_long lists them in when an abbreviation is ambiguous).
const LONG: [&str; 9] = [
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

const SHORT: &[u8] = b"AbeEnstTuv";

/// Parses the arguments after the program name.
pub fn parse(args: Vec<OsString>) -> Result<Command, UsageError> {
    parse_with(args, std::env::var_os("POSIXLY_CORRECT").is_some())
}

pub fn parse_with(args: Vec<OsString>, posixly_correct: bool) -> Result<Command, UsageError> {
    use lexopt::Arg;
    let raw: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    let mut p = lexopt::Parser::from_args(args);
    // getopt reads `-n=x` as -n, then an invalid option `=`.
    p.set_short_equals(false);
    let mut plan = Plan::default();
    let f = &mut plan.format;
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            // Only reachable if an attached value were left unread; every
            // long option below reads it.
            Err(_) => return Err(UsageError::Unrecognized(Vec::new())),
        };
        match arg {
            Arg::Short(c) => match c {
                'A' => {
                    f.show_nonprinting = true;
                    f.show_ends = true;
                    f.show_tabs = true;
                }
                'b' => f.number_nonblank = true,
                'e' => {
                    f.show_nonprinting = true;
                    f.show_ends = true;
                }
                'E' => f.show_ends = true,
                'n' => f.number = true,
                's' => f.squeeze_blank = true,
                't' => {
                    f.show_nonprinting = true;
                    f.show_tabs = true;
                }
                'T' => f.show_tabs = true,
                'u' => {}
                'v' => f.show_nonprinting = true,
                other => return Err(UsageError::InvalidShort(invalid_short_byte(other, &raw))),
            },
            Arg::Long(name) => {
                let name = name.to_string();
                let value = p.optional_value();
                let whole = || {
                    let mut v = b"--".to_vec();
                    v.extend_from_slice(&raw_long_name(&name, &raw));
                    if let Some(val) = &value {
                        v.push(b'=');
                        v.extend_from_slice(val.as_bytes());
                    }
                    v
                };
                let opt = match LONG.iter().find(|l| **l == name) {
                    Some(exact) => *exact,
                    None => {
                        let matches: Vec<&'static str> =
                            LONG.iter().copied().filter(|l| l.starts_with(name.as_str())).collect();
                        match matches.len() {
                            0 => return Err(UsageError::Unrecognized(whole())),
                            1 => matches[0],
                            _ => return Err(UsageError::Ambiguous(whole(), matches)),
                        }
                    }
                };
                if value.is_some() {
                    return Err(UsageError::NoArgument(opt));
                }
                match opt {
                    "number-nonblank" => f.number_nonblank = true,
                    "number" => f.number = true,
                    "squeeze-blank" => f.squeeze_blank = true,
                    "show-nonprinting" => f.show_nonprinting = true,
                    "show-ends" => f.show_ends = true,
                    "show-tabs" => f.show_tabs = true,
                    "show-all" => {
                        f.show_nonprinting = true;
                        f.show_ends = true;
                        f.show_tabs = true;
                    }
                    "help" => return Ok(Command::Help),
                    _ => return Ok(Command::Version),
                }
            }
            Arg::Value(v) => {
                plan.operands.push(v.into_vec());
                if posixly_correct {
                    // getopt stops at the first operand: the rest, `--`
                    // included, are operands.
                    if let Ok(rest) = p.raw_args() {
                        plan.operands.extend(rest.map(|a| a.into_vec()));
                    }
                    break;
                }
            }
        }
    }
    if plan.operands.is_empty() {
        plan.operands.push(b"-".to_vec());
    }
    Ok(Command::Cat(plan))
}

/// The byte getopt would report for an invalid short option. lexopt hands
/// back chars; getopt works on bytes and stops at the first byte of a
/// multi-byte character, and an invalid UTF-8 byte comes back from lexopt
/// as U+FFFD, so for those the byte is taken from the raw arguments: the
/// first option cluster holding a byte that is not an option letter
/// (arguments before it were accepted, or lexopt would have failed there).
fn invalid_short_byte(c: char, raw: &[Vec<u8>]) -> u8 {
    if c.is_ascii() {
        return c as u8;
    }
    if c != char::REPLACEMENT_CHARACTER {
        let mut b = [0u8; 4];
        return c.encode_utf8(&mut b).as_bytes()[0];
    }
    for a in raw {
        if a == b"--" {
            break;
        }
        if a.len() < 2 || a[0] != b'-' || a[1] == b'-' {
            continue;
        }
        if let Some(&b) = a[1..].iter().find(|b| !SHORT.contains(b)) {
            return b;
        }
    }
    0xef // the first byte of U+FFFD itself
}

/// The raw bytes of a long option name that lexopt decoded lossily.
fn raw_long_name(name: &str, raw: &[Vec<u8>]) -> Vec<u8> {
    if !name.contains(char::REPLACEMENT_CHARACTER) {
        return name.as_bytes().to_vec();
    }
    for a in raw {
        if let Some(rest) = a.strip_prefix(b"--") {
            let n = rest.split(|&b| b == b'=').next().unwrap_or(rest);
            if String::from_utf8_lossy(n) == name {
                return n.to_vec();
            }
        }
    }
    name.as_bytes().to_vec()
}

/// `--help` text: GNU cat 9.1's, byte for byte, with the program name
/// substituted as GNU does; the closing lines name this project rather
/// than GNU's.
pub fn help(prog: &str) -> String {
    format!(
        "\
Usage: {prog} [OPTION]... [FILE]...
Concatenate FILE(s) to standard output.

With no FILE, or when FILE is -, read standard input.

  -A, --show-all           equivalent to -vET
  -b, --number-nonblank    number nonempty output lines, overrides -n
  -e                       equivalent to -vE
  -E, --show-ends          display $ at end of each line
  -n, --number             number all output lines
  -s, --squeeze-blank      suppress repeated empty output lines
  -t                       equivalent to -vT
  -T, --show-tabs          display TAB characters as ^I
  -u                       (ignored)
  -v, --show-nonprinting   use ^ and M- notation, except for LFD and TAB
      --help        display this help and exit
      --version     output version information and exit

Examples:
  {prog} f - g  Output f's contents, then standard input, then g's contents.
  {prog}        Copy standard input to standard output.

{HELP_FOOTER}"
    )
}

/// Where `--help` output stops matching GNU's (GNU names its own project
/// and manual there).
pub const HELP_FOOTER: &str = "\
lcat is part of ringutils; it behaves as GNU cat 9.1 does, whose manual is at
<https://www.gnu.org/software/coreutils/cat>.
";

/// `--version` text.
pub fn version() -> String {
    format!(
        "lcat (ringutils) {}\n\
         A GNU cat 9.1-compatible cat on the ringio engine.\n\
         License MIT OR Apache-2.0: free to change and redistribute.\n\
         There is NO WARRANTY, to the extent permitted by law.\n",
        env!("CARGO_PKG_VERSION")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&[u8]]) -> Result<Command, UsageError> {
        use std::os::unix::ffi::OsStringExt;
        parse_with(args.iter().map(|a| OsString::from_vec(a.to_vec())).collect(), false)
    }

    fn plan(args: &[&[u8]]) -> Plan {
        match p(args) {
            Ok(Command::Cat(plan)) => plan,
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
        let args = [b"-n".as_slice(), b"f", b"-E", b"--"]
            .iter()
            .map(|a| OsString::from_vec(a.to_vec()))
            .collect();
        let Ok(Command::Cat(pl)) = parse_with(args, true) else { panic!() };
        assert!(pl.format.number && !pl.format.show_ends);
        assert_eq!(pl.operands, vec![b"f".to_vec(), b"-E".to_vec(), b"--".to_vec()]);
    }
}
