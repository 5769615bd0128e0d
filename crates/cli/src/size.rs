//! Sizes as GNU prints them: block counts for a block size, and
//! human-readable forms (`-h` powers of 1024, `--si` powers of 1000),
//! always rounded up as ls and du do; block-size specifications as GNU's
//! human_options reads them.

use crate::num::{self, NumError};

/// How sizes are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeFormat {
    /// Units of `block` bytes, rounded up; with `suffix` the unit letter(s)
    /// follow the number (`--block-size=K` prints `12K`); with `group` the
    /// digits are grouped as LC_NUMERIC says (the `'` of `--block-size`).
    Blocks { block: u64, suffix: Option<&'static str>, group: bool },
    /// Autoscaled with K/M/G… (1024) or k/M/G… (1000), the tenths after
    /// LC_NUMERIC's decimal point; `group` as for `Blocks` (`'h`).
    Human { si: bool, group: bool },
}

impl SizeFormat {
    pub const BYTES: SizeFormat = SizeFormat::Blocks { block: 1, suffix: None, group: false };

    /// Blocks of `block` bytes, ungrouped and without a unit.
    pub const fn blocks(block: u64) -> SizeFormat {
        SizeFormat::Blocks { block, suffix: None, group: false }
    }

    /// Autoscaled, ungrouped.
    pub const fn human(si: bool) -> SizeFormat {
        SizeFormat::Human { si, group: false }
    }

    /// Whether digits are grouped (the specification began with `'`).
    pub fn grouped(self) -> bool {
        match self {
            SizeFormat::Blocks { group, .. } | SizeFormat::Human { group, .. } => group,
        }
    }

    /// Formats `bytes`.
    pub fn format(self, bytes: u64) -> String {
        let mut v = Vec::new();
        self.format_into(&mut v, bytes);
        // Digits, ASCII units and the locale's separators, which a UTF-8
        // or ASCII locale keeps valid; anything else is shown lossily.
        String::from_utf8(v).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// Appends `bytes`, formatted, to `out` (no allocation, and no look at
    /// the locale, for plain block counts).
    pub fn format_into(self, out: &mut Vec<u8>, bytes: u64) {
        match self {
            SizeFormat::Blocks { block, suffix, group } => {
                let n = bytes.div_ceil(block.max(1));
                if group {
                    push_grouped(out, n, &Separators::current());
                } else {
                    push_u64(out, n);
                }
                if let Some(s) = suffix {
                    out.extend_from_slice(s.as_bytes());
                }
            }
            SizeFormat::Human { si, group } => {
                human_into(out, bytes, if si { 1000 } else { 1024 }, group, &Separators::current())
            }
        }
    }
}

/// What LC_NUMERIC puts into a size, as gnulib's human_readable takes it
/// from localeconv: the decimal point only when it is 1 to MB_LEN_MAX
/// bytes long (else `.`), the thousands separator only when it is at most
/// MB_LEN_MAX bytes (else none), and the grouping string as is.
#[derive(Clone, Copy, Debug)]
pub struct Separators<'a> {
    pub point: &'a [u8],
    pub thousands: &'a [u8],
    /// Group sizes from the right; the last one repeats, and `CHAR_MAX`
    /// (or more) means no further grouping.
    pub grouping: &'a [u8],
}

/// glibc's MB_LEN_MAX.
const MB_LEN_MAX: usize = 16;

impl Separators<'static> {
    /// The C locale's: `.`, no grouping.
    pub const C: Separators<'static> = Separators { point: b".", thousands: b"", grouping: b"" };

    /// The separators of the locale in force.
    pub fn current() -> Separators<'static> {
        let n = &crate::locale::info().numeric;
        Separators::new(&n.decimal_point, &n.thousands_sep, &n.grouping)
    }
}

impl<'a> Separators<'a> {
    pub fn new(point: &'a [u8], thousands: &'a [u8], grouping: &'a [u8]) -> Separators<'a> {
        Separators {
            point: if (1..=MB_LEN_MAX).contains(&point.len()) { point } else { b"." },
            thousands: if thousands.len() <= MB_LEN_MAX { thousands } else { b"" },
            grouping,
        }
    }
}

/// Appends `n` in decimal. Every count it is given is at most a byte
/// count, so a u64.
fn push_u64(out: &mut Vec<u8>, n: u64) {
    let mut tmp = [0u8; 20];
    let i = num::digits_ending(&mut tmp, n);
    out.extend_from_slice(&tmp[i..]);
}

/// Appends `n` with its digits grouped: the group sizes are read from the
/// right end of the number; a zero byte (the end of the C string) repeats
/// the previous size, and CHAR_MAX or above leaves the remaining digits
/// whole. An empty grouping string groups nothing.
pub fn push_grouped(out: &mut Vec<u8>, n: u64, sep: &Separators) {
    let start = out.len();
    push_u64(out, n);
    let digits = out.split_off(start);
    let mut cuts = Vec::new(); // group lengths, rightmost first
    let mut left = digits.len();
    let mut size = usize::MAX;
    let mut g = sep.grouping.iter();
    while left > 0 {
        match g.next() {
            Some(&b) if b >= 127 => size = usize::MAX,
            Some(&0) | None => {}
            Some(&b) => size = b as usize,
        }
        let take = size.min(left);
        cuts.push(take);
        left -= take;
        if size == usize::MAX {
            break;
        }
    }
    let mut at = 0;
    for (k, len) in cuts.iter().rev().enumerate() {
        if k > 0 {
            out.extend_from_slice(sep.thousands);
        }
        out.extend_from_slice(&digits[at..at + len]);
        at += len;
    }
}

/// The columns a formatted size takes (gnulib's mbswidth, which ls pads
/// the size and block columns by): its byte length unless the locale's
/// separators are multibyte (fr_FR groups with U+202F, 3 bytes, 1 column).
pub fn columns(text: &[u8]) -> usize {
    if text.is_ascii() {
        return text.len();
    }
    crate::quote::display_width(text)
}

const PREFIXES: &[u8] = b"KMGTPEZYRQ";

/// Autoscaled size rounded up, with the locale's decimal point, ungrouped:
/// below 10 units one decimal ("1.0K", "9.9M"), otherwise an integer
/// ("10K"); plain bytes below one unit ("512").
pub fn human(bytes: u64, base: u64) -> String {
    let mut v = Vec::new();
    human_into(&mut v, bytes, base, false, &Separators::current());
    String::from_utf8(v).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`human`] into `out`, with the given separators, grouping the integer
/// part when `group` (1024-based sizes from 1000 units up: `1,016K`).
pub fn human_into(out: &mut Vec<u8>, bytes: u64, base: u64, group: bool, sep: &Separators) {
    let (whole, tenth, exp) = human_parts(bytes, base);
    if group {
        push_grouped(out, whole, sep);
    } else {
        push_u64(out, whole);
    }
    if let Some(t) = tenth {
        out.extend_from_slice(sep.point);
        out.push(b'0' + t);
    }
    if exp > 0 {
        out.push(if base == 1000 && exp == 1 { b'k' } else { PREFIXES[exp - 1] });
    }
}

/// The integer part, the tenths digit if one is shown, and the power of
/// `base` (0: plain bytes) of an autoscaled size, rounded up as GNU does.
fn human_parts(bytes: u64, base: u64) -> (u64, Option<u8>, usize) {
    let base = base as u128;
    let n = bytes as u128;
    if n < base {
        return (bytes, None, 0);
    }
    let mut exp = 0usize;
    let mut unit = 1u128;
    while exp < PREFIXES.len() && n >= unit * base {
        unit *= base;
        exp += 1;
    }
    if n < 10 * unit {
        let tenths = (n * 10).div_ceil(unit);
        if tenths < 100 {
            return ((tenths / 10) as u64, Some((tenths % 10) as u8), exp);
        }
        return (10, None, exp);
    }
    let whole = n.div_ceil(unit);
    if whole >= base && exp < PREFIXES.len() {
        // 1023.1K rounds up to 1024K, which GNU shows as 1.0M.
        return (1, Some(0), exp + 1);
    }
    // At most `bytes`: a unit is at least 1.
    (u64::try_from(whole).unwrap_or(u64::MAX), None, exp)
}

/// Parses a GNU block-size specification (`--block-size`, `BLOCK_SIZE`,
/// `DU_BLOCK_SIZE`, `LS_BLOCK_SIZE`): `human-readable`, `si`, or an optional
/// integer followed by an optional unit (K, KB, KiB, M, … ; B/bytes).
/// A leading `'` groups the digits as LC_NUMERIC says (nothing to group
/// with in C and C.UTF-8). Returns `None` when invalid.
pub fn parse_block_size(spec: &str) -> Option<SizeFormat> {
    parse_block_size_checked(spec).ok()
}

/// Like [`parse_block_size`], saying why a specification is refused
/// ([`NumError::message`] words it).
///
/// The number is read as GNU's xstrtoumax reads it ([`crate::num`]): C's
/// strtoumax with base 0 (blanks, `+`, `0x` hex, leading-0 octal). A unit
/// letter multiplies by a power of 1024, or of 1000 when followed by `B`
/// (`KB`), `iB` keeps 1024 (`KiB`). A unit with no number (`K`, `MB`)
/// makes sizes print with that unit, GNU-style normalised (`KB` prints as
/// `kB`). As in GNU's human_options, a zero size is invalid whatever else
/// is wrong with the specification.
pub fn parse_block_size_checked(spec: &str) -> Result<SizeFormat, NumError> {
    match parse(spec) {
        Ok(SizeFormat::Blocks { block: 0, .. }) | Err(NumError::InvalidSuffix(0)) => {
            Err(NumError::Invalid)
        }
        r => r,
    }
}

/// A block size from the environment, read as GNU's human_options reads
/// one when the caller ignores its errors (`DU_BLOCK_SIZE`, `BLOCK_SIZE`,
/// `LS_BLOCK_SIZE`, `BLOCKSIZE`): a bad suffix keeps the number before it
/// (`2x` is 2), an overflow gives the largest size, and nothing usable (no
/// number, or zero) gives `default_block` (1024, or 512 under
/// POSIXLY_CORRECT). Any error also drops the `'` (`'1x` is 1, ungrouped),
/// but a zero does not (`'0` is the default block, grouped).
pub fn parse_block_size_lenient(spec: &str, default_block: u64) -> SizeFormat {
    let plain = SizeFormat::blocks;
    match parse(spec) {
        Ok(SizeFormat::Blocks { block: 0, group, .. }) => {
            SizeFormat::Blocks { block: default_block, suffix: None, group }
        }
        Ok(f) => f,
        Err(NumError::InvalidSuffix(v)) if v > 0 => plain(v),
        Err(NumError::TooLarge) => plain(u64::MAX),
        Err(_) => plain(default_block),
    }
}

/// The multiplier letters a block size may carry; '0' allows the
/// `KB`/`KiB` forms (gnulib's convention).
const BLOCK_SUFFIXES: &str = "eEgGkKmMpPtTyYzZ0";

#[cfg_attr(ringutils_small, optimize(size))]
fn parse(spec: &str) -> Result<SizeFormat, NumError> {
    let (group, spec) = match spec.strip_prefix('\'') {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    if !spec.is_empty() {
        // GNU's argmatch: an abbreviation of either keyword.
        if "human-readable".starts_with(spec) {
            return Ok(SizeFormat::Human { si: false, group });
        }
        if "si".starts_with(spec) {
            return Ok(SizeFormat::Human { si: true, group });
        }
    }
    let p = num::parse_unsigned(spec, BLOCK_SUFFIXES, true)?;
    let suffix = p.no_digits.then(|| unit_suffix(p.value, spec));
    Ok(SizeFormat::Blocks { block: p.value, suffix, group })
}

/// The unit GNU prints after sizes when the block size was a unit alone
/// (GNU's human_SI): the prefix of the block size, `i` for powers of 1024
/// spelled `iB`, `B` when the specification ended in `B` (`K` → `4K`,
/// `KB` → `5kB`, `KiB` → `4KiB`).
fn unit_suffix(block: u64, spec: &str) -> &'static str {
    let ends_b = spec.ends_with('B');
    let base1024 = !ends_b || spec.ends_with("iB");
    let base: u128 = if base1024 { 1024 } else { 1000 };
    let mut exp = 0usize;
    let mut power: u128 = 1;
    while power < block as u128 && exp < 8 {
        power *= base;
        exp += 1;
    }
    let mut unit = String::new();
    if exp > 0 {
        unit.push(if !base1024 && exp == 1 { 'k' } else { PREFIXES[exp - 1] as char });
    }
    if ends_b {
        if base1024 && exp > 0 {
            unit.push('i');
        }
        unit.push('B');
    }
    static_unit(&unit)
}

fn static_unit(unit: &str) -> &'static str {
    const UNITS: &[&str] = &[
        "K", "KB", "KiB", "k", "kB", "M", "MB", "MiB", "G", "GB", "GiB", "T", "TB", "TiB", "P",
        "PB", "PiB", "E", "EB", "EiB", "Z", "ZB", "ZiB", "Y", "YB", "YiB", "R", "RB", "RiB", "Q",
        "QB", "QiB", "B",
    ];
    UNITS.iter().find(|u| **u == unit).copied().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_matches_gnu_rounding() {
        assert_eq!(human(0, 1024), "0");
        assert_eq!(human(1023, 1024), "1023");
        assert_eq!(human(1024, 1024), "1.0K");
        assert_eq!(human(1025, 1024), "1.1K");
        assert_eq!(human(10239, 1024), "10K");
        assert_eq!(human(10241, 1024), "11K");
        assert_eq!(human(1024 * 1024 - 1, 1024), "1.0M");
        assert_eq!(human(1500, 1000), "1.5k");
        assert_eq!(human(4096, 1024), "4.0K");
    }

    #[test]
    fn block_sizes() {
        let blocks = |block, suffix| Some(SizeFormat::Blocks { block, suffix, group: false });
        for (arg, want) in [
            ("K", blocks(1024, Some("K"))),
            ("1K", blocks(1024, None)),
            ("MB", blocks(1_000_000, Some("MB"))),
            ("KB", blocks(1000, Some("kB"))),
            ("0x10", blocks(16, None)),
            ("010", blocks(8, None)),
        ] {
            assert_eq!(parse_block_size(arg), want, "{arg}");
        }
        assert_eq!(parse_block_size_checked("1.5K"), Err(NumError::InvalidSuffix(1)));
        assert_eq!(parse_block_size_checked("1Z"), Err(NumError::TooLarge));
        assert_eq!(parse_block_size_checked("B"), Err(NumError::Invalid));
        assert_eq!(parse_block_size("human"), Some(SizeFormat::human(false)));
        assert_eq!(parse_block_size("si"), Some(SizeFormat::human(true)));
        assert_eq!(parse_block_size("0"), None);
        assert_eq!(parse_block_size("x"), None);
        assert_eq!(SizeFormat::Blocks { block: 1024, suffix: None, group: false }.format(1), "1");
    }

    #[test]
    fn formats_with_parsed_units() {
        let f = |spec: &str| parse_block_size(spec).unwrap().format(4096);
        assert_eq!(f("K"), "4K");
        assert_eq!(f("KB"), "5kB");
        assert_eq!(f("kiB"), "4KiB");
        assert_eq!(f("1k"), "4");
        assert_eq!(f("MB"), "1MB");
        assert_eq!(f("'K"), "4K");
        assert_eq!(f("h"), "4.0K");
        assert_eq!(f("s"), "4.1k");
        assert_eq!(f("0x10"), "256");
        // GNU's human_options: zero is invalid before a bad suffix is.
        assert_eq!(parse_block_size_checked("0x"), Err(NumError::Invalid));
        assert_eq!(parse_block_size_checked("0Y"), Err(NumError::Invalid));
        assert_eq!(parse_block_size_checked(" K"), Err(NumError::Invalid));
        assert_eq!(parse_block_size_lenient("2x", 1024), SizeFormat::blocks(2));
        assert_eq!(parse_block_size_lenient("1Z", 1024), SizeFormat::blocks(u64::MAX));
        assert_eq!(parse_block_size_lenient("0x", 512), SizeFormat::blocks(512));
    }

    fn grouped(n: u64, sep: &[u8], grouping: &[u8]) -> String {
        let mut v = Vec::new();
        push_grouped(&mut v, n, &Separators::new(b".", sep, grouping));
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn grouping_follows_localeconv() {
        // en_US/de_DE "\3\3", ja_JP "\3" (repeats), en_IN "\3\2".
        assert_eq!(grouped(123456789, b",", b"\x03\x03"), "123,456,789");
        assert_eq!(grouped(123456789, b".", b"\x03"), "123.456.789");
        assert_eq!(grouped(1234567890, b",", b"\x03\x02"), "1,23,45,67,890");
        assert_eq!(grouped(999, b",", b"\x03"), "999");
        assert_eq!(grouped(1000, b",", b"\x03"), "1,000");
        assert_eq!(grouped(0, b",", b"\x03"), "0");
        // CHAR_MAX stops grouping; C has no grouping at all.
        assert_eq!(grouped(123456789, b",", b"\x03\x7f"), "123456,789");
        assert_eq!(grouped(123456789, b"", b""), "123456789");
        assert_eq!(grouped(123456789, b"", b"\x03"), "123456789");
        // fr_FR: U+202F, three bytes.
        assert_eq!(grouped(1234567, "\u{202f}".as_bytes(), b"\x03"), "1\u{202f}234\u{202f}567");
        // gnulib ignores an over-long separator and decimal point.
        let long = [b'x'; 17];
        let s = Separators::new(&long, &long, b"\x03");
        assert_eq!(s.point, b".");
        assert_eq!(s.thousands, b"");
    }

    #[test]
    fn human_with_locale_separators() {
        let de = Separators::new(b",", b".", b"\x03\x03");
        let h = |bytes, base, group| {
            let mut v = Vec::new();
            human_into(&mut v, bytes, base, group, &de);
            String::from_utf8(v).unwrap()
        };
        assert_eq!(h(1234567, 1024, false), "1,2M");
        assert_eq!(h(1234567, 1000, false), "1,3M");
        assert_eq!(h(1040000, 1024, true), "1.016K");
        assert_eq!(h(1040000, 1024, false), "1016K");
        assert_eq!(h(1000, 1024, true), "1.000");
        assert_eq!(h(1024 * 1024 - 1, 1024, true), "1,0M");
    }

    #[test]
    fn quote_flag_groups() {
        let f = parse_block_size("'1").unwrap();
        assert!(f.grouped());
        assert_eq!(f, SizeFormat::Blocks { block: 1, suffix: None, group: true });
        assert_eq!(parse_block_size("'h"), Some(SizeFormat::Human { si: false, group: true }));
        // GNU's humblock forgets the ' on any error, but not on a zero.
        assert_eq!(parse_block_size_lenient("'2x", 1024), SizeFormat::blocks(2));
        assert_eq!(parse_block_size_lenient("'1Z", 1024), SizeFormat::blocks(u64::MAX));
        assert_eq!(parse_block_size_lenient("'x", 1024), SizeFormat::blocks(1024));
        assert_eq!(
            parse_block_size_lenient("'0", 512),
            SizeFormat::Blocks { block: 512, suffix: None, group: true }
        );
        assert_eq!(parse_block_size_lenient("'0x", 512), SizeFormat::blocks(512));
        assert_eq!(
            parse_block_size_lenient("'K", 512),
            SizeFormat::Blocks { block: 1024, suffix: Some("K"), group: true }
        );
        // The C locale has nothing to group with.
        assert_eq!(f.format(123456789), "123456789");
    }
}
