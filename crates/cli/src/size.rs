//! Sizes as GNU prints them: block counts for a block size, and
//! human-readable forms (`-h` powers of 1024, `--si` powers of 1000),
//! always rounded up as ls and du do; block-size specifications as GNU's
//! human_options reads them.

use crate::num::{self, NumError};

/// How sizes are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeFormat {
    /// Units of `block` bytes, rounded up; with `suffix` the unit letter(s)
    /// follow the number (`--block-size=K` prints `12K`).
    Blocks { block: u64, suffix: Option<&'static str> },
    /// Autoscaled with K/M/G… (1024) or k/M/G… (1000).
    Human { si: bool },
}

impl SizeFormat {
    pub const BYTES: SizeFormat = SizeFormat::Blocks { block: 1, suffix: None };

    /// Formats `bytes`.
    pub fn format(self, bytes: u64) -> String {
        let mut v = Vec::new();
        self.format_into(&mut v, bytes);
        String::from_utf8(v).expect("digits and ASCII units")
    }

    /// Appends `bytes`, formatted, to `out` (no allocation for block counts).
    pub fn format_into(self, out: &mut Vec<u8>, bytes: u64) {
        match self {
            SizeFormat::Blocks { block, suffix } => {
                push_u128(out, (bytes as u128).div_ceil(block.max(1) as u128));
                if let Some(s) = suffix {
                    out.extend_from_slice(s.as_bytes());
                }
            }
            SizeFormat::Human { si } => {
                out.extend_from_slice(human(bytes, if si { 1000 } else { 1024 }).as_bytes())
            }
        }
    }
}

fn push_u128(out: &mut Vec<u8>, mut n: u128) {
    let mut tmp = [0u8; 40];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&tmp[i..]);
}

const PREFIXES: &[u8] = b"KMGTPEZYRQ";

/// Autoscaled size rounded up: below 10 units one decimal ("1.0K", "9.9M"),
/// otherwise an integer ("10K"); plain bytes below one unit ("512").
pub fn human(bytes: u64, base: u64) -> String {
    let base = base as u128;
    let n = bytes as u128;
    if n < base {
        return n.to_string();
    }
    let mut exp = 0usize;
    let mut unit = 1u128;
    while exp < PREFIXES.len() && n >= unit * base {
        unit *= base;
        exp += 1;
    }
    let letter = |e: usize| {
        let c = PREFIXES[e - 1] as char;
        if base == 1000 && e == 1 {
            'k'
        } else {
            c
        }
    };
    if n < 10 * unit {
        let tenths = (n * 10).div_ceil(unit);
        if tenths < 100 {
            return format!("{}.{}{}", tenths / 10, tenths % 10, letter(exp));
        }
        return format!("10{}", letter(exp));
    }
    let whole = n.div_ceil(unit);
    if whole >= base && exp < PREFIXES.len() {
        // 1023.1K rounds up to 1024K, which GNU shows as 1.0M.
        return format!("1.0{}", letter(exp + 1));
    }
    format!("{whole}{}", letter(exp))
}

/// Parses a GNU block-size specification (`--block-size`, `BLOCK_SIZE`,
/// `DU_BLOCK_SIZE`, `LS_BLOCK_SIZE`): `human-readable`, `si`, or an optional
/// integer followed by an optional unit (K, KB, KiB, M, … ; B/bytes).
/// A leading `'` (thousands grouping) is accepted and ignored in the C
/// locale, which has no grouping character. Returns `None` when invalid.
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
/// one when the caller ignores its errors (du's `DU_BLOCK_SIZE`,
/// `BLOCK_SIZE`, `BLOCKSIZE`): a bad suffix keeps the number before it
/// (`2x` is 2), an overflow gives the largest size. `None` when nothing
/// usable is left (no number, or zero): the caller's default applies.
pub fn parse_block_size_lenient(spec: &str) -> Option<SizeFormat> {
    let plain = |block| SizeFormat::Blocks { block, suffix: None };
    match parse(spec) {
        Ok(SizeFormat::Blocks { block: 0, .. }) => None,
        Ok(f) => Some(f),
        Err(NumError::InvalidSuffix(v)) if v > 0 => Some(plain(v)),
        Err(NumError::TooLarge) => Some(plain(u64::MAX)),
        Err(_) => None,
    }
}

/// The multiplier letters a block size may carry; '0' allows the
/// `KB`/`KiB` forms (gnulib's convention).
const BLOCK_SUFFIXES: &str = "eEgGkKmMpPtTyYzZ0";

fn parse(spec: &str) -> Result<SizeFormat, NumError> {
    let spec = spec.strip_prefix('\'').unwrap_or(spec);
    if !spec.is_empty() {
        // GNU's argmatch: an abbreviation of either keyword.
        if "human-readable".starts_with(spec) {
            return Ok(SizeFormat::Human { si: false });
        }
        if "si".starts_with(spec) {
            return Ok(SizeFormat::Human { si: true });
        }
    }
    let p = num::parse_unsigned(spec, BLOCK_SUFFIXES, true)?;
    let suffix = p.no_digits.then(|| unit_suffix(p.value, spec));
    Ok(SizeFormat::Blocks { block: p.value, suffix })
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
        assert_eq!(
            parse_block_size("K"),
            Some(SizeFormat::Blocks { block: 1024, suffix: Some("K") })
        );
        assert_eq!(parse_block_size("1K"), Some(SizeFormat::Blocks { block: 1024, suffix: None }));
        assert_eq!(
            parse_block_size("MB"),
            Some(SizeFormat::Blocks { block: 1_000_000, suffix: Some("MB") })
        );
        assert_eq!(
            parse_block_size("KB"),
            Some(SizeFormat::Blocks { block: 1000, suffix: Some("kB") })
        );
        assert_eq!(parse_block_size("0x10"), Some(SizeFormat::Blocks { block: 16, suffix: None }));
        assert_eq!(parse_block_size("010"), Some(SizeFormat::Blocks { block: 8, suffix: None }));
        assert_eq!(parse_block_size_checked("1.5K"), Err(NumError::InvalidSuffix(1)));
        assert_eq!(parse_block_size_checked("1Z"), Err(NumError::TooLarge));
        assert_eq!(parse_block_size_checked("B"), Err(NumError::Invalid));
        assert_eq!(parse_block_size("human"), Some(SizeFormat::Human { si: false }));
        assert_eq!(parse_block_size("si"), Some(SizeFormat::Human { si: true }));
        assert_eq!(parse_block_size("0"), None);
        assert_eq!(parse_block_size("x"), None);
        assert_eq!(SizeFormat::Blocks { block: 1024, suffix: None }.format(1), "1");
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
        assert_eq!(
            parse_block_size_lenient("2x"),
            Some(SizeFormat::Blocks { block: 2, suffix: None })
        );
        assert_eq!(
            parse_block_size_lenient("1Z"),
            Some(SizeFormat::Blocks { block: u64::MAX, suffix: None })
        );
        assert_eq!(parse_block_size_lenient("0x"), None);
    }
}
