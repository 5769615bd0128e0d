//! The tools against GNU's in the user's locale, not only in C: C,
//! C.UTF-8, en_US.UTF-8, de_DE.UTF-8 and ja_JP.UTF-8 (`cargo xtask test`
//! generates the last three; under CI=true a missing one fails the run).
//! One module per concern; `checklist` holds the 25-item checklist of the
//! locale checklist whole (GNU behaviours of docs/locale.md), as the acceptance test of all of them.
//! Besides these, the main tables of tests/ls.rs, find.rs, du.rs and
//! cat.rs run again in every locale (`util::in_locales!`).

mod checklist;
mod find;
mod leftovers;
mod messages;
mod names;
mod numbers;
mod sort;
mod times;

/// Names where locales disagree on the order: case, accents, ß/ss,
/// punctuation, digits, the Kelvin sign, CJK and kana, full-width letters,
/// a combining mark after a letter and before one, the strcoll/strxfrm
/// disagreements (`0ß` / `~0~ß`), invalid bytes. The sort tests' fixture
/// and the checklist's both hold them.
const COLLATION_CORNERS: &[&[u8]] = &[
    b"a",
    b"A",
    b"b",
    b"B",
    b"e",
    b"E",
    "é".as_bytes(),
    "É".as_bytes(),
    "ä".as_bytes(),
    "Ä".as_bytes(),
    "ß".as_bytes(),
    b"ss",
    b"_a",
    b".b",
    b"a b",
    b"ab",
    b"a-b",
    b"a.b",
    b"1",
    b"9",
    b"10",
    b"k",
    b"K",
    "\u{212a}".as_bytes(),
    "日本".as_bytes(),
    "あ".as_bytes(),
    "ア".as_bytes(),
    "ｆｕｌｌ".as_bytes(),
    "e\u{301}".as_bytes(),
    "\u{301}-E".as_bytes(),
    "0ß".as_bytes(),
    "~0~ß".as_bytes(),
    b"a\xffb",
    b"a\xfeb",
];
