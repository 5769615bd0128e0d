//! Timestamps as GNU tools print them in the C locale: ls's time styles
//! (`locale`, `iso`, `long-iso`, `full-iso`, `+FORMAT`) with the six-month
//! rule, and a strftime-like formatter with GNU's extensions (`%N`, `%:z`,
//! the `_ - 0 ^ #` flags and field widths). Local time comes from the C
//! library (`TZ`, zoneinfo) through `libcw::time`.

use libcw::time::{localtime, Tm};

/// A file time: seconds and nanoseconds since the epoch, as statx gives
/// it. The one timestamp type of ls, du and find. Ordered as time is:
/// seconds first, then nanoseconds (always below 10^9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    pub secs: i64,
    pub nsec: u32,
}

impl Timestamp {
    /// Earlier than every real time: the time of nothing in a maximum.
    pub const MIN: Timestamp = Timestamp { secs: i64::MIN, nsec: 0 };

    pub const fn new(secs: i64, nsec: u32) -> Timestamp {
        Timestamp { secs, nsec }
    }

    pub fn of(t: &libc::statx_timestamp) -> Timestamp {
        Timestamp { secs: t.tv_sec, nsec: t.tv_nsec }
    }

    /// The wall clock.
    pub fn now() -> Timestamp {
        let (secs, nsec) = libcw::time::now();
        Timestamp { secs, nsec }
    }

    /// `self - earlier` in nanoseconds, exactly (negative when `self` is
    /// the earlier one): find's `-used` counts days from it.
    pub fn nanos_since(self, earlier: Timestamp) -> i128 {
        (i128::from(self.secs) - i128::from(earlier.secs)) * 1_000_000_000
            + (i128::from(self.nsec) - i128::from(earlier.nsec))
    }

    /// `self - earlier` in seconds as a float, whole seconds and the
    /// nanosecond difference converted apart, as find's `-mtime` family
    /// has always rounded it.
    pub fn seconds_since(self, earlier: Timestamp) -> f64 {
        self.secs.wrapping_sub(earlier.secs) as f64
            + (i64::from(self.nsec) - i64::from(earlier.nsec)) as f64 / 1e9
    }
}

/// A time style: the formats for old and recent timestamps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeStyle {
    pub old: Vec<u8>,
    pub recent: Vec<u8>,
    /// GNU ls's month-aligned formats, `[old, recent][month]`: each format
    /// with its first `%b` replaced by that month's abbreviation, padded
    /// to the widest one (see [`padded_months`]). `None` where ls doesn't
    /// pad: the C locale, or one of its give-up cases.
    months: Option<Box<[[Vec<u8>; 12]; 2]>>,
    /// LC_TIME is not C/POSIX: the conversions that depend on it come
    /// from the C library (see [`strftime_localized`]).
    localized: bool,
}

/// Why a `--time-style`/`TIME_STYLE` value is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StyleError {
    /// Not a (prefix of a) keyword; `value` is what is left after the
    /// `posix-` prefixes, which GNU names in its message.
    Choice { value: String, why: crate::argmatch::NoMatch },
    /// A `+FORMAT` with more than one newline (GNU: "invalid time style
    /// format"); carries the format after the `+`.
    Format(String),
}

/// The longest timestamp text GNU ls prints (its strftime buffer): longer
/// ones are printed as seconds.
pub const TIME_STAMP_LEN_MAXIMUM: usize = 1000;

/// The widest field a conversion is padded to. GNU's strftime would pad
/// to any width (du streams gigabytes of padding for `+%99999999999Y`);
/// here a larger width is clamped, so an absurd format can't exhaust
/// memory. ls falls back to seconds long before (see
/// [`TIME_STAMP_LEN_MAXIMUM`]).
pub const MAX_FIELD_WIDTH: usize = 4096;

/// Half a Gregorian year, GNU's "six months".
pub const SIX_MONTHS: i64 = 31_556_952 / 2;

/// The C locale's `ls -l` date formats for old and recent timestamps
/// (also the msgids under which GNU's catalogs translate them).
pub const LOCALE_OLD: &str = "%b %e  %Y";
pub const LOCALE_RECENT: &str = "%b %e %H:%M";

/// GNU ls's limit on a month-aligned format, and on a padded month
/// name, in bytes; at or over it ls gives up aligning.
const ABFORMAT_SIZE: usize = 128;

/// The widest a month abbreviation is shown, in columns; wider ones are cut.
const MAX_MON_WIDTH: usize = 12;

impl TimeStyle {
    /// The C locale's default (`ls -l`).
    pub fn locale() -> TimeStyle {
        TimeStyle {
            old: LOCALE_OLD.into(),
            recent: LOCALE_RECENT.into(),
            months: None,
            localized: false,
        }
    }

    /// Parses a `--time-style`/`TIME_STYLE` value for the locale in force.
    /// Errors carry nothing: the caller prints GNU's message.
    #[cfg_attr(ringutils_small, optimize(size))]
    pub fn parse(s: &str) -> Option<TimeStyle> {
        TimeStyle::parse_checked(s).ok()
    }

    /// Like [`TimeStyle::parse`], saying why a style is refused. As GNU ls
    /// does, a keyword may be abbreviated to any unambiguous prefix
    /// (`long` is long-iso, `lo` is ambiguous), after optional `posix-`
    /// prefixes.
    pub fn parse_checked(s: &str) -> Result<TimeStyle, StyleError> {
        TimeStyle::parse_in(s, crate::locale::info().time_hard)
    }

    /// [`TimeStyle::parse_checked`] with LC_TIME's hardness given: `hard`
    /// (LC_TIME not C/POSIX) translates the `locale` formats through the
    /// LC_TIME catalog, lets `posix-STYLE` mean STYLE and aligns month names.
    #[cfg_attr(ringutils_small, optimize(size))]
    pub fn parse_in(s: &str, hard: bool) -> Result<TimeStyle, StyleError> {
        let mut s = s;
        while let Some(rest) = s.strip_prefix("posix-") {
            if !hard {
                // In the C/POSIX locale GNU ls takes any posix-STYLE as the
                // locale style without looking at STYLE.
                return Ok(TimeStyle::locale());
            }
            s = rest;
        }
        let (old, recent): (Vec<u8>, Vec<u8>) = if let Some(f) = s.strip_prefix('+') {
            match f.split_once('\n') {
                Some((_, recent)) if recent.contains('\n') => {
                    return Err(StyleError::Format(f.into()))
                }
                Some((old, recent)) => (old.into(), recent.into()),
                None => (f.into(), f.into()),
            }
        } else {
            #[derive(Clone, Copy, PartialEq)]
            enum K {
                Full,
                Long,
                Iso,
                Locale,
            }
            const KEYWORDS: &[(&str, K)] = &[
                ("full-iso", K::Full),
                ("long-iso", K::Long),
                ("iso", K::Iso),
                ("locale", K::Locale),
            ];
            let k = crate::argmatch::argmatch(s.as_bytes(), KEYWORDS)
                .map_err(|why| StyleError::Choice { value: s.into(), why })?;
            match k {
                K::Full => ("%Y-%m-%d %H:%M:%S.%N %z".into(), "%Y-%m-%d %H:%M:%S.%N %z".into()),
                K::Long => ("%Y-%m-%d %H:%M".into(), "%Y-%m-%d %H:%M".into()),
                K::Iso => ("%Y-%m-%d ".into(), "%m-%d %H:%M".into()),
                K::Locale if hard => {
                    use crate::locale::tr_in;
                    use libcw::locale::LC_TIME;
                    (tr_in(c"%b %e  %Y", LC_TIME).into(), tr_in(c"%b %e %H:%M", LC_TIME).into())
                }
                K::Locale => (LOCALE_OLD.into(), LOCALE_RECENT.into()),
            }
        };
        // In the C locale every abbreviation is three letters: aligning
        // them changes nothing, so it is not even tried.
        let months = if hard { month_formats(&old, &recent) } else { None };
        Ok(TimeStyle { old, recent, months, localized: hard })
    }

    /// Whether either format shows nanoseconds (`%N`), so that times in
    /// the same second can print differently.
    pub fn shows_nanoseconds(&self) -> bool {
        self.old.contains(&b'N') || self.recent.contains(&b'N')
    }

    /// Formats `t` given the current time; a timestamp in the
    /// last six months (and not in the future) uses the recent format.
    ///
    /// As in GNU ls, a time whose formatted text would exceed
    /// [`TIME_STAMP_LEN_MAXIMUM`] bytes (an absurd field width in a
    /// `+FORMAT`) is printed as seconds since the epoch instead.
    pub fn format(&self, out: &mut Vec<u8>, t: Timestamp, now: Timestamp) {
        let Timestamp { secs, nsec } = t;
        let recent = is_recent(t, now);
        match localtime(secs) {
            Some(tm) => {
                let f = match &self.months {
                    Some(m) => &m[usize::from(recent)][tm.mon as usize % 12],
                    None if recent => &self.recent,
                    None => &self.old,
                };
                let start = out.len();
                if self.localized {
                    strftime_localized(out, f, &tm, nsec);
                } else {
                    strftime(out, f, &tm, nsec);
                }
                if out.len() - start > TIME_STAMP_LEN_MAXIMUM {
                    out.truncate(start);
                    out.extend_from_slice(secs.to_string().as_bytes());
                }
            }
            None => out.extend_from_slice(secs.to_string().as_bytes()),
        }
    }
}

/// Where the first `%b` of a format starts (`%%` is skipped; `%^b` and
/// the like don't count), as GNU ls looks for it.
fn first_percent_b(f: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i + 1 < f.len() {
        if f[i] == b'%' {
            match f[i + 1] {
                b'b' => return Some(i),
                b'%' => i += 1,
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// GNU ls's month-aligned formats for `old` and `recent`, or `None` where
/// it gives up: neither format has a `%b`, the names can't be padded
/// ([`padded_months`]), or a resulting format reaches 128 bytes.
fn month_formats(old: &[u8], recent: &[u8]) -> Option<Box<[[Vec<u8>; 12]; 2]>> {
    let pb = [first_percent_b(old), first_percent_b(recent)];
    if pb == [None, None] {
        return None;
    }
    let names = padded_months()?;
    let mut out: Box<[[Vec<u8>; 12]; 2]> = Box::default();
    for (k, fmt) in [old, recent].into_iter().enumerate() {
        for (mon, name) in names.iter().enumerate() {
            let f = match pb[k] {
                None => fmt.to_vec(),
                Some(p) => [&fmt[..p], name, &fmt[p + 2..]].concat(),
            };
            if f.len() >= ABFORMAT_SIZE {
                return None;
            }
            out[k][mon] = f;
        }
    }
    Some(out)
}

/// LC_TIME's twelve month abbreviations as GNU ls aligns them: each cut
/// to [`MAX_MON_WIDTH`] columns and padded with spaces to the widest
/// (columns as LC_CTYPE measures them, bytes in a single-byte locale), on
/// the left for a name that starts with an ASCII digit and on the right
/// otherwise. A non-printable character counts as U+FFFD, which replaces
/// it. `None` where ls gives up: a name holds `%` (it is pasted into a
/// format) or isn't valid in LC_CTYPE's encoding, or a padded name
/// reaches 128 bytes.
fn padded_months() -> Option<[Vec<u8>; 12]> {
    use libcw::locale as sys;
    let multibyte = crate::locale::info().multibyte;
    // Each name as (bytes, columns) per character, already cut.
    let mut cut: Vec<(Vec<u8>, usize)> = Vec::with_capacity(12);
    for i in 0..12 {
        let name = sys::langinfo(sys::ABMON_1 + i);
        if name.contains(&b'%') {
            return None;
        }
        let (mut bytes, mut cols) = (Vec::with_capacity(name.len()), 0);
        let mut rest = &name[..];
        while !rest.is_empty() {
            let (len, w, replaced) = if multibyte {
                match sys::decode(rest) {
                    sys::Decoded::Char(wc, len) => match sys::width(wc) {
                        w if w >= 0 => (len, w as usize, false),
                        _ => (len, 1, true),
                    },
                    _ => return None,
                }
            } else {
                (1, 1, false)
            };
            if cols + w > MAX_MON_WIDTH {
                break;
            }
            cols += w;
            if replaced {
                bytes.extend_from_slice("\u{FFFD}".as_bytes());
            } else {
                bytes.extend_from_slice(&rest[..len]);
            }
            rest = &rest[len..];
        }
        cut.push((bytes, cols));
    }
    let widest = cut.iter().map(|c| c.1).max().unwrap_or(0);
    let mut out: [Vec<u8>; 12] = Default::default();
    for (slot, (name, cols)) in out.iter_mut().zip(cut) {
        let fill = widest - cols;
        if name.len() + fill >= ABFORMAT_SIZE {
            return None;
        }
        if name.first().is_some_and(u8::is_ascii_digit) {
            slot.resize(fill, b' ');
            slot.extend_from_slice(&name);
        } else {
            slot.extend_from_slice(&name);
            slot.resize(name.len() + fill, b' ');
        }
    }
    Some(out)
}

/// The date of a day number since 1970-01-01, proleptic Gregorian (Howard
/// Hinnant's days-to-civil): (year, month 0..=11, day of the month).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + (m <= 2) as i64, m - 1, d)
}

/// GNU ls's six-month rule.
pub fn is_recent(t: Timestamp, now: Timestamp) -> bool {
    let ago = Timestamp { secs: now.secs - SIX_MONTHS, ..now };
    ago < t && t < now
}

const DAYS: [&str; 7] =
    ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pad {
    Default,
    None,
    Space,
    Zero,
}

/// A strftime for the C locale with GNU's extensions. Unknown conversions
/// are copied as written, as glibc does.
pub fn strftime(out: &mut Vec<u8>, fmt: &[u8], tm: &Tm, nsec: u32) {
    render(out, fmt, tm, nsec, false);
}

/// [`strftime`] for a locale whose LC_TIME isn't C/POSIX: the conversions
/// that depend on LC_TIME (names of days and months, `%c %x %X %r`, AM/PM,
/// and anything with an `E`/`O` modifier) come from the C library's
/// strftime, flags and width included, as GNU's strftime hands them to it;
/// the rest, numbers and GNU's extensions (`%N`, `%:z`), are the same in
/// every locale and stay here.
pub fn strftime_localized(out: &mut Vec<u8>, fmt: &[u8], tm: &Tm, nsec: u32) {
    render(out, fmt, tm, nsec, true);
}

/// Whether GNU's strftime refuses `modifier` on `conv` and prints the
/// directive as written: `E`/`O` on what has no alternative form.
fn bad_modifier(conv: u8, modifier: Option<u8>) -> bool {
    match modifier {
        None => false,
        Some(b'E') => matches!(
            conv,
            b'%' | b'a'
                | b'A'
                | b'b'
                | b'h'
                | b'B'
                | b'd'
                | b'e'
                | b'g'
                | b'G'
                | b'H'
                | b'I'
                | b'j'
                | b'k'
                | b'l'
                | b'm'
                | b'M'
                | b'N'
                | b'q'
                | b'S'
                | b'u'
                | b'U'
                | b'V'
                | b'w'
                | b'W'
        ),
        Some(_) => matches!(conv, b'%' | b'a' | b'A' | b'c' | b'q' | b'x' | b'X' | b'Y'),
    }
}

/// Whether GNU's strftime asks the C library for conversion `conv` (with
/// `modifier`) because its text depends on LC_TIME.
fn depends_on_lc_time(conv: u8, modifier: Option<u8>) -> bool {
    match conv {
        b'a' | b'A' | b'b' | b'h' | b'B' | b'c' | b'p' | b'P' | b'r' | b'x' | b'X' => true,
        b'C' | b'y' | b'Y' if modifier == Some(b'E') => true,
        // Alternative digits (ja_JP's 〇一二…).
        b'C' | b'd' | b'e' | b'g' | b'G' | b'H' | b'I' | b'j' | b'k' | b'l' | b'm' | b'M'
        | b'S' | b'u' | b'U' | b'V' | b'w' | b'W' | b'y' => modifier == Some(b'O'),
        _ => false,
    }
}

/// How a flag changes the case of a conversion's text, as GNU's strftime
/// decides: `^` upper-cases; `#` upper-cases names and lower-cases AM/PM
/// and the zone; `%P` is always lower case, and lower case wins.
fn case_of(conv: u8, upper: bool, swap: bool) -> Case {
    match conv {
        b'P' => Case::Lower,
        b'p' | b'Z' if swap => Case::Lower,
        b'a' | b'A' | b'b' | b'h' | b'B' if swap => Case::Upper,
        _ if upper => Case::Upper,
        _ => Case::Keep,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    Keep,
    Upper,
    Lower,
}

/// Appends `s` padded to `width` (not with the `-` flag; zeros with `0` or
/// `+`) on the left, then recased.
fn put_text(out: &mut Vec<u8>, s: &[u8], width: Option<usize>, pad: Pad, case: Case) {
    if pad != Pad::None {
        let fill = if pad == Pad::Zero { b'0' } else { b' ' };
        out.resize(out.len() + width.unwrap_or(0).saturating_sub(s.len()), fill);
    }
    let start = out.len();
    out.extend_from_slice(s);
    match case {
        Case::Keep => {}
        Case::Upper => out[start..].make_ascii_uppercase(),
        Case::Lower => out[start..].make_ascii_lowercase(),
    }
}

/// One conversion's text from the C library's strftime (`%`, the modifier
/// and the letter, as GNU's strftime asks for it; `%P` as `%p`).
fn c_strftime(out: &mut Vec<u8>, modifier: Option<u8>, conv: u8, tm: &Tm) {
    let conv = if conv == b'P' { b'p' } else { conv };
    let d: &[u8] = match (modifier, conv) {
        (Some(m), c) if !matches!(c, b'a' | b'A' | b'p' | b'r') => &[b'%', m, conv],
        _ => &[b'%', conv],
    };
    if let Ok(d) = std::ffi::CString::new(d) {
        libcw::locale::strftime_into(out, &d, tm);
    }
}

fn render(out: &mut Vec<u8>, fmt: &[u8], tm: &Tm, nsec: u32, localized: bool) {
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        let Some((d, end)) = Directive::parse(fmt, i) else {
            out.extend_from_slice(&fmt[i..]);
            break;
        };
        let whole = &fmt[i..end];
        i = end;
        let case = case_of(d.conv, d.upper, d.swap);
        if bad_modifier(d.conv, d.modifier) {
            put_text(out, whole, d.width, d.pad, Case::Keep);
            continue;
        }
        // A modifier is rare enough to ask the C library even in the C
        // locale, where GNU's strftime does too (`%Od` ignores flags there).
        if (localized || d.modifier.is_some())
            && d.colons == 0
            && depends_on_lc_time(d.conv, d.modifier)
        {
            let mut v = Vec::new();
            c_strftime(&mut v, d.modifier, d.conv, tm);
            put_text(out, &v, d.width, d.pad, case);
            continue;
        }
        if !convert(out, &d, case, tm, nsec) {
            out.extend_from_slice(whole);
        }
    }
}

/// One `%` directive: `%[flags][width][:…][E|O]conv`.
struct Directive {
    pad: Pad,
    /// `^`: upper case.
    upper: bool,
    /// `#`: the other case.
    swap: bool,
    width: Option<usize>,
    /// `%:z`, `%::z`, …
    colons: usize,
    modifier: Option<u8>,
    conv: u8,
}

impl Directive {
    /// The directive at `fmt[start]` (a `%`) and where it ends; None when
    /// the format ends before its conversion.
    fn parse(fmt: &[u8], start: usize) -> Option<(Directive, usize)> {
        let mut i = start + 1;
        let mut d = Directive {
            pad: Pad::Default,
            upper: false,
            swap: false,
            width: None,
            colons: 0,
            modifier: None,
            conv: 0,
        };
        while i < fmt.len() {
            match fmt[i] {
                b'_' => d.pad = Pad::Space,
                b'-' => d.pad = Pad::None,
                b'0' => d.pad = Pad::Zero,
                b'+' => d.pad = Pad::Zero,
                b'^' => d.upper = true,
                b'#' => d.swap = true,
                _ => break,
            }
            i += 1;
        }
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            d.width = Some(
                d.width.unwrap_or(0).saturating_mul(10).saturating_add((fmt[i] - b'0') as usize),
            );
            i += 1;
        }
        d.width = d.width.map(|w| w.min(MAX_FIELD_WIDTH));
        while i < fmt.len() && fmt[i] == b':' {
            d.colons += 1;
            i += 1;
        }
        while i < fmt.len() && matches!(fmt[i], b'E' | b'O') {
            d.modifier = Some(fmt[i]);
            i += 1;
        }
        d.conv = *fmt.get(i)?;
        Some((d, i + 1))
    }
}

/// Writes what directive `d` stands for, in the C locale's words; false
/// for a conversion GNU's strftime doesn't know (printed as it stands).
fn convert(out: &mut Vec<u8>, d: &Directive, case: Case, tm: &Tm, nsec: u32) -> bool {
    let (pad, width) = (d.pad, d.width);
    let num = |out: &mut Vec<u8>, v: i64, w: usize, default_pad: Pad| {
        let p = if pad == Pad::Default { default_pad } else { pad };
        let w = width.unwrap_or(w);
        push_num(out, v, w, p);
    };
    let text = |out: &mut Vec<u8>, s: &[u8]| put_text(out, s, width, pad, case);
    let hour12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
    let colons = d.colons;
    match (d.conv, colons) {
        (b'%', 0) => text(out, b"%"),
        (b'a', 0) => text(out, &DAYS[tm.wday as usize % 7].as_bytes()[..3]),
        (b'A', 0) => text(out, DAYS[tm.wday as usize % 7].as_bytes()),
        (b'b' | b'h', 0) => text(out, &MONTHS[tm.mon as usize % 12].as_bytes()[..3]),
        (b'B', 0) => text(out, MONTHS[tm.mon as usize % 12].as_bytes()),
        (b'c', 0) => sub(out, b"%a %b %e %H:%M:%S %Y", tm, nsec, case, width, pad),
        (b'C', 0) => num(out, tm.year.div_euclid(100), 2, Pad::Zero),
        (b'd', 0) => num(out, tm.mday as i64, 2, Pad::Zero),
        (b'D', 0) => sub(out, b"%m/%d/%y", tm, nsec, case, width, pad),
        (b'e', 0) => num(out, tm.mday as i64, 2, Pad::Space),
        (b'F', 0) => sub(out, b"%Y-%m-%d", tm, nsec, case, width, pad),
        (b'g', 0) => num(out, iso_year(tm).rem_euclid(100), 2, Pad::Zero),
        (b'G', 0) => num(out, iso_year(tm), 1, Pad::Zero),
        (b'H', 0) => num(out, tm.hour as i64, 2, Pad::Zero),
        (b'I', 0) => num(out, hour12 as i64, 2, Pad::Zero),
        (b'j', 0) => num(out, tm.yday as i64 + 1, 3, Pad::Zero),
        (b'k', 0) => num(out, tm.hour as i64, 2, Pad::Space),
        (b'l', 0) => num(out, hour12 as i64, 2, Pad::Space),
        (b'm', 0) => num(out, tm.mon as i64 + 1, 2, Pad::Zero),
        (b'M', 0) => num(out, tm.min as i64, 2, Pad::Zero),
        (b'n', 0) => text(out, b"\n"),
        (b'N', 0) => nanos(out, nsec, width, pad),
        (b'p', 0) => text(out, if tm.hour < 12 { b"AM" } else { b"PM" }),
        (b'P', 0) => text(out, if tm.hour < 12 { b"am" } else { b"pm" }),
        (b'q', 0) => num(out, tm.mon as i64 / 3 + 1, 1, Pad::Zero),
        (b'r', 0) => sub(out, b"%I:%M:%S %p", tm, nsec, case, width, pad),
        (b'R', 0) => sub(out, b"%H:%M", tm, nsec, case, width, pad),
        (b's', 0) => num(out, epoch_secs(tm), 1, Pad::Zero),
        (b'S', 0) => num(out, tm.sec as i64, 2, Pad::Zero),
        (b't', 0) => text(out, b"\t"),
        (b'T', 0) => sub(out, b"%H:%M:%S", tm, nsec, case, width, pad),
        (b'u', 0) => num(out, if tm.wday == 0 { 7 } else { tm.wday as i64 }, 1, Pad::Zero),
        (b'U', 0) => num(out, (tm.yday as i64 + 7 - tm.wday as i64) / 7, 2, Pad::Zero),
        (b'V', 0) => num(out, iso_week(tm), 2, Pad::Zero),
        (b'w', 0) => num(out, tm.wday as i64, 1, Pad::Zero),
        (b'W', 0) => num(out, (tm.yday as i64 + 7 - (tm.wday as i64 + 6) % 7) / 7, 2, Pad::Zero),
        (b'x', 0) => sub(out, b"%m/%d/%y", tm, nsec, case, width, pad),
        (b'X', 0) => sub(out, b"%H:%M:%S", tm, nsec, case, width, pad),
        (b'y', 0) => num(out, tm.year.rem_euclid(100), 2, Pad::Zero),
        (b'Y', 0) => num(out, tm.year, 1, Pad::Zero),
        (b'z', _) if colons <= 3 => zone_offset(out, tm.gmtoff, colons, pad, width),
        (b'Z', 0) => text(out, &tm.zone),
        _ => return false,
    }
    true
}

/// `%N`: the width is the number of digits, zero-filled on the right; '-'
/// drops trailing zeros.
fn nanos(out: &mut Vec<u8>, nsec: u32, width: Option<usize>, pad: Pad) {
    let digits = width.unwrap_or(9).max(1);
    let s = format!("{nsec:09}");
    let b = s.as_bytes();
    let start = out.len();
    for k in 0..digits {
        out.push(*b.get(k).unwrap_or(&b'0'));
    }
    if pad == Pad::None {
        while out.len() > start + 1 && out.last() == Some(&b'0') {
            out.pop();
        }
    }
}

fn sub(out: &mut Vec<u8>, f: &[u8], tm: &Tm, nsec: u32, case: Case, w: Option<usize>, pad: Pad) {
    let mut v = Vec::new();
    render(&mut v, f, tm, nsec, false);
    put_text(out, &v, w, pad, if case == Case::Upper { Case::Upper } else { Case::Keep });
}

fn push_num(out: &mut Vec<u8>, v: i64, width: usize, pad: Pad) {
    // On the stack: every date of `ls -l` is several of these.
    let mut a = [0u8; 20];
    let at = crate::num::digits_ending(&mut a, v.unsigned_abs());
    let digits = &a[at..];
    let len = digits.len() + usize::from(v < 0);
    let fill = width.saturating_sub(len);
    match pad {
        Pad::None => {}
        Pad::Space | Pad::Default => out.resize(out.len() + fill, b' '),
        Pad::Zero => {}
    }
    if v < 0 {
        out.push(b'-');
    }
    if pad == Pad::Zero {
        out.resize(out.len() + fill, b'0');
    }
    out.extend_from_slice(digits);
}

fn zone_offset(out: &mut Vec<u8>, off: i64, colons: usize, pad: Pad, width: Option<usize>) {
    let sign = if off < 0 { b'-' } else { b'+' };
    let a = off.unsigned_abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    let body = match colons {
        0 => format!("{:02}{:02}", h, m),
        1 => format!("{:02}:{:02}", h, m),
        2 => format!("{:02}:{:02}:{:02}", h, m, s),
        _ => {
            if s != 0 {
                format!("{:02}:{:02}:{:02}", h, m, s)
            } else if m != 0 {
                format!("{:02}:{:02}", h, m)
            } else {
                format!("{:02}", h)
            }
        }
    };
    let total = body.len() + 1;
    let w = width.unwrap_or(0);
    if w > total {
        if pad == Pad::Space {
            out.resize(out.len() + (w - total), b' ');
            out.push(sign);
        } else {
            out.push(sign);
            out.resize(out.len() + (w - total), b'0');
        }
    } else {
        out.push(sign);
    }
    out.extend_from_slice(body.as_bytes());
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// ISO 8601 week-based year and week number.
fn iso(tm: &Tm) -> (i64, i64) {
    let wday = (tm.wday as i64 + 6) % 7; // Monday = 0
    let yday = tm.yday as i64;
    let week = (yday - wday + 10) / 7;
    if week < 1 {
        let py = tm.year - 1;
        let pdays = if is_leap(py) { 366 } else { 365 };
        let w = (yday + pdays - wday + 10) / 7;
        (py, w)
    } else {
        let days = if is_leap(tm.year) { 366 } else { 365 };
        if week == 53 && (yday - wday + 3) >= days {
            (tm.year + 1, 1)
        } else {
            (tm.year, week)
        }
    }
}

fn iso_year(tm: &Tm) -> i64 {
    iso(tm).0
}

fn iso_week(tm: &Tm) -> i64 {
    iso(tm).1
}

/// Seconds since the epoch of a broken-down local time.
fn epoch_secs(tm: &Tm) -> i64 {
    let y = tm.year;
    let days_before_year = {
        let y1 = y - 1;
        365 * (y - 1970) + (y1.div_euclid(4) - 1969 / 4) - (y1.div_euclid(100) - 1969 / 100)
            + (y1.div_euclid(400) - 1969 / 400)
    };
    let days = days_before_year + tm.yday as i64;
    days * 86400 + tm.hour as i64 * 3600 + tm.min as i64 * 60 + tm.sec as i64 - tm.gmtoff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_differences() {
        let a = Timestamp::new(10, 250_000_000);
        let b = Timestamp::new(8, 750_000_000);
        assert_eq!(a.nanos_since(b), 1_500_000_000);
        assert_eq!(b.nanos_since(a), -1_500_000_000);
        assert_eq!(a.seconds_since(b), 1.5);
        assert_eq!(b.seconds_since(a), -1.5);
        assert!(b < a && Timestamp::new(10, 0) < a);
        let far = Timestamp::new(i64::MAX, 999_999_999);
        assert_eq!(
            far.nanos_since(Timestamp::MIN),
            (i128::from(i64::MAX) - i128::from(i64::MIN)) * 1_000_000_000 + 999_999_999
        );
    }

    fn tm() -> Tm {
        // 2024-03-05 07:08:09 UTC, a Tuesday, day 64 of a leap year.
        Tm {
            year: 2024,
            mon: 2,
            mday: 5,
            hour: 7,
            min: 8,
            sec: 9,
            wday: 2,
            yday: 64,
            isdst: 0,
            gmtoff: 0,
            zone: libcw::time::Zone::from(&b"UTC"[..]),
        }
    }

    fn f(fmt: &str) -> String {
        let mut v = Vec::new();
        strftime(&mut v, fmt.as_bytes(), &tm(), 123_456_789);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn conversions() {
        assert_eq!(f("%b %e %H:%M"), "Mar  5 07:08");
        assert_eq!(f("%b %e  %Y"), "Mar  5  2024");
        assert_eq!(f("%Y-%m-%d %H:%M:%S.%N %z"), "2024-03-05 07:08:09.123456789 +0000");
        assert_eq!(f("%3N|%-d|%_m|%^a|%#Z|%:z|%s"), "123|5| 3|TUE|utc|+00:00|1709622489");
        assert_eq!(f("%j %U %W %V %G %u %w"), "065 09 10 10 2024 2 2");
        assert_eq!(f("%c"), "Tue Mar  5 07:08:09 2024");
        assert_eq!(f("%Q%"), "%Q%");
        assert_eq!(f("%10Y|%-5H|%10N|%-N"), "0000002024|7|1234567890|123456789");
    }

    #[test]
    fn gnu_flag_and_modifier_rules() {
        // '-' suppresses padding of names too; lower case wins for %P and
        // %#Z; modifiers a conversion lacks print the directive as written.
        assert_eq!(f("%-5a|%5a|%05b|%^P|%#P|%^#Z"), "Tue|  Tue|00Mar|am|am|utc");
        assert_eq!(f("%Ox|%5Ox|%Ea|%Ed|%E%|%Oq"), "%Ox| %5Ox|%Ea|%Ed|%E%|%Oq");
        assert_eq!(f("%-30c|%030D"), "Tue Mar  5 07:08:09 2024|000000000000000000000003/05/24");
    }

    #[test]
    fn first_percent_b_skips_escaped_percents() {
        assert_eq!(first_percent_b(b"%e. %b %Y "), Some(4));
        assert_eq!(first_percent_b(b"%%b %^b %b"), Some(8));
        assert_eq!(first_percent_b(b"%Y-%m-%d"), None);
        assert_eq!(first_percent_b(b"%"), None);
    }

    #[test]
    fn c_locale_styles_are_not_localized() {
        let s = TimeStyle::parse_in("posix-bogus", false).unwrap();
        assert_eq!(s, TimeStyle::locale());
        assert!(TimeStyle::parse_in("posix-bogus", true).is_err());
        assert_eq!(
            TimeStyle::parse_in("+a\nb\nc", false),
            Err(StyleError::Format("a\nb\nc".into()))
        );
    }

    #[test]
    fn six_month_rule() {
        let now = Timestamp::new(1_000_000_000, 0);
        assert!(is_recent(Timestamp::new(now.secs - 10, 0), now));
        assert!(!is_recent(Timestamp::new(now.secs + 10, 0), now));
        assert!(!is_recent(Timestamp::new(now.secs - SIX_MONTHS, 0), now));
        // Nanoseconds count: the same second, later in it, is the future.
        assert!(!is_recent(Timestamp::new(now.secs, 1), now));
    }
}
