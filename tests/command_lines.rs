//! The command lines the differential tests run, kept as data
//! (`command_lines/TOOL.txt`) rather than as Rust arrays: one command line
//! a line, its arguments written as shell words, which is how they are read
//! and how GNU's tool was run with them.
//!
//! The format: `== NAME` starts the section a test asks for as
//! `TOOL/NAME`; `# …` lines and blank lines are passed over; `()` is the
//! command line with no arguments. In the sections of [`tools`] the first
//! word is the tool to run. A word is plain characters, `'…'`
//! (taken as written) or `$'…'` (with `\\`, `\'`, `\n`, `\t` and `\xHH`
//! for an ASCII byte), or pieces of those run together.

use std::collections::HashMap;
use std::sync::OnceLock;

type Lines = Vec<&'static [&'static str]>;

const FILES: &[(&str, &str)] = &[
    ("du", include_str!("command_lines/du.txt")),
    ("extras", include_str!("command_lines/extras.txt")),
    ("faults", include_str!("command_lines/faults.txt")),
    ("find", include_str!("command_lines/find.txt")),
    ("locales", include_str!("command_lines/locales.txt")),
    ("ls", include_str!("command_lines/ls.txt")),
    ("mpi", include_str!("command_lines/mpi.txt")),
];

/// The section `key` (`TOOL/NAME`), which must hold exactly `count`
/// command lines: a section cut short (or lost) must fail its test, not
/// pass with fewer cases.
pub fn section(key: &str, count: usize) -> Lines {
    static SECTIONS: OnceLock<HashMap<String, Lines>> = OnceLock::new();
    let sections = SECTIONS.get_or_init(|| {
        let mut all = HashMap::new();
        for (tool, text) in FILES {
            for (name, lines) in parse(text) {
                all.insert(format!("{tool}/{name}"), lines);
            }
        }
        all
    });
    let lines = sections.get(key).unwrap_or_else(|| panic!("no section {key}"));
    assert_eq!(lines.len(), count, "command lines in {key}");
    lines.clone()
}

/// The section `key` as (tool, arguments): each line's first word names
/// the tool (`lsr`, `lfind`, `ldu`).
pub fn tools(key: &str, count: usize) -> Vec<(&'static str, &'static [&'static str])> {
    let lines = section(key, count);
    lines
        .iter()
        .map(|l| l.split_first().map(|(tool, args)| (*tool, args)).expect("a tool"))
        .collect()
}

/// The sections of one file. The words are leaked: they are parsed once
/// and live as long as the test binary, as the arrays they replace did.
fn parse(text: &str) -> Vec<(&str, Lines)> {
    let mut sections: Vec<(&str, Lines)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("== ") {
            sections.push((name, Vec::new()));
        } else if !(line.is_empty() || line.starts_with('#')) {
            let (name, lines) = sections.last_mut().expect("a section before the first line");
            let words: Vec<&'static str> = if line == "()" {
                Vec::new()
            } else {
                words(line).unwrap_or_else(|e| panic!("{name}: {e}: {line}"))
            };
            lines.push(words.leak());
        }
    }
    sections
}

/// A line's shell words.
fn words(line: &str) -> Result<Vec<&'static str>, String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.next_if(|c| *c == ' ').is_some() {}
        if chars.peek().is_none() {
            return Ok(words);
        }
        let mut word = String::new();
        while let Some(c) = chars.next_if(|c| *c != ' ') {
            match c {
                '\'' => loop {
                    match chars.next().ok_or("unclosed '")? {
                        '\'' => break,
                        c => word.push(c),
                    }
                },
                '$' if chars.next_if_eq(&'\'').is_some() => loop {
                    match chars.next().ok_or("unclosed $'")? {
                        '\'' => break,
                        '\\' => word.push(escaped(&mut chars)?),
                        c => word.push(c),
                    }
                },
                c => word.push(c),
            }
        }
        words.push(&*word.leak());
    }
}

/// The character a `\` escape in `$'…'` stands for.
fn escaped(chars: &mut impl Iterator<Item = char>) -> Result<char, String> {
    Ok(match chars.next().ok_or("\\ at the end")? {
        'n' => '\n',
        't' => '\t',
        '\\' => '\\',
        '\'' => '\'',
        'x' => {
            let hex: String = chars.take(2).collect();
            let b = u8::from_str_radix(&hex, 16).map_err(|e| format!("\\x{hex}: {e}"))?;
            char::from(b).is_ascii().then_some(char::from(b)).ok_or("\\x above 7f")?
        }
        c => return Err(format!("unknown escape \\{c}")),
    })
}

#[test]
fn words_and_quotes() {
    let w = |l: &str| words(l).unwrap();
    assert_eq!(w("-a  t"), ["-a", "t"]);
    assert_eq!(w("-B ' K' ''"), ["-B", " K", ""]);
    assert_eq!(w("--x='a b'c"), ["--x=a bc"]);
    assert_eq!(w(r"$'1\n2' $'a\'b\\c' $'\x01'"), ["1\n2", "a'b\\c", "\u{1}"]);
    assert!(words("'open").is_err());
    assert!(words(r"$'\q'").is_err());
}
