//! Command-line parsing: GNU ls's options (getopt_long rules: bundled short
//! options, unambiguous prefixes of long options, options after operands)
//! into [`Args`], the raw choices before the plan resolves defaults.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use cli::quote::Style;
use cli::size::SizeFormat;
use cli::timefmt::TimeStyle;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Long,
    OnePerLine,
    Columns,
    Across,
    Commas,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    Name,
    None,
    Size,
    Time,
    Version,
    Extension,
    Width,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeKind {
    Mtime,
    Atime,
    Ctime,
    Birth,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Indicator {
    None,
    Slash,
    FileType,
    Classify,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deref {
    Never,
    CommandLine,
    CommandLineDirs,
    Always,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    Never,
    Always,
    Auto,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hidden {
    /// Skip names starting with '.'.
    Dots,
    /// -A: all but . and ..
    AlmostAll,
    /// -a
    All,
}

/// What the user asked for, options in the order GNU resolves them.
#[derive(Clone, Debug)]
pub struct Args {
    pub hidden: Hidden,
    pub format: Option<Format>,
    pub sort: Sort,
    pub sort_given: bool,
    pub reverse: bool,
    pub time: TimeKind,
    pub time_style: Option<String>,
    pub full_time: bool,
    pub file_size: Option<SizeFormat>,
    pub block_size: Option<SizeFormat>,
    pub kibibytes: bool,
    pub inode: bool,
    pub size_blocks: bool,
    pub numeric: bool,
    pub no_owner: bool,
    pub no_group: bool,
    pub author: bool,
    pub indicator: Indicator,
    pub classify_when: When,
    pub quoting: Option<Style>,
    pub hide_control: Option<bool>,
    pub width: Option<usize>,
    pub tabsize: Option<usize>,
    pub deref: Option<Deref>,
    pub dirs_first: bool,
    pub ignore: Vec<Vec<u8>>,
    pub hide: Vec<Vec<u8>>,
    pub color: When,
    pub hyperlink: When,
    pub icons: When,
    pub zero: bool,
    pub recursive: bool,
    pub directory: bool,
    pub context: bool,
    pub dired: bool,
    pub tree: Option<Option<usize>>,
    pub json: bool,
    pub help: bool,
    pub version: bool,
    pub files: Vec<Vec<u8>>,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            hidden: Hidden::Dots,
            format: None,
            sort: Sort::Name,
            sort_given: false,
            reverse: false,
            time: TimeKind::Mtime,
            time_style: None,
            full_time: false,
            file_size: None,
            block_size: None,
            kibibytes: false,
            inode: false,
            size_blocks: false,
            numeric: false,
            no_owner: false,
            no_group: false,
            author: false,
            indicator: Indicator::None,
            classify_when: When::Always,
            quoting: None,
            hide_control: None,
            width: None,
            tabsize: None,
            deref: None,
            dirs_first: false,
            ignore: Vec::new(),
            hide: Vec::new(),
            color: When::Never,
            hyperlink: When::Never,
            icons: When::Never,
            zero: false,
            recursive: false,
            directory: false,
            context: false,
            dired: false,
            tree: None,
            json: false,
            help: false,
            version: false,
            files: Vec::new(),
        }
    }
}

/// A usage problem, printed GNU-style and exiting with status 2.
#[derive(Debug, PartialEq, Eq)]
pub enum ArgError {
    /// The message line; "Try --help" follows.
    Usage(String),
    /// `invalid argument 'x' for '--opt'` with the list of valid ones.
    BadChoice { value: String, option: String, valid: Vec<&'static str> },
    /// A message printed without the "Try" line.
    Plain(String),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum HasArg {
    No,
    Required,
    Optional,
}

/// Long options: name, argument kind.
const LONG: &[(&str, HasArg)] = &[
    ("all", HasArg::No),
    ("almost-all", HasArg::No),
    ("author", HasArg::No),
    ("escape", HasArg::No),
    ("block-size", HasArg::Required),
    ("ignore-backups", HasArg::No),
    ("color", HasArg::Optional),
    ("directory", HasArg::No),
    ("dired", HasArg::No),
    ("classify", HasArg::Optional),
    ("file-type", HasArg::No),
    ("format", HasArg::Required),
    ("full-time", HasArg::No),
    ("group-directories-first", HasArg::No),
    ("no-group", HasArg::No),
    ("human-readable", HasArg::No),
    ("si", HasArg::No),
    ("dereference-command-line", HasArg::No),
    ("dereference-command-line-symlink-to-dir", HasArg::No),
    ("hide", HasArg::Required),
    ("hyperlink", HasArg::Optional),
    ("indicator-style", HasArg::Required),
    ("inode", HasArg::No),
    ("ignore", HasArg::Required),
    ("kibibytes", HasArg::No),
    ("dereference", HasArg::No),
    ("numeric-uid-gid", HasArg::No),
    ("literal", HasArg::No),
    ("hide-control-chars", HasArg::No),
    ("show-control-chars", HasArg::No),
    ("quote-name", HasArg::No),
    ("quoting-style", HasArg::Required),
    ("reverse", HasArg::No),
    ("recursive", HasArg::No),
    ("size", HasArg::No),
    ("sort", HasArg::Required),
    ("time", HasArg::Required),
    ("time-style", HasArg::Required),
    ("tabsize", HasArg::Required),
    ("width", HasArg::Required),
    ("context", HasArg::No),
    ("zero", HasArg::No),
    ("help", HasArg::No),
    ("version", HasArg::No),
    // Beyond GNU.
    ("icons", HasArg::Optional),
    ("tree", HasArg::Optional),
    ("json", HasArg::No),
];

/// Resolves a possibly abbreviated long option name like getopt_long.
fn resolve_long(name: &str) -> Result<(&'static str, HasArg), ArgError> {
    if let Some(&(n, h)) = LONG.iter().find(|(n, _)| *n == name) {
        return Ok((n, h));
    }
    let cands: Vec<&(&str, HasArg)> = LONG.iter().filter(|(n, _)| n.starts_with(name)).collect();
    match cands.len() {
        0 => Err(ArgError::Usage(format!("unrecognized option '--{name}'"))),
        1 => Ok((cands[0].0, cands[0].1)),
        _ => {
            let mut s = format!("option '--{name}' is ambiguous; possibilities:");
            for (n, _) in cands {
                s.push_str(&format!(" '--{n}'"));
            }
            Err(ArgError::Usage(s))
        }
    }
}

fn s(v: &OsString) -> String {
    v.to_string_lossy().into_owned()
}

fn choice<T: Copy>(value: &str, option: &str, table: &[(&'static str, T)]) -> Result<T, ArgError> {
    if let Some((_, t)) = table.iter().find(|(n, _)| *n == value) {
        return Ok(*t);
    }
    // argmatch accepts unambiguous prefixes too.
    let m: Vec<&(&str, T)> = table.iter().filter(|(n, _)| n.starts_with(value)).collect();
    if !value.is_empty() && !m.is_empty() {
        let first = m[0].1;
        // Ambiguous unless every match maps to the same value.
        let same = m.iter().all(|(n, _)| {
            table.iter().find(|(k, _)| k == n).map(|(_, t)| t as *const T)
                == table.iter().find(|(k, _)| *k == m[0].0).map(|(_, t)| t as *const T)
        });
        if m.len() == 1 || same {
            return Ok(first);
        }
        return Err(ArgError::BadChoice {
            value: format!("ambiguous:{value}"),
            option: option.into(),
            valid: table.iter().map(|(n, _)| *n).collect(),
        });
    }
    Err(ArgError::BadChoice {
        value: value.into(),
        option: option.into(),
        valid: table.iter().map(|(n, _)| *n).collect(),
    })
}

const WHEN: &[(&str, When)] = &[
    ("always", When::Always),
    ("yes", When::Always),
    ("force", When::Always),
    ("never", When::Never),
    ("no", When::Never),
    ("none", When::Never),
    ("auto", When::Auto),
    ("tty", When::Auto),
    ("if-tty", When::Auto),
];

fn when(v: Option<OsString>, option: &str) -> Result<When, ArgError> {
    match v {
        None => Ok(When::Always),
        Some(v) => choice(&s(&v), option, WHEN),
    }
}

/// Parses the arguments after the program name.
pub fn parse<I: IntoIterator<Item = OsString>>(argv: I) -> Result<Args, ArgError> {
    let mut a = Args::default();
    let mut p = lexopt::Parser::from_args(argv);
    p.set_short_equals(false);
    loop {
        let arg = match p.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return Err(lexopt_error(e)),
        };
        match arg {
            lexopt::Arg::Value(v) => a.files.push(v.into_vec()),
            lexopt::Arg::Short(c) => short(&mut a, c, &mut p)?,
            lexopt::Arg::Long(name) => {
                let name = name.to_string();
                let (full, has) = match resolve_long(&name) {
                    Ok(r) => r,
                    Err(ArgError::Usage(m)) if m.starts_with("unrecognized") => {
                        // GNU names the whole argument, value included.
                        let v =
                            p.optional_value().map(|v| format!("={}", s(&v))).unwrap_or_default();
                        return Err(ArgError::Usage(format!("unrecognized option '--{name}{v}'")));
                    }
                    Err(e) => return Err(e),
                };
                let value = match has {
                    HasArg::No => {
                        if p.optional_value().is_some() {
                            return Err(ArgError::Usage(format!(
                                "option '--{full}' doesn't allow an argument"
                            )));
                        }
                        None
                    }
                    HasArg::Optional => p.optional_value(),
                    HasArg::Required => match p.value() {
                        Ok(v) => Some(v),
                        Err(_) => {
                            return Err(ArgError::Usage(format!(
                                "option '--{full}' requires an argument"
                            )))
                        }
                    },
                };
                long(&mut a, full, value)?;
            }
        }
    }
    Ok(a)
}

fn lexopt_error(e: lexopt::Error) -> ArgError {
    match e {
        lexopt::Error::MissingValue { option: Some(o) } => {
            let o = o.trim_start_matches('-').to_string();
            ArgError::Usage(format!("option requires an argument -- '{o}'"))
        }
        other => ArgError::Usage(other.to_string()),
    }
}

fn short(a: &mut Args, c: char, p: &mut lexopt::Parser) -> Result<(), ArgError> {
    let need = |p: &mut lexopt::Parser| -> Result<OsString, ArgError> {
        p.value().map_err(|_| ArgError::Usage(format!("option requires an argument -- '{c}'")))
    };
    match c {
        'a' => a.hidden = Hidden::All,
        'A' => a.hidden = Hidden::AlmostAll,
        'b' => a.quoting = Some(Style::Escape),
        'B' => {
            a.ignore.push(b"*~".to_vec());
            a.ignore.push(b".*~".to_vec());
        }
        'c' => a.time = TimeKind::Ctime,
        'C' => a.format = Some(Format::Columns),
        'd' => a.directory = true,
        'D' => a.dired = true,
        'f' => {
            a.hidden = Hidden::All;
            a.sort = Sort::None;
            a.sort_given = true;
            if a.format == Some(Format::Long) {
                a.format = None;
            }
            a.size_blocks = false;
            a.color = When::Never;
            a.hyperlink = When::Never;
        }
        'F' => {
            a.indicator = Indicator::Classify;
            a.classify_when = When::Always;
        }
        'g' => {
            a.format = Some(Format::Long);
            a.no_owner = true;
        }
        'G' => a.no_group = true,
        'h' => {
            a.file_size = Some(SizeFormat::Human { si: false });
            a.block_size = Some(SizeFormat::Human { si: false });
        }
        'H' => a.deref = Some(Deref::CommandLine),
        'i' => a.inode = true,
        'I' => {
            let v = need(p)?;
            a.ignore.push(v.into_vec());
        }
        'k' => {
            a.kibibytes = true;
            a.block_size = Some(SizeFormat::Blocks { block: 1024, suffix: None });
        }
        'l' => a.format = Some(Format::Long),
        'L' => a.deref = Some(Deref::Always),
        'm' => a.format = Some(Format::Commas),
        'n' => {
            a.numeric = true;
            a.format = Some(Format::Long);
        }
        'N' => a.quoting = Some(Style::Literal),
        'o' => {
            a.format = Some(Format::Long);
            a.no_group = true;
        }
        'p' => a.indicator = Indicator::Slash,
        'q' => a.hide_control = Some(true),
        'Q' => a.quoting = Some(Style::C),
        'r' => a.reverse = true,
        'R' => a.recursive = true,
        's' => a.size_blocks = true,
        'S' => set_sort(a, Sort::Size),
        't' => set_sort(a, Sort::Time),
        'T' => {
            let v = need(p)?;
            a.tabsize = Some(parse_tabsize(&s(&v))?);
        }
        'u' => a.time = TimeKind::Atime,
        'U' => set_sort(a, Sort::None),
        'v' => set_sort(a, Sort::Version),
        'w' => {
            let v = need(p)?;
            a.width = Some(parse_width(&s(&v))?);
        }
        'x' => a.format = Some(Format::Across),
        'X' => set_sort(a, Sort::Extension),
        'Z' => a.context = true,
        // -1 has no effect after -l.
        '1' => {
            if a.format != Some(Format::Long) {
                a.format = Some(Format::OnePerLine)
            }
        }
        _ => return Err(ArgError::Usage(format!("invalid option -- '{c}'"))),
    }
    Ok(())
}

fn set_sort(a: &mut Args, s: Sort) {
    a.sort = s;
    a.sort_given = true;
}

/// Why a number did not parse.
#[derive(Debug, PartialEq, Eq)]
pub enum NumError {
    Invalid,
    Overflow,
}

/// An unsigned number as C's strtoumax with base 0 reads it (GNU's
/// xstrtoumax): leading blanks and '+', `0x` hex, leading-0 octal; a minus
/// sign or trailing junk is invalid.
pub fn parse_c_uint(s: &str) -> Result<u64, NumError> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    if t.starts_with('-') {
        return Err(NumError::Invalid);
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(NumError::Invalid);
    }
    u64::from_str_radix(digits, radix).map_err(|_| NumError::Overflow)
}

/// GNU's decode_line_length: too large means unlimited (0).
pub fn line_length(v: &str) -> Option<usize> {
    match parse_c_uint(v) {
        Ok(n) if n <= isize::MAX as u64 => Some(n as usize),
        Ok(_) | Err(NumError::Overflow) => Some(0),
        Err(NumError::Invalid) => None,
    }
}

fn parse_width(v: &str) -> Result<usize, ArgError> {
    line_length(v).ok_or_else(|| ArgError::Plain(format!("invalid line width: {}", quote_arg(v))))
}

fn parse_tabsize(v: &str) -> Result<usize, ArgError> {
    match parse_c_uint(v) {
        Ok(n) => Ok(n as usize),
        Err(NumError::Overflow) => Err(ArgError::Plain(format!(
            "invalid tab size: {}: {}",
            quote_arg(v),
            ringio::Errno(libc::EOVERFLOW).message()
        ))),
        Err(NumError::Invalid) => {
            Err(ArgError::Plain(format!("invalid tab size: {}", quote_arg(v))))
        }
    }
}

fn quote_arg(v: &str) -> String {
    String::from_utf8_lossy(&cli::quote::operand(v.as_bytes())).into_owned()
}

fn long(a: &mut Args, name: &str, v: Option<OsString>) -> Result<(), ArgError> {
    let val = || v.as_ref().map(s).unwrap_or_default();
    match name {
        "all" => a.hidden = Hidden::All,
        "almost-all" => a.hidden = Hidden::AlmostAll,
        "author" => a.author = true,
        "escape" => a.quoting = Some(Style::Escape),
        "block-size" => {
            let spec = val();
            let f = cli::size::parse_block_size_checked(&spec)
                .map_err(|e| ArgError::Plain(e.message("--block-size", &quote_arg(&spec))))?;
            a.file_size = Some(f);
            a.block_size = Some(f);
        }
        "ignore-backups" => {
            a.ignore.push(b"*~".to_vec());
            a.ignore.push(b".*~".to_vec());
        }
        "color" => a.color = when(v, "--color")?,
        "directory" => a.directory = true,
        "dired" => a.dired = true,
        "classify" => {
            a.classify_when = when(v, "--classify")?;
            a.indicator = Indicator::Classify;
        }
        "file-type" => a.indicator = Indicator::FileType,
        "format" => {
            a.format = Some(choice(
                &val(),
                "--format",
                &[
                    ("verbose", Format::Long),
                    ("long", Format::Long),
                    ("commas", Format::Commas),
                    ("horizontal", Format::Across),
                    ("across", Format::Across),
                    ("vertical", Format::Columns),
                    ("single-column", Format::OnePerLine),
                ],
            )?)
        }
        "full-time" => {
            a.format = Some(Format::Long);
            a.full_time = true;
            a.time_style = Some("full-iso".into());
        }
        "group-directories-first" => a.dirs_first = true,
        "no-group" => a.no_group = true,
        "human-readable" => {
            a.file_size = Some(SizeFormat::Human { si: false });
            a.block_size = Some(SizeFormat::Human { si: false });
        }
        "si" => {
            a.file_size = Some(SizeFormat::Human { si: true });
            a.block_size = Some(SizeFormat::Human { si: true });
        }
        "dereference-command-line" => a.deref = Some(Deref::CommandLine),
        "dereference-command-line-symlink-to-dir" => a.deref = Some(Deref::CommandLineDirs),
        "hide" => a.hide.push(v.unwrap_or_default().into_vec()),
        "hyperlink" => a.hyperlink = when(v, "--hyperlink")?,
        "indicator-style" => {
            a.indicator = choice(
                &val(),
                "--indicator-style",
                &[
                    ("none", Indicator::None),
                    ("slash", Indicator::Slash),
                    ("file-type", Indicator::FileType),
                    ("classify", Indicator::Classify),
                ],
            )?;
            a.classify_when = When::Always;
        }
        "inode" => a.inode = true,
        "ignore" => a.ignore.push(v.unwrap_or_default().into_vec()),
        "kibibytes" => {
            a.kibibytes = true;
            a.block_size = Some(SizeFormat::Blocks { block: 1024, suffix: None });
        }
        "dereference" => a.deref = Some(Deref::Always),
        "numeric-uid-gid" => {
            a.numeric = true;
            a.format = Some(Format::Long);
        }
        "literal" => a.quoting = Some(Style::Literal),
        "hide-control-chars" => a.hide_control = Some(true),
        "show-control-chars" => a.hide_control = Some(false),
        "quote-name" => a.quoting = Some(Style::C),
        "quoting-style" => {
            let table: Vec<(&'static str, Style)> = Style::NAMES
                .iter()
                .map(|n| (*n, Style::parse(n).unwrap_or(Style::Literal)))
                .collect();
            a.quoting = Some(choice(&val(), "--quoting-style", &table)?);
        }
        "reverse" => a.reverse = true,
        "recursive" => a.recursive = true,
        "size" => a.size_blocks = true,
        "sort" => {
            let st = choice(
                &val(),
                "--sort",
                &[
                    ("none", Sort::None),
                    ("time", Sort::Time),
                    ("size", Sort::Size),
                    ("extension", Sort::Extension),
                    ("version", Sort::Version),
                    ("width", Sort::Width),
                ],
            )?;
            set_sort(a, st);
        }
        "time" => {
            a.time = choice(
                &val(),
                "--time",
                &[
                    ("atime", TimeKind::Atime),
                    ("access", TimeKind::Atime),
                    ("use", TimeKind::Atime),
                    ("ctime", TimeKind::Ctime),
                    ("status", TimeKind::Ctime),
                    ("birth", TimeKind::Birth),
                    ("creation", TimeKind::Birth),
                ],
            )?
        }
        "time-style" => a.time_style = Some(val()),
        "tabsize" => a.tabsize = Some(parse_tabsize(&val())?),
        "width" => a.width = Some(parse_width(&val())?),
        "context" => a.context = true,
        "zero" => {
            a.zero = true;
            a.hide_control = Some(false);
            a.quoting = Some(Style::Literal);
            if a.format != Some(Format::Long) {
                a.format = Some(Format::OnePerLine);
            }
        }
        "help" => a.help = true,
        "version" => a.version = true,
        "icons" => a.icons = when(v, "--icons")?,
        "tree" => {
            let depth = match v {
                None => None,
                Some(d) => Some(s(&d).parse::<usize>().map_err(|_| {
                    ArgError::Plain(format!("invalid tree depth: {}", quote_arg(&s(&d))))
                })?),
            };
            a.tree = Some(depth);
        }
        "json" => a.json = true,
        _ => return Err(ArgError::Usage(format!("unrecognized option '--{name}'"))),
    }
    Ok(())
}

/// Validates a time style value (from --time-style or TIME_STYLE).
pub fn time_style(v: &str) -> Option<TimeStyle> {
    TimeStyle::parse(v)
}

/// Bytes of an OsString argument.
pub fn bytes(v: &std::ffi::OsStr) -> &[u8] {
    v.as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(v: &[&str]) -> Result<Args, ArgError> {
        parse(v.iter().map(OsString::from))
    }

    #[test]
    fn bundles_prefixes_and_permutation() {
        let a = p(&["-laR", "x", "--sor=time", "--col", "-w40", "y"]).unwrap();
        assert_eq!(a.format, Some(Format::Long));
        assert_eq!(a.hidden, Hidden::All);
        assert!(a.recursive);
        assert_eq!(a.sort, Sort::Time);
        assert_eq!(a.color, When::Always);
        assert_eq!(a.width, Some(40));
        assert_eq!(a.files, vec![b"x".to_vec(), b"y".to_vec()]);
        assert!(matches!(p(&["--d"]), Err(ArgError::Usage(_))));
        assert!(matches!(p(&["-y"]), Err(ArgError::Usage(m)) if m == "invalid option -- 'y'"));
        assert!(matches!(p(&["--sort=bogus"]), Err(ArgError::BadChoice { .. })));
        let a = p(&["--", "-l"]).unwrap();
        assert_eq!(a.files, vec![b"-l".to_vec()]);
    }
}
