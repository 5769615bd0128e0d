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
    /// The walk of an operand ended early: directory `path` was moved out
    /// of its parent during its walk (GNU: fts_read fails).
    Walk { path: Vec<u8>, errno: Errno },
}

impl DuError {
    /// The message, without the program name.
    pub fn message(&self) -> Vec<u8> {
        use cli::locale::{tr, trf};
        let mut m = match self {
            DuError::Access { path, .. } => trf(c"cannot access %s", &[&quote::operand(path)]),
            DuError::ReadDir { path, .. } => {
                trf(c"cannot read directory %s", &[&quote::operand(path)])
            }
            DuError::Read { path, .. } => quote::file(path),
            DuError::EmptyName { list, n } => {
                // GNU: "%s:%lu: %s" around the translated reason.
                let mut m = quote::file(list);
                m.extend_from_slice(format!(":{n}: ").as_bytes());
                m.extend_from_slice(tr(c"invalid zero-length file name"));
                m
            }
            DuError::StdinDash => trf(
                c"when reading file names from stdin, no file name of %s allowed",
                &[&quote::operand(b"-")],
            ),
            DuError::Files0Read { list, .. } => trf(c"%s: read error", &[&quote::file(list)]),
            DuError::EmptyOperand => tr(c"invalid zero-length file name").to_vec(),
            DuError::Files0Open { list, .. } => {
                trf(c"cannot open %s for reading", &[&quote::operand(list)])
            }
            DuError::Walk { path, .. } => trf(c"fts_read failed: %s", &[&quote::file(path)]),
        };
        let errno = match self {
            DuError::Access { errno, .. } => *errno,
            DuError::ReadDir { errno, .. }
            | DuError::Read { errno, .. }
            | DuError::Files0Read { errno, .. }
            | DuError::Files0Open { errno, .. }
            | DuError::Walk { errno, .. } => Some(*errno),
            _ => None,
        };
        if let Some(e) = errno {
            m.extend_from_slice(b": ");
            m.extend_from_slice(e.message().as_bytes());
        }
        m
    }
}
