//! Command-line parsing: GNU ls's options (getopt_long rules: bundled short
//! options, unambiguous prefixes of long options, options after operands)
//! into [`Args`], the raw choices before the plan resolves defaults.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

pub(crate) use cli::argmatch::{When, WHEN};
use cli::opts::{Item, Parser};
use cli::quote::Style;
use cli::size::SizeFormat;

use crate::help::{Id, GETOPT_ORDER, OPTIONS};

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
    /// --color was given (--color=never also turns off lsr's own colours).
    pub color_given: bool,
    pub hyperlink: When,
    pub icons: When,
    pub zero: bool,
    pub recursive: bool,
    pub directory: bool,
    pub context: bool,
    pub dired: bool,
    /// `--tree` was given.
    pub tree: bool,
    /// `--tree=DEPTH` or `--level=DEPTH`, the last given.
    pub tree_depth: Option<usize>,
    /// `--level` was given (it needs `--tree`).
    pub level: bool,
    /// `--json[=array|lines]`.
    pub json: Option<cli::json::Framing>,
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
            color_given: false,
            hyperlink: When::Never,
            icons: When::Never,
            zero: false,
            recursive: false,
            directory: false,
            context: false,
            dired: false,
            tree: false,
            tree_depth: None,
            level: false,
            json: None,
            help: false,
            version: false,
            files: Vec::new(),
        }
    }
}

/// A usage problem, in GNU's words: [`cli::BadUsage`], with GNU ls's
/// statuses.
pub use cli::BadUsage as ArgError;

/// GNU ls's status for its own usage checks (argmatch's are 1).
const USAGE: u8 = 2;

/// A message followed by the "Try --help" line, status 2.
pub(crate) fn usage(m: Vec<u8>) -> ArgError {
    ArgError::with_help(m, USAGE)
}

/// argmatch's report: `invalid argument 'x' for '--opt'` and the list of
/// valid ones ([`cli::argmatch::lookup`]), the "Try" line, status 1.
fn bad_choice(m: Vec<u8>) -> ArgError {
    ArgError::with_help(m, 1)
}

/// A message without the "Try" line, status 2.
pub(crate) fn plain(m: Vec<u8>) -> ArgError {
    ArgError::plain(vec![m], USAGE)
}

fn s(v: &OsString) -> String {
    v.to_string_lossy().into_owned()
}

#[cfg_attr(ringutils_small, optimize(size))]
fn choice<T: Copy + PartialEq>(
    value: &str,
    option: &str,
    table: &[(&'static str, T)],
) -> Result<T, ArgError> {
    cli::argmatch::lookup(value.as_bytes(), table, option).map_err(bad_choice)
}

#[cfg_attr(ringutils_small, optimize(size))]
fn when(v: Option<OsString>, option: &str) -> Result<When, ArgError> {
    match v {
        None => Ok(When::Always),
        Some(v) => choice(&s(&v), option, WHEN),
    }
}

/// Parses the arguments after the program name, against the option table
/// in [`crate::help::OPTIONS`] (getopt_long's rules: [`cli::opts::Parser`]).
/// The first mistake ends parsing, as in GNU ls; so do --help and
/// --version.
#[cfg_attr(ringutils_small, optimize(size))]
pub fn parse<I: IntoIterator<Item = OsString>>(argv: I) -> Result<Args, ArgError> {
    let posix = std::env::var_os("POSIXLY_CORRECT").is_some();
    parse_with(argv, posix)
}

/// [`parse`] with POSIXLY_CORRECT given (the first operand ends options).
pub fn parse_with<I: IntoIterator<Item = OsString>>(
    argv: I,
    posixly_correct: bool,
) -> Result<Args, ArgError> {
    let mut a = Args::default();
    let p = Parser::from_os(OPTIONS, GETOPT_ORDER, argv, posixly_correct);
    for item in p {
        match item {
            Item::Operand(v) => a.files.push(v),
            Item::Error(e) => return Err(e.bad_usage(USAGE)),
            Item::Opt { id, value, .. } => {
                apply(&mut a, id, value.map(OsString::from_vec))?;
                if a.help || a.version {
                    break;
                }
            }
        }
    }
    Ok(a)
}

fn set_sort(a: &mut Args, s: Sort) {
    a.sort = s;
    a.sort_given = true;
}

/// GNU's decode_line_length: too large means unlimited (0).
pub fn line_length(v: &str) -> Option<usize> {
    match cli::num::parse_unsigned(v, "", false) {
        Ok(n) if n.value <= isize::MAX as u64 => Some(n.value as usize),
        Ok(_) | Err(cli::num::NumError::TooLarge) => Some(0),
        Err(_) => None,
    }
}

fn parse_width(v: &str) -> Result<usize, ArgError> {
    // GNU words these "%s: %s" around a translated head.
    line_length(v).ok_or_else(|| plain(headed(c"invalid line width", v, None)))
}

fn parse_tabsize(v: &str) -> Result<usize, ArgError> {
    match cli::num::parse_unsigned(v, "", false) {
        Ok(n) => Ok(n.value as usize),
        Err(cli::num::NumError::TooLarge) => {
            Err(plain(headed(c"invalid tab size", v, Some(ringio::Errno(libc::EOVERFLOW)))))
        }
        Err(_) => Err(plain(headed(c"invalid tab size", v, None))),
    }
}

/// GNU's quote() of an option's value: its `locale` style, in the C locale
/// `'…'` with C escapes.
fn quote_arg(v: &str) -> Vec<u8> {
    cli::quote::quote(v.as_bytes(), Style::Locale)
}

/// `<translated head>: 'value'` and, when given, `: <errno text>`.
fn headed(head: &'static std::ffi::CStr, v: &str, e: Option<ringio::Errno>) -> Vec<u8> {
    let mut m = cli::locale::tr(head).to_vec();
    m.extend_from_slice(b": ");
    m.extend_from_slice(&quote_arg(v));
    if let Some(e) = e {
        m.extend_from_slice(b": ");
        m.extend_from_slice(e.message().as_bytes());
    }
    m
}

/// What one option does to [`Args`].
#[cfg_attr(ringutils_small, optimize(size))]
fn apply(a: &mut Args, id: Id, v: Option<OsString>) -> Result<(), ArgError> {
    let val = || v.as_ref().map(s).unwrap_or_default();
    match id {
        Id::Format
        | Id::FullTime
        | Id::Long
        | Id::Commas
        | Id::Across
        | Id::Columns
        | Id::OnePerLine
        | Id::Tree
        | Id::Level
        | Id::Json
        | Id::Icons => apply_layout(a, id, v)?,
        Id::Sort
        | Id::SortSize
        | Id::SortTime
        | Id::SortNone
        | Id::SortVersion
        | Id::SortExtension
        | Id::Unsorted
        | Id::Time
        | Id::Ctime
        | Id::Atime => apply_order(a, id, v)?,
        Id::All => a.hidden = Hidden::All,
        Id::AlmostAll => a.hidden = Hidden::AlmostAll,
        Id::Author => a.author = true,
        Id::Escape => a.quoting = Some(Style::Escape),
        Id::BlockSize => {
            let spec = val();
            let f = cli::size::parse_block_size_checked(&spec)
                .map_err(|e| plain(e.message("--block-size", spec.as_bytes())))?;
            set_sizes(a, f);
        }
        Id::IgnoreBackups => {
            a.ignore.push(b"*~".to_vec());
            a.ignore.push(b".*~".to_vec());
        }
        Id::Color => {
            a.color = when(v, "--color")?;
            a.color_given = true;
        }
        Id::Directory => a.directory = true,
        Id::Dired => a.dired = true,
        Id::Classify => {
            a.classify_when = when(v, "--classify")?;
            a.indicator = Indicator::Classify;
        }
        Id::FileType => a.indicator = Indicator::FileType,
        Id::DirsFirst => a.dirs_first = true,
        Id::NoGroup => a.no_group = true,
        Id::Human => set_sizes(a, SizeFormat::human(false)),
        Id::Si => set_sizes(a, SizeFormat::human(true)),
        Id::DerefArgs => a.deref = Some(Deref::CommandLine),
        Id::DerefArgDirs => a.deref = Some(Deref::CommandLineDirs),
        Id::Hide => a.hide.push(v.unwrap_or_default().into_vec()),
        Id::Hyperlink => a.hyperlink = when(v, "--hyperlink")?,
        Id::IndicatorStyle => {
            a.indicator = choice(&val(), "--indicator-style", INDICATORS)?;
            a.classify_when = When::Always;
        }
        Id::Inode => a.inode = true,
        Id::Ignore => a.ignore.push(v.unwrap_or_default().into_vec()),
        // Only where no -h/--si/--block-size is given, in any order (plan.rs).
        Id::Kibibytes => a.kibibytes = true,
        Id::Dereference => a.deref = Some(Deref::Always),
        Id::Numeric => long_with(a, |a| a.numeric = true),
        Id::Literal => a.quoting = Some(Style::Literal),
        Id::HideControl => a.hide_control = Some(true),
        Id::ShowControl => a.hide_control = Some(false),
        Id::QuoteName => a.quoting = Some(Style::C),
        Id::QuotingStyle => a.quoting = Some(choice(&val(), "--quoting-style", &quoting_styles())?),
        Id::Reverse => a.reverse = true,
        Id::Recursive => a.recursive = true,
        Id::Size => a.size_blocks = true,
        Id::TimeStyle => a.time_style = Some(val()),
        Id::Tabsize => a.tabsize = Some(parse_tabsize(&val())?),
        Id::Width => a.width = Some(parse_width(&val())?),
        Id::Context => a.context = true,
        Id::Zero => zero(a),
        Id::Help => a.help = true,
        Id::Version => a.version = true,
        Id::NoOwner => long_with(a, |a| a.no_owner = true),
        Id::NoGroupLong => long_with(a, |a| a.no_group = true),
        Id::Slash => a.indicator = Indicator::Slash,
    }
    Ok(())
}

/// What an option choosing the layout (format, tree, JSON, icons) does
/// to [`Args`]; `apply` passes only those.
#[cfg_attr(ringutils_small, optimize(size))]
fn apply_layout(a: &mut Args, id: Id, v: Option<OsString>) -> Result<(), ArgError> {
    match id {
        Id::Format => {
            let v = v.as_ref().map(s).unwrap_or_default();
            a.format = Some(choice(&v, "--format", FORMATS)?)
        }
        Id::FullTime => {
            a.format = Some(Format::Long);
            a.time_style = Some("full-iso".into());
        }
        // Bare, `auto` as eza's and lsd's: glyphs only on a terminal, so
        // `lsr --icons | grep` sees plain names.
        Id::Icons => {
            a.icons = match v {
                None => When::Auto,
                v => when(v, "--icons")?,
            }
        }
        Id::Tree => {
            a.tree = true;
            if let Some(d) = v.as_ref() {
                a.tree_depth = Some(tree_depth(d)?);
            }
        }
        Id::Level => {
            a.level = true;
            a.tree_depth = Some(tree_depth(v.as_ref().unwrap_or(&OsString::new()))?);
        }
        Id::Json => {
            a.json = Some(match v {
                None => cli::json::Framing::Array,
                Some(v) => choice(&s(&v), "--json", cli::json::Framing::WORDS)?,
            })
        }
        Id::Columns => a.format = Some(Format::Columns),
        Id::Long => a.format = Some(Format::Long),
        Id::Commas => a.format = Some(Format::Commas),
        Id::Across => a.format = Some(Format::Across),
        // -1 has no effect after -l.
        Id::OnePerLine if a.format != Some(Format::Long) => a.format = Some(Format::OnePerLine),
        _ => {}
    }
    Ok(())
}

/// What an option choosing the sort key or the time shown (and sorted
/// by) does to [`Args`]; `apply` passes only those.
#[cfg_attr(ringutils_small, optimize(size))]
fn apply_order(a: &mut Args, id: Id, v: Option<OsString>) -> Result<(), ArgError> {
    let val = || v.as_ref().map(s).unwrap_or_default();
    match id {
        Id::Sort => set_sort(a, choice(&val(), "--sort", SORTS)?),
        Id::Time => a.time = choice(&val(), "--time", TIMES)?,
        Id::Ctime => a.time = TimeKind::Ctime,
        Id::Unsorted => unsorted(a),
        Id::SortSize => set_sort(a, Sort::Size),
        Id::SortTime => set_sort(a, Sort::Time),
        Id::Atime => a.time = TimeKind::Atime,
        Id::SortNone => set_sort(a, Sort::None),
        Id::SortVersion => set_sort(a, Sort::Version),
        Id::SortExtension => set_sort(a, Sort::Extension),
        _ => {}
    }
    Ok(())
}

const FORMATS: &[(&str, Format)] = &[
    ("verbose", Format::Long),
    ("long", Format::Long),
    ("commas", Format::Commas),
    ("horizontal", Format::Across),
    ("across", Format::Across),
    ("vertical", Format::Columns),
    ("single-column", Format::OnePerLine),
];

const INDICATORS: &[(&str, Indicator)] = &[
    ("none", Indicator::None),
    ("slash", Indicator::Slash),
    ("file-type", Indicator::FileType),
    ("classify", Indicator::Classify),
];

const SORTS: &[(&str, Sort)] = &[
    ("none", Sort::None),
    ("time", Sort::Time),
    ("size", Sort::Size),
    ("extension", Sort::Extension),
    ("version", Sort::Version),
    ("width", Sort::Width),
];

const TIMES: &[(&str, TimeKind)] = &[
    ("atime", TimeKind::Atime),
    ("access", TimeKind::Atime),
    ("use", TimeKind::Atime),
    ("ctime", TimeKind::Ctime),
    ("status", TimeKind::Ctime),
    ("birth", TimeKind::Birth),
    ("creation", TimeKind::Birth),
];

/// `--quoting-style`'s choices, in cli's order.
fn quoting_styles() -> Vec<(&'static str, Style)> {
    Style::NAMES.iter().map(|n| (*n, Style::parse(n).unwrap_or(Style::Literal))).collect()
}

/// -h, --si, --block-size: file sizes and block counts alike.
fn set_sizes(a: &mut Args, f: SizeFormat) {
    a.file_size = Some(f);
    a.block_size = Some(f);
}

/// -g, -n, -o: the long format with a change.
fn long_with(a: &mut Args, change: impl FnOnce(&mut Args)) {
    change(a);
    a.format = Some(Format::Long);
}

/// --zero: NUL-ended lines, names as they are; one a line unless -l.
fn zero(a: &mut Args) {
    a.zero = true;
    a.hide_control = Some(false);
    a.quoting = Some(Style::Literal);
    if a.format != Some(Format::Long) {
        a.format = Some(Format::OnePerLine);
    }
}

/// -f: everything, in directory order, without what needs a stat or
/// colour (GNU's -f turns off -l, -s, --color and --hyperlink).
fn unsorted(a: &mut Args) {
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

/// --tree=DEPTH's value.
fn tree_depth(d: &OsString) -> Result<usize, ArgError> {
    s(d).parse::<usize>().map_err(|_| {
        // Not a GNU option: no catalog has this.
        plain([b"invalid tree depth: ".as_slice(), &quote_arg(&s(d))].concat())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(v: &[&str]) -> Result<Args, ArgError> {
        parse_with(v.iter().map(OsString::from), false)
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
        assert!(matches!(p(&["--d"]), Err(e) if e.try_help && e.status == 2));
        assert!(matches!(p(&["-y"]), Err(e) if e.lines == [b"invalid option -- 'y'".to_vec()]));
        assert!(matches!(p(&["--sort=bogus"]), Err(e) if e.try_help && e.status == 1));
        let a = p(&["--", "-l"]).unwrap();
        assert_eq!(a.files, vec![b"-l".to_vec()]);
    }
}
