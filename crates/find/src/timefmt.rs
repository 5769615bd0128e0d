//! Timestamps as find prints them (C locale), on `cli::timefmt`'s
//! strftime: `%t`/`%a`/`%c` (ctime with nanoseconds), the `%Tk`
//! conversions find accepts, with its fractional-second forms, and the
//! `-ls` date column.

use cli::timefmt::{strftime, LOCALE_OLD, LOCALE_RECENT, SIX_MONTHS};
use ringio::sys::time::{localtime, Tm};

/// A time the C library can't convert prints the fields of an all-zero
/// `struct tm`, as find always has.
fn tm_of(secs: i64) -> Tm {
    localtime(secs).unwrap_or_default()
}

/// `Tue Nov 14 22:13:20.1234567890 2023` (%t, %a, %c): find prints ten
/// fractional digits, the nanoseconds and a trailing 0.
pub fn ctime(out: &mut Vec<u8>, secs: i64, nsec: i64) {
    strftime(out, b"%a %b %e %H:%M:%S.%N0 %Y", &tm_of(secs), nsec as u32);
}

/// One `%T<c>` conversion. Returns false for a letter find doesn't know.
pub fn strftime_one(out: &mut Vec<u8>, c: u8, secs: i64, nsec: i64) -> bool {
    let plain = [b'%', c];
    let fmt: &[u8] = match c {
        // find's own forms: seconds straight from the timestamp, and the
        // seconds-bearing conversions with ten fractional digits.
        b'@' => {
            out.extend_from_slice(secs.to_string().as_bytes());
            strftime(out, b".%N0", &Tm::default(), nsec as u32);
            return true;
        }
        b's' => {
            out.extend_from_slice(secs.to_string().as_bytes());
            return true;
        }
        b'S' => b"%S.%N0",
        b'T' | b'X' => b"%H:%M:%S.%N0",
        b'+' => b"%Y-%m-%d+%H:%M:%S.%N0",
        b'a' | b'A' | b'b' | b'h' | b'B' | b'c' | b'C' | b'd' | b'D' | b'x' | b'e' | b'F'
        | b'g' | b'G' | b'H' | b'I' | b'j' | b'k' | b'l' | b'm' | b'M' | b'n' | b'p' | b'r'
        | b'R' | b't' | b'u' | b'U' | b'V' | b'w' | b'W' | b'y' | b'Y' | b'z' | b'Z' => &plain,
        _ => return false,
    };
    strftime(out, fmt, &tm_of(secs), nsec as u32);
    true
}

/// The -ls date column: `Nov 14 22:13` for times in the last six months,
/// `Nov 14  2023` otherwise. Unlike ls, find counts a time equal to now as
/// recent.
pub fn ls_date(out: &mut Vec<u8>, secs: i64, nsec: i64, now: (i64, i64)) {
    let recent = (secs, nsec) > (now.0 - SIX_MONTHS, now.1) && (secs, nsec) <= (now.0, now.1);
    let fmt = if recent { LOCALE_RECENT } else { LOCALE_OLD };
    strftime(out, fmt.as_bytes(), &tm_of(secs), nsec as u32);
}
