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

/// Parses a GNU block-size specification (`--block-size`, `BLOCK_SIZE`,
/// `DU_BLOCK_SIZE`, `LS_BLOCK_SIZE`): `human-readable`, `si`, or an optional
/// integer followed by an optional unit (K, KB, KiB, M, … ; B/bytes).
/// A leading `'` (thousands grouping) is accepted and ignored in the C
/// locale, which has no grouping character. Returns `None` when invalid.
pub fn parse_block_size(spec: &str) -> Option<SizeFormat> {
    let spec = spec.strip_prefix('\'').unwrap_or(spec);
    match spec {
        "human-readable" => return Some(SizeFormat::Human { si: false }),
        "si" => return Some(SizeFormat::Human { si: true }),
        "" => return None,
        _ => {}
    }
    let digits_end = spec.find(|c: char| !c.is_ascii_digit()).unwrap_or(spec.len());
    let (num, unit) = spec.split_at(digits_end);
    let n: u64 = if num.is_empty() { 1 } else { num.parse().ok()? };
    let mult = unit_multiplier(unit)?;
    let block = n.checked_mul(mult)?;
    if block == 0 {
        return None;
    }
    // A unit with no number ("K", "MB") makes GNU print the unit after sizes.
    let suffix = if num.is_empty() && !unit.is_empty() { Some(static_unit(unit)) } else { None };
    Some(SizeFormat::Blocks { block, suffix })
}

fn unit_multiplier(unit: &str) -> Option<u64> {
    if unit.is_empty() {
        return Some(1);
    }
    let b = unit.as_bytes();
    let letters = b"KMGTPEZYRQ";
    let pos = |c: u8| letters.iter().position(|&l| l == c.to_ascii_uppercase());
    let (idx, rest) = match b[0] {
        b'b' if unit == "b" => return Some(512),
        b'B' if unit == "B" => return Some(1),
        b'k' | b'K' | b'M' | b'G' | b'T' | b'P' | b'E' | b'Z' | b'Y' | b'R' | b'Q' => {
            (pos(b[0])?, &unit[1..])
        }
        _ => return None,
    };
    let base: u64 = match rest {
        "" | "iB" => 1024,
        "B" => 1000,
        _ => return None,
    };
    base.checked_pow(idx as u32 + 1)
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
        assert_eq!(parse_block_size("si"), Some(SizeFormat::Human { si: true }));
        assert_eq!(parse_block_size("0"), None);
        assert_eq!(parse_block_size("x"), None);
        assert_eq!(SizeFormat::Blocks { block: 1024, suffix: None }.format(1), "1");
    }
}
