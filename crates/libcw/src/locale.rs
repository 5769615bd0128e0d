//! The C library's locale machinery, as GNU's tools use it: `setlocale`,
//! collation, multibyte decoding and character classes, `nl_langinfo`,
//! `localeconv`, `strftime` and gettext.
//!
//! GNU's tools call glibc for every locale-dependent decision, and no crate
//! reproduces glibc's answers (collation tables, `wcwidth` over Unicode 14,
//! which bytes are invalid in which charset), so the tools call the same
//! functions. Everything here is a thin, safe wrapper; the policy (what is
//! cached, what the C locale short-cuts) lives in `cli::locale`.

use std::cmp::Ordering;
use std::ffi::{c_char, c_int, CStr};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;

use crate::time::Tm;

/// A wide character as glibc's `wchar_t` (UCS-4 on Linux).
pub type WChar = i32;

extern "C" {
    fn mbrtowc(pwc: *mut WChar, s: *const c_char, n: usize, ps: *mut MbState) -> usize;
    fn wcwidth(c: WChar) -> c_int;
    fn iswprint(c: u32) -> c_int;
    fn iswcntrl(c: u32) -> c_int;
    fn __ctype_get_mb_cur_max() -> usize;
    fn dcgettext(domain: *const c_char, msgid: *const c_char, category: c_int) -> *mut c_char;
    fn bindtextdomain(domain: *const c_char, dir: *const c_char) -> *mut c_char;
    fn textdomain(domain: *const c_char) -> *mut c_char;
    fn rpmatch(response: *const c_char) -> c_int;
}

/// glibc's `mbstate_t`: 8 bytes (a count and a value), all-zero initially.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct MbState {
    count: c_int,
    value: u32,
}

/// `LC_*` categories, re-exported so callers need no libc.
pub use libc::{LC_ALL, LC_COLLATE, LC_CTYPE, LC_MESSAGES, LC_NUMERIC, LC_TIME};

/// `setlocale(LC_ALL, "")`: the user's locale from LC_ALL, LC_*, LANG.
/// glibc's all-or-nothing rule applies: when any category names a locale
/// that isn't installed the call fails and everything stays "C", as in GNU.
///
/// When every category names the same locale (LC_ALL set, or LANG alone:
/// the usual case), only the categories the tools consult are loaded. A
/// locale kept as a directory of files rather than in locale-archive
/// (Debian's C.UTF-8, what `localedef` makes under LOCPATH) costs ~5
/// syscalls a category, and the seven others (LC_PAPER, LC_NAME …) cost 35
/// of a `lsr -al` that otherwise makes ~130. One name for all means one
/// answer for all: the locale is installed or not. (A directory missing
/// only an unused category's file would fail GNU's call and not this one.)
///
/// Debian's C.UTF-8 is such a directory, and of the tools' categories
/// only its LC_CTYPE differs from C's (`locale -k` shows the same
/// collation, by code point, which C's byte order matches for UTF-8; the
/// same dates, numbers and yes/no words; it has no catalogs). So there
/// only LC_CTYPE is loaded, the others stay C, and [`name`] still answers
/// C.UTF-8 for them (what GNU's `hard_locale` tests and the catalog search
/// below follow). That takes 20 of the ~125 syscalls of a `lsr -al`. Not
/// when `LANGUAGE` is set: glibc's gettext honours it under C.UTF-8 (not
/// under C), so LC_MESSAGES must then really be C.UTF-8.
pub fn set_from_env() -> bool {
    *lock_standing_in() = None;
    let ok = match same_name_for_all() {
        Some(name) if is_c_utf8(name.to_bytes()) && !language_set() => {
            // glibc's own spelling of the directory first: asked for
            // "C.UTF-8" it tries that directory before "C.utf8", in vain
            // where the locale is Debian's.
            let ok = [c"C.utf8", &name].iter().any(|n| {
                // SAFETY: as below: NUL-terminated, no other thread yet.
                !unsafe { libc::setlocale(libc::LC_CTYPE, n.as_ptr()) }.is_null()
            });
            if ok {
                *lock_standing_in() = Some(name);
            }
            ok
        }
        Some(name) => set_used(&name),
        // SAFETY: the argument is a static NUL-terminated string; the tools
        // call this first, on the main thread, before any other thread
        // exists (glibc requires that setlocale not race other locale users).
        None => !unsafe { libc::setlocale(libc::LC_ALL, c"".as_ptr()) }.is_null(),
    };
    note_ctype();
    ok
}

/// The locale name the categories other than LC_CTYPE stand for while
/// glibc holds them at C (see [`set_from_env`]).
static STANDING_IN: Mutex<Option<std::ffi::CString>> = Mutex::new(None);

fn lock_standing_in() -> std::sync::MutexGuard<'static, Option<std::ffi::CString>> {
    STANDING_IN.lock().unwrap_or_else(|e| e.into_inner())
}

/// C.UTF-8 as glibc spells it in `LANG` (`C.UTF-8`, `C.utf8`, any case).
fn is_c_utf8(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"C.UTF-8") || name.eq_ignore_ascii_case(b"C.utf8")
}

/// `LANGUAGE` names languages for gettext (which glibc honours outside
/// the C locale).
pub fn language_set() -> bool {
    std::env::var_os("LANGUAGE").is_some_and(|v| !v.is_empty())
}

/// The categories some tool consults: LC_CTYPE (decoding, widths),
/// LC_COLLATE (strcoll, fnmatch ranges), LC_TIME (month names, strftime),
/// LC_NUMERIC (localeconv, strtod, printf) and LC_MESSAGES (gettext,
/// strerror, rpmatch).
const USED: [c_int; 5] = [LC_CTYPE, LC_COLLATE, LC_TIME, LC_NUMERIC, LC_MESSAGES];

/// glibc's twelve categories' variables.
const VARIABLES: [&str; 12] = [
    "LC_CTYPE",
    "LC_NUMERIC",
    "LC_TIME",
    "LC_COLLATE",
    "LC_MONETARY",
    "LC_MESSAGES",
    "LC_PAPER",
    "LC_NAME",
    "LC_ADDRESS",
    "LC_TELEPHONE",
    "LC_MEASUREMENT",
    "LC_IDENTIFICATION",
];

/// The locale name every category takes from the environment (glibc's
/// order: LC_ALL, the category's variable, LANG; empty counts as unset),
/// when they all take the same one and it is an ordinary name. `None`
/// when they differ, or the name is "C"/"POSIX" (nothing to load) or one
/// glibc treats specially (a path): `setlocale(LC_ALL, "")` decides then.
fn same_name_for_all() -> Option<std::ffi::CString> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let name = match var("LC_ALL") {
        Some(all) => all,
        None => {
            let lang = var("LANG");
            let mut names = VARIABLES.iter().map(|k| var(k).or_else(|| lang.clone()));
            let first = names.next()??;
            if !names.all(|n| n.as_ref() == Some(&first)) {
                return None;
            }
            first
        }
    };
    let b = std::os::unix::ffi::OsStrExt::as_bytes(name.as_os_str());
    if b == b"C" || b == b"POSIX" || b.contains(&b'/') {
        return None;
    }
    std::ffi::CString::new(b).ok()
}

/// Sets the [`USED`] categories to `name`; if one fails (the locale isn't
/// installed) everything goes back to "C", as a failed
/// `setlocale(LC_ALL, "")` leaves it.
fn set_used(name: &CStr) -> bool {
    for c in USED {
        // SAFETY: as in set_from_env: NUL-terminated, no other thread yet.
        if unsafe { libc::setlocale(c, name.as_ptr()) }.is_null() {
            // SAFETY: as above.
            unsafe { libc::setlocale(libc::LC_ALL, c"C".as_ptr()) };
            return false;
        }
    }
    true
}

/// `setlocale(category, name)` with an explicit name (tests, and callers
/// that must switch one category); false when the locale isn't installed.
pub fn set_named(category: c_int, name: &CStr) -> bool {
    *lock_standing_in() = None;
    // SAFETY: name is NUL-terminated for the call; the caller guarantees no
    // other thread uses locale-dependent functions meanwhile (glibc's rule).
    let ok = !unsafe { libc::setlocale(category, name.as_ptr()) }.is_null();
    note_ctype();
    ok
}

/// Whether LC_CTYPE's charset is UTF-8, noted at each setlocale for
/// [`decode`].
static CTYPE_UTF8: AtomicBool = AtomicBool::new(false);

fn note_ctype() {
    CTYPE_UTF8.store(langinfo(CODESET).eq_ignore_ascii_case(b"UTF-8"), Relaxed);
}

/// The name of the locale in force for `category` ("C", "de_DE.UTF-8", …).
pub fn name(category: c_int) -> Vec<u8> {
    if category != libc::LC_CTYPE {
        if let Some(n) = &*lock_standing_in() {
            return n.to_bytes().to_vec();
        }
    }
    // SAFETY: a NULL locale argument only queries; the returned string is
    // copied before any other setlocale call can overwrite it.
    let p = unsafe { libc::setlocale(category, std::ptr::null()) };
    if p.is_null() {
        return b"C".to_vec();
    }
    // SAFETY: setlocale returned a NUL-terminated string owned by libc.
    unsafe { CStr::from_ptr(p) }.to_bytes().to_vec()
}

/// `MB_CUR_MAX`: 1 in single-byte locales (C, POSIX), 6 in UTF-8 ones.
pub fn mb_cur_max() -> usize {
    // SAFETY: a pure query of the current LC_CTYPE.
    unsafe { __ctype_get_mb_cur_max() }
}

/// `strcoll` of two NUL-terminated strings.
pub fn strcoll(a: &CStr, b: &CStr) -> Ordering {
    // SAFETY: both strings are NUL-terminated and live for the call.
    unsafe { libc::strcoll(a.as_ptr(), b.as_ptr()) }.cmp(&0)
}

/// Appends `strxfrm(s)` (without its NUL) to `out`.
pub fn strxfrm_into(out: &mut Vec<u8>, s: &CStr) {
    let start = out.len();
    let mut cap = s.to_bytes().len() * 4 + 16;
    loop {
        out.resize(start + cap, 0);
        // SAFETY: the destination has `cap` writable bytes; s is NUL-terminated.
        let n = unsafe { libc::strxfrm(out[start..].as_mut_ptr().cast(), s.as_ptr(), cap) };
        if n < cap {
            out.truncate(start + n);
            return;
        }
        cap = n + 1;
    }
}

/// `strxfrm(s)` into `buf`, whose whole length (not capacity) is the room
/// offered; `buf` grows when the key doesn't fit and keeps its size for the
/// next call, so a loop over many names neither zero-fills nor allocates
/// per name. Returns the key's length: the key is `buf[..len]`.
pub fn strxfrm_buf(buf: &mut Vec<u8>, s: &CStr) -> usize {
    if buf.len() < 64 {
        buf.resize(256, 0);
    }
    loop {
        // SAFETY: buf has buf.len() writable bytes; s is NUL-terminated.
        let n = unsafe { libc::strxfrm(buf.as_mut_ptr().cast(), s.as_ptr(), buf.len()) };
        if n < buf.len() {
            return n;
        }
        buf.resize(n + 1, 0);
    }
}

/// One step of multibyte decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// A character and the bytes it took (a NUL byte decodes as `Char(0, 1)`).
    Char(WChar, usize),
    /// The first byte starts no valid sequence.
    Invalid,
    /// The bytes end inside a sequence.
    Incomplete,
}

/// `mbrtowc` on the start of `s` (non-empty), from the initial shift state.
/// In a UTF-8 locale the answer is computed here: glibc's first `mbrtowc`
/// loads its converter (gconv-modules.cache: 5 syscalls, a sixth of what
/// `lsr -al` of 10,000 files may make in all).
pub fn decode(s: &[u8]) -> Decoded {
    if CTYPE_UTF8.load(Relaxed) {
        return decode_utf8(s);
    }
    decode_mb(s)
}

/// glibc's UTF-8 `mbrtowc`, rule for rule (compared with it over every
/// sequence of up to three bytes and the longer forms' corners, in
/// `tests/locale_facts.rs`): the 5- and 6-byte forms of old UTF-8 and
/// values past U+10FFFF decode; overlong forms and surrogates don't; a
/// sequence cut short is incomplete only while every byte after the lead
/// is a continuation byte.
pub fn decode_utf8(s: &[u8]) -> Decoded {
    let b0 = s[0];
    let (len, lead) = match b0 {
        0 => return Decoded::Char(0, 1),
        1..=0x7f => return Decoded::Char(WChar::from(b0), 1),
        0xc2..=0xdf => (2, b0 & 0x1f),
        0xe0..=0xef => (3, b0 & 0x0f),
        0xf0..=0xf7 => (4, b0 & 0x07),
        0xf8..=0xfb => (5, b0 & 0x03),
        0xfc..=0xfd => (6, b0 & 0x01),
        _ => return Decoded::Invalid,
    };
    let have = s.len().min(len);
    if s[1..have].iter().any(|&b| b & 0xc0 != 0x80) {
        return Decoded::Invalid;
    }
    if have < len {
        return Decoded::Incomplete;
    }
    let c = s[1..len].iter().fold(u32::from(lead), |c, &b| (c << 6) | u32::from(b & 0x3f));
    const SHORTEST: [u32; 7] = [0, 0, 0x80, 0x800, 0x1_0000, 0x20_0000, 0x400_0000];
    if c < SHORTEST[len] || (0xd800..0xe000).contains(&c) {
        return Decoded::Invalid;
    }
    Decoded::Char(c as WChar, len)
}

/// glibc's `mbrtowc` itself.
pub fn decode_mb(s: &[u8]) -> Decoded {
    let mut st = MbState::default();
    let mut wc: WChar = 0;
    // SAFETY: the pointer and length describe `s`; mbrtowc reads at most
    // `s.len()` bytes and writes one wchar_t and the state we own.
    let n = unsafe { mbrtowc(&mut wc, s.as_ptr().cast(), s.len(), &mut st) };
    match n {
        usize::MAX => Decoded::Invalid,
        n if n == usize::MAX - 1 => Decoded::Incomplete,
        0 => Decoded::Char(0, 1),
        n => Decoded::Char(wc, n),
    }
}

/// `wcwidth`: columns the character takes, -1 when it isn't printable.
pub fn width(c: WChar) -> i32 {
    // SAFETY: a pure table lookup in the current LC_CTYPE.
    unsafe { wcwidth(c) }
}

/// `iswprint`.
pub fn is_print(c: WChar) -> bool {
    // SAFETY: a pure table lookup in the current LC_CTYPE.
    unsafe { iswprint(c as u32) != 0 }
}

/// `iswcntrl`.
pub fn is_cntrl(c: WChar) -> bool {
    // SAFETY: a pure table lookup in the current LC_CTYPE.
    unsafe { iswcntrl(c as u32) != 0 }
}

/// `nl_langinfo(item)` copied out (ABMON_1.., DAY_1.., CODESET, D_T_FMT …).
pub fn langinfo(item: libc::nl_item) -> Vec<u8> {
    // SAFETY: nl_langinfo returns a NUL-terminated string owned by libc (never
    // NULL in glibc); it is copied before another locale call can change it.
    let p = unsafe { libc::nl_langinfo(item) };
    if p.is_null() {
        return Vec::new();
    }
    // SAFETY: as above.
    unsafe { CStr::from_ptr(p) }.to_bytes().to_vec()
}

pub use libc::{ABDAY_1, ABMON_1, CODESET, DAY_1, D_FMT, D_T_FMT, MON_1, T_FMT, T_FMT_AMPM};

/// What `localeconv()` says about numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Numeric {
    pub decimal_point: Vec<u8>,
    pub thousands_sep: Vec<u8>,
    /// The C library's grouping string (group sizes; CHAR_MAX ends grouping).
    pub grouping: Vec<u8>,
}

pub fn numeric() -> Numeric {
    // SAFETY: localeconv returns a pointer to a static struct of libc's; the
    // strings are copied before any other locale call could change them.
    let lc = unsafe { &*libc::localeconv() };
    let s = |p: *const c_char| {
        if p.is_null() {
            Vec::new()
        } else {
            // SAFETY: localeconv's fields are NUL-terminated strings.
            unsafe { CStr::from_ptr(p) }.to_bytes().to_vec()
        }
    };
    Numeric {
        decimal_point: s(lc.decimal_point),
        thousands_sep: s(lc.thousands_sep),
        grouping: s(lc.grouping),
    }
}

/// How [`printf_double`] formats: C's printf flags, width and precision.
#[derive(Clone, Copy, Debug, Default)]
pub struct FloatSpec {
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub hash: bool,
    pub zero: bool,
    pub width: Option<usize>,
    pub prec: Option<usize>,
}

/// Appends C's `printf("%<flags><width>.<prec><conv>", v)`: the decimal
/// point is LC_NUMERIC's (find's `%S` prints `40,96` in de_DE), and every
/// corner of `%g` (exponents, `#`, precision 0) is glibc's own. `conv` must
/// be one of `eEfFgGaA` (anything else appends nothing). A width or
/// precision above `i32::MAX`, which printf cannot honour, appends nothing.
pub fn printf_double(out: &mut Vec<u8>, spec: FloatSpec, conv: u8, v: f64) {
    if !b"eEfFgGaA".contains(&conv) {
        return;
    }
    let limit = i32::MAX as usize;
    if spec.width.is_some_and(|w| w > limit) || spec.prec.is_some_and(|p| p > limit) {
        return;
    }
    let mut fmt = Vec::with_capacity(32);
    fmt.push(b'%');
    for (on, c) in [
        (spec.minus, b'-'),
        (spec.plus, b'+'),
        (spec.space, b' '),
        (spec.hash, b'#'),
        (spec.zero, b'0'),
    ] {
        if on {
            fmt.push(c);
        }
    }
    if let Some(w) = spec.width {
        fmt.extend_from_slice(w.to_string().as_bytes());
    }
    if let Some(p) = spec.prec {
        fmt.push(b'.');
        fmt.extend_from_slice(p.to_string().as_bytes());
    }
    fmt.push(conv);
    fmt.push(0);
    let mut buf = vec![0u8; 64];
    loop {
        // SAFETY: `fmt` is NUL-terminated and holds exactly one conversion,
        // built above from printf flags, digits and a floating-point
        // conversion letter, so it consumes exactly the one double passed;
        // snprintf writes at most `buf.len()` bytes (NUL included) into
        // the buffer we own.
        let n =
            unsafe { libc::snprintf(buf.as_mut_ptr().cast(), buf.len(), fmt.as_ptr().cast(), v) };
        let Ok(n) = usize::try_from(n) else { return };
        if n < buf.len() {
            out.extend_from_slice(&buf[..n]);
            return;
        }
        buf.resize(n + 1, 0);
    }
}

/// Appends `strftime(fmt, tm)` to `out`. `fmt` must not contain NUL. An
/// expansion that is legitimately empty (`%p` in de_DE) appends nothing.
pub fn strftime_into(out: &mut Vec<u8>, fmt: &CStr, tm: &Tm) {
    // SAFETY: tm is a plain C struct for which all-zero bytes are valid.
    let mut c: libc::tm = unsafe { std::mem::zeroed() };
    c.tm_year = (tm.year - 1900) as c_int;
    c.tm_mon = tm.mon as c_int;
    c.tm_mday = tm.mday as c_int;
    c.tm_hour = tm.hour as c_int;
    c.tm_min = tm.min as c_int;
    c.tm_sec = tm.sec as c_int;
    c.tm_wday = tm.wday as c_int;
    c.tm_yday = tm.yday as c_int;
    c.tm_isdst = tm.isdst;
    c.tm_gmtoff = tm.gmtoff as _;
    let mut zone = tm.zone.to_vec();
    zone.push(0);
    c.tm_zone = zone.as_ptr().cast();
    // strftime returns 0 both for "no room" and for an empty result; a
    // leading space in the format (removed afterwards) tells them apart.
    let mut f = Vec::with_capacity(fmt.to_bytes().len() + 2);
    f.push(b' ');
    f.extend_from_slice(fmt.to_bytes());
    f.push(0);
    let mut cap = 256usize;
    loop {
        let mut buf = vec![0u8; cap];
        // SAFETY: buf has `cap` writable bytes, f is NUL-terminated, and c
        // (with its zone string, alive until the end of this function) is
        // a valid struct tm.
        let n = unsafe { libc::strftime(buf.as_mut_ptr().cast(), cap, f.as_ptr().cast(), &c) };
        if n > 0 {
            out.extend_from_slice(&buf[1..n]);
            return;
        }
        if cap > 1 << 20 {
            return;
        }
        cap *= 4;
    }
}

/// What C's `strtod` made of a string, under LC_NUMERIC (the decimal point
/// is the locale's: de_DE reads `1,5` and stops at the `.` of `1.5`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strtod {
    pub value: f64,
    /// Bytes read: 0 when no number starts the string (after blanks).
    pub consumed: usize,
    /// errno was ERANGE: overflow (value ±HUGE_VAL) or underflow (value
    /// zero or subnormal).
    pub range: bool,
}

/// glibc's `strtod` over `s` up to its first NUL, with every form C reads:
/// leading white space, signs, hex floats, `inf`/`infinity`/`nan(…)` in any
/// case, and LC_NUMERIC's decimal point.
pub fn strtod(s: &[u8]) -> Strtod {
    let text = up_to_nul(s);
    let mut end: *mut c_char = std::ptr::null_mut();
    // SAFETY: text is NUL-terminated and outlives the call; strtod stores
    // into `end` a pointer into text (or text itself) and touches nothing
    // else of ours. errno is thread-local, so clearing it first and reading
    // it right after cannot see another thread's value.
    let (value, errno) = unsafe {
        *libc::__errno_location() = 0;
        let v = libc::strtod(text.as_ptr(), &mut end);
        (v, *libc::__errno_location())
    };
    // SAFETY: strtod's end pointer lies within text (its start when nothing
    // was read), so both pointers belong to one allocation.
    let consumed = unsafe { end.cast_const().offset_from(text.as_ptr()) };
    Strtod { value, consumed: usize::try_from(consumed).unwrap_or(0), range: errno == libc::ERANGE }
}

/// glibc's `rpmatch`: whether a reply is yes (`Some(true)`), no
/// (`Some(false)`) or neither (`None`) by LC_MESSAGES' YESEXPR and NOEXPR
/// (de_DE takes `j`, ja_JP `はい` and `ｙ`). The reply ends at its first NUL,
/// as it would in C.
pub fn yes_or_no(reply: &[u8]) -> Option<bool> {
    let text = up_to_nul(reply);
    // SAFETY: text is NUL-terminated and outlives the call; rpmatch only
    // reads it (and the locale's langinfo strings).
    match unsafe { rpmatch(text.as_ptr()) } {
        1 => Some(true),
        0 => Some(false),
        _ => None,
    }
}

/// The C string `s` would be: its bytes up to the first NUL.
fn up_to_nul(s: &[u8]) -> std::ffi::CString {
    let n = s.iter().position(|&b| b == 0).unwrap_or(s.len());
    // No NUL in s[..n] by construction, so `new` cannot fail.
    std::ffi::CString::new(&s[..n]).unwrap_or_default()
}

/// Binds `domain`'s catalogs to `dir` and makes it the default domain.
pub fn text_domain(domain: &CStr, dir: &CStr) {
    // SAFETY: both are NUL-terminated static strings; glibc copies them.
    unsafe {
        bindtextdomain(domain.as_ptr(), dir.as_ptr());
        textdomain(domain.as_ptr());
    }
}

/// `dcgettext(NULL, msgid, category)`: the translation in the default
/// domain, or `None` when the catalog has none (glibc then returns the
/// msgid pointer itself, which is how GNU's `gettext_quote` tells a
/// translation that happens to equal the msgid from no translation).
pub fn translate(msgid: &'static CStr, category: c_int) -> Option<&'static [u8]> {
    lookup(None, msgid, category)
}

/// `dcgettext(domain, msgid, category)`: the translation in another text
/// domain (glibc's getopt words its complaints in the `libc` domain, and
/// GNU's tools print them from there).
pub fn translate_in(
    domain: &'static CStr,
    msgid: &'static CStr,
    category: c_int,
) -> Option<&'static [u8]> {
    lookup(Some(domain), msgid, category)
}

fn lookup(
    domain: Option<&'static CStr>,
    msgid: &'static CStr,
    category: c_int,
) -> Option<&'static [u8]> {
    let domain = domain.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: msgid (and domain, when given) are NUL-terminated and static;
    // glibc returns either msgid's pointer or one into a catalog it has
    // mapped for the rest of the process (catalogs are never unmapped while
    // the locale stays set, and the tools set it once, before any lookup).
    let p = unsafe { dcgettext(domain, msgid.as_ptr(), category) };
    if p.is_null() || std::ptr::eq(p.cast_const(), msgid.as_ptr()) {
        None
    } else {
        // SAFETY: as above: a NUL-terminated string that lives as long as the process.
        Some(unsafe { CStr::from_ptr(p) }.to_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(spec: FloatSpec, v: f64) -> String {
        let mut out = Vec::new();
        printf_double(&mut out, spec, b'g', v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn printf_double_is_c_printf() {
        // Tests run in the C locale (nothing here calls setlocale).
        let d = FloatSpec::default();
        assert_eq!(g(d, 40.96), "40.96");
        assert_eq!(g(d, 2.0 / 3.0), "0.666667");
        assert_eq!(g(d, 1e-7), "1e-07");
        assert_eq!(g(FloatSpec { prec: Some(0), ..d }, 40.96), "4e+01");
        assert_eq!(g(FloatSpec { hash: true, ..d }, 40.96), "40.9600");
        assert_eq!(g(FloatSpec { zero: true, width: Some(8), ..d }, 1.5), "000001.5");
        assert_eq!(g(FloatSpec { minus: true, plus: true, width: Some(6), ..d }, 1.5), "+1.5  ");
        assert_eq!(g(FloatSpec { width: Some(100), ..d }, 1.0).len(), 100);
        let mut out = Vec::new();
        printf_double(&mut out, d, b'n', 1.0);
        assert!(out.is_empty());
    }

    #[test]
    fn strtod_is_c_strtod() {
        let r = |s: &[u8]| {
            let t = strtod(s);
            (t.value, t.consumed, t.range)
        };
        assert_eq!(r(b" 1.5x"), (1.5, 4, false));
        assert_eq!(r(b"1,5"), (1.0, 1, false));
        assert_eq!(r(b"0x1.8p1"), (3.0, 7, false));
        assert_eq!(r(b"-INFINITY"), (f64::NEG_INFINITY, 9, false));
        assert_eq!(r(b"x"), (0.0, 0, false));
        assert_eq!(r(b"1e400"), (f64::INFINITY, 5, true));
        assert_eq!(r(b"1e-400"), (0.0, 6, true));
        assert_eq!(r(b"2\x005"), (2.0, 1, false));
        assert!(strtod(b"nan").value.is_nan());
    }

    #[test]
    fn yes_or_no_is_rpmatch() {
        // The C locale: ^[yY] and ^[nN].
        assert_eq!(yes_or_no(b"yes\n"), Some(true));
        assert_eq!(yes_or_no(b"N"), Some(false));
        assert_eq!(yes_or_no(b" y"), None);
        assert_eq!(yes_or_no(b"j"), None);
        assert_eq!(yes_or_no(b"\x00y"), None);
    }
}
