//! Facts about glibc's locales that the tools rely on, re-measured on the
//! machine that runs the tests (docs/locale.md says what relies on each).
//! A test binary of its own: `setlocale` is process-wide, and no other test
//! may see the locale change under it.

use std::cmp::Ordering;
use std::ffi::CString;

use libcw::locale;

/// A small deterministic generator (xorshift), so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Names from the alphabet that makes collation interesting: mixed case,
/// accents, ß, punctuation, digits, CJK, a combining mark, and bytes that
/// are not valid UTF-8 (lone continuation bytes, 0xfe/0xff, truncated
/// sequences).
fn random_name(r: &mut Rng) -> CString {
    const PIECES: &[&[u8]] = &[
        b"a",
        b"A",
        b"b",
        b"B",
        b"e",
        b"E",
        b"z",
        b"0",
        b"1",
        b"9",
        b"_",
        b"-",
        b".",
        b" ",
        b"~",
        "é".as_bytes(),
        "É".as_bytes(),
        "ß".as_bytes(),
        "ä".as_bytes(),
        "日".as_bytes(),
        "あ".as_bytes(),
        "\u{301}".as_bytes(),
        "ｆ".as_bytes(),
        b"\xff",
        b"\xfe",
        b"\x80",
        b"\xe6\x97",
        b"\x01",
    ];
    let len = 1 + (r.next() % 6) as usize;
    let mut v = Vec::new();
    for _ in 0..len {
        v.extend_from_slice(PIECES[(r.next() % PIECES.len() as u64) as usize]);
    }
    CString::new(v).unwrap()
}

fn set(name: &str) -> bool {
    let c = CString::new(name).unwrap();
    // The process is this test binary alone and this test runs its cases
    // in one thread (see main below), so changing the locale races nothing.
    locale::set_named(libc::LC_ALL, &c)
}

/// `cli::locale` treats C.UTF-8's collation as byte order (no strcoll call
/// per comparison). glibc's C.UTF-8 collates by code point, which UTF-8's
/// byte order preserves, and (measured here) it orders invalid sequences
/// by byte too.
fn c_utf8_collates_as_strcmp() {
    if !set("C.UTF-8") {
        panic!("C.UTF-8 is built into glibc (libc-bin); setlocale refused it");
    }
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let names: Vec<CString> = (0..1500).map(|_| random_name(&mut r)).collect();
    let mut pairs = 0usize;
    for a in &names {
        for b in &names {
            let want = a.as_bytes().cmp(b.as_bytes());
            let got = locale::strcoll(a, b);
            assert_eq!(got, want, "strcoll({a:?}, {b:?}) in C.UTF-8");
            pairs += 1;
        }
    }
    eprintln!("C.UTF-8: strcoll == strcmp on {pairs} pairs");
}

/// Why lsr does not sort by `strxfrm` keys alone: in en_US.UTF-8 they
/// disagree with `strcoll` (which GNU ls uses) on rare pairs.
fn en_us_keys_disagree_with_strcoll() {
    if !set("en_US.UTF-8") {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("en_US.UTF-8 is not installed (cargo xtask test generates it)");
        }
        eprintln!("SKIPPED en_US_keys_disagree_with_strcoll: en_US.UTF-8 not installed");
        return;
    }
    let a = CString::new("0ß").unwrap();
    let b = CString::new("~0~ß").unwrap();
    let (mut ka, mut kb) = (Vec::new(), Vec::new());
    locale::strxfrm_into(&mut ka, &a);
    locale::strxfrm_into(&mut kb, &b);
    assert_eq!(locale::strcoll(&a, &b), Ordering::Less);
    assert_eq!(ka.cmp(&kb), Ordering::Greater, "glibc's keys now agree: see docs/locale.md");
}

/// What lsr's ASCII rank keys rely on (ls `collate.rs`, `ascii_ranks`):
/// in en_US and de_DE, `strcoll` of two printable-ASCII names whose
/// sequences of single-character first-level weights differ (characters
/// with no first-level weight left out) orders them as those sequences do.
/// Checked on every pair of 1,500 random names per locale.
fn ascii_first_level_is_per_character() {
    for loc in ["en_US.UTF-8", "de_DE.UTF-8"] {
        if !set(loc) {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{loc} is not installed (cargo xtask test generates it)");
            }
            eprintln!("SKIPPED ascii_first_level_is_per_character: {loc} not installed");
            continue;
        }
        // Each character's first level: its key up to glibc's level mark.
        let mut weight: Vec<Vec<u8>> = vec![Vec::new(); 128];
        for c in 0x20u8..0x7f {
            let mut k = Vec::new();
            locale::strxfrm_into(&mut k, &CString::new([c]).unwrap());
            let end = k.iter().position(|&b| b == 1).expect("a level mark");
            weight[c as usize] = k[..end].to_vec();
        }
        let first = |n: &CString| -> Vec<Vec<u8>> {
            n.as_bytes()
                .iter()
                .map(|&c| weight[c as usize].clone())
                .filter(|w| !w.is_empty())
                .collect()
        };
        let mut r = Rng(0x2545_f491_4f6c_dd1d);
        let printable: Vec<u8> = (0x20u8..0x7f).collect();
        let names: Vec<CString> = (0..1500)
            .map(|_| {
                let len = 1 + (r.next() % 10) as usize;
                let v: Vec<u8> = (0..len)
                    .map(|_| printable[(r.next() % printable.len() as u64) as usize])
                    .collect();
                CString::new(v).unwrap()
            })
            .collect();
        let keys: Vec<Vec<Vec<u8>>> = names.iter().map(first).collect();
        let mut pairs = 0usize;
        for (a, ka) in names.iter().zip(&keys) {
            for (b, kb) in names.iter().zip(&keys) {
                if ka != kb {
                    assert_eq!(locale::strcoll(a, b), ka.cmp(kb), "{a:?} {b:?} in {loc}");
                    pairs += 1;
                }
            }
        }
        eprintln!("{loc}: first-level order of {pairs} ASCII pairs is per character");
    }
}

#[test]
fn facts() {
    // One #[test], so the cases share one thread and run in order.
    c_utf8_collates_as_strcmp();
    en_us_keys_disagree_with_strcoll();
    ascii_first_level_is_per_character();
    utf8_decoding_is_glibcs();
}

/// `locale::decode` decodes UTF-8 itself in a UTF-8 locale (sparing
/// glibc's converter start-up); it must answer as glibc's `mbrtowc` does
/// for every sequence of one to three bytes, and for the longer forms
/// (4, 5 and 6 bytes, cut short or followed by more) over bytes at each
/// boundary of the continuation range.
fn utf8_decoding_is_glibcs() {
    const EDGES: &[u8] = &[0, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0xa0, 0xbf, 0xc0, 0xc2, 0xf0, 0xff];
    for loc in ["C.UTF-8", "en_US.UTF-8", "ja_JP.UTF-8"] {
        if !set(loc) {
            eprintln!("{loc} is not installed here: skipped");
            continue;
        }
        let check = |s: &[u8]| {
            assert_eq!(locale::decode_utf8(s), locale::decode_mb(s), "{s:x?} in {loc}");
        };
        for b0 in 0..=255u8 {
            check(&[b0]);
            for b1 in 0..=255u8 {
                check(&[b0, b1]);
                let thirds: &[u8] = if b0 >= 0xe0 { EDGES } else { &[0x41, 0x80] };
                for &b2 in thirds {
                    check(&[b0, b1, b2]);
                }
            }
        }
        for b0 in 0xe0..=0xffu8 {
            for b1 in 0..=255u8 {
                for b2 in 0..=255u8 {
                    check(&[b0, b1, b2]);
                }
                if b0 < 0xf0 {
                    continue;
                }
                for &b2 in EDGES {
                    for &b3 in EDGES {
                        for &b4 in EDGES {
                            check(&[b0, b1, b2, b3]);
                            check(&[b0, b1, b2, b3, b4]);
                            check(&[b0, b1, b2, b3, b4, 0x80]);
                            check(&[b0, b1, b2, b3, b4, 0x80, 0x41]);
                        }
                    }
                }
            }
        }
    }
}
