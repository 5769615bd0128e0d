//! The plan: arguments resolved against the environment (terminal or not,
//! COLUMNS, TIME_STYLE, LS_COLORS…) the way GNU ls resolves them, plus what
//! the gather phase must fetch for each kind of entry.

use cli::glob::{Flags, Glob};
use cli::quote::{Quoter, Style};
use cli::size::SizeFormat;
use cli::timefmt::{StyleError, TimeStyle};

use crate::args::{ArgError, Args, Deref, Format, Hidden, Indicator, Sort, TimeKind, When};
use crate::colors::{Colors, Setup};
use crate::entry::FileType;

/// The environment the plan depends on, captured once (and faked in tests).
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub stdout_tty: bool,
    pub term_width: Option<usize>,
    pub columns: Option<String>,
    pub tabsize: Option<String>,
    pub time_style: Option<String>,
    pub quoting_style: Option<String>,
    pub ls_colors: Option<Vec<u8>>,
    pub colorterm: Option<Vec<u8>>,
    pub term: Option<Vec<u8>>,
    /// NO_COLOR set to a non-empty value: `--color=auto` means never
    /// (beyond GNU; <https://no-color.org>).
    pub no_color: bool,
    /// LS_BLOCK_SIZE, else BLOCK_SIZE (these also switch `-l` file sizes
    /// to blocks).
    pub block_size: Option<String>,
    /// BLOCKSIZE, the last variable GNU's human_options reads: block
    /// counts only.
    pub blocksize: Option<String>,
    pub posixly_correct: bool,
}

impl Env {
    #[cfg_attr(ringutils_small, optimize(size))]
    pub fn from_process() -> Env {
        use std::os::unix::ffi::OsStringExt;
        let var = |k: &str| std::env::var(k).ok();
        let raw = |k: &str| std::env::var_os(k).map(|v| v.into_vec());
        let tty = libcw::isatty(1);
        Env {
            stdout_tty: tty,
            term_width: if tty { libcw::terminal_width(1) } else { None },
            columns: var("COLUMNS"),
            tabsize: var("TABSIZE"),
            time_style: var("TIME_STYLE"),
            quoting_style: var("QUOTING_STYLE"),
            ls_colors: raw("LS_COLORS"),
            colorterm: raw("COLORTERM"),
            term: raw("TERM"),
            no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            block_size: var("LS_BLOCK_SIZE").or_else(|| var("BLOCK_SIZE")),
            blocksize: var("BLOCKSIZE"),
            posixly_correct: std::env::var_os("POSIXLY_CORRECT").is_some(),
        }
    }
}

/// Warnings GNU prints while resolving (not fatal).
#[derive(Debug, Default)]
pub struct Warnings(pub Vec<Vec<u8>>);

#[derive(Clone, Debug)]
pub struct Plan {
    pub format: Format,
    pub hidden: Hidden,
    pub sort: Sort,
    pub reverse: bool,
    pub time: TimeKind,
    pub time_style: TimeStyle,
    pub file_size: SizeFormat,
    pub block_size: SizeFormat,
    pub inode: bool,
    pub size_blocks: bool,
    pub numeric: bool,
    pub show_owner: bool,
    pub show_group: bool,
    pub author: bool,
    pub context: bool,
    pub indicator: Indicator,
    pub quoter: Quoter,
    pub dir_quoter: Quoter,
    /// -q: print '?' for unprintable bytes (literal/shell styles).
    pub qmark: bool,
    /// Standard output is a terminal: control bytes of names are never
    /// printed raw there, whatever the options (escape-sequence injection).
    pub tty_guard: bool,
    /// 0 = no limit.
    pub width: usize,
    pub tabsize: usize,
    pub deref: Deref,
    pub dirs_first: bool,
    pub ignore: Vec<Glob>,
    pub hide: Vec<Glob>,
    pub colors: Option<Box<Colors>>,
    pub hyperlink: bool,
    pub icons: bool,
    pub eol: u8,
    pub recursive: bool,
    pub directory: bool,
    /// `--tree`, and its depth limit.
    pub tree: Option<Option<usize>>,
    /// `--tree -d`: directories only.
    pub tree_dirs_only: bool,
    /// `--json`: what the gather phase fetches for it (as for `-l`, and
    /// link targets), and how the objects are framed.
    pub json: bool,
    pub json_framing: cli::json::Framing,
    /// `-D` with `-l`: Emacs dired offsets.
    pub dired: bool,
    /// sort/size/long/-s need every entry's stat (GNU's format_needs_stat).
    pub needs_stat: bool,
    /// -R/colour/indicators/grouping need every entry's type.
    pub needs_type: bool,
}

/// The output format: as asked, else columns on a terminal and one name a
/// line elsewhere; `--tree` and `--json` print one entry a line.
fn format(a: &Args, env: &Env) -> Format {
    let format =
        a.format.unwrap_or(if env.stdout_tty { Format::Columns } else { Format::OnePerLine });
    if a.json.is_some() || (a.tree && format != Format::Long) {
        Format::OnePerLine
    } else {
        format
    }
}

/// The sort key: -c/-u without -l sort by that time unless a sort was given.
fn sort(a: &Args, long: bool) -> Sort {
    if matches!(a.time, TimeKind::Ctime | TimeKind::Atime | TimeKind::Birth)
        && !a.sort_given
        && !long
    {
        Sort::Time
    } else {
        a.sort
    }
}

/// `--dired`: GNU drops it outside long format and with hyperlinks (its
/// offsets would have to skip them), before checking --zero.
fn dired(a: &Args, long: bool, hyperlink: bool) -> Result<bool, ArgError> {
    let dired = a.dired && long && !hyperlink;
    if dired && a.zero {
        return Err(crate::args::plain(
            cli::locale::tr(c"--dired and --zero are incompatible").to_vec(),
        ));
    }
    Ok(dired)
}

/// Whether the walk itself needs each entry's type: to recurse, to group
/// directories first, to draw a tree.
fn walks_by_type(a: &Args, dirs_first: bool) -> bool {
    a.recursive || dirs_first || a.tree
}

/// Which symlinks are followed: as asked, else GNU's default, operands
/// that link to directories, unless -d, -F or -l show links as links.
fn deref(a: &Args, directory: bool, indicator: Indicator, long: bool) -> Deref {
    a.deref.unwrap_or(if directory || indicator == Indicator::Classify || long {
        Deref::Never
    } else {
        Deref::CommandLineDirs
    })
}

/// Whether every entry is stat'ed (GNU's format_needs_stat): to sort by
/// time or size, and for what the long format, -s, --json and -Z show.
fn needs_stat(a: &Args, sort: Sort, long: bool) -> bool {
    matches!(sort, Sort::Time | Sort::Size)
        || long
        || a.size_blocks
        || a.json.is_some()
        || a.context
}

impl Plan {
    #[cfg_attr(ringutils_small, optimize(size))]
    pub fn new(a: &Args, env: &Env) -> Result<(Plan, Warnings), ArgError> {
        let mut warn = Warnings::default();
        refuse_with_tree(a)?;
        let format = format(a, env);
        let tree = a.tree.then_some(a.tree_depth);
        // In a tree -d keeps directories only (as tree(1)'s -d); the tree
        // lists its roots' contents either way.
        let directory = a.directory && !a.tree;
        let long = format == Format::Long;
        let sort = sort(a, long);

        let time_style = if long { time_style(a, env)? } else { TimeStyle::locale() };
        let (file_size, block_size) = sizes(a, env);
        // The order of the steps below is the order of GNU's warnings.
        let quoting = quoting(a, env, &mut warn);
        let qmark = a.hide_control.unwrap_or(env.stdout_tty);
        let indicator = indicator(a, env);
        let (quoter, dir_quoter) = quoters(quoting, indicator);

        let on = |w: When| when(w, env);
        let color_wanted = on(a.color) && !(a.color == When::Auto && env.no_color);
        // GNU also needs the line length when --color asks for colour (its
        // clear-to-end-of-line rule, see name.rs), even if LS_COLORS or TERM
        // then turn colour off: COLUMNS and the terminal's width are
        // consulted, and a bad COLUMNS warned about (before any LS_COLORS
        // warning), in every format then.
        let uses_width =
            matches!(format, Format::Columns | Format::Across | Format::Commas) || color_wanted;
        let width = line_width(a, env, uses_width, &mut warn);
        let colors = if color_wanted { colors(env, &mut warn) } else { None };

        let dired = dired(a, long, on(a.hyperlink))?;
        let mut tabsize = tabsize(a, env, &mut warn);
        if colors.is_some() {
            // GNU: no tabs mixed with colour sequences.
            tabsize = 0;
        }

        let deref = deref(a, directory, indicator, long);

        let dirs_first = a.dirs_first && sort != Sort::None;
        let ignore = globs(&a.ignore);
        let hide = if a.hidden == Hidden::Dots { globs(&a.hide) } else { Vec::new() };

        let needs_stat = needs_stat(a, sort, long);
        let shows_type = colors.is_some() || indicator != Indicator::None || on(a.icons);
        let needs_type = !needs_stat && (shows_type || walks_by_type(a, dirs_first));

        Ok((
            Plan {
                format,
                hidden: a.hidden,
                sort,
                reverse: a.reverse,
                time: a.time,
                time_style,
                file_size,
                block_size,
                inode: a.inode,
                size_blocks: a.size_blocks,
                numeric: a.numeric,
                show_owner: !a.no_owner,
                show_group: !a.no_group,
                author: a.author,
                context: a.context,
                indicator,
                quoter,
                dir_quoter,
                qmark,
                tty_guard: env.stdout_tty,
                width,
                tabsize,
                deref,
                dirs_first,
                ignore,
                hide,
                colors,
                hyperlink: on(a.hyperlink),
                icons: on(a.icons),
                eol: if a.zero { 0 } else { b'\n' },
                recursive: a.recursive && !directory && !a.tree,
                directory,
                tree,
                tree_dirs_only: a.tree && a.directory,
                json: a.json.is_some(),
                json_framing: a.json.unwrap_or(cli::json::Framing::Array),
                dired,
                needs_stat,
                needs_type,
            },
            warn,
        ))
    }

    pub fn long(&self) -> bool {
        self.format == Format::Long
    }

    /// Whether a directory entry must be stat'ed (lstat, or stat under -L),
    /// given its d_type. Mirrors GNU's conditions, so that colours and
    /// indicators come out exactly as GNU's (which uses d_type otherwise).
    pub fn stat_entry(&self, t: FileType) -> bool {
        // GNU takes -i numbers from stat, not d_ino (they differ on mount
        // points and overlays), so -i stats every entry.
        if self.needs_stat || self.inode {
            return true;
        }
        if t == FileType::Unknown {
            return self.needs_type;
        }
        if t == FileType::Link
            && self.needs_type
            && (self.deref == Deref::Always
                || self.link_target_needed()
                || self.colors.as_ref().is_some_and(|c| c.link_as_target))
        {
            return true;
        }
        if !self.needs_type {
            return false;
        }
        match t {
            FileType::Regular => {
                self.indicator == Indicator::Classify
                    || self.colors.as_ref().is_some_and(|c| c.needs_regular_stat())
                    || self.icons
            }
            FileType::Dir => self.colors.as_ref().is_some_and(|c| c.needs_dir_stat()),
            _ => false,
        }
    }

    /// Whether a symlink's target must be stat'ed (colour or indicator of
    /// the target, GNU's check_symlink_mode / -l with an indicator).
    pub fn link_target_needed(&self) -> bool {
        self.colors.as_ref().is_some_and(|c| c.needs_link_target(self.long()))
            || (self.long() && self.indicator >= Indicator::FileType)
            || self.dirs_first
            || self.json
    }

    /// Whether name matches -I/--hide or is hidden by the dot rule.
    pub fn ignored(&self, name: &[u8]) -> bool {
        match self.hidden {
            Hidden::Dots if name.first() == Some(&b'.') => return true,
            Hidden::AlmostAll if name == b"." || name == b".." => return true,
            _ => {}
        }
        self.ignore.iter().chain(&self.hide).any(|g| g.matches(name))
    }
}

/// The options a tree can't honour, refused rather than ignored (a JSON
/// tree has no layout, so only `--level` without `--tree` applies there).
fn refuse_with_tree(a: &Args) -> Result<(), ArgError> {
    // Not GNU's options: no catalog has these messages.
    let refuse = |m: &str| Err(crate::args::usage(m.as_bytes().to_vec()));
    if a.level && !a.tree {
        return refuse("--level limits the depth of --tree: give --tree too");
    }
    if !a.tree || a.json.is_some() {
        return Ok(());
    }
    if matches!(a.format, Some(Format::Columns | Format::Across | Format::Commas)) {
        return refuse("--tree draws one entry per line: -C, -x, -m and --format=across|commas|horizontal|vertical don't apply");
    }
    if a.dired {
        return refuse(
            "--dired gives Emacs the offsets of ls -l's names, which a tree doesn't have",
        );
    }
    Ok(())
}

/// -I and --hide patterns; GNU ls matches them with FNM_PERIOD.
fn globs(v: &[Vec<u8>]) -> Vec<Glob> {
    let flags = Flags { period: true, casefold: false };
    v.iter().map(|p| Glob::new(p, flags)).collect()
}

/// `always`/`never`/`auto` resolved: auto means "stdout is a terminal".
fn when(w: When, env: &Env) -> bool {
    match w {
        When::Always => true,
        When::Never => false,
        When::Auto => env.stdout_tty,
    }
}

/// The long format's time style: --time-style, else TIME_STYLE, else
/// GNU's default, "locale".
fn time_style(a: &Args, env: &Env) -> Result<TimeStyle, ArgError> {
    let spec = a.time_style.clone().or_else(|| env.time_style.clone());
    match spec {
        None => Ok(TimeStyle::parse_in("locale", cli::locale::info().time_hard)
            .unwrap_or_else(|_| TimeStyle::locale())),
        Some(s) => TimeStyle::parse_checked(&s).map_err(|e| match e {
            StyleError::Choice { value: v, why } => {
                crate::args::usage(crate::bad_time_style(why, v.as_bytes()))
            }
            StyleError::Format(f) => crate::args::plain(cli::locale::trf(
                c"invalid time style format %s",
                &[&cli::quote::quote(f.as_bytes(), cli::quote::Style::Locale)],
            )),
        }),
    }
}

/// The units of file sizes and of block counts: (file_size, block_size).
fn sizes(a: &Args, env: &Env) -> (SizeFormat, SizeFormat) {
    // Read leniently, as GNU's human_options does for the environment
    // (BLOCK_SIZE=2x means 2).
    let default_n = if env.posixly_correct { 512 } else { 1024 };
    let default_block = SizeFormat::blocks(default_n);
    let lenient = |v: &str| cli::size::parse_block_size_lenient(v, default_n);
    // A set but unusable value still counts as set: GNU then shows
    // file sizes, too, in the default block size.
    let env_size = env.block_size.as_deref().map(lenient);
    let file_size = a.file_size.or(env_size).unwrap_or(SizeFormat::BYTES);
    let blocksize = env.blocksize.as_deref().map(lenient);
    // -k gives way to -h, --si and --block-size wherever they are, and
    // beats the environment (for block counts only), as in GNU.
    let kibi = a.kibibytes.then_some(SizeFormat::blocks(1024));
    let block_size = a.block_size.or(kibi).or(env_size).or(blocksize).unwrap_or(default_block);
    (file_size, block_size)
}

/// The quoting style: the option, else QUOTING_STYLE (warned about when
/// unknown), else shell-escape on a terminal and literal elsewhere.
fn quoting(a: &Args, env: &Env, warn: &mut Warnings) -> Style {
    if let Some(q) = a.quoting {
        return q;
    }
    if let Some(q) = env.quoting_style.as_deref().and_then(Style::parse) {
        return q;
    }
    if let Some(bad) = env.quoting_style.as_deref() {
        warn.0.push(cli::locale::trf(
            c"ignoring invalid value of environment variable QUOTING_STYLE: %s",
            &[&cli::quote::quote(bad.as_bytes(), Style::Locale)],
        ));
    }
    if env.stdout_tty {
        Style::ShellEscape
    } else {
        Style::Literal
    }
}

/// The indicator style, with `--classify=WHEN` resolved.
fn indicator(a: &Args, env: &Env) -> Indicator {
    if a.indicator != Indicator::Classify {
        return a.indicator;
    }
    if when(a.classify_when, env) {
        Indicator::Classify
    } else {
        Indicator::None
    }
}

/// The quoters of file names and of directory headers: each style
/// escapes, besides its own set, what would be read as an indicator.
fn quoters(quoting: Style, indicator: Indicator) -> (Quoter, Quoter) {
    let mut quoter = Quoter::new(quoting);
    if quoting == Style::Escape {
        quoter = quoter.with_extra(b" ");
    }
    match indicator {
        Indicator::FileType => quoter = quoter.with_extra(b"*=>@|"),
        Indicator::Classify => quoter = quoter.with_extra(b"=>@|"),
        _ => {}
    }
    // GNU escapes the space for -b in file names only: a directory
    // header keeps it (`./a b:`), only the colon is added.
    let dir_quoter = Quoter::new(quoting).with_extra(b":");
    (quoter, dir_quoter)
}

/// The line length: -w, else (when the format or colour uses it) the
/// width of the terminal on standard output, else COLUMNS, else 80. GNU's
/// order: COLUMNS is read only where the terminal gives no width (not a
/// terminal, or a width of 0), so a stale COLUMNS never beats the real
/// width, nor is it warned about then.
fn line_width(a: &Args, env: &Env, uses_width: bool, warn: &mut Warnings) -> usize {
    if let Some(w) = a.width {
        return w;
    }
    if !uses_width {
        return 80;
    }
    if let Some(w) = env.term_width {
        return w;
    }
    if let Some(c) = env.columns.as_deref().filter(|c| !c.is_empty()) {
        match crate::args::line_length(c) {
            Some(n) => return n,
            None => warn.0.push(cli::locale::trf(
                c"ignoring invalid width in environment variable COLUMNS: %s",
                &[&cli::quote::quote(c.as_bytes(), Style::Locale)],
            )),
        }
    }
    80
}

/// The colours, when colour is wanted: from LS_COLORS, COLORTERM and
/// TERM, with GNU's warnings for an LS_COLORS it can't parse.
fn colors(env: &Env, warn: &mut Warnings) -> Option<Box<Colors>> {
    match Colors::from_env(env.ls_colors.as_deref(), env.colorterm.as_deref(), env.term.as_deref())
    {
        Setup::Colors(c) => Some(c),
        Setup::Off => None,
        Setup::Unparsable(key) => {
            if let Some(k) = key {
                warn.0.push(cli::locale::trf(
                    c"unrecognized prefix: %s",
                    &[&cli::quote::quote(&k, Style::Locale)],
                ));
            }
            warn.0.push(
                cli::locale::tr(c"unparsable value for LS_COLORS environment variable").to_vec(),
            );
            None
        }
    }
}

/// The tab stop width: -T, else TABSIZE (warned about when invalid),
/// else 8.
fn tabsize(a: &Args, env: &Env, warn: &mut Warnings) -> usize {
    if let Some(t) = a.tabsize {
        return t;
    }
    if let Some(t) = env.tabsize.as_deref() {
        match cli::num::parse_unsigned(t, "", false) {
            Ok(n) => return n.value as usize,
            Err(_) => warn.0.push(cli::locale::trf(
                c"ignoring invalid tab size in environment variable TABSIZE: %s",
                &[&cli::quote::quote(t.as_bytes(), Style::Locale)],
            )),
        }
    }
    8
}
