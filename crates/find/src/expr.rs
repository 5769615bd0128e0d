//! The expression tree: operators over primaries (tests and actions).

use crate::printf::Format;
use crate::regex::Regex;
use cli::glob::Glob;
use cli::timefmt::Timestamp;

/// An expression node.
#[derive(Debug)]
pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    /// `a , b`: both evaluated, the value is b's.
    Comma(Box<Expr>, Box<Expr>),
    /// A test, action or option.
    Prim(Prim),
}

/// `+N` (greater), `-N` (less) or `N` (equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Eq,
    Gt,
}

impl Cmp {
    pub fn test<T: PartialOrd>(self, value: T, n: T) -> bool {
        match self {
            Cmp::Lt => value < n,
            Cmp::Eq => value == n,
            Cmp::Gt => value > n,
        }
    }
}

/// Which timestamp of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeKind {
    Access,
    Birth,
    Change,
    Modify,
}

/// How -perm compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PermKind {
    /// `mode`: exactly these bits.
    Exact,
    /// `-mode`: at least these bits.
    All,
    /// `/mode`: any of these bits (or none given).
    Any,
}

/// Bits of the -type / -xtype mask, one per file type letter.
pub mod tmask {
    pub const BLK: u16 = 1;
    pub const CHR: u16 = 2;
    pub const DIR: u16 = 4;
    pub const FIFO: u16 = 8;
    pub const REG: u16 = 16;
    pub const LNK: u16 = 32;
    pub const SOCK: u16 = 64;
}

/// A test or an action.
#[derive(Debug)]
pub enum Prim {
    True,
    False,
    Name(Glob),
    /// -path / -wholename (and the -i variants).
    Path(Glob),
    Lname(Glob),
    /// -context: the SELinux context matches.
    Context(Glob),
    Regex(Regex),
    Type(u16),
    XType(u16),
    Size {
        cmp: Cmp,
        n: u64,
        unit: u64,
    },
    Empty,
    /// The file's `kind` time is strictly after `t`.
    Newer {
        kind: TimeKind,
        t: Timestamp,
    },
    /// -mtime and friends: whole `unit`s between `origin` and the time.
    Age {
        kind: TimeKind,
        cmp: Cmp,
        n: f64,
        unit: i64,
        origin: Timestamp,
    },
    /// -used N: days between change and access.
    Used {
        cmp: Cmp,
        n: f64,
    },
    Perm {
        kind: PermKind,
        /// For non-directories, for directories (`X`, set-id bits).
        mode: [u32; 2],
    },
    Uid(Cmp, u64),
    Gid(Cmp, u64),
    NoUser,
    NoGroup,
    Links(Cmp, u64),
    Inum(Cmp, u64),
    /// -samefile: the reference file's identity.
    SameFile(ringio::sys::DevIno),
    /// -readable / -writable / -executable: an access(2) mode.
    Access(i32),
    FsType(Vec<u8>),
    /// -print/-print0/-fprint/-fprint0: the output index and terminator.
    Print {
        out: usize,
        term: u8,
    },
    Printf {
        out: usize,
        fmt: Format,
    },
    Ls {
        out: usize,
    },
    /// -json/-fjson (beyond GNU): a JSON object per line.
    Json {
        out: usize,
    },
    Prune,
    Quit,
    Delete,
    /// An -exec/-execdir/-ok/-okdir, by index into the exec table.
    Exec(usize),
}

impl Prim {
    /// Actions in GNU's sense: their presence suppresses the default -print.
    pub fn is_action(&self) -> bool {
        matches!(
            self,
            Prim::Print { .. }
                | Prim::Printf { .. }
                | Prim::Ls { .. }
                | Prim::Json { .. }
                | Prim::Delete
                | Prim::Exec(_)
        )
    }
}

impl Expr {
    /// Calls `f` on every primary.
    pub fn each<'a>(&'a self, f: &mut dyn FnMut(&'a Prim)) {
        match self {
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
                a.each(f);
                b.each(f);
            }
            Expr::Not(a) => a.each(f),
            Expr::Prim(p) => f(p),
        }
    }

    pub fn any(&self, f: &dyn Fn(&Prim) -> bool) -> bool {
        let mut found = false;
        self.each(&mut |p| found |= f(p));
        found
    }
}
