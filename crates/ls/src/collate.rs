//! Sorting in a locale whose collation is not byte order (en_US, de_DE,
//! ja_JP …): GNU's order, fast.
//!
//! GNU ls compares names with `strcoll` inside gnulib's `mpsort`, a stable
//! top-down merge sort (left half `n/2` elements, ties keep the left one)
//! over readdir (or argv) order; `-r` swaps the comparator's arguments, so
//! names `strcoll` calls equal keep their directory order even reversed.
//! `strxfrm` keys cannot replace `strcoll`: glibc's two disagree on some
//! pairs (`0ß` / `~0~ß` in en_US), and GNU prints `strcoll`'s order.
//!
//! Name order therefore goes in two steps:
//! 1. a pre-sort on the first 16 bytes of the first level of each name's
//!    `strxfrm` key (integer compares; computed on two cores), which puts
//!    most names in place. A listing of printable-ASCII names takes its
//!    first-level key from a table of the locale's weights instead (see
//!    `ascii_ranks`): exact, and ~3,900 instructions a name cheaper. Only the first level: glibc's keys disagree
//!    with `strcoll` at the last level, where punctuation's positions count
//!    (en_US: `00.a.` vs `,.00.~a`), common enough in real names that
//!    trusting the whole key sent many listings to the slow path;
//! 2. `strcoll` settles the rest: names whose key prefixes are equal are
//!    put in order by a stable merge sort with `strcoll`, and each pair of
//!    neighbours whose prefixes differ is checked with `strcoll`. When every
//!    neighbour pair is in `strcoll` order (ties in directory order), the
//!    sequence is the one stable order `strcoll` allows, which is GNU's.
//!    A pair out of order (keys and `strcoll` disagree) sends the whole
//!    listing through the GNU-shaped merge sort with `strcoll` instead.
//!    Table keys are exact first-level weights, so their neighbours with
//!    different keys need no check: only ties meet `strcoll`.
//!
//! `-t`/`-c`/`-u`/`--time=birth`, `-S` and `--sort=width` go the same way
//! with their key (an integer) in front of the name's: only entries that
//! tie on it meet `strcoll`.
//!
//! `strcoll` is glibc's comparison of each string's weight sequences, level
//! by level: a total preorder, which the reasoning above relies on. `-X`
//! (`strcoll` on extensions, then on names) compares in the GNU-shaped
//! merge sort itself, its two halves on two cores.

use std::cmp::Ordering;
use std::ffi::CStr;

use libcw::locale::{strcoll, strxfrm_buf};

use crate::args::Sort;
use crate::entry::{Entry, Name};
use crate::sort::{dir_like, extension_at, time_of, SortBy};

/// Below this many entries one thread does it all (a thread costs ~30 µs;
/// 4096 names take ~1.5 ms of `strxfrm`).
const PARALLEL_MIN: usize = 4096;

fn two_cores(n: usize) -> bool {
    n >= PARALLEL_MIN && ringio::sys::available_cpus() >= 2
}

/// The order (indices into `v`) GNU ls lists `v` in, for every key but
/// `-U` and `-v` (which are locale-independent).
pub fn order(v: &[Entry], by: SortBy, width: &dyn Fn(&Entry) -> usize) -> Vec<u32> {
    let SortBy { key, time, reverse, dirs_first } = by;
    let group: Vec<bool> =
        if dirs_first { v.iter().map(|e| !dir_like(e)).collect() } else { Vec::new() };
    let widths: Vec<usize> =
        if key == Sort::Width { v.iter().map(width).collect() } else { Vec::new() };
    // The primary keys as integers that ascend in GNU's (unreversed) order:
    // newest and largest first, narrowest first.
    let size = |i: usize| v[i].meta.map_or(0, |m| m.size);
    let keyed = match key {
        Sort::Name => keyed_order(v, reverse, &group, |_| ()),
        Sort::Time => keyed_order(v, reverse, &group, |i| {
            let t = time_of(&v[i], time);
            (!((t.secs as u64) ^ (1 << 63)), !t.nsec)
        }),
        // `0u32`, the type of time's second half: one instantiation of the
        // pre-sort serves the three keys (10 KB less of lsr).
        Sort::Size => keyed_order(v, reverse, &group, |i| (!size(i), 0u32)),
        Sort::Width => keyed_order(v, reverse, &group, |i| (widths[i] as u64, 0u32)),
        Sort::Extension | Sort::None | Sort::Version => None,
    };
    if let Some(o) = keyed {
        return o;
    }
    let name = |a: usize, b: usize| strcoll(v[a].name.c_str(), v[b].name.c_str());
    // GNU's comparators, argument order as GNU's `cmp_*` (the reversed
    // variants call them with the arguments swapped).
    let base = |a: usize, b: usize| -> Ordering {
        match key {
            Sort::Time => time_of(&v[b], time).cmp(&time_of(&v[a], time)),
            Sort::Size => size(b).cmp(&size(a)),
            Sort::Extension => strcoll(ext(&v[a]), ext(&v[b])),
            Sort::Width => widths[a].cmp(&widths[b]),
            Sort::Name | Sort::None | Sort::Version => Ordering::Equal,
        }
        .then_with(|| name(a, b))
    };
    let cmp = |a: &u32, b: &u32| -> Ordering {
        let (a, b) = (*a as usize, *b as usize);
        let g = if group.is_empty() { Ordering::Equal } else { group[a].cmp(&group[b]) };
        g.then_with(|| if reverse { base(b, a) } else { base(a, b) })
    };
    let mut idx: Vec<u32> = (0..v.len() as u32).collect();
    merge_sort_par(&mut idx, &cmp);
    idx
}

/// A name's extension (from its last `.`, or empty) as a C string: a
/// suffix of the name, so it shares the name's NUL.
fn ext(e: &Entry) -> &CStr {
    let c = e.name.c_str();
    let i = extension_at(c.to_bytes());
    c.to_bytes_with_nul().get(i..).and_then(|s| CStr::from_bytes_with_nul(s).ok()).unwrap_or(c"")
}

/// One entry in the pre-sort: its group (directories first), its primary
/// key (time, size, width; nothing for name order), the first 16 bytes of
/// its name's `strxfrm` key's first level, and its position. 24 bytes in
/// name order, so a million names cost what the C locale's prefix sort
/// costs.
#[derive(Clone, Copy)]
struct Rec<P> {
    pri: P,
    hi: u64,
    lo: u64,
    i: u32,
    group: u32,
}

impl<P: Eq> Rec<P> {
    fn same_prefix(&self, o: &Rec<P>) -> bool {
        self.group == o.group && self.pri == o.pri && self.hi == o.hi && self.lo == o.lo
    }
}

/// The order by key pre-sort and `strcoll` check (see the module doc), for
/// keys whose comparison is `pri` then the name; `None` when `strcoll`
/// disagrees with the keys somewhere.
fn keyed_order<P: Copy + Ord + Default + Send + Sync>(
    v: &[Entry],
    reverse: bool,
    group: &[bool],
    pri: impl Fn(usize) -> P + Sync,
) -> Option<Vec<u32>> {
    let n = v.len();
    // Printable-ASCII names (most listings) take their key from a table
    // instead of `strxfrm`, which costs ~3,900 instructions a name in
    // en_US and leaves names like `file-0000123.txt` (two key bytes a
    // character) tied on their first 16 bytes, so the ties took ~2,700
    // more in `strcoll` (10,000-entry `lsr -al`, en_US.UTF-8: 122 M
    // instructions, 49 M in C).
    let ranks = ascii_ranks(n).filter(|_| v.iter().all(|e| printable_ascii(&e.name)));
    // Rank keys cost ~100 instructions a name, and settling them only scans
    // for ties: a second thread would cost more to start than it saves (and
    // a name order is taken while the pool's worker still stats, so the
    // other core is busy anyway). `strxfrm` keys (~3,900 a name) and their
    // `strcoll` checks are shared.
    let par = two_cores(n) && ranks.is_none();
    let mut recs = records(v, group, &pri, ranks, par);
    // Keys of equal prefix stay in directory order (the index decides).
    recs.sort_unstable_by(|x, y| {
        let k = (x.pri, x.hi, x.lo).cmp(&(y.pri, y.hi, y.lo));
        x.group.cmp(&y.group).then(if reverse { k.reverse() } else { k }).then(x.i.cmp(&y.i))
    });
    let coll = |a: u32, b: u32| {
        let o = strcoll(v[a as usize].name.c_str(), v[b as usize].name.c_str());
        if reverse {
            o.reverse()
        } else {
            o
        }
    };
    // Rank keys are first-level weights exactly (see `ascii_ranks`): names
    // whose keys differ differ at the first level within the key, which
    // decides `strcoll` there, so only ties need `strcoll`. `strxfrm`
    // keys are checked against it (the module doc).
    let ranked = ranks.is_some();
    let ok = if par {
        // Split at a run boundary near the middle; the pair across the
        // split is checked after both halves are settled.
        let mut mid = n / 2;
        while mid < n && recs[mid].same_prefix(&recs[mid - 1]) {
            mid += 1;
        }
        let (a, b) = recs.split_at_mut(mid);
        let (ok_a, ok_b) = std::thread::scope(|s| {
            let h = s.spawn(|| settle(b, ranked, &coll));
            let ok_a = settle(a, ranked, &coll);
            (ok_a, h.join().unwrap_or(false))
        });
        ok_a && ok_b && (mid == n || ranked || in_order(&recs[mid - 1], &recs[mid], &coll))
    } else {
        settle(&mut recs, ranked, &coll)
    };
    ok.then(|| recs.iter().map(|r| r.i).collect())
}

/// Every entry's record, unsorted: its group, primary key and the first 16
/// bytes of its name's collation key (from `ranks`, else `strxfrm`); the
/// halves on two threads when `par`.
fn records<P: Copy + Default + Send>(
    v: &[Entry],
    group: &[bool],
    pri: &(impl Fn(usize) -> P + Sync),
    ranks: Option<&[u8; 128]>,
    par: bool,
) -> Vec<Rec<P>> {
    let fill = |out: &mut [Rec<P>], start: usize| {
        let mut buf = Vec::new();
        for (k, r) in out.iter_mut().enumerate() {
            let i = start + k;
            let b = match ranks {
                Some(t) => rank_key(t, &v[i].name),
                None => strxfrm_prefix(&mut buf, &v[i].name),
            };
            let p = u128::from_be_bytes(b);
            *r = Rec {
                pri: pri(i),
                hi: (p >> 64) as u64,
                lo: p as u64,
                i: i as u32,
                group: group.get(i).map_or(0, |&g| u32::from(g)),
            };
        }
    };
    let n = v.len();
    let mut recs = vec![Rec { pri: P::default(), hi: 0, lo: 0, i: 0, group: 0 }; n];
    if par {
        let (a, b) = recs.split_at_mut(n / 2);
        std::thread::scope(|s| {
            s.spawn(|| fill(b, n / 2));
            fill(a, 0);
        });
    } else {
        fill(&mut recs, 0);
    }
    recs
}

/// The first 16 bytes of `name`'s `strxfrm` key, up to the end of its
/// first level (`buf` is scratch space).
fn strxfrm_prefix(buf: &mut Vec<u8>, name: &Name) -> [u8; 16] {
    let len = strxfrm_buf(buf, name.c_str());
    let mut b = [0u8; 16];
    // glibc ends each level of a key with byte 1 (its weights are >= 2); a
    // locale without levels (ja_JP) has none.
    let m = len.min(16);
    let m = memchr::memchr(1, &buf[..m]).unwrap_or(m);
    b[..m].copy_from_slice(&buf[..m]);
    b
}

/// Settles sorted records: sorts the runs of equal prefix with `coll` and
/// (unless the keys are `ranked`, which decide on their own) checks
/// neighbours across runs. False when a pair is out of `coll`'s order.
fn settle<P: Eq>(part: &mut [Rec<P>], ranked: bool, coll: &impl Fn(u32, u32) -> Ordering) -> bool {
    let mut tmp = Vec::new();
    let mut run: Vec<u32> = Vec::new();
    let mut start = 0;
    while start < part.len() {
        let mut end = start + 1;
        while end < part.len() && part[end].same_prefix(&part[start]) {
            end += 1;
        }
        if end - start > 1 {
            run.clear();
            run.extend(part[start..end].iter().map(|r| r.i));
            merge_sort(&mut run, &mut tmp, &|a: &u32, b: &u32| coll(*a, *b));
            for (r, &i) in part[start..end].iter_mut().zip(&run) {
                r.i = i;
            }
        }
        if start > 0 && !ranked && !in_order(&part[start - 1], &part[start], coll) {
            return false;
        }
        start = end;
    }
    true
}

/// Whether every byte of `name` is printable ASCII (what [`ascii_ranks`]
/// covers).
fn printable_ascii(name: &[u8]) -> bool {
    name.iter().all(|b| (0x20..0x7f).contains(b))
}

/// The first 16 first-level ranks of an ASCII name (see [`ascii_ranks`]):
/// characters the first level ignores are skipped, as in `strxfrm`'s
/// first level, and a shorter sequence comes first.
fn rank_key(t: &[u8; 128], name: &[u8]) -> [u8; 16] {
    let mut b = [0u8; 16];
    let mut k = 0;
    for &c in name {
        let r = t[usize::from(c & 0x7f)];
        if r != 0 {
            b[k] = r;
            k += 1;
            if k == b.len() {
                break;
            }
        }
    }
    b
}

/// Per printable ASCII character, its rank among the first-level weights
/// of the locale's collation (0: the first level ignores it): en_US ranks
/// `$`, the digits, then each letter with its capital, and ignores the
/// other punctuation and the space. Learnt from `strxfrm` of each
/// character alone. The first level of glibc's collation compares the
/// sequences of these weights, left to right, ignorable ones left out —
/// unless the locale joins characters into one collating element (cs_CZ
/// `ch`, hu_HU `cs`, da_DK `aa`, cy_GB `dd` …). So the table is checked
/// before use: for every pair of a set of names with each such pair and
/// its first letter before `z`, plus case, digit and punctuation rules,
/// names whose rank keys differ must compare the same way with `strcoll`
/// (a joined `ch` sorting after `h` puts `ch` after `cz`, the table
/// before). A locale whose keys have no levels (ja_JP) ranks whole keys.
/// `None` when the check fails: names then take `strxfrm` keys, whose
/// order `strcoll` checks. Checked on 90,000 random printable-ASCII names
/// against `strcoll` in en_US, de_DE and ja_JP. In ja_JP this also spares
/// a 10,000-name listing the two threads that shared `strxfrm` (~30
/// syscalls).
///
/// Learning it costs ~415,000 instructions (a hundred names' `strxfrm`;
/// 43 % of an en_US `lsr -l` of 12 files): a listing of `n` names learns it
/// only from [`RANKS_MIN`] names on, and takes it at any size once learnt.
fn ascii_ranks(n: usize) -> Option<&'static [u8; 128]> {
    static RANKS: std::sync::OnceLock<Option<[u8; 128]>> = std::sync::OnceLock::new();
    if n < RANKS_MIN {
        return RANKS.get().and_then(Option::as_ref);
    }
    RANKS.get_or_init(learn_ranks).as_ref()
}

/// Fewest names for which [`ascii_ranks`] learns its table.
const RANKS_MIN: usize = 128;

#[cfg_attr(ringutils_small, optimize(size))]
fn learn_ranks() -> Option<[u8; 128]> {
    let mut buf = Vec::new();
    let mut firsts: Vec<(Vec<u8>, u8)> = Vec::new();
    let mut levels = 0;
    for c in 0x20u8..0x7f {
        let s = [c, 0];
        let len = strxfrm_buf(&mut buf, CStr::from_bytes_with_nul(&s).ok()?);
        let end = memchr::memchr(1, &buf[..len]);
        levels += usize::from(end.is_some());
        let end = end.unwrap_or(len);
        if end > 0 {
            firsts.push((buf[..end].to_vec(), c));
        }
    }
    // A locale without levels (ja_JP: one weight a character, in byte
    // order) ranks by whole keys; one where only some characters' keys
    // have levels is not understood here.
    if levels != 0 && levels != 0x7f - 0x20 {
        return None;
    }
    sort_small(&mut firsts, &|a, b| a < b);
    let mut t = [0u8; 128];
    let mut rank = 0u8;
    for (k, (w, c)) in firsts.iter().enumerate() {
        if k == 0 || firsts[k - 1].0 != *w {
            rank = rank.checked_add(1)?;
        }
        t[usize::from(*c)] = rank;
    }
    let mut probe: Vec<std::ffi::CString> =
        RANK_PROBE.iter().filter_map(|n| std::ffi::CString::new(*n).ok()).collect();
    for pair in JOINED {
        // The pair, and its first letter before the last one.
        let mut z = pair.as_bytes()[..1].to_vec();
        z.push(b'z');
        probe.extend(std::ffi::CString::new(*pair).ok());
        probe.extend(std::ffi::CString::new(z).ok());
    }
    // In key order (ties by strcoll), each name must strcoll-precede the
    // next whenever their keys differ: then, strcoll being transitive,
    // every pair with different keys agrees (one pass, not every pair).
    let mut keyed: Vec<([u8; 16], &CStr)> =
        probe.iter().map(|n| (rank_key(&t, n.to_bytes()), n.as_c_str())).collect();
    sort_small(&mut keyed, &|a, b| a.0.cmp(&b.0).then_with(|| strcoll(a.1, b.1)).is_lt());
    let agrees = keyed.windows(2).all(|w| w[0].0 == w[1].0 || strcoll(w[0].1, w[1].1).is_lt());
    agrees.then_some(t)
}

/// Names the learnt ranks must order as `strcoll` does: case pairs,
/// ignorable punctuation in every position, digits against letters.
const RANK_PROBE: &[&str] = &[
    "a",
    "A",
    "b",
    "B",
    "z",
    "Z",
    "ab",
    "aB",
    "Ab",
    "a b",
    "a-b",
    "a.b",
    "a_b",
    "a~b",
    "-ab",
    ".ab",
    "ab.",
    "$",
    "$a",
    "a$",
    "0",
    "9",
    "09",
    "90",
    "a0",
    "0a",
    "1.10",
    "1.9",
    "1-9",
    "file-1.txt",
    "file-10.txt",
    "file-2.txt",
    "File-1.txt",
    ".bashrc",
    "bash",
    "_x",
    "x_",
    "README",
    "readme",
    "Makefile",
    "makefile",
    "ci",
    "h",
    "i",
    "j",
    "m",
    "u",
    "v",
    "w",
    "@",
    "#x",
    "e",
    "f",
    "k",
    "p",
    "q",
    "r",
    "s",
    "t",
    "x",
    "y",
    "AB",
    "a-B",
    "A-b",
];

/// Letter pairs some glibc locale collates as one element (Czech, Slovak,
/// Hungarian, Danish/Norwegian, Welsh, Croatian, Albanian, Breton, Dutch,
/// Spanish traditional …): with their first letter followed by `z` they
/// make [`ascii_ranks`] fail in such a locale.
const JOINED: &[&str] = &[
    "aa", "ch", "c'h", "cs", "cz", "dd", "dh", "dz", "dzs", "ff", "gj", "gy", "ij", "lj", "ll",
    "ly", "ng", "nj", "ny", "ph", "rh", "rr", "sh", "ss", "sz", "th", "ty", "xh", "zh", "zs",
];

/// `x` may precede `y` in the stable strcoll order.
fn in_order<P: Eq>(x: &Rec<P>, y: &Rec<P>, coll: &impl Fn(u32, u32) -> Ordering) -> bool {
    // Groups and primary keys are integers, put in order by the pre-sort.
    if x.group != y.group || x.pri != y.pri {
        return true;
    }
    match coll(x.i, y.i) {
        Ordering::Less => true,
        Ordering::Equal => x.i < y.i,
        Ordering::Greater => false,
    }
}

/// A stable insertion sort, for the locale probe's hundred-odd keys: std's
/// sorts are ~5 KB of code for each element type and comparator, and these
/// run once per process.
fn sort_small<T>(v: &mut [T], lt: &dyn Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && lt(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// gnulib mpsort's shape: a stable top-down merge sort whose left half is
/// the first `n / 2` elements and whose merge keeps the left element
/// unless `cmp` says Greater. The same shape makes the same comparisons'
/// outcomes decide, so even a comparator that is not a total order (one
/// GNU would also be handed) gives GNU's sequence.
pub(crate) fn merge_sort<T: Copy>(
    v: &mut [T],
    tmp: &mut Vec<T>,
    cmp: &impl Fn(&T, &T) -> Ordering,
) {
    if v.len() < 2 {
        return;
    }
    if tmp.len() < v.len() / 2 {
        tmp.clear();
        tmp.extend_from_slice(&v[..v.len() / 2]);
    }
    sort_rec(v, tmp, cmp);
}

fn sort_rec<T: Copy>(v: &mut [T], tmp: &mut [T], cmp: &impl Fn(&T, &T) -> Ordering) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let n1 = n / 2;
    {
        let (l, r) = v.split_at_mut(n1);
        sort_rec(l, tmp, cmp);
        sort_rec(r, tmp, cmp);
    }
    merge(v, n1, tmp, cmp);
}

/// Merges the sorted `v[..n1]` and `v[n1..]`, the left one moved to `tmp`.
fn merge<T: Copy>(v: &mut [T], n1: usize, tmp: &mut [T], cmp: &impl Fn(&T, &T) -> Ordering) {
    let n = v.len();
    tmp[..n1].copy_from_slice(&v[..n1]);
    let (mut a, mut b, mut o) = (0, n1, 0);
    while a < n1 && b < n {
        if cmp(&tmp[a], &v[b]) == Ordering::Greater {
            v[o] = v[b];
            b += 1;
        } else {
            v[o] = tmp[a];
            a += 1;
        }
        o += 1;
    }
    // What is left of the right half is already in place.
    v[o..o + n1 - a].copy_from_slice(&tmp[a..n1]);
}

/// [`merge_sort`] with its two top halves sorted on two cores (the same
/// comparisons, so the same result).
fn merge_sort_par<T: Copy + Send>(v: &mut [T], cmp: &(impl Fn(&T, &T) -> Ordering + Sync)) {
    let n = v.len();
    if !two_cores(n) {
        merge_sort(v, &mut Vec::new(), cmp);
        return;
    }
    let n1 = n / 2;
    let (l, r) = v.split_at_mut(n1);
    std::thread::scope(|s| {
        s.spawn(|| merge_sort(l, &mut Vec::new(), cmp));
        merge_sort(r, &mut Vec::new(), cmp);
    });
    let mut tmp = v[..n1].to_vec();
    merge(v, n1, &mut tmp, cmp);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An arbitrary comparator, not even antisymmetric: only the same
    /// comparisons in the same shape give the same answer.
    fn chaos(a: &(u8, u32), b: &(u8, u32)) -> Ordering {
        let h = (a.1.wrapping_mul(2654435761) ^ b.1.wrapping_mul(40503)).wrapping_mul(2246822519);
        (h >> 29).cmp(&3)
    }

    /// The reference: gnulib mpsort's recursion written out plainly.
    fn reference(v: &[(u8, u32)], cmp: fn(&(u8, u32), &(u8, u32)) -> Ordering) -> Vec<(u8, u32)> {
        if v.len() < 2 {
            return v.to_vec();
        }
        let n1 = v.len() / 2;
        let (l, r) = (reference(&v[..n1], cmp), reference(&v[n1..], cmp));
        let (mut a, mut b) = (0, 0);
        let mut out = Vec::new();
        while a < l.len() && b < r.len() {
            if cmp(&l[a], &r[b]) != Ordering::Greater {
                out.push(l[a]);
                a += 1;
            } else {
                out.push(r[b]);
                b += 1;
            }
        }
        out.extend_from_slice(&l[a..]);
        out.extend_from_slice(&r[b..]);
        out
    }

    #[test]
    fn merge_sort_is_stable_and_gnu_shaped() {
        let by_key = |a: &(u8, u32), b: &(u8, u32)| a.0.cmp(&b.0);
        let mut x = 12345u32;
        for n in (0..300).chain([4095, 4096, 5000, 9999]) {
            let v: Vec<(u8, u32)> = (0..n)
                .map(|i| {
                    x = x.wrapping_mul(1103515245).wrapping_add(12345);
                    (((x >> 16) % 7) as u8, i)
                })
                .collect();
            for cmp in [by_key as fn(&(u8, u32), &(u8, u32)) -> Ordering, chaos] {
                let want = reference(&v, cmp);
                let mut s = v.clone();
                merge_sort(&mut s, &mut Vec::new(), &cmp);
                assert_eq!(s, want, "n={n}");
                let mut p = v.clone();
                merge_sort_par(&mut p, &cmp);
                assert_eq!(p, want, "n={n} (two cores)");
            }
        }
    }

    #[test]
    fn sort_small_is_a_stable_sort() {
        let mut x = 777u32;
        for n in 0..200u32 {
            let v: Vec<(u8, u32)> = (0..n)
                .map(|i| {
                    x = x.wrapping_mul(1103515245).wrapping_add(12345);
                    (((x >> 16) % 5) as u8, i)
                })
                .collect();
            let mut want = v.clone();
            want.sort_by_key(|p| p.0);
            let mut got = v;
            sort_small(&mut got, &|a, b| a.0 < b.0);
            assert_eq!(got, want, "n={n}");
        }
    }
}
