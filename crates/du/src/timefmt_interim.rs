//! INTERIM time formatting for `ldu --time`, until `cli::timefmt` (being
//! written on the `ls` branch) reaches main; du then switches to it and
//! this module goes. It holds du's time styles and a strftime for the C
//! locale with GNU's flags (`_ - 0 ^ #`), field widths and `%N`/`%:z`.
//! Local time comes from the `localtime_r` wrapper lfind put on main.

use ringio::sys::find::{localtime, Tm};

/// du's `--time-style` values, resolved to a format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeFormat(pub Vec<u8>);

impl TimeFormat {
    pub fn long_iso() -> TimeFormat {
        TimeFormat(b"%Y-%m-%d %H:%M".to_vec())
    }

    pub fn full_iso() -> TimeFormat {
        TimeFormat(b"%Y-%m-%d %H:%M:%S.%N %z".to_vec())
    }

    pub fn iso() -> TimeFormat {
        TimeFormat(b"%Y-%m-%d".to_vec())
    }

    /// Appends the time `(secs, nsec)` in this format; a time the C library
    /// can't convert is printed as seconds, as GNU does.
    pub fn format(&self, out: &mut Vec<u8>, secs: i64, nsec: u32) {
        match localtime(secs) {
            Some(tm) => strftime(out, &self.0, &tm, secs, nsec),
            None => out.extend_from_slice(secs.to_string().as_bytes()),
        }
    }
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

struct Spec {
    pad: Pad,
    upper: bool,
    swap: bool,
    width: Option<usize>,
}

/// strftime in the C locale with GNU's extensions. Unknown conversions are
/// copied as written.
pub fn strftime(out: &mut Vec<u8>, fmt: &[u8], tm: &Tm, secs: i64, nsec: u32) {
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut sp = Spec { pad: Pad::Default, upper: false, swap: false, width: None };
        while let Some(&c) = fmt.get(i) {
            match c {
                b'_' => sp.pad = Pad::Space,
                b'-' => sp.pad = Pad::None,
                b'0' | b'+' => sp.pad = Pad::Zero,
                b'^' => sp.upper = true,
                b'#' => sp.swap = true,
                _ => break,
            }
            i += 1;
        }
        while let Some(&c) = fmt.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            sp.width = Some(sp.width.unwrap_or(0) * 10 + (c - b'0') as usize);
            i += 1;
        }
        let mut colons = 0;
        while fmt.get(i) == Some(&b':') {
            colons += 1;
            i += 1;
        }
        // E and O modifiers mean nothing in the C locale.
        while matches!(fmt.get(i), Some(b'E') | Some(b'O')) {
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        if colons > 0 && conv != b'z' {
            out.extend_from_slice(&fmt[start..i]);
            continue;
        }
        conversion(out, conv, &sp, colons, tm, secs, nsec, &fmt[start..i]);
    }
}

#[allow(clippy::too_many_arguments)]
fn conversion(
    out: &mut Vec<u8>,
    conv: u8,
    sp: &Spec,
    colons: usize,
    tm: &Tm,
    secs: i64,
    nsec: u32,
    raw: &[u8],
) {
    let hour12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
    match conv {
        b'a' => text(out, &DAYS[tm.wday as usize % 7][..3], sp, false),
        b'A' => text(out, DAYS[tm.wday as usize % 7], sp, false),
        b'b' | b'h' => text(out, &MONTHS[tm.mon as usize % 12][..3], sp, false),
        b'B' => text(out, MONTHS[tm.mon as usize % 12], sp, false),
        b'p' => text(out, if tm.hour < 12 { "AM" } else { "PM" }, sp, true),
        b'P' => text(out, if tm.hour < 12 { "am" } else { "pm" }, sp, false),
        b'Z' => text(out, &String::from_utf8_lossy(&tm.zone), sp, true),
        b'c' => sub(out, b"%a %b %e %H:%M:%S %Y", sp, tm, secs, nsec),
        b'D' | b'x' => sub(out, b"%m/%d/%y", sp, tm, secs, nsec),
        b'F' => sub(out, b"%Y-%m-%d", sp, tm, secs, nsec),
        b'r' => sub(out, b"%I:%M:%S %p", sp, tm, secs, nsec),
        b'R' => sub(out, b"%H:%M", sp, tm, secs, nsec),
        b'T' | b'X' => sub(out, b"%H:%M:%S", sp, tm, secs, nsec),
        b'C' => num(out, tm.year.div_euclid(100), 2, b'0', sp),
        b'd' => num(out, tm.mday as i64, 2, b'0', sp),
        b'e' => num(out, tm.mday as i64, 2, b' ', sp),
        b'H' => num(out, tm.hour as i64, 2, b'0', sp),
        b'I' => num(out, hour12 as i64, 2, b'0', sp),
        b'k' => num(out, tm.hour as i64, 2, b' ', sp),
        b'l' => num(out, hour12 as i64, 2, b' ', sp),
        b'j' => num(out, tm.yday as i64 + 1, 3, b'0', sp),
        b'm' => num(out, tm.mon as i64 + 1, 2, b'0', sp),
        b'M' => num(out, tm.min as i64, 2, b'0', sp),
        b'S' => num(out, tm.sec as i64, 2, b'0', sp),
        b'y' => num(out, tm.year.rem_euclid(100), 2, b'0', sp),
        b'Y' => num(out, tm.year, 4, b'0', sp),
        b'G' => num(out, iso_week(tm).0, 4, b'0', sp),
        b'g' => num(out, iso_week(tm).0.rem_euclid(100), 2, b'0', sp),
        b'V' => num(out, iso_week(tm).1 as i64, 2, b'0', sp),
        b'u' => num(out, if tm.wday == 0 { 7 } else { tm.wday as i64 }, 1, b'0', sp),
        b'w' => num(out, tm.wday as i64, 1, b'0', sp),
        b'q' => num(out, tm.mon as i64 / 3 + 1, 1, b'0', sp),
        b'U' => num(out, (tm.yday as i64 + 7 - tm.wday as i64) / 7, 2, b'0', sp),
        b'W' => num(out, (tm.yday as i64 + 7 - (tm.wday as i64 + 6) % 7) / 7, 2, b'0', sp),
        b's' => num(out, secs, 1, b'0', sp),
        b'n' => out.push(b'\n'),
        b't' => out.push(b'\t'),
        b'%' => out.push(b'%'),
        b'N' => {
            let digits = format!("{nsec:09}");
            let w = sp.width.unwrap_or(9);
            let mut s: String = digits.chars().take(w).collect();
            while s.len() < w {
                s.push('0');
            }
            out.extend_from_slice(s.as_bytes());
        }
        b'z' => zone(out, tm.gmtoff, colons, sp),
        _ => out.extend_from_slice(raw),
    }
}

/// A composite conversion: its parts are formatted plainly, then the whole
/// is padded to the requested width and case-converted.
fn sub(out: &mut Vec<u8>, fmt: &[u8], sp: &Spec, tm: &Tm, secs: i64, nsec: u32) {
    let mut tmp = Vec::new();
    strftime(&mut tmp, fmt, tm, secs, nsec);
    let s = String::from_utf8_lossy(&tmp).into_owned();
    text(out, &s, sp, false);
}

fn text(out: &mut Vec<u8>, s: &str, sp: &Spec, swap_lowers: bool) {
    let s = if sp.upper {
        s.to_ascii_uppercase()
    } else if sp.swap {
        if swap_lowers {
            s.to_ascii_lowercase()
        } else {
            s.to_ascii_uppercase()
        }
    } else {
        s.to_string()
    };
    if let Some(w) = sp.width {
        let fill = if sp.pad == Pad::Zero { b'0' } else { b' ' };
        for _ in s.len()..w {
            out.push(fill);
        }
    }
    out.extend_from_slice(s.as_bytes());
}

fn num(out: &mut Vec<u8>, v: i64, width: usize, fill: u8, sp: &Spec) {
    let fill = match sp.pad {
        Pad::Default => fill,
        Pad::Zero => b'0',
        Pad::Space => b' ',
        Pad::None => {
            out.extend_from_slice(v.to_string().as_bytes());
            return;
        }
    };
    let w = sp.width.unwrap_or(width);
    let digits = v.unsigned_abs().to_string();
    let len = digits.len() + usize::from(v < 0);
    if v < 0 && fill == b'0' {
        out.push(b'-');
    }
    for _ in len..w {
        out.push(fill);
    }
    if v < 0 && fill != b'0' {
        out.push(b'-');
    }
    out.extend_from_slice(digits.as_bytes());
}

fn zone(out: &mut Vec<u8>, off: i64, colons: usize, sp: &Spec) {
    let sign = if off < 0 { b'-' } else { b'+' };
    let a = off.unsigned_abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    let body = match colons {
        0 => format!("{h:02}{m:02}"),
        1 => format!("{h:02}:{m:02}"),
        2 => format!("{h:02}:{m:02}:{s:02}"),
        _ if s != 0 => format!("{h:02}:{m:02}:{s:02}"),
        _ if m != 0 => format!("{h:02}:{m:02}"),
        _ => format!("{h:02}"),
    };
    let mut v = vec![sign];
    v.extend_from_slice(body.as_bytes());
    if let Some(w) = sp.width {
        let fill = if sp.pad == Pad::Space { b' ' } else { b'0' };
        let mut padded = vec![sign];
        for _ in v.len()..w {
            padded.push(fill);
        }
        padded.extend_from_slice(body.as_bytes());
        v = padded;
    }
    out.extend_from_slice(&v);
}

/// ISO 8601 week-based year and week number.
fn iso_week(tm: &Tm) -> (i64, u32) {
    let wday = (tm.wday as i64 + 6) % 7; // Monday = 0
    let yday = tm.yday as i64;
    let week = (yday - wday + 10) / 7;
    let days_in = |y: i64| if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 { 366 } else { 365 };
    if week < 1 {
        let py = tm.year - 1;
        let pyday = yday + days_in(py);
        return (py, ((pyday - wday + 10) / 7) as u32);
    }
    if week == 53 {
        // The week belongs to next year if its Thursday does.
        let thursday = yday - wday + 3;
        if thursday >= days_in(tm.year) {
            return (tm.year + 1, 1);
        }
    }
    (tm.year, week as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tm() -> Tm {
        Tm {
            year: 2020,
            mon: 0,
            mday: 2,
            hour: 3,
            min: 4,
            sec: 5,
            wday: 4,
            yday: 1,
            isdst: 0,
            gmtoff: 0,
            zone: b"UTC".to_vec(),
        }
    }

    fn f(fmt: &str) -> String {
        let mut v = Vec::new();
        strftime(&mut v, fmt.as_bytes(), &tm(), 1577934245, 123456789);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn like_gnu_date() {
        assert_eq!(f("%Y-%m-%d %H:%M:%S.%N %z"), "2020-01-02 03:04:05.123456789 +0000");
        assert_eq!(
            f("%c|%x|%X|%D|%r|%h"),
            "Thu Jan  2 03:04:05 2020|01/02/20|03:04:05|01/02/20|03:04:05 AM|Jan"
        );
        assert_eq!(f("%U|%V|%W|%j|%u|%w"), "00|01|00|002|4|4");
        assert_eq!(
            f("%10N|%_3N|%03e|%^B|%Ey|%Od|%+4Y|%f|%"),
            "1234567890|123|002|JANUARY|20|02|2020|%f|%"
        );
        assert_eq!(f("%s|%:z|%::z|%:::z|%#Z|%^a"), "1577934245|+00:00|+00:00:00|+00|utc|THU");
    }
}
