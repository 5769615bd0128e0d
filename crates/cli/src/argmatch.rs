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
}
