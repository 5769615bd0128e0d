//! The user's locale, set once at start-up as GNU's tools set it, and what
//! the tools need to know of it.
//!
//! Every tool calls [`init`] first: `setlocale(LC_ALL, "")` (all-or-nothing:
//! a category naming a locale that isn't installed leaves the whole process
//! in "C", silently, as GNU), then binds GNU's text domain (`coreutils` for
//! ls/du/cat, `findutils` for find) so that messages come from the system's
//! GNU catalogs under GNU's own msgids.
//!
//! [`info`] caches the handful of facts the hot paths test (is collation
//! plain byte order? is LC_CTYPE single-byte?), so the C and POSIX locales
//! keep their byte-oriented fast paths: nothing here costs a call per name
//! there.

use std::ffi::CStr;
use std::sync::OnceLock;

use libcw::locale as sys;

/// GNU's text domain for a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// ls, du, cat.
    Coreutils,
    /// find.
    Findutils,
}

impl Domain {
    fn name(self) -> &'static CStr {
        match self {
            Domain::Coreutils => c"coreutils",
            Domain::Findutils => c"findutils",
        }
    }
}

/// Sets the locale from the environment and binds `domain`'s catalogs.
/// Call once, first thing in `main`, before any thread starts.
#[cfg_attr(ringutils_small, optimize(size))]
pub fn init(domain: Domain) {
    const DIR: &CStr = c"/usr/share/locale";
    sys::set_from_env();
    sys::text_domain(domain.name(), DIR);
    crate::catalog::bind(DIR, domain.name());
}

/// What the tools need to know of the locale in force.
#[derive(Clone, Debug)]
pub struct Info {
    /// LC_CTYPE decodes multibyte characters (`MB_CUR_MAX > 1`); when false
    /// every byte is a character and bytes ≥ 0x80 are unprintable.
    pub multibyte: bool,
    /// LC_CTYPE's charset is UTF-8 (C.UTF-8 included).
    pub utf8: bool,
    /// LC_COLLATE orders as `strcmp` does: C, POSIX and C.UTF-8 (glibc's
    /// C.UTF-8 collates by code point, which UTF-8 byte order preserves;
    /// checked over 2,000,000 random byte strings, invalid ones included).
    pub collate_bytes: bool,
    /// LC_TIME is not C/POSIX (gnulib's `hard_locale`: only those two names
    /// count as trivial, so C.UTF-8 is "hard").
    pub time_hard: bool,
    /// LC_NUMERIC's decimal point and digit grouping.
    pub numeric: sys::Numeric,
}

fn is_trivial(name: &[u8]) -> bool {
    name == b"C" || name == b"POSIX"
}

/// The cached facts about the current locale.
pub fn info() -> &'static Info {
    static INFO: OnceLock<Info> = OnceLock::new();
    INFO.get_or_init(|| {
        let collate = sys::name(sys::LC_COLLATE);
        let collate_bytes = is_trivial(&collate)
            || collate.eq_ignore_ascii_case(b"C.UTF-8")
            || collate.eq_ignore_ascii_case(b"C.utf8");
        let codeset = sys::langinfo(sys::CODESET);
        Info {
            multibyte: sys::mb_cur_max() > 1,
            utf8: codeset.eq_ignore_ascii_case(b"UTF-8"),
            collate_bytes,
            time_hard: !is_trivial(&sys::name(sys::LC_TIME)),
            numeric: sys::numeric(),
        }
    })
}

/// `_(msgid)`: GNU's translation of `msgid` in the tool's domain under
/// LC_MESSAGES, or `msgid` itself where the catalog has none (English, as
/// GNU falls back).
pub fn tr(msgid: &'static CStr) -> &'static [u8] {
    translate(msgid, sys::LC_MESSAGES).unwrap_or(msgid.to_bytes())
}

/// The tool's catalog's translation of `msgid` under `category`, `None`
/// where it has none: read by [`crate::catalog`] where that gives glibc's
/// answer with fewer system calls, else by glibc's `dcgettext`.
#[cfg_attr(ringutils_small, optimize(size))]
fn translate(msgid: &'static CStr, category: i32) -> Option<&'static [u8]> {
    // glibc converts a catalog's text to LC_CTYPE's charset (`?` for what
    // ASCII lacks, under LC_CTYPE=C): only a UTF-8 one takes it as it is.
    if info().utf8 {
        let locale = sys::name(category);
        if is_trivial(&locale) {
            return None;
        }
        match crate::catalog::find(category, &locale, msgid.to_bytes()) {
            crate::catalog::Answer::Found(t) => return Some(t),
            crate::catalog::Answer::Absent => return None,
            crate::catalog::Answer::AskLibc => {}
        }
    }
    sys::translate(msgid, category)
}

/// [`tr`] as text, for callers that build `String`s. A translation that is
/// not UTF-8 (a catalog converted to a legacy charset) falls back to the
/// msgid rather than print mojibake through a `str`.
pub fn tr_str(msgid: &'static CStr) -> &'static str {
    std::str::from_utf8(tr(msgid)).unwrap_or(msgid.to_str().unwrap_or(""))
}

/// Like [`tr`], but looked up under another category (ls translates its
/// `-l` time formats under LC_TIME, so the catalog follows LC_TIME).
pub fn tr_in(msgid: &'static CStr, category: i32) -> &'static [u8] {
    translate(msgid, category).unwrap_or(msgid.to_bytes())
}

/// glibc's own translation of `msgid` (the `libc` text domain), for the
/// texts GNU's tools get from glibc rather than from their own catalog:
/// getopt's complaints and regex compilation errors.
pub fn tr_libc(msgid: &'static CStr) -> &'static [u8] {
    sys::translate_in(c"libc", msgid, sys::LC_MESSAGES).unwrap_or(msgid.to_bytes())
}

/// Whether the catalog has an entry for `msgid` at all (GNU's
/// `gettext_quote` uses a catalog's quote marks even when they equal the
/// msgid).
pub fn has_translation(msgid: &'static CStr) -> bool {
    translate(msgid, sys::LC_MESSAGES).is_some()
}

/// Substitutes `%s` (and `%d`, `%lu`, `%zu` … treated alike) in a
/// translated format, in order, with `args`; `%%` is a percent sign. GNU's
/// catalogs also use positional `%1$s` forms in a few translations, which
/// are honoured.
pub fn format(fmt: &[u8], args: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(fmt.len() + args.iter().map(|a| a.len()).sum::<usize>());
    let mut next = 0usize;
    let mut i = 0;
    while i < fmt.len() {
        let b = fmt[i];
        if b != b'%' {
            out.push(b);
            i += 1;
            continue;
        }
        if fmt.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        // %[N$][flags/width/length]conv
        let mut j = i + 1;
        let mut pos = None;
        let digits = fmt[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && fmt.get(j + digits) == Some(&b'$') {
            let n: usize = std::str::from_utf8(&fmt[j..j + digits])
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(1);
            pos = Some(n.saturating_sub(1));
            j += digits + 1;
        }
        while j < fmt.len() && !fmt[j].is_ascii_alphabetic() {
            j += 1;
        }
        while j < fmt.len() && matches!(fmt[j], b'l' | b'z' | b'j' | b'h' | b't' | b'q') {
            j += 1;
        }
        let k = pos.unwrap_or_else(|| {
            next += 1;
            next - 1
        });
        if let Some(a) = args.get(k) {
            out.extend_from_slice(a);
        }
        i = (j + 1).min(fmt.len());
    }
    out
}

/// `_(msgid)` with its `%s`/`%d` filled in.
pub fn trf(msgid: &'static CStr, args: &[&[u8]]) -> Vec<u8> {
    format(tr(msgid), args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_fills_in_order_and_by_position() {
        assert_eq!(format(b"cannot access %s", &[b"'x'"]), b"cannot access 'x'");
        assert_eq!(format(b"%s: %lu of %s %%", &[b"a", b"2", b"c"]), b"a: 2 of c %");
        assert_eq!(format(b"%2$s <- %1$s", &[b"a", b"b"]), b"b <- a");
    }

    #[test]
    fn c_locale_has_no_translations() {
        // No init: the process is in the C locale, where gettext returns the msgid.
        assert_eq!(tr(c"total"), b"total");
        assert!(!has_translation(c"`"));
        assert!(info().collate_bytes);
        assert!(!info().multibyte);
    }
}
