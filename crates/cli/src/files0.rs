//! `--files0-from=F` (du) and `-files0-from F` (find): operands read from a
//! file or standard input as NUL-terminated names, and reading such named
//! files.

use std::os::unix::ffi::OsStrExt;

/// One name of the list, or why it is not usable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Name {
    Ok(Vec<u8>),
    /// An empty name, at this 1-based position in the list.
    Empty(usize),
    /// `-` while the list itself comes from standard input.
    StdinDash,
}

/// Splits the list's contents into names (the last may lack its NUL).
pub fn split(data: &[u8], from_stdin: bool) -> Vec<Name> {
    let mut out = Vec::new();
    if data.is_empty() {
        return out;
    }
    let body = data.strip_suffix(b"\0").unwrap_or(data);
    for (i, name) in body.split(|&b| b == 0).enumerate() {
        out.push(if name.is_empty() {
            Name::Empty(i + 1)
        } else if from_stdin && name == b"-" {
            Name::StdinDash
        } else {
            Name::Ok(name.to_vec())
        });
    }
    out
}

/// Why a file named on the command line could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadError {
    Open(libcw::Errno),
    Read(libcw::Errno),
}

impl ReadError {
    pub fn errno(self) -> libcw::Errno {
        match self {
            ReadError::Open(e) | ReadError::Read(e) => e,
        }
    }
}

/// Reads a file named on the command line (`-` = standard input).
pub fn read_named_file(name: &[u8]) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let errno = |e: std::io::Error| libcw::Errno(e.raw_os_error().unwrap_or(libc::EIO));
    let mut data = Vec::new();
    if name == b"-" {
        std::io::stdin().lock().read_to_end(&mut data).map_err(|e| ReadError::Read(errno(e)))?;
    } else {
        let mut f = std::fs::File::open(std::ffi::OsStr::from_bytes(name))
            .map_err(|e| ReadError::Open(errno(e)))?;
        f.read_to_end(&mut data).map_err(|e| ReadError::Read(errno(e)))?;
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(split(b"", false), vec![]);
        assert_eq!(split(b"a\0b", false), vec![Name::Ok(b"a".to_vec()), Name::Ok(b"b".to_vec())]);
        assert_eq!(
            split(b"a\0\0-\0", true),
            vec![Name::Ok(b"a".to_vec()), Name::Empty(2), Name::StdinDash]
        );
        assert_eq!(split(b"\0", false), vec![Name::Empty(1)]);
    }
}
