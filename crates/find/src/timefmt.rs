//! Timestamps as find prints them (C locale): `%t`/`%a`/`%c` (ctime with
//! nanoseconds), the `%Tk` strftime subset with find's fractional-second
//! forms, and the `-ls` date column.
//!
//! A minimal stand-in for `cli::timefmt` (being written for lsr); once that
//! lands on main this should use it and shrink to find's specialities.

use ringio::sys::time::{localtime, Tm};

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

fn tm_of(secs: i64) -> Tm {
    localtime(secs).unwrap_or_default()
}

fn push_num(out: &mut Vec<u8>, n: i64, width: usize, pad: u8) {
    let s = n.abs().to_string();
    if n < 0 {
        out.push(b'-');
    }
    for _ in s.len()..width {
        out.push(pad);
    }
    out.extend_from_slice(s.as_bytes());
}

fn frac(out: &mut Vec<u8>, nsec: i64) {
    // find prints ten digits: the nanoseconds and a trailing 0.
    out.push(b'.');
    push_num(out, nsec, 9, b'0');
    out.push(b'0');
}

/// `Tue Nov 14 22:13:20.1234567890 2023` (%t, %a, %c).
pub fn ctime(out: &mut Vec<u8>, secs: i64, nsec: i64) {
    let tm = tm_of(secs);
    out.extend_from_slice(&DAYS[tm.wday as usize % 7].as_bytes()[..3]);
    out.push(b' ');
    out.extend_from_slice(&MONTHS[tm.mon as usize % 12].as_bytes()[..3]);
    out.push(b' ');
    push_num(out, tm.mday as i64, 2, b' ');
    out.push(b' ');
    hms(out, &tm);
    frac(out, nsec);
    out.push(b' ');
    push_num(out, tm.year, 1, b'0');
}

fn hms(out: &mut Vec<u8>, tm: &Tm) {
    push_num(out, tm.hour as i64, 2, b'0');
    out.push(b':');
    push_num(out, tm.min as i64, 2, b'0');
    out.push(b':');
    push_num(out, tm.sec as i64, 2, b'0');
}

fn iso_week(tm: &Tm) -> (i64, i64) {
    // ISO 8601 week number and week-based year.
    let wday = (tm.wday as i64 + 6) % 7; // Monday = 0
    let yday = tm.yday as i64;
    let mut year = tm.year;
    let mut week = (yday - wday + 10) / 7;
    let weeks_in = |y: i64| {
        let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        // Jan 1 weekday (Monday = 0) of year y from this year's data.
        let jan1 = (wday - yday).rem_euclid(7);
        let jan1_y = if y == tm.year {
            jan1
        } else if y == tm.year - 1 {
            (jan1 - if leap(y) { 366 } else { 365 }).rem_euclid(7)
        } else {
            (jan1 + if leap(tm.year) { 366 } else { 365 }).rem_euclid(7)
        };
        if jan1_y == 3 || (jan1_y == 2 && leap(y)) {
            53
        } else {
            52
        }
    };
    if week < 1 {
        year -= 1;
        week = weeks_in(year);
    } else if week > weeks_in(year) {
        year += 1;
        week = 1;
    }
    (year, week)
}

/// One `%T<c>` conversion. Returns false for an unknown letter.
pub fn strftime_one(out: &mut Vec<u8>, c: u8, secs: i64, nsec: i64) -> bool {
    if c == b'@' {
        push_num(out, secs, 1, b'0');
        frac(out, nsec);
        return true;
    }
    let tm = tm_of(secs);
    let hour12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 } as i64;
    match c {
        b'a' => out.extend_from_slice(&DAYS[tm.wday as usize % 7].as_bytes()[..3]),
        b'A' => out.extend_from_slice(DAYS[tm.wday as usize % 7].as_bytes()),
        b'b' | b'h' => out.extend_from_slice(&MONTHS[tm.mon as usize % 12].as_bytes()[..3]),
        b'B' => out.extend_from_slice(MONTHS[tm.mon as usize % 12].as_bytes()),
        b'c' => {
            out.extend_from_slice(&DAYS[tm.wday as usize % 7].as_bytes()[..3]);
            out.push(b' ');
            out.extend_from_slice(&MONTHS[tm.mon as usize % 12].as_bytes()[..3]);
            out.push(b' ');
            push_num(out, tm.mday as i64, 2, b' ');
            out.push(b' ');
            hms(out, &tm);
            out.push(b' ');
            push_num(out, tm.year, 1, b'0');
        }
        b'C' => push_num(out, tm.year.div_euclid(100), 2, b'0'),
        b'd' => push_num(out, tm.mday as i64, 2, b'0'),
        b'D' | b'x' => {
            push_num(out, tm.mon as i64 + 1, 2, b'0');
            out.push(b'/');
            push_num(out, tm.mday as i64, 2, b'0');
            out.push(b'/');
            push_num(out, tm.year.rem_euclid(100), 2, b'0');
        }
        b'e' => push_num(out, tm.mday as i64, 2, b' '),
        b'F' => {
            push_num(out, tm.year, 1, b'0');
            out.push(b'-');
            push_num(out, tm.mon as i64 + 1, 2, b'0');
            out.push(b'-');
            push_num(out, tm.mday as i64, 2, b'0');
        }
        b'g' => push_num(out, iso_week(&tm).0.rem_euclid(100), 2, b'0'),
        b'G' => push_num(out, iso_week(&tm).0, 1, b'0'),
        b'H' => push_num(out, tm.hour as i64, 2, b'0'),
        b'I' => push_num(out, hour12, 2, b'0'),
        b'j' => push_num(out, tm.yday as i64 + 1, 3, b'0'),
        b'k' => push_num(out, tm.hour as i64, 2, b' '),
        b'l' => push_num(out, hour12, 2, b' '),
        b'm' => push_num(out, tm.mon as i64 + 1, 2, b'0'),
        b'M' => push_num(out, tm.min as i64, 2, b'0'),
        b'n' => out.push(b'\n'),
        b'p' => out.extend_from_slice(if tm.hour < 12 { b"AM" } else { b"PM" }),
        b'r' => {
            push_num(out, hour12, 2, b'0');
            out.push(b':');
            push_num(out, tm.min as i64, 2, b'0');
            out.push(b':');
            push_num(out, tm.sec as i64, 2, b'0');
            out.extend_from_slice(if tm.hour < 12 { b" AM" } else { b" PM" });
        }
        b'R' => {
            push_num(out, tm.hour as i64, 2, b'0');
            out.push(b':');
            push_num(out, tm.min as i64, 2, b'0');
        }
        b's' => push_num(out, secs, 1, b'0'),
        b'S' => {
            push_num(out, tm.sec as i64, 2, b'0');
            frac(out, nsec);
        }
        b't' => out.push(b'\t'),
        b'T' | b'X' => {
            hms(out, &tm);
            frac(out, nsec);
        }
        b'u' => push_num(out, if tm.wday == 0 { 7 } else { tm.wday as i64 }, 1, b'0'),
        b'U' => push_num(out, (tm.yday as i64 + 7 - tm.wday as i64) / 7, 2, b'0'),
        b'V' => push_num(out, iso_week(&tm).1, 2, b'0'),
        b'w' => push_num(out, tm.wday as i64, 1, b'0'),
        b'W' => push_num(out, (tm.yday as i64 + 7 - (tm.wday as i64 + 6) % 7) / 7, 2, b'0'),
        b'y' => push_num(out, tm.year.rem_euclid(100), 2, b'0'),
        b'Y' => push_num(out, tm.year, 1, b'0'),
        b'z' => {
            let off = tm.gmtoff;
            out.push(if off < 0 { b'-' } else { b'+' });
            push_num(out, off.abs() / 3600, 2, b'0');
            push_num(out, off.abs() % 3600 / 60, 2, b'0');
        }
        b'Z' => out.extend_from_slice(&tm.zone),
        b'+' => {
            strftime_one(out, b'F', secs, nsec);
            out.push(b'+');
            strftime_one(out, b'T', secs, nsec);
        }
        _ => return false,
    }
    true
}

/// The -ls date column: `Nov 14 22:13` for times in the last six months,
/// `Nov 14  2023` otherwise.
pub fn ls_date(out: &mut Vec<u8>, secs: i64, nsec: i64, now: (i64, i64)) {
    let tm = tm_of(secs);
    out.extend_from_slice(&MONTHS[tm.mon as usize % 12].as_bytes()[..3]);
    out.push(b' ');
    push_num(out, tm.mday as i64, 2, b' ');
    out.push(b' ');
    // Half a Gregorian year, as GNU uses.
    const SIX_MONTHS: i64 = 31_556_952 / 2;
    let recent = (secs, nsec) > (now.0 - SIX_MONTHS, now.1) && (secs, nsec) <= (now.0, now.1);
    if recent {
        push_num(out, tm.hour as i64, 2, b'0');
        out.push(b':');
        push_num(out, tm.min as i64, 2, b'0');
    } else {
        out.push(b' ');
        push_num(out, tm.year, 1, b'0');
    }
}
