//! Numbers as GNU's option parsers read them (gnulib's xstrtoumax and
//! xstrtoimax): C `strtoumax` with base 0 (so `0x10` and `010` work), an
//! optional single-letter multiplier, and after it `B` (powers of 1000) or
//! `iB` (powers of 1024) when the caller allows them. Block sizes
//! (`--block-size=1K`), du's `--threshold=-10M` and `--max-depth`, ls's
//! `--width` and `--tabsize` all go through here. And the other way: a
//! number's decimal digits, written without formatting machinery.

/// Why a number was refused; the caller words the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumError {
    /// Not a number at all.
    Invalid,
    /// A number followed by something that is not an allowed suffix; the
    /// value read up to there (GNU keeps it where errors are ignored, as
    /// for `BLOCK_SIZE=2x`).
    InvalidSuffix(u64),
    /// Out of range.
    TooLarge,
}

impl NumError {
    /// GNU's message (xstrtol_fatal) for option `opt` (e.g. `--block-size`)
    /// and value `arg`, which GNU puts between single quotes as it is (no
    /// quoting style: a newline in it is printed raw).
    pub fn message(self, opt: &str, arg: &[u8]) -> Vec<u8> {
        let msgid = match self {
            NumError::Invalid => c"invalid %s%s argument '%s'",
            NumError::InvalidSuffix(_) => c"invalid suffix in %s%s argument '%s'",
            NumError::TooLarge => c"%s%s argument '%s' too large",
        };
        // GNU passes the dashes and the name apart (translations reorder).
        let n = opt.bytes().take(2).take_while(|&c| c == b'-').count();
        let (dashes, name) = opt.as_bytes().split_at(n);
        crate::locale::trf(msgid, &[dashes, name, arg])
    }
}

/// The result of a parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub value: u64,
    /// The number had no digits (the suffix alone implies 1: `-B K`).
    pub no_digits: bool,
}

/// Parses an unsigned number; `suffixes` lists the multiplier letters
/// allowed, and `b_forms` whether `KB`/`KiB` are allowed after them.
/// A leading `-` is invalid, as for `strtoumax` callers in GNU.
pub fn parse_unsigned(s: &str, suffixes: &str, b_forms: bool) -> Result<Parsed, NumError> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() && is_c_space(bytes[i]) {
        i += 1;
    }
    if bytes.get(i) == Some(&b'-') {
        return Err(NumError::Invalid);
    }
    let (mut value, end, overflow) = match strtou(&bytes[i..]) {
        Some((v, n, o)) => (v, i + n, o),
        None => {
            // No digits: a valid suffix letter alone means 1, but only as
            // the very first byte (xstrtol looks where strtoumax stopped,
            // the start of the string): " K" and "+K" are invalid.
            match bytes.get(i) {
                Some(&c) if i == 0 && suffixes.as_bytes().contains(&c) => (1, i, false),
                _ => return Err(NumError::Invalid),
            }
        }
    };
    let no_digits = end == i;
    let mut too_large = overflow;
    if end < bytes.len() {
        let c = bytes[end];
        if !suffixes.as_bytes().contains(&c) {
            return Err(NumError::InvalidSuffix(value));
        }
        let mut base: u64 = 1024;
        let mut len = 1;
        if b_forms {
            match (bytes.get(end + 1), bytes.get(end + 2)) {
                (Some(b'i'), Some(b'B')) => len = 3,
                (Some(b'B'), _) | (Some(b'D'), _) => {
                    base = 1000;
                    len = 2;
                }
                _ => {}
            }
        }
        let power = match c {
            b'b' => Some((512, 1)),
            b'B' => Some((1024, 1)),
            b'c' => Some((1, 1)),
            b'w' => Some((2, 1)),
            b'k' | b'K' => Some((base, 1)),
            b'm' | b'M' => Some((base, 2)),
            b'g' | b'G' => Some((base, 3)),
            b't' | b'T' => Some((base, 4)),
            b'P' => Some((base, 5)),
            b'E' => Some((base, 6)),
            b'Z' => Some((base, 7)),
            b'Y' => Some((base, 8)),
            b'R' => Some((base, 9)),
            b'Q' => Some((base, 10)),
            _ => None,
        };
        let Some((m, exp)) = power else {
            return Err(NumError::InvalidSuffix(value));
        };
        for _ in 0..exp {
            match value.checked_mul(m) {
                Some(v) => value = v,
                None => {
                    too_large = true;
                    value = u64::MAX;
                }
            }
        }
        if end + len < bytes.len() {
            return Err(NumError::InvalidSuffix(value));
        }
    }
    if too_large {
        return Err(NumError::TooLarge);
    }
    Ok(Parsed { value, no_digits })
}

/// Parses a signed number the same way (`strtoimax`): a leading `-` is
/// allowed and the magnitude must fit in an i64.
pub fn parse_signed(s: &str, suffixes: &str, b_forms: bool) -> Result<i64, NumError> {
    let t = s.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let (neg, rest) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    // After '-' strtoimax wants a digit: "- 5", "--5", "-+5" and a lone
    // suffix ("-K") are not numbers.
    if neg && !rest.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(NumError::Invalid);
    }
    let p = parse_unsigned(if neg { rest } else { s }, suffixes, b_forms);
    match p {
        Ok(p) => {
            let limit = if neg { 1u64 << 63 } else { i64::MAX as u64 };
            if p.value > limit {
                return Err(NumError::TooLarge);
            }
            Ok(if neg { (p.value as i128).wrapping_neg() as i64 } else { p.value as i64 })
        }
        Err(e) => Err(e),
    }
}

fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C `strtoumax(s, &end, 0)` on bytes: optional `+`, `0x` hex, `0` octal,
/// decimal. Returns (value, bytes used, overflowed), or `None` without digits.
fn strtou(b: &[u8]) -> Option<(u64, usize, bool)> {
    let mut i = 0;
    if b.first() == Some(&b'+') {
        i = 1;
    }
    let (radix, start) = if b.get(i) == Some(&b'0')
        && matches!(b.get(i + 1), Some(b'x') | Some(b'X'))
        && b.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        (16, i + 2)
    } else if b.get(i) == Some(&b'0') {
        (8, i)
    } else {
        (10, i)
    };
    let mut j = start;
    let mut v: u64 = 0;
    let mut overflow = false;
    while let Some(&c) = b.get(j) {
        let d = match c {
            b'0'..=b'9' => (c - b'0') as u64,
            b'a'..=b'f' => (c - b'a' + 10) as u64,
            b'A'..=b'F' => (c - b'A' + 10) as u64,
            _ => break,
        };
        if d >= radix {
            break;
        }
        match v.checked_mul(radix).and_then(|x| x.checked_add(d)) {
            Some(x) => v = x,
            None => {
                overflow = true;
                v = u64::MAX;
            }
        }
        j += 1;
    }
    if j == start {
        return None;
    }
    Some((v, j, overflow))
}

/// Writes `n` in decimal into the end of `a` (at least 20 bytes, the
/// digits of `u64::MAX`); returns where the digits start. For callers that
/// pad in place (ls's long format writes a few numbers a row).
pub fn digits_ending(a: &mut [u8], mut n: u64) -> usize {
    let mut i = a.len();
    loop {
        i -= 1;
        a[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return i;
        }
    }
}

/// How many digits [`digits_ending`] writes for `n`.
pub fn digit_count(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    const BS: &str = "eEgGkKmMpPtTyYzZ0";

    fn v(s: &str) -> Result<u64, NumError> {
        parse_unsigned(s, BS, true).map(|p| p.value)
    }

    #[test]
    fn block_sizes_like_gnu() {
        assert_eq!(v("1"), Ok(1));
        assert_eq!(v("K"), Ok(1024));
        assert_eq!(v("KB"), Ok(1000));
        assert_eq!(v("KiB"), Ok(1024));
        assert_eq!(v("2K"), Ok(2048));
        assert_eq!(v("0x10"), Ok(16));
        assert_eq!(v("010"), Ok(8));
        assert_eq!(v(" 10"), Ok(10));
        assert_eq!(v("8E"), Ok(8 << 60));
        assert_eq!(v("16E"), Err(NumError::TooLarge));
        assert_eq!(v("Z"), Err(NumError::TooLarge));
        assert_eq!(v("B"), Err(NumError::Invalid));
        assert_eq!(v(" K"), Err(NumError::Invalid));
        assert_eq!(v("+K"), Err(NumError::Invalid));
        assert_eq!(v("1B"), Err(NumError::InvalidSuffix(1)));
        assert_eq!(v("1e"), Err(NumError::InvalidSuffix(1)));
        assert_eq!(v("1.5K"), Err(NumError::InvalidSuffix(1)));
        assert_eq!(v("3Kx"), Err(NumError::InvalidSuffix(3072)));
        assert_eq!(v("-1"), Err(NumError::Invalid));
        assert_eq!(v("x"), Err(NumError::Invalid));
        assert_eq!(v("18446744073709551616"), Err(NumError::TooLarge));
    }

    #[test]
    fn signed() {
        let t = "kKmMGTPEZY0";
        assert_eq!(parse_signed("-1K", t, true), Ok(-1024));
        assert_eq!(parse_signed("+5", t, true), Ok(5));
        assert_eq!(parse_signed("1g", t, true), Err(NumError::InvalidSuffix(1)));
        assert_eq!(parse_signed("x", t, true), Err(NumError::Invalid));
        assert_eq!(parse_signed("K", t, true), Ok(1024));
        assert_eq!(parse_signed("-K", t, true), Err(NumError::Invalid));
        assert_eq!(parse_signed(" K", t, true), Err(NumError::Invalid));
        assert_eq!(parse_signed("-\t5", t, true), Err(NumError::Invalid));
        assert_eq!(parse_signed(" -1K", t, true), Ok(-1024));
    }
}
