//! ldu's option table — the one source of its parser ([`crate::args`]),
//! `--help`, completions and man page — and the texts around it (our own
//! wording; the option set and layout are GNU du 9.1's).

use cli::opts::{Arg, Complete, Doc, Opt};

/// What each option does; [`crate::args`] dispatches on these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Id {
    All,
    Apparent,
    BlockSize,
    Bytes,
    CountLinks,
    DerefAll,
    DerefArgs,
    Exclude,
    ExcludeFrom,
    Files0From,
    Human,
    Inodes,
    Si,
    MaxDepth,
    Null,
    NoDeref,
    OneFs,
    #[cfg(feature = "mpi")]
    OutputFile,
    Separate,
    Summarize,
    Total,
    Threshold,
    Time,
    TimeStyle,
    Help,
    Version,
    Kilo,
    Mega,
    Browse,
    Export,
    Import,
    ReadOnly,
    Json,
    Progress,
}

const fn req(s: Option<u8>, l: &'static str, a: &'static str, id: Id, h: &'static str) -> Opt<Id> {
    Opt::new(s, Some(l), Arg::Required(a), id, h)
}

/// Every option ldu accepts, in `--help` order.
pub const OPTIONS: &[Opt<Id>] = &[
    Opt::flag(b'0', "null", Id::Null, "end each output line with a NUL byte, not a newline"),
    Opt::flag(b'a', "all", Id::All, "print a line for every file, not only for directories"),
    Opt::long("apparent-size", Id::Apparent, "count apparent sizes (bytes in the file) instead of disk usage; sparse files can make them smaller, and block overhead larger"),
    req(Some(b'B'), "block-size", "SIZE", Id::BlockSize, "print sizes in units of SIZE (e.g. '-BM' for mebibytes; see SIZE below)").completes(Complete::Nothing),
    Opt::flag(b'b', "bytes", Id::Bytes, "the same as --apparent-size --block-size=1"),
    Opt::flag(b'c', "total", Id::Total, "end with a grand total"),
    Opt::flag(b'D', "dereference-args", Id::DerefArgs, "follow symbolic links named on the command line, no others"),
    req(Some(b'd'), "max-depth", "N", Id::MaxDepth, "print a directory's total only if it is at most N levels below its operand (--max-depth=0 is --summarize)").completes(Complete::Nothing),
    req(None, "files0-from", "F", Id::Files0From, "take the operands from file F, each ended by a NUL byte ('-' reads them from standard input)"),
    Opt::short(b'H', Id::DerefArgs, "the same as --dereference-args (-D)"),
    Opt::flag(b'h', "human-readable", Id::Human, "print sizes for people: 1K 234M 2G"),
    Opt::long("inodes", Id::Inodes, "count inodes instead of blocks"),
    Opt::short(b'k', Id::Kilo, "the same as --block-size=1K"),
    Opt::flag(b'L', "dereference", Id::DerefAll, "follow every symbolic link"),
    Opt::flag(b'l', "count-links", Id::CountLinks, "count a hard-linked file each time it is met"),
    Opt::short(b'm', Id::Mega, "the same as --block-size=1M"),
    Opt::flag(b'P', "no-dereference", Id::NoDeref, "follow no symbolic links (the default)"),
    Opt::flag(b'S', "separate-dirs", Id::Separate, "leave subdirectories out of a directory's size"),
    Opt::long("si", Id::Si, "like -h, in powers of 1000 instead of 1024"),
    Opt::flag(b's', "summarize", Id::Summarize, "print only one total per operand"),
    req(Some(b't'), "threshold", "SIZE", Id::Threshold, "leave out entries smaller than SIZE when it is positive, larger than -SIZE when it is negative").completes(Complete::Nothing),
    Opt::new(None, Some("time"), Arg::Optional("WORD"), Id::Time, "show the last modification time of anything in each directory's subtree; with WORD, that time instead: atime, access, use (access time) or ctime, status (status change)")
        .completes(Complete::Words(&["atime", "access", "use", "ctime", "status"])),
    req(None, "time-style", "STYLE", Id::TimeStyle, "print times in STYLE: full-iso, long-iso, iso, or +FORMAT (as date(1) reads it)")
        .completes(Complete::Words(&["full-iso", "long-iso", "iso"])),
    req(Some(b'X'), "exclude-from", "FILE", Id::ExcludeFrom, "skip files matching any shell pattern listed in FILE"),
    req(None, "exclude", "PATTERN", Id::Exclude, "skip files matching the shell PATTERN").completes(Complete::Nothing),
    Opt::flag(b'x', "one-file-system", Id::OneFs, "stay on the file system of each operand"),
    #[cfg(feature = "mpi")]
    req(None, "output-file", "FILE", Id::OutputFile, "write the lines to FILE instead of standard output (an MPI job's stdout goes through mpirun, which loses write errors)"),
    Opt::long("browse", Id::Browse, "scan, then show the tree full-screen, biggest first, to browse, delete from and rescan (keys: ? in the view; not in GNU du)").beyond_gnu(),
    req(None, "export", "FILE", Id::Export, "write the scan to FILE ('-': standard output) in ncdu's JSON export format instead of printing lines (not in GNU du)").beyond_gnu(),
    req(Some(b'f'), "import", "FILE", Id::Import, "browse a scan saved with --export (or ncdu -o) instead of scanning; implies --browse and --read-only (not in GNU du)").beyond_gnu(),
    Opt::long("read-only", Id::ReadOnly, "with --browse, allow no deletion (not in GNU du)").beyond_gnu(),
    Opt::new(None, Some("json"), Arg::Optional("FORM"), Id::Json, "print each line as a JSON object: path, size and apparent_size in bytes, inodes, and with --time the time; FORM 'array' (the default) one JSON array, 'lines' one object per line (not in GNU du)")
        .completes(Complete::Words(&["array", "lines"])).beyond_gnu(),
    Opt::new(None, Some("progress"), Arg::Optional("WHEN"), Id::Progress, "show the operand, the directory being read and what was counted so far on one line of standard error when a run lasts over a second: WHEN 'auto' (the default; when standard error is a terminal), 'always', 'never'; bare --progress is 'always' (not in GNU du)")
        .completes(Complete::Words(&["always", "auto", "never"])).beyond_gnu(),
    Opt::long("help", Id::Help, "print this help and exit"),
    Opt::long("version", Id::Version, "print the version and the I/O engine, and exit"),
];

/// GNU du's long-option table order: ambiguity messages list the
/// candidates in this order.
pub const GETOPT_ORDER: &[&str] = &[
    "all",
    "apparent-size",
    "block-size",
    "bytes",
    "count-links",
    "dereference",
    "dereference-args",
    "exclude",
    "exclude-from",
    "files0-from",
    "human-readable",
    "inodes",
    "si",
    "max-depth",
    "null",
    "no-dereference",
    "one-file-system",
    #[cfg(feature = "mpi")]
    "output-file",
    "separate-dirs",
    "summarize",
    "total",
    "threshold",
    "time",
    "time-style",
    "help",
    "version",
];

const ABOUT: &str = "\
Report the disk usage of each FILE, directories with everything below them
(GNU du compatible; directories are walked in parallel).";

const NOTES: &str = "\
SIZE is a whole number with an optional unit: K, M, G, T, P, E, Z, Y are
powers of 1024, KB, MB, ... powers of 1000; KiB, MiB, ... mean K, M, ...
Without -B, -b, -k, -m, -h or --si, sizes are in units of DU_BLOCK_SIZE,
BLOCK_SIZE or BLOCKSIZE from the environment, else of 1024 bytes (512 when
POSIXLY_CORRECT is set).

--json (beyond GNU) gives each line as an object: path, size (disk usage)
and apparent_size in bytes whatever the units asked, inodes, and with --time
mtime, atime or ctime (ISO 8601 local time with its offset; *_sec and
*_nsec: since the epoch); -c's line is {\"total\":true,...}. Which lines
come is du's choice (-a, -s, -d, -S, -t, -x, --exclude apply).

RINGIO_BACKEND=uring|threads|sync picks the I/O engine's executor (see
--version for the one chosen here).

Exit status: 0 on success, 1 if anything could not be read or counted.";

/// ldu's documentation, for `--help`, the man page and completions.
pub fn doc() -> Doc {
    Doc::from_opts(
        "ldu",
        "du",
        "estimate file space usage (GNU du compatible)",
        &["[OPTION]... [FILE]...", "[OPTION]... --files0-from=F"],
        ABOUT,
        OPTIONS,
        NOTES,
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_is_consistent() {
        cli::opts::check_table(super::OPTIONS, super::GETOPT_ORDER).unwrap();
    }
}
