//! Timestamps as find prints them, on `cli::timefmt`'s strftime:
//! `%t`/`%a`/`%c` (ctime with nanoseconds, English in every locale), the
//! `%Tk` conversions find accepts, with its fractional-second forms, and
//! the `-ls` date column. Where LC_TIME is not C/POSIX, names, `%c %x %X`
//! and AM/PM come from the C library, as find's strftime calls do.

use cli::timefmt::{strftime, strftime_localized, Timestamp, LOCALE_OLD, LOCALE_RECENT};
use libcw::time::{localtime, Tm};

/// A time the C library can't convert prints the fields of an all-zero
/// `struct tm`, as find always has.
fn tm_of(secs: i64) -> Tm {
    localtime(secs).unwrap_or_default()
}

/// `Tue Nov 14 22:13:20.1234567890 2023` (%t, %a, %c): find prints ten
/// fractional digits, the nanoseconds and a trailing 0.
pub fn ctime(out: &mut Vec<u8>, t: Timestamp) {
    strftime(out, b"%a %b %e %H:%M:%S.%N0 %Y", &tm_of(t.secs), t.nsec);
}

/// One `%T<c>` conversion. Returns false for a letter find doesn't know.
pub fn strftime_one(out: &mut Vec<u8>, c: u8, t: Timestamp) -> bool {
    let Timestamp { secs, nsec } = t;
    let plain = [b'%', c];
    let fmt: &[u8] = match c {
        // find's own forms: seconds straight from the timestamp, and the
        // seconds-bearing conversions with ten fractional digits.
        b'@' => {
            out.extend_from_slice(secs.to_string().as_bytes());
            strftime(out, b".%N0", &Tm::default(), nsec);
            return true;
        }
        b's' => {
            out.extend_from_slice(secs.to_string().as_bytes());
            return true;
        }
        b'S' => b"%S.%N0",
        b'X' if cli::locale::info().time_hard => {
            localized_x(out, &tm_of(secs), nsec);
            return true;
        }
        b'T' | b'X' => b"%H:%M:%S.%N0",
        b'+' => b"%Y-%m-%d+%H:%M:%S.%N0",
        b'a' | b'A' | b'b' | b'h' | b'B' | b'c' | b'C' | b'd' | b'D' | b'x' | b'e' | b'F'
        | b'g' | b'G' | b'H' | b'I' | b'j' | b'k' | b'l' | b'm' | b'M' | b'n' | b'p' | b'r'
        | b'R' | b't' | b'u' | b'U' | b'V' | b'w' | b'W' | b'y' | b'Y' | b'z' | b'Z' | b'P'
        | b'%' => &plain,
        _ => return false,
    };
    format(out, fmt, &tm_of(secs), nsec);
    true
}

/// [`strftime`], or [`strftime_localized`] where LC_TIME is not C/POSIX.
fn format(out: &mut Vec<u8>, fmt: &[u8], tm: &Tm, nsec: u32) {
    if cli::locale::info().time_hard {
        strftime_localized(out, fmt, tm, nsec);
    } else {
        strftime(out, fmt, tm, nsec);
    }
}

/// `%TX` in the locale's time format with the fraction after the seconds,
/// wherever the locale puts them (`13時45分00.0000000000秒` in ja_JP): the
/// time is formatted a second time with other seconds (both digits
/// differ), and the fraction goes after the first two bytes that changed.
fn localized_x(out: &mut Vec<u8>, tm: &Tm, nsec: u32) {
    let mut a = Vec::new();
    strftime_localized(&mut a, b"%X", tm, 0);
    let other = Tm { sec: (tm.sec + 11) % 60, ..tm.clone() };
    let mut b = Vec::new();
    strftime_localized(&mut b, b"%X", &other, 0);
    let at = (a.len() == b.len())
        .then(|| a.iter().zip(&b).position(|(x, y)| x != y))
        .flatten()
        .map(|p| (p + 2).min(a.len()));
    match at {
        Some(p) => {
            out.extend_from_slice(&a[..p]);
            strftime(out, b".%N0", &Tm::default(), nsec);
            out.extend_from_slice(&a[p..]);
        }
        None => out.extend_from_slice(&a),
    }
}

/// The -ls date column: `Nov 14 22:13` for times less than 180 days old
/// and at most an hour ahead, `Nov 14  2023` otherwise (find's own rule,
/// not ls's six months). The month is LC_TIME's, neither translated nor
/// padded as ls does.
pub fn ls_date(out: &mut Vec<u8>, t: Timestamp, now: Timestamp) {
    const OLD: i64 = 180 * 24 * 60 * 60;
    const AHEAD: i64 = 60 * 60;
    let Timestamp { secs, nsec } = t;
    let age = now.secs.saturating_sub(secs);
    let recent = (-AHEAD..=OLD).contains(&age);
    let fmt = if recent { LOCALE_RECENT } else { LOCALE_OLD };
    format(out, fmt.as_bytes(), &tm_of(secs), nsec);
}
