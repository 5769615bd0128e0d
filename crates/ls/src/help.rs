//! `--help` and `--version` texts (our own wording; the option set is GNU's).

pub fn text(prog: &str) -> String {
    format!(
        "Usage: {prog} [OPTION]... [FILE]...
List the FILEs (the current directory by default), GNU ls compatible.
Entries are sorted by name unless one of -cftuvSUX or --sort is given.

Selection:
  -a, --all                 include names starting with .
  -A, --almost-all          like -a, without . and ..
  -B, --ignore-backups      skip names ending with ~
  -I, --ignore=PATTERN      skip names matching the shell PATTERN
      --hide=PATTERN        like -I, but -a and -A override it
  -d, --directory           list directories themselves, not their contents
  -R, --recursive           list subdirectories recursively
  -L, --dereference         show what symbolic links point to
  -H, --dereference-command-line
                            follow links given on the command line
      --dereference-command-line-symlink-to-dir
                            follow command-line links to directories

Format:
  -l                        long listing        -1   one name per line
  -C                        columns (down)      -x   columns (across)
  -m                        comma-separated     --format=WORD (long, verbose,
                            commas, across, horizontal, vertical, single-column)
  -g / -o                   -l without owner / without group
  -G, --no-group            no group column in -l
  -n, --numeric-uid-gid     -l with numeric ids
      --author              with -l, add the author column
  -i, --inode               print inode numbers
  -s, --size                print allocated blocks
  -h, --human-readable      sizes like 1K 234M 2G;  --si  powers of 1000
  -k, --kibibytes           1024-byte blocks for -s and totals
      --block-size=SIZE     scale sizes by SIZE (K, M, KB, MiB, ...)
  -F, --classify[=WHEN]     append one of */=>@| ;  --file-type  without *
  -p                        append / to directories
      --indicator-style=WORD  none, slash, file-type, classify
      --full-time           -l with full-iso times
      --time-style=STYLE    full-iso, long-iso, iso, locale, +FORMAT
      --time=WORD           atime/access/use, ctime/status, birth/creation, mtime
  -c / -u                   use ctime / atime (and sort by it without -l)
  -w, --width=COLS          output width (0: no limit)
  -T, --tabsize=COLS        tab stops every COLS (0: no tabs)
  -Z, --context             print a security context column
      --zero                end lines with NUL
      --color[=WHEN]        colour names (LS_COLORS)
      --hyperlink[=WHEN]    make names file:// hyperlinks
      --icons[=WHEN]        Nerd Font icons before names
      --tree[=DEPTH]        print a tree of the directories
      --json                one JSON object per entry

Quoting:
  -b, --escape              C escapes for unprintable bytes
  -N, --literal             names as they are
  -Q, --quote-name          names in double quotes
  -q, --hide-control-chars  ? for unprintable bytes
      --show-control-chars  unprintable bytes as they are
      --quoting-style=WORD  literal, locale, shell, shell-always, shell-escape,
                            shell-escape-always, c, c-maybe, escape, clocale

Sorting:
  -t  time   -S  size   -X  extension   -v  version   -U / -f  none
      --sort=WORD           none, size, time, version, extension, width
  -r, --reverse             reverse the order
      --group-directories-first
                            directories before files

WHEN is always (the default), auto or never.
Exit status: 0 if OK, 1 for minor problems (e.g. an unreadable
subdirectory), 2 for serious trouble (e.g. a missing operand).
"
    )
}

pub fn version(prog: &str) -> String {
    format!(
        "{prog} (ringutils) {}\nA GNU ls compatible lister on the ringio engine ({}).\nLicense MIT OR Apache-2.0.\n",
        env!("CARGO_PKG_VERSION"),
        ringio::uring_description()
    )
}
