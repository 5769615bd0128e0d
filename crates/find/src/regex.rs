//! A small backtracking regex engine for the syntaxes find's `-regextype`
//! offers: GNU Emacs (find's default), POSIX basic and POSIX extended (and
//! the aliases GNU maps onto them). find matches the whole path, so a match
//! must span the entire input.
//!
//! Supported: literals, `.`, bracket expressions with ranges and
//! `[:class:]`, `*` `+` `?`, intervals `{m,n}` (per syntax), groups,
//! alternation, `^` `$` anchors, back-references `\1`–`\9`, and GNU's
//! `\w \W \< \> \b \B \` \'`.
//!
//! The pattern compiles to a program for a backtracking machine; without
//! back-references a (pc, position) failure memo bounds the work to
//! O(program × input).

use crate::bracket::{parse_bracket, ByteSet};

/// Which dialect to parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// GNU Emacs (findutils-default): `\( \| \)`, unescaped `* + ?`, no
    /// intervals, no `[:classes:]`, `.` does not match newline.
    Emacs,
    /// POSIX basic with GNU extensions: `\( \| \)`, `\{m,n\}`, `\+ \?`.
    Basic,
    /// POSIX extended: `( | ) { } + ?`.
    Extended,
}

/// A `-regextype`: its dialect and the differences GNU's syntax bits make
/// between the types sharing one (measured against GNU find 4.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegexType {
    pub syn: Syntax,
    /// A repetition with nothing to repeat is an error (`*a`, `(+a)`,
    /// `a|?b`, `^*` in posix-extended and posix-awk; `a**`, `\{1\}` in
    /// posix-basic, ed and sed); elsewhere the operator is taken literally
    /// or stacks.
    pub strict: bool,
    /// A `{` that doesn't start a valid interval is a literal (egrep and
    /// the awk types) rather than "Unmatched \{".
    pub lenient_interval: bool,
    /// Intervals exist at all (not in awk, where `{` is a literal).
    pub intervals: bool,
    /// `\1`…`\9` are back-references (in awk, the digits themselves).
    pub backrefs: bool,
    /// GNU's `\w \W \< \> \b \B \` \'` (not in the awk types, where they
    /// are the plain characters).
    pub gnu_ops: bool,
    /// `\|`, `\+`, `\?` are operators (not in posix-minimal-basic).
    pub bre_ops: bool,
}

impl RegexType {
    pub const EMACS: RegexType = RegexType::plain(Syntax::Emacs);

    const fn plain(syn: Syntax) -> RegexType {
        RegexType {
            syn,
            strict: false,
            lenient_interval: false,
            intervals: true,
            backrefs: true,
            gnu_ops: true,
            bre_ops: true,
        }
    }

    /// Parses a `-regextype` name.
    pub fn from_name(s: &[u8]) -> Option<RegexType> {
        let ere = RegexType::plain(Syntax::Extended);
        let lenient = RegexType { lenient_interval: true, ..ere };
        Some(match s {
            b"findutils-default" | b"emacs" => RegexType::EMACS,
            b"posix-basic" | b"ed" | b"sed" => {
                RegexType { strict: true, ..RegexType::plain(Syntax::Basic) }
            }
            b"posix-minimal-basic" => {
                RegexType { bre_ops: false, ..RegexType::plain(Syntax::Basic) }
            }
            b"grep" => RegexType::plain(Syntax::Basic),
            b"posix-extended" => RegexType { strict: true, ..ere },
            b"posix-awk" => RegexType { strict: true, gnu_ops: false, ..lenient },
            b"posix-egrep" | b"egrep" | b"gnu-awk" => lenient,
            b"awk" => RegexType { intervals: false, backrefs: false, gnu_ops: false, ..lenient },
            _ => return None,
        })
    }
}

impl From<Syntax> for RegexType {
    fn from(syn: Syntax) -> RegexType {
        RegexType::plain(syn)
    }
}

const BAD_DUP: RegexError = RegexError(c"Invalid preceding regular expression");

/// A pattern error: GNU's wording where it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexError(pub &'static std::ffi::CStr);

#[derive(Clone, Debug)]
enum Inst {
    Byte(u8),
    Any {
        newline: bool,
    },
    Set(Box<ByteSet>),
    /// Try `x` first, then `y`.
    Split(usize, usize),
    Jmp(usize),
    Save(usize),
    Backref(usize),
    LineStart,
    LineEnd,
    BufStart,
    BufEnd,
    WordBoundary(bool),
    WordStart,
    WordEnd,
    /// Record the position in slot (for the empty-iteration check).
    Mark(usize),
    /// Fail if no input was consumed since the `Mark` in slot.
    Progress(usize),
    Match,
}

#[derive(Clone, Debug)]
enum Ast {
    Empty,
    Byte(u8),
    Any,
    Set(ByteSet),
    Group(Box<Ast>, usize),
    Cat(Vec<Ast>),
    Alt(Vec<Ast>),
    Repeat(Box<Ast>, u32, Option<u32>),
    Backref(usize),
    Assert(Inst),
}

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Regex {
    prog: Vec<Inst>,
    groups: usize,
    marks: usize,
    casefold: bool,
    has_backref: bool,
}

struct Parser<'a> {
    p: &'a [u8],
    i: usize,
    syn: Syntax,
    strict: bool,
    lenient_interval: bool,
    intervals: bool,
    backrefs: bool,
    gnu_ops: bool,
    bre_ops: bool,
    groups: usize,
    casefold: bool,
    has_backref: bool,
    closed: Vec<usize>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.p.get(self.i).copied()
    }
    fn peek2(&self) -> Option<u8> {
        self.p.get(self.i + 1).copied()
    }

    fn at_alt(&self) -> bool {
        match self.syn {
            Syntax::Extended => self.peek() == Some(b'|'),
            _ => self.bre_ops && self.peek() == Some(b'\\') && self.peek2() == Some(b'|'),
        }
    }

    fn at_close(&self) -> bool {
        match self.syn {
            Syntax::Extended => self.peek() == Some(b')'),
            _ => self.peek() == Some(b'\\') && self.peek2() == Some(b')'),
        }
    }

    fn alt(&mut self, depth: usize) -> Result<Ast, RegexError> {
        let mut alts = vec![self.cat(depth)?];
        while self.at_alt() {
            self.i += if self.syn == Syntax::Extended { 1 } else { 2 };
            alts.push(self.cat(depth)?);
        }
        Ok(if alts.len() == 1 { alts.pop().unwrap_or(Ast::Empty) } else { Ast::Alt(alts) })
    }

    fn cat(&mut self, depth: usize) -> Result<Ast, RegexError> {
        let mut items: Vec<Ast> = Vec::new();
        let start = self.i;
        loop {
            if self.i >= self.p.len() || self.at_alt() {
                break;
            }
            if self.at_close() {
                if depth > 0 {
                    break;
                }
                if self.syn == Syntax::Extended {
                    // An unmatched ')' in ERE is literal (GNU), and can be
                    // repeated like any.
                    self.i += 1;
                    let atom = self.lit(b')');
                    let atom = self.postfix(atom)?;
                    items.push(atom);
                    continue;
                }
                return Err(RegexError(c"Unmatched ) or \\)"));
            }
            let at_start = self.i == start;
            let atom = self.atom(depth, at_start)?;
            let atom = self.postfix(atom)?;
            items.push(atom);
        }
        Ok(match items.len() {
            0 => Ast::Empty,
            1 => items.pop().unwrap_or(Ast::Empty),
            _ => Ast::Cat(items),
        })
    }

    fn lit(&self, b: u8) -> Ast {
        if self.casefold && b.is_ascii_alphabetic() {
            let mut s = ByteSet::default();
            s.add(b.to_ascii_lowercase());
            s.add(b.to_ascii_uppercase());
            Ast::Set(s)
        } else {
            Ast::Byte(b)
        }
    }

    fn is_repeat_op(&self) -> bool {
        let brace = self.peek() == Some(b'{')
            && self.syn == Syntax::Extended
            && self.intervals
            && (!self.lenient_interval || self.valid_interval_ahead());
        brace
            || matches!(
                (self.peek(), self.peek2(), self.syn),
                (Some(b'*'), _, _)
                    | (Some(b'+') | Some(b'?'), _, Syntax::Emacs | Syntax::Extended)
                    | (Some(b'\\'), Some(b'{'), Syntax::Basic)
            )
            || (self.bre_ops
                && self.syn == Syntax::Basic
                && self.peek() == Some(b'\\')
                && matches!(self.peek2(), Some(b'+' | b'?')))
    }

    /// Whether an ERE `{` at the cursor opens a well-formed interval
    /// (`{m}`, `{m,}`, `{,n}`, `{m,n}`): where it doesn't, the lenient types
    /// take the `{` as a literal.
    fn valid_interval_ahead(&self) -> bool {
        let rest = &self.p[self.i + 1..];
        let Some(end) = rest.iter().position(|&c| c == b'}') else { return false };
        let body = &rest[..end];
        let mut parts = body.splitn(2, |&c| c == b',');
        let lo = parts.next().unwrap_or_default();
        let hi = parts.next();
        let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
        digits(lo) && hi.is_none_or(digits) && !(lo.is_empty() && hi.is_none_or(<[u8]>::is_empty))
    }

    fn postfix(&mut self, mut atom: Ast) -> Result<Ast, RegexError> {
        let mut first = true;
        while self.is_repeat_op() {
            if self.strict {
                // `^*` (ERE), `a**` and `a*\{2\}` (BRE): nothing to repeat.
                let assertion = match &atom {
                    Ast::Assert(Inst::LineStart) => self.syn == Syntax::Extended,
                    Ast::Assert(_) => self.syn == Syntax::Extended || self.peek2() == Some(b'{'),
                    _ => false,
                };
                let stacked = !first
                    && self.syn == Syntax::Basic
                    && (self.peek() == Some(b'*') || self.peek2() == Some(b'{'));
                if assertion || stacked {
                    return Err(BAD_DUP);
                }
            }
            // BRE: `*` right after an anchor or `\<`-like assertion is a
            // literal star, and so (outside the strict types) is an
            // interval's `\{`.
            if self.syn == Syntax::Basic && matches!(atom, Ast::Assert(_)) {
                break;
            }
            first = false;
            let (min, max) = match self.peek() {
                Some(b'*') => {
                    self.i += 1;
                    (0, None)
                }
                Some(b'+') => {
                    self.i += 1;
                    (1, None)
                }
                Some(b'?') => {
                    self.i += 1;
                    (0, Some(1))
                }
                Some(b'{') => {
                    self.i += 1;
                    self.interval(false)?
                }
                _ => {
                    // Basic: \+ \? \{
                    let c = self.peek2();
                    self.i += 2;
                    match c {
                        Some(b'+') => (1, None),
                        Some(b'?') => (0, Some(1)),
                        _ => self.interval(true)?,
                    }
                }
            };
            atom = Ast::Repeat(Box::new(atom), min, max);
        }
        Ok(atom)
    }

    fn number(&mut self) -> Option<u32> {
        let s = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        std::str::from_utf8(&self.p[s..self.i]).ok()?.parse().ok()
    }

    fn interval(&mut self, escaped: bool) -> Result<(u32, Option<u32>), RegexError> {
        let min = self.number();
        let max = if self.peek() == Some(b',') {
            self.i += 1;
            self.number()
        } else {
            Some(min.unwrap_or(0))
        };
        let close = if escaped {
            self.peek() == Some(b'\\') && self.peek2() == Some(b'}')
        } else {
            self.peek() == Some(b'}')
        };
        if !close {
            // GNU: the pattern ended inside the braces, or something other
            // than digits and a comma is in them.
            return Err(RegexError(if self.i >= self.p.len() {
                c"Unmatched \\{"
            } else {
                c"Invalid content of \\{\\}"
            }));
        }
        self.i += if escaped { 2 } else { 1 };
        let min = min.unwrap_or(0);
        if max.is_some_and(|m| m < min) || min > 255 || max.is_some_and(|m| m > 255) {
            return Err(RegexError(c"Invalid content of \\{\\}"));
        }
        Ok((min, max))
    }

    fn atom(&mut self, depth: usize, at_start: bool) -> Result<Ast, RegexError> {
        let c = self.p[self.i];
        if self.strict && at_start {
            let dup = match self.syn {
                Syntax::Extended => matches!(c, b'*' | b'+' | b'?' | b'{'),
                _ => c == b'\\' && self.peek2() == Some(b'{'),
            };
            if dup {
                return Err(BAD_DUP);
            }
        }
        self.i += 1;
        match c {
            b'.' => Ok(Ast::Any),
            b'[' => {
                // `[` or `[^` ending the pattern is a bad pattern, not an
                // unmatched bracket (GNU).
                let body = self.i + usize::from(self.peek() == Some(b'^'));
                if body >= self.p.len() {
                    return Err(RegexError(c"Invalid regular expression"));
                }
                if self.syn == Syntax::Emacs {
                    // No [:classes:] in Emacs syntax: `[[:x:]]` is a set
                    // of `[:x` followed by `:]`.
                    let neg = self.peek() == Some(b'^');
                    let Some((mut set, next)) = plain_bracket(self.p, self.i) else {
                        return Err(RegexError(c"Unmatched [, [^, [:, [., or [="));
                    };
                    self.i = next;
                    if self.casefold {
                        fold_set(&mut set, neg);
                    }
                    return Ok(Ast::Set(set));
                }
                if let Some(e) = bracket_error(self.p, self.i) {
                    return Err(e);
                }
                let neg = self.peek() == Some(b'^');
                match parse_bracket(self.p, self.i) {
                    Some((mut set, next)) => {
                        self.i = next;
                        if self.casefold {
                            fold_set(&mut set, neg);
                        }
                        Ok(Ast::Set(set))
                    }
                    None => Err(RegexError(c"Unmatched [, [^, [:, [., or [=")),
                }
            }
            b'^' => {
                if self.syn == Syntax::Extended || at_start {
                    Ok(Ast::Assert(Inst::LineStart))
                } else {
                    Ok(self.lit(b'^'))
                }
            }
            b'$' => {
                let at_end = self.i >= self.p.len() || self.at_close() || self.at_alt();
                if self.syn == Syntax::Extended || at_end {
                    Ok(Ast::Assert(Inst::LineEnd))
                } else {
                    Ok(self.lit(b'$'))
                }
            }
            b'*' if at_start => Ok(self.lit(b'*')),
            b'+' | b'?' if at_start && self.syn == Syntax::Emacs => Ok(self.lit(c)),
            // Strict types were refused above; the others take a leading
            // operator literally.
            b'+' | b'?' | b'{' if at_start && self.syn == Syntax::Extended => Ok(self.lit(c)),
            b'*' | b'+' | b'?' | b'{' if self.syn == Syntax::Extended => {
                if c == b'{' {
                    Ok(self.lit(c))
                } else {
                    Err(BAD_DUP)
                }
            }
            b'(' if self.syn == Syntax::Extended => self.group(depth),
            b'\\' => {
                let Some(n) = self.peek() else {
                    return Err(RegexError(c"Trailing backslash"));
                };
                self.i += 1;
                match n {
                    b'(' if self.syn != Syntax::Extended => self.group(depth),
                    b'1'..=b'9' if !self.backrefs => Ok(self.lit(n)),
                    b'1'..=b'9' => {
                        let k = (n - b'0') as usize;
                        if !self.closed.contains(&k) {
                            return Err(RegexError(c"Invalid back reference"));
                        }
                        self.has_backref = true;
                        Ok(Ast::Backref(k))
                    }
                    b'w' | b'W' | b'<' | b'>' | b'b' | b'B' | b'`' | b'\'' if !self.gnu_ops => {
                        Ok(self.lit(n))
                    }
                    b'w' | b'W' => {
                        let mut s = ByteSet::default();
                        s.add_class(b"alnum");
                        s.add(b'_');
                        if n == b'W' {
                            s.negate();
                        }
                        Ok(Ast::Set(s))
                    }
                    b'<' => Ok(Ast::Assert(Inst::WordStart)),
                    b'>' => Ok(Ast::Assert(Inst::WordEnd)),
                    b'b' => Ok(Ast::Assert(Inst::WordBoundary(true))),
                    b'B' => Ok(Ast::Assert(Inst::WordBoundary(false))),
                    b'`' => Ok(Ast::Assert(Inst::BufStart)),
                    b'\'' => Ok(Ast::Assert(Inst::BufEnd)),
                    b'n' if self.syn != Syntax::Emacs => Ok(self.lit(b'n')),
                    other => Ok(self.lit(other)),
                }
            }
            other => Ok(self.lit(other)),
        }
    }

    fn group(&mut self, depth: usize) -> Result<Ast, RegexError> {
        self.groups += 1;
        let k = self.groups;
        let inner = self.alt(depth + 1)?;
        if !self.at_close() {
            return Err(RegexError(c"Unmatched ( or \\("));
        }
        self.i += if self.syn == Syntax::Extended { 1 } else { 2 };
        self.closed.push(k);
        Ok(Ast::Group(Box::new(inner), k))
    }
}

/// Case-folds a bracket's set: a negated one is folded as the bytes it
/// lists, then negated again, so `[^a]` under -iregex excludes `A` too.
fn fold_set(set: &mut ByteSet, negated: bool) {
    if negated {
        set.negate();
    }
    set.fold_case();
    if negated {
        set.negate();
    }
}

/// What GNU refuses in the bracket expression starting at `i` (after its
/// `[`), the first in the pattern: an unknown `[:class:]`, a range whose
/// end sorts before its start (`[z-a]`), a class starting a range
/// (`[[:digit:]-z]`). The set itself is built by `parse_bracket`.
fn bracket_error(p: &[u8], i: usize) -> Option<RegexError> {
    const BAD_RANGE: RegexError = RegexError(c"Invalid range end");
    let mut j = i + usize::from(p.get(i) == Some(&b'^'));
    let start = j;
    // A `-` at `j` followed by something other than the closing `]`.
    let dash_at = |j: usize| p.get(j) == Some(&b'-') && p.get(j + 1).is_some_and(|&e| e != b']');
    while j < p.len() {
        let c = p[j];
        if c == b']' && j > start {
            return None;
        }
        if c == b'[' && matches!(p.get(j + 1), Some(b':' | b'=' | b'.')) {
            let d = p[j + 1];
            if let Some(k) =
                (j + 2..p.len().saturating_sub(1)).find(|&k| p[k] == d && p[k + 1] == b']')
            {
                if d == b':' && !ByteSet::default().add_class(&p[j + 2..k]) {
                    return Some(RegexError(c"Invalid character class name"));
                }
                j = k + 2;
                if d == b':' && dash_at(j) {
                    return Some(BAD_RANGE);
                }
                continue;
            }
        }
        if dash_at(j + 1) {
            if c > p[j + 2] {
                return Some(BAD_RANGE);
            }
            j += 3;
        } else {
            j += 1;
        }
    }
    None
}

/// A bracket expression without classes (Emacs): `[` … `]`.
fn plain_bracket(p: &[u8], mut i: usize) -> Option<(ByteSet, usize)> {
    let mut set = ByteSet::default();
    let neg = p.get(i) == Some(&b'^');
    if neg {
        i += 1;
    }
    let start = i;
    loop {
        let c = *p.get(i)?;
        if c == b']' && i > start {
            i += 1;
            break;
        }
        i += 1;
        if p.get(i) == Some(&b'-') && i + 1 < p.len() && p[i + 1] != b']' {
            let hi = p[i + 1];
            if c <= hi {
                set.add_range(c, hi);
            }
            i += 2;
        } else {
            set.add(c);
        }
    }
    if neg {
        set.negate();
    }
    Some((set, i))
}

struct Compiler {
    prog: Vec<Inst>,
    marks: usize,
    dot_newline: bool,
}

impl Compiler {
    fn emit(&mut self, i: Inst) -> usize {
        self.prog.push(i);
        self.prog.len() - 1
    }

    fn can_be_empty(a: &Ast) -> bool {
        match a {
            Ast::Empty | Ast::Assert(_) | Ast::Backref(_) => true,
            Ast::Byte(_) | Ast::Any | Ast::Set(_) => false,
            Ast::Group(x, _) => Self::can_be_empty(x),
            Ast::Cat(v) => v.iter().all(Self::can_be_empty),
            Ast::Alt(v) => v.iter().any(Self::can_be_empty),
            Ast::Repeat(x, min, _) => *min == 0 || Self::can_be_empty(x),
        }
    }

    fn comp(&mut self, a: &Ast) {
        match a {
            Ast::Empty => {}
            Ast::Byte(b) => {
                self.emit(Inst::Byte(*b));
            }
            Ast::Any => {
                self.emit(Inst::Any { newline: self.dot_newline });
            }
            Ast::Set(s) => {
                self.emit(Inst::Set(Box::new(s.clone())));
            }
            Ast::Assert(i) => {
                self.emit(i.clone());
            }
            Ast::Backref(k) => {
                self.emit(Inst::Backref(*k));
            }
            Ast::Group(x, k) => {
                self.emit(Inst::Save(2 * k));
                self.comp(x);
                self.emit(Inst::Save(2 * k + 1));
            }
            Ast::Cat(v) => v.iter().for_each(|x| self.comp(x)),
            Ast::Alt(v) => {
                let mut jumps = Vec::new();
                for (n, x) in v.iter().enumerate() {
                    if n + 1 < v.len() {
                        let split = self.emit(Inst::Split(0, 0));
                        self.comp(x);
                        jumps.push(self.emit(Inst::Jmp(0)));
                        let next = self.prog.len();
                        self.prog[split] = Inst::Split(split + 1, next);
                    } else {
                        self.comp(x);
                    }
                }
                let end = self.prog.len();
                for j in jumps {
                    self.prog[j] = Inst::Jmp(end);
                }
            }
            Ast::Repeat(x, min, max) => {
                for _ in 0..*min {
                    self.comp(x);
                }
                match max {
                    None => self.star(x),
                    Some(max) => {
                        // Nested optionals: x? (x? (…)) — greedy.
                        let mut splits = Vec::new();
                        for _ in *min..*max {
                            splits.push(self.emit(Inst::Split(0, 0)));
                            self.comp(x);
                        }
                        let end = self.prog.len();
                        for s in splits {
                            self.prog[s] = Inst::Split(s + 1, end);
                        }
                    }
                }
            }
        }
    }

    fn star(&mut self, x: &Ast) {
        let empty = Self::can_be_empty(x);
        let head = self.emit(Inst::Split(0, 0));
        let slot = self.marks;
        if empty {
            self.marks += 1;
            self.emit(Inst::Mark(slot));
        }
        self.comp(x);
        if empty {
            self.emit(Inst::Progress(slot));
        }
        self.emit(Inst::Jmp(head));
        let end = self.prog.len();
        self.prog[head] = Inst::Split(head + 1, end);
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Regex {
    pub fn new(pat: &[u8], ty: impl Into<RegexType>, casefold: bool) -> Result<Regex, RegexError> {
        let RegexType { syn, strict, lenient_interval, intervals, backrefs, gnu_ops, bre_ops } =
            ty.into();
        let mut p = Parser {
            p: pat,
            i: 0,
            syn,
            strict,
            lenient_interval,
            intervals,
            backrefs,
            gnu_ops,
            bre_ops,
            groups: 0,
            casefold,
            has_backref: false,
            closed: Vec::new(),
        };
        let ast = p.alt(0)?;
        if p.i < pat.len() {
            return Err(RegexError(c"Unmatched ) or \\)"));
        }
        let mut c = Compiler { prog: Vec::new(), marks: 0, dot_newline: syn != Syntax::Emacs };
        c.comp(&ast);
        c.emit(Inst::Match);
        Ok(Regex {
            prog: c.prog,
            groups: p.groups,
            marks: c.marks,
            casefold,
            has_backref: p.has_backref,
        })
    }

    /// Whether the pattern matches all of `s`.
    pub fn matches(&self, s: &[u8]) -> bool {
        let nslots = 2 * (self.groups + 1) + self.marks;
        let width = s.len() + 1;
        let mut m = Machine {
            slots: vec![usize::MAX; nslots],
            memo: if self.has_backref {
                Vec::new()
            } else {
                vec![0u64; (self.prog.len() * width).div_ceil(64)]
            },
            // Backtrack points: (pc, pos, where their slot snapshot starts).
            stack: Vec::new(),
            saved: Vec::new(),
        };
        self.run(s, &mut m, width)
    }

    /// The backtracking machine, iterative (an explicit stack of choice
    /// points), so a long path cannot overflow a walker thread's stack.
    fn run(&self, s: &[u8], m: &mut Machine, width: usize) -> bool {
        let mark_base = 2 * (self.groups + 1);
        let (mut pc, mut pos) = (0usize, 0usize);
        loop {
            let ok = 'step: {
                if !m.memo.is_empty() {
                    let k = pc * width + pos;
                    if m.memo[k / 64] & (1 << (k % 64)) != 0 {
                        break 'step false;
                    }
                    m.memo[k / 64] |= 1 << (k % 64);
                }
                match &self.prog[pc] {
                    Inst::Match => {
                        if pos == s.len() {
                            return true;
                        }
                        false
                    }
                    Inst::Byte(b) => {
                        if s.get(pos) != Some(b) {
                            break 'step false;
                        }
                        pos += 1;
                        pc += 1;
                        true
                    }
                    Inst::Any { newline } => match s.get(pos) {
                        Some(b'\n') if !newline => false,
                        Some(_) => {
                            pos += 1;
                            pc += 1;
                            true
                        }
                        None => false,
                    },
                    Inst::Set(set) => match s.get(pos) {
                        Some(&c) if set.has(c) => {
                            pos += 1;
                            pc += 1;
                            true
                        }
                        _ => false,
                    },
                    Inst::Split(x, y) => {
                        m.stack.push((*y, pos, m.saved.len()));
                        m.saved.extend_from_slice(&m.slots);
                        pc = *x;
                        true
                    }
                    Inst::Jmp(x) => {
                        pc = *x;
                        true
                    }
                    Inst::Save(k) => {
                        m.slots[*k] = pos;
                        pc += 1;
                        true
                    }
                    Inst::Mark(k) => {
                        m.slots[mark_base + k] = pos;
                        pc += 1;
                        true
                    }
                    Inst::Progress(k) => {
                        if m.slots[mark_base + k] == pos {
                            break 'step false;
                        }
                        pc += 1;
                        true
                    }
                    Inst::Backref(k) => {
                        let (a, b) = (m.slots[2 * k], m.slots[2 * k + 1]);
                        if a == usize::MAX || b == usize::MAX || b < a {
                            break 'step false;
                        }
                        let sub = &s[a..b];
                        let Some(here) = s.get(pos..pos + sub.len()) else { break 'step false };
                        let eq = if self.casefold {
                            here.eq_ignore_ascii_case(sub)
                        } else {
                            here == sub
                        };
                        if !eq {
                            break 'step false;
                        }
                        pos += sub.len();
                        pc += 1;
                        true
                    }
                    Inst::LineStart | Inst::BufStart => {
                        pc += 1;
                        pos == 0
                    }
                    Inst::LineEnd | Inst::BufEnd => {
                        pc += 1;
                        pos == s.len()
                    }
                    Inst::WordBoundary(want) => {
                        let before = pos > 0 && is_word(s[pos - 1]);
                        let after = pos < s.len() && is_word(s[pos]);
                        pc += 1;
                        (before != after) == *want
                    }
                    Inst::WordStart => {
                        let before = pos > 0 && is_word(s[pos - 1]);
                        let after = pos < s.len() && is_word(s[pos]);
                        pc += 1;
                        !before && after
                    }
                    Inst::WordEnd => {
                        let before = pos > 0 && is_word(s[pos - 1]);
                        let after = pos < s.len() && is_word(s[pos]);
                        pc += 1;
                        before && !after
                    }
                }
            };
            if !ok {
                let Some((npc, npos, at)) = m.stack.pop() else { return false };
                let n = m.slots.len();
                m.slots.copy_from_slice(&m.saved[at..at + n]);
                m.saved.truncate(at);
                pc = npc;
                pos = npos;
            }
        }
    }
}

struct Machine {
    slots: Vec<usize>,
    memo: Vec<u64>,
    stack: Vec<(usize, usize, usize)>,
    saved: Vec<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, syn: Syntax, s: &str) -> bool {
        Regex::new(p.as_bytes(), syn, false).unwrap().matches(s.as_bytes())
    }

    #[test]
    fn emacs() {
        let e = Syntax::Emacs;
        assert!(m(".*\\.c", e, "./a/b.c"));
        assert!(!m(".*\\.c", e, "./a/b.cc"));
        assert!(m("\\./\\(a\\|b\\)+", e, "./abba"));
        assert!(m("\\./d+", e, "./ddd"));
        assert!(!m(".*x", e, "a\nx"));
        assert!(m("\\(a*\\)*b", e, "aaab"));
        assert!(m("\\(ab\\)\\1", e, "abab"));
        assert!(!m("\\(ab\\)\\1", e, "abac"));
        assert!(m("[a-c]*", e, "abcabc"));
        assert!(m("a{2}", e, "a{2}"));
    }

    #[test]
    fn posix() {
        let b = Syntax::Basic;
        let x = Syntax::Extended;
        assert!(m("a\\{2,3\\}", b, "aaa"));
        assert!(!m("a\\{2,3\\}", b, "aaaa"));
        assert!(m("a+", b, "a+"));
        assert!(m("a\\+", b, "aaa"));
        assert!(m("(a|b){2}c?", x, "ab"));
        assert!(m("[[:digit:]]+", x, "123"));
        assert!(m("^a.b$", x, "a\nb"));
        assert!(m("(x*)*y", x, "xxy"));
        assert!(Regex::new(b"A.C", x, true).unwrap().matches(b"abc"));
        assert!(Regex::new(b"(", x, false).is_err());
    }

    #[test]
    fn no_blowup() {
        let long = "a".repeat(200);
        assert!(!m("(a*)*b", Syntax::Extended, &long));
    }
}
