//! `--help` and `--version`.

pub fn help(prog: &str) -> String {
    format!(
        "\
Usage: {prog} [OPTION]... [FILE]...
  or:  {prog} [OPTION]... --files0-from=F
Summarize the disk usage of each FILE, recursively for directories
(GNU du compatible; directories are walked in parallel).

Mandatory arguments to long options are mandatory for short options too.
  -0, --null            end each output line with NUL, not newline
  -a, --all             write counts for all files, not just directories
      --apparent-size   print apparent sizes rather than device usage
  -B, --block-size=SIZE  scale sizes by SIZE before printing them
  -b, --bytes           equivalent to '--apparent-size --block-size=1'
  -c, --total           produce a grand total
  -D, --dereference-args  dereference only symlinks listed on the command line
  -d, --max-depth=N     print the total for a directory only if it is N or
                          fewer levels below the command line argument
      --files0-from=F   summarize the files named in file F, separated by NULs
                          (F of - reads names from standard input)
  -H                    equivalent to --dereference-args (-D)
  -h, --human-readable  print sizes in human readable format (e.g., 1K 234M 2G)
      --inodes          list inode usage information instead of block usage
  -k                    like --block-size=1K
  -L, --dereference     dereference all symbolic links
  -l, --count-links     count sizes many times if hard linked
  -m                    like --block-size=1M
  -P, --no-dereference  don't follow any symbolic links (this is the default)
  -S, --separate-dirs   for directories do not include size of subdirectories
      --si              like -h, but use powers of 1000 not 1024
  -s, --summarize       display only a total for each argument
  -t, --threshold=SIZE  exclude entries smaller than SIZE if positive,
                          or entries greater than SIZE if negative
      --time            show time of the last modification of any file in the
                          directory, or any of its subdirectories
      --time=WORD       show time as WORD instead of modification time:
                          atime, access, use, ctime or status
      --time-style=STYLE  show times using STYLE: full-iso, long-iso, iso,
                          or +FORMAT (interpreted like 'date')
  -X, --exclude-from=FILE  exclude files that match any pattern in FILE
      --exclude=PATTERN  exclude files that match PATTERN
  -x, --one-file-system  skip directories on different file systems
      --help            display this help and exit
      --version         output version information and exit

SIZE is an integer with an optional unit (K, M, G, T, P, E, Z, Y as powers
of 1024; KB, MB, ... as powers of 1000; KiB, MiB, ... too). Without -B, -k,
-m, -h or --si, sizes come in units of DU_BLOCK_SIZE, BLOCK_SIZE or
BLOCKSIZE from the environment, else 1024 bytes (512 if POSIXLY_CORRECT).

Environment: RINGIO_BACKEND=uring|threads|sync picks the I/O engine.
"
    )
}

pub fn version(prog: &str) -> String {
    format!(
        "{prog} (ringutils) {}\nA GNU du-compatible disk usage tool on the ringio engine.\nLicense MIT OR Apache-2.0.\n",
        env!("CARGO_PKG_VERSION")
    )
}
