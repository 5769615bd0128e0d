//! The command line → a [`Plan`]: leading options, starting points, and the
//! expression (recursive descent with GNU's precedence: `!` > `-a` > `-o` >
//! `,`), with GNU's error messages.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use crate::exec::ExecSpec;
use crate::expr::{tmask, Cmp, Expr, Prim, TimeKind};
use crate::primaries::{self, Id, Kind};
use crate::printf::Format;
use crate::regex::{Regex, RegexType};
use cli::glob::Glob;
use cli::timefmt::Timestamp;
use ringio::Errno;

/// How symlinks are treated (-P, -H, -L).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Follow {
    Never,
    Roots,
    Always,
}

/// Where an output action writes.
#[derive(Debug)]
pub enum OutTarget {
    Stdout,
    Stderr,
    File { name: Vec<u8>, file: std::fs::File },
}

impl OutTarget {
    /// The descriptor output to this target is written to.
    pub fn fd(&self) -> i32 {
        use std::os::fd::AsRawFd;
        match self {
            OutTarget::Stdout => 1,
            OutTarget::Stderr => 2,
            OutTarget::File { file, .. } => file.as_raw_fd(),
        }
    }
}

/// Everything the walk needs to know.
#[derive(Debug)]
pub struct Plan {
    pub roots: Vec<Vec<u8>>,
    pub expr: Expr,
    pub follow: Follow,
    pub maxdepth: usize,
    pub mindepth: usize,
    pub depth_first: bool,
    pub xdev: bool,
    pub ignore_race: bool,
    pub threads: usize,
    pub sort: bool,
    /// Index 0 is stdout.
    pub outs: Vec<OutTarget>,
    pub execs: Vec<ExecSpec>,
    /// The time find started (reference for -mtime etc.).
    pub now: Timestamp,
    /// `-files0-from FILE`: the starting points come from FILE (`-` is
    /// standard input), read by [`crate::run`]; `roots` is then empty.
    pub files0: Option<Vec<u8>>,
}

/// Why the command line was refused (the message, without the program name).
#[derive(Debug)]
pub enum ParseError {
    Msg(String),
    /// Several messages, each on its own line.
    Msgs(Vec<String>),
    /// `-help`.
    Help,
    /// `-version`.
    Version,
    /// `-D help`: print this and exit 0.
    Print(String),
}

/// `-D help`. The flags are accepted; their diagnostics describe GNU's
/// internals (its optimiser, fts) and lfind prints none of them.
const DEBUG_HELP: &str = "Valid arguments for -D:
exec       Show diagnostic information relating to -exec, -execdir, -ok and -okdir
opt        Show diagnostic information relating to optimisation
rates      Indicate how often each predicate succeeded
search     Navigate the directory tree verbosely
stat       Trace calls to stat(2) and lstat(2)
time       Show diagnostic information relating to time-of-day and timestamp comparisons
tree       Display the expression tree
all        Set all of the debug flags (but help)
help       Explain the various -D options
";

fn err<T>(s: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError::Msg(s.into()))
}

/// `_(msgid)` in findutils' domain with its `%s`s filled in, as text
/// (translations are in the locale's charset: UTF-8, or ASCII with `?`
/// under LC_CTYPE=C).
pub(crate) fn translated(msgid: &'static std::ffi::CStr, args: &[&[u8]]) -> String {
    lossy(&cli::locale::trf(msgid, args))
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `'name'` as find quotes names in messages (locale style in C).
pub fn quoted(b: &[u8]) -> String {
    lossy(&cli::quote::quote(b, cli::quote::Style::Locale))
}

struct Parser {
    args: Vec<Vec<u8>>,
    i: usize,
    plan: Plan,
    syntax: RegexType,
    daystart: bool,
    warnings: Vec<String>,
    /// GNU's -warn/-nowarn state: on by default when standard input is a
    /// terminal; POSIXLY_CORRECT silences every such warning.
    warn: bool,
    posixly_correct: bool,
    /// The first argument of the expression that is not an option (a test,
    /// an action or an operator): global options after it are warned about.
    first_nonoption: Option<Vec<u8>>,
    /// How many parts of the expression (tests, actions, options, operators,
    /// parentheses) were read, -daystart and -files0-from left out: GNU's
    /// parser makes no predicate of those two.
    preds: usize,
    /// The name GNU's messages give the last of them: its own, or that of
    /// a -daystart or -files0-from read after it (GNU names the last
    /// predicate after each argument it parses, whether or not the
    /// argument made a predicate of its own).
    last_name: Vec<u8>,
}

/// Parses `args` (without `argv[0]`). Warnings are returned to be printed.
#[cfg_attr(ringutils_small, optimize(size))]
pub fn parse(args: Vec<OsString>) -> Result<(Plan, Vec<String>), ParseError> {
    let args: Vec<Vec<u8>> = args.into_iter().map(|a| a.into_vec()).collect();
    let now = Timestamp::now();
    let mut p = Parser {
        args,
        i: 0,
        plan: Plan {
            roots: Vec::new(),
            expr: Expr::Prim(Prim::True),
            follow: Follow::Never,
            maxdepth: usize::MAX,
            mindepth: 0,
            depth_first: false,
            xdev: false,
            ignore_race: false,
            threads: 0,
            sort: false,
            outs: vec![OutTarget::Stdout],
            execs: Vec::new(),
            now,
            files0: None,
        },
        syntax: RegexType::EMACS,
        daystart: false,
        warnings: Vec::new(),
        warn: libcw::isatty(0),
        posixly_correct: std::env::var_os("POSIXLY_CORRECT").is_some(),
        first_nonoption: None,
        preds: 0,
        last_name: Vec::new(),
    };
    match p.read() {
        Ok(()) => Ok((p.plan, p.warnings)),
        // GNU prints each warning where it parses it, so those of the
        // arguments before a fatal one come first.
        Err(e) if p.warnings.is_empty() => Err(e),
        Err(ParseError::Msg(m)) => {
            Err(ParseError::Msgs(p.warnings.into_iter().chain([m]).collect()))
        }
        Err(ParseError::Msgs(v)) => {
            Err(ParseError::Msgs(p.warnings.into_iter().chain(v).collect()))
        }
        Err(e) => Err(e),
    }
}

impl Parser {
    /// The whole command line after the start: leading options, operands,
    /// the expression; checks across it.
    fn read(&mut self) -> Result<(), ParseError> {
        self.leading_options()?;
        while let Some(a) = self.args.get(self.i) {
            if looks_like_expr(a) {
                break;
            }
            self.plan.roots.push(a.clone());
            self.i += 1;
        }
        let operands = std::mem::take(&mut self.plan.roots);
        self.settle()?;
        let expr = if self.i < self.args.len() { Some(self.comma()?) } else { None };
        if let Some(a) = self.args.get(self.i) {
            return match a.as_slice() {
                b")" => err(translated(c"you have too many ')'", &[])),
                _ => err(translated(c"paths must precede expression: `%s'", &[a])),
            };
        }
        match &self.plan.files0 {
            None if operands.is_empty() => self.plan.roots.push(b".".to_vec()),
            None => self.plan.roots = operands,
            Some(_) if !operands.is_empty() => {
                return Err(ParseError::Msgs(vec![
                    translated(c"extra operand %s", &[quoted(&operands[0]).as_bytes()]),
                    translated(c"file operands cannot be combined with -files0-from", &[]),
                ]))
            }
            Some(list) => {
                let asks = self.plan.execs.iter().any(|x| x.ok);
                if list == b"-" && asks {
                    // GNU's message ends in a newline of its own.
                    return err(translated(
                        c"option -files0-from reading from standard input cannot be combined with -ok, -okdir\n",
                        &[],
                    ));
                }
            }
        }
        let expr = expr.unwrap_or(Expr::Prim(Prim::True));
        let has_action = expr.any(&|p| p.is_action());
        self.plan.expr = if has_action {
            expr
        } else {
            Expr::And(Box::new(expr), Box::new(Expr::Prim(Prim::Print { out: 0, term: b'\n' })))
        };
        if self.plan.expr.any(&|p| matches!(p, Prim::Delete)) {
            if !self.plan.depth_first && self.plan.expr.any(&|p| matches!(p, Prim::Prune)) {
                return err(translated(c"The -delete action automatically turns on -depth, but -prune does nothing when -depth is in effect.  If you want to carry on anyway, just explicitly use the -depth option.", &[]));
            }
            self.plan.depth_first = true;
        }
        Ok(())
    }
}

/// lfind's own leading options (`-j N`, `-jN`, `-s`) met in the
/// expression: the option as typed, for a message that says where it
/// goes. GNU's leading options there (`-H`, `-O3`, ...) stay GNU's
/// "unknown predicate", as GNU find has no such options to point to.
fn misplaced_option(name: &[u8]) -> Option<String> {
    let ours = match primaries::lookup(name) {
        Some(p) => p.kind == Kind::Leading && matches!(p.id, Id::Threads | Id::Sorted),
        None => name.starts_with(b"-j") && name[2..].iter().all(u8::is_ascii_digit),
    };
    ours.then(|| lossy(name))
}

/// GNU's test for where the expression starts.
fn looks_like_expr(a: &[u8]) -> bool {
    (a.len() > 1 && a[0] == b'-') || a == b"!" || a == b"("
}

impl Parser {
    /// -H -L -P -D -O (and -j -s) before the starting points, looked up
    /// in the table like every primary.
    fn leading_options(&mut self) -> Result<(), ParseError> {
        while let Some(a) = self.args.get(self.i).cloned() {
            if a == b"--" {
                self.i += 1;
                return Ok(());
            }
            let leading = |n: &[u8]| primaries::lookup(n).filter(|p| p.kind == Kind::Leading);
            // -jN: the count attached.
            let (prim, attached) = match leading(&a) {
                Some(p) => (p, None),
                None if a.starts_with(b"-j") && a.len() > 2 => match leading(b"-j") {
                    Some(p) => (p, Some(a[2..].to_vec())),
                    None => return Ok(()),
                },
                None => return Ok(()),
            };
            match prim.id {
                Id::FollowArgs => self.plan.follow = Follow::Roots,
                Id::FollowAll => self.plan.follow = Follow::Always,
                Id::FollowNever => self.plan.follow = Follow::Never,
                Id::Sorted => self.plan.sort = true,
                Id::Optimize => optimisation_level(&a[2..])?,
                Id::Debug => self.debug_flags()?,
                Id::Threads => {
                    let v = match attached {
                        Some(v) => Some(v),
                        None => {
                            self.i += 1;
                            self.args.get(self.i).cloned()
                        }
                    };
                    match v.as_deref().and_then(parse_usize) {
                        Some(n) if n > 0 => self.plan.threads = n,
                        _ => return err("-j needs a positive number of threads"),
                    }
                }
                _ => return Ok(()),
            }
            self.i += 1;
        }
        Ok(())
    }

    /// -D's comma-separated flags: checked (unknown ones warned about),
    /// not acted on; `help` lists them and exits.
    fn debug_flags(&mut self) -> Result<(), ParseError> {
        self.i += 1;
        let Some(d) = self.args.get(self.i) else {
            // GNU adds its usage hint on a line of its own.
            let hint = lossy(&cli::msg::try_help());
            let msg = translated(c"Missing argument after the -D option.", &[]);
            return err(format!("{msg}\n{}", hint.trim_end()));
        };
        for flag in d.split(|&c| c == b',') {
            if !matches!(
                flag,
                b"exec"
                    | b"opt"
                    | b"rates"
                    | b"search"
                    | b"stat"
                    | b"time"
                    | b"tree"
                    | b"all"
                    | b"help"
            ) {
                // GNU names the list's first flag, whichever is
                // unknown (its strtok has cut the argument there).
                let first = d.split(|&c| c == b',').next().unwrap_or_default();
                self.warnings.push(translated(
                    c"Ignoring unrecognised debug flag %s",
                    &[quoted(first).as_bytes()],
                ));
            }
        }
        if d.split(|&c| c == b',').any(|f| f == b"help") {
            // The warnings so far come first, as in GNU.
            for w in self.warnings.drain(..) {
                cli::msg::error(&w);
            }
            return Err(ParseError::Print(DEBUG_HELP.into()));
        }
        Ok(())
    }

    fn peek(&self) -> Option<&[u8]> {
        self.args.get(self.i).map(|v| v.as_slice())
    }

    /// Reads -daystart and -files0-from where they stand: options GNU
    /// makes no predicate of, so they are not parts of the expression (`(
    /// -daystart )` is empty) and only rename the last part in messages.
    fn settle(&mut self) -> Result<(), ParseError> {
        while let Some(a @ (b"-daystart" | b"-files0-from")) = self.peek() {
            let a = a.to_vec();
            self.i += 1;
            self.primary(&a)?;
            self.last_name = a;
        }
        Ok(())
    }

    /// The part just read (an operator or a parenthesis) counts as one.
    fn part(&mut self, name: &[u8]) {
        self.preds += 1;
        self.last_name = name.to_vec();
    }

    /// Consumes binary operator `op` and what may stand after it; whether
    /// an expression follows (else the error to give).
    fn after_op(&mut self, left: &Expr, op: &[u8]) -> Result<(), ParseError> {
        self.i += 1;
        self.part(op);
        self.settle()?;
        if self.i >= self.args.len() {
            return dangling_op(left, &lossy(&self.last_name));
        }
        Ok(())
    }

    fn comma(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.or()?;
        while self.peek() == Some(b",") {
            self.after_op(&e, b",")?;
            let r = self.or()?;
            e = Expr::Comma(Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.and()?;
        while let Some(op @ (b"-o" | b"-or")) = self.peek() {
            let op = op.to_vec();
            self.after_op(&e, &op)?;
            let r = self.and()?;
            e = Expr::Or(Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.unary()?;
        loop {
            self.settle()?;
            match self.peek() {
                Some(op @ (b"-a" | b"-and")) => {
                    let op = op.to_vec();
                    self.after_op(&e, &op)?;
                    let r = self.unary()?;
                    e = Expr::And(Box::new(e), Box::new(r));
                }
                None | Some(b"-o" | b"-or" | b")" | b",") => return Ok(e),
                Some(_) => {
                    let r = self.unary()?;
                    e = Expr::And(Box::new(e), Box::new(r));
                }
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        self.settle()?;
        let Some(a) = self.peek().map(|a| a.to_vec()) else {
            return err(translated(c"invalid expression", &[]));
        };
        if matches!(a.as_slice(), b"!" | b"-not" | b"(") && self.first_nonoption.is_none() {
            self.first_nonoption = Some(a.clone());
        }
        match a.as_slice() {
            b"!" | b"-not" => {
                self.i += 1;
                self.part(&a);
                self.settle()?;
                if self.i >= self.args.len() {
                    return err(translated(
                        c"expected an expression after '%s'",
                        &[&self.last_name],
                    ));
                }
                if let Some(op @ (b"-o" | b"-or" | b"-a" | b"-and")) = self.peek() {
                    return err(translated(c"invalid expression; you have used a binary operator '%s' with nothing before it.", &[op]));
                }
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            b"(" => {
                self.i += 1;
                self.part(&a);
                self.settle()?;
                if self.peek() == Some(b")") {
                    return err(translated(
                        c"invalid expression; empty parentheses are not allowed.",
                        &[],
                    ));
                }
                if self.i >= self.args.len() {
                    // Nothing at all after the '(': findutils 4.9 words this apart.
                    return err(translated(
                        c"invalid expression; expected to find a ')' but didn't see one. Perhaps you need an extra predicate after '%s'",
                        &[&self.last_name],
                    ));
                }
                let e = self.comma()?;
                if self.peek() != Some(b")") {
                    return err(translated(c"invalid expression; I was expecting to find a ')' somewhere but did not see one.", &[]));
                }
                self.i += 1;
                self.part(b")");
                Ok(e)
            }
            b"-o" | b"-or" | b"-a" | b"-and" | b"," => err(translated(
                c"invalid expression; you have used a binary operator '%s' with nothing before it.",
                &[&a],
            )),
            // Where an expression should start: at the very beginning (GNU:
            // `find -files0-from - ')' -print`), or after an operator.
            b")" if self.preds == 0 => err(translated(
                c"invalid expression: expected expression before closing parentheses '%s'.",
                &[b")"],
            )),
            b")" => {
                err(translated(c"expected an expression between '%s' and ')'", &[&self.last_name]))
            }
            _ => {
                self.i += 1;
                let e = self.primary(&a)?;
                self.part(&a);
                Ok(e)
            }
        }
    }

    fn arg(&mut self, name: &[u8]) -> Result<Vec<u8>, ParseError> {
        match self.args.get(self.i) {
            Some(v) => {
                self.i += 1;
                Ok(v.clone())
            }
            None => err(translated(c"missing argument to `%s'", &[name])),
        }
    }

    fn out_index(&mut self, file: &[u8]) -> Result<usize, ParseError> {
        match file {
            b"/dev/stdout" => return Ok(0),
            b"/dev/stderr" => {
                if let Some(i) = self.plan.outs.iter().position(|o| matches!(o, OutTarget::Stderr))
                {
                    return Ok(i);
                }
                self.plan.outs.push(OutTarget::Stderr);
                return Ok(self.plan.outs.len() - 1);
            }
            _ => {}
        }
        if let Some(i) = self
            .plan
            .outs
            .iter()
            .position(|o| matches!(o, OutTarget::File { name, .. } if name == file))
        {
            return Ok(i);
        }
        let path = std::path::PathBuf::from(OsString::from_vec(file.to_vec()));
        match std::fs::File::create(&path) {
            Ok(f) => {
                // Another name of a file already open (a hard link, a
                // symlink, `./x`): one stream, as GNU shares it, so the
                // actions' records don't overwrite each other.
                use std::os::unix::fs::MetadataExt;
                if let Ok(m) = f.metadata() {
                    let same = self.plan.outs.iter().position(|o| match o {
                        OutTarget::File { file, .. } => {
                            file.metadata().is_ok_and(|n| n.dev() == m.dev() && n.ino() == m.ino())
                        }
                        _ => false,
                    });
                    if let Some(i) = same {
                        return Ok(i);
                    }
                }
                self.plan.outs.push(OutTarget::File { name: file.to_vec(), file: f });
                Ok(self.plan.outs.len() - 1)
            }
            Err(e) => err(format!("{}: {}", quoted(file), errno_text(&e))),
        }
    }

    /// A primary whose name has just been consumed → its node: the name is
    /// looked up in [`primaries`]' table, and [`parser`] gives the function
    /// that reads the primary's arguments.
    fn primary(&mut self, name: &[u8]) -> Result<Expr, ParseError> {
        // Leading options and operators are not primaries here.
        let found =
            primaries::lookup(name).filter(|p| !matches!(p.kind, Kind::Leading | Kind::Operator));
        let parse = found.and_then(|p| parser(p.id));
        if let (Some(p), Some(_)) = (found, parse) {
            match p.kind {
                Kind::Global => {
                    if let Some(first) = self.first_nonoption.clone() {
                        if self.warns() {
                            self.warnings.push(translated(
                                c"warning: you have specified the global option %s after the argument %s, but global options are not positional, i.e., %s affects tests specified before it as well as those specified after it.  Please specify global options before other arguments.",
                                &[name, &first, name],
                            ));
                        }
                    }
                }
                Kind::Positional => {}
                _ => {
                    if self.first_nonoption.is_none() {
                        self.first_nonoption = Some(name.to_vec());
                    }
                }
            }
        }
        let Some(parse) = parse else {
            if !name.starts_with(b"-") {
                let msg = translated(c"paths must precede expression: `%s'", &[name]);
                let path = std::path::Path::new(std::ffi::OsStr::from_bytes(name));
                if std::fs::metadata(path).is_err() {
                    return err(msg);
                }
                let hint = translated(
                    c"possible unquoted pattern after predicate `%s'?",
                    &[&self.last_name],
                );
                return Err(ParseError::Msgs(vec![msg, hint]));
            }
            if let Some(opt) = misplaced_option(name) {
                return err(format!("{opt} is an option: put it before the starting points"));
            }
            return err(translated(c"unknown predicate `%s'", &[name]));
        };
        Ok(Expr::Prim(parse(self, name)?))
    }

    /// GNU's should_issue_warnings.
    fn warns(&self) -> bool {
        self.warn && !self.posixly_correct
    }

    /// -name and -iname's pattern: a `/` can never match a base name.
    fn name_glob(&mut self, n: &[u8], casefold: bool) -> Result<Prim, ParseError> {
        let g = self.glob(n, casefold)?;
        let v = &self.args[self.i - 1];
        if self.warns() && v.contains(&b'/') {
            let alt: &[u8] = if casefold { b"-iwholename" } else { b"-wholename" };
            let w = translated(
                c"warning: %s matches against basenames only, but the given pattern contains a directory separator (%s), thus the expression will evaluate to false all the time.  Did you mean %s?",
                &[quoted(n).as_bytes(), quoted(b"/").as_bytes(), quoted(alt).as_bytes()],
            );
            self.warnings.push(w);
        }
        Ok(Prim::Name(g))
    }

    /// -path and -ipath's pattern: one ending in `/` never matches (names
    /// are compared without a trailing slash). GNU says so even under
    /// -nowarn; only POSIXLY_CORRECT keeps it quiet.
    fn path_glob(&mut self, n: &[u8], casefold: bool) -> Result<Prim, ParseError> {
        let g = self.glob(n, casefold)?;
        let v = &self.args[self.i - 1];
        if !self.posixly_correct && v.ends_with(b"/") {
            let w = translated(
                c"warning: -%s %s will not match anything because it ends with /.",
                &[&n[1..], v],
            );
            self.warnings.push(w);
        }
        Ok(Prim::Path(g))
    }

    /// An option that takes effect where it stands: always true there.
    fn option(&mut self, set: impl FnOnce(&mut Self)) -> Result<Prim, ParseError> {
        set(self);
        Ok(Prim::True)
    }

    /// -maxdepth and -mindepth's argument.
    fn depth(&mut self, n: &[u8]) -> Result<usize, ParseError> {
        let v = self.arg(n)?;
        match parse_usize(&v) {
            // GNU's depths are C ints: more is out of range.
            Some(d) if d <= i32::MAX as usize => Ok(d),
            _ if !v.is_empty() && v.iter().all(u8::is_ascii_digit) => {
                err(format!("{}: {}", lossy(&v), ringio::Errno(libc::ERANGE).message()))
            }
            _ => err(translated(
                c"Expected a positive decimal integer argument to %s, but got %s",
                &[n, quoted(&v).as_bytes()],
            )),
        }
    }

    fn regextype(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let v = self.arg(n)?;
        match RegexType::from_name(&v) {
            Some(s) => self.syntax = s,
            None => {
                // Each name quoted as the value is (‘…’ in UTF-8).
                let list: Vec<String> =
                    RegexType::NAMES.iter().map(|n| quoted(n.as_bytes())).collect();
                return err(translated(
                    c"Unknown regular expression type %s; valid types are %s.",
                    &[quoted(&v).as_bytes(), list.join(", ").as_bytes()],
                ));
            }
        }
        Ok(Prim::True)
    }

    /// The shell pattern of -name, -path, -lname and their -i forms.
    fn glob(&mut self, n: &[u8], casefold: bool) -> Result<Glob, ParseError> {
        let v = self.arg(n)?;
        Ok(Glob::new(&v, folding(casefold)))
    }

    fn context(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let v = self.arg(n)?;
        // GNU refuses the test where SELinux is off (no selinuxfs).
        if !std::path::Path::new("/sys/fs/selinux/enforce").exists() {
            return err(translated(c"invalid predicate -context: SELinux is not enabled.", &[]));
        }
        Ok(Prim::Context(Glob::new(&v, folding(false))))
    }

    fn regex(&mut self, n: &[u8], casefold: bool) -> Result<Prim, ParseError> {
        let v = self.arg(n)?;
        match Regex::new(&v, self.syntax, casefold) {
            Ok(r) => Ok(Prim::Regex(r)),
            // The reason is glibc's own text, translated in its catalog.
            Err(e) => {
                err(translated(c"failed to compile regular expression '%s': %s", &[&v, &e.0]))
            }
        }
    }

    /// -type and -xtype's letters, as a [`tmask`] mask.
    fn types(&mut self, n: &[u8]) -> Result<u16, ParseError> {
        let v = self.arg(n)?;
        parse_types(n, &v)
    }

    /// -newer, -anewer, -cnewer: `kind` of the file after FILE's mtime.
    fn newer(&mut self, n: &[u8], kind: TimeKind) -> Result<Prim, ParseError> {
        let v = self.arg(n)?;
        let st = self.ref_stat(&v)?;
        Ok(Prim::Newer { kind, t: Timestamp::of(&st.stx_mtime) })
    }

    /// -newerXY: the letters are checked before the argument is taken.
    fn newer_xy(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let (xc, yc) = (n[6], n[7]);
        let kind = |c: u8| match c {
            b'a' => Some(TimeKind::Access),
            b'B' => Some(TimeKind::Birth),
            b'c' => Some(TimeKind::Change),
            b'm' => Some(TimeKind::Modify),
            _ => None,
        };
        let Some(k) = kind(xc) else {
            return err(translated(c"invalid predicate `%s'", &[n]));
        };
        if yc != b't' && kind(yc).is_none() {
            return err(translated(c"invalid predicate `%s'", &[n]));
        }
        // GNU words a missing argument of -newerXY apart from the others.
        if self.i >= self.args.len() {
            return err(translated(c"The %s test needs an argument", &[quoted(n).as_bytes()]));
        }
        let v = self.arg(n)?;
        let t = if yc == b't' {
            match crate::datetime::parse(&v, self.plan.now) {
                Some(t) => t,
                None => {
                    return err(translated(
                        c"I cannot figure out how to interpret %s as a date or time",
                        &[quoted(&v).as_bytes()],
                    ))
                }
            }
        } else {
            let st = self.ref_stat(&v)?;
            let ts = match yc {
                b'a' => st.stx_atime,
                b'B' => st.stx_btime,
                b'c' => st.stx_ctime,
                _ => st.stx_mtime,
            };
            Timestamp::of(&ts)
        };
        Ok(Prim::Newer { kind: k, t })
    }

    /// -Xtime (`unit` 86400 s, from the coming midnight under -daystart)
    /// and -Xmin (60 s).
    fn age(&mut self, n: &[u8], kind: TimeKind, unit: i64) -> Result<Prim, ParseError> {
        let v = self.arg(n)?;
        let Some((cmp, num)) = parse_float_cmp(&v) else {
            return err(translated(c"invalid argument `%s' to `%s'", &[&v, n]));
        };
        let days = unit == 86400;
        let origin = if days && self.daystart { self.day_start() } else { self.plan.now };
        Ok(Prim::Age { kind, cmp, n: num, unit, origin })
    }

    fn used(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let v = self.arg(n)?;
        let Some((cmp, num)) = parse_float_cmp(&v) else {
            // GNU words -used's error apart from the other tests'.
            return err(translated(c"Invalid argument %s to -used", &[&v]));
        };
        Ok(Prim::Used { cmp, n: num })
    }

    fn perm(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let v = self.arg(n)?;
        let Some((kind, mode)) = crate::perm::parse(&v) else {
            return err(translated(c"invalid mode %s", &[quoted(&v).as_bytes()]));
        };
        if kind == crate::expr::PermKind::Any && mode == [0, 0] {
            self.warnings.push(translated(c"warning: you have specified a mode pattern %s (which is equivalent to /000). The meaning of -perm /000 has now been changed to be consistent with -perm -000; that is, while it used to match no files, it now matches all files.", &[&v]));
        }
        Ok(Prim::Perm { kind, mode })
    }

    fn user(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let v = self.arg(n)?;
        if v.is_empty() {
            return err(translated(c"The argument to -user should not be empty", &[]));
        }
        match cli::users::uid_of(&v) {
            Some(u) => Ok(Prim::Uid(Cmp::Eq, u as u64)),
            None => match parse_u64(&v) {
                Some(u) => Ok(Prim::Uid(Cmp::Eq, u)),
                None => {
                    err(translated(c"%s is not the name of a known user", &[quoted(&v).as_bytes()]))
                }
            },
        }
    }

    fn group(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let v = self.arg(n)?;
        if v.is_empty() {
            return err(translated(
                c"argument to -group is empty, but should be a group name",
                &[],
            ));
        }
        match cli::users::gid_of(&v) {
            Some(g) => Ok(Prim::Gid(Cmp::Eq, g as u64)),
            None => match parse_u64(&v) {
                Some(g) => Ok(Prim::Gid(Cmp::Eq, g)),
                None => err(translated(
                    c"%s is not the name of an existing group",
                    &[quoted(&v).as_bytes()],
                )),
            },
        }
    }

    /// `[+-]N` of -uid, -gid, -links, -inum.
    fn int_cmp(&mut self, n: &[u8]) -> Result<(Cmp, u64), ParseError> {
        // Without its argument GNU names the primary as the argument.
        if self.i >= self.args.len() {
            return err(translated(c"invalid argument `%s' to `%s'", &[n, n]));
        }
        let v = self.arg(n)?;
        match parse_int_cmp(&v) {
            Some(c) => Ok(c),
            None => err(translated(c"invalid argument `%s' to `%s'", &[&v, n])),
        }
    }

    fn samefile(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let v = self.arg(n)?;
        let st = self.ref_stat(&v)?;
        Ok(Prim::SameFile(ringio::sys::DevIno::of(&st)))
    }

    /// -fprint and -fprint0: the records end in `term`.
    fn fprint(&mut self, n: &[u8], term: u8) -> Result<Prim, ParseError> {
        let f = self.arg(n)?;
        let out = self.out_index(&f)?;
        Ok(Prim::Print { out, term })
    }

    fn fls(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let f = self.arg(n)?;
        Ok(Prim::Ls { out: self.out_index(&f)? })
    }

    fn printf(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let f = self.arg(n)?;
        Ok(Prim::Printf { out: 0, fmt: self.format(&f)? })
    }

    /// -fprintf FILE FORMAT: both arguments are taken before FILE is opened.
    fn fprintf(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let file = self.arg(n)?;
        let Some(f) = self.args.get(self.i).cloned() else {
            return err(translated(c"invalid argument `%s' to `%s'", &[&file, n]));
        };
        self.i += 1;
        let out = self.out_index(&file)?;
        Ok(Prim::Printf { out, fmt: self.format(&f)? })
    }

    /// -exec, -execdir, -ok, -okdir.
    fn command(&mut self, n: &[u8]) -> Result<Prim, ParseError> {
        let spec = self.exec(n)?;
        self.plan.execs.push(spec);
        Ok(Prim::Exec(self.plan.execs.len() - 1))
    }

    fn format(&mut self, f: &[u8]) -> Result<Format, ParseError> {
        let mut warns = Vec::new();
        let r = Format::parse(f, &mut |w| warns.push(w));
        self.warnings.extend(warns);
        r.map_err(|e| ParseError::Msg(e.0))
    }

    fn exec(&mut self, n: &[u8]) -> Result<ExecSpec, ParseError> {
        if n.ends_with(b"dir") {
            if let Some(path) = std::env::var_os("PATH") {
                insecure_path(path.as_bytes(), n)?;
            }
        }
        // GNU's reading: `;` ends the command; for -exec and -execdir so
        // does a `+` right after a word holding `{}` (anywhere in it), and
        // the batched form then wants exactly one `{}`, standing alone.
        let ok = n.starts_with(b"-ok");
        let start = self.i;
        let mut end = start;
        let mut plus = false;
        let mut saw = false;
        let mut braces = 0;
        let mut brace_word: &[u8] = b"";
        loop {
            let Some(a) = self.args.get(end) else {
                return err(translated(c"missing argument to `%s'", &[n]));
            };
            if a == b";" {
                break;
            }
            if !ok && saw && a == b"+" {
                plus = true;
                break;
            }
            saw = a.windows(2).any(|w| w == b"{}");
            if saw {
                braces += 1;
                brace_word = a;
            }
            end += 1;
        }
        if end == start {
            return err(translated(c"invalid argument `%s' to `%s'", &[&self.args[end], n]));
        }
        if plus {
            let suffix: &[u8] = if n.ends_with(b"dir") { b"dir" } else { b"" };
            if braces > 1 {
                return err(translated(
                    c"Only one instance of {} is supported with -exec%s ... +",
                    &[suffix],
                ));
            }
            if brace_word != b"{}" {
                let form = [n, b" ... {} +"].concat();
                return err(translated(
                    c"In %s the %s must appear by itself, but you specified %s",
                    &[
                        quoted(&form).as_bytes(),
                        quoted(b"{}").as_bytes(),
                        quoted(brace_word).as_bytes(),
                    ],
                ));
            }
        }
        let argv = self.args[start..end].to_vec();
        self.i = end + 1;
        Ok(ExecSpec::new(argv, n.ends_with(b"dir"), ok, plus))
    }

    fn ref_stat(&self, path: &[u8]) -> Result<ringio::Statx, ParseError> {
        let follow = self.plan.follow != Follow::Never;
        let c = match std::ffi::CString::new(path.to_vec()) {
            Ok(c) => c,
            Err(_) => {
                return err(format!("{}: {}", quoted(path), ringio::Errno(libc::EINVAL).message()))
            }
        };
        let mut st = ringio::sys::statx_zeroed();
        let stat = |flags: i32, st: &mut ringio::Statx| {
            let mask = libc::STATX_BASIC_STATS | libc::STATX_BTIME;
            ringio::sys::statx(libc::AT_FDCWD, &c, flags, mask, st)
        };
        let r = if follow {
            // -H and -L: a link that can't be followed (dangling, or
            // through a non-directory) is taken as itself, as GNU's
            // fallback_stat does; other errors stand.
            match stat(0, &mut st) {
                Err(e) if e == Errno::ENOENT || e == Errno(libc::ENOTDIR) => {
                    stat(libc::AT_SYMLINK_NOFOLLOW, &mut st)
                }
                r => r,
            }
        } else {
            stat(libc::AT_SYMLINK_NOFOLLOW, &mut st)
        };
        match r {
            Ok(()) => Ok(st),
            Err(e) => err(format!("{}: {}", quoted(path), e.message())),
        }
    }

    /// -daystart's origin: the coming midnight, so that "today" is 0 days ago.
    fn day_start(&self) -> Timestamp {
        use libcw::time::{localtime, mktime};
        match localtime(self.plan.now.secs).and_then(|tm| mktime(tm.year, tm.mon, tm.mday, 0, 0, 0))
        {
            Some(mid) => Timestamp::new(mid + 86400, 0),
            None => self.plan.now,
        }
    }
}

/// Reads a primary's arguments (its name is given, already consumed) and
/// builds its node, or says why the command line is refused.
type ParseFn = fn(&mut Parser, &[u8]) -> Result<Prim, ParseError>;

/// The parse function of each primary, in the order of GNU's help: with
/// [`primaries::lookup`] (name → [`Id`]) this is the table from a name to
/// its parser. None for leading options and operators, which
/// [`Parser::leading_options`] and the descent read themselves.
fn parser(id: Id) -> Option<ParseFn> {
    option_parser(id).or_else(|| test_parser(id)).or_else(|| action_parser(id))
}

/// The parsers of the positional and global options.
fn option_parser(id: Id) -> Option<ParseFn> {
    let f: ParseFn = match id {
        // Positional options.
        Id::Daystart => |p, _| p.option(|p| p.daystart = true),
        Id::Follow => |p, _| p.option(|p| p.plan.follow = Follow::Always),
        Id::Regextype => Parser::regextype,
        Id::Warn => |p, _| p.option(|p| p.warn = true),
        Id::Nowarn => |p, _| p.option(|p| p.warn = false),
        Id::Noleaf | Id::Posix => |_, _| Ok(Prim::True),
        // Global options.
        Id::Depth => |p, n| {
            if n == b"-d" && p.warns() {
                p.warnings.push(translated(c"warning: the -d option is deprecated; please use -depth instead, because the latter is a POSIX-compliant feature.", &[]));
            }
            p.option(|p| p.plan.depth_first = true)
        },
        Id::Maxdepth => |p, n| {
            let d = p.depth(n)?;
            p.option(|p| p.plan.maxdepth = d)
        },
        Id::Mindepth => |p, n| {
            let d = p.depth(n)?;
            p.option(|p| p.plan.mindepth = d)
        },
        Id::Xdev => |p, _| p.option(|p| p.plan.xdev = true),
        Id::IgnoreRace => |p, _| p.option(|p| p.plan.ignore_race = true),
        Id::NoIgnoreRace => |p, _| p.option(|p| p.plan.ignore_race = false),
        // The last one counts, as in GNU.
        Id::Files0From => |p, n| {
            let list = p.arg(n)?;
            p.option(|p| p.plan.files0 = Some(list))
        },
        _ => return None,
    };
    Some(f)
}

/// The parsers of the tests.
fn test_parser(id: Id) -> Option<ParseFn> {
    let f: ParseFn = match id {
        // Tests.
        Id::True => |_, _| Ok(Prim::True),
        Id::False => |_, _| Ok(Prim::False),
        Id::Name => |p, n| p.name_glob(n, false),
        Id::Iname => |p, n| p.name_glob(n, true),
        Id::Path => |p, n| p.path_glob(n, false),
        Id::Ipath => |p, n| p.path_glob(n, true),
        Id::Lname => |p, n| p.glob(n, false).map(Prim::Lname),
        Id::Ilname => |p, n| p.glob(n, true).map(Prim::Lname),
        Id::Context => Parser::context,
        Id::Regex => |p, n| p.regex(n, false),
        Id::Iregex => |p, n| p.regex(n, true),
        Id::Type => |p, n| p.types(n).map(Prim::Type),
        Id::Xtype => |p, n| p.types(n).map(Prim::XType),
        Id::Size => |p, n| parse_size(&p.arg(n)?),
        Id::Empty => |_, _| Ok(Prim::Empty),
        Id::Newer => |p, n| p.newer(n, TimeKind::Modify),
        Id::Anewer => |p, n| p.newer(n, TimeKind::Access),
        Id::Cnewer => |p, n| p.newer(n, TimeKind::Change),
        Id::NewerXY => Parser::newer_xy,
        Id::Mtime => |p, n| p.age(n, TimeKind::Modify, 86400),
        Id::Atime => |p, n| p.age(n, TimeKind::Access, 86400),
        Id::Ctime => |p, n| p.age(n, TimeKind::Change, 86400),
        Id::Mmin => |p, n| p.age(n, TimeKind::Modify, 60),
        Id::Amin => |p, n| p.age(n, TimeKind::Access, 60),
        Id::Cmin => |p, n| p.age(n, TimeKind::Change, 60),
        Id::Used => Parser::used,
        Id::Perm => Parser::perm,
        Id::User => Parser::user,
        Id::GroupName => Parser::group,
        Id::Uid => |p, n| p.int_cmp(n).map(|(c, v)| Prim::Uid(c, v)),
        Id::Gid => |p, n| p.int_cmp(n).map(|(c, v)| Prim::Gid(c, v)),
        Id::Links => |p, n| p.int_cmp(n).map(|(c, v)| Prim::Links(c, v)),
        Id::Inum => |p, n| p.int_cmp(n).map(|(c, v)| Prim::Inum(c, v)),
        Id::Nouser => |_, _| Ok(Prim::NoUser),
        Id::Nogroup => |_, _| Ok(Prim::NoGroup),
        Id::Samefile => Parser::samefile,
        Id::Readable => |_, _| Ok(Prim::Access(libc::R_OK)),
        Id::Writable => |_, _| Ok(Prim::Access(libc::W_OK)),
        Id::Executable => |_, _| Ok(Prim::Access(libc::X_OK)),
        Id::Fstype => |p, n| Ok(Prim::FsType(p.arg(n)?)),
        _ => return None,
    };
    Some(f)
}

/// The parsers of the actions, and of `-help` and `-version`.
fn action_parser(id: Id) -> Option<ParseFn> {
    let f: ParseFn = match id {
        // Actions.
        Id::Print => |_, _| Ok(Prim::Print { out: 0, term: b'\n' }),
        Id::Print0 => |_, _| Ok(Prim::Print { out: 0, term: 0 }),
        Id::Fprint => |p, n| p.fprint(n, b'\n'),
        Id::Fprint0 => |p, n| p.fprint(n, 0),
        Id::Ls => |_, _| Ok(Prim::Ls { out: 0 }),
        Id::Fls => Parser::fls,
        Id::Json => |_, _| Ok(Prim::Json { out: 0 }),
        Id::Fjson => |p, n| {
            let f = p.arg(n)?;
            Ok(Prim::Json { out: p.out_index(&f)? })
        },
        Id::Printf => Parser::printf,
        Id::Fprintf => Parser::fprintf,
        Id::Prune => |_, _| Ok(Prim::Prune),
        Id::Quit => |_, _| Ok(Prim::Quit),
        Id::Delete => |_, _| Ok(Prim::Delete),
        Id::Exec | Id::Execdir | Id::Ok | Id::Okdir => Parser::command,
        // Information: printed instead of walking.
        Id::Help => |_, _| Err(ParseError::Help),
        Id::Version => |_, _| Err(ParseError::Version),
        _ => return None,
    };
    Some(f)
}

/// fnmatch flags of -name, -path and -lname: none, so `*` matches `/` and
/// a leading '.'; their -i forms fold case.
fn folding(casefold: bool) -> cli::glob::Flags {
    cli::glob::Flags { period: false, casefold }
}

/// A binary operator with nothing after it: GNU says so, except after an
/// action, where it only says the expression is invalid.
fn dangling_op<T>(left: &Expr, op: &str) -> Result<T, ParseError> {
    if left.any(&|p| p.is_action()) {
        err(translated(c"invalid expression", &[]))
    } else {
        err(translated(c"expected an expression after '%s'", &[op.to_string().as_bytes()]))
    }
}

/// -execdir and -okdir run their command in the entry's directory: a
/// `PATH` that searches the current directory (an empty entry, `.`) or a
/// relative one would run a program planted in the tree, so GNU refuses
/// such a `PATH` before anything is walked.
fn insecure_path(path: &[u8], action: &[u8]) -> Result<(), ParseError> {
    for entry in path.split(|&c| c == b':') {
        let text = if entry.is_empty() || entry == b"." {
            cli::locale::trf(
                c"The current directory is included in the PATH environment variable, which is insecure in combination with the %s action of find.  Please remove the current directory from your $PATH (that is, remove \".\", doubled colons, or leading or trailing colons)",
                &[action],
            )
        } else if !entry.starts_with(b"/") {
            cli::locale::trf(
                c"The relative path %s is included in the PATH environment variable, which is insecure in combination with the %s action of find.  Please remove that entry from $PATH",
                &[quoted(entry).as_bytes(), action],
            )
        } else {
            continue;
        };
        return err(String::from_utf8_lossy(&text).into_owned());
    }
    Ok(())
}

fn errno_text(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => ringio::Errno(n).message(),
        None => e.to_string(),
    }
}

/// `-O`'s level, the digits right after it: GNU takes 0 to 65535 and
/// refuses the rest in its own words.
fn optimisation_level(v: &[u8]) -> Result<(), ParseError> {
    match v.first() {
        None => err(translated(c"The -O option must be immediately followed by a decimal integer", &[])),
        Some(c) if !c.is_ascii_digit() => {
            err(translated(c"Please specify a decimal number immediately after -O", &[]))
        }
        _ if !v.iter().all(u8::is_ascii_digit) => err(translated(c"Invalid optimisation level %s", &[v])),
        _ => match parse_u64(v) {
            None => err(format!(
                "{}: {}",
                translated(c"Invalid optimisation level %s", &[v]),
                ringio::Errno(libc::ERANGE).message()
            )),
            Some(n) if n > 65535 => err(translated(
                c"Optimisation level %lu is too high.  If you want to find files very quickly, consider using GNU locate.",
                &[n.to_string().as_bytes()],
            )),
            Some(_) => Ok(()),
        },
    }
}

fn parse_usize(v: &[u8]) -> Option<usize> {
    if v.is_empty() || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(v).ok()?.parse().ok()
}

fn parse_u64(v: &[u8]) -> Option<u64> {
    if v.is_empty() || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(v).ok()?.parse().ok()
}

fn split_cmp(v: &[u8]) -> (Cmp, &[u8]) {
    match v.first() {
        Some(b'+') => (Cmp::Gt, &v[1..]),
        Some(b'-') => (Cmp::Lt, &v[1..]),
        _ => (Cmp::Eq, v),
    }
}

/// `[+-]NUMBER` for the integer tests: after the comparison sign, GNU reads
/// the number as C's strtoumax does (leading white space and one `+`
/// allowed, a `-` refused, nothing after the digits), so `-+1` is "less
/// than 1" and ` 1` is 1.
fn parse_int_cmp(v: &[u8]) -> Option<(Cmp, u64)> {
    let (c, rest) = split_cmp(v);
    let ws =
        rest.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')).count();
    let rest = &rest[ws..];
    let digits = rest.strip_prefix(b"+").unwrap_or(rest);
    Some((c, parse_u64(digits)?))
}

/// `[+-]NUMBER` for the time tests: after the comparison sign, the number
/// is whatever C's strtod reads in LC_NUMERIC and must be all of the
/// argument (GNU's xstrtod): so `+-1`, ` 1`, `1e2`, `0x10` and `inf` are
/// numbers, `1 `, `1e400` and the subnormal `1e-320` are not, and de_DE
/// takes `1,5` where C takes `1.5`.
fn parse_float_cmp(v: &[u8]) -> Option<(Cmp, f64)> {
    let (c, rest) = split_cmp(v);
    Some((c, xstrtod(rest)?))
}

/// strtod over all of `s`; None where it stops early or reads nothing, on
/// overflow and on an underflow that is not zero (gnulib's xstrtod), and
/// for NaN (GNU's time tests then fail an assertion; an error is kinder).
fn xstrtod(s: &[u8]) -> Option<f64> {
    let r = libcw::locale::strtod(s);
    if r.consumed == 0 || r.consumed != s.len() || (r.range && r.value != 0.0) || r.value.is_nan() {
        return None;
    }
    Some(r.value)
}

/// `[+-]N[bcwkMG]`, as GNU reads it: the unit is the last byte unless
/// that is a digit, and what comes before it is read as the integer
/// tests read theirs (so ` 5k` and `++5` are sizes, ` -5` is not).
fn parse_size(v: &[u8]) -> Result<Prim, ParseError> {
    let Some(&last) = v.last() else {
        return err(translated(c"invalid null argument to -size", &[]));
    };
    let (body, unit) = if last.is_ascii_digit() {
        (v, 512)
    } else {
        let unit = match last {
            b'b' => 512,
            b'c' => 1,
            b'w' => 2,
            b'k' => 1024,
            b'M' => 1024 * 1024,
            b'G' => 1024 * 1024 * 1024,
            c => return err(translated(c"invalid -size type `%c'", &[&[c]])),
        };
        (&v[..v.len() - 1], unit)
    };
    let Some((cmp, n)) = parse_int_cmp(body) else {
        return err(translated(c"Invalid argument `%s%s' to -size", &[v, b""]));
    };
    Ok(Prim::Size { cmp, n, unit })
}

fn parse_types(n: &[u8], v: &[u8]) -> Result<u16, ParseError> {
    let mut mask = 0u16;
    if v.is_empty() {
        return err(translated(c"Arguments to %s should contain at least one letter", &[n]));
    }
    // GNU's order of checks: the letter first (so ",f" and "f,,d" name the
    // ','), then what follows it: nothing, or a ',' and another letter.
    let mut i = 0;
    while i < v.len() {
        let bit = match v[i] {
            b'b' => tmask::BLK,
            b'c' => tmask::CHR,
            b'd' => tmask::DIR,
            b'p' => tmask::FIFO,
            b'f' => tmask::REG,
            b'l' => tmask::LNK,
            b's' => tmask::SOCK,
            // Linux has no doors: GNU refuses the letter here.
            b'D' => {
                return err(translated(
                    c"%s %c is not supported because Solaris doors are not supported on the platform find was compiled on.",
                    &[n, b"D"],
                ));
            }
            other => {
                return err(translated(c"Unknown argument to %s: %c", &[n, &[other]]));
            }
        };
        let letter = v[i];
        if mask & bit != 0 {
            return err(translated(
                c"Duplicate file type '%c' in the argument list to %s.",
                &[&[letter], n],
            ));
        }
        mask |= bit;
        i += 1;
        if i < v.len() {
            if v[i] != b',' {
                return err(translated(c"Must separate multiple arguments to %s using: ','", &[n]));
            }
            i += 1;
            if i == v.len() {
                return err(translated(c"Last file type in list argument to %s is missing, i.e., list is ending on: ','", &[n]));
            }
        }
    }
    Ok(mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every primary but the leading options and the operators has a
    /// parser, and those have none.
    #[test]
    fn every_primary_has_its_parser() {
        use crate::primaries::{Kind, PRIMARIES};
        for p in PRIMARIES {
            let read_by_descent = matches!(p.kind, Kind::Leading | Kind::Operator);
            assert_eq!(parser(p.id).is_some(), !read_by_descent, "{}", p.name);
        }
    }

    fn p(args: &[&str]) -> Result<Plan, String> {
        match parse(args.iter().map(OsString::from).collect()) {
            Ok((plan, _)) => Ok(plan),
            Err(ParseError::Msg(m)) => Err(m),
            Err(ParseError::Msgs(v)) => Err(v.join("\n")),
            Err(ParseError::Print(_) | ParseError::Help | ParseError::Version) => {
                Err("done".into())
            }
        }
    }

    #[test]
    fn errors() {
        assert_eq!(p(&["-foo"]).unwrap_err(), "unknown predicate `-foo'");
        assert_eq!(p(&["-name"]).unwrap_err(), "missing argument to `-name'");
        assert_eq!(p(&["x", "-name", "a", "b"]).unwrap_err(), "paths must precede expression: `b'");
        assert_eq!(p(&["-size", "3x"]).unwrap_err(), "invalid -size type `x'");
        assert_eq!(p(&["-size", "+"]).unwrap_err(), "invalid -size type `+'");
        assert_eq!(p(&["-size", "3k5"]).unwrap_err(), "Invalid argument `3k5' to -size");
        assert_eq!(
            p(&["-type", "fd"]).unwrap_err(),
            "Must separate multiple arguments to -type using: ','"
        );
        assert!(p(&["-exec", "echo", "{}", "x", "+"]).is_err());
        assert!(p(&[".", "-name", "a", "-o", "-print"]).is_ok());
    }

    #[test]
    fn roots() {
        let plan = p(&["a", "b", "-print"]).unwrap();
        assert_eq!(plan.roots, vec![b"a".to_vec(), b"b".to_vec()]);
        let plan = p(&[]).unwrap();
        assert_eq!(plan.roots, vec![b".".to_vec()]);
    }

    /// GNU's view of a parse: the exit status (0, or 1 where the command
    /// line is refused) and what goes to stderr, each message (warnings
    /// too) as `find: MESSAGE\n`, as GNU prints them. Holds the zone lock:
    /// parsing reads the environment and -newerXt the local zone.
    fn gnu_view(args: &[&str]) -> (i32, String) {
        let _g = crate::datetime::tests::zone_lock();
        let (status, msgs) = match parse(args.iter().map(OsString::from).collect()) {
            Ok((_, warnings)) => (0, warnings),
            Err(ParseError::Msg(m)) => (1, vec![m]),
            Err(ParseError::Msgs(v)) => (1, v),
            Err(ParseError::Print(_) | ParseError::Help | ParseError::Version) => (0, Vec::new()),
        };
        let text: String = msgs.iter().map(|m| format!("find: {m}\n")).collect();
        // `Try 'PROG --help'` names the test binary here.
        (status, text.replace(&format!("'{} --help'", cli::progname()), "'find --help'"))
    }

    /// Compares GNU's exit status and stderr with ours for each row of the
    /// section `name` of parse.tsv; lists every row that differs.
    fn check(name: &str, count: usize) {
        use crate::gnu_answers::{section, text};
        section(include_str!("gnu_answers/parse.tsv"), name, count).check(|row| {
            let [status, args @ .., stderr] = row else { panic!("short row {row:?}") };
            let status: i32 = text(status).parse().expect("exit status");
            let (args, stderr): (Vec<&str>, &str) =
                (args.iter().map(|a| text(a)).collect(), text(stderr));
            let ours = gnu_view(&args);
            (ours.0 != status || ours.1 != stderr)
                .then(|| format!("{args:?}\n  ours:  {ours:?}\n  GNU's: {:?}", (status, stderr)))
        });
    }

    /// The plan of a command line GNU accepts.
    fn plan(args: &[&str]) -> Plan {
        let _g = crate::datetime::tests::zone_lock();
        match parse(args.iter().map(OsString::from).collect()) {
            Ok((plan, _)) => plan,
            Err(e) => panic!("{args:?}: {e:?}"),
        }
    }

    /// The expression as a tree of GNU's predicate names: `and(a b)`,
    /// `or(a b)`, `comma(a b)`, `!(a)`; options (always true) are -true.
    fn shape(plan: &Plan) -> String {
        fn prim(p: &Prim, plan: &Plan) -> &'static str {
            match p {
                Prim::True => "-true",
                Prim::False => "-false",
                Prim::Name(_) => "-name",
                Prim::Type(_) => "-type",
                Prim::Size { .. } => "-size",
                Prim::Empty => "-empty",
                Prim::Prune => "-prune",
                Prim::Quit => "-quit",
                Prim::Delete => "-delete",
                Prim::Print { out: 0, term: b'\n' } => "-print",
                Prim::Print { out: 0, .. } => "-print0",
                Prim::Print { term: b'\n', .. } => "-fprint",
                Prim::Print { .. } => "-fprint0",
                Prim::Ls { out: 0 } => "-ls",
                Prim::Ls { .. } => "-fls",
                Prim::Json { out: 0 } => "-json",
                Prim::Json { .. } => "-fjson",
                Prim::Printf { out: 0, .. } => "-printf",
                Prim::Printf { .. } => "-fprintf",
                Prim::Exec(i) => match (plan.execs[*i].ok, plan.execs[*i].dir) {
                    (false, false) => "-exec",
                    (false, true) => "-execdir",
                    (true, false) => "-ok",
                    (true, true) => "-okdir",
                },
                _ => "?",
            }
        }
        fn go(e: &Expr, plan: &Plan) -> String {
            match e {
                Expr::And(a, b) => format!("and({} {})", go(a, plan), go(b, plan)),
                Expr::Or(a, b) => format!("or({} {})", go(a, plan), go(b, plan)),
                Expr::Comma(a, b) => format!("comma({} {})", go(a, plan), go(b, plan)),
                Expr::Not(a) => format!("!({})", go(a, plan)),
                Expr::Prim(p) => prim(p, plan).to_string(),
            }
        }
        go(&plan.expr, plan)
    }

    // A primary without its argument; -uid, -gid, -links and -inum name themselves as the argument (GNU's wording).
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn missing_arguments() {
        check("missing_arguments", 34);
    }

    // -type and -xtype lists: unknown letters, duplicates, separators, and doors (D), which GNU refuses on Linux.
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn type_letters() {
        check("type_letters", 20);
    }

    // -size: the unit is the last byte, the number before it reads as strtoumax does after the sign (blanks and one `+`).
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn size_arguments() {
        check("size_arguments", 30);
    }

    // -perm: octal and symbolic modes refused or taken; `+` then an octal digit is the old form GNU refuses; /000 warns.
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn perm_modes() {
        check("perm_modes", 32);
    }

    // -newerXY letters (t only as the second), unreadable dates, and reference files that don't exist.
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn newer_and_reference_files() {
        check("newer_and_reference_files", 19);
    }

    // Operators with nothing before or after them, `(`/`)` unbalanced or empty, in GNU's words for each position.
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn operators_and_parentheses() {
        check("operators_and_parentheses", 40);
    }

    // -maxdepth/-mindepth (digits only, at most INT_MAX), -regextype names, regex syntax errors, -printf formats GNU refuses (a directive cut short by the end is `%\\0', GNU reading the terminating NUL).
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn depth_regextype_and_printf_errors() {
        check("depth_regextype_and_printf_errors", 31);
    }

    // -exec/-ok command lines: `;` ends them; `+` does after a word with {} (not for -ok), and then {} must stand alone, once.
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn exec_forms() {
        check("exec_forms", 23);
    }

    // -O levels (0 to 65535, decimal digits only), -D flags, -H/-L/-P and `--` before the starting points, and the same names too late.
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn leading_options() {
        check("leading_options", 31);
    }

    // -uid/-gid/-links/-inum (strtoumax after the sign), the time tests (strtod, all of it), -used, -user, -group.
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn numeric_and_name_arguments() {
        check("numeric_and_name_arguments", 31);
    }

    // Warnings, with -warn or -nowarn given (the default follows standard input being a terminal): global options after other arguments, -name with a `/`, -path ending in `/` (even under -nowarn), -d, -D flags.
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn warnings() {
        check("warnings", 34);
    }

    // A starting point after the expression: when it names an existing file GNU adds which predicate it followed.
    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn stray_paths() {
        check("stray_paths", 16);
    }

    // The parsed tree: precedence (! over -a over -o over ,), implied -a,
    // -print added (around the whole expression) only when there is no
    // action (-prune and -quit are none).
    // GNU: LC_ALL=C find -D tree ARGS, its "Eval Tree" (before GNU's
    // optimiser) written as and(..)/or(..)/comma(..)/!(..) with the
    // predicate names only, options (-maxdepth, -depth: always true) as
    // -true. An empty expression, which GNU's tree shows as -print alone
    // and ours as -true -a -print, is in `roots_and_expression_split`.
    #[test]
    fn expression_trees() {
        let rows: &[(&[&str], &str)] = &[
            (&["-name", "a"], "and(-name -print)"),
            (&["-print"], "-print"),
            (&["-name", "a", "-print"], "and(-name -print)"),
            (&["-name", "a", "-o", "-name", "b"], "and(or(-name -name) -print)"),
            (&["-name", "a", "-o", "-name", "b", "-print"], "or(-name and(-name -print))"),
            (&["-name", "a", "-o", "-name", "b", "-a", "-print"], "or(-name and(-name -print))"),
            (
                &["(", "-name", "a", "-o", "-name", "b", ")", "-print"],
                "and(or(-name -name) -print)",
            ),
            (
                &["-name", "a", "-type", "f", "-o", "-type", "d"],
                "and(or(and(-name -type) -type) -print)",
            ),
            (&["!", "-name", "a", "-type", "f"], "and(and(!(-name) -type) -print)"),
            (&["-not", "-not", "-name", "a"], "and(!(!(-name)) -print)"),
            (&["!", "(", "-name", "a", "-o", "-type", "d", ")"], "and(!(or(-name -type)) -print)"),
            (
                &["-name", "a", ",", "-type", "f", "-o", "-type", "d"],
                "and(comma(-name or(-type -type)) -print)",
            ),
            (
                &["-name", "a", "-or", "-type", "f", ",", "-type", "d", "-and", "-size", "1"],
                "and(comma(or(-name -type) and(-type -size)) -print)",
            ),
            (&["-prune"], "and(-prune -print)"),
            (&["-quit"], "and(-quit -print)"),
            (&["-prune", "-o", "-print"], "or(-prune -print)"),
            (
                &["-name", "a", "-prune", "-o", "-name", "b"],
                "and(or(and(-name -prune) -name) -print)",
            ),
            (&["-delete"], "-delete"),
            (&["-ls"], "-ls"),
            (&["-print0"], "-print0"),
            (&["-printf", "x"], "-printf"),
            (&["-fprint", "/dev/null"], "-fprint"),
            (&["-exec", "echo", ";"], "-exec"),
            (&["-ok", "echo", ";"], "-ok"),
            (&["-execdir", "echo", "{}", "+"], "-execdir"),
            (&["-maxdepth", "1"], "and(-true -print)"),
            (&["-depth", "-name", "a"], "and(and(-true -name) -print)"),
            (
                &["-name", "a", "-maxdepth", "1", "-o", "-name", "b"],
                "and(or(and(-name -true) -name) -print)",
            ),
            (&["-true", "-false"], "and(and(-true -false) -print)"),
            (&["-empty", "-o", "!", "-empty", "-print"], "or(-empty and(!(-empty) -print))"),
            (&["(", "(", "-name", "a", ")", ")"], "and(-name -print)"),
            (
                &["-name", "a", "(", "-type", "f", "-o", "-type", "d", ")", "-print"],
                "and(and(-name or(-type -type)) -print)",
            ),
            (
                &["-type", "f", "-name", "a", "-o", "-type", "d", "-name", "b", "-o", "-type", "l"],
                "and(or(or(and(-type -name) and(-type -name)) -type) -print)",
            ),
            (
                &["-name", "a", "-o", "(", "-name", "b", "-a", "-name", "c", ")", ",", "-print"],
                "comma(or(-name and(-name -name)) -print)",
            ),
            (&["!", "-name", "a", "-o", "!", "-name", "b"], "and(or(!(-name) !(-name)) -print)"),
        ];
        let bad: Vec<String> = rows
            .iter()
            .filter_map(|&(args, want)| {
                let got = shape(&plan(args));
                (got != want).then(|| format!("{args:?}: ours {got}, GNU's {want}"))
            })
            .collect();
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    // Where the starting points end: at the first argument that is `!`,
    // `(`, or starts with `-` and is longer than that; `--` ends the
    // leading options only. `)` and `,` are paths; so are `-` and ``.
    // GNU: in a directory holding a, b, `)` and `,`: LC_ALL=C find ARGS
    // -maxdepth 0 printed (or named as missing) exactly these roots.
    #[test]
    fn roots_and_expression_split() {
        let rows: &[(&[&str], &[&str])] = &[
            (&[], &["."]),
            (&["-maxdepth", "0"], &["."]),
            (&["a", "b", "-print"], &["a", "b"]),
            (&["--", "a"], &["a"]),
            (&["-L", "--", "a", "-print"], &["a"]),
            (&["-H", "-L", "a"], &["a"]),
            (&[")"], &[")"]),
            (&["a", ",", "b"], &["a", ",", "b"]),
            (&["-"], &["-"]),
            (&["a", "-"], &["a", "-"]),
            (&[""], &[""]),
            (&["a", "!", "-name", "x"], &["a"]),
            (&["a", "(", "-true", ")"], &["a"]),
        ];
        for &(args, roots) in rows {
            let p = plan(args);
            let want: Vec<Vec<u8>> = roots.iter().map(|r| r.as_bytes().to_vec()).collect();
            assert_eq!(p.roots, want, "{args:?}");
        }
        // No expression: every file is printed (GNU: find prints `.`).
        assert!(plan(&[]).expr.any(&|p| matches!(p, Prim::Print { out: 0, term: b'\n' })));
        assert_eq!(p(&["--", "-x"]).unwrap_err(), "unknown predicate `-x'");
    }

    // -P, -H, -L: the last one counts; -follow is -L.
    // GNU: with l -> d, d/f a file and d/s -> f: LC_ALL=C find OPTS l
    // -type l printed `l` (-P), `l/s` (-H), nothing (-L).
    #[test]
    fn symlink_options_last_wins() {
        let rows: &[(&[&str], Follow)] = &[
            (&["-P"], Follow::Never),
            (&["-H"], Follow::Roots),
            (&["-L"], Follow::Always),
            (&["-H", "-L"], Follow::Always),
            (&["-L", "-H"], Follow::Roots),
            (&["-L", "-P"], Follow::Never),
            (&["-P", "-L"], Follow::Always),
            (&["-H", "-P"], Follow::Never),
            (&["-P", "-H"], Follow::Roots),
            (&["-L", "-H", "-P"], Follow::Never),
            (&["-P", "-L", "-H"], Follow::Roots),
            (&["-P", "l", "-follow"], Follow::Always),
            (&["-H", "l", "-follow"], Follow::Always),
        ];
        for &(args, follow) in rows {
            assert_eq!(plan(args).follow, follow, "{args:?}");
        }
    }

    // -depth, -d and -delete walk children first; -maxdepth/-mindepth: the
    // last one given counts.
    // GNU: LC_ALL=C find . ARGS in a tree ./s/t/f printed `./s/t/f` first
    // (depth first) or `.` first, and the depths shown.
    #[test]
    fn depth_first_and_depth_limits() {
        let rows: &[(&[&str], bool, usize, usize)] = &[
            (&["-print"], false, usize::MAX, 0),
            (&["-depth", "-print"], true, usize::MAX, 0),
            (&["-d", "-print"], true, usize::MAX, 0),
            (&["-name", "zz", "-delete", "-o", "-print"], true, usize::MAX, 0),
            (&["-name", "zz", "-prune", "-o", "-print"], false, usize::MAX, 0),
            (&["-maxdepth", "2", "-maxdepth", "1", "-print"], false, 1, 0),
            (&["-maxdepth", "1", "-maxdepth", "2", "-print"], false, 2, 0),
            (&["-mindepth", "2", "-mindepth", "1", "-print"], false, usize::MAX, 1),
            (&["-mindepth", "1", "-mindepth", "3", "-print"], false, usize::MAX, 3),
        ];
        for &(args, depth_first, maxdepth, mindepth) in rows {
            let p = plan(args);
            assert_eq!(
                (p.depth_first, p.maxdepth, p.mindepth),
                (depth_first, maxdepth, mindepth),
                "{args:?}"
            );
        }
        // GNU: `find -depth -delete -prune` is accepted (no -prune error).
        assert!(plan(&["-depth", "-delete", "-prune"]).depth_first);
        // GNU: find / -maxdepth 2 -xdev -path '/proc/*' -print -quit printed
        // nothing (without -xdev: /proc/fs): -xdev and -mount don't descend.
        assert!(plan(&["-xdev"]).xdev);
        assert!(plan(&["-mount"]).xdev);
        assert!(!plan(&["-print"]).xdev);
    }

    // The commands -exec and -ok collect.
    // GNU: LC_ALL=C find . -maxdepth 0 ARGS: echo printed the words shown
    // (`{}` as `.`), once per file (`;`) or batched (`+`).
    #[test]
    fn exec_specs() {
        type Spec<'a> = (&'a [&'a str], bool, bool, bool);
        let rows: &[(&[&str], &[Spec])] = &[
            (&["-exec", "echo", "+", ";"], &[(&["echo", "+"], false, false, false)]),
            (&["-exec", "echo", "{}x", ";"], &[(&["echo", "{}x"], false, false, false)]),
            (&["-exec", "echo", "{}", "{}", ";"], &[(&["echo", "{}", "{}"], false, false, false)]),
            (
                &["-exec", "echo", "a", "{}", "b", "+", ";"],
                &[(&["echo", "a", "{}", "b", "+"], false, false, false)],
            ),
            (
                &["-exec", "echo", "{", "}", "+", ";"],
                &[(&["echo", "{", "}", "+"], false, false, false)],
            ),
            (&["-exec", "echo", "{}", "+"], &[(&["echo", "{}"], true, false, false)]),
            (&["-execdir", "echo", "{}", "+"], &[(&["echo", "{}"], true, false, true)]),
            (&["-ok", "echo", "{}", "+", ";"], &[(&["echo", "{}", "+"], false, true, false)]),
            (
                &["-exec", "echo", "{}", "+", "-exec", "echo", "2", "{}", "+"],
                &[
                    (&["echo", "{}"], true, false, false),
                    (&["echo", "2", "{}"], true, false, false),
                ],
            ),
        ];
        for &(args, specs) in rows {
            let p = plan(args);
            let got: Vec<(Vec<Vec<u8>>, bool, bool, bool)> =
                p.execs.iter().map(|x| (x.argv.clone(), x.plus, x.ok, x.dir)).collect();
            let want: Vec<(Vec<Vec<u8>>, bool, bool, bool)> = specs
                .iter()
                .map(|&(argv, plus, ok, dir)| {
                    (argv.iter().map(|a| a.as_bytes().to_vec()).collect(), plus, ok, dir)
                })
                .collect();
            assert_eq!(got, want, "{args:?}");
        }
    }

    // -files0-from: the last one counts, and the starting points come
    // from it alone.
    // GNU: LC_ALL=C find -files0-from la -files0-from lb -maxdepth 0 with la
    // holding `a\0` and lb `b\0` printed b; `printf 'a\0' | find
    // -files0-from - -maxdepth 0` printed a; the refusals are in
    // `stray_paths` and `files0_from_refusals`.
    #[test]
    fn files0_from() {
        let p = plan(&["-files0-from", "la", "-files0-from", "lb"]);
        assert_eq!(p.files0.as_deref(), Some(&b"lb"[..]));
        assert!(p.roots.is_empty());
        assert_eq!(plan(&["-files0-from", "-"]).files0.as_deref(), Some(&b"-"[..]));
        assert_eq!(plan(&["-print"]).files0, None);
    }

    // GNU: cd EMPTY_DIR && LC_ALL=C find ARGS </dev/null: exit status, stderr.
    #[test]
    fn files0_from_refusals() {
        check("files0_from_refusals", 5);
    }

    // GNU: LC_ALL=C find -D help (exit status 0, this on stdout).
    #[test]
    fn debug_help() {
        let _g = crate::datetime::tests::zone_lock();
        let gnu = "Valid arguments for -D:\nexec       Show diagnostic information relating to -exec, -execdir, -ok and -okdir\nopt        Show diagnostic information relating to optimisation\nrates      Indicate how often each predicate succeeded\nsearch     Navigate the directory tree verbosely\nstat       Trace calls to stat(2) and lstat(2)\ntime       Show diagnostic information relating to time-of-day and timestamp comparisons\ntree       Display the expression tree\nall        Set all of the debug flags (but help)\nhelp       Explain the various -D options\n";
        match parse(vec![OsString::from("-D"), OsString::from("help")]) {
            Err(ParseError::Print(text)) => assert_eq!(text, gnu),
            other => panic!("{other:?}"),
        }
    }
}
