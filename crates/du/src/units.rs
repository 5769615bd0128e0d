//! How du shows sizes: `--block-size` specifications (options and the
//! `DU_BLOCK_SIZE` / `BLOCK_SIZE` / `BLOCKSIZE` environment) and the
//! formatting of a byte count in the chosen units.

use cli::num::{self, NumError};

/// The multiplier letters a block size may carry.
const BLOCK_SUFFIXES: &str = "eEgGkKmMpPtTyYzZ0";

/// The units sizes are printed in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Units {
    /// Multiples of `block` bytes, rounded up; `unit` is printed after the
    /// number when the specification was a unit without digits (`-BK` → `4K`).
    Blocks { block: u64, unit: Option<String> },
    /// Autoscaled: `-h` (powers of 1024) or `--si` (powers of 1000).
    Human { si: bool },
}

impl Units {
    pub const KIB: Units = Units::Blocks { block: 1024, unit: None };
    pub const MIB: Units = Units::Blocks { block: 1024 * 1024, unit: None };
    pub const BYTES: Units = Units::Blocks { block: 1, unit: None };

    /// Appends `bytes` in these units to `out`.
    pub fn format(&self, out: &mut Vec<u8>, bytes: u64) {
        match self {
            Units::Blocks { block, unit } => {
                push_u128(out, (bytes as u128).div_ceil(*block as u128));
                if let Some(u) = unit {
                    out.extend_from_slice(u.as_bytes());
                }
            }
            Units::Human { si } => out.extend_from_slice(
                cli::size::human(bytes, if *si { 1000 } else { 1024 }).as_bytes(),
            ),
        }
    }

    /// Appends a count (`--inodes`): only autoscaling applies to counts.
    pub fn format_count(&self, out: &mut Vec<u8>, n: u64) {
        match self {
            Units::Human { .. } => self.format(out, n),
            Units::Blocks { .. } => push_u128(out, n as u128),
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

/// Parses a `--block-size`/`-B` argument. Abbreviations of
/// `human-readable` and `si` are accepted, as GNU's argmatch does.
pub fn parse_spec(spec: &str) -> Result<Units, NumError> {
    let spec = spec.strip_prefix('\'').unwrap_or(spec);
    if let Some(u) = keyword(spec) {
        return Ok(u);
    }
    let p = num::parse_unsigned(spec, BLOCK_SUFFIXES, true)?;
    if p.value == 0 {
        return Err(NumError::Invalid);
    }
    let unit = if p.no_digits { Some(unit_text(p.value, spec)) } else { None };
    Ok(Units::Blocks { block: p.value, unit })
}

/// The units from the environment when no option chose them: the first of
/// `DU_BLOCK_SIZE`, `BLOCK_SIZE`, `BLOCKSIZE` that is set (even if empty),
/// read leniently as GNU does (a bad suffix keeps the number before it);
/// otherwise 1024, or 512 under `POSIXLY_CORRECT`.
pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Units {
    let default = || {
        let block = if get("POSIXLY_CORRECT").is_some() { 512 } else { 1024 };
        Units::Blocks { block, unit: None }
    };
    let Some(spec) = ["DU_BLOCK_SIZE", "BLOCK_SIZE", "BLOCKSIZE"].iter().find_map(|v| get(v))
    else {
        return default();
    };
    match parse_spec(&spec) {
        Ok(u) => u,
        Err(NumError::InvalidSuffix(v)) if v > 0 => Units::Blocks { block: v, unit: None },
        Err(NumError::TooLarge) => Units::Blocks { block: u64::MAX, unit: None },
        Err(_) => default(),
    }
}

/// `human-readable` / `si` or an unambiguous prefix of one.
fn keyword(spec: &str) -> Option<Units> {
    if spec.is_empty() {
        return None;
    }
    let h = "human-readable".starts_with(spec);
    let s = "si".starts_with(spec);
    match (h, s) {
        (true, false) => Some(Units::Human { si: false }),
        (false, true) => Some(Units::Human { si: true }),
        _ => None,
    }
}

/// The unit GNU prints after sizes for a letter-only block size: the SI
/// prefix of the block size, `i` for powers of 1024 spelled `KiB`, `B`
/// when the specification ended in `B`.
fn unit_text(block: u64, spec: &str) -> String {
    let ends_b = spec.ends_with('B');
    let base_1024 = !ends_b || spec.ends_with("iB");
    let base: u128 = if base_1024 { 1024 } else { 1000 };
    let mut exp = 0usize;
    let mut power: u128 = 1;
    while power < block as u128 && exp < 10 {
        power *= base;
        exp += 1;
    }
    let mut s = String::new();
    if exp > 0 {
        s.push(if !base_1024 && exp == 1 { 'k' } else { b"KMGTPEZYRQ"[exp - 1] as char });
    }
    if ends_b {
        if base_1024 && exp > 0 {
            s.push('i');
        }
        s.push('B');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(u: &Units, n: u64) -> String {
        let mut v = Vec::new();
        u.format(&mut v, n);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn specs() {
        let b = |s: &str| parse_spec(s).unwrap();
        assert_eq!(fmt(&b("K"), 4096), "4K");
        assert_eq!(fmt(&b("KB"), 4096), "5kB");
        assert_eq!(fmt(&b("kiB"), 4096), "4KiB");
        assert_eq!(fmt(&b("1k"), 4096), "4");
        assert_eq!(fmt(&b("MB"), 4096), "1MB");
        assert_eq!(fmt(&b("'K"), 4096), "4K");
        assert_eq!(fmt(&b("h"), 4096), "4.0K");
        assert_eq!(fmt(&b("s"), 4096), "4.1k");
        assert_eq!(fmt(&b("0x10"), 4096), "256");
        assert_eq!(parse_spec("0"), Err(NumError::Invalid));
        assert_eq!(parse_spec(""), Err(NumError::Invalid));
    }

    #[test]
    fn environment() {
        let env = |k: &'static str, v: &'static str| {
            move |name: &str| if name == k { Some(v.to_string()) } else { None }
        };
        assert_eq!(from_env(env("BLOCK_SIZE", "2x")), Units::Blocks { block: 2, unit: None });
        assert_eq!(from_env(env("BLOCK_SIZE", "x")), Units::KIB);
        assert_eq!(from_env(env("BLOCK_SIZE", "")), Units::KIB);
        assert_eq!(from_env(env("POSIXLY_CORRECT", "1")), Units::Blocks { block: 512, unit: None });
        assert_eq!(from_env(env("DU_BLOCK_SIZE", "si")), Units::Human { si: true });
    }
}
