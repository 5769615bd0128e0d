//! GNU's argmatch: an option's argument looked up in a table of names,
//! exactly or by a prefix. A prefix of several names is ambiguous unless
//! they all mean the same value (`--color=n` is `never`, `no` and `none`).

/// Why an argument matched no name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoMatch {
    /// No name starts with it.
    Invalid,
    /// It starts names that mean different values (as the empty string
    /// does for most tables).
    Ambiguous,
}

/// A `--color=WHEN`-style setting: GNU's ls takes these words for
/// `--color`, `--classify` and `--hyperlink`; ours for `--icons` and ldu's
/// `--progress` too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    Never,
    Always,
    /// When the output in question is a terminal.
    Auto,
}

/// The words for [`When`], as GNU's ls spells them (its `when_args`).
pub const WHEN: &[(&str, When)] = &[
    ("always", When::Always),
    ("yes", When::Always),
    ("force", When::Always),
    ("never", When::Never),
    ("no", When::Never),
    ("none", When::Never),
    ("auto", When::Auto),
    ("tty", When::Auto),
    ("if-tty", When::Auto),
];

/// The value of the name `arg` spells or abbreviates.
pub fn argmatch<T: Copy + PartialEq>(arg: &[u8], table: &[(&str, T)]) -> Result<T, NoMatch> {
    if let Some(&(_, v)) = table.iter().find(|(n, _)| n.as_bytes() == arg) {
        return Ok(v);
    }
    let mut hits = table.iter().filter(|(n, _)| n.as_bytes().starts_with(arg)).map(|&(_, v)| v);
    match hits.next() {
        None => Err(NoMatch::Invalid),
        Some(first) if hits.all(|v| v == first) => Ok(first),
        Some(_) => Err(NoMatch::Ambiguous),
    }
}

/// GNU's argmatch_invalid line (without the program name): `invalid
/// argument 'x' for '--sort'`, or `ambiguous argument …`, translated, the
/// value and the option's name quoted in the `locale` style as GNU's
/// quote() does.
pub fn complaint(e: NoMatch, value: &[u8], context: &[u8]) -> Vec<u8> {
    use crate::quote::{quote, Style};
    let msgid = match e {
        NoMatch::Invalid => c"invalid argument %s for %s",
        NoMatch::Ambiguous => c"ambiguous argument %s for %s",
    };
    crate::locale::trf(msgid, &[&quote(value, Style::Locale), &quote(context, Style::Locale)])
}

/// GNU's argmatch_valid text: `Valid arguments are:` (translated) and a
/// `  - 'name'` line per value, names of one value sharing a line as the
/// table lists them side by side (`'always', 'yes', 'force'`). No final
/// newline.
pub fn valid_list<T: PartialEq>(table: &[(&str, T)]) -> Vec<u8> {
    use crate::quote::{quote, Style};
    let mut out = crate::locale::tr(c"Valid arguments are:").to_vec();
    for (i, (name, v)) in table.iter().enumerate() {
        if i > 0 && table[i - 1].1 == *v {
            out.extend_from_slice(b", ");
        } else {
            out.extend_from_slice(b"\n  - ");
        }
        out.extend_from_slice(&quote(name.as_bytes(), Style::Locale));
    }
    out
}

/// [`argmatch`], or GNU's whole report of its failure (argmatch_die's
/// text): the [`complaint`] about `value` for `context` (`--sort`, `time
/// style`), then the [`valid_list`] of the table, so the message can only
/// offer what the table accepts. No program name (the caller prints it
/// before the first line; the list's lines go out as they are), no final
/// newline.
pub fn lookup<T: Copy + PartialEq>(
    value: &[u8],
    table: &[(&str, T)],
    context: &str,
) -> Result<T, Vec<u8>> {
    argmatch(value, table).map_err(|e| {
        let mut m = complaint(e, value, context.as_bytes());
        m.push(b'\n');
        m.extend_from_slice(&valid_list(table));
        m
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &[(&str, u8)] = &[("never", 0), ("no", 0), ("none", 0), ("auto", 2), ("always", 1)];

    #[test]
    fn exact_prefix_and_synonyms() {
        assert_eq!(argmatch(b"no", T), Ok(0));
        assert_eq!(argmatch(b"n", T), Ok(0));
        assert_eq!(argmatch(b"au", T), Ok(2));
        assert_eq!(argmatch(b"a", T), Err(NoMatch::Ambiguous));
        assert_eq!(argmatch(b"", T), Err(NoMatch::Ambiguous));
        assert_eq!(argmatch(b"x", T), Err(NoMatch::Invalid));
        assert_eq!(argmatch(b"nevers", T), Err(NoMatch::Invalid));
    }

    #[test]
    fn messages_in_c() {
        assert_eq!(
            complaint(NoMatch::Invalid, b"x", b"--color"),
            b"invalid argument 'x' for '--color'"
        );
        assert_eq!(
            valid_list(T),
            b"Valid arguments are:\n  - 'never', 'no', 'none'\n  - 'auto'\n  - 'always'"
        );
        assert_eq!(lookup(b"alw", T, "--color"), Ok(1));
        assert_eq!(
            lookup(b"", T, "--color").unwrap_err(),
            [&b"ambiguous argument '' for '--color'\n"[..], &valid_list(T)].concat()
        );
        let e = lookup(b"x", T, "--when").unwrap_err();
        assert!(
            e.starts_with(b"invalid argument 'x' for '--when'\nValid arguments are:\n  - 'never'")
        );
    }
}
