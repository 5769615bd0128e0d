//! Reading one directory and stat'ing its entries through a walker
//! thread's engine (find and du, via `walk`).

use std::os::fd::{OwnedFd, RawFd};

use std::ffi::CStr;

use ringio::{dtype, Completion, DirentIter, Engine, Errno, Statx};

use crate::StatNeed;

/// One entry's name (in the listing's byte arena) and getdents facts.
#[derive(Clone, Copy)]
pub struct RawEnt {
    off: u32,
    len: u32,
    pub d_type: u8,
    pub ino: u64,
}

/// The outcome of stat'ing one path (a root operand).
#[derive(Clone, Copy)]
#[allow(clippy::large_enum_variant)]
pub enum StatSlot {
    Ok { st: Statx, followed: bool },
    Err(Errno),
}

/// The outcome of stat'ing one listed entry; the statx itself, when there
/// is one, is the entry's slot in [`Listing::stx`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    None,
    Ok { followed: bool },
    Err(Errno),
}

/// An entry's stat outcome, borrowed from its listing.
pub enum StatRef<'a> {
    None,
    Ok { st: &'a Statx, followed: bool },
    Err(Errno),
}

/// A directory's entries (or a batch of them, for a big directory read in
/// batches): names in one arena (each followed by a NUL, so it can be
/// handed to a syscall as is), no allocation per entry. The arena may be
/// getdents records the names sit in ([`Reader::read_batch`]): only the
/// entries' offsets say where names are.
#[derive(Default)]
pub struct Listing {
    pub names: Vec<u8>,
    pub ents: Vec<RawEnt>,
    /// Per entry, what its stat gave. Empty when no entry was stat'ed.
    pub outcomes: Vec<Outcome>,
    /// The statx of entry `i` when `outcomes[i]` is `Ok`. Only ever grown,
    /// never reset: the kernel writes each in place (no 256-byte copy per
    /// entry), and slots of entries not stat'ed are never read. Stays empty
    /// when nothing is stat'ed, so find without stat tests spends no memory
    /// on it.
    pub stx: Vec<Statx>,
    /// Position of `ents[0]` in the directory (batches after the first).
    pub base: usize,
}

impl Listing {
    pub fn clear(&mut self) {
        self.names.clear();
        self.ents.clear();
        self.outcomes.clear();
        self.base = 0;
    }

    /// Entry `i`'s stat outcome.
    pub fn stat(&self, i: usize) -> StatRef<'_> {
        match self.outcomes.get(i) {
            None | Some(Outcome::None) => StatRef::None,
            Some(&Outcome::Ok { followed }) => StatRef::Ok { st: &self.stx[i], followed },
            Some(&Outcome::Err(e)) => StatRef::Err(e),
        }
    }

    /// Sizes `outcomes` (all `None`) and `stx` for every entry.
    pub fn prepare_stats(&mut self) {
        let n = self.ents.len();
        self.outcomes.clear();
        self.outcomes.resize(n, Outcome::None);
        if self.stx.len() < n {
            self.stx.resize(n, ringio::sys::statx_zeroed());
        }
    }

    pub fn name(&self, i: usize) -> &[u8] {
        let e = &self.ents[i];
        &self.names[e.off as usize..(e.off + e.len) as usize]
    }

    /// The name as a C string (every name in the arena is followed by a
    /// NUL; names from getdents hold none of their own).
    fn cname<'a>(names: &'a [u8], e: &RawEnt) -> Option<&'a CStr> {
        CStr::from_bytes_with_nul(&names[e.off as usize..=(e.off + e.len) as usize]).ok()
    }

    pub fn len(&self) -> usize {
        self.ents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ents.is_empty()
    }

    /// Appends an entry as getdents would have given it.
    pub fn push(&mut self, name: &[u8], d_type: u8, ino: u64) {
        let off = self.names.len() as u32;
        self.names.extend_from_slice(name);
        self.names.push(0);
        self.ents.push(RawEnt { off, len: name.len() as u32, d_type, ino });
    }

    pub fn sort(&mut self) {
        let names = &self.names;
        self.ents.sort_unstable_by(|a, b| {
            names[a.off as usize..(a.off + a.len) as usize]
                .cmp(&names[b.off as usize..(b.off + b.len) as usize])
        });
    }
}

const STAT_MASK: u32 = libc::STATX_BASIC_STATS;

/// The entries of the getdents records that fill `out.names`, pointing
/// at their names in place. A name the kernel didn't end with a NUL inside
/// its record (no file system does; a malformed reply) is copied after the
/// records, with one, so every name can be handed to a syscall.
fn in_place_entries(out: &mut Listing) {
    let Listing { names, ents, .. } = out;
    let base = names.as_ptr() as usize;
    let mut unended: Vec<usize> = Vec::new();
    for d in DirentIter::new(names) {
        if d.is_dot_or_dotdot() {
            continue;
        }
        let off = d.name.as_ptr() as usize - base;
        if names.get(off + d.name.len()) != Some(&0) {
            unended.push(ents.len());
        }
        ents.push(RawEnt {
            off: off as u32,
            len: d.name.len() as u32,
            d_type: d.d_type,
            ino: d.ino,
        });
    }
    for i in unended {
        let e = ents[i];
        let at = names.len();
        names.extend_from_within(e.off as usize..(e.off + e.len) as usize);
        names.push(0);
        ents[i].off = at as u32;
    }
}

/// A walker thread's engine and reusable buffers.
pub struct Reader {
    pub eng: Engine,
    buf: Vec<u8>,
    done: Vec<Completion>,
    /// What each entry of the listing being stat'ed needs (kept for its capacity).
    needs: Vec<StatNeed>,
}

impl Reader {
    pub fn new(eng: Engine) -> Reader {
        Reader {
            eng,
            buf: Vec::with_capacity(ringio::DEFAULT_DENTS_BUF),
            done: Vec::new(),
            needs: Vec::new(),
        }
    }

    fn one(&mut self) -> Completion {
        self.done.clear();
        self.eng.wait(1, &mut self.done);
        self.done.pop().expect("one operation was pushed")
    }

    /// Opens a directory relative to `dirfd`; O_NOFOLLOW unless `follow`,
    /// so a symlink swapped in for a directory mid-walk is not entered.
    pub fn open_dir(&mut self, dirfd: RawFd, name: &[u8], follow: bool) -> Result<OwnedFd, Errno> {
        let flags = crate::open::dir_flags(follow);
        if let Some(r) = self.eng.open_dir_now(dirfd, name, flags) {
            return r;
        }
        self.eng.openat(0, dirfd, name, flags, 0);
        self.one().take_fd()
    }

    /// Reads every entry of the open directory `fd` (skipping `.` and `..`),
    /// whose device and size are `dev_size` when known. On a read error,
    /// what was read so far stays in `out`.
    pub fn read(
        &mut self,
        fd: RawFd,
        dev_size: Option<(u64, u64)>,
        out: &mut Listing,
        sort: bool,
    ) -> Result<(), Errno> {
        out.clear();
        let r = self.read_batch(fd, dev_size, out, usize::MAX).map(|_| ());
        if sort {
            out.sort();
        }
        r
    }

    /// Reads the next entries of the open directory `fd` into `out` (which
    /// the caller cleared), whole getdents buffers at a time, until it holds
    /// at least `max` entries or the end is reached. Returns whether the end
    /// was reached. On a read error, what was read so far stays in `out`.
    pub fn read_batch(
        &mut self,
        fd: RawFd,
        dev_size: Option<(u64, u64)>,
        out: &mut Listing,
        max: usize,
    ) -> Result<bool, Errno> {
        // The engine saves the final empty read where the file system marks
        // the end, when it can (see ringio::Engine::getdents_hinted).
        loop {
            // The first getdents of a batch fills the listing's arena
            // itself, and the entries point at the names where the kernel
            // put them (each already followed by its NUL): no copy of any
            // name (a copy an entry was 6% of a warm lfind's instructions).
            // The two buffers trade places each batch, so both keep their
            // capacity. Later reads of a big batch are copied after it.
            let in_place = out.names.is_empty();
            let mut buf = if in_place {
                std::mem::replace(&mut self.buf, std::mem::take(&mut out.names))
            } else {
                std::mem::take(&mut self.buf)
            };
            let (eof, r, buf) = match self.eng.getdents_hinted_now(fd, &mut buf, dev_size) {
                Some(r) => (r == Ok(true), r.map(|_| ()), buf),
                None => {
                    self.eng.getdents_hinted(0, fd, buf, dev_size);
                    let mut c = self.one();
                    (c.eof, c.result.map(|_| ()), c.take_buf())
                }
            };
            if in_place {
                out.names = buf;
                in_place_entries(out);
            } else {
                self.buf = buf;
                for d in DirentIter::new(&self.buf) {
                    if !d.is_dot_or_dotdot() {
                        out.push(d.name, d.d_type, d.ino);
                    }
                }
            }
            r?;
            if eof {
                return Ok(true);
            }
            if out.ents.len() >= max {
                return Ok(false);
            }
        }
    }

    /// Stats the entries `need` asks for, and lstat's those whose type
    /// getdents didn't give: one request to the engine, which makes the
    /// calls straight into the listing's slots or as one batch.
    pub fn stat(&mut self, dirfd: RawFd, list: &mut Listing, need: impl Fn(&[u8], u8) -> StatNeed) {
        list.outcomes.clear();
        if !needs(list, need, &mut self.needs) {
            return;
        }
        list.prepare_stats();
        let Listing { names, ents, outcomes, stx, .. } = list;
        for (i, e) in ents.iter().enumerate() {
            if self.needs[i] != StatNeed::None && Listing::cname(names, e).is_none() {
                outcomes[i] = Outcome::Err(Errno(libc::EINVAL));
            }
        }
        let items = ents.iter().zip(&self.needs).enumerate().filter_map(|(i, (e, &n))| {
            let follow = match n {
                StatNeed::None => return None,
                StatNeed::Lstat => false,
                StatNeed::Follow => true,
            };
            Some((i, Listing::cname(names, e)?, follow))
        });
        self.eng.stat_names(dirfd, items, (LSTAT_ENTRY, FOLLOW), STAT_MASK, stx, |i, r| {
            outcomes[i] = match r {
                Ok(followed) => Outcome::Ok { followed },
                Err(e) => Outcome::Err(e),
            }
        });
    }

    /// [`Reader::stat`] where nothing is needed but the types getdents
    /// didn't give: usually none, which one pass over the types tells
    /// without asking per entry.
    pub fn stat_unknown_types(&mut self, dirfd: RawFd, list: &mut Listing) {
        if list.ents.iter().any(|e| e.d_type == dtype::UNKNOWN) {
            self.stat(dirfd, list, |_, _| StatNeed::None);
        } else {
            list.outcomes.clear();
        }
    }

    /// Stats one path (a root operand). A dangling symlink under `follow`
    /// falls back to the link itself, as find -H/-L do.
    pub fn stat_path(&mut self, path: &[u8], follow: bool) -> StatSlot {
        let flags = if follow { FOLLOW } else { ROOT_LSTAT };
        self.eng.statx(0, libc::AT_FDCWD, path, flags, STAT_MASK);
        match self.one().stat() {
            Ok(st) => StatSlot::Ok { st: *st, followed: follow },
            Err(e) if follow && e == Errno::ENOENT => {
                self.eng.statx(0, libc::AT_FDCWD, path, ROOT_LSTAT, STAT_MASK);
                match self.one().stat() {
                    Ok(st) if dtype::from_mode(st.stx_mode as u32) == dtype::LNK => {
                        StatSlot::Ok { st: *st, followed: false }
                    }
                    _ => StatSlot::Err(e),
                }
            }
            Err(e) => StatSlot::Err(e),
        }
    }
}

/// What to stat for each entry: `need`, with entries of unknown type
/// lstat'ed (the walker must know which are directories). Returns whether
/// any entry needs a stat.
pub fn needs(
    list: &Listing,
    need: impl Fn(&[u8], u8) -> StatNeed,
    out: &mut Vec<StatNeed>,
) -> bool {
    out.clear();
    let mut any = false;
    out.extend(list.ents.iter().map(|e| {
        let name = &list.names[e.off as usize..(e.off + e.len) as usize];
        let n = match need(name, e.d_type) {
            StatNeed::None if e.d_type == dtype::UNKNOWN => StatNeed::Lstat,
            n => n,
        };
        any |= n != StatNeed::None;
        n
    }));
    any
}

/// Stats `ents` (names in `names`) as `needs` says, inline: outcomes into
/// `out`, each statx straight into its slot of `stx`.
pub fn stat_range(
    dirfd: RawFd,
    names: &[u8],
    ents: &[RawEnt],
    needs: &[StatNeed],
    out: &mut [Outcome],
    stx: &mut [Statx],
) {
    for (((e, &n), slot), st) in ents.iter().zip(needs).zip(out.iter_mut()).zip(stx.iter_mut()) {
        let follow = match n {
            StatNeed::None => continue,
            StatNeed::Lstat => false,
            StatNeed::Follow => true,
        };
        let Some(cname) = Listing::cname(names, e) else {
            *slot = Outcome::Err(Errno(libc::EINVAL));
            continue;
        };
        let flags = if follow { FOLLOW } else { LSTAT_ENTRY };
        // One statx in a few is timed (two vDSO clock reads, no syscall):
        // the engine's cold-cache detector raises the walk's depth when
        // statx turns device-slow.
        let timer = ringio::cold::sample();
        let first = ringio::sys::statx(dirfd, cname, flags, STAT_MASK, st);
        timer.stats(1);
        *slot = match first {
            Ok(()) => Outcome::Ok { followed: follow },
            // A dangling symlink under Follow is reported as itself.
            Err(err) if follow && err == Errno::ENOENT => {
                match ringio::sys::statx(dirfd, cname, LSTAT_ENTRY, STAT_MASK, st) {
                    Ok(()) => Outcome::Ok { followed: false },
                    Err(err) => Outcome::Err(err),
                }
            }
            Err(err) => Outcome::Err(err),
        };
    }
}

use crate::open::{FOLLOW, LSTAT_ENTRY, ROOT_LSTAT};

#[cfg(test)]
mod tests {
    use super::*;

    /// A linux_dirent64 record of `name`: padded to 8 bytes after a NUL,
    /// or, `ended` false, a malformed one whose name runs to its end.
    fn record(buf: &mut Vec<u8>, name: &[u8], ended: bool) {
        let len = if ended { (19 + name.len() + 1).next_multiple_of(8) } else { 19 + name.len() };
        let start = buf.len();
        buf.extend_from_slice(&7u64.to_ne_bytes());
        buf.extend_from_slice(&0i64.to_ne_bytes());
        buf.extend_from_slice(&(len as u16).to_ne_bytes());
        buf.push(dtype::REG);
        buf.extend_from_slice(name);
        buf.resize(start + len, 0);
    }

    #[test]
    fn names_stay_where_getdents_put_them_each_with_its_nul() {
        let mut l = Listing::default();
        for (n, ended) in [(&b"."[..], true), (b"..", true), (b"one", true), (b"longer-name", true)]
        {
            record(&mut l.names, n, ended);
        }
        record(&mut l.names, b"no-nul", false);
        record(&mut l.names, b"last", true);
        let records = l.names.len();
        in_place_entries(&mut l);
        let names: Vec<&[u8]> = (0..l.len()).map(|i| l.name(i)).collect();
        assert_eq!(names, [&b"one"[..], b"longer-name", b"no-nul", b"last"]);
        // In place: the names point into the records; only the malformed
        // one was copied, after them, with a NUL.
        assert!(l.ents[0].off < 32 * 2 + 19 + 8);
        assert_eq!(l.ents[2].off as usize, records);
        assert_eq!(l.names.len(), records + b"no-nul".len() + 1);
        for e in &l.ents {
            let c = Listing::cname(&l.names, e).unwrap();
            assert_eq!(c.to_bytes().len(), e.len as usize);
        }
    }

    #[test]
    fn listing_names_sort_and_stats() {
        let mut l = Listing::default();
        for n in [&b"b"[..], b"a", b"\xff", b"ab"] {
            l.push(n, dtype::REG, 1);
        }
        assert_eq!(l.len(), 4);
        assert_eq!(l.name(2), b"\xff");
        l.sort();
        let names: Vec<&[u8]> = (0..l.len()).map(|i| l.name(i)).collect();
        assert_eq!(names, [&b"a"[..], b"ab", b"b", b"\xff"]);
        // Nothing stat'ed: every entry says so, and no statx is kept.
        assert!(matches!(l.stat(0), StatRef::None));
        assert!(l.stx.is_empty());
        l.prepare_stats();
        assert_eq!(l.outcomes, vec![Outcome::None; 4]);
        assert_eq!(l.stx.len(), 4);
        l.outcomes[1] = Outcome::Err(Errno::ENOENT);
        assert!(matches!(l.stat(1), StatRef::Err(e) if e == Errno::ENOENT));
        l.base = 7;
        l.clear();
        assert_eq!((l.len(), l.base, l.outcomes.len()), (0, 0, 0));
        // The statx slots are kept for the next batch.
        assert_eq!(l.stx.len(), 4);
    }

    #[test]
    fn stat_range_follows_as_asked() {
        let s = crate::testing::Scratch::new("reader");
        std::fs::write(s.join("f"), b"12345").unwrap();
        std::os::unix::fs::symlink("f", s.join("ln")).unwrap();
        std::os::unix::fs::symlink("nowhere", s.join("dangling")).unwrap();
        let mut l = Listing::default();
        for n in ["f", "ln", "ln", "dangling", "gone", "f"] {
            l.push(n.as_bytes(), dtype::UNKNOWN, 0);
        }
        let needs = [
            StatNeed::Lstat,
            StatNeed::Lstat,
            StatNeed::Follow,
            StatNeed::Follow,
            StatNeed::Lstat,
            StatNeed::None,
        ];
        let dir = std::fs::File::open(&s.0).unwrap();
        use std::os::fd::AsRawFd;
        l.prepare_stats();
        let Listing { names, ents, outcomes, stx, .. } = &mut l;
        stat_range(dir.as_raw_fd(), names, ents, &needs, outcomes, stx);
        let kind = |i: usize| l.stx[i].stx_mode as u32 & libc::S_IFMT;
        assert_eq!(l.outcomes[0], Outcome::Ok { followed: false });
        assert_eq!((kind(0), l.stx[0].stx_size), (libc::S_IFREG, 5));
        assert_eq!(l.outcomes[1], Outcome::Ok { followed: false });
        assert_eq!(kind(1), libc::S_IFLNK);
        assert_eq!(l.outcomes[2], Outcome::Ok { followed: true });
        assert_eq!(kind(2), libc::S_IFREG);
        // A dangling link under Follow is reported as itself.
        assert_eq!(l.outcomes[3], Outcome::Ok { followed: false });
        assert_eq!(kind(3), libc::S_IFLNK);
        assert_eq!(l.outcomes[4], Outcome::Err(Errno::ENOENT));
        assert_eq!(l.outcomes[5], Outcome::None);
    }
}
