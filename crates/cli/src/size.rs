//! Sizes as GNU prints them: block counts for a block size, and
//! human-readable forms (`-h` powers of 1024, `--si` powers of 1000),
//! always rounded up as ls and du do.

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
        match self {
            SizeFormat::Blocks { block, suffix } => {
                let n = (bytes as u128).div_ceil(block.max(1) as u128);
                match suffix {
                    Some(s) => format!("{n}{s}"),
                    None => n.to_string(),
                }
            }
            SizeFormat::Human { si } => human(bytes, if si { 1000 } else { 1024 }),
        }
    }
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

/// Why a block-size specification was refused, in GNU's three wordings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockSizeError {
    /// `invalid --block-size argument 'x'`
    Invalid,
    /// `invalid suffix in --block-size argument '1.5K'`
    InvalidSuffix,
    /// `--block-size argument '1Z' too large`
    TooLarge,
}

impl BlockSizeError {
    /// GNU's message for option `opt` (e.g. `--block-size`) and value `arg`
    /// (already quoted by the caller).
    pub fn message(self, opt: &str, quoted_arg: &str) -> String {
        match self {
            BlockSizeError::Invalid => format!("invalid {opt} argument {quoted_arg}"),
            BlockSizeError::InvalidSuffix => {
                format!("invalid suffix in {opt} argument {quoted_arg}")
            }
            BlockSizeError::TooLarge => format!("{opt} argument {quoted_arg} too large"),
        }
    }
}

/// Parses a GNU block-size specification (`--block-size`, `BLOCK_SIZE`,
/// `DU_BLOCK_SIZE`, `LS_BLOCK_SIZE`): `human-readable`, `si`, or an optional
/// integer followed by an optional unit (K, KB, KiB, M, … ; B/bytes).
/// A leading `'` (thousands grouping) is accepted and ignored in the C
/// locale, which has no grouping character. Returns `None` when invalid.
pub fn parse_block_size(spec: &str) -> Option<SizeFormat> {
    parse_block_size_checked(spec).ok()
}

/// Like [`parse_block_size`], saying why a specification is refused.
///
/// The number is read like C's strtoumax with base 0 (blanks, `+`, `0x`
/// hex, leading-0 octal). A unit letter multiplies by a power of 1024, or
/// of 1000 when followed by `B` (`KB`), `iB` keeps 1024 (`KiB`). A unit
/// with no number (`K`, `MB`) makes sizes print with that unit, GNU-style
/// normalised (`KB` prints as `kB`).
pub fn parse_block_size_checked(spec: &str) -> Result<SizeFormat, BlockSizeError> {
    let spec = spec.strip_prefix('\'').unwrap_or(spec);
    if !spec.is_empty() {
        if "human-readable".starts_with(spec) {
            return Ok(SizeFormat::Human { si: false });
        }
        if "si".starts_with(spec) {
            return Ok(SizeFormat::Human { si: true });
        }
    }
    let b = spec.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    if b.get(i) == Some(&b'-') {
        return Err(BlockSizeError::Invalid);
    }
    if b.get(i) == Some(&b'+') {
        i += 1;
    }
    // Digits, base 0.
    let (radix, mut j) = if b.get(i) == Some(&b'0')
        && matches!(b.get(i + 1), Some(b'x' | b'X'))
        && b.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        (16, i + 2)
    } else if b.get(i) == Some(&b'0') {
        (8, i)
    } else {
        (10, i)
    };
    let digits_start = j;
    while j < b.len() && (b[j] as char).is_digit(radix) {
        j += 1;
    }
    let mut overflow = false;
    let mut value: u64 = if j == digits_start {
        // No number: a lone unit means one of it.
        let ok = b.get(j).is_some_and(|c| b"eEgGkKmMpPtTyYzZ".contains(c));
        if !ok {
            return Err(BlockSizeError::Invalid);
        }
        1
    } else {
        match u64::from_str_radix(&spec[digits_start..j], radix) {
            Ok(v) => v,
            Err(_) => {
                overflow = true;
                u64::MAX
            }
        }
    };
    let number_end = j;
    let has_unit = j < b.len();
    if has_unit {
        let c = b[j];
        let mut base: u64 = 1024;
        let mut len = 1;
        match b.get(j + 1) {
            Some(b'i') if b.get(j + 2) == Some(&b'B') => len = 3,
            Some(b'B') | Some(b'D') => {
                base = 1000;
                len = 2;
            }
            _ => {}
        }
        let power = match c {
            b'k' | b'K' => 1,
            b'M' | b'm' => 2,
            b'G' | b'g' => 3,
            b'T' | b't' => 4,
            b'P' => 5,
            b'E' => 6,
            b'Z' => 7,
            b'Y' => 8,
            // GNU checks for a zero size before the suffix error.
            _ if value == 0 => return Err(BlockSizeError::Invalid),
            _ => return Err(BlockSizeError::InvalidSuffix),
        };
        match base.checked_pow(power).and_then(|m| value.checked_mul(m)) {
            Some(v) => value = v,
            None => overflow = true,
        }
        if j + len != b.len() {
            return Err(if value == 0 {
                BlockSizeError::Invalid
            } else {
                BlockSizeError::InvalidSuffix
            });
        }
        j += len;
    }
    if overflow {
        return Err(BlockSizeError::TooLarge);
    }
    if value == 0 {
        return Err(BlockSizeError::Invalid);
    }
    // A unit and no digits: print sizes with the unit (GNU's human_SI).
    let suffix_only = has_unit && !b[..number_end].iter().any(u8::is_ascii_digit);
    let suffix = if suffix_only {
        let ends_b = b[j - 1] == b'B';
        let base1024 = !ends_b || (j >= 2 && b[j - 2] == b'i');
        let base: u128 = if base1024 { 1024 } else { 1000 };
        let mut exp = 0usize;
        let mut power: u128 = 1;
        while power < value as u128 && exp < 8 {
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
        Some(static_unit(&unit))
    } else {
        None
    };
    Ok(SizeFormat::Blocks { block: value, suffix })
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
        assert_eq!(parse_block_size_checked("1.5K"), Err(BlockSizeError::InvalidSuffix));
        assert_eq!(parse_block_size_checked("1Z"), Err(BlockSizeError::TooLarge));
        assert_eq!(parse_block_size_checked("B"), Err(BlockSizeError::Invalid));
        assert_eq!(parse_block_size("human"), Some(SizeFormat::Human { si: false }));
        assert_eq!(parse_block_size("si"), Some(SizeFormat::Human { si: true }));
        assert_eq!(parse_block_size("0"), None);
        assert_eq!(parse_block_size("x"), None);
        assert_eq!(SizeFormat::Blocks { block: 1024, suffix: None }.format(1), "1");
    }
}
