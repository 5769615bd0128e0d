//! Dates for `-newerXt`, in the grammar of GNU's parse_datetime (the one
//! `date -d` reads): calendar dates (`2023-01-15`, `1/15/2023`, `15 Jan
//! 2023`, `Jan 15, 2023`, `15-jan-2023`), times (`14:30`, `2:30pm`,
//! `14:30:05.25`), ISO 8601 `dateTtime`, zones (`UTC`, `EST`, `CEST`,
//! military letters, `+0100`, `+01:00`, `UTC+3`, a leading `TZ="Zone"`),
//! days of the week (`friday`, `next friday`), relative items (`2 days
//! ago`, `+1 hour`, `last week`, `yesterday`, `now`), bare numbers
//! (`20230115`, `1430`), comments in parentheses, and `@SECONDS[.frac]`.
//!
//! Meaning, as GNU's: missing date fields come from now; the time of day
//! is midnight when a date or a weekday is given without a time, and now's
//! when only relative items are; a weekday moves forward to that day;
//! relative years, months and days are added to the calendar fields,
//! hours, minutes and seconds to the instant. A zone's offset makes the
//! whole computation run at that offset; otherwise it is the local zone's.

use cli::timefmt::Timestamp;

/// Parses `input` relative to `now`; `None` when GNU couldn't figure it
/// out either.
pub fn parse(input: &[u8], now: Timestamp) -> Option<Timestamp> {
    let mut s = input;
    while let Some((c, rest)) = s.split_first() {
        if !c.is_ascii_whitespace() {
            break;
        }
        s = rest;
    }
    if let Some(rest) = s.strip_prefix(b"TZ=\"") {
        let mut zone = Vec::new();
        let mut i = 0;
        loop {
            match rest.get(i)? {
                b'\\' if matches!(rest.get(i + 1), Some(b'\\' | b'"')) => {
                    zone.push(rest[i + 1]);
                    i += 2;
                }
                b'"' => break,
                &c => {
                    zone.push(c);
                    i += 1;
                }
            }
        }
        // Blanks may follow the zone, before `@SECONDS` too.
        let body = rest[i + 1..].trim_ascii_start();
        return libcw::time::with_zone(&zone, || parse_in_zone(body, now)).flatten();
    }
    parse_in_zone(s, now)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok {
    /// A number: value, digit count, whether it had a sign.
    Num {
        v: i64,
        digits: usize,
        signed: bool,
    },
    /// A number with a fraction: seconds and nanoseconds (floored).
    Dec {
        sec: i64,
        ns: i64,
        signed: bool,
    },
    Month(i64),
    Day(i64),
    Meridian(u8),
    /// A zone's offset in minutes east of UTC; `dst` for a daylight one.
    Zone {
        off: i64,
        dst: bool,
    },
    /// A local zone abbreviation: standard (0) or daylight (1) time.
    LocalZone(i32),
    Dst,
    /// Relative unit: (years, months, days, seconds) per one.
    Unit(Rel),
    Ordinal(i64),
    Ago,
    /// `tomorrow`, `yesterday`, `today`, `now`: days.
    DayShift(i64),
    Char(u8),
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Rel {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    ns: i64,
}

impl Rel {
    fn times(self, n: i64) -> Option<Rel> {
        Some(Rel {
            year: self.year.checked_mul(n)?,
            month: self.month.checked_mul(n)?,
            day: self.day.checked_mul(n)?,
            hour: self.hour.checked_mul(n)?,
            minute: self.minute.checked_mul(n)?,
            second: self.second.checked_mul(n)?,
            ns: self.ns * n,
        })
    }

    fn plus(self, o: Rel) -> Option<Rel> {
        Some(Rel {
            year: self.year.checked_add(o.year)?,
            month: self.month.checked_add(o.month)?,
            day: self.day.checked_add(o.day)?,
            hour: self.hour.checked_add(o.hour)?,
            minute: self.minute.checked_add(o.minute)?,
            second: self.second.checked_add(o.second)?,
            ns: self.ns + o.ns,
        })
    }
}

const MONTHS: [&str; 12] = [
    "JANUARY",
    "FEBRUARY",
    "MARCH",
    "APRIL",
    "MAY",
    "JUNE",
    "JULY",
    "AUGUST",
    "SEPTEMBER",
    "OCTOBER",
    "NOVEMBER",
    "DECEMBER",
];

/// Day names and the other spellings GNU knows, with their day numbers.
const DAYS: [(&str, i64); 11] = [
    ("SUNDAY", 0),
    ("MONDAY", 1),
    ("TUESDAY", 2),
    ("TUES", 2),
    ("WEDNESDAY", 3),
    ("WEDNES", 3),
    ("THURSDAY", 4),
    ("THUR", 4),
    ("THURS", 4),
    ("FRIDAY", 5),
    ("SATURDAY", 6),
];

/// Zone abbreviations: offset in minutes, daylight.
const ZONES: &[(&str, i64, bool)] = &[
    ("GMT", 0, false),
    ("UT", 0, false),
    ("UTC", 0, false),
    ("WET", 0, false),
    ("WEST", 0, true),
    ("BST", 0, true),
    ("ART", -180, false),
    ("BRT", -180, false),
    ("BRST", -180, true),
    ("NST", -210, false),
    ("NDT", -210, true),
    ("AST", -240, false),
    ("ADT", -240, true),
    ("CLT", -240, false),
    ("CLST", -240, true),
    ("EST", -300, false),
    ("EDT", -300, true),
    ("CST", -360, false),
    ("CDT", -360, true),
    ("MST", -420, false),
    ("MDT", -420, true),
    ("PST", -480, false),
    ("PDT", -480, true),
    ("AKST", -540, false),
    ("AKDT", -540, true),
    ("HST", -600, false),
    ("HAST", -600, false),
    ("HADT", -600, true),
    ("SST", -720, false),
    ("WAT", 60, false),
    ("CET", 60, false),
    ("CEST", 60, true),
    ("MET", 60, false),
    ("MEZ", 60, false),
    ("MEST", 60, true),
    ("MESZ", 60, true),
    ("EET", 120, false),
    ("EEST", 120, true),
    ("CAT", 120, false),
    ("SAST", 120, false),
    ("EAT", 180, false),
    ("MSK", 180, false),
    ("MSD", 180, true),
    ("IST", 330, false),
    ("SGT", 480, false),
    ("KST", 540, false),
    ("JST", 540, false),
    ("GST", 600, false),
    ("NZST", 720, false),
    ("NZDT", 720, true),
];

const ORDINALS: [(&str, i64); 14] = [
    ("LAST", -1),
    ("THIS", 0),
    ("NEXT", 1),
    ("FIRST", 1),
    ("THIRD", 3),
    ("FOURTH", 4),
    ("FIFTH", 5),
    ("SIXTH", 6),
    ("SEVENTH", 7),
    ("EIGHTH", 8),
    ("NINTH", 9),
    ("TENTH", 10),
    ("ELEVENTH", 11),
    ("TWELFTH", 12),
];

fn unit(word: &str) -> Option<Rel> {
    let d = Rel::default();
    Some(match word {
        "YEAR" => Rel { year: 1, ..d },
        "MONTH" => Rel { month: 1, ..d },
        "FORTNIGHT" => Rel { day: 14, ..d },
        "WEEK" => Rel { day: 7, ..d },
        "DAY" => Rel { day: 1, ..d },
        "HOUR" => Rel { hour: 1, ..d },
        "MINUTE" | "MIN" => Rel { minute: 1, ..d },
        "SECOND" | "SEC" => Rel { second: 1, ..d },
        _ => return None,
    })
}

/// The local zone's abbreviations (now and half a year away), which
/// stand for local time with that daylight setting.
struct Local {
    names: Vec<(Vec<u8>, i32)>,
}

fn lookup_zone(w: &str, local: &Local) -> Option<Tok> {
    for u in ["GMT", "UT", "UTC"] {
        if w == u {
            return Some(Tok::Zone { off: 0, dst: false });
        }
    }
    for (n, dst) in &local.names {
        if n.as_slice() == w.as_bytes() {
            return Some(Tok::LocalZone(*dst));
        }
    }
    ZONES.iter().find(|z| z.0 == w).map(|z| Tok::Zone { off: z.1, dst: z.2 })
}

fn lookup_word(word: &[u8], local: &Local) -> Option<Tok> {
    let up: String = word.iter().map(|c| c.to_ascii_uppercase() as char).collect();
    let w = up.as_str();
    match w {
        "AM" | "A.M." => return Some(Tok::Meridian(b'a')),
        "PM" | "P.M." => return Some(Tok::Meridian(b'p')),
        _ => {}
    }
    let abbrev = w.len() == 3 || (w.len() == 4 && w.ends_with('.'));
    let matches = |name: &str| if abbrev { name.get(..3) == w.get(..3) } else { name == w };
    for (i, m) in MONTHS.iter().enumerate() {
        if matches(m) || (!abbrev && w == "SEPT" && i == 8) {
            return Some(Tok::Month(i as i64 + 1));
        }
    }
    for (d, n) in DAYS {
        if matches(d) {
            return Some(Tok::Day(n));
        }
    }
    if let Some(t) = lookup_zone(w, local) {
        return Some(t);
    }
    if w == "DST" {
        return Some(Tok::Dst);
    }
    if let Some(r) = unit(w) {
        return Some(Tok::Unit(r));
    }
    if let Some(r) = w.strip_suffix('S').and_then(unit) {
        return Some(Tok::Unit(r));
    }
    match w {
        "TOMORROW" => return Some(Tok::DayShift(1)),
        "YESTERDAY" => return Some(Tok::DayShift(-1)),
        "TODAY" | "NOW" => return Some(Tok::DayShift(0)),
        "AGO" => return Some(Tok::Ago),
        _ => {}
    }
    if let Some((_, n)) = ORDINALS.iter().find(|o| o.0 == w) {
        return Some(Tok::Ordinal(*n));
    }
    if w.len() == 1 {
        let c = w.as_bytes()[0];
        let hours = match c {
            b'A'..=b'I' => (c - b'A' + 1) as i64,
            b'K'..=b'M' => (c - b'K' + 10) as i64,
            b'N'..=b'Y' => -((c - b'N' + 1) as i64),
            b'Z' => 0,
            _ => return None,
        };
        return Some(Tok::Zone { off: hours * 60, dst: false });
    }
    // "a.m."-style spellings of zones: without the periods.
    if w.contains('.') {
        let bare: String = w.chars().filter(|&c| c != '.').collect();
        return lookup_zone(&bare, local);
    }
    None
}

/// Splits the text into tokens as GNU's scanner does: a sign not followed
/// by a digit is dropped, words are letters and periods, parentheses
/// enclose comments.
fn lex(s: &[u8], local: &Local) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || c == b'-' || c == b'+' {
            let mut neg = false;
            let mut signed = false;
            if c == b'-' || c == b'+' {
                neg = c == b'-';
                signed = true;
                i += 1;
                while i < s.len() && s[i].is_ascii_whitespace() {
                    i += 1;
                }
                if i >= s.len() || !s[i].is_ascii_digit() {
                    continue;
                }
            }
            let start = i;
            let mut v: i64 = 0;
            while i < s.len() && s[i].is_ascii_digit() {
                v = v.checked_mul(10)?.checked_add((s[i] - b'0') as i64)?;
                i += 1;
            }
            let digits = i - start;
            if i + 1 < s.len() && (s[i] == b'.' || s[i] == b',') && s[i + 1].is_ascii_digit() {
                i += 1;
                let mut ns: i64 = 0;
                let mut n = 0;
                let mut rest_nonzero = false;
                while i < s.len() && s[i].is_ascii_digit() {
                    if n < 9 {
                        ns = ns * 10 + (s[i] - b'0') as i64;
                        n += 1;
                    } else if s[i] != b'0' {
                        rest_nonzero = true;
                    }
                    i += 1;
                }
                while n < 9 {
                    ns *= 10;
                    n += 1;
                }
                let (mut sec, mut ns) = (v, ns);
                if neg {
                    // Floor: -1.5 is -2 and a half.
                    if ns > 0 || rest_nonzero {
                        sec = -sec - 1;
                        ns = 1_000_000_000 - ns - rest_nonzero as i64;
                    } else {
                        sec = -sec;
                    }
                }
                out.push(Tok::Dec { sec, ns, signed });
            } else {
                out.push(Tok::Num { v: if neg { -v } else { v }, digits, signed });
            }
            continue;
        }
        if c.is_ascii_alphabetic() {
            let start = i;
            while i < s.len() && (s[i].is_ascii_alphabetic() || s[i] == b'.') {
                i += 1;
            }
            out.push(lookup_word(&s[start..i], local)?);
            continue;
        }
        if c == b'(' {
            let mut depth = 0;
            while i < s.len() {
                match s[i] {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                i += 1;
                if depth == 0 {
                    break;
                }
            }
            // An unclosed comment runs to the end, as GNU's does.
            continue;
        }
        out.push(Tok::Char(c));
        i += 1;
    }
    Some(out)
}

/// What the items said.
#[derive(Default)]
struct DateFields {
    year: Option<(i64, usize)>,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    sec: i64,
    ns: i64,
    meridian: u8,
    day_ordinal: i64,
    day_number: i64,
    /// Minutes east of UTC, once a zone was given.
    zone: Option<i64>,
    local_isdst: Option<i32>,
    dst_added: bool,
    rel: Rel,
    times: u32,
    dates: u32,
    days: u32,
    zones: u32,
    local_zones: u32,
    rels: bool,
}

/// The items of a lexed date string, read one by one into [`DateFields`].
struct DateParser<'a> {
    t: &'a [Tok],
    i: usize,
    fields: DateFields,
}

/// The token, if it is a number written without a sign: (value, digits).
fn unsigned_num(t: Option<Tok>) -> Option<(i64, usize)> {
    match t {
        Some(Tok::Num { v, digits, signed: false }) => Some((v, digits)),
        _ => None,
    }
}

/// The token, if it is a number written with a sign: (value, digits).
fn signed_num(t: Option<Tok>) -> Option<(i64, usize)> {
    match t {
        Some(Tok::Num { v, digits, signed: true }) => Some((v, digits)),
        _ => None,
    }
}

impl DateParser<'_> {
    fn peek(&self, k: usize) -> Option<Tok> {
        self.t.get(self.i + k).copied()
    }

    fn is_char(&self, k: usize, c: u8) -> bool {
        self.peek(k) == Some(Tok::Char(c))
    }

    fn is_unit(&self, k: usize) -> bool {
        matches!(self.peek(k), Some(Tok::Unit(_)))
    }

    fn set_time(&mut self, h: i64, m: i64, s: i64, ns: i64, mer: u8) {
        self.fields.times += 1;
        self.fields.hour = h;
        self.fields.minute = m;
        self.fields.sec = s;
        self.fields.ns = ns;
        self.fields.meridian = mer;
    }

    fn set_date(&mut self, y: Option<(i64, usize)>, m: i64, d: i64) {
        self.fields.dates += 1;
        if y.is_some() {
            self.fields.year = y;
        }
        self.fields.month = m;
        self.fields.day = d;
    }

    fn add_rel(&mut self, r: Rel) -> Option<()> {
        self.fields.rel = self.fields.rel.plus(r)?;
        self.fields.rels = true;
        Some(())
    }

    /// `[+-]hh[mm]` or `[+-]hh:mm` after a time or a zone: minutes.
    fn offset(&mut self) -> Option<i64> {
        let (v, digits) = signed_num(self.peek(0))?;
        self.i += 1;
        let minutes = if self.is_char(0, b':') {
            // The minutes have no limit of their own (`+05:60` is +06:00,
            // `+00:1440` a day), only the whole offset has.
            let (mm, _) = unsigned_num(self.peek(1))?;
            self.i += 2;
            v * 60 + if v < 0 { -mm } else { mm }
        } else if digits <= 2 {
            v * 60
        } else {
            (v / 100) * 60 + v % 100
        };
        if minutes.abs() > 24 * 60 {
            return None;
        }
        Some(minutes)
    }

    fn zone_offset(&mut self) -> Option<()> {
        let m = self.offset()?;
        self.fields.zone = Some(m);
        self.fields.zones += 1;
        Some(())
    }

    /// Seconds (with a fraction) after `hh:mm:`.
    fn seconds(&mut self) -> Option<(i64, i64)> {
        let r = match self.peek(0)? {
            Tok::Num { v, signed: false, .. } => (v, 0),
            Tok::Dec { sec, ns, signed: false } => (sec, ns),
            _ => return None,
        };
        self.i += 1;
        Some(r)
    }

    /// A time of day starting at the number under the cursor, with an
    /// optional meridian, or (`iso`) an optional zone offset.
    fn time(&mut self, iso_only: bool) -> Option<()> {
        let (h, _) = unsigned_num(self.peek(0))?;
        if !iso_only {
            if let Some(Tok::Meridian(m)) = self.peek(1) {
                self.i += 2;
                self.set_time(h, 0, 0, 0, m);
                return Some(());
            }
        }
        if !self.is_char(1, b':') {
            // `hh` followed by an offset.
            self.i += 1;
            self.set_time(h, 0, 0, 0, 0);
            return self.zone_offset();
        }
        let (m, _) = unsigned_num(self.peek(2))?;
        self.i += 3;
        let (mut s, mut ns) = (0, 0);
        if self.is_char(0, b':') {
            self.i += 1;
            (s, ns) = self.seconds()?;
        }
        if let (false, Some(Tok::Meridian(mer))) = (iso_only, self.peek(0)) {
            self.i += 1;
            self.set_time(h, m, s, ns, mer);
            return Some(());
        }
        self.set_time(h, m, s, ns, 0);
        // A signed number right after a time is its zone, even before a
        // unit (`10:00 +2 hours` is 10:00 at +02 plus one hour), as GNU's.
        if signed_num(self.peek(0)).is_some() {
            self.zone_offset()?;
        }
        Some(())
    }

    /// A relative item starting under the cursor, if one does.
    fn rel(&mut self) -> Option<bool> {
        let (n, r) = match (self.peek(0), self.peek(1)) {
            (Some(Tok::Ordinal(n)), Some(Tok::Unit(r))) => (n, r),
            (Some(Tok::Num { v, .. }), Some(Tok::Unit(r))) => (v, r),
            (Some(Tok::Dec { sec, ns, .. }), Some(Tok::Unit(r))) if r.second == 1 => {
                self.i += 2;
                let r = Rel { second: sec, ns, ..Rel::default() };
                return self.after_rel(r).map(|_| true);
            }
            (Some(Tok::Unit(r)), _) => {
                self.i += 1;
                return self.after_rel(r).map(|_| true);
            }
            _ => return Some(false),
        };
        self.i += 2;
        self.after_rel(r.times(n)?).map(|_| true)
    }

    fn after_rel(&mut self, r: Rel) -> Option<()> {
        if self.peek(0) == Some(Tok::Ago) {
            self.i += 1;
            return self.add_rel(r.times(-1)?);
        }
        self.add_rel(r)
    }

    /// A bare number: a year after a date, a date of more than four
    /// digits, else a time (`hh` or `hhmm`).
    fn number(&mut self, v: i64, digits: usize) {
        let fields = &mut self.fields;
        if fields.dates > 0
            && fields.year.is_none()
            && !fields.rels
            && (fields.times > 0 || digits > 2)
        {
            fields.year = Some((v, digits));
        } else if digits > 4 {
            fields.dates += 1;
            fields.day = v % 100;
            fields.month = (v / 100) % 100;
            fields.year = Some((v / 10000, digits - 4));
        } else {
            let (h, m) = if digits <= 2 { (v, 0) } else { (v / 100, v % 100) };
            self.set_time(h, m, 0, 0, 0);
        }
    }

    /// One item of the date string, by its first token; None where the
    /// tokens make no item.
    fn item(&mut self) -> Option<()> {
        let t0 = self.peek(0)?;
        match t0 {
            Tok::Num { v, digits, signed: false } => self.number_item(v, digits),
            Tok::Num { signed: true, .. } | Tok::Dec { .. } => {
                if self.rel()? {
                    Some(())
                } else {
                    None
                }
            }
            Tok::Month(m) => self.month_item(m),
            Tok::Day(d) => {
                self.i += 1;
                if self.is_char(0, b',') {
                    self.i += 1;
                }
                self.day(0, d);
                Some(())
            }
            Tok::Ordinal(n) => {
                if let Some(Tok::Day(d)) = self.peek(1) {
                    self.i += 2;
                    self.day(n, d);
                    return Some(());
                }
                if self.rel()? {
                    Some(())
                } else {
                    None
                }
            }
            Tok::Unit(_) => self.rel().and_then(|ok| ok.then_some(())),
            Tok::DayShift(n) => {
                self.i += 1;
                self.add_rel(Rel { day: n, ..Rel::default() })
            }
            Tok::Zone { off, dst } => self.zone_item(off, dst),
            Tok::LocalZone(isdst) => self.local_zone_item(isdst),
            Tok::Meridian(_) | Tok::Dst | Tok::Ago | Tok::Char(_) => None,
        }
    }

    /// An item that starts with an unsigned number: a date (`y-m-d`,
    /// `m/d[/y]`, `d month [y]`), an ordinal day, a time, a relative
    /// item, or a bare number.
    fn number_item(&mut self, v: i64, digits: usize) -> Option<()> {
        // Dates first: they are the longest matches.
        if let (Some((m, _)), Some((d, _))) = (signed_num(self.peek(1)), signed_num(self.peek(2))) {
            if !self.is_unit(2) {
                self.i += 3;
                self.set_date(Some((v, digits)), -m, -d);
                // ISO 8601: dateTtime.
                if self.peek(0) == Some(Tok::Zone { off: -420, dst: false })
                    && unsigned_num(self.peek(1)).is_some()
                {
                    self.i += 1;
                    return self.time(true);
                }
                return Some(());
            }
        }
        if self.is_char(1, b'/') {
            let (b, _) = unsigned_num(self.peek(2))?;
            if self.is_char(3, b'/') {
                let (c, cd) = unsigned_num(self.peek(4))?;
                self.i += 5;
                if digits >= 4 {
                    self.set_date(Some((v, digits)), b, c);
                } else {
                    self.set_date(Some((c, cd)), v, b);
                }
            } else {
                self.i += 3;
                self.set_date(None, v, b);
            }
            return Some(());
        }
        if let Some(Tok::Month(m)) = self.peek(1) {
            match self.peek(2) {
                Some(Tok::Num { v: y, digits: yd, signed }) => {
                    self.i += 3;
                    let y = if signed { -y } else { y };
                    self.set_date(Some((y, yd)), m, v);
                }
                _ => {
                    self.i += 2;
                    self.set_date(None, m, v);
                }
            }
            return Some(());
        }
        if let Some(Tok::Day(d)) = self.peek(1) {
            self.i += 2;
            self.day(v, d);
            return Some(());
        }
        if matches!(self.peek(1), Some(Tok::Meridian(_))) || self.is_char(1, b':') {
            return self.time(false);
        }
        if self.rel()? {
            return Some(());
        }
        if signed_num(self.peek(1)).is_some() {
            if self.is_unit(2) {
                // `hybrid`: a number, then a signed relative item.
                self.i += 1;
                self.number(v, digits);
                return self.rel().and_then(|ok| ok.then_some(()));
            }
            return self.time(true);
        }
        self.i += 1;
        self.number(v, digits);
        Some(())
    }

    /// `month d[, y]` or `month-d-y`.
    fn month_item(&mut self, m: i64) -> Option<()> {
        match (self.peek(1), self.peek(2)) {
            (
                Some(Tok::Num { v: d, signed: true, .. }),
                Some(Tok::Num { v: y, digits: yd, signed: true }),
            ) => {
                let (d, y, yd) = (-d, -y, yd);
                self.i += 3;
                self.set_date(Some((y, yd)), m, d);
            }
            (Some(Tok::Num { v: d, signed: false, .. }), Some(Tok::Char(b','))) => {
                let (y, yd) = unsigned_num(self.peek(3))?;
                self.i += 4;
                self.set_date(Some((y, yd)), m, d);
            }
            (Some(Tok::Num { v: d, signed: false, .. }), _) => {
                self.i += 2;
                self.set_date(None, m, d);
            }
            _ => return None,
        }
        Some(())
    }

    /// A named zone, with `DST` after it and a numeric offset added.
    fn zone_item(&mut self, off: i64, dst: bool) -> Option<()> {
        self.i += 1;
        let mut off = off + if dst { 60 } else { 0 };
        if self.peek(0) == Some(Tok::Dst) && !dst {
            self.i += 1;
            off += 60;
        }
        if signed_num(self.peek(0)).is_some() && !self.is_unit(1) {
            off += self.offset()?;
        }
        self.fields.zone = Some(off);
        self.fields.zones += 1;
        Some(())
    }

    /// The local zone's standard or summer name, maybe followed by `DST`.
    fn local_zone_item(&mut self, isdst: i32) -> Option<()> {
        self.i += 1;
        let mut isdst = isdst;
        if self.peek(0) == Some(Tok::Dst) {
            self.i += 1;
            isdst = 1;
            self.fields.dst_added = true;
        }
        self.fields.local_isdst = Some(isdst);
        self.fields.local_zones += 1;
        Some(())
    }

    fn day(&mut self, ordinal: i64, number: i64) {
        self.fields.days += 1;
        self.fields.day_ordinal = ordinal;
        self.fields.day_number = number;
    }
}

fn to_hour(h: i64, mer: u8) -> Option<i64> {
    match mer {
        0 => (0..=23).contains(&h).then_some(h),
        b'a' => (1..=12).contains(&h).then_some(if h == 12 { 0 } else { h }),
        _ => (1..=12).contains(&h).then_some(if h == 12 { 12 } else { h + 12 }),
    }
}

fn to_year(y: (i64, usize)) -> i64 {
    let (v, digits) = y;
    if digits == 2 && v >= 0 {
        v + if v < 69 { 2000 } else { 1900 }
    } else {
        v
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1..=12).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn month_days(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// mktime at a fixed offset (minutes east), fields carrying over: the
/// time, and the normalised (year, month 0..=11, day, weekday).
fn fixed_mktime(
    y: i64,
    mon0: i64,
    d: i64,
    h: i64,
    mi: i64,
    s: i64,
    off_min: i64,
) -> Option<(i64, (i64, i64, i64, i64))> {
    let y = y.checked_add(mon0.div_euclid(12))?;
    let m = mon0.rem_euclid(12) + 1;
    if y.abs() > 1 << 40 || d.abs() > 1 << 40 {
        return None;
    }
    let days = days_from_civil(y, m, 1) + d - 1;
    let t = days
        .checked_mul(86400)?
        .checked_add(h.checked_mul(3600)?)?
        .checked_add(mi.checked_mul(60)?)?
        .checked_add(s)?
        .checked_sub(off_min * 60)?;
    let local_days = (t + off_min * 60).div_euclid(86400);
    let (ny, nm, nd) = cli::timefmt::civil_from_days(local_days);
    Some((t, (ny, nm, nd, (local_days + 4).rem_euclid(7))))
}

fn parse_in_zone(s: &[u8], now: Timestamp) -> Option<Timestamp> {
    use libcw::time::localtime;
    if let Some(rest) = s.strip_prefix(b"@") {
        return epoch_seconds(rest);
    }
    let now_tm = localtime(now.secs)?;
    let toks = lex(s, &local_zone_names(now.secs))?;
    let mut p = DateParser {
        t: &toks,
        i: 0,
        fields: DateFields {
            year: Some((now_tm.year, 4)),
            month: now_tm.mon as i64 + 1,
            day: now_tm.mday as i64,
            hour: now_tm.hour as i64,
            minute: now_tm.min as i64,
            sec: now_tm.sec as i64,
            ns: i64::from(now.nsec),
            ..DateFields::default()
        },
    };
    // Dates that give no year keep now's.
    let now_year = p.fields.year;
    p.fields.year = None;
    while p.i < toks.len() {
        p.item()?;
    }
    let fields = &p.fields;
    if fields.times > 1
        || fields.dates > 1
        || fields.days > 1
        || fields.zones > 1
        || fields.local_zones > 1
    {
        return None;
    }
    if fields.zones > 0 && fields.local_zones > 0 {
        return None;
    }
    let year = to_year(fields.year.or(now_year)?);
    let (month, day) = (fields.month, fields.day);
    if !(1..=12).contains(&month) || day < 1 || day > month_days(year, month) {
        return None;
    }
    let (hour, minute, sec, mut ns) = fields.clock()?;
    let date = (year, month - 1, day);
    let mut t = match fields.zone {
        Some(off) => fields.fixed_zone_time(off, date, (hour, minute, sec))?,
        None => fields.local_time(date, (hour, minute, sec), now_tm.isdst)?,
    };
    let rel = fields.rel;
    t = t
        .checked_add(rel.hour.checked_mul(3600)?)?
        .checked_add(rel.minute.checked_mul(60)?)?
        .checked_add(rel.second)?;
    ns += rel.ns;
    t = t.checked_add(ns.div_euclid(1_000_000_000))?;
    stamp(t, ns.rem_euclid(1_000_000_000))
}

/// A parsed time as a [`Timestamp`]; `ns` is a fraction of a second
/// already brought into `0..10^9`.
fn stamp(secs: i64, ns: i64) -> Option<Timestamp> {
    Some(Timestamp::new(secs, u32::try_from(ns).ok()?))
}

/// `@SECONDS[.FRACTION]`: a count since the epoch, nothing else.
fn epoch_seconds(rest: &[u8]) -> Option<Timestamp> {
    let toks = lex(rest, &Local { names: Vec::new() })?;
    match toks.as_slice() {
        [Tok::Num { v, .. }] => Some(Timestamp::new(*v, 0)),
        [Tok::Dec { sec, ns, .. }] => stamp(*sec, *ns),
        _ => None,
    }
}

/// The local zone's names, upper-cased for the lexer, found as GNU finds
/// them: now's, and that of the first of now plus 90, 180 and 270 days
/// whose daylight setting differs from now's (so from just after a
/// spring change, New York's `EST` is found in December).
fn local_zone_names(now: i64) -> Local {
    let mut local = Local { names: Vec::new() };
    let Some(first) = libcw::time::localtime(now) else {
        return local;
    };
    let dst = |isdst: i32| (isdst > 0) as i32;
    if !first.zone.is_empty() {
        local.names.push((first.zone.to_ascii_uppercase(), dst(first.isdst)));
    }
    for quarter in 1..=3 {
        let Some(tm) = libcw::time::localtime(now + quarter * 90 * 86400) else {
            continue;
        };
        if dst(tm.isdst) != dst(first.isdst) {
            if !tm.zone.is_empty() && !local.names.iter().any(|n| n.0[..] == tm.zone[..]) {
                local.names.push((tm.zone.to_ascii_uppercase(), dst(tm.isdst)));
            }
            break;
        }
    }
    local
}

impl DateFields {
    /// The time of day (hour, minute, second, ns): the one given, now's
    /// when only relative items were, else midnight.
    fn clock(&self) -> Option<(i64, i64, i64, i64)> {
        if self.times > 0 || (self.rels && self.dates == 0 && self.days == 0) {
            let h = if self.times > 0 { to_hour(self.hour, self.meridian)? } else { self.hour };
            if !(0..=59).contains(&self.minute) || !(0..=59).contains(&self.sec) {
                return None;
            }
            Some((h, self.minute, self.sec, self.ns))
        } else {
            Some((0, 0, 0, 0))
        }
    }

    /// Days from a date of weekday `wday` to the day item's weekday.
    fn weekday_shift(&self, wday: i64) -> i64 {
        (self.day_number - wday + 7) % 7
            + 7 * (self.day_ordinal - (0 < self.day_ordinal && wday != self.day_number) as i64)
    }

    fn has_rel_date(&self) -> bool {
        let rel = self.rel;
        rel.year != 0 || rel.month != 0 || rel.day != 0
    }

    /// The date (month from 0) and time in the zone `off` minutes east of
    /// UTC, moved to the day item's weekday and by the relative date.
    fn fixed_zone_time(
        &self,
        off: i64,
        (year, mon0, day): (i64, i64, i64),
        (hour, minute, sec): (i64, i64, i64),
    ) -> Option<i64> {
        let rel = self.rel;
        let (mut t, mut f) = fixed_mktime(year, mon0, day, hour, minute, sec, off)?;
        if self.days > 0 && self.dates == 0 {
            (t, f) = fixed_mktime(f.0, f.1, f.2 + self.weekday_shift(f.3), hour, minute, sec, off)?;
        }
        if self.has_rel_date() {
            t = fixed_mktime(
                f.0.checked_add(rel.year)?,
                f.1.checked_add(rel.month)?,
                f.2.checked_add(rel.day)?,
                hour,
                minute,
                sec,
                off,
            )?
            .0;
        }
        Some(t)
    }

    /// As [`DateFields::fixed_zone_time`], in the local zone (mktime's rules).
    fn local_time(
        &self,
        (year, mon0, day): (i64, i64, i64),
        (hour, minute, sec): (i64, i64, i64),
        now_isdst: i32,
    ) -> Option<i64> {
        use libcw::time::mktime_norm;
        let rel = self.rel;
        // Daylight time as GNU asks mktime for it: a named local zone's;
        // now's when only relative items were given (the time is now's
        // too); else mktime's choice. The relative years, months and days
        // keep it, so a day before 08:00 EDT, in winter, is 07:00 EST.
        let isdst = match self.local_isdst {
            Some(d) => d,
            None if self.rels && self.dates + self.days + self.times == 0 => now_isdst,
            None => -1,
        };
        let (mut t, mut tm) = mktime_norm(year, mon0, day, hour, minute, sec, isdst)?;
        // A local time that doesn't exist (skipped by a change to
        // daylight saving time) is no date.
        if (tm.year, tm.mon as i64, tm.mday as i64, tm.hour as i64, tm.min as i64)
            != (year, mon0, day, hour, minute)
        {
            return None;
        }
        // A named local zone must agree with the date's daylight time.
        if self.local_isdst.is_some_and(|d| d != (tm.isdst > 0) as i32) && !self.dst_added {
            return None;
        }
        if self.days > 0 && self.dates == 0 {
            let d = tm.mday as i64 + self.weekday_shift(tm.wday as i64);
            (t, tm) = mktime_norm(tm.year, tm.mon as i64, d, hour, minute, sec, -1)?;
        }
        if self.has_rel_date() {
            t = mktime_norm(
                tm.year.checked_add(rel.year)?,
                (tm.mon as i64).checked_add(rel.month)?,
                (tm.mday as i64).checked_add(rel.day)?,
                hour,
                minute,
                sec,
                isdst,
            )?
            .0;
        }
        Some(t)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::{Mutex, MutexGuard};

    /// Held by every test of the crate that reads the local zone or sets
    /// `TZ` (a `TZ="…"` date, `libcw::time::with_zone`): setenv is not
    /// safe while another thread reads the environment, and a zone set
    /// by one test must not be seen by another.
    pub(crate) fn zone_lock() -> MutexGuard<'static, ()> {
        static ZONE: Mutex<()> = Mutex::new(());
        ZONE.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Parses `TZ="zone" input` at `now` (whole seconds) for each row of
    /// the section `name` of datetime.tsv and compares with GNU's answer as
    /// `date +%s.%N` prints it; lists every row that differs.
    fn check(name: &str, count: usize) {
        use crate::gnu_answers::{section, text};
        let sec = section(include_str!("gnu_answers/datetime.tsv"), name, count);
        let (zone, now) = (&sec.header[0], sec.header[1].parse::<i64>().expect("NOW"));
        let _g = zone_lock();
        sec.check(|row| {
            let (input, want) = (text(&row[0]), text(&row[1]));
            let want = (want != "invalid date").then_some(want);
            let full = format!("TZ=\"{zone}\" {input}");
            let got = parse(full.as_bytes(), Timestamp::new(now, 0))
                .map(|t| format!("{}.{:09}", t.secs, t.nsec));
            (got.as_deref() != want).then(|| format!("{input:?}: ours {got:?}, GNU's {want:?}"))
        });
    }

    // Only dates with their own zone: the test process's TZ is not ours.
    #[test]
    fn dates_with_zones() {
        let _g = zone_lock();
        let now = Timestamp::new(1_700_000_000, 5);
        let p = |s: &str| parse(s.as_bytes(), now).map(|t| (t.secs, t.nsec));
        assert_eq!(p("1991-12-14 01:01+01:00"), Some((692668860, 0)));
        assert_eq!(p("1969-12-31T23:59:59Z"), Some((-1, 0)));
        assert_eq!(p("@-1.5"), Some((-2, 500_000_000)));
        assert_eq!(p("@1700000000.123456789"), Some((1700000000, 123456789)));
        assert_eq!(p("Thu, 14 Dec 1991 01:01:00 +0100"), Some((692668860, 0)));
        assert_eq!(p("December 14, 1991 00:01 UTC"), Some((692668860, 0)));
        assert_eq!(p("14-Dec-1991 12:01am GMT"), Some((692668860, 0)));
        assert_eq!(p("1991-12-14 00:01 UTC +1 day"), Some((692668860 + 86400, 0)));
        assert_eq!(p("1991-12-14 10:00 +2 hours"), Some((692701200, 0)));
        assert_eq!(p("1991-01-31 UTC +1 month"), Some((667958400, 0)));
        assert_eq!(p("1991-12-14 1.5 seconds ago UTC"), Some((692668798, 500_000_000)));
        assert_eq!(p("1991-02-30 UTC"), None);
        assert_eq!(p("24:00 UTC"), None);
        assert_eq!(p("garbage"), None);
        assert_eq!(p("noon"), None);
    }

    // ISO 8601 dates and times, with and without `T`, fractions of a second (`.` and `,`), zones `Z`, `+hh:mm`, `-hhmm`; out-of-range fields refused.
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn iso_8601_dates_and_times() {
        check("iso_8601_dates_and_times", 39);
    }

    // Zone abbreviations, military letters, numeric offsets, `UTC+3`, `DST` after a zone, and two zones (refused).
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn named_and_numeric_zones() {
        check("named_and_numeric_zones", 48);
    }

    // Month names and abbreviations, `m/d[/y]`, `y/m/d`, `d-mon-y`, weekday with a date, comments in parentheses.
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn month_names_and_calendar_forms() {
        check("month_names_and_calendar_forms", 43);
    }

    // Relative items from a leap day: signed counts, `ago`, `last`/`next`/`this`, fortnights, months and years that carry over.
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn relative_units() {
        check("relative_units", 30);
    }

    // Relative items combined with each other and with a time of day; the unit words alone; ordinals used as counts.
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn relative_combinations() {
        check("relative_combinations", 28);
    }

    // Days of the week (now is a Saturday): bare, `next`/`last`/`this`, ordinals, `second` (a unit, not an ordinal).
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn weekdays_and_ordinals() {
        check("weekdays_and_ordinals", 27);
    }

    // 12-hour clocks: `12am` is midnight, `12pm` noon, 0 and 13 refused, `a.m.` spelling, no offset after a meridian.
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn twelve_hour_clock() {
        check("twelve_hour_clock", 22);
    }

    // Two-digit years (69-99 are 19xx, 00-68 20xx), other widths kept as written, bare `yymmdd` numbers.
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn two_digit_years() {
        check("two_digit_years", 20);
    }

    // Leap days, and months and years added across them (the day carries over).
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn leap_days() {
        check("leap_days", 23);
    }

    // Local time in Europe/Berlin around its 2020 changes: a skipped hour is refused, a repeated one resolved, `CET`/`CEST` checked against the date.
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="Europe/Berlin" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn dst_europe_berlin() {
        check("dst_europe_berlin", 33);
    }

    // Local time in America/New_York, now just after its 2021 spring change: the skipped hour, the repeated one, and days from now across the change.
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2021-03-14 12:00:00' \
    //   date -d 'TZ="America/New_York" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn dst_new_york() {
        check("dst_new_york", 34);
    }

    // `@SECONDS[.FRACTION]`: signs, spaces, fractions floored to nanoseconds, comments; nothing else after it.
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn epoch_seconds() {
        check("epoch_seconds", 22);
    }

    // What GNU refuses (date exits 1), and odd inputs it takes: a sign with no number is dropped, `1e3 days` is 01:00 in zone E plus 3 days.
    // GNU: TZ=UTC0 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 FAKETIME='2020-02-29 12:34:56' \
    //   date -d 'TZ="UTC0" INPUT' +%s.%N  (answers in gnu_answers/datetime.tsv)
    #[test]
    fn rejected_and_odd_inputs() {
        check("rejected_and_odd_inputs", 33);
    }
}
