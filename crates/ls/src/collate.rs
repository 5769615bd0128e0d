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
//!    most names in place. Only the first level: glibc's keys disagree
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

use crate::args::{Sort, TimeKind};
use crate::entry::Entry;
use crate::sort::{dir_like, extension_at, time_of};

/// Below this many entries one thread does it all (a thread costs ~30 µs;
/// 4096 names take ~1.5 ms of `strxfrm`).
const PARALLEL_MIN: usize = 4096;

fn two_cores(n: usize) -> bool {
    n >= PARALLEL_MIN && ringio::sys::available_cpus() >= 2
}

/// The order (indices into `v`) GNU ls lists `v` in, for every key but
/// `-U` and `-v` (which are locale-independent).
pub fn order(
    v: &[Entry],
    key: Sort,
    time: TimeKind,
    reverse: bool,
    dirs_first: bool,
    width: &dyn Fn(&Entry) -> usize,
) -> Vec<u32> {
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
        Sort::Size => keyed_order(v, reverse, &group, |i| (!size(i), 0)),
        Sort::Width => keyed_order(v, reverse, &group, |i| (widths[i] as u64, 0)),
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
    let fill = |out: &mut [Rec<P>], start: usize| {
        let mut buf = Vec::new();
        for (k, r) in out.iter_mut().enumerate() {
            let i = start + k;
            let len = strxfrm_buf(&mut buf, v[i].name.c_str());
            let mut b = [0u8; 16];
            // glibc ends each level of a key with byte 1 (its weights are
            // >= 2); a locale without levels (ja_JP) has none.
            let m = len.min(16);
            let m = memchr::memchr(1, &buf[..m]).unwrap_or(m);
            b[..m].copy_from_slice(&buf[..m]);
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
    let mut recs = vec![Rec { pri: P::default(), hi: 0, lo: 0, i: 0, group: 0 }; n];
    if two_cores(n) {
        let (a, b) = recs.split_at_mut(n / 2);
        std::thread::scope(|s| {
            s.spawn(|| fill(b, n / 2));
            fill(a, 0);
        });
    } else {
        fill(&mut recs, 0);
    }
    // Keys of equal prefix stay in directory order (the index decides).
    crate::sort::sort_on_two_cores(&mut recs, |x, y| {
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
    // Settles recs[..]: sorts runs of equal prefix with strcoll and checks
    // neighbours across runs. False when a pair is out of strcoll order.
    let settle = |part: &mut [Rec<P>]| -> bool {
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
            if start > 0 && !in_order(&part[start - 1], &part[start], &coll) {
                return false;
            }
            start = end;
        }
        true
    };
    let ok = if two_cores(n) {
        // Split at a run boundary near the middle; the pair across the
        // split is checked after both halves are settled.
        let mut mid = n / 2;
        while mid < n && recs[mid].same_prefix(&recs[mid - 1]) {
            mid += 1;
        }
        let (a, b) = recs.split_at_mut(mid);
        let (ok_a, ok_b) = std::thread::scope(|s| {
            let h = s.spawn(|| settle(b));
            let ok_a = settle(a);
            (ok_a, h.join().unwrap_or(false))
        });
        ok_a && ok_b && (mid == n || in_order(&recs[mid - 1], &recs[mid], &coll))
    } else {
        settle(&mut recs)
    };
    ok.then(|| recs.iter().map(|r| r.i).collect())
}

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
}
