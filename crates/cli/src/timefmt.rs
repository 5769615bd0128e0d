//! Timestamps as GNU tools print them in the C locale: ls's time styles
//! (`locale`, `iso`, `long-iso`, `full-iso`, `+FORMAT`) with the six-month
//! rule, and a strftime-like formatter with GNU's extensions (`%N`, `%:z`,
//! the `_ - 0 ^ #` flags and field widths). Local time comes from the C
//! library (`TZ`, zoneinfo) through `ringio::sys::time`.

use ringio::sys::time::{localtime, Tm};

/// A time style: the formats for old and recent timestamps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeStyle {
    pub old: String,
    pub recent: String,
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

/// The C locale's `ls -l` date formats for old and recent timestamps.
pub const LOCALE_OLD: &str = "%b %e  %Y";
pub const LOCALE_RECENT: &str = "%b %e %H:%M";

impl TimeStyle {
    /// The C locale's default (`ls -l`).
    pub fn locale() -> TimeStyle {
        TimeStyle { old: LOCALE_OLD.into(), recent: LOCALE_RECENT.into() }
    }

    /// Parses a `--time-style`/`TIME_STYLE` value. `posix-` prefixed styles
    /// mean the locale style in the C locale. Errors carry nothing: the
    /// caller prints GNU's "invalid argument" message.
    pub fn parse(s: &str) -> Option<TimeStyle> {
        TimeStyle::parse_checked(s).ok()
    }

    /// Like [`TimeStyle::parse`], saying why a style is refused. As GNU ls
    /// does, a keyword may be abbreviated to any unambiguous prefix
    /// (`long` is long-iso, `lo` is ambiguous), after an optional `posix-`.
    pub fn parse_checked(s: &str) -> Result<TimeStyle, crate::argmatch::NoMatch> {
        if let Some(f) = s.strip_prefix('+') {
            return Ok(match f.split_once('\n') {
                Some((old, recent)) => TimeStyle { old: old.into(), recent: recent.into() },
                None => TimeStyle { old: f.into(), recent: f.into() },
            });
        }
        if s.starts_with("posix-") {
            // In the C/POSIX locale GNU ls takes any posix-STYLE as the
            // locale style without looking at STYLE.
            return Ok(TimeStyle::locale());
        }
        #[derive(Clone, Copy, PartialEq)]
        enum K {
            Full,
            Long,
            Iso,
            Locale,
        }
        const KEYWORDS: &[(&str, K)] =
            &[("full-iso", K::Full), ("long-iso", K::Long), ("iso", K::Iso), ("locale", K::Locale)];
        let same = |f: &str| TimeStyle { old: f.into(), recent: f.into() };
        Ok(match crate::argmatch::argmatch(s.as_bytes(), KEYWORDS)? {
            K::Full => same("%Y-%m-%d %H:%M:%S.%N %z"),
            K::Long => same("%Y-%m-%d %H:%M"),
            K::Iso => TimeStyle { old: "%Y-%m-%d ".into(), recent: "%m-%d %H:%M".into() },
            K::Locale => TimeStyle::locale(),
        })
    }

    /// Formats `(secs, nsec)` given the current time; a timestamp in the
    /// last six months (and not in the future) uses the recent format.
    ///
    /// As in GNU ls, a time whose formatted text would exceed
    /// [`TIME_STAMP_LEN_MAXIMUM`] bytes (an absurd field width in a
    /// `+FORMAT`) is printed as seconds since the epoch instead.
    pub fn format(&self, out: &mut Vec<u8>, secs: i64, nsec: u32, now: (i64, u32)) {
        let recent = is_recent((secs, nsec), now);
        let f = if recent { &self.recent } else { &self.old };
        match localtime(secs) {
            Some(tm) => {
                let start = out.len();
                strftime(out, f.as_bytes(), &tm, nsec);
                if out.len() - start > TIME_STAMP_LEN_MAXIMUM {
                    out.truncate(start);
                    out.extend_from_slice(secs.to_string().as_bytes());
                }
            }
            None => out.extend_from_slice(secs.to_string().as_bytes()),
        }
    }
}

/// GNU ls's six-month rule.
pub fn is_recent(t: (i64, u32), now: (i64, u32)) -> bool {
    let ago = (now.0 - SIX_MONTHS, now.1);
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
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut pad = Pad::Default;
        let mut upper = false;
        let mut swap = false;
        while i < fmt.len() {
            match fmt[i] {
                b'_' => pad = Pad::Space,
                b'-' => pad = Pad::None,
                b'0' => pad = Pad::Zero,
                b'+' => pad = Pad::Zero,
                b'^' => upper = true,
                b'#' => swap = true,
                _ => break,
            }
            i += 1;
        }
        let mut width: Option<usize> = None;
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            width = Some(
                width.unwrap_or(0).saturating_mul(10).saturating_add((fmt[i] - b'0') as usize),
            );
            i += 1;
        }
        let width = width.map(|w| w.min(MAX_FIELD_WIDTH));
        let mut colons = 0;
        while i < fmt.len() && fmt[i] == b':' {
            colons += 1;
            i += 1;
        }
        while i < fmt.len() && matches!(fmt[i], b'E' | b'O') {
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        let num = |out: &mut Vec<u8>, v: i64, w: usize, default_pad: Pad| {
            let p = if pad == Pad::Default { default_pad } else { pad };
            let w = width.unwrap_or(w);
            push_num(out, v, w, p);
        };
        let text = |out: &mut Vec<u8>, s: &[u8], lower_on_swap: bool| {
            let w = width.unwrap_or(0);
            let fill = if pad == Pad::Zero { b'0' } else { b' ' };
            for _ in s.len()..w {
                out.push(fill);
            }
            let start = out.len();
            out.extend_from_slice(s);
            if upper || (swap && !lower_on_swap) {
                out[start..].make_ascii_uppercase();
            } else if swap && lower_on_swap {
                out[start..].make_ascii_lowercase();
            }
        };
        let hour12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
        match (conv, colons) {
            (b'%', 0) => text(out, b"%", false),
            (b'a', 0) => text(out, &DAYS[tm.wday as usize % 7].as_bytes()[..3], false),
            (b'A', 0) => text(out, DAYS[tm.wday as usize % 7].as_bytes(), false),
            (b'b' | b'h', 0) => text(out, &MONTHS[tm.mon as usize % 12].as_bytes()[..3], false),
            (b'B', 0) => text(out, MONTHS[tm.mon as usize % 12].as_bytes(), false),
            (b'c', 0) => sub(out, b"%a %b %e %H:%M:%S %Y", tm, nsec, upper, width),
            (b'C', 0) => num(out, tm.year.div_euclid(100), 2, Pad::Zero),
            (b'd', 0) => num(out, tm.mday as i64, 2, Pad::Zero),
            (b'D', 0) => sub(out, b"%m/%d/%y", tm, nsec, upper, width),
            (b'e', 0) => num(out, tm.mday as i64, 2, Pad::Space),
            (b'F', 0) => sub(out, b"%Y-%m-%d", tm, nsec, upper, width),
            (b'g', 0) => num(out, iso_year(tm).rem_euclid(100), 2, Pad::Zero),
            (b'G', 0) => num(out, iso_year(tm), 1, Pad::Zero),
            (b'H', 0) => num(out, tm.hour as i64, 2, Pad::Zero),
            (b'I', 0) => num(out, hour12 as i64, 2, Pad::Zero),
            (b'j', 0) => num(out, tm.yday as i64 + 1, 3, Pad::Zero),
            (b'k', 0) => num(out, tm.hour as i64, 2, Pad::Space),
            (b'l', 0) => num(out, hour12 as i64, 2, Pad::Space),
            (b'm', 0) => num(out, tm.mon as i64 + 1, 2, Pad::Zero),
            (b'M', 0) => num(out, tm.min as i64, 2, Pad::Zero),
            (b'n', 0) => text(out, b"\n", false),
            (b'N', 0) => {
                // The width is the number of digits, zero-filled on the
                // right; '-' drops trailing zeros.
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
            (b'p', 0) => text(out, if tm.hour < 12 { b"AM" } else { b"PM" }, true),
            (b'P', 0) => text(out, if tm.hour < 12 { b"am" } else { b"pm" }, false),
            (b'q', 0) => num(out, tm.mon as i64 / 3 + 1, 1, Pad::Zero),
            (b'r', 0) => sub(out, b"%I:%M:%S %p", tm, nsec, upper, width),
            (b'R', 0) => sub(out, b"%H:%M", tm, nsec, upper, width),
            (b's', 0) => num(out, epoch_secs(tm), 1, Pad::Zero),
            (b'S', 0) => num(out, tm.sec as i64, 2, Pad::Zero),
            (b't', 0) => text(out, b"\t", false),
            (b'T', 0) => sub(out, b"%H:%M:%S", tm, nsec, upper, width),
            (b'u', 0) => num(out, if tm.wday == 0 { 7 } else { tm.wday as i64 }, 1, Pad::Zero),
            (b'U', 0) => num(out, (tm.yday as i64 + 7 - tm.wday as i64) / 7, 2, Pad::Zero),
            (b'V', 0) => num(out, iso_week(tm), 2, Pad::Zero),
            (b'w', 0) => num(out, tm.wday as i64, 1, Pad::Zero),
            (b'W', 0) => {
                num(out, (tm.yday as i64 + 7 - (tm.wday as i64 + 6) % 7) / 7, 2, Pad::Zero)
            }
            (b'x', 0) => sub(out, b"%m/%d/%y", tm, nsec, upper, width),
            (b'X', 0) => sub(out, b"%H:%M:%S", tm, nsec, upper, width),
            (b'y', 0) => num(out, tm.year.rem_euclid(100), 2, Pad::Zero),
            (b'Y', 0) => num(out, tm.year, 1, Pad::Zero),
            (b'z', _) if colons <= 3 => zone_offset(out, tm.gmtoff, colons, pad, width),
            (b'Z', 0) => text(out, &tm.zone, true),
            _ => out.extend_from_slice(&fmt[start..i]),
        }
    }
}

fn sub(out: &mut Vec<u8>, f: &[u8], tm: &Tm, nsec: u32, upper: bool, width: Option<usize>) {
    let mut v = Vec::new();
    strftime(&mut v, f, tm, nsec);
    if upper {
        v.make_ascii_uppercase();
    }
    for _ in v.len()..width.unwrap_or(0) {
        out.push(b' ');
    }
    out.extend_from_slice(&v);
}

fn push_num(out: &mut Vec<u8>, v: i64, width: usize, pad: Pad) {
    let digits = v.unsigned_abs().to_string();
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
    out.extend_from_slice(digits.as_bytes());
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
            zone: b"UTC".to_vec(),
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
    fn six_month_rule() {
        let now = (1_000_000_000, 0);
        assert!(is_recent((now.0 - 10, 0), now));
        assert!(!is_recent((now.0 + 10, 0), now));
        assert!(!is_recent((now.0 - SIX_MONTHS, 0), now));
    }
}
