//! `cargo xtask fixtures`: the deterministic file sets the benches run on.
//!
//! Every set is generated from one fixed seed by a tiny PRNG, so two machines
//! (or two runs) get byte-identical names, sizes, contents and link
//! structure. A set is built under `NAME.partial`, renamed into place, and
//! only then stamped with `.done-NAME` (version, seed, parameters): a set with
//! a matching stamp is reused, anything else (missing, interrupted, older
//! version) is deleted and rebuilt.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Bump when a generator changes: every stamp then mismatches and the sets
/// are rebuilt.
pub const VERSION: u32 = 1;
/// "RINGUTIL".
pub const SEED: u64 = 0x5249_4E47_5554_494C;

/// SplitMix64: tiny, fast, good enough for fixture shapes.
pub struct Rng(u64);

impl Rng {
    /// A generator for one named set, independent of the other sets.
    fn for_set(name: &str) -> Rng {
        // FNV-1a of the name, mixed into the global seed.
        let h = name
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
        Rng(SEED ^ h)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Flat directory sizes.
pub const FLAT_SIZES: [usize; 5] = [10, 100, 1_000, 10_000, 100_000];
/// Tree shape: directories below the root, maximum depth, 2–5 subdirectories
/// and 0–32 files per directory (so ~16 × 10,001 files, ~170k entries).
const TREE_DIRS: usize = 10_000;
/// The same shape cut at 1,200 directories: ~20,000 entries, the size the
/// slow-file-system bench walks through FUSE, where each request
/// costs a round trip and GNU tools take a minute.
const TREE20K_DIRS: usize = 1_200;
const TREE_DEPTH: usize = 8;
const TREE_MAX_FILES: u64 = 32;
const BIG_BYTES: u64 = 1 << 30;
const TEXT_LINES: u64 = 1_500_000;
const TEXT_MAX_LINE: u64 = 132;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Set {
    Flat(usize),
    Tree,
    /// `tree-20k`: the tree's shape with fewer directories (~20k entries).
    Tree20k,
    Big,
    Text,
}

impl Set {
    pub fn all() -> Vec<Set> {
        let mut v: Vec<Set> = FLAT_SIZES.iter().map(|&n| Set::Flat(n)).collect();
        v.extend([Set::Tree, Set::Tree20k, Set::Big, Set::Text]);
        v
    }

    /// The file or directory name under the fixtures directory.
    pub fn name(self) -> String {
        match self {
            Set::Flat(n) => format!("flat-{n}"),
            Set::Tree => "tree".into(),
            Set::Tree20k => "tree-20k".into(),
            Set::Big => "big.bin".into(),
            Set::Text => "text.txt".into(),
        }
    }

    /// The workload placeholder naming this set: `{FLAT10000}`, `{TREE}`, ….
    pub fn placeholder(self) -> String {
        match self {
            Set::Flat(n) => format!("FLAT{n}"),
            Set::Tree => "TREE".into(),
            Set::Tree20k => "TREE20K".into(),
            Set::Big => "BIG".into(),
            Set::Text => "TEXT".into(),
        }
    }

    pub fn from_placeholder(p: &str) -> Option<Set> {
        Set::all().into_iter().find(|s| s.placeholder() == p)
    }

    /// Accepts a set's name (`flat-100`, `tree`, `big.bin`, `big`, `text`) or
    /// `flat` for every flat directory.
    pub fn parse_many(s: &str) -> Option<Vec<Set>> {
        match s {
            "flat" => Some(FLAT_SIZES.iter().map(|&n| Set::Flat(n)).collect()),
            "big" => Some(vec![Set::Big]),
            "text" => Some(vec![Set::Text]),
            _ => Set::all().into_iter().find(|x| x.name() == s).map(|x| vec![x]),
        }
    }

    /// What the stamp records; any change here forces a rebuild.
    fn stamp(self) -> String {
        let params = match self {
            Set::Flat(n) => format!("files={n} sizes=0..=300"),
            Set::Tree => tree_params(TREE_DIRS),
            Set::Tree20k => tree_params(TREE20K_DIRS),
            Set::Big => format!("bytes={BIG_BYTES}"),
            Set::Text => format!("lines={TEXT_LINES} len=0..={TEXT_MAX_LINE}"),
        };
        format!("ringutils fixture {} v{VERSION} seed={SEED:#x} {params}\n", self.name())
    }
}

fn tree_params(dirs: usize) -> String {
    format!(
        "dirs={dirs} depth={TREE_DEPTH} fanout=2..=5 files=0..={TREE_MAX_FILES} sizes=skewed..=64KiB symlinks=1% hardlinks=0.1%"
    )
}

/// `<workspace>/target/fixtures`.
pub fn default_dir() -> PathBuf {
    crate::workspace_root().join("target").join("fixtures")
}

/// Makes sure `set` exists complete under `dir`; returns its path.
pub fn ensure(dir: &Path, set: Set) -> Result<PathBuf, String> {
    let name = set.name();
    let path = dir.join(&name);
    let stamp_path = dir.join(format!(".done-{name}"));
    let stamp = set.stamp();
    if fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp) && path.exists() {
        return Ok(path);
    }
    let err = |what: &str, e: io::Error| format!("fixture {name}: {what}: {e}");
    fs::create_dir_all(dir).map_err(|e| err("create fixtures dir", e))?;
    let _ = fs::remove_file(&stamp_path);
    let partial = dir.join(format!("{name}.partial"));
    remove_any(&partial).map_err(|e| err("remove stale partial set", e))?;
    remove_any(&path).map_err(|e| err("remove outdated set", e))?;
    eprintln!("fixtures: building {name} …");
    let t = Instant::now();
    let mut rng = Rng::for_set(&name);
    let summary = match set {
        Set::Flat(n) => build_flat(&partial, n, &mut rng),
        Set::Tree => build_tree(&partial, TREE_DIRS, &mut rng),
        Set::Tree20k => build_tree(&partial, TREE20K_DIRS, &mut rng),
        Set::Big => build_big(&partial, &mut rng),
        Set::Text => build_text(&partial, &mut rng),
    }
    .map_err(|e| err("build", e))?;
    fs::rename(&partial, &path).map_err(|e| err("rename into place", e))?;
    fs::write(&stamp_path, &stamp).map_err(|e| err("write stamp", e))?;
    eprintln!("fixtures: built {name} in {:.1} s: {summary}", t.elapsed().as_secs_f64());
    Ok(path)
}

fn remove_any(p: &Path) -> io::Result<()> {
    match fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(p),
        Ok(_) => fs::remove_file(p),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Words for names and text: something that looks like a source tree.
const WORDS: &[&str] = &[
    "alloc", "arch", "async", "block", "buffer", "cache", "config", "core", "crypto", "dev",
    "dirent", "driver", "engine", "entry", "event", "file", "fs", "hash", "init", "inode", "io",
    "kernel", "list", "lock", "main", "map", "mem", "mount", "net", "node", "page", "parse",
    "path", "pipe", "queue", "read", "ring", "sched", "signal", "slab", "sock", "stat", "sync",
    "table", "task", "test", "thread", "time", "tree", "uring", "util", "walk", "write", "xattr",
];
const DIR_WORDS: &[&str] = &[
    "src",
    "lib",
    "include",
    "tests",
    "docs",
    "drivers",
    "net",
    "fs",
    "arch",
    "kernel",
    "mm",
    "crypto",
    "sound",
    "tools",
    "scripts",
    "util",
    "core",
    "common",
    "platform",
    "internal",
    "api",
    "bench",
    "examples",
    "vendor",
    "third_party",
    "build",
    "gen",
    "proto",
];
/// Extensions, repeated to weight them: mostly C and Rust sources.
const EXTS: &[&str] = &[
    ".c", ".c", ".c", ".c", ".c", ".h", ".h", ".h", ".rs", ".rs", ".rs", ".rs", ".md", ".md",
    ".txt", ".o", ".py", ".json", ".toml", ".S", ".sh", "",
];
const PLAIN_NAMES: &[&str] = &[
    "Makefile",
    "README",
    "LICENSE",
    "Kconfig",
    "CMakeLists.txt",
    "Cargo.toml",
    "mod.rs",
    "index.md",
];

/// One line of text-like content, `len` bytes at most, without the newline.
fn text_line(rng: &mut Rng, len: usize, out: &mut Vec<u8>) {
    let start = out.len();
    if len > 8 && rng.below(4) == 0 {
        out.extend_from_slice(b"    ");
    }
    while out.len() - start < len {
        let w = rng.pick(WORDS).as_bytes();
        let room = len - (out.len() - start);
        if w.len() + 1 > room {
            out.extend(std::iter::repeat_n(b'.', room.min(3)));
            break;
        }
        out.extend_from_slice(w);
        out.push(match rng.below(8) {
            0 => b'(',
            1 => b'_',
            2 => b',',
            _ => b' ',
        });
    }
}

/// A block of text that file contents are cut from.
fn content_pool(rng: &mut Rng) -> Vec<u8> {
    let mut v = Vec::with_capacity(80 * 1024);
    while v.len() < 72 * 1024 {
        let len = rng.below(100) as usize;
        text_line(rng, len, &mut v);
        v.push(b'\n');
    }
    v
}

fn write_file(path: &Path, pool: &[u8], size: usize, rng: &mut Rng) -> io::Result<()> {
    let off = rng.below((pool.len() - size.min(pool.len())) as u64 + 1) as usize;
    fs::write(path, &pool[off..off + size])
}

fn build_flat(dir: &Path, n: usize, rng: &mut Rng) -> io::Result<String> {
    fs::create_dir(dir)?;
    let pool = content_pool(rng);
    let mut bytes = 0;
    for i in 0..n {
        let size = rng.below(301) as usize;
        write_file(&dir.join(format!("file-{i:07}.txt")), &pool, size, rng)?;
        bytes += size;
    }
    Ok(format!("{n} files, {bytes} bytes"))
}

/// Mostly small: 88% ≤ 1 KiB, 10% ≤ 8 KiB, 2% ≤ 64 KiB (mean ≈ 1.6 KiB).
fn tree_file_size(rng: &mut Rng) -> usize {
    (match rng.below(100) {
        0..88 => rng.below(1025),
        88..98 => rng.range(1025, 8192),
        _ => rng.range(8193, 65536),
    }) as usize
}

fn unique(names: &mut HashSet<String>, base: String) -> String {
    if names.insert(base.clone()) {
        return base;
    }
    for i in 2.. {
        let n = format!("{base}{i}");
        if names.insert(n.clone()) {
            return n;
        }
    }
    unreachable!()
}

fn file_name(rng: &mut Rng) -> String {
    match rng.below(20) {
        0 => rng.pick(PLAIN_NAMES).to_string(),
        1..=9 => format!("{}{}", rng.pick(WORDS), rng.pick(EXTS)),
        _ => format!("{}_{}{}", rng.pick(WORDS), rng.pick(WORDS), rng.pick(EXTS)),
    }
}

/// A source-tree-shaped hierarchy: directories breadth first with 2–5
/// subdirectories each until the budget is spent (so most sit at depth 6–8),
/// every directory holding 0–32 entries of files, 1% of them symbolic links
/// (one in ten dangling) and 0.1% hard links to an earlier file elsewhere.
fn build_tree(root: &Path, max_dirs: usize, rng: &mut Rng) -> io::Result<String> {
    fs::create_dir(root)?;
    let pool = content_pool(rng);
    let mut queue: Vec<(PathBuf, usize)> = vec![(root.to_path_buf(), 0)];
    let mut regular: Vec<PathBuf> = Vec::new();
    let (mut dirs, mut files, mut symlinks, mut hardlinks, mut bytes) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut i = 0;
    while i < queue.len() {
        let (dir, depth) = queue[i].clone();
        i += 1;
        let mut names = HashSet::new();
        if depth < TREE_DEPTH {
            for _ in 0..rng.range(2, 5) {
                if dirs == max_dirs {
                    break;
                }
                let name = unique(&mut names, rng.pick(DIR_WORDS).to_string());
                let p = dir.join(name);
                fs::create_dir(&p)?;
                queue.push((p, depth + 1));
                dirs += 1;
            }
        }
        let mut siblings: Vec<String> = Vec::new();
        for _ in 0..rng.below(TREE_MAX_FILES + 1) {
            let name = unique(&mut names, file_name(rng));
            let p = dir.join(&name);
            let r = rng.below(1000);
            if r < 10 {
                let target = if r == 0 || siblings.is_empty() {
                    format!("missing-{}", rng.pick(WORDS))
                } else {
                    rng.pick(&siblings).clone()
                };
                std::os::unix::fs::symlink(target, &p)?;
                symlinks += 1;
            } else if r < 11 && !regular.is_empty() {
                let target = &regular[rng.below(regular.len() as u64) as usize];
                fs::hard_link(target, &p)?;
                hardlinks += 1;
            } else {
                let size = tree_file_size(rng);
                write_file(&p, &pool, size, rng)?;
                bytes += size;
                files += 1;
                regular.push(p);
                siblings.push(name);
            }
        }
    }
    let entries = dirs + files + symlinks + hardlinks;
    Ok(format!(
        "{entries} entries: {dirs} dirs, {files} files ({} MiB), {symlinks} symlinks, {hardlinks} hard links",
        bytes >> 20
    ))
}

fn build_big(path: &Path, rng: &mut Rng) -> io::Result<String> {
    let mut f = fs::File::create(path)?;
    let mut chunk = vec![0u8; 1 << 20];
    for _ in 0..BIG_BYTES / chunk.len() as u64 {
        for w in chunk.chunks_exact_mut(8) {
            w.copy_from_slice(&rng.next_u64().to_ne_bytes());
        }
        f.write_all(&chunk)?;
    }
    Ok(format!("{BIG_BYTES} bytes"))
}

fn build_text(path: &Path, rng: &mut Rng) -> io::Result<String> {
    let mut f = io::BufWriter::with_capacity(1 << 20, fs::File::create(path)?);
    let mut line = Vec::with_capacity(256);
    let mut bytes = 0;
    for _ in 0..TEXT_LINES {
        line.clear();
        let len = rng.below(TEXT_MAX_LINE + 1) as usize;
        text_line(rng, len, &mut line);
        line.push(b'\n');
        f.write_all(&line)?;
        bytes += line.len();
    }
    f.flush()?;
    Ok(format!("{TEXT_LINES} lines, {bytes} bytes"))
}

/// `cargo xtask fixtures [--dir D] [SET…]`.
pub fn main(args: &[String]) -> Result<(), String> {
    let mut dir = default_dir();
    let mut sets = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--dir" => dir = PathBuf::from(it.next().ok_or("--dir needs a value")?),
            s if s.starts_with("--dir=") => dir = PathBuf::from(&s[6..]),
            s => sets.extend(Set::parse_many(s).ok_or_else(|| {
                format!(
                    "unknown fixture set '{s}' (sets: flat, {}, big, text)",
                    Set::all().iter().map(|s| s.name()).collect::<Vec<_>>().join(", ")
                )
            })?),
        }
    }
    if sets.is_empty() {
        sets = Set::all();
    }
    for s in sets {
        let p = ensure(&dir, s)?;
        println!("{}", p.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic_and_bounded() {
        let mut a = Rng::for_set("x");
        let mut b = Rng::for_set("x");
        for _ in 0..1000 {
            let x = a.range(3, 9);
            assert_eq!(x, b.range(3, 9));
            assert!((3..=9).contains(&x));
        }
    }

    #[test]
    fn placeholders_round_trip() {
        for s in Set::all() {
            assert_eq!(Set::from_placeholder(&s.placeholder()), Some(s));
        }
    }

    #[test]
    fn small_flat_set_is_reused_and_rebuilt_when_stale() {
        let scratch = scratch::Scratch::new("xtask-fixtures");
        let dir = scratch.path();
        let p = ensure(dir, Set::Flat(10)).unwrap();
        assert_eq!(fs::read_dir(&p).unwrap().count(), 10);
        let marker = p.join("file-0000003.txt");
        let before = fs::read(&marker).unwrap();
        // Reused: a file added by hand survives.
        fs::write(p.join("extra"), b"").unwrap();
        ensure(dir, Set::Flat(10)).unwrap();
        assert!(p.join("extra").exists());
        // A stale stamp forces a rebuild with identical contents.
        fs::write(dir.join(".done-flat-10"), "old").unwrap();
        ensure(dir, Set::Flat(10)).unwrap();
        assert!(!p.join("extra").exists());
        assert_eq!(fs::read(&marker).unwrap(), before);
    }
}
