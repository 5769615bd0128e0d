//! Orderings of entries: GNU's comparators, with ties broken by name, `-r`
//! reversing the whole comparison, and `--group-directories-first` in front.
//! Here in byte order (C, POSIX, C.UTF-8, and `-v` everywhere); in other
//! locales names compare with `strcoll` (collate.rs).

use std::cmp::Ordering;

use crate::args::{Sort, TimeKind};
use cli::timefmt::Timestamp;

use crate::entry::{Entry, FileType};

/// The timestamp `kind` of an entry (epoch when unknown).
pub(crate) fn time_of(e: &Entry, kind: TimeKind) -> Timestamp {
    let Some(m) = &e.meta else { return Timestamp::default() };
    match kind {
        TimeKind::Mtime => m.mtime(),
        TimeKind::Atime => m.atime(),
        TimeKind::Ctime => m.ctime(),
        TimeKind::Birth => m.btime().unwrap_or_default(),
    }
}

fn extension(name: &[u8]) -> &[u8] {
    &name[extension_at(name)..]
}

/// Where `-X`'s extension starts: at the last `.`, or at the end.
pub(crate) fn extension_at(name: &[u8]) -> usize {
    memchr::memrchr(b'.', name).unwrap_or(name.len())
}

/// What a listing is ordered by: the key, the time `--sort=time` compares,
/// reversed or not, directories first or not.
#[derive(Clone, Copy, Debug)]
pub struct SortBy {
    pub key: Sort,
    pub time: TimeKind,
    pub reverse: bool,
    pub dirs_first: bool,
}

/// Directories (and links to them) first, for --group-directories-first.
pub(crate) fn dir_like(e: &Entry) -> bool {
    match e.file_type() {
        FileType::Dir => true,
        FileType::Link => e.target_mode.is_some_and(|m| m & libc::S_IFMT == libc::S_IFDIR),
        _ => false,
    }
}

/// Sorts `v` in place (the tests' way to see an order applied). `width`
/// gives the display width of a name, for `--sort=width`.
#[cfg(test)]
fn sort_entries(v: &mut [Entry], by: SortBy, width: &dyn Fn(&Entry) -> usize) {
    order_entries(v, by, width).apply(v);
}

/// The order to show a listing's entries in, as sorting them in place would
/// leave them, without moving them: a long listing is printed through it
/// ([`Order::at`]). Moving every ~200-byte entry to its place was a third
/// of a 100,000-entry `lsr -al`'s user time, on one core after every
/// stat; printed through the order, the same scattered reads are shared
/// by the formatting threads (see `long::print`).
#[derive(Debug)]
pub struct Order(Kind);

#[derive(Debug)]
enum Kind {
    /// The entries are in order already.
    Identity,
    Idx(Vec<u32>),
    Keyed(Vec<Keyed>),
}

impl Order {
    /// The index of the entry shown at position `k`.
    pub fn at(&self, k: usize) -> usize {
        match &self.0 {
            Kind::Identity => k,
            Kind::Idx(v) => v[k] as usize,
            Kind::Keyed(v) => v[k].idx as usize,
        }
    }

    /// Whether every entry is shown where it is.
    pub fn is_identity(&self) -> bool {
        matches!(self.0, Kind::Identity)
    }

    /// The order of entries sorted already.
    pub fn identity() -> Order {
        Order(Kind::Identity)
    }

    /// Moves the entries of `v` into this order.
    pub fn apply<T>(self, v: &mut [T]) {
        match self.0 {
            Kind::Identity => {}
            Kind::Idx(mut idx) => apply_permutation(v, &mut idx[..]),
            Kind::Keyed(mut keyed) => apply_permutation(v, &mut keyed[..]),
        }
    }
}

/// The order `v`'s entries go in.
pub fn order_entries(v: &[Entry], by: SortBy, width: &dyn Fn(&Entry) -> usize) -> Order {
    let SortBy { key, time, reverse, dirs_first } = by;
    if key == Sort::None {
        if dirs_first {
            // Stable: the directory order within each group. Two passes,
            // not a sort (a sort by key was 13 KB of lsr for this alone).
            let dirs = (0..v.len() as u32).filter(|&i| dir_like(&v[i as usize]));
            let rest = (0..v.len() as u32).filter(|&i| !dir_like(&v[i as usize]));
            return Order(Kind::Idx(dirs.chain(rest).collect()));
        }
        return Order(Kind::Identity);
    }
    if key != Sort::Version && !cli::locale::info().collate_bytes {
        let idx = crate::collate::order(v, by, width);
        return Order(Kind::Idx(idx));
    }
    let cmp = |a: &Entry, b: &Entry| -> Ordering {
        let by_name = || a.name.cmp(&b.name);
        let o = match key {
            Sort::Name | Sort::None => by_name(),
            Sort::Time => time_of(b, time).cmp(&time_of(a, time)).then_with(by_name),
            Sort::Size => {
                let sa = a.meta.map_or(0, |m| m.size);
                let sb = b.meta.map_or(0, |m| m.size);
                sb.cmp(&sa).then_with(by_name)
            }
            Sort::Extension => extension(&a.name).cmp(extension(&b.name)).then_with(by_name),
            Sort::Version => filevercmp(&a.name, &b.name).then_with(by_name),
            Sort::Width => width(a).cmp(&width(b)).then_with(by_name),
        };
        if reverse {
            o.reverse()
        } else {
            o
        }
    };
    // Sort indices, not the ~200-byte entries, then move each entry once.
    if key == Sort::Name && !dirs_first {
        // Most comparisons are settled by 12 bytes of the name kept next to
        // the index: the sort then rarely touches the entries (`lsr -1` of
        // 100,000 names: 67 -> 60 ms, user time 31 -> 20). The 12 bytes
        // start after the prefix every name shares (a million
        // `entry-00xxxxxx` share 8), so they still tell names apart, in 16
        // bytes per entry where a 16-byte prefix and its index took 32:
        // this array is the largest thing alive besides the entries when
        // a million-entry `-l` peaks.
        let skip = common_prefix(v);
        let mut keyed: Vec<Keyed> =
            v.iter().enumerate().map(|(i, e)| Keyed::new(&e.name[skip..], i as u32)).collect();
        // One sort call for both directions (each is an instantiation of
        // std's sort, ~11 KB): reversed after. Entries that compare equal
        // have the same name (an operand given twice), so which of them
        // comes first can't be seen. A comparator that swaps its arguments
        // when reversed cost 6% of `lsr -1`'s instructions.
        keyed.sort_unstable_by(|x, y| {
            x.key().cmp(&y.key()).then_with(|| v[x.idx as usize].name.cmp(&v[y.idx as usize].name))
        });
        if reverse {
            keyed.reverse();
        }
        return Order(Kind::Keyed(keyed));
    }
    let mut idx: Vec<u32> = (0..v.len() as u32).collect();
    // One sort call, with or without the groups, through the merge sort
    // the locales' orders use: each std sort call is another ~8 KB of lsr.
    let dl: Vec<bool> = if dirs_first { v.iter().map(dir_like).collect() } else { Vec::new() };
    crate::collate::merge_sort(&mut idx, &mut Vec::new(), &|&a: &u32, &b: &u32| {
        let (a, b) = (a as usize, b as usize);
        let group = if dirs_first { dl[b].cmp(&dl[a]) } else { Ordering::Equal };
        group.then_with(|| cmp(&v[a], &v[b]))
    });
    Order(Kind::Idx(idx))
}

/// Bytes every entry's name starts with (0 for fewer than two entries:
/// nothing to skip).
fn common_prefix(v: &[Entry]) -> usize {
    let Some((first, rest)) = v.split_first() else { return 0 };
    let mut n = if rest.is_empty() { 0 } else { first.name.len() };
    for e in rest {
        n = first.name[..n].iter().zip(e.name.iter()).take_while(|(a, b)| a == b).count();
        if n == 0 {
            break;
        }
    }
    n
}

/// An entry's index with 12 bytes of its name, big-endian, zero-padded:
/// names hold no NUL, so zero padding orders a name before its extensions,
/// as byte comparison does.
#[derive(Clone, Copy, Debug)]
struct Keyed {
    hi: u64,
    lo: u32,
    idx: u32,
}

impl Keyed {
    fn new(name: &[u8], idx: u32) -> Keyed {
        let mut b = [0u8; 12];
        let n = name.len().min(12);
        b[..n].copy_from_slice(&name[..n]);
        let hi = u64::from_be_bytes(b[..8].try_into().expect("8 bytes"));
        let lo = u32::from_be_bytes(b[8..].try_into().expect("4 bytes"));
        Keyed { hi, lo, idx }
    }

    fn key(&self) -> (u64, u32) {
        (self.hi, self.lo)
    }
}

/// A permutation being applied: slot `i` says which old position goes to
/// position `i`.
trait Permutation {
    fn len(&self) -> usize;
    fn get(&self, i: usize) -> usize;
    fn set(&mut self, i: usize, to: usize);
}

impl Permutation for [u32] {
    fn len(&self) -> usize {
        <[u32]>::len(self)
    }
    fn get(&self, i: usize) -> usize {
        self[i] as usize
    }
    fn set(&mut self, i: usize, to: usize) {
        self[i] = to as u32;
    }
}

impl Permutation for [Keyed] {
    fn len(&self) -> usize {
        <[Keyed]>::len(self)
    }
    fn get(&self, i: usize) -> usize {
        self[i].idx as usize
    }
    fn set(&mut self, i: usize, to: usize) {
        self[i].idx = to as u32;
    }
}

/// Reorders `v` so that `v[i]` becomes the old `v[idx[i]]`, by following
/// the permutation's cycles (each entry moves once; `idx` is consumed).
fn apply_permutation<T, P: Permutation + ?Sized>(v: &mut [T], idx: &mut P) {
    debug_assert_eq!(v.len(), idx.len());
    for start in 0..v.len() {
        let mut cur = start;
        while idx.get(cur) != start {
            let next = idx.get(cur);
            v.swap(cur, next);
            idx.set(cur, cur);
            cur = next;
        }
        idx.set(cur, cur);
    }
}

/// Length of the part of `s` before its file suffix, the longest trailing
/// run of `.` + letter/`~` + letters/digits/`~` groups. The scan may start
/// at the first byte, so a hidden name that is all suffix (`.c`, `.b~`)
/// has an empty prefix and sorts before one that isn't (`.b,`), as GNU's
/// `ls -v` and `sort -V` order them (a non-hidden name can't start with
/// a suffix: its first byte is not a `.`).
fn prefix_len(s: &[u8]) -> usize {
    let n = s.len();
    let mut prefix = 0;
    let mut i = 0;
    loop {
        while i + 1 < n && s[i] == b'.' && (s[i + 1].is_ascii_alphabetic() || s[i + 1] == b'~') {
            i += 2;
            while i < n && (s[i].is_ascii_alphanumeric() || s[i] == b'~') {
                i += 1;
            }
        }
        if i >= n {
            return prefix;
        }
        i += 1;
        prefix = i;
    }
}

fn order(s: &[u8], pos: usize) -> i32 {
    match s.get(pos) {
        None => -1,
        Some(&c) if c.is_ascii_digit() => 0,
        Some(&c) if c.is_ascii_alphabetic() => c as i32,
        Some(b'~') => -2,
        Some(&c) => c as i32 + 256,
    }
}

/// Debian-style comparison of version strings.
fn verrevcmp(a: &[u8], b: &[u8]) -> i32 {
    let digit = |s: &[u8], p: usize| s.get(p).is_some_and(|c| c.is_ascii_digit());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let mut first_diff = 0;
        while (i < a.len() && !digit(a, i)) || (j < b.len() && !digit(b, j)) {
            let (ca, cb) = (order(a, i), order(b, j));
            if ca != cb {
                return ca - cb;
            }
            i += 1;
            j += 1;
        }
        while a.get(i) == Some(&b'0') {
            i += 1;
        }
        while b.get(j) == Some(&b'0') {
            j += 1;
        }
        while digit(a, i) && digit(b, j) {
            if first_diff == 0 {
                first_diff = a[i] as i32 - b[j] as i32;
            }
            i += 1;
            j += 1;
        }
        if digit(a, i) {
            return 1;
        }
        if digit(b, j) {
            return -1;
        }
        if first_diff != 0 {
            return first_diff;
        }
    }
    0
}

/// Version ordering of file names, as `ls -v` and `sort -V` use it.
pub fn filevercmp(a: &[u8], b: &[u8]) -> Ordering {
    let r = filevercmp_i(a, b);
    r.cmp(&0)
}

fn filevercmp_i(a: &[u8], b: &[u8]) -> i32 {
    if a.is_empty() {
        return -i32::from(!b.is_empty());
    }
    if b.is_empty() {
        return 1;
    }
    if a[0] == b'.' {
        if b[0] != b'.' {
            return -1;
        }
        let (adot, bdot) = (a.len() == 1, b.len() == 1);
        if adot {
            return -i32::from(!bdot);
        }
        if bdot {
            return 1;
        }
        let (add, bdd) = (a == b"..", b == b"..");
        if add {
            return -i32::from(!bdd);
        }
        if bdd {
            return 1;
        }
    } else if b[0] == b'.' {
        return 1;
    }
    let (ap, bp) = (prefix_len(a), prefix_len(b));
    let one_pass = ap == a.len() && bp == b.len();
    let r = verrevcmp(&a[..ap], &b[..bp]);
    if r != 0 || one_pass {
        r
    } else {
        verrevcmp(a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_order() {
        let mut v: Vec<&[u8]> = vec![
            b"a10",
            b"a2",
            b"a1.tar.gz",
            b"a1",
            b".x",
            b"..",
            b".",
            b"b~",
            b"b",
            b"1.10",
            b"1.9",
        ];
        v.sort_by(|a, b| filevercmp(a, b).then_with(|| a.cmp(b)));
        let want: Vec<&[u8]> = vec![
            b".",
            b"..",
            b".x",
            b"1.9",
            b"1.10",
            b"a1",
            b"a1.tar.gz",
            b"a2",
            b"a10",
            b"b~",
            b"b",
        ];
        assert_eq!(v, want);
    }

    #[test]
    fn keys_order_like_bytes() {
        let names: [&[u8]; 10] = [
            b"a",
            b"ab",
            b"abcdefghijkl",
            b"abcdefghijklm",
            b"abcdefghijkln",
            b"abcdefghijk\xff",
            b"\x01",
            b"\xff\xfe",
            b"B",
            b"abcdefgh\x80",
        ];
        for x in names {
            for y in names {
                let k = Keyed::new(x, 0).key().cmp(&Keyed::new(y, 0).key());
                if k != Ordering::Equal {
                    assert_eq!(k, x.cmp(y), "{x:?} {y:?}");
                } else {
                    assert!(x.len() >= 12 && y.len() >= 12 || x == y, "{x:?} {y:?}");
                }
            }
        }
    }

    #[test]
    fn names_sharing_a_long_prefix_sort_by_what_follows() {
        let names = ["entry-00000010", "entry-00000002", "entry-0000000", "entry-00000001x"];
        let mut v: Vec<Entry> = names.iter().map(|n| Entry::new(n.as_bytes(), 0, 0)).collect();
        assert_eq!(common_prefix(&v), 12);
        let by =
            SortBy { key: Sort::Name, time: TimeKind::Mtime, reverse: false, dirs_first: false };
        sort_entries(&mut v, by, &|_| 0);
        let got: Vec<&[u8]> = v.iter().map(|e| &e.name[..]).collect();
        let mut want: Vec<&[u8]> = names.iter().map(|n| n.as_bytes()).collect();
        want.sort();
        assert_eq!(got, want);
        sort_entries(&mut v, SortBy { reverse: true, ..by }, &|_| 0);
        want.reverse();
        assert_eq!(v.iter().map(|e| &e.name[..]).collect::<Vec<_>>(), want);
    }

    #[test]
    fn permutation_applies() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        let mut idx = [3u32, 0, 4, 1, 2];
        apply_permutation(&mut v, &mut idx[..]);
        assert_eq!(v, vec!['d', 'a', 'e', 'b', 'c']);
    }

    #[test]
    fn ext_of_dotfile_is_whole_name() {
        assert_eq!(extension(b".bashrc"), b".bashrc");
        assert_eq!(extension(b"a.b.c"), b".c");
        assert_eq!(extension(b"abc"), b"");
    }
}
