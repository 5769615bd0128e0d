//! Option tables: one per tool, the single source of truth for its parser,
//! its `--help`, its shell completions and its man page.
//!
//! A getopt-style tool (lsr, ldu, lcat) describes each option once as an
//! [`Opt`]: short letter, long name, argument, help text, and an id of the
//! tool's own enum that its parser dispatches on. [`Parser`] reads the
//! command line against that table exactly as glibc's `getopt_long` does
//! (bundled short options, unambiguous prefixes of long options, options
//! after operands unless `POSIXLY_CORRECT`, `--`), byte for byte in its
//! error messages, so an option can only be accepted if it is in the
//! table, and [`Doc::help`] can only show what is in the table.
//!
//! lfind's expression language is not getopt-like; its table of primaries
//! lives in the find crate and is turned into the same [`Doc`] shape for
//! help, completions and man pages.
//!
//! Why no tokenizer crate underneath (`lexopt` was declared for this and
//! is not used): getopt works on bytes, and GNU's complaints quote the
//! user's bytes as given. lexopt 0.3 hands out short options as `char`
//! and long option names as `&str`, replacing invalid UTF-8 with U+FFFD
//! (`String::from_utf8_lossy`), so `ls -$'\xff'` and `ls --$'\xff'=1`
//! could no longer say `invalid option -- '\377'` and
//! `unrecognized option '--\377=1'` as GNU ls does (verified with
//! /usr/bin/ls). By default it also reads `-w=40` as `-w 40` (GNU: the
//! value is `=40`); that one could be switched off, the byte loss could
//! not without keeping a raw copy of every argument beside it, at which
//! point the tokenizer does nothing this parser doesn't. Abbreviations,
//! permutation, `POSIXLY_CORRECT` and optional arguments would have had
//! to be built on top either way.

/// What an option takes after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Nothing.
    None,
    /// A value: `-w 80`, `-w80`, `--width=80`, `--width 80`.
    Required(&'static str),
    /// An optional value, long form only and only as `--color=WHEN`; the
    /// short form (if any) takes none, as in GNU ls's `-F`/`--classify`.
    Optional(&'static str),
}

/// What a value is, for shell completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Complete {
    /// Nothing to offer (numbers, patterns, formats).
    Nothing,
    /// File names.
    File,
    /// Directory names.
    Dir,
    /// Command names (find's -exec).
    Command,
    /// One of these words.
    Words(&'static [&'static str]),
}

/// One option of a getopt-style tool.
#[derive(Clone, Copy, Debug)]
pub struct Opt<I: 'static> {
    pub short: Option<u8>,
    pub long: Option<&'static str>,
    pub arg: Arg,
    /// What `--help` says; `\n` starts a new line in the description column.
    pub help: &'static str,
    pub id: I,
    /// What completions offer for the value.
    pub complete: Complete,
    /// Not an option of the GNU tool: an abbreviation that GNU's options
    /// share (or that GNU reports ambiguous) keeps meaning what it means
    /// to GNU, so adding one can't change a GNU command line's meaning
    /// (`du --i` stays `--inodes` beside `--import`).
    pub beyond_gnu: bool,
}

impl<I: Copy> Opt<I> {
    /// `-c, --long` (either may be absent, not both).
    pub const fn new(
        short: Option<u8>,
        long: Option<&'static str>,
        arg: Arg,
        id: I,
        help: &'static str,
    ) -> Opt<I> {
        let complete = match arg {
            Arg::None => Complete::Nothing,
            _ => Complete::File,
        };
        Opt { short, long, arg, help, id, complete, beyond_gnu: false }
    }

    /// `-c, --long`, no argument.
    pub const fn flag(short: u8, long: &'static str, id: I, help: &'static str) -> Opt<I> {
        Opt::new(Some(short), Some(long), Arg::None, id, help)
    }

    /// `-c` alone, no argument.
    pub const fn short(short: u8, id: I, help: &'static str) -> Opt<I> {
        Opt::new(Some(short), None, Arg::None, id, help)
    }

    /// `--long` alone, no argument.
    pub const fn long(long: &'static str, id: I, help: &'static str) -> Opt<I> {
        Opt::new(None, Some(long), Arg::None, id, help)
    }

    /// Sets what completions offer for the value.
    pub const fn completes(mut self, c: Complete) -> Opt<I> {
        self.complete = c;
        self
    }

    /// Marks an option the GNU tool lacks (see [`Opt::beyond_gnu`]).
    pub const fn beyond_gnu(mut self) -> Opt<I> {
        self.beyond_gnu = true;
        self
    }

    /// `-a, --all` / `-c` / `    --zero`, with the argument: the left
    /// column of `--help`.
    pub fn label(&self) -> String {
        let mut s = String::new();
        match self.short {
            Some(c) => {
                s.push('-');
                s.push(c as char);
                if self.long.is_some() {
                    s.push_str(", ");
                }
            }
            None => s.push_str("    "),
        }
        if let Some(l) = self.long {
            s.push_str("--");
            s.push_str(l);
        }
        match (self.arg, self.long) {
            (Arg::Required(a), Some(_)) => {
                s.push('=');
                s.push_str(a);
            }
            (Arg::Required(a), None) => {
                s.push(' ');
                s.push_str(a);
            }
            (Arg::Optional(a), Some(_)) => {
                s.push_str("[=");
                s.push_str(a);
                s.push(']');
            }
            _ => {}
        }
        s
    }
}

/// A tool's documentation: what `--help`, the man page and the
/// completions are generated from.
#[derive(Clone, Debug)]
pub struct Doc {
    /// Our binary's name (`lsr`).
    pub name: &'static str,
    /// The GNU tool it replaces (`ls`).
    pub gnu: &'static str,
    /// One line for the man page's NAME section.
    pub summary: &'static str,
    /// What follows the program name in each usage line.
    pub usage: &'static [&'static str],
    /// The paragraph after the usage lines.
    pub about: &'static str,
    /// A line before the option list (GNU's "Mandatory arguments…").
    pub preamble: &'static str,
    pub sections: Vec<Section>,
    /// Paragraphs after the options (argument formats, environment, exit
    /// status), separated by blank lines.
    pub notes: &'static str,
}

/// A titled group of entries (getopt tools have one, untitled).
#[derive(Clone, Debug)]
pub struct Section {
    pub title: &'static str,
    pub entries: Vec<Entry>,
}

/// One documented option or primary.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The left column of `--help`: `-a, --all`, `-name PATTERN`.
    pub label: String,
    /// The words a shell completes for it, each with what follows it.
    pub words: Vec<Word>,
    pub help: &'static str,
}

/// A completable word: `-a`, `--color=` (takes a value), `-name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// The value's name and what to complete for it; None: no value.
    pub value: Option<(&'static str, Complete)>,
    /// The value must be attached with `=` (optional long arguments).
    pub attached: bool,
}

/// Where the description column starts in `--help`, as in GNU's.
pub const HELP_COLUMN: usize = 29;
/// Help text is wrapped to this width.
pub const HELP_WIDTH: usize = 79;

impl Doc {
    /// A getopt tool's documentation from its table.
    pub fn from_opts<I: Copy>(
        name: &'static str,
        gnu: &'static str,
        summary: &'static str,
        usage: &'static [&'static str],
        about: &'static str,
        opts: &[Opt<I>],
        notes: &'static str,
    ) -> Doc {
        let entries = opts
            .iter()
            .map(|o| {
                let value = match o.arg {
                    Arg::None => None,
                    Arg::Required(a) | Arg::Optional(a) => Some((a, o.complete)),
                };
                let mut words = Vec::new();
                if let Some(c) = o.short {
                    let v = if matches!(o.arg, Arg::Required(_)) { value } else { None };
                    words.push(Word { text: format!("-{}", c as char), value: v, attached: false });
                }
                if let Some(l) = o.long {
                    words.push(Word {
                        text: format!("--{l}"),
                        value,
                        attached: matches!(o.arg, Arg::Optional(_)),
                    });
                }
                Entry { label: o.label(), words, help: o.help }
            })
            .collect();
        let preamble =
            if opts.iter().any(|o| matches!(o.arg, Arg::Required(_)) && o.short.is_some()) {
                "Arguments that long options require are required by their short forms too."
            } else {
                ""
            };
        Doc {
            name,
            gnu,
            summary,
            usage,
            about,
            preamble,
            sections: vec![Section { title: "", entries }],
            notes,
        }
    }

    /// `--version`, for a tool whose engine work is like `workload`.
    pub fn version(&self, workload: ringio::Workload) -> String {
        version(self.name, self.gnu, workload)
    }

    /// `--help`, in GNU's layout, for the program name `prog` (argv[0]'s
    /// basename: `ls` when lsr is installed as ls). Plain text wherever it
    /// goes, a terminal included, as GNU's.
    pub fn help(&self, prog: &str) -> String {
        self.help_styled(prog, &Plain)
    }

    /// `--help` with headings and option names passed through `st`.
    #[cfg_attr(ringutils_small, optimize(size))]
    fn help_styled(&self, prog: &str, st: &dyn Styler) -> String {
        let mut s = String::new();
        for (i, u) in self.usage.iter().enumerate() {
            let lead = if i == 0 { st.heading("Usage:") } else { "  or: ".to_string() };
            s.push_str(&format!("{lead} {prog} {u}\n"));
        }
        s.push_str(&self.about.replace("{prog}", prog));
        s.push('\n');
        if !self.preamble.is_empty() {
            s.push('\n');
            s.push_str(self.preamble);
            s.push('\n');
        }
        for sec in &self.sections {
            if !sec.title.is_empty() {
                s.push('\n');
                s.push_str(&st.heading(sec.title));
                s.push('\n');
            } else if self.preamble.is_empty() {
                s.push('\n');
            }
            for e in &sec.entries {
                push_entry(&mut s, &e.label, e.help, st);
            }
        }
        if !self.notes.is_empty() {
            s.push('\n');
            s.push_str(&self.notes.replace("{prog}", prog));
            if !self.notes.ends_with('\n') {
                s.push('\n');
            }
        }
        s
    }

    /// Every entry, across sections.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.sections.iter().flat_map(|s| s.entries.iter())
    }
}

/// How `--help` renders its headings and option names: [`Plain`], as
/// GNU's, on a terminal too (lfind's `-help` renders through it as well).
pub trait Styler {
    fn heading(&self, s: &str) -> String;
    fn option(&self, s: &str) -> String;
}

/// No styling.
pub struct Plain;

impl Styler for Plain {
    fn heading(&self, s: &str) -> String {
        s.to_string()
    }
    fn option(&self, s: &str) -> String {
        s.to_string()
    }
}

/// One option line: label at column 2, description at [`HELP_COLUMN`]
/// (on the next line if the label is too long), wrapped.
fn push_entry(s: &mut String, label: &str, help: &str, st: &dyn Styler) {
    let lead = format!("  {label}");
    s.push_str("  ");
    s.push_str(&st.option(label));
    let mut col = lead.len();
    if col + 2 > HELP_COLUMN {
        s.push('\n');
        col = 0;
    }
    let mut first = true;
    for line in help.split('\n') {
        let words = line.split(' ').filter(|w| !w.is_empty());
        // Keep the line's own leading spaces (indented continuation).
        let indent = line.len() - line.trim_start_matches(' ').len();
        if !first {
            s.push('\n');
            col = 0;
        }
        let mut at_start = true;
        for w in words {
            if at_start {
                s.push_str(&" ".repeat(HELP_COLUMN + indent - col));
                col = HELP_COLUMN + indent;
            } else if col + 1 + w.len() > HELP_WIDTH {
                s.push('\n');
                s.push_str(&" ".repeat(HELP_COLUMN + indent));
                col = HELP_COLUMN + indent;
            } else {
                s.push(' ');
                col += 1;
            }
            s.push_str(w);
            col += w.len();
            at_start = false;
        }
        first = false;
    }
    s.push('\n');
}

/// How the user spelled an option, for messages that name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelled {
    Short(u8),
    Long(&'static str),
}

impl Spelled {
    /// `-B` or `--block-size`.
    pub fn shown(self) -> String {
        match self {
            Spelled::Short(c) => format!("-{}", c as char),
            Spelled::Long(l) => format!("--{l}"),
        }
    }
}

/// A usage mistake, worded as glibc's getopt_long words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsageError {
    /// `invalid option -- 'x'` (the byte, as getopt reports it).
    InvalidShort(u8),
    /// `option requires an argument -- 'x'`
    ShortNeedsArg(u8),
    /// `unrecognized option '--foo=bar'` (the whole argument).
    Unrecognized(Vec<u8>),
    /// `option '--s=x' is ambiguous; possibilities: '--size' '--sort'`
    Ambiguous(Vec<u8>, Vec<&'static str>),
    /// `option '--all' doesn't allow an argument`
    NoArgument(&'static str),
    /// `option '--sort' requires an argument`
    LongNeedsArg(&'static str),
}

impl UsageError {
    /// The complaint as the tool reports it: the message, then GNU's
    /// "Try --help" line, ending the run with `status`.
    pub fn bad_usage(&self, status: u8) -> crate::BadUsage {
        crate::BadUsage::with_help(self.message(), status)
    }

    /// The message, without the program name, in glibc's words: GNU's
    /// tools print getopt's complaints, which glibc translates in its own
    /// `libc` text domain (its msgids carry the `%s: ` for the program
    /// name and the newline, which are left out here).
    pub fn message(&self) -> Vec<u8> {
        use crate::locale::{format, tr_libc};
        // A long option as getopt shows it: its prefix, then the rest.
        let split = |arg: &[u8]| -> (Vec<u8>, Vec<u8>) {
            let n = arg.iter().take(2).take_while(|&&c| c == b'-').count();
            (arg[..n].to_vec(), arg[n..].to_vec())
        };
        let (fmt, args): (&[u8], Vec<Vec<u8>>) = match self {
            UsageError::InvalidShort(b) => {
                (tr_libc(c"%s: invalid option -- '%c'\n"), vec![vec![*b]])
            }
            UsageError::ShortNeedsArg(b) => {
                (tr_libc(c"%s: option requires an argument -- '%c'\n"), vec![vec![*b]])
            }
            UsageError::Unrecognized(arg) => {
                let (p, r) = split(arg);
                (tr_libc(c"%s: unrecognized option '%s%s'\n"), vec![p, r])
            }
            UsageError::Ambiguous(arg, names) => {
                let (p, r) = split(arg);
                let head = tr_libc(c"%s: option '%s%s' is ambiguous; possibilities:");
                let mut m = format(strip_prog(head), &[&p, &r]);
                // glibc prints the candidates untranslated.
                for n in names {
                    m.extend_from_slice(format!(" '--{n}'").as_bytes());
                }
                return m;
            }
            UsageError::NoArgument(name) => (
                tr_libc(c"%s: option '%s%s' doesn't allow an argument\n"),
                vec![b"--".to_vec(), name.as_bytes().to_vec()],
            ),
            UsageError::LongNeedsArg(name) => (
                tr_libc(c"%s: option '%s%s' requires an argument\n"),
                vec![b"--".to_vec(), name.as_bytes().to_vec()],
            ),
        };
        let refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        let mut m = format(strip_prog(fmt), &refs);
        if m.last() == Some(&b'\n') {
            m.pop();
        }
        m
    }

    /// The message as text (lossy for non-UTF-8 bytes).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.message()).into_owned()
    }
}

/// A glibc getopt format without its leading `%s: ` (the program name,
/// which the tools print themselves).
fn strip_prog(fmt: &[u8]) -> &[u8] {
    fmt.strip_prefix(b"%s: ").unwrap_or(fmt)
}

/// What the command line holds next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item<I> {
    Opt { id: I, value: Option<Vec<u8>>, spelled: Spelled },
    Operand(Vec<u8>),
    Error(UsageError),
}

/// A getopt_long reader of `args` (after the program name) against a
/// table. An iterator of [`Item`]s; after an error it goes on with the
/// next option, as getopt does, so a tool may stop or collect.
pub struct Parser<I: 'static> {
    opts: &'static [Opt<I>],
    /// GNU's long-option table order, which ambiguity messages follow.
    getopt_order: &'static [&'static str],
    args: std::vec::IntoIter<Vec<u8>>,
    /// The rest of a short-option cluster being read.
    cluster: Vec<u8>,
    pos: usize,
    /// Everything from here on is an operand (`--`, or POSIXLY_CORRECT
    /// after the first operand).
    done: bool,
    posix: bool,
}

impl<I: Copy + PartialEq> Parser<I> {
    /// `getopt_order` lists the long names in GNU's table order (ambiguity
    /// messages list candidates in that order); names it lacks follow in
    /// `opts` order. `posixly_correct`: the first operand ends options.
    pub fn new(
        opts: &'static [Opt<I>],
        getopt_order: &'static [&'static str],
        args: Vec<Vec<u8>>,
        posixly_correct: bool,
    ) -> Parser<I> {
        Parser {
            opts,
            getopt_order,
            args: args.into_iter(),
            cluster: Vec::new(),
            pos: 0,
            done: false,
            posix: posixly_correct,
        }
    }

    /// From OS strings (the process's arguments).
    pub fn from_os(
        opts: &'static [Opt<I>],
        getopt_order: &'static [&'static str],
        args: impl IntoIterator<Item = std::ffi::OsString>,
        posixly_correct: bool,
    ) -> Parser<I> {
        use std::os::unix::ffi::OsStringExt;
        let v = args.into_iter().map(|a| a.into_vec()).collect();
        Parser::new(opts, getopt_order, v, posixly_correct)
    }

    /// Every remaining argument, unread, as operands (getopt's REQUIRE_ORDER
    /// after a tool stops early).
    pub fn rest(&mut self) -> Vec<Vec<u8>> {
        self.args.by_ref().collect()
    }

    fn short_item(&mut self) -> Item<I> {
        let c = self.cluster[self.pos];
        self.pos += 1;
        let found = self.opts.iter().find(|o| o.short == Some(c));
        let Some(o) = found else {
            return Item::Error(UsageError::InvalidShort(c));
        };
        let spelled = Spelled::Short(c);
        if let Arg::Required(_) = o.arg {
            let value = if self.pos < self.cluster.len() {
                let v = self.cluster[self.pos..].to_vec();
                self.pos = self.cluster.len();
                v
            } else {
                match self.args.next() {
                    Some(v) => v,
                    None => return Item::Error(UsageError::ShortNeedsArg(c)),
                }
            };
            return Item::Opt { id: o.id, value: Some(value), spelled };
        }
        Item::Opt { id: o.id, value: None, spelled }
    }

    fn long_item(&mut self, arg: Vec<u8>) -> Item<I> {
        let body = &arg[2..];
        let (name, value) = match body.iter().position(|&b| b == b'=') {
            Some(k) => (&body[..k], Some(body[k + 1..].to_vec())),
            None => (body, None),
        };
        let o = match self.resolve(name) {
            Ok(o) => o,
            Err(cands) if cands.is_empty() => return Item::Error(UsageError::Unrecognized(arg)),
            Err(cands) => return Item::Error(UsageError::Ambiguous(arg, cands)),
        };
        let long = o.long.unwrap_or_default();
        let spelled = Spelled::Long(long);
        match o.arg {
            Arg::None => match value {
                Some(_) => Item::Error(UsageError::NoArgument(long)),
                None => Item::Opt { id: o.id, value: None, spelled },
            },
            Arg::Optional(_) => Item::Opt { id: o.id, value, spelled },
            Arg::Required(_) => {
                let value = match value {
                    Some(v) => v,
                    None => match self.args.next() {
                        Some(v) => v,
                        None => return Item::Error(UsageError::LongNeedsArg(long)),
                    },
                };
                Item::Opt { id: o.id, value: Some(value), spelled }
            }
        }
    }

    /// An exact long name, or the one option all matching prefixes mean;
    /// otherwise the candidates (none: unrecognized), in GNU's order.
    fn resolve(&self, name: &[u8]) -> Result<&'static Opt<I>, Vec<&'static str>> {
        let longs = || self.ordered().filter_map(|o| o.long.map(|l| (l, o)));
        if let Some((_, o)) = longs().find(|(l, _)| l.as_bytes() == name) {
            return Ok(o);
        }
        let mut first: Option<&'static Opt<I>> = None;
        let mut ambiguous = Vec::new();
        let gnu_matches = longs().any(|(l, o)| !o.beyond_gnu && l.as_bytes().starts_with(name));
        let candidates = longs()
            .filter(|(l, o)| l.as_bytes().starts_with(name) && !(gnu_matches && o.beyond_gnu));
        for (l, o) in candidates {
            match first {
                None => {
                    first = Some(o);
                    ambiguous.push(l);
                }
                // glibc: another match meaning the same (argument kind and
                // id) is no ambiguity, and is not listed.
                Some(f) if f.id == o.id && same_kind(f.arg, o.arg) => {}
                Some(_) => ambiguous.push(l),
            }
        }
        match (first, ambiguous.len()) {
            (Some(o), 1) => Ok(o),
            (None, _) => Err(Vec::new()),
            _ => Err(ambiguous),
        }
    }

    /// The table in GNU's getopt order.
    fn ordered(&self) -> impl Iterator<Item = &'static Opt<I>> {
        let opts = self.opts;
        let order = self.getopt_order;
        let listed = order.iter().filter_map(move |n| opts.iter().find(|o| o.long == Some(n)));
        let rest = opts.iter().filter(move |o| o.long.is_some_and(|l| !order.contains(&l)));
        listed.chain(rest)
    }
}

fn same_kind(a: Arg, b: Arg) -> bool {
    std::mem::discriminant(&a) == std::mem::discriminant(&b)
}

impl<I: Copy + PartialEq> Iterator for Parser<I> {
    type Item = Item<I>;

    fn next(&mut self) -> Option<Item<I>> {
        if self.pos < self.cluster.len() {
            return Some(self.short_item());
        }
        let arg = self.args.next()?;
        if self.done {
            return Some(Item::Operand(arg));
        }
        if arg == b"--" {
            self.done = true;
            return self.args.next().map(Item::Operand);
        }
        if arg.starts_with(b"--") {
            return Some(self.long_item(arg));
        }
        if arg.len() > 1 && arg[0] == b'-' {
            self.cluster = arg;
            self.pos = 1;
            return Some(self.short_item());
        }
        if self.posix {
            self.done = true;
        }
        Some(Item::Operand(arg))
    }
}

/// A table's consistency: every option has a name, no short letter or
/// long name twice, `getopt_order` names only the table's long options.
/// For the tools' unit tests.
pub fn check_table<I>(opts: &[Opt<I>], getopt_order: &[&str]) -> Result<(), String> {
    let mut shorts = Vec::new();
    let mut longs = Vec::new();
    for o in opts {
        if o.short.is_none() && o.long.is_none() {
            return Err("an option without a name".into());
        }
        if o.help.trim().is_empty() {
            return Err(format!("{} has no help text", o.long.unwrap_or("?")));
        }
        if let Some(c) = o.short {
            if shorts.contains(&c) {
                return Err(format!("-{} twice", c as char));
            }
            shorts.push(c);
        }
        if let Some(l) = o.long {
            if longs.contains(&l) {
                return Err(format!("--{l} twice"));
            }
            longs.push(l);
        }
    }
    for n in getopt_order {
        if !longs.contains(n) {
            return Err(format!("getopt order names --{n}, which the table lacks"));
        }
    }
    Ok(())
}

/// `--version`: the tool's own name (whatever argv[0] says, as GNU's
/// tools do) and version, what it replaces, and the engine backend it runs
/// on here for the tool's `workload` (which follows RINGIO_BACKEND).
pub fn version(name: &str, gnu: &str, workload: ringio::Workload) -> String {
    format!(
        "{name} (ringutils) {}\nGNU {gnu} compatible.\nengine: {} ({})\nLicense MIT OR Apache-2.0.\n",
        env!("CARGO_PKG_VERSION"),
        workload.describe(),
        uring_words(),
    )
}

/// `io_uring available: SINGLE_ISSUER|DEFER_TASKRUN` or why not.
fn uring_words() -> String {
    let d = ringio::uring_description();
    match d.strip_prefix("io_uring (").and_then(|r| r.strip_suffix(')')) {
        Some(flags) => format!("io_uring available: {flags}"),
        None => d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Id {
        All,
        AlmostAll,
        Color,
        Width,
        Size,
        Sort,
        SortAlias,
        Help,
    }

    const OPTS: &[Opt<Id>] = &[
        Opt::flag(b'a', "all", Id::All, "everything"),
        Opt::flag(b'A', "almost-all", Id::AlmostAll, "nearly"),
        Opt::new(None, Some("color"), Arg::Optional("WHEN"), Id::Color, "colours"),
        Opt::new(Some(b'w'), Some("width"), Arg::Required("COLS"), Id::Width, "width"),
        Opt::flag(b's', "size", Id::Size, "sizes"),
        Opt::new(None, Some("sort"), Arg::Required("WORD"), Id::Sort, "sort"),
        Opt::new(None, Some("sorting"), Arg::Required("WORD"), Id::SortAlias, "sort"),
        Opt::long("help", Id::Help, "help"),
    ];

    fn run(args: &[&[u8]]) -> Vec<Item<Id>> {
        Parser::new(OPTS, &[], args.iter().map(|a| a.to_vec()).collect(), false).collect()
    }

    fn msg(args: &[&[u8]]) -> String {
        run(args)
            .into_iter()
            .find_map(|i| match i {
                Item::Error(e) => Some(e.text()),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn getopt_rules() {
        let items = run(&[b"-aw40", b"x", b"--col", b"--wid", b"7", b"-", b"--", b"-a"]);
        let o =
            |id, v: Option<&[u8]>, s| Item::Opt { id, value: v.map(<[u8]>::to_vec), spelled: s };
        assert_eq!(
            items,
            vec![
                o(Id::All, None, Spelled::Short(b'a')),
                o(Id::Width, Some(b"40"), Spelled::Short(b'w')),
                Item::Operand(b"x".to_vec()),
                o(Id::Color, None, Spelled::Long("color")),
                o(Id::Width, Some(b"7"), Spelled::Long("width")),
                Item::Operand(b"-".to_vec()),
                Item::Operand(b"-a".to_vec()),
            ]
        );
        assert_eq!(msg(&[b"-y"]), "invalid option -- 'y'");
        assert_eq!(msg(&[b"-a=x"]), "invalid option -- '='");
        assert_eq!(msg(&[b"-w"]), "option requires an argument -- 'w'");
        assert_eq!(msg(&[b"--width"]), "option '--width' requires an argument");
        assert_eq!(msg(&[b"--all=1"]), "option '--all' doesn't allow an argument");
        assert_eq!(
            msg(&[b"--al=1"]),
            "option '--al=1' is ambiguous; possibilities: '--all' '--almost-all'"
        );
        assert_eq!(msg(&[b"--bogus=1"]), "unrecognized option '--bogus=1'");
        assert_eq!(msg(&[b"-\xc3\xa9"]), "invalid option -- '\u{fffd}'");
        assert_eq!(run(&[b"-\xc3\xa9"])[0], Item::Error(UsageError::InvalidShort(0xc3)));
        // Bytes, not characters: why no char-based tokenizer (module doc).
        assert_eq!(run(&[b"-\xff"])[0], Item::Error(UsageError::InvalidShort(0xff)));
        assert_eq!(
            run(&[b"--\xff=1"])[0],
            Item::Error(UsageError::Unrecognized(b"--\xff=1".to_vec()))
        );
        let w = run(&[b"-w=40"]);
        assert_eq!(
            w[0],
            Item::Opt {
                id: Id::Width,
                value: Some(b"=40".to_vec()),
                spelled: Spelled::Short(b'w')
            }
        );
        // Same id, same argument kind: not ambiguous (glibc), listed once.
        assert_eq!(
            msg(&[b"--so"]),
            "option '--so' is ambiguous; possibilities: '--sort' '--sorting'"
        );
        assert_eq!(
            msg(&[b"--s"]),
            "option '--s' is ambiguous; possibilities: '--size' '--sort' '--sorting'"
        );
    }

    #[test]
    fn options_beyond_gnu_yield_abbreviations_to_gnus() {
        static EXT: &[Opt<Id>] = &[
            Opt::flag(b'a', "all", Id::All, "all"),
            Opt::flag(b's', "size", Id::Size, "sizes"),
            Opt::new(None, Some("sort"), Arg::Required("WORD"), Id::Sort, "sort"),
            Opt::long("allow", Id::AlmostAll, "beyond").beyond_gnu(),
            Opt::long("help", Id::Help, "help"),
            Opt::long("hidden", Id::Color, "beyond").beyond_gnu(),
        ];
        let run = |a: &[u8]| Parser::new(EXT, &[], vec![a.to_vec()], false).next().unwrap();
        let id = |a: &[u8]| match run(a) {
            Item::Opt { id, .. } => Some(id),
            _ => None,
        };
        // GNU's meaning is kept where a GNU option matches the prefix.
        assert_eq!(id(b"--al"), Some(Id::All));
        assert_eq!(id(b"--h"), Some(Id::Help));
        assert_eq!(
            run(b"--s"),
            Item::Error(UsageError::Ambiguous(b"--s".to_vec(), vec!["size", "sort"]))
        );
        // Exact names, and prefixes only the new option has, reach it.
        assert_eq!(id(b"--allow"), Some(Id::AlmostAll));
        assert_eq!(id(b"--allo"), Some(Id::AlmostAll));
        assert_eq!(id(b"--hi"), Some(Id::Color));
    }

    #[test]
    fn posixly_correct_and_order() {
        let items: Vec<_> = Parser::new(
            OPTS,
            &["almost-all", "all"],
            vec![b"--al".to_vec(), b"f".to_vec(), b"-a".to_vec(), b"--".to_vec()],
            true,
        )
        .collect();
        assert_eq!(
            items[0],
            Item::Error(UsageError::Ambiguous(b"--al".to_vec(), vec!["almost-all", "all"]))
        );
        assert_eq!(
            &items[1..],
            &[
                Item::Operand(b"f".to_vec()),
                Item::Operand(b"-a".to_vec()),
                Item::Operand(b"--".to_vec())
            ]
        );
    }

    /// Candidates of an ambiguous prefix come in the getopt order given
    /// (GNU's table order, not the help table's), then the names that
    /// order lacks (a tool's own options) in table order.
    #[test]
    fn ambiguity_lists_getopt_order_then_the_rest() {
        let order: &[&str] = &["sorting", "size", "all"];
        let p = Parser::new(OPTS, order, vec![b"--s".to_vec(), b"--a".to_vec()], false);
        let items: Vec<_> = p.collect();
        assert_eq!(
            items,
            vec![
                Item::Error(UsageError::Ambiguous(
                    b"--s".to_vec(),
                    vec!["sorting", "size", "sort"]
                )),
                Item::Error(UsageError::Ambiguous(b"--a".to_vec(), vec!["all", "almost-all"])),
            ]
        );
    }

    #[test]
    fn help_layout() {
        let doc =
            Doc::from_opts("t", "t", "test", &["[OPTION]..."], "Does things.", OPTS, "Notes.");
        let h = doc.help("t");
        assert!(h.starts_with("Usage: t [OPTION]...\nDoes things.\n\nArguments"));
        assert!(h.contains("\n  -a, --all                  everything\n"));
        assert!(h.contains("\n      --color[=WHEN]         colours\n"));
        assert!(h.ends_with("\n\nNotes.\n"));
        check_table(OPTS, &["all"]).unwrap();
        assert!(check_table(OPTS, &["nope"]).is_err());
    }
}
