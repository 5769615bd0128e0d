//! What can go wrong while listing, each carrying the path and errno, and
//! how GNU words and weighs it (exit status 1 "minor" or 2 "serious").

use ringio::Errno;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LsError {
    /// A stat (or the operand itself) failed: `cannot access 'x': …`.
    Access { path: Vec<u8>, errno: Errno, operand: bool },
    /// `cannot open directory 'x': …`
    OpenDir { path: Vec<u8>, errno: Errno, operand: bool },
    /// getdents failed part-way: `reading directory 'x': …`
    ReadDir { path: Vec<u8>, errno: Errno, operand: bool },
    /// readlink failed (`-l`): `cannot read symbolic link 'x': …`
    ReadLink { path: Vec<u8>, errno: Errno, operand: bool },
    /// `-R -L` met an ancestor again: `x: not listing already-listed directory`
    Loop { path: Vec<u8> },
}

impl LsError {
    /// Serious problems (command-line operands, loops) make the exit
    /// status 2, the others 1.
    pub fn serious(&self) -> bool {
        match self {
            LsError::Access { operand, .. }
            | LsError::OpenDir { operand, .. }
            | LsError::ReadDir { operand, .. }
            | LsError::ReadLink { operand, .. } => *operand,
            LsError::Loop { .. } => true,
        }
    }

    /// The message after `prog: `, as GNU prints it.
    pub fn message(&self) -> Vec<u8> {
        use cli::locale::trf;
        let with = |msgid: &'static std::ffi::CStr, path: &[u8], e: &Errno| {
            let mut v = trf(msgid, &[&cli::quote::operand(path)]);
            v.extend_from_slice(b": ");
            v.extend_from_slice(e.message().as_bytes());
            v
        };
        match self {
            LsError::Access { path, errno, .. } => with(c"cannot access %s", path, errno),
            LsError::OpenDir { path, errno, .. } => with(c"cannot open directory %s", path, errno),
            LsError::ReadDir { path, errno, .. } => with(c"reading directory %s", path, errno),
            LsError::ReadLink { path, errno, .. } => {
                with(c"cannot read symbolic link %s", path, errno)
            }
            LsError::Loop { path } => {
                trf(c"%s: not listing already-listed directory", &[&cli::quote::file(path)])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wording_and_weight() {
        let e = LsError::Access { path: b"a b".to_vec(), errno: Errno::ENOENT, operand: true };
        assert_eq!(e.message(), b"cannot access 'a b': No such file or directory");
        assert!(e.serious());
        let l = LsError::Loop { path: b"x/y".to_vec() };
        assert_eq!(l.message(), b"x/y: not listing already-listed directory");
        let r = LsError::ReadDir { path: b"d".to_vec(), errno: Errno::EACCES, operand: false };
        assert!(!r.serious());
    }
}
