//! Problems found while walking, worded as GNU du words them.

use cli::quote;
use ringio::Errno;

/// Something du could not do for part of the tree; the run goes on and
/// exits with status 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DuError {
    /// An entry (or operand) could not be stat'ed; `None` for a dangling
    /// symlink that should have been followed (GNU gives no reason then).
    Access { path: Vec<u8>, errno: Option<Errno> },
    /// A directory could not be opened; its own size still counts.
    ReadDir { path: Vec<u8>, errno: Errno },
    /// Reading a directory failed part-way; what was read still counts.
    Read { path: Vec<u8>, errno: Errno },
    /// `--files0-from`: an empty name at this position of list `list`.
    EmptyName { list: Vec<u8>, n: usize },
    /// `--files0-from=-` listing `-`.
    StdinDash,
    /// `--files0-from` list could not be opened.
    Files0Open { list: Vec<u8>, errno: Errno },
    /// `--files0-from` list could not be read.
    Files0Read { list: Vec<u8>, errno: Errno },
    /// An empty operand on the command line.
    EmptyOperand,
}

impl DuError {
    /// The message, without the program name.
    pub fn message(&self) -> Vec<u8> {
        let mut m = Vec::new();
        let reason = |m: &mut Vec<u8>, e: &Errno| {
            m.extend_from_slice(b": ");
            m.extend_from_slice(e.message().as_bytes());
        };
        match self {
            DuError::Access { path, errno } => {
                m.extend_from_slice(b"cannot access ");
                m.extend_from_slice(&quote::operand(path));
                if let Some(e) = errno {
                    reason(&mut m, e);
                }
            }
            DuError::ReadDir { path, errno } => {
                m.extend_from_slice(b"cannot read directory ");
                m.extend_from_slice(&quote::operand(path));
                reason(&mut m, errno);
            }
            DuError::Read { path, errno } => {
                m.extend_from_slice(&quote::file(path));
                reason(&mut m, errno);
            }
            DuError::EmptyName { list, n } => {
                m.extend_from_slice(&quote::file(list));
                m.extend_from_slice(format!(":{n}: invalid zero-length file name").as_bytes());
            }
            DuError::StdinDash => m.extend_from_slice(
                b"when reading file names from stdin, no file name of '-' allowed",
            ),
            DuError::Files0Read { list, errno } => {
                m.extend_from_slice(&quote::file(list));
                m.extend_from_slice(b": read error");
                reason(&mut m, errno);
            }
            DuError::EmptyOperand => m.extend_from_slice(b"invalid zero-length file name"),
            DuError::Files0Open { list, errno } => {
                m.extend_from_slice(b"cannot open ");
                m.extend_from_slice(&quote::operand(list));
                m.extend_from_slice(b" for reading");
                reason(&mut m, errno);
            }
        }
        m
    }
}
