//! What can go wrong, as data: each error carries the errno (and the
//! operand's name where there is one) and renders GNU cat's message.

use ringio::Errno;

/// Why one operand could not be copied (whole or in part). cat reports it
/// and goes on with the next operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileErrorKind {
    Open(Errno),
    Stat(Errno),
    Read(Errno),
    Close(Errno),
    /// A non-empty regular file that is also standard output, not yet read
    /// to its end: copying it would never finish.
    InputIsOutput,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    /// The operand as given (`-` for standard input).
    pub name: Vec<u8>,
    pub kind: FileErrorKind,
}

/// A file read whole ahead of its turn failed at this step.
impl From<ringio::WholeError> for FileErrorKind {
    fn from(e: ringio::WholeError) -> FileErrorKind {
        match e {
            ringio::WholeError::Open(e) => FileErrorKind::Open(e),
            ringio::WholeError::Read(e) => FileErrorKind::Read(e),
            ringio::WholeError::Close(e) => FileErrorKind::Close(e),
        }
    }
}

impl FileError {
    /// `name: reason`, the name quoted as GNU's quotef does.
    pub fn message(&self) -> Vec<u8> {
        let mut m = cli::quote::file(&self.name);
        if self.name.contains(&b':') && m == self.name {
            // quotef also quotes names holding ':' (they would read as a
            // message separator).
            m = cli::quote::quote(&self.name, cli::quote::Style::ShellEscapeAlways);
        }
        match &self.kind {
            FileErrorKind::Open(e)
            | FileErrorKind::Stat(e)
            | FileErrorKind::Read(e)
            | FileErrorKind::Close(e) => {
                m.extend_from_slice(b": ");
                m.extend_from_slice(e.message().as_bytes());
                m
            }
            FileErrorKind::InputIsOutput => {
                cli::locale::trf(c"%s: input file is output file", &[&m])
            }
        }
    }
}

/// Errors that end the run at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fatal {
    /// Standard output could not be examined (closed, …).
    StdoutStat(Errno),
    /// Writing standard output failed: nothing more can be delivered.
    Write(Errno),
}

impl Fatal {
    pub fn message(&self) -> Vec<u8> {
        match self {
            Fatal::StdoutStat(e) => with_errno(c"standard output", *e),
            Fatal::Write(e) => with_errno(c"write error", *e),
        }
    }
}

/// `<translated head>: <errno text>`, as GNU's error(…, errno, _(head)).
pub fn with_errno(head: &'static std::ffi::CStr, e: Errno) -> Vec<u8> {
    let mut m = cli::locale::tr(head).to_vec();
    m.extend_from_slice(b": ");
    m.extend_from_slice(e.message().as_bytes());
    m
}

/// Either kind, as the copy loop returns them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    File(FileError),
    Fatal(Fatal),
}

impl From<Fatal> for Error {
    fn from(f: Fatal) -> Error {
        Error::Fatal(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        let e = |name: &[u8], kind| FileError { name: name.to_vec(), kind }.message();
        assert_eq!(e(b"d", FileErrorKind::Read(Errno(libc::EISDIR))), b"d: Is a directory");
        assert_eq!(
            e(b"a b", FileErrorKind::Open(Errno::ENOENT)),
            b"'a b': No such file or directory"
        );
        assert_eq!(
            e(b"a:b", FileErrorKind::Open(Errno::ENOENT)),
            b"'a:b': No such file or directory"
        );
        assert_eq!(e(b"-", FileErrorKind::InputIsOutput), b"-: input file is output file");
        assert_eq!(
            Fatal::Write(Errno(libc::ENOSPC)).message(),
            b"write error: No space left on device"
        );
    }
}
