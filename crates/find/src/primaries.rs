//! lfind's table of everything its command line knows — leading options,
//! operators, options, tests, actions — with their argument shapes: the
//! one source of the parser ([`crate::parse`] looks every primary up
//! here and dispatches on its [`Id`]), `--help`, completions and the man
//! page. Our own wording; the set and the syntax are GNU find 4.9's.

use cli::opts::{Complete, Doc, Entry, Section, Word};

/// What a primary is, as GNU's help groups them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Before the starting points: -H -L -P -D -O (and lfind's -j -s).
    Leading,
    Operator,
    /// Options that take effect where they stand.
    Positional,
    /// Options that apply to the whole walk.
    Global,
    Test,
    Action,
    /// --help, --version.
    Info,
}

/// What follows a primary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Args {
    None,
    One(&'static str, Complete),
    Two(&'static str, &'static str),
    /// A command up to `;` or `{} +`.
    Command,
}

/// What a primary does; the parser dispatches on these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Id {
    FollowNever,
    FollowArgs,
    FollowAll,
    Debug,
    Optimize,
    Threads,
    Sorted,
    Paren,
    Not,
    And,
    Or,
    Comma,
    Daystart,
    Follow,
    Regextype,
    Warn,
    Nowarn,
    Depth,
    Maxdepth,
    Mindepth,
    Xdev,
    Noleaf,
    IgnoreRace,
    NoIgnoreRace,
    Posix,
    True,
    False,
    Name,
    Iname,
    Path,
    Ipath,
    Lname,
    Ilname,
    Context,
    Files0From,
    Regex,
    Iregex,
    Type,
    Xtype,
    Size,
    Empty,
    Newer,
    Anewer,
    Cnewer,
    NewerXY,
    Mtime,
    Atime,
    Ctime,
    Mmin,
    Amin,
    Cmin,
    Used,
    Perm,
    User,
    GroupName,
    Uid,
    Gid,
    Nouser,
    Nogroup,
    Links,
    Inum,
    Samefile,
    Readable,
    Writable,
    Executable,
    Fstype,
    Print,
    Print0,
    Fprint,
    Fprint0,
    Ls,
    Fls,
    Printf,
    Fprintf,
    Json,
    Fjson,
    Prune,
    Quit,
    Delete,
    Exec,
    Execdir,
    Ok,
    Okdir,
    Help,
    Version,
}

/// One entry of the table.
#[derive(Clone, Copy, Debug)]
pub struct Primary {
    pub name: &'static str,
    pub args: Args,
    pub kind: Kind,
    pub id: Id,
    pub help: &'static str,
    /// The name is a pattern: `-newerXY` (X, Y letters), `-Olevel`.
    pub family: bool,
}

const fn p(name: &'static str, kind: Kind, args: Args, id: Id, help: &'static str) -> Primary {
    Primary { name, args, kind, id, help, family: false }
}

const fn family(name: &'static str, kind: Kind, args: Args, id: Id, help: &'static str) -> Primary {
    Primary { name, args, kind, id, help, family: true }
}

const NONE: Args = Args::None;
const fn one(a: &'static str) -> Args {
    Args::One(a, Complete::Nothing)
}
const FILE: Args = Args::One("FILE", Complete::File);
const PATTERN: Args = Args::One("PATTERN", Complete::Nothing);
const N: Args = Args::One("N", Complete::Nothing);

use Kind::*;

/// Everything lfind accepts, in `--help` order within each kind.
pub const PRIMARIES: &[Primary] = &[
    p("-H", Leading, NONE, Id::FollowArgs, "follow symbolic links named as starting points, no others"),
    p("-L", Leading, NONE, Id::FollowAll, "follow every symbolic link"),
    p("-P", Leading, NONE, Id::FollowNever, "follow no symbolic link (the default)"),
    p("-D", Leading, one("DEBUGOPTS"), Id::Debug, "accepted for compatibility; GNU's debug flags are checked, not acted on"),
    family("-Olevel", Leading, NONE, Id::Optimize, "accepted for compatibility (lfind always plans the expression itself)"),
    p("-j", Leading, N, Id::Threads, "walk with N threads (default: the CPUs, at most 8); also -jN (not in GNU find)"),
    p("-s", Leading, NONE, Id::Sorted, "sort each directory's entries and walk in order (not in GNU find)"),
    p("(", Operator, NONE, Id::Paren, "( EXPR ): group"),
    p("!", Operator, NONE, Id::Not, "! EXPR: true if EXPR is false"),
    p("-not", Operator, NONE, Id::Not, "the same as !"),
    p("-a", Operator, NONE, Id::And, "EXPR1 -a EXPR2: EXPR2 only if EXPR1 is true (also implied between two expressions)"),
    p("-and", Operator, NONE, Id::And, "the same as -a"),
    p("-o", Operator, NONE, Id::Or, "EXPR1 -o EXPR2: EXPR2 only if EXPR1 is false"),
    p("-or", Operator, NONE, Id::Or, "the same as -o"),
    p(",", Operator, NONE, Id::Comma, "EXPR1 , EXPR2: both, the value is EXPR2's"),
    p("-daystart", Positional, NONE, Id::Daystart, "measure -amin/-atime/-cmin/... from the start of today, not from now"),
    p("-follow", Positional, NONE, Id::Follow, "follow symbolic links (the same as -L)"),
    p("-regextype", Positional, Args::One("TYPE", Complete::Words(&["findutils-default", "emacs", "posix-basic", "posix-extended", "posix-egrep", "egrep", "grep", "awk", "posix-awk", "gnu-awk", "ed", "sed", "posix-minimal-basic"])), Id::Regextype, "read later -regex/-iregex patterns in syntax TYPE"),
    p("-warn", Positional, NONE, Id::Warn, "warn about doubtful command lines from here on (the default when standard input is a terminal)"),
    p("-nowarn", Positional, NONE, Id::Nowarn, "don't warn about doubtful command lines from here on"),
    p("-depth", Global, NONE, Id::Depth, "list a directory's contents before the directory itself"),
    p("-d", Global, NONE, Id::Depth, "the same as -depth"),
    p("-files0-from", Global, FILE, Id::Files0From, "read the starting points from FILE (- for standard input), each ended by a NUL"),
    p("-maxdepth", Global, Args::One("LEVELS", Complete::Nothing), Id::Maxdepth, "descend at most LEVELS levels below the starting points"),
    p("-mindepth", Global, Args::One("LEVELS", Complete::Nothing), Id::Mindepth, "ignore entries less than LEVELS levels below the starting points"),
    p("-mount", Global, NONE, Id::Xdev, "the same as -xdev"),
    p("-xdev", Global, NONE, Id::Xdev, "stay on the file system of each starting point"),
    p("-noleaf", Global, NONE, Id::Noleaf, "accepted (lfind never relies on link counts)"),
    p("-ignore_readdir_race", Global, NONE, Id::IgnoreRace, "say nothing about files that vanish during the walk"),
    p("-noignore_readdir_race", Global, NONE, Id::NoIgnoreRace, "report files that vanish during the walk (the default)"),
    p("-posix", Global, NONE, Id::Posix, "accepted"),
    p("-amin", Test, N, Id::Amin, "last accessed N minutes ago (+N: more than, -N: less than)"),
    p("-anewer", Test, FILE, Id::Anewer, "last accessed after FILE was modified"),
    p("-atime", Test, N, Id::Atime, "last accessed N days ago"),
    p("-cmin", Test, N, Id::Cmin, "status last changed N minutes ago"),
    p("-cnewer", Test, FILE, Id::Cnewer, "status changed after FILE was modified"),
    p("-ctime", Test, N, Id::Ctime, "status last changed N days ago"),
    p("-empty", Test, NONE, Id::Empty, "an empty file or directory"),
    p("-executable", Test, NONE, Id::Executable, "executable (or searchable) by us, as access(2) says"),
    p("-false", Test, NONE, Id::False, "never true"),
    p("-fstype", Test, one("TYPE"), Id::Fstype, "on a file system of TYPE"),
    p("-gid", Test, N, Id::Gid, "numeric group id N"),
    p("-group", Test, one("NAME"), Id::GroupName, "owned by group NAME (or number)"),
    p("-ilname", Test, PATTERN, Id::Ilname, "like -lname, ignoring case"),
    p("-iname", Test, PATTERN, Id::Iname, "like -name, ignoring case"),
    p("-inum", Test, N, Id::Inum, "inode number N"),
    p("-ipath", Test, PATTERN, Id::Ipath, "like -path, ignoring case"),
    p("-iregex", Test, PATTERN, Id::Iregex, "like -regex, ignoring case"),
    p("-iwholename", Test, PATTERN, Id::Ipath, "the same as -ipath"),
    p("-links", Test, N, Id::Links, "N hard links"),
    p("-lname", Test, PATTERN, Id::Lname, "a symbolic link whose target matches the shell PATTERN"),
    p("-context", Test, PATTERN, Id::Context, "the SELinux security context matches the shell PATTERN"),
    p("-mmin", Test, N, Id::Mmin, "last modified N minutes ago"),
    p("-mtime", Test, N, Id::Mtime, "last modified N days ago"),
    p("-name", Test, PATTERN, Id::Name, "the last component of the name matches the shell PATTERN"),
    p("-newer", Test, FILE, Id::Newer, "modified after FILE was"),
    family("-newerXY", Test, Args::One("REFERENCE", Complete::File), Id::NewerXY, "time X of the file is after time Y of REFERENCE; X and Y are a (access), B (birth), c (change), m (modification), or for Y, t: REFERENCE is a date"),
    p("-nogroup", Test, NONE, Id::Nogroup, "no group has the file's group id"),
    p("-nouser", Test, NONE, Id::Nouser, "no user has the file's user id"),
    p("-path", Test, PATTERN, Id::Path, "the whole name matches the shell PATTERN (/ and . are not special)"),
    p("-perm", Test, Args::One("[-/]MODE", Complete::Nothing), Id::Perm, "permission bits exactly MODE; -MODE: at least these; /MODE: any of these (octal or symbolic)"),
    p("-readable", Test, NONE, Id::Readable, "readable by us"),
    p("-regex", Test, PATTERN, Id::Regex, "the whole name matches the regular expression PATTERN"),
    p("-samefile", Test, FILE, Id::Samefile, "the same file (inode) as FILE"),
    p("-size", Test, Args::One("N[bcwkMG]", Complete::Nothing), Id::Size, "N units in size, rounded up: b 512-byte blocks (the default), c bytes, w 2-byte words, k KiB, M MiB, G GiB"),
    p("-true", Test, NONE, Id::True, "always true"),
    p("-type", Test, Args::One("[bcdpflsD]", Complete::Words(&["b", "c", "d", "p", "f", "l", "s", "D"])), Id::Type, "of this type (several: comma-separated): block, character device, directory, named pipe, file, link, socket, door"),
    p("-uid", Test, N, Id::Uid, "numeric user id N"),
    p("-used", Test, N, Id::Used, "last accessed N days after its status last changed"),
    p("-user", Test, one("NAME"), Id::User, "owned by user NAME (or number)"),
    p("-wholename", Test, PATTERN, Id::Path, "the same as -path"),
    p("-writable", Test, NONE, Id::Writable, "writable by us"),
    p("-xtype", Test, Args::One("[bcdpfls]", Complete::Words(&["b", "c", "d", "p", "f", "l", "s"])), Id::Xtype, "like -type, for what a symbolic link points to (or the link itself under -L)"),
    p("-delete", Action, NONE, Id::Delete, "delete the file (implies -depth); true if that worked"),
    p("-exec", Action, Args::Command, Id::Exec, "COMMAND ;  run COMMAND, {} replaced by the name; true if it exits 0.\nCOMMAND {} +  run COMMAND on as many names at once as fit"),
    p("-execdir", Action, Args::Command, Id::Execdir, "like -exec, run in the file's directory with ./NAME"),
    p("-fls", Action, FILE, Id::Fls, "like -ls, into FILE"),
    p("-fprint", Action, FILE, Id::Fprint, "like -print, into FILE"),
    p("-fprint0", Action, FILE, Id::Fprint0, "like -print0, into FILE"),
    p("-fprintf", Action, Args::Two("FILE", "FORMAT"), Id::Fprintf, "like -printf, into FILE"),
    p("-json", Action, NONE, Id::Json, "print the file as a JSON object on a line of its own: path, name, depth, type and what -ls shows (see lfind(1); not in GNU find)"),
    p("-fjson", Action, FILE, Id::Fjson, "like -json, into FILE (not in GNU find)"),
    p("-ls", Action, NONE, Id::Ls, "list the file in ls -dils format"),
    p("-ok", Action, Args::Command, Id::Ok, "like -exec ... ;, asking first on standard error"),
    p("-okdir", Action, Args::Command, Id::Okdir, "like -execdir ... ;, asking first"),
    p("-print", Action, NONE, Id::Print, "print the name and a newline (the default action)"),
    p("-print0", Action, NONE, Id::Print0, "print the name and a NUL byte"),
    p("-printf", Action, one("FORMAT"), Id::Printf, "print FORMAT with %-directives (%p name, %s size, %t time, ...; see find(1))"),
    p("-prune", Action, NONE, Id::Prune, "do not descend into this directory"),
    p("-quit", Action, NONE, Id::Quit, "stop at once"),
    p("-help", Info, NONE, Id::Help, "print this help and exit (also --help)"),
    p("--help", Info, NONE, Id::Help, "print this help and exit"),
    p("-version", Info, NONE, Id::Version, "print the version and the I/O engine, and exit (also --version)"),
    p("--version", Info, NONE, Id::Version, "print the version and the I/O engine, and exit"),
];

/// The entry named `name`: exact names first, then the families
/// (`-newer` followed by two letters, `-O` followed by anything).
pub fn lookup(name: &[u8]) -> Option<&'static Primary> {
    if let Some(p) = PRIMARIES.iter().find(|p| !p.family && p.name.as_bytes() == name) {
        return Some(p);
    }
    PRIMARIES.iter().find(|p| {
        p.family
            && match p.id {
                Id::NewerXY => name.len() == 8 && name.starts_with(b"-newer"),
                Id::Optimize => name.starts_with(b"-O"),
                _ => false,
            }
    })
}

const SECTIONS: &[(Kind, &str)] = &[
    (Leading, "Before the starting points:"),
    (Operator, "Operators (in decreasing precedence; -a is implied between expressions):"),
    (Positional, "Positional options (always true; they apply to what follows them):"),
    (Global, "Options (always true; they apply to the whole walk):"),
    (Test, "Tests (N is N exactly, +N more than N, -N less than N):"),
    (Action, "Actions:"),
    (Info, "Other:"),
];

impl Primary {
    /// `-name PATTERN`, `-exec COMMAND ;`.
    pub fn label(&self) -> String {
        match self.args {
            Args::None if self.id == Id::Paren => "( EXPR )".into(),
            Args::None => self.name.into(),
            Args::One(a, _) => format!("{} {a}", self.name),
            Args::Two(a, b) => format!("{} {a} {b}", self.name),
            Args::Command => format!("{} COMMAND ;", self.name),
        }
    }
}

const ABOUT: &str = "\
Walk the directory trees at the starting points (. if none), evaluating the
expression (-print if none) for every file, in parallel (GNU find compatible).";

const NOTES: &str = "\
lfind walks in parallel: records from different subtrees may come out in
another order than GNU find's, each record whole. Where order is part of the
meaning (-depth or -delete with output, -quit, -ok, -exec ... ;, -execdir,
-s, -j 1) the walk is single-threaded and in GNU's order.

-json and -fjson (beyond GNU) write one JSON object per line (JSON Lines;
jq -s reads them as one array): path, name, depth, type (file, directory,
symlink, fifo, socket, char, block), size in bytes, blocks (of 512 bytes),
mode (a number, mode_octal and mode_string as -ls shows it), nlink, inode,
uid and user, gid and group (null without a name), atime, mtime, ctime and
btime (ISO 8601 local time with its offset; *_sec and *_nsec: since the
epoch), major and minor of devices, target of symbolic links. Names that
are not UTF-8 also come as byte arrays (path_bytes, name_bytes).

RINGIO_BACKEND=uring|threads|sync picks the I/O engine's executor (see
-version for the one chosen here).

Exit status: 0 on success, 1 if anything went wrong (an unreadable directory,
a failed -exec ... +, a bad expression).";

/// lfind's documentation, for the man page and completions.
pub fn doc() -> Doc {
    let sections = SECTIONS
        .iter()
        .map(|&(kind, title)| Section {
            title,
            entries: PRIMARIES
                .iter()
                .filter(|p| p.kind == kind && p.name != "--help" && p.name != "--version")
                .map(entry)
                .collect(),
        })
        .collect();
    Doc {
        name: "lfind",
        gnu: "find",
        summary: "search for files in a directory hierarchy (GNU find compatible)",
        usage: &["[-H] [-L] [-P] [-Olevel] [-D debugopts] [-j N] [-s] [path...] [expression]"],
        about: ABOUT,
        preamble: "",
        sections,
        notes: NOTES,
    }
}

fn entry(p: &Primary) -> Entry {
    let value = match p.args {
        Args::None => None,
        Args::One(a, c) => Some((a, c)),
        Args::Two(a, _) => Some((a, Complete::File)),
        Args::Command => Some(("COMMAND", Complete::Command)),
    };
    let text = match p.id {
        Id::NewerXY => "-newermt".to_string(),
        Id::Optimize => "-O3".to_string(),
        Id::Paren => "(".to_string(),
        _ => p.name.to_string(),
    };
    let mut words = vec![Word { text, value, attached: false }];
    if p.name == "-help" {
        words.push(Word { text: "--help".into(), value: None, attached: false });
    }
    if p.name == "-version" {
        words.push(Word { text: "--version".into(), value: None, attached: false });
    }
    Entry { label: p.label(), words, help: p.help }
}

/// `-help`: GNU's layout — the usage line, then each group's primaries
/// with their arguments, wrapped (the man page describes each one).
pub fn help(prog: &str) -> String {
    let st: &dyn cli::opts::Styler = &cli::opts::Plain;
    let d = doc();
    let mut s = format!("{} {prog} {}\n\n{}\n", st.heading("Usage:"), d.usage[0], d.about);
    for sec in &d.sections {
        s.push('\n');
        s.push_str(&st.heading(sec.title));
        s.push('\n');
        let mut line = String::from("     ");
        for e in &sec.entries {
            if line.len() + 1 + e.label.len() > 78 {
                s.push_str(&line);
                s.push('\n');
                line = String::from("     ");
            }
            line.push(' ');
            line.push_str(&st.option(&e.label));
        }
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str(
        "\n-exec COMMAND {} + and -execdir COMMAND {} + run COMMAND on many names at once.\n\
         Each primary is described in the manual page, lfind(1): man lfind, once\n\
         cargo xtask install has installed it (see README.md, Install).\n\n",
    );
    s.push_str(&d.notes.replace("{prog}", prog));
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_and_families() {
        assert_eq!(lookup(b"-name").unwrap().id, Id::Name);
        assert_eq!(lookup(b"-newer").unwrap().id, Id::Newer);
        assert_eq!(lookup(b"-newermt").unwrap().id, Id::NewerXY);
        assert_eq!(lookup(b"-O3").unwrap().id, Id::Optimize);
        assert!(lookup(b"-newerm").is_none());
        assert!(lookup(b"-bogus").is_none());
        let mut names: Vec<&str> = PRIMARIES.iter().map(|p| p.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "a name twice");
        assert!(PRIMARIES.iter().all(|p| !p.help.is_empty()));
    }
}
