//! GNU's answers for the unit tests, kept as data (`*.tsv` here) rather
//! than as Rust literals: a row is a case, its fields what went in and
//! what GNU said. The comment at the top of each file says how the
//! answers were made.
//!
//! The format: `# …` lines and blank lines are passed over; `== NAME
//! FIELD…` starts the section a test asks for by NAME; every other line
//! is a row of tab-separated fields. In a field `\\`, `\n`, `\t`, `\r`,
//! `\0` and `\xHH` (any byte) stand for what they do in Rust, and `\e`
//! for nothing, to write an empty field; a row whose first field starts
//! with `#` writes it `\x23`.

/// One section: the fields after its name, and its rows.
pub(crate) struct Section {
    name: String,
    pub header: Vec<String>,
    rows: Vec<Vec<Vec<u8>>>,
}

impl Section {
    /// Asks `differ` about every row (its fields) and fails listing all
    /// the rows where it says how ours differs from GNU's, not just the
    /// first.
    pub(crate) fn check(&self, differ: impl FnMut(&[Vec<u8>]) -> Option<String>) {
        let mut differ = differ;
        let bad: Vec<String> = self.rows.iter().filter_map(|row| differ(row)).collect();
        let (name, rows) = (&self.name, self.rows.len());
        assert!(
            bad.is_empty(),
            "{} of {rows} rows of {name} differ:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }
}

/// The section `name` of `file`, which must hold exactly `count` rows:
/// a section cut short (or lost) must fail its test, not pass with
/// fewer cases.
pub(crate) fn section(file: &str, name: &str, count: usize) -> Section {
    let mut lines = file.lines().map(|l| l.strip_suffix('\r').unwrap_or(l));
    let header = lines
        .by_ref()
        .find_map(|l| {
            let mut fields = l.strip_prefix("== ")?.split('\t');
            (fields.next() == Some(name)).then(|| fields.map(str::to_owned).collect())
        })
        .unwrap_or_else(|| panic!("no section {name}"));
    let rows: Vec<Vec<Vec<u8>>> = lines
        .take_while(|l| !l.starts_with("== "))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').map(unescape).collect())
        .collect();
    assert_eq!(rows.len(), count, "rows in section {name}");
    Section { name: name.to_owned(), header, rows }
}

/// A field as bytes; see the module's comment for the escapes.
pub(crate) fn unescape(field: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut bytes = field.bytes();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(b'\\') => out.push(b'\\'),
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(b'r') => out.push(b'\r'),
            Some(b'0') => out.push(0),
            Some(b'e') => {}
            Some(b'x') => {
                let hex: Vec<u8> = bytes.by_ref().take(2).collect();
                let hex = std::str::from_utf8(&hex).ok();
                out.push(hex.and_then(|h| u8::from_str_radix(h, 16).ok()).expect("\\xHH"));
            }
            other => panic!("unknown escape {other:?} in {field:?}"),
        }
    }
    out
}

/// A field that must be text (formats, arguments, zones).
pub(crate) fn text(field: &[u8]) -> &str {
    std::str::from_utf8(field).expect("UTF-8 field")
}
