//! What a run of ldu will do, as decided from the command line and the
//! environment.

use crate::exclude::Exclude;
use crate::timestyle::TimeFormat;
use cli::size::SizeFormat;

/// Which symbolic links are followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deref {
    /// `-P` (default): none.
    Never,
    /// `-H`/`-D`: those named as operands.
    Args,
    /// `-L`: all.
    Always,
}

impl Deref {
    /// The stat the walk makes of each entry: through a symbolic link
    /// under `-L`, of the link itself otherwise.
    pub fn entry_stat(self) -> walk::StatNeed {
        if self == Deref::Always {
            walk::StatNeed::Follow
        } else {
            walk::StatNeed::Lstat
        }
    }
}

/// Which time `--time` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeKind {
    Mtime,
    Atime,
    Ctime,
}

/// Where the operands come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operands {
    /// The command line (`.` when empty).
    Args(Vec<Vec<u8>>),
    /// `--files0-from=F` (`-` is standard input).
    Files0(Vec<u8>),
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub operands: Operands,
    /// `-a`: files too, not only directories.
    pub all: bool,
    /// `--apparent-size`/`-b`: st_size instead of allocated blocks.
    pub apparent: bool,
    pub units: SizeFormat,
    /// `-c`
    pub total: bool,
    /// Deepest level printed (`-d`; 0 for `-s`); `usize::MAX` = all.
    pub max_depth: usize,
    pub deref: Deref,
    /// `-l`: hard links counted every time.
    pub count_links: bool,
    /// `--inodes`: counts instead of sizes.
    pub inodes: bool,
    /// `-0`: lines end with NUL.
    pub null: bool,
    /// `-S`: a directory's size excludes its subdirectories.
    pub separate_dirs: bool,
    /// `-t`: print sizes ≥ n, or ≤ −n when negative.
    pub threshold: i64,
    /// `--time`: with this time format.
    pub time: Option<(TimeKind, TimeFormat)>,
    /// `-x`
    pub one_file_system: bool,
    pub exclude: Exclude,
    /// `--output-file` (MPI builds): lines go to this file, opened by
    /// ldu (rank 0) itself, so a write error is seen and reported.
    pub output_file: Option<Vec<u8>>,
    /// Warnings GNU prints before starting (e.g. `-s -d 0`).
    pub warnings: Vec<Vec<u8>>,
    /// `--browse`, `--export`, `--import` (not in GNU du).
    pub browse: Browse,
    /// `--json`: lines as JSON objects, framed so (not in GNU du).
    pub json: Option<cli::json::Framing>,
    /// `--progress` (not in GNU du); Auto: when standard error is a
    /// terminal.
    pub progress: cli::argmatch::When,
}

/// What ldu does instead of printing du's lines (`crate::view`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Browse {
    /// `--browse`: the full-screen view.
    pub view: bool,
    /// `--export=FILE` (`-`: standard output).
    pub export: Option<Vec<u8>>,
    /// `--import=FILE`, `-f FILE`: a saved scan instead of a walk.
    pub import: Option<Vec<u8>>,
    /// `--read-only`: no deletion from the view.
    pub read_only: bool,
}

impl Browse {
    /// Whether any of these options was given.
    pub fn any(&self) -> bool {
        self.view || self.export.is_some() || self.import.is_some()
    }
}

impl Plan {
    /// Whether a size passes `--threshold`.
    pub fn shown(&self, value: u64) -> bool {
        if self.threshold < 0 {
            value <= self.threshold.unsigned_abs()
        } else {
            value >= self.threshold as u64
        }
    }
}
