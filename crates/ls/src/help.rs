//! lsr's option table — the one source of its parser ([`crate::args`]),
//! `--help`, completions and man page — and the texts around it (our own
//! wording; the option set and layout are GNU ls 9.1's).

use cli::opts::{Arg, Complete, Doc, Opt};

/// What each option does; [`crate::args`] dispatches on these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Id {
    All,
    AlmostAll,
    Author,
    Escape,
    BlockSize,
    IgnoreBackups,
    Ctime,
    Columns,
    Color,
    Directory,
    Dired,
    Unsorted,
    Classify,
    FileType,
    Format,
    FullTime,
    NoOwner,
    DirsFirst,
    NoGroup,
    Human,
    Si,
    DerefArgs,
    DerefArgDirs,
    Hide,
    Hyperlink,
    IndicatorStyle,
    Inode,
    Ignore,
    Kibibytes,
    Long,
    Dereference,
    Commas,
    Numeric,
    Literal,
    NoGroupLong,
    Slash,
    HideControl,
    ShowControl,
    QuoteName,
    QuotingStyle,
    Reverse,
    Recursive,
    Size,
    SortSize,
    Sort,
    Time,
    TimeStyle,
    SortTime,
    Tabsize,
    Atime,
    SortNone,
    SortVersion,
    Width,
    Across,
    SortExtension,
    Context,
    Zero,
    OnePerLine,
    Icons,
    Tree,
    Level,
    Json,
    Help,
    Version,
}

const WHEN: Complete = Complete::Words(&["always", "auto", "never"]);

const fn req(s: Option<u8>, l: &'static str, a: &'static str, id: Id, h: &'static str) -> Opt<Id> {
    Opt::new(s, Some(l), Arg::Required(a), id, h)
}

const fn opt(l: &'static str, a: &'static str, id: Id, h: &'static str) -> Opt<Id> {
    Opt::new(None, Some(l), Arg::Optional(a), id, h)
}

/// Every option lsr accepts, in `--help` order.
pub const OPTIONS: &[Opt<Id>] = &[
    Opt::flag(b'a', "all", Id::All, "show every entry, those starting with . included"),
    Opt::flag(b'A', "almost-all", Id::AlmostAll, "like -a, but leave out . and .."),
    Opt::long("author", Id::Author, "with -l, add a column with each file's author"),
    Opt::flag(b'b', "escape", Id::Escape, "write unprintable bytes of names as C escapes"),
    req(None, "block-size", "SIZE", Id::BlockSize, "with -l, show sizes in units of SIZE (e.g. '--block-size=M'); SIZE is described below"),
    Opt::flag(b'B', "ignore-backups", Id::IgnoreBackups, "skip entries whose names end in ~"),
    Opt::short(b'c', Id::Ctime, "use the status-change time (ctime): with -lt, show it and sort by it; with -l, show it and sort by name; alone, sort by it, newest first"),
    Opt::short(b'C', Id::Columns, "list entries in columns, top to bottom"),
    opt("color", "WHEN", Id::Color, "colour names by file type WHEN (see below)").completes(WHEN),
    Opt::flag(b'd', "directory", Id::Directory, "list directories as themselves, not their contents"),
    Opt::flag(b'D', "dired", Id::Dired, "produce output for Emacs' dired mode"),
    Opt::short(b'f', Id::Unsorted, "all entries, in directory order, without colour"),
    Opt::new(Some(b'F'), Some("classify"), Arg::Optional("WHEN"), Id::Classify, "mark each name with its type (one of */=>@|) WHEN").completes(WHEN),
    Opt::long("file-type", Id::FileType, "the same marks, except * for executables"),
    req(None, "format", "WORD", Id::Format, "lay out as WORD: across or horizontal (-x), commas (-m), long or verbose (-l), single-column (-1), vertical (-C)")
        .completes(Complete::Words(&["across", "commas", "horizontal", "long", "single-column", "verbose", "vertical"])),
    Opt::long("full-time", Id::FullTime, "the same as -l --time-style=full-iso"),
    Opt::short(b'g', Id::NoOwner, "long listing without the owner column"),
    Opt::long("group-directories-first", Id::DirsFirst, "put directories before other files (the chosen sort applies within each group; --sort=none or -U turns grouping off)"),
    Opt::flag(b'G', "no-group", Id::NoGroup, "leave out the group column of long listings"),
    Opt::flag(b'h', "human-readable", Id::Human, "with -l and -s, sizes like 1K 234M 2G"),
    Opt::long("si", Id::Si, "the same, in powers of 1000 instead of 1024"),
    Opt::flag(b'H', "dereference-command-line", Id::DerefArgs, "follow symbolic links named on the command line"),
    Opt::long("dereference-command-line-symlink-to-dir", Id::DerefArgDirs, "follow symbolic links named on the command line only when they lead to a directory"),
    req(None, "hide", "PATTERN", Id::Hide, "skip entries matching the shell PATTERN, unless -a or -A is given").completes(Complete::Nothing),
    opt("hyperlink", "WHEN", Id::Hyperlink, "make names file:// hyperlinks WHEN").completes(WHEN),
    req(None, "indicator-style", "WORD", Id::IndicatorStyle, "mark names in style WORD: none (the default), slash (-p), file-type (--file-type), classify (-F)")
        .completes(Complete::Words(&["none", "slash", "file-type", "classify"])),
    Opt::flag(b'i', "inode", Id::Inode, "show each file's inode number"),
    req(Some(b'I'), "ignore", "PATTERN", Id::Ignore, "skip entries matching the shell PATTERN").completes(Complete::Nothing),
    Opt::flag(b'k', "kibibytes", Id::Kibibytes, "count file system usage (-s, totals) in 1024-byte blocks"),
    Opt::short(b'l', Id::Long, "long listing: type, permissions, links, owner, group, size, time"),
    Opt::flag(b'L', "dereference", Id::Dereference, "for symbolic links, show the file they point to, not the link"),
    Opt::short(b'm', Id::Commas, "fill the width with a comma-separated list"),
    Opt::flag(b'n', "numeric-uid-gid", Id::Numeric, "like -l, with user and group ids as numbers"),
    Opt::flag(b'N', "literal", Id::Literal, "print names as they are, unquoted"),
    Opt::short(b'o', Id::NoGroupLong, "long listing without the group column"),
    Opt::short(b'p', Id::Slash, "append / to directory names (--indicator-style=slash)"),
    Opt::flag(b'q', "hide-control-chars", Id::HideControl, "show unprintable bytes of names as ?"),
    Opt::long("show-control-chars", Id::ShowControl, "print unprintable bytes as they are (the default unless output is a terminal)"),
    Opt::flag(b'Q', "quote-name", Id::QuoteName, "put names in double quotes"),
    req(None, "quoting-style", "WORD", Id::QuotingStyle, "quote names in style WORD: literal, locale, shell, shell-always, shell-escape, shell-escape-always, c, escape (this overrides QUOTING_STYLE)")
        .completes(Complete::Words(&["literal", "locale", "shell", "shell-always", "shell-escape", "shell-escape-always", "c", "c-maybe", "escape", "clocale"])),
    Opt::flag(b'r', "reverse", Id::Reverse, "reverse the sort order"),
    Opt::flag(b'R', "recursive", Id::Recursive, "list subdirectories too, all the way down"),
    Opt::flag(b's', "size", Id::Size, "show each file's allocated size in blocks"),
    Opt::short(b'S', Id::SortSize, "sort by size, largest first"),
    req(None, "sort", "WORD", Id::Sort, "sort by WORD instead of name: none (-U), size (-S), time (-t), version (-v), extension (-X), width")
        .completes(Complete::Words(&["none", "size", "time", "version", "extension", "width"])),
    req(None, "time", "WORD", Id::Time, "show and sort by another time than modification:\n  access (-u): atime, access, use;\n  change (-c): ctime, status;\n  birth: birth, creation;\nwith -l, WORD is the time shown; with -t, the one sorted by")
        .completes(Complete::Words(&["atime", "access", "use", "ctime", "status", "birth", "creation"])),
    req(None, "time-style", "TIME_STYLE", Id::TimeStyle, "show times in TIME_STYLE with -l (see below)")
        .completes(Complete::Words(&["full-iso", "long-iso", "iso", "locale"])),
    Opt::short(b't', Id::SortTime, "sort by time, newest first (see --time)"),
    req(Some(b'T'), "tabsize", "COLS", Id::Tabsize, "tab stops every COLS columns instead of 8").completes(Complete::Nothing),
    Opt::short(b'u', Id::Atime, "use the access time (atime): with -lt, show it and sort by it; with -l, show it and sort by name; alone, sort by it, newest first"),
    Opt::short(b'U', Id::SortNone, "do not sort: directory order"),
    Opt::short(b'v', Id::SortVersion, "sort numbers within names by value (version order)"),
    req(Some(b'w'), "width", "COLS", Id::Width, "assume an output width of COLS; 0 means no limit").completes(Complete::Nothing),
    Opt::short(b'x', Id::Across, "list entries in rows, left to right"),
    Opt::short(b'X', Id::SortExtension, "sort by extension"),
    Opt::flag(b'Z', "context", Id::Context, "show each file's security context"),
    Opt::long("zero", Id::Zero, "end each output line with a NUL byte, not a newline"),
    Opt::short(b'1', Id::OnePerLine, "one name per line"),
    opt("icons", "WHEN", Id::Icons, "put a Nerd Font icon before each name WHEN; bare --icons is --icons=auto (not in GNU ls)").completes(WHEN).beyond_gnu(),
    opt("tree", "DEPTH", Id::Tree, "show each directory as a tree of everything below it, DEPTH levels deep at most, one entry per line (-l: in the long format), sorted as asked; -d: directories only (not in GNU ls)").completes(Complete::Nothing).beyond_gnu(),
    req(None, "level", "DEPTH", Id::Level, "with --tree, DEPTH levels deep at most (not in GNU ls)").completes(Complete::Nothing).beyond_gnu(),
    opt("json", "FORM", Id::Json, "print each entry as a JSON object, for scripts: FORM 'array' (the default) one JSON array, 'lines' one object per line (JSON Lines); with --tree, nested (not in GNU ls)").completes(Complete::Words(&["array", "lines"])).beyond_gnu(),
    Opt::long("help", Id::Help, "print this help and exit"),
    Opt::long("version", Id::Version, "print the version and the I/O engine, and exit"),
];

/// GNU ls's long-option table order (coreutils 9.1's, which is neither
/// alphabetical nor --help's): getopt lists the candidates of an ambiguous
/// prefix in this order, `ls --s` as '--size' '--si' '--show-control-chars'
/// '--sort'. Our own options (--icons, --tree, --level, --json) are not in
/// GNU's table and come after it.
pub const GETOPT_ORDER: &[&str] = &[
    "all",
    "escape",
    "directory",
    "dired",
    "full-time",
    "group-directories-first",
    "human-readable",
    "inode",
    "kibibytes",
    "numeric-uid-gid",
    "no-group",
    "hide-control-chars",
    "reverse",
    "size",
    "width",
    "almost-all",
    "ignore-backups",
    "classify",
    "file-type",
    "si",
    "dereference-command-line",
    "dereference-command-line-symlink-to-dir",
    "hide",
    "ignore",
    "indicator-style",
    "dereference",
    "literal",
    "quote-name",
    "quoting-style",
    "recursive",
    "format",
    "show-control-chars",
    "sort",
    "tabsize",
    "time",
    "time-style",
    "zero",
    "color",
    "hyperlink",
    "block-size",
    "context",
    "author",
    "help",
    "version",
];

const ABOUT: &str = "\
List the FILEs (the current directory if none is given), as GNU ls does.
Entries are sorted by name unless one of -cftuvSUX or --sort says otherwise.";

const NOTES: &str = "\
SIZE is a whole number with an optional unit: K, M, G, T, P, E, Z, Y are
powers of 1024 (10K is 10*1024), KB, MB, ... powers of 1000; KiB, MiB, ...
mean the same as K, M, ...

TIME_STYLE is full-iso, long-iso, iso, locale, or +FORMAT with FORMAT as in
date(1). A FORMAT of the form FORMAT1<newline>FORMAT2 uses FORMAT1 for files
older than six months (or in the future) and FORMAT2 for recent ones. A
'posix-' prefix applies the style only outside the C/POSIX locale. The
TIME_STYLE environment variable sets the default.

WHEN is 'always' when left out (but 'auto' for --icons), or 'auto' or 'never'
(also: yes, force; tty, if-tty; no, none). 'auto' means: when standard output
is a terminal.

Colour is off unless asked for. --color=auto colours only when standard output
is a terminal, and (beyond GNU) not when NO_COLOR is set to a non-empty value.
Colours come from LS_COLORS (see dircolors(1)); when it is unset or empty,
the built-in ones are used if COLORTERM is set or TERM names a colour
terminal, so TERM=dumb means no colour.

--json (beyond GNU) gives each entry as an object: path, name, type, size
in bytes, blocks, mode (a number, mode_octal, mode_string), nlink, inode,
uid and user, gid and group, atime, mtime, ctime, btime (ISO 8601 local time
with its offset; *_sec, *_nsec: since the epoch), target and target_ok of
symbolic links, acl. What is listed follows the options (-a, -A, -d, -R,
--tree, -I, sorting); layout, colour, quoting and size units don't apply.

RINGIO_BACKEND=uring|threads|sync picks the I/O engine's executor (see
--version for the one chosen here).

Exit status:
 0  success,
 1  minor trouble (e.g. a subdirectory that cannot be read),
 2  serious trouble (e.g. a command-line operand that cannot be accessed).";

/// lsr's documentation, for `--help`, the man page and completions.
pub fn doc() -> Doc {
    Doc::from_opts(
        "lsr",
        "ls",
        "list directory contents (GNU ls compatible)",
        &["[OPTION]... [FILE]..."],
        ABOUT,
        OPTIONS,
        NOTES,
    )
}

pub fn text(prog: &str) -> String {
    doc().help(prog)
}

/// `--version`: names lsr itself whatever argv[0] is, as GNU's does.
pub fn version() -> String {
    doc().version(ringio::Workload::Batches)
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_is_consistent() {
        cli::opts::check_table(super::OPTIONS, super::GETOPT_ORDER).unwrap();
    }

    /// Every long option of the table is in GNU's order but ours, which
    /// come last.
    #[test]
    fn getopt_order_is_gnus_then_ours() {
        let ours = ["icons", "tree", "level", "json"];
        for o in super::OPTIONS.iter().filter_map(|o| o.long) {
            assert!(
                super::GETOPT_ORDER.contains(&o) != ours.contains(&o),
                "--{o}: in GNU's table order exactly when GNU ls has it"
            );
        }
    }

    /// Ambiguous prefixes, as GNU ls 9.1 (glibc's getopt) words them.
    #[test]
    fn ambiguities_in_gnus_order() {
        use cli::opts::{Item, Parser};
        let msg = |arg: &str| -> String {
            let p = Parser::new(super::OPTIONS, super::GETOPT_ORDER, vec![arg.into()], false);
            p.into_iter()
                .find_map(|i| match i {
                    Item::Error(e) => Some(e.text()),
                    _ => None,
                })
                .unwrap()
        };
        let gnu = [
            ("--s", "'--size' '--si' '--show-control-chars' '--sort'"),
            ("--c", "'--classify' '--color' '--context'"),
            ("--f", "'--full-time' '--file-type' '--format'"),
            ("--h", "'--human-readable' '--hide-control-chars' '--hide' '--hyperlink' '--help'"),
            ("--n", "'--numeric-uid-gid' '--no-group'"),
            ("--in", "'--inode' '--indicator-style'"),
            ("--hi", "'--hide-control-chars' '--hide'"),
            // Ours are beyond GNU's: a prefix GNU's options share means
            // what it means to GNU (and is ambiguous among GNU's alone).
            ("--t", "'--tabsize' '--time' '--time-style'"),
            ("--i", "'--inode' '--ignore-backups' '--ignore' '--indicator-style'"),
        ];
        for (arg, names) in gnu {
            assert_eq!(msg(arg), format!("option '{arg}' is ambiguous; possibilities: {names}"));
        }
    }

    /// Prefixes of our options that GNU's options share keep GNU's
    /// meaning (`--l` is `--literal`); the others reach ours.
    #[test]
    fn our_options_leave_gnus_prefixes_alone() {
        use super::Id;
        use cli::opts::{Item, Parser};
        let id = |arg: &str| {
            let p = Parser::new(super::OPTIONS, super::GETOPT_ORDER, vec![arg.into()], false);
            match p.into_iter().next() {
                Some(Item::Opt { id, .. }) => Some(id),
                _ => None,
            }
        };
        assert_eq!(id("--l"), Some(Id::Literal));
        assert_eq!(id("--le=2"), Some(Id::Level));
        assert_eq!(id("--j"), Some(Id::Json));
        assert_eq!(id("--tr"), Some(Id::Tree));
        assert_eq!(id("--ic"), Some(Id::Icons));
        assert_eq!(id("--ti"), None);
    }
}
