//! Where the benches find the other tools, which versions they are and how
//! big their binaries are.
//!
//! Debian ships old versions of some peers (bfs 2.6.1) and not at all
//! others (the Zig lsr), so a directory of peers built from source is
//! searched before PATH: `RINGUTILS_BENCH_PEERS` if set, else
//! `../shared/peers/bin` beside the workspace (see [`peers_dir`]). A peer
//! there may carry a name of its own ([`PREFERRED`]: `bfs4` for `bfs`), so
//! that it can sit on PATH beside the distribution's copy.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Our binaries; a program of one of these names found on PATH is a peer
/// only if it is not a copy of ours (see [`looks_like_ours`]).
pub const OUR_BINS: [&str; 4] = ["lsr", "lfind", "ldu", "lcat"];

/// (name in the workloads, name in the peers directory): the peers
/// directory's build is used in place of the program of that name.
pub const PREFERRED: [(&str, &str); 2] = [("bfs", "bfs4"), ("lsr", "lsr-zig")];

/// The directory of peers built from source, if it exists.
pub fn peers_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("RINGUTILS_BENCH_PEERS") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => crate::workspace_root().parent()?.join("shared/peers/bin"),
    };
    dir.is_dir().then_some(dir)
}

fn executable(p: &Path) -> bool {
    p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Every executable `prog` on PATH, in order (or `prog` itself if it is a path).
pub fn which_all(prog: &str) -> Vec<PathBuf> {
    if prog.contains('/') {
        return [PathBuf::from(prog)].into_iter().filter(|p| executable(p)).collect();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|d| d.join(prog)).filter(|p| executable(p)).collect()
}

pub fn which(prog: &str) -> Option<PathBuf> {
    which_all(prog).into_iter().next()
}

/// The program a command names: the peers directory's build of it first
/// (under its own name or its [`PREFERRED`] one), else the first on PATH,
/// except that a copy of one of our binaries is passed over (the Zig lsr is
/// also called `lsr`).
pub fn which_peer(prog: &str) -> Option<PathBuf> {
    which_peer_in(prog, peers_dir().as_deref())
}

fn which_peer_in(prog: &str, peers: Option<&Path>) -> Option<PathBuf> {
    if !prog.contains('/') {
        if let Some(dir) = peers {
            let alias = PREFERRED.iter().filter(|(n, _)| *n == prog).map(|(_, a)| *a);
            let found = std::iter::once(prog)
                .chain(alias)
                .map(|n| dir.join(n))
                .find(|p| executable(p) && !(OUR_BINS.contains(&prog) && looks_like_ours(p)));
            if found.is_some() {
                return found;
            }
        }
    }
    let candidates = which_all(prog);
    if prog.contains('/') || !OUR_BINS.contains(&prog) {
        return candidates.into_iter().next();
    }
    candidates.into_iter().find(|p| !looks_like_ours(p))
}

/// Whether a binary named like one of ours is a copy of ours (e.g. from
/// `cargo install --path .`) rather than a peer: the Zig lsr is also called
/// `lsr`. Ours is Rust, so it carries std's `/rustc/…` source paths (kept
/// for panic messages even when stripped) or our engine's name; a Zig
/// binary has neither.
pub fn looks_like_ours(path: &Path) -> bool {
    let has = |b: &[u8], pat: &[u8]| b.windows(pat.len()).any(|w| w == pat);
    fs::read(path).is_ok_and(|b| has(&b, b"/rustc/") || has(&b, b"ringio"))
}

/// `prog --version`'s first line that has a digit, e.g. `ls (GNU coreutils) 9.1`.
pub fn version(prog: &OsString) -> Option<String> {
    let out = Command::new(prog)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text.lines().find(|l| l.chars().any(|c| c.is_ascii_digit()))?.trim();
    let name = Path::new(prog).file_name()?.to_string_lossy().into_owned();
    let line: String = line.chars().take(60).collect();
    // `bfs4` says `bfs 4.1.4`, `lsr-zig` says `lsr v1.0.0`: the name's
    // leading letters are enough to see the line names the program.
    let stem: String = name.chars().take_while(char::is_ascii_alphabetic).collect();
    let named =
        !stem.is_empty() && line.to_ascii_lowercase().starts_with(&stem.to_ascii_lowercase());
    Some(if named { line } else { format!("{name} {line}") })
}

/// The version number in a `--version` line: the first word that starts
/// with a digit (or `v` and a digit) and has a dot, e.g. `9.1` of
/// `ls (GNU coreutils) 9.1`, `0.23.5` of `v0.23.5 [+git]`.
pub fn number(line: &str) -> Option<&str> {
    line.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
        .map(|w| w.strip_prefix('v').unwrap_or(w))
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.'))
        .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
}

/// What the report says about one program: its version and size.
#[derive(Clone, Debug, Default)]
pub struct Info {
    /// The `--version` line ([`version`]).
    pub version: Option<String>,
    /// The file's size in bytes (after symbolic links).
    pub bytes: Option<u64>,
    /// Its `.text` size and libraries, if it is an ELF file we can read.
    pub elf: Option<crate::elf::Elf>,
}

impl Info {
    /// The version number alone, for a table cell.
    pub fn number(&self) -> Option<&str> {
        self.version.as_deref().and_then(number)
    }
}

/// [`Info`] per program, each asked once per bench.
#[derive(Default)]
pub struct Infos(HashMap<PathBuf, Info>);

impl Infos {
    pub fn get(&mut self, prog: &Path) -> &Info {
        self.0.entry(prog.to_path_buf()).or_insert_with(|| Info {
            version: version(&prog.as_os_str().to_owned()),
            bytes: fs::metadata(prog).ok().map(|m| m.len()),
            elf: crate::elf::read(prog),
        })
    }
}

/// A size for a table: `139 KB`, `1.48 MB` (powers of 1000: the numbers
/// are compared, not allocated).
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e6 {
        format!("{:.2} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.0} KB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

/// One line of a sizes table.
pub struct SizeRow {
    pub tool: String,
    pub path: PathBuf,
    /// The tool (of the same table) whose size the ×GNU column divides by:
    /// GNU's binary for the same job (`GNU find` for lfind and bfs).
    pub versus: Option<String>,
}

impl SizeRow {
    /// A row named after `label` without its options (`gdu -n` is `gdu`).
    pub fn new(label: &str, path: &Path, versus: Option<&str>) -> SizeRow {
        SizeRow { tool: bare(label), path: path.into(), versus: versus.map(bare) }
    }
}

/// A label without its options: `gdu -n` is `gdu`.
pub fn bare(label: &str) -> String {
    label.split(" -").next().unwrap_or(label).trim().to_string()
}

/// The sizes table: each binary's file size and `.text`, the ratio of its
/// file size to its `versus` GNU binary's and to the Zig lsr's when those
/// are in the list, and the shared libraries it loads beyond the C
/// runtime (code that is not in the file).
pub fn sizes_table(rows: &[SizeRow], infos: &mut Infos) -> String {
    let bytes_of = |infos: &mut Infos, tool: &str| {
        let r = rows.iter().find(|r| r.tool == tool)?;
        infos.get(&r.path).bytes
    };
    let zig_bytes = bytes_of(infos, ZIG_LSR);
    let mut s = String::new();
    let _ =
        writeln!(s, "| binary | version | path | size | .text | ×GNU | ×Zig lsr | also loads |");
    let _ = writeln!(s, "|---|---|---|---:|---:|---:|---:|---|");
    for r in rows {
        let gnu_bytes = r.versus.as_deref().and_then(|g| bytes_of(infos, g));
        let info = infos.get(&r.path).clone();
        let ratio = |base: Option<u64>| match (info.bytes, base) {
            (Some(b), Some(base)) if base > 0 => format!("{:.1}×", b as f64 / base as f64),
            _ => String::new(),
        };
        let libs = info.elf.as_ref().map_or("?".into(), |e| crate::elf::extra_libs(e).join(", "));
        let _ = writeln!(
            s,
            "| {} | {} | `{}` | {} | {} | {} | {} | {libs} |",
            r.tool,
            info.number().unwrap_or("?"),
            r.path.display(),
            info.bytes.map_or("?".into(), human),
            info.elf.as_ref().map_or("?".into(), |e| human(e.text)),
            ratio(gnu_bytes),
            ratio(zig_bytes),
        );
    }
    s
}

/// A row of a bench that ran, for [`sizes_section`].
pub struct Ran<'a> {
    pub label: &'a str,
    pub prog: &'a Path,
    pub ours: bool,
    pub gnu: bool,
}

/// The sizes section that ends a bench report: the binaries of `rows`
/// (ours, GNU's, the Zig lsr's — found here when no row ran it, as the
/// smallest io_uring tool we know of — then the other peers), each
/// compared with the first GNU row's.
pub fn sizes_section(rows: &[Ran], infos: &mut Infos) -> String {
    let gnu = rows.iter().find(|r| r.gnu).map(|r| r.label);
    let mut out: Vec<SizeRow> = Vec::new();
    let mut add = |label: &str, path: &Path| {
        if !out.iter().any(|r| r.path == path) {
            out.push(SizeRow::new(label, path, gnu));
        }
    };
    rows.iter().filter(|r| r.ours).for_each(|r| add(r.label, r.prog));
    rows.iter().filter(|r| r.gnu).for_each(|r| add(r.label, r.prog));
    let zig = rows.iter().find(|r| r.label == ZIG_LSR).map(|r| r.prog.to_path_buf());
    let zig = zig.or_else(|| which_peer("lsr"));
    if let Some(p) = &zig {
        add(ZIG_LSR, p);
    }
    rows.iter().filter(|r| !r.ours && !r.gnu).for_each(|r| add(r.label, r.prog));
    let mut s = format!(
        "\n### Binary sizes\n\nThe file each row ran (its first program), as installed; ours \
         are this commit's release build. size = the file; .text = the code section; ×GNU and \
         ×Zig lsr = size / GNU's, the Zig lsr's; also loads = shared libraries beyond the C \
         runtime, whose code is not in the file. `cargo xtask bench --sizes` shows where lsr's \
         bytes go.\n\n{}",
        sizes_table(&out, infos)
    );
    if zig.is_none() {
        s.push_str("\n- the Zig lsr: not found (in the peers directory or on PATH)\n");
    }
    s
}

/// `label` with a version `number` after the name, before any options
/// (`fd 10.5.0 -g`), unless the label has it already.
pub fn with_version(label: &str, number: Option<&str>) -> String {
    match number {
        Some(n) if !label.contains(n) => {
            let name = label.split(" -").next().unwrap_or(label);
            format!("{name} {n}{}", &label[name.len()..])
        }
        _ => label.to_string(),
    }
}

/// The Zig lsr's name in the reports.
pub const ZIG_LSR: &str = "lsr (zig)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_numbers_are_found_in_version_lines() {
        assert_eq!(number("ls (GNU coreutils) 9.1"), Some("9.1"));
        assert_eq!(number("eza v0.23.5 [+git]"), Some("0.23.5"));
        assert_eq!(number("fdfind 8.6.0"), Some("8.6.0"));
        assert_eq!(number("lsr v1.0.0"), Some("1.0.0"));
        assert_eq!(number("gdu Version:\t 5.22.0-1+b1"), Some("5.22.0-1+b1"));
        assert_eq!(number("coreutils 0.0.30 (multi-call binary)"), Some("0.0.30"));
        assert_eq!(number("no number here 2"), None);
    }

    #[test]
    fn our_release_binary_is_not_taken_for_a_peer() {
        let me = std::env::current_exe().unwrap();
        assert!(looks_like_ours(&me));
        assert!(!looks_like_ours(Path::new("/bin/sh")));
    }

    #[test]
    fn the_peers_directory_comes_first_under_either_name() {
        let scratch = scratch::Scratch::new("peers-dir");
        let dir = scratch.path();
        let put = |name: &str| {
            let p = dir.join(name);
            fs::write(&p, "#!/bin/sh\n").unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
            p
        };
        let bfs4 = put("bfs4");
        assert_eq!(which_peer_in("bfs", Some(dir)), Some(bfs4));
        let sh = put("sh");
        assert_eq!(which_peer_in("sh", Some(dir)), Some(sh));
        assert_eq!(which_peer_in("sh", None), which("sh"));
        // A copy of ours in the directory is not a peer.
        fs::copy(std::env::current_exe().unwrap(), dir.join("lsr")).unwrap();
        assert_ne!(which_peer_in("lsr", Some(dir)), Some(dir.join("lsr")));
    }

    #[test]
    fn a_sizes_section_puts_ours_then_gnu_first() {
        let (sh, cat) = (Path::new("/bin/sh"), Path::new("/bin/cat"));
        let rows = [
            Ran { label: "peer -x", prog: cat, ours: false, gnu: false },
            Ran { label: "GNU sh", prog: sh, ours: false, gnu: true },
            Ran { label: "mine", prog: cat, ours: true, gnu: false },
        ];
        let t = sizes_section(&rows, &mut Infos::default());
        let at = |what: &str| t.find(what).unwrap_or(usize::MAX);
        assert!(at("| mine |") < at("| GNU sh |"), "{t}");
        // One row per file: the peer ran the same binary as ours.
        assert_eq!(at("| peer |"), usize::MAX, "{t}");
        assert_eq!(with_version("fd -g", Some("10.5.0")), "fd 10.5.0 -g");
        assert_eq!(with_version("lsr (zig)", Some("1.0.0")), "lsr (zig) 1.0.0");
    }

    #[test]
    fn sizes_have_ratios_to_gnu_and_zig() {
        let rows = [
            SizeRow::new("GNU x -s", Path::new("/bin/sh"), Some("GNU x")),
            SizeRow::new(ZIG_LSR, Path::new("/bin/sh"), Some("GNU x -s")),
            SizeRow::new("gone", Path::new("/nonexistent/x"), None),
        ];
        assert_eq!((rows[0].tool.as_str(), rows[1].versus.as_deref()), ("GNU x", Some("GNU x")));
        let t = sizes_table(&rows, &mut Infos::default());
        assert!(t.contains("| 1.0× | 1.0× |"), "{t}");
        assert!(t.contains("| gone | ? | `/nonexistent/x` | ? | ? |  |  | ? |"), "{t}");
        assert_eq!(human(114_256), "114 KB");
        assert_eq!(human(1_481_328), "1.48 MB");
    }
}
