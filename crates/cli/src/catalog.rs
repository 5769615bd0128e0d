//! GNU message catalogs (`.mo` files) read here rather than by glibc's
//! `dcgettext`, for the common case where that gives the same answer with
//! fewer system calls.
//!
//! glibc looks for a catalog under six spellings of the locale's name in
//! each category it is asked about (`de_DE.UTF-8`, `de_DE.utf8`, `de_DE`,
//! `de.UTF-8`, `de.utf8`, `de`), one failing `openat` each, separately for
//! LC_TIME (ls's time formats) and LC_MESSAGES, and then loads its charset
//! converter for the catalog: about 30 system calls of the ~110 that
//! `lsr -al` makes in a translated UTF-8 locale. Here one listing of the
//! catalog directory says which spellings exist, and only those are opened.
//!
//! The answer is glibc's: the same candidate names in the same order, the
//! first catalog that has the message wins (glibc's "successor" chain), a
//! plural entry answers with its first form, and no catalog means the
//! msgid. Whatever this module can't answer the same way it hands back to
//! glibc ([`Answer::AskLibc`]): a `LANGUAGE` list, an LC_CTYPE whose
//! charset is not UTF-8 (glibc converts the text to it; the caller checks),
//! a locale whose codeset is not UTF-8 (glibc may convert the catalog's text, and its alias table has
//! keys with legacy codesets such as `no_NO.ISO-8859-1`; it has none with a
//! UTF-8 codeset, so a UTF-8 name with no catalog needs no alias lookup), a
//! catalog in another charset, or a file that isn't a valid catalog.
//!
//! It sits here, with the tools' other locale policy, and not in libcw's
//! `translate`: that one is also what the out-of-memory exit calls, which
//! must not allocate through the tools' allocator nor take a lock.

use std::ffi::{c_int, CStr, CString};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::sync::{Mutex, OnceLock};

use ringio::DirentIter;

/// What the own lookup found for a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// A catalog's translation.
    Found(&'static [u8]),
    /// No catalog has it: the msgid stands, as with glibc.
    Absent,
    /// Not a case this module answers as glibc would: call `dcgettext`.
    AskLibc,
}

/// The directory and domain the tool bound its catalogs to.
static BOUND: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();

/// Binds the default domain's catalogs (the first binding wins: the tools
/// bind once, at start-up).
pub(crate) fn bind(dir: &CStr, domain: &CStr) {
    let _ = BOUND.set((dir.to_bytes().to_vec(), domain.to_bytes().to_vec()));
}

/// The bound domain's translation of `msgid` under `category` (LC_TIME or
/// LC_MESSAGES), whose locale is `locale` (the name setlocale gave it).
/// The caller has checked that LC_CTYPE's charset is UTF-8.
pub(crate) fn find(category: c_int, locale: &[u8], msgid: &[u8]) -> Answer {
    let Some((dir, domain)) = BOUND.get() else {
        return Answer::AskLibc;
    };
    let mut state = ringio::sync::lock(&STATE);
    let state = &mut *state;
    let i = match state.chains.iter().position(|c| c.category == category && c.locale == locale) {
        Some(i) => i,
        None => {
            let chain = Chain::new(category, locale, dir, &mut state.listing);
            state.chains.push(chain);
            state.chains.len() - 1
        }
    };
    state.chains[i].find(dir, domain, msgid)
}

/// The catalogs found so far, per (category, locale).
struct State {
    /// The names in the catalog directory; `Some(None)` when it can't be
    /// read (then glibc decides).
    listing: Option<Option<Vec<Vec<u8>>>>,
    chains: Vec<Chain>,
}

static STATE: Mutex<State> = Mutex::new(State { listing: None, chains: Vec::new() });

/// One category's candidate catalogs, most specific first, opened as a
/// message is missing from the ones before (glibc's successor chain).
struct Chain {
    category: c_int,
    locale: Vec<u8>,
    /// Candidate names present in the directory, not opened yet, in order.
    pending: Vec<Vec<u8>>,
    loaded: Vec<Catalog>,
    /// A catalog this module can't read as glibc would: glibc answers.
    unsure: bool,
}

impl Chain {
    /// The chain of `locale`'s catalogs for `category`: the candidate
    /// spellings that the catalog directory (listed the first time, into
    /// `listing`) holds. Unsure from the start where glibc must answer.
    fn new(
        category: c_int,
        locale: &[u8],
        dir: &[u8],
        listing: &mut Option<Option<Vec<Vec<u8>>>>,
    ) -> Chain {
        let mut chain = Chain {
            category,
            locale: locale.to_vec(),
            pending: Vec::new(),
            loaded: Vec::new(),
            unsure: true,
        };
        let names = match (category_dir(category), candidates(locale)) {
            (Some(_), Some(names)) if !libcw::locale::language_set() => names,
            _ => return chain,
        };
        let Some(listed) = listing.get_or_insert_with(|| list_dir(dir)) else {
            return chain;
        };
        chain.pending = names.into_iter().filter(|n| listed.contains(n)).collect();
        chain.unsure = false;
        chain
    }

    fn find(&mut self, dir: &[u8], domain: &[u8], msgid: &[u8]) -> Answer {
        let Some(sub) = category_dir(self.category) else {
            return Answer::AskLibc;
        };
        let mut i = 0;
        loop {
            if self.unsure {
                return Answer::AskLibc;
            }
            if let Some(cat) = self.loaded.get(i) {
                if let Some(t) = cat.get(msgid) {
                    return Answer::Found(t);
                }
                i += 1;
                continue;
            }
            if self.pending.is_empty() {
                return Answer::Absent;
            }
            let name = self.pending.remove(0);
            let mut path = dir.to_vec();
            for part in [&name[..], sub.as_bytes(), domain] {
                path.push(b'/');
                path.extend_from_slice(part);
            }
            path.extend_from_slice(b".mo");
            match Catalog::open(&path) {
                Opened::Missing => {}
                Opened::Unusable => self.unsure = true,
                Opened::Ok(cat) => self.loaded.push(cat),
            }
        }
    }
}

/// The directory below a locale's where glibc looks for `category`'s
/// catalogs, for the two categories the tools translate under.
fn category_dir(category: c_int) -> Option<&'static str> {
    match category {
        libc::LC_MESSAGES => Some("LC_MESSAGES"),
        libc::LC_TIME => Some("LC_TIME"),
        _ => None,
    }
}

/// glibc's candidate names for a locale name, most specific first
/// (`language[_territory][.codeset][@modifier]`, the codeset also in its
/// normalised spelling), or `None` when the name is not one this module
/// answers for (see the module comment).
fn candidates(locale: &[u8]) -> Option<Vec<Vec<u8>>> {
    if locale.is_empty() || locale.contains(&b'/') || locale == b"C" || locale == b"POSIX" {
        return None;
    }
    let (rest, modifier) = split_at_byte(locale, b'@');
    let (rest, codeset) = split_at_byte(rest, b'.');
    let (language, territory) = split_at_byte(rest, b'_');
    let codeset = codeset?;
    if language.is_empty() || !language.iter().all(u8::is_ascii_alphanumeric) {
        return None;
    }
    let norm = normalize_codeset(codeset);
    if norm != b"utf8" {
        return None;
    }
    const NORM: u8 = 1;
    const CODESET: u8 = 2;
    const TERRITORY: u8 = 4;
    const MODIFIER: u8 = 8;
    let mut mask = CODESET;
    if norm != codeset {
        mask |= NORM;
    }
    if territory.is_some() {
        mask |= TERRITORY;
    }
    if modifier.is_some() {
        mask |= MODIFIER;
    }
    let mut out = Vec::new();
    for bits in (0..=mask).rev() {
        if bits & !mask != 0 || (bits & CODESET != 0 && bits & NORM != 0) {
            continue;
        }
        let mut n = language.to_vec();
        if let (true, Some(t)) = (bits & TERRITORY != 0, territory) {
            n.push(b'_');
            n.extend_from_slice(t);
        }
        if bits & CODESET != 0 {
            n.push(b'.');
            n.extend_from_slice(codeset);
        } else if bits & NORM != 0 {
            n.push(b'.');
            n.extend_from_slice(&norm);
        }
        if let (true, Some(m)) = (bits & MODIFIER != 0, modifier) {
            n.push(b'@');
            n.extend_from_slice(m);
        }
        out.push(n);
    }
    Some(out)
}

/// `s` split at the first `sep`: before it, and after it if present.
fn split_at_byte(s: &[u8], sep: u8) -> (&[u8], Option<&[u8]>) {
    match s.iter().position(|&b| b == sep) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    }
}

/// glibc's normalised codeset: letters lowered and digits kept, the rest
/// dropped; all digits get an "iso" prefix.
fn normalize_codeset(cs: &[u8]) -> Vec<u8> {
    let kept: Vec<u8> =
        cs.iter().filter(|b| b.is_ascii_alphanumeric()).map(u8::to_ascii_lowercase).collect();
    if !kept.is_empty() && kept.iter().all(u8::is_ascii_digit) {
        [b"iso".as_slice(), &kept].concat()
    } else {
        kept
    }
}

/// The names in the catalog directory (one `openat`, a `getdents64` or
/// two, a `close`: fewer than one failing `openat` per candidate spelling
/// costs glibc), `None` when it can't be listed.
fn list_dir(dir: &[u8]) -> Option<Vec<Vec<u8>>> {
    let path = CString::new(dir).ok()?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY;
    let fd = ringio::sys::openat_owned(libc::AT_FDCWD, &path, flags, 0).ok()?;
    let mut names = Vec::new();
    let mut buf = Vec::with_capacity(32 * 1024);
    loop {
        buf.clear();
        if ringio::sys::getdents64(fd.as_raw_fd(), &mut buf).ok()? == 0 {
            return Some(names);
        }
        names.extend(DirentIter::new(&buf).map(|d| d.name.to_vec()));
    }
}

/// A mapped `.mo` file (GNU gettext's format: a header, then two tables of
/// (length, offset) pairs, the originals sorted by `strcmp`).
struct Catalog {
    data: &'static [u8],
    big_endian: bool,
    count: usize,
    originals: usize,
    translations: usize,
}

enum Opened {
    /// No such file: the next candidate may have it.
    Missing,
    /// Present but not something to read here (other charset, damaged).
    Unusable,
    Ok(Catalog),
}

const MAGIC: u32 = 0x9504_12de;

impl Catalog {
    fn open(path: &[u8]) -> Opened {
        let Ok(file) = std::fs::File::open(std::ffi::OsStr::from_bytes(path)) else {
            return Opened::Missing;
        };
        let Some(data) = libcw::mem::map_file(&file) else {
            return Opened::Unusable;
        };
        let Some(cat) = Catalog::parse(data) else {
            return Opened::Unusable;
        };
        if !cat.charset_is_utf8() {
            return Opened::Unusable;
        }
        Opened::Ok(cat)
    }

    #[cfg_attr(ringutils_small, optimize(size))]
    fn parse(data: &'static [u8]) -> Option<Catalog> {
        let magic = u32::from_le_bytes(data.get(0..4)?.try_into().ok()?);
        let big_endian = match magic {
            MAGIC => false,
            m if m.swap_bytes() == MAGIC => true,
            _ => return None,
        };
        let mut cat = Catalog { data, big_endian, count: 0, originals: 0, translations: 0 };
        // Major revisions other than 0 and 1 may change the layout.
        if cat.word(4)? >> 16 > 1 {
            return None;
        }
        cat.count = cat.word(8)? as usize;
        cat.originals = cat.word(12)? as usize;
        cat.translations = cat.word(16)? as usize;
        let tables_end = cat.count.checked_mul(8)?;
        if cat.originals.checked_add(tables_end)? > data.len()
            || cat.translations.checked_add(tables_end)? > data.len()
        {
            return None;
        }
        Some(cat)
    }

    fn word(&self, at: usize) -> Option<u32> {
        let b: [u8; 4] = self.data.get(at..at + 4)?.try_into().ok()?;
        Some(if self.big_endian { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) })
    }

    /// The string the table entry `i` of `table` points at, up to its
    /// first NUL (a plural entry's first form; glibc compares and returns
    /// C strings).
    fn string(&self, table: usize, i: usize) -> Option<&'static [u8]> {
        let len = self.word(table + i * 8)? as usize;
        let off = self.word(table + i * 8 + 4)? as usize;
        let s = self.data.get(off..off.checked_add(len)?)?;
        Some(&s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())])
    }

    /// The translation of `msgid` (never the header: an empty msgid).
    fn get(&self, msgid: &[u8]) -> Option<&'static [u8]> {
        if msgid.is_empty() {
            return None;
        }
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.string(self.originals, mid)?.cmp(msgid) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return self.string(self.translations, mid).filter(|t| !t.is_empty());
                }
            }
        }
        None
    }

    /// Whether the header's `charset=` is UTF-8: then no conversion to the
    /// (UTF-8) locale's codeset is needed and the text is glibc's answer.
    fn charset_is_utf8(&self) -> bool {
        if self.count == 0 || self.string(self.originals, 0) != Some(b"") {
            // No header: glibc would not convert either.
            return true;
        }
        let Some(header) = self.string(self.translations, 0) else {
            return false;
        };
        let Some(at) = header.windows(8).position(|w| w == b"charset=") else {
            return true;
        };
        let value = &header[at + 8..];
        let end = value.iter().position(|&b| b == b'\n' || b == b' ' || b == b';');
        normalize_codeset(&value[..end.unwrap_or(value.len())]) == b"utf8"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(l: &str) -> Vec<String> {
        candidates(l.as_bytes())
            .unwrap_or_default()
            .into_iter()
            .map(|n| String::from_utf8(n).unwrap())
            .collect()
    }

    #[test]
    fn candidates_in_glibcs_order() {
        assert_eq!(
            names("de_DE.UTF-8"),
            ["de_DE.UTF-8", "de_DE.utf8", "de_DE", "de.UTF-8", "de.utf8", "de"]
        );
        assert_eq!(names("C.UTF-8"), ["C.UTF-8", "C.utf8", "C"]);
        assert_eq!(names("ja_JP.utf8"), ["ja_JP.utf8", "ja_JP", "ja.utf8", "ja"]);
        assert_eq!(
            names("sr_RS.UTF-8@latin"),
            [
                "sr_RS.UTF-8@latin",
                "sr_RS.utf8@latin",
                "sr_RS@latin",
                "sr.UTF-8@latin",
                "sr.utf8@latin",
                "sr@latin",
                "sr_RS.UTF-8",
                "sr_RS.utf8",
                "sr_RS",
                "sr.UTF-8",
                "sr.utf8",
                "sr"
            ]
        );
        // Left to glibc: no codeset, a legacy one (aliases, conversion), C.
        for l in ["de_DE", "no_NO.ISO-8859-1", "ja_JP.eucJP", "C", "POSIX", "german", "./x.UTF-8"] {
            assert!(candidates(l.as_bytes()).is_none(), "{l}");
        }
    }

    fn mo(entries: &[(&[u8], &[u8])], big_endian: bool) -> Vec<u8> {
        let n = entries.len() as u32;
        let w = |v: u32| if big_endian { v.to_be_bytes() } else { v.to_le_bytes() };
        let (orig, trans) = (28u32, 28 + 8 * n);
        let mut strings = Vec::new();
        let mut tables = (Vec::new(), Vec::new());
        let base = 28 + 16 * n;
        for (k, v) in entries {
            tables.0.extend(w(k.len() as u32));
            tables.0.extend(w(base + strings.len() as u32));
            strings.extend_from_slice(k);
            strings.push(0);
            tables.1.extend(w(v.len() as u32));
            tables.1.extend(w(base + strings.len() as u32));
            strings.extend_from_slice(v);
            strings.push(0);
        }
        let mut out = Vec::new();
        for v in [MAGIC, 0, n, orig, trans, 0, 0] {
            out.extend(w(v));
        }
        out.extend(tables.0);
        out.extend(tables.1);
        out.extend(strings);
        out
    }

    #[test]
    fn reads_both_byte_orders_and_plural_entries() {
        let entries: &[(&[u8], &[u8])] = &[
            (b"", b"Content-Type: text/plain; charset=UTF-8\n"),
            (b"%s file\0%s files", b"%s Datei\0%s Dateien"),
            (b"total", b"insgesamt"),
            (b"zzz", b""),
        ];
        for be in [false, true] {
            let data: &'static [u8] = Box::leak(mo(entries, be).into_boxed_slice());
            let cat = Catalog::parse(data).expect("valid");
            assert!(cat.charset_is_utf8());
            assert_eq!(cat.get(b"total"), Some(&b"insgesamt"[..]));
            assert_eq!(cat.get(b"%s file"), Some(&b"%s Datei"[..]));
            assert_eq!(cat.get(b"tota"), None);
            assert_eq!(cat.get(b"zzz"), None, "an empty translation is none");
            assert_eq!(cat.get(b""), None, "the header is not a message");
        }
        let latin: &[(&[u8], &[u8])] = &[(b"", b"Content-Type: text/plain; charset=ISO-8859-1\n")];
        let data: &'static [u8] = Box::leak(mo(latin, false).into_boxed_slice());
        assert!(!Catalog::parse(data).expect("valid").charset_is_utf8());
        assert!(Catalog::parse(b"not a catalog at all.......").is_none());
    }
}
