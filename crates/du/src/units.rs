//! du's own rules on top of `cli::size`: which environment variables give
//! the units when no option did, read leniently, and how counts
//! (`--inodes`) print.

use cli::size::SizeFormat;

/// The units from the environment when no option chose them: the first of
/// `DU_BLOCK_SIZE`, `BLOCK_SIZE`, `BLOCKSIZE` that is set (even if empty),
/// read leniently as GNU du does (it ignores human_options' errors there:
/// `BLOCK_SIZE=2x` is 2); otherwise 1024, or 512 under `POSIXLY_CORRECT`.
pub fn from_env(get: impl Fn(&str) -> Option<String>) -> SizeFormat {
    let block = if get("POSIXLY_CORRECT").is_some() { 512 } else { 1024 };
    match ["DU_BLOCK_SIZE", "BLOCK_SIZE", "BLOCKSIZE"].iter().find_map(|v| get(v)) {
        Some(spec) => cli::size::parse_block_size_lenient(&spec, block),
        None => SizeFormat::blocks(block),
    }
}

/// Appends a count (`--inodes`): GNU formats it with a block size of 1,
/// so only autoscaling applies, and a unit written with `B` (`-BKB`,
/// `-BKiB`) leaves a bare `B` after the number; a `'` still groups the
/// digits (`-B"'K"` prints `4,961`).
pub fn format_count(units: SizeFormat, out: &mut Vec<u8>, n: u64) {
    match units {
        SizeFormat::Human { .. } => units.format_into(out, n),
        SizeFormat::Blocks { suffix, group, .. } => {
            SizeFormat::Blocks { block: 1, suffix: None, group }.format_into(out, n);
            if suffix.is_some_and(|s| s.ends_with('B')) {
                out.push(b'B');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(u: SizeFormat, n: u64) -> String {
        let mut v = Vec::new();
        u.format_into(&mut v, n);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn environment() {
        let kib = SizeFormat::blocks(1024);
        let env = |k: &'static str, v: &'static str| {
            move |name: &str| if name == k { Some(v.to_string()) } else { None }
        };
        assert_eq!(from_env(env("BLOCK_SIZE", "2x")), SizeFormat::blocks(2));
        assert_eq!(from_env(env("BLOCK_SIZE", "x")), kib);
        assert_eq!(from_env(env("BLOCK_SIZE", "")), kib);
        assert_eq!(from_env(env("POSIXLY_CORRECT", "1")), SizeFormat::blocks(512));
        assert_eq!(from_env(env("DU_BLOCK_SIZE", "si")), SizeFormat::human(true));
        assert_eq!(fmt(from_env(env("DU_BLOCK_SIZE", "KB")), 4096), "5kB");
    }

    #[test]
    fn counts() {
        let mut v = Vec::new();
        format_count(
            SizeFormat::Blocks { block: 1024, suffix: Some("K"), group: false },
            &mut v,
            4096,
        );
        assert_eq!(v, b"4096");
        v.clear();
        format_count(
            SizeFormat::Blocks { block: 1000, suffix: Some("kB"), group: false },
            &mut v,
            4,
        );
        assert_eq!(v, b"4B");
        v.clear();
        format_count(SizeFormat::human(false), &mut v, 4096);
        assert_eq!(v, b"4.0K");
    }
}
